package io.gpufleet.drain;

import io.gpufleet.core.time.Sleeper;
import java.time.Clock;

/**
 * What the event drain ({@link EventDrain}) and the lifecycle drain ({@link LifecycleService}) of
 * one cluster share: its settings and policy, its Kubernetes port, the node claims, the outcome
 * builder, the dry run, the continuation queue and time. Built once per cluster by {@link
 * ClusterDrain}.
 */
record ClusterTools(
    DrainSettings settings,
    DrainPolicy policy,
    DrainClusterPort cluster,
    NodeClaims claims,
    DrainOutcomes outcomes,
    DryRunPlanner dryRuns,
    ContinuationPort continuations,
    Clock clock,
    Sleeper sleeper) {

  static ClusterTools of(
      DrainSettings settings,
      DrainClusterPort cluster,
      ContinuationPort continuations,
      Clock clock,
      Sleeper sleeper) {
    var policy = new DrainPolicy(settings);
    var outcomes = new DrainOutcomes(settings.clusterName(), cluster);
    return new ClusterTools(
        settings,
        policy,
        cluster,
        new NodeClaims(cluster, policy, clock, sleeper),
        outcomes,
        new DryRunPlanner(settings.clusterName(), policy, cluster, outcomes),
        continuations,
        clock,
        sleeper);
  }
}
