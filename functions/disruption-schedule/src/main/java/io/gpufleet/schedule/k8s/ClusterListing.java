package io.gpufleet.schedule.k8s;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.gpufleet.schedule.model.TargetState;
import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The schedule's reads: every page of each kind in all namespaces (a kind the cluster does not
 * serve is empty), the four workload listings in parallel, and the replica memory of every
 * namespace ({@link ReplicaState}) merged into the Deployments and StatefulSets.
 */
final class ClusterListing {
  static final long PAGE = 500;

  private final KubernetesClient client;

  ClusterListing(KubernetesClient client) {
    this.client = client;
  }

  List<TargetState> nodePools() {
    return list(ScheduleKinds.NODEPOOLS).stream().map(TargetStates::toNodePool).toList();
  }

  List<TargetState> workloads() {
    // four listings in parallel: each is one round trip (or a few pages)
    try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<Map<String, Map<String, String>>> states = pool.submit(this::replicaStates);
      List<Callable<List<TargetState>>> calls =
          List.of(
              () -> map(list(ScheduleKinds.DEPLOYMENTS), WorkloadKind.DEPLOYMENT),
              () -> map(list(ScheduleKinds.STATEFULSETS), WorkloadKind.STATEFULSET),
              () -> map(list(ScheduleKinds.HPAS), WorkloadKind.HPA),
              () -> map(list(ScheduleKinds.SCALEDOBJECTS), WorkloadKind.SCALED_OBJECT));
      var out = new ArrayList<TargetState>();
      for (Future<List<TargetState>> f : calls.stream().map(pool::submit).toList()) {
        out.addAll(f.get());
      }
      var byNamespace = states.get();
      return out.stream().map(w -> ReplicaState.merge(w, byNamespace)).toList();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing workloads", e);
    }
  }

  /**
   * The data of every namespace's {@value ReplicaState#STATE_CONFIGMAP} (namespace -> key -> JSON):
   * one listing across namespaces with a field selector on the name, which RBAC authorises by
   * resourceNames.
   */
  private Map<String, Map<String, String>> replicaStates() {
    var out = new java.util.HashMap<String, Map<String, String>>();
    String token = null;
    do {
      var options =
          new ListOptionsBuilder()
              .withLimit(PAGE)
              .withContinue(token)
              .withFieldSelector("metadata.name=" + ReplicaState.STATE_CONFIGMAP)
              .build();
      var page = client.configMaps().inAnyNamespace().list(options);
      for (var cm : page.getItems()) {
        out.put(cm.getMetadata().getNamespace(), cm.getData() == null ? Map.of() : cm.getData());
      }
      token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (token != null && !token.isEmpty());
    return out;
  }

  private static List<TargetState> map(List<GenericKubernetesResource> items, WorkloadKind kind) {
    return items.stream().map(r -> TargetStates.toWorkload(r, kind)).toList();
  }

  /** Every page of a kind in all namespaces; a kind the cluster does not serve (404) is empty. */
  private List<GenericKubernetesResource> list(ResourceDefinitionContext ctx) {
    var out = new ArrayList<GenericKubernetesResource>();
    String token = null;
    try {
      do {
        var options = new ListOptionsBuilder().withLimit(PAGE).withContinue(token).build();
        GenericKubernetesResourceList page =
            ctx.isNamespaceScoped()
                ? client.genericKubernetesResources(ctx).inAnyNamespace().list(options)
                : client.genericKubernetesResources(ctx).list(options);
        out.addAll(page.getItems());
        token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
      } while (token != null && !token.isEmpty());
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return List.of();
      }
      throw e;
    }
    return out;
  }
}
