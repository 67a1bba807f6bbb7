package io.gpufleet.core.outcome;

import java.util.List;

/** Publishes an outcome for downstream automation (EventBridge in production). */
public interface EventPublisherPort {
  void publish(String detailType, Object detail, List<String> resources);

  EventPublisherPort NONE = (detailType, detail, resources) -> {};
}
