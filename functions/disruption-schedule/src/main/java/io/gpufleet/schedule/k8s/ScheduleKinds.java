package io.gpufleet.schedule.k8s;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * The kinds the schedule reads and writes, as fabric8 resource definitions: every kind is read as a
 * generic resource (no typed models, no CRD classes).
 */
public final class ScheduleKinds {
  public static final ResourceDefinitionContext NODEPOOLS =
      ctx("karpenter.sh", "v1", "NodePool", "nodepools", false);
  public static final ResourceDefinitionContext DEPLOYMENTS =
      ctx("apps", "v1", "Deployment", "deployments", true);
  public static final ResourceDefinitionContext STATEFULSETS =
      ctx("apps", "v1", "StatefulSet", "statefulsets", true);
  public static final ResourceDefinitionContext HPAS =
      ctx("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true);
  public static final ResourceDefinitionContext SCALEDOBJECTS =
      ctx("keda.sh", "v1alpha1", "ScaledObject", "scaledobjects", true);
  public static final ResourceDefinitionContext CONFIGMAPS =
      ctx("", "v1", "ConfigMap", "configmaps", true);

  private ScheduleKinds() {}

  /** The definition of a kind the schedule writes, by its {@code kind}. */
  static ResourceDefinitionContext of(String kind) {
    return switch (kind) {
      case "NodePool" -> NODEPOOLS;
      case "Deployment" -> DEPLOYMENTS;
      case "StatefulSet" -> STATEFULSETS;
      case "HorizontalPodAutoscaler" -> HPAS;
      case "ScaledObject" -> SCALEDOBJECTS;
      default -> throw new IllegalArgumentException("unexpected kind " + kind);
    };
  }

  private static ResourceDefinitionContext ctx(
      String group, String version, String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }
}
