package io.gpufleet.core.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.EventPublisherPort;
import java.util.List;

/**
 * Puts one outcome event on a bus with EventBridge {@code PutEvents} (through {@link AwsJson}, no
 * SDK service client); a rejected entry is an error, not silently dropped: PutEvents answers 200
 * with {@code FailedEntryCount} and the entry's {@code ErrorCode}/{@code ErrorMessage} when it
 * refuses an entry.
 */
public final class EventBridgeAdapter implements EventPublisherPort {
  private final AwsJson events;
  private final String busName;
  private final String source;

  public EventBridgeAdapter(AwsJson events, String busName, String source) {
    if (!events.service().equals(AwsJson.EVENTBRIDGE)) {
      throw new IllegalArgumentException("not an EventBridge client: " + events.service());
    }
    this.events = events;
    this.busName = busName;
    this.source = source;
  }

  @Override
  public void publish(String detailType, Object detail, List<String> resources) {
    var input = AwsJson.input();
    var entry = input.putArray("Entries").addObject();
    entry.put("EventBusName", busName).put("Source", source).put("DetailType", detailType);
    var arns = entry.putArray("Resources");
    resources.forEach(arns::add);
    entry.put("Detail", Json.write(detail));
    JsonNode answer = events.call("PutEvents", input);
    if (answer.path("FailedEntryCount").asInt(0) > 0) {
      JsonNode failed = answer.path("Entries").path(0);
      throw new IllegalStateException(
          "EventBridge rejected the outcome event on bus "
              + busName
              + ": "
              + failed.path("ErrorCode").asText("(no error code)")
              + " "
              + failed.path("ErrorMessage").asText(""));
    }
  }
}
