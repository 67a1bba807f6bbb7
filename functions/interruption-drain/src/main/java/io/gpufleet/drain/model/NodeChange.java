package io.gpufleet.drain.model;

import java.util.Map;

/**
 * One patch to a node: an optional taint to add, cordon, labels and annotations to set. When {@code
 * guarded}, the patch only applies if the node is still at the resourceVersion it was read at (the
 * claim that makes repeated deliveries no-ops).
 */
public record NodeChange(
    NodeInfo.Taint addTaint,
    boolean cordon,
    Map<String, String> labels,
    Map<String, String> annotations,
    boolean guarded) {}
