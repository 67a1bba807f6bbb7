package io.gpufleet.preflight;

import io.gpufleet.preflight.model.NodePoolSpec;
import io.gpufleet.preflight.model.PoolFinding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Pure: can the provisioner that would have to launch a node for a DRA workload (one whose pods
 * carry {@code spec.resourceClaims}) actually do so? Facts from the reference (gpu-sharing-cost.md
 * §3): Karpenter skips pods with ResourceClaims while {@code ignoreDRARequests} is true — the
 * default from v1.7 on, still the default in v1.14, the first release with DRA support; EKS Auto
 * Mode ships the NVIDIA DRA driver only on Kubernetes 1.36+; Cluster Autoscaler models DRA from
 * 1.32 behind {@code --enable-dynamic-resource-allocation} (on and locked from 1.35). DRA's API is
 * GA from Kubernetes 1.34.
 */
public final class DraCheck {
  static final String NODEPOOL_LABEL = "karpenter.sh/nodepool";
  static final String NODEGROUP_LABEL = "eks.amazonaws.com/nodegroup";
  static final String COMPUTE_TYPE_LABEL = "eks.amazonaws.com/compute-type";

  /** A workload whose pods claim DRA devices, and where its nodeSelector sends it. */
  public record DraWorkload(
      String kind,
      String namespace,
      String name,
      List<String> claims,
      Map<String, String> nodeSelector) {
    public String ref() {
      return kind + " " + (namespace == null ? "default" : namespace) + "/" + name;
    }
  }

