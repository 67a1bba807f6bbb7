package io.gpufleet.drain.model;

import java.util.List;

/** What a drain of this node would do now, without writing anything. */
public record DryRunReport(
    String instanceId,
    String cluster,
    String node,
    boolean found,
    List<String> wouldEvict,
    List<PodReport> wouldWaitOrBlock,
    List<PodReport> wouldSkip,
    List<String> alreadyTerminating,
    String message) {}
