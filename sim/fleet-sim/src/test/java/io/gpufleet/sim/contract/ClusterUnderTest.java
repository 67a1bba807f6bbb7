package io.gpufleet.sim.contract;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A Kubernetes API server the {@link KubernetesContract} runs against: the simulator ({@link
 * SimClusterContractTest}) or the real control plane ({@link RealApiContractTest}). Everything a
 * case asserts goes through {@link #client()}; the methods here only stand in for what the
 * simulator has no process for (a kubelet that runs pods, the disruption and Deployment
 * controllers), so each server gets there its own way.
 */
interface ClusterUnderTest {
  /** Grace period of the pods made here, in seconds. */
  long POD_GRACE_SECONDS = 2;

  /** The client every request of a case goes through (fabric8, built as the functions build it). */
  KubernetesClient client();

  /** The namespace of this case (fresh per case). */
  String namespace();

  /** Makes a cluster-scoped name (a NodePool's) unique to this case. */
  String unique(String name);

  /** The node selector that keeps this case's pods on this case's nodes (or on none). */
  Map<String, String> nodeSelector();

  /** Creates a Ready GPU node and returns its name. */
  String node(String name);

  /**
   * Creates {@code count} pods named {@code app-<i>}, labelled {@code app=<app>}, bound to {@code
   * node}, owned by no controller, with a {@value #POD_GRACE_SECONDS} s grace period, and returns
   * them once they run and are Ready (a kubelet's job: kwok's on the real server).
   */
  List<Pod> readyPods(String app, String node, int count);

  /**
   * The PodDisruptionBudget once the disruption controller has computed its status for the current
   * generation and {@code condition} holds (the simulator computes it when asked, the real
   * controller when it gets to it).
   */
  PodDisruptionBudget awaitPdb(String name, String what, Predicate<PodDisruptionBudget> condition);

  /** Waits until the pod is gone from the API (its grace period run out, as a kubelet ends it). */
  void awaitGone(String pod);

  /** Waits until the Deployment controller has seen the Deployment's current generation. */
  void awaitObserved(String deployment);
}
