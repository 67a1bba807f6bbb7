package io.gpufleet.core.event;

import java.time.Instant;
import java.util.List;

/** The EventBridge envelope fields every event carries; {@code id} is the dedupe key. */
public record EventMeta(
    String id,
    String source,
    String detailType,
    String account,
    String region,
    Instant time,
    List<String> resources) {}
