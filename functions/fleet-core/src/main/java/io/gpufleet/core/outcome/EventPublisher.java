package io.gpufleet.core.outcome;

import java.util.List;

/** Publishes an outcome for downstream automation (EventBridge in production). */
public interface EventPublisher {
  void publish(String detailType, Object detail, List<String> resources);

  EventPublisher NONE = (detailType, detail, resources) -> {};
}
