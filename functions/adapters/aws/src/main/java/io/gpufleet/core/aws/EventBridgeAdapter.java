package io.gpufleet.core.aws;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import java.util.List;
import software.amazon.awssdk.services.eventbridge.EventBridgeClient;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;

/** Puts one outcome event on a bus; a rejected entry is an error, not silently dropped. */
public final class EventBridgeAdapter implements EventPublisherPort {
  private final EventBridgeClient events;
  private final String busName;
  private final String source;

  public EventBridgeAdapter(EventBridgeClient events, String busName, String source) {
    this.events = events;
    this.busName = busName;
    this.source = source;
  }

  @Override
  public void publish(String detailType, Object detail, List<String> resources) {
    var entry =
        PutEventsRequestEntry.builder()
            .eventBusName(busName)
            .source(source)
            .detailType(detailType)
            .resources(resources)
            .detail(Json.write(detail))
            .build();
    var response = events.putEvents(r -> r.entries(entry));
    if (response.failedEntryCount() != null && response.failedEntryCount() > 0) {
      var failed = response.entries().get(0);
      throw new IllegalStateException(
          "EventBridge rejected the outcome event: "
              + failed.errorCode()
              + " "
              + failed.errorMessage());
    }
  }
}