  /**
   * What is known about the cluster's provisioners; empty = not stated. {@code ignoreDRARequests}
   * and {@code enableDRA} are Karpenter's settings; {@code clusterAutoscalerDra} is CA's {@code
   * --enable-dynamic-resource-allocation}.
   */
  public record Provisioners(
      Optional<Version> karpenter,
      Optional<Boolean> ignoreDRARequests,
      Optional<Boolean> enableDRA,
      Optional<Version> kubernetes,
      Optional<Version> clusterAutoscaler,
      Optional<Boolean> clusterAutoscalerDra) {
    public static final Provisioners UNKNOWN =
        new Provisioners(
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
  }

  /** A dotted version ("1.14.0", "v1.34", "1.36-eks-abc"): major and minor are what count. */
  public record Version(int major, int minor) implements Comparable<Version> {
    public static Version parse(String text, String what) {
      var m =
          java.util.regex.Pattern.compile("v?(\\d+)\\.(\\d+)(?:[.\\-+].*)?").matcher(text.trim());
      if (!m.matches()) {
        throw new io.gpufleet.core.config.ConfigException(
            what + ": '" + text + "' is not a version (like 1.14.0)");
      }
      return new Version(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }

    public static Version of(int major, int minor) {
      return new Version(major, minor);
    }

    public boolean below(int maj, int min) {
      return compareTo(new Version(maj, min)) < 0;
    }

    @Override
    public int compareTo(Version o) {
      return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
      return major + "." + minor;
    }
  }

  /** Whether one provisioner serves DRA, and why (or why not). */
  record Serve(boolean serves, boolean known, String reason) {}

  static final String NODE_GROUP_ADVICE =
      "or serve it from a managed node group scaled by Cluster Autoscaler 1.35+ (1.32-1.34 with"
          + " --enable-dynamic-resource-allocation=true; keep the group's minimum at 1 node, as"
          + " scale-from-0 for DRA on AWS is unconfirmed)";

  private final Provisioners p;

  public DraCheck(Provisioners provisioners) {
    this.p = provisioners;
  }

  public List<PoolFinding> check(List<DraWorkload> workloads, List<NodePoolSpec> pools) {
    var out = new ArrayList<PoolFinding>();
    for (DraWorkload w : workloads) {
      check(w, pools, out);
    }
    return out;
  }

  private void check(DraWorkload w, List<NodePoolSpec> pools, List<PoolFinding> out) {
    String claims = " (claims " + String.join(", ", w.claims()) + ")";
    String pool = w.nodeSelector().get(NODEPOOL_LABEL);
    String group = w.nodeSelector().get(NODEGROUP_LABEL);
    if (group != null) {
      Serve s = clusterAutoscaler();
      out.add(finding(w, s, "node group " + group + ": " + s.reason() + claims));
      return;
    }
    List<NodePoolSpec> candidates = new ArrayList<>();
    for (NodePoolSpec np : pools) {
      if (pool != null && !pool.equals(np.name())) {
        continue;
      }
      if ("auto".equals(w.nodeSelector().get(COMPUTE_TYPE_LABEL)) && !np.autoMode()) {
        continue;
      }
      candidates.add(np);
    }
    if (candidates.isEmpty()) {
      if (p.clusterAutoscaler().isPresent()) {
        Serve s = clusterAutoscaler();
        out.add(finding(w, s, "Cluster Autoscaler: " + s.reason() + claims));
      } else {
        out.add(
            new PoolFinding(
                w.ref(),
                PoolFinding.INFO,
                "claims DRA devices"
                    + claims
                    + (pool != null
                        ? " on NodePool " + pool + ", which is not among the files"
                        : " but no NodePool or node group here could launch its node")
                    + ": not judged"));
      }
      return;
    }
    var reasons = new ArrayList<String>();
    boolean anyServes = false;
    boolean allKnown = true;
    for (NodePoolSpec np : candidates) {
      Serve s = np.autoMode() ? autoMode() : karpenter();
      anyServes |= s.serves();
      allKnown &= s.known();
      reasons.add("NodePool " + np.name() + ": " + s.reason());
    }
    String severity =
        anyServes ? PoolFinding.INFO : allKnown ? PoolFinding.NO_GO : PoolFinding.WARNING;
    out.add(
        new PoolFinding(
            w.ref(),
            severity,
            (anyServes
                    ? "DRA workload can be served"
                    : "DRA workload will stay Pending: no pool that may run it launches nodes for"
                        + " ResourceClaims")
                + claims
                + " — "
                + String.join("; ", reasons)));
  }

  private PoolFinding finding(DraWorkload w, Serve s, String text) {
    String severity =
        s.serves() ? PoolFinding.INFO : s.known() ? PoolFinding.NO_GO : PoolFinding.WARNING;
    return new PoolFinding(
        w.ref(),
        severity,
        (s.serves() ? "DRA workload can be served by " : "DRA workload: ") + text);
  }

  Serve karpenter() {
    String fix =
        "; set Karpenter's ignoreDRARequests to false on v1.14+ (env IGNORE_DRA_REQUESTS=false on"
            + " the controller: the Helm chart appears to drop a false value, unconfirmed), "
            + NODE_GROUP_ADVICE;
    Optional<Serve> k8s = kubernetesTooOld();
    if (p.karpenter().isPresent() && p.karpenter().get().below(1, 7)) {
      return new Serve(
          false,
          true,
          "Karpenter "
              + p.karpenter().get()
              + " predates DRA (flag added in v1.7, support in v1.14) and launches nodes without"
              + " the claimed devices, if any"
              + fix);
    }
    boolean on = p.ignoreDRARequests().map(i -> !i).orElse(false) || p.enableDRA().orElse(false);
    String version =
        p.karpenter().map(v -> "Karpenter " + v).orElse("Karpenter (version not given)");
    if (!on) {
      return new Serve(
          false,
          true,
          version
              + " skips pods with ResourceClaims: ignoreDRARequests defaults to true (v1.7 on,"
              + " still in v1.14) and no setting here turns it off"
              + fix);
    }
    if (p.karpenter().isEmpty()) {
      return new Serve(
          false,
          false,
          "DRA is turned on in Karpenter's settings but its version is not given (DRA support"
              + " needs v1.14+); state it with --karpenter-version");
    }
    if (p.karpenter().get().below(1, 14)) {
      return new Serve(
          false, true, version + " has no DRA support even with the setting (v1.14+)" + fix);
    }
    if (k8s.isPresent()) {
      return k8s.get();
    }
    return new Serve(
        true,
        true,
        version
            + " with DRA turned on (newer docs call it alpha; GPU time-slicing through DRA needs"
            + " Kubernetes 1.36+)");
  }

  Serve autoMode() {
    if (p.kubernetes().isEmpty()) {
      return new Serve(
          false,
          false,
          "EKS Auto Mode serves DRA only on Kubernetes 1.36+ and the cluster's version is not"
              + " given (--kubernetes-version)");
    }
    if (p.kubernetes().get().below(1, 36)) {
      return new Serve(
          false,
          true,
          "EKS Auto Mode ships the NVIDIA DRA driver only on Kubernetes 1.36+, the cluster runs "
              + p.kubernetes().get()
              + "; upgrade the cluster, "
              + NODE_GROUP_ADVICE);
    }
    return new Serve(
        true,
        true,
        "EKS Auto Mode on Kubernetes "
            + p.kubernetes().get()
            + " (a DRA driver and a device plugin may not manage the same device type)");
  }

  Serve clusterAutoscaler() {
    if (p.clusterAutoscaler().isEmpty()) {
      return new Serve(
          false,
          false,
          "Cluster Autoscaler version not given (--cluster-autoscaler-version): DRA needs 1.32+");
    }
    var v = p.clusterAutoscaler().get();
    if (v.below(1, 32)) {
      return new Serve(
          false,
          true,
          "Cluster Autoscaler " + v + " does not model DRA (1.32+); upgrade it to 1.35+");
    }
    if (v.below(1, 35) && !p.clusterAutoscalerDra().orElse(false)) {
      return new Serve(
          false,
          p.clusterAutoscalerDra().isPresent(),
          "Cluster Autoscaler "
              + v
              + " models DRA only with --enable-dynamic-resource-allocation=true (default false"
              + " before 1.35)"
              + (p.clusterAutoscalerDra().isPresent() ? "" : "; not stated here"));
    }
    Optional<Serve> k8s = kubernetesTooOld();
    if (k8s.isPresent()) {
      return k8s.get();
    }
    return new Serve(
        true,
        true,
        "Cluster Autoscaler "
            + v
            + " models DRA (keep the node group's minimum at 1: scale-from-0 for DRA on AWS is"
            + " unconfirmed)");
  }

  private Optional<Serve> kubernetesTooOld() {
    if (p.kubernetes().isPresent() && p.kubernetes().get().below(1, 34)) {
      return Optional.of(
          new Serve(
              false,
              true,
              "the cluster runs Kubernetes "
                  + p.kubernetes().get()
                  + ", before DRA's API went GA (resource.k8s.io/v1, 1.34); upgrade the cluster"));
    }
    return Optional.empty();
  }
}
