package io.gpufleet.preflight.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.preflight.DraCheck.DraWorkload;
import io.gpufleet.preflight.model.NodePoolSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads Kubernetes manifests offline (multi-document YAML, or a {@code kind: List}): karpenter.sh
 * NodePools; workloads whose pod template claims DRA devices ({@code spec.resourceClaims}: Pod,
 * Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob); and the Karpenter controller
 * Deployment, if present, for its version (image tag) and its {@code IGNORE_DRA_REQUESTS} env.
 * Other documents are skipped. A document that is not valid YAML is a precise error.
 */
public final class NodePoolManifests {
  private final List<NodePoolSpec> pools = new ArrayList<>();
  private final List<DraWorkload> draWorkloads = new ArrayList<>();
  private final List<String> skipped = new ArrayList<>();
  private Optional<String> karpenterVersion = Optional.empty();
  private Optional<Boolean> ignoreDRARequests = Optional.empty();

  public List<NodePoolSpec> pools() {
    return pools;
  }

  public List<DraWorkload> draWorkloads() {
    return draWorkloads;
  }

  /** "kind name" of the documents that are neither NodePools nor DRA workloads. */
  public List<String> skipped() {
    return skipped;
  }

  public Optional<String> karpenterVersion() {
    return karpenterVersion;
  }

  public Optional<Boolean> ignoreDRARequests() {
    return ignoreDRARequests;
  }

  /** Adds the documents of one file; {@code source} names it in errors. */
  public NodePoolManifests add(String text, String source) {
    List<JsonNode> docs = new ArrayList<>();
    try (var it = Yaml.MAPPER.readerFor(JsonNode.class).<JsonNode>readValues(text)) {
      while (it.hasNextValue()) {
        JsonNode d = it.nextValue();
        if (d != null && !d.isNull() && !d.isMissingNode()) {
          docs.add(d);
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      throw new ConfigException(source + ": not valid YAML: " + firstLine(e.getMessage()));
    }
    int i = 0;
    for (JsonNode d : docs) {
      document(d, source + " document " + (++i));
    }
    return this;
  }

  private void document(JsonNode d, String where) {
    if (!d.isObject()) {
      throw new ConfigException(where + ": expected a Kubernetes object");
    }
    String kind = d.path("kind").asText("");
    String api = d.path("apiVersion").asText("");
    if ("List".equals(kind) && d.path("items").isArray()) {
      int j = 0;
      for (JsonNode item : d.path("items")) {
        document(item, where + " items[" + (j++) + "]");
      }
      return;
    }
    String name = d.path("metadata").path("name").asText("");
    if (kind.isEmpty() || name.isEmpty()) {
      throw new ConfigException(where + ": needs kind and metadata.name");
    }
    if (NodePoolAdapter.KIND.equals(kind) && api.startsWith("karpenter.sh/")) {
      if (!NodePoolAdapter.API_VERSION.equals(api)) {
        throw new ConfigException(
            where
                + ": NodePool "
                + name
                + " is "
                + api
                + "; only "
                + NodePoolAdapter.API_VERSION
                + " is read (convert it first)");
      }
      pools.add(
          NodePoolAdapter.toSpec(Yaml.MAPPER.convertValue(d, GenericKubernetesResource.class)));
      return;
    }
    JsonNode podSpec =
        switch (kind) {
          case "Pod" -> d.path("spec");
          case "CronJob" ->
              d.path("spec").path("jobTemplate").path("spec").path("template").path("spec");
          case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job" ->
              d.path("spec").path("template").path("spec");
          default -> null;
        };
    if (podSpec == null) {
      skipped.add(kind + " " + name);
      return;
    }
    karpenterController(podSpec);
    JsonNode claims = podSpec.path("resourceClaims");
    if (!claims.isArray() || claims.isEmpty()) {
      skipped.add(kind + " " + name);
      return;
    }
    var names = new ArrayList<String>();
    for (JsonNode c : claims) {
      String ref =
          c.hasNonNull("resourceClaimTemplateName")
              ? "template " + c.get("resourceClaimTemplateName").asText()
              : c.hasNonNull("resourceClaimName")
                  ? "claim " + c.get("resourceClaimName").asText()
                  : c.path("name").asText("?");
      names.add(ref);
    }
    var selector = new LinkedHashMap<String, String>();
    podSpec
        .path("nodeSelector")
        .fields()
        .forEachRemaining(e -> selector.put(e.getKey(), e.getValue().asText()));
    draWorkloads.add(
        new DraWorkload(
            kind,
            d.path("metadata").path("namespace").asText(null),
            name,
            List.copyOf(names),
            Map.copyOf(selector)));
  }

  /** The Karpenter controller: image …/karpenter/controller:1.14.0, env IGNORE_DRA_REQUESTS. */
  private void karpenterController(JsonNode podSpec) {
    for (JsonNode c : podSpec.path("containers")) {
      String image = c.path("image").asText("");
      var m =
          java.util.regex.Pattern.compile(".*/karpenter/controller:v?([0-9][^@]*)(@.*)?")
              .matcher(image);
      if (!m.matches()) {
        continue;
      }
      karpenterVersion = Optional.of(m.group(1));
      for (JsonNode e : c.path("env")) {
        if ("IGNORE_DRA_REQUESTS".equals(e.path("name").asText())) {
          ignoreDRARequests = Optional.of(Boolean.parseBoolean(e.path("value").asText("true")));
        }
      }
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
