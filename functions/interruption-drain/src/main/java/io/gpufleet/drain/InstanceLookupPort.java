package io.gpufleet.drain;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What EC2 says of one instance, used to find its node without listing every node: the private DNS
 * name (the node name on EKS-optimized AL2/AL2023, Bottlerocket and Karpenter nodes) and the
 * clusters its tags name. Only a hint: the node found by that name must still carry the instance in
 * its providerID, and any failure or miss falls back to the node listing.
 */
@FunctionalInterface
public interface InstanceLookupPort {
  /** The instance, or empty when EC2 does not know it (or was not asked). May throw on failure. */
  Optional<Instance> describe(String instanceId);

  InstanceLookupPort NONE = id -> Optional.empty();

  /** An instance as the node lookup uses it. */
  record Instance(String privateDnsName, Set<String> clusters) {
    public Instance {
      clusters = Set.copyOf(clusters);
    }

    /** The cluster names in an instance's tags (EKS managed node groups, Karpenter, kubelet). */
    public static Set<String> clustersOf(Map<String, String> tags) {
      var names = new TreeSet<String>();
      tags.forEach(
          (k, v) -> {
            if ((k.equals("eks:cluster-name") || k.equals("eks:eks-cluster-name"))
                && v != null
                && !v.isBlank()) {
              names.add(v.trim());
            } else if (k.startsWith("kubernetes.io/cluster/")
                && k.length() > "kubernetes.io/cluster/".length()) {
              names.add(k.substring("kubernetes.io/cluster/".length()));
            }
          });
      return names;
    }
  }

  /**
   * This directory remembering up to {@code max} answers (an instance's name and tags do not change
   * while its events arrive) and answering empty when the lookup fails or is throttled, so the
   * caller falls back to the listing.
   */
  static InstanceLookupPort remembering(InstanceLookupPort source, int max) {
    Map<String, Optional<Instance>> seen =
        Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
              @Override
              protected boolean removeEldestEntry(Map.Entry<String, Optional<Instance>> e) {
                return size() > max;
              }
            });
    return id -> {
      var known = seen.get(id);
      if (known != null) {
        return known;
      }
      Optional<Instance> answer;
      try {
        answer = source.describe(id);
      } catch (RuntimeException failed) {
        return Optional.empty();
      }
      if (answer.isPresent()) {
        seen.put(id, answer);
      }
      return answer;
    };
  }

  /** Members of {@code names} the instance's tags name, in the list's order. */
  static List<String> tagged(Optional<Instance> instance, List<String> names) {
    return instance
        .map(i -> names.stream().filter(i.clusters()::contains).toList())
        .orElse(List.of());
  }
}
