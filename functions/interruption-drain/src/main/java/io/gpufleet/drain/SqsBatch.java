package io.gpufleet.drain;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.drain.model.DrainOutcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An SQS event as Lambda's event source mapping delivers it ({@code {"Records":[{"messageId",
 * "eventSource":"aws:sqs","body",...}]}}), each body one EventBridge event (the rule's target is
 * the queue), Auto Scaling's own lifecycle message (direct or SNS-wrapped, see {@link
 * io.gpufleet.core.event.LifecycleEvents#decodeSqsBody}) or the drain's own continuation, and the
 * partial batch response the mapping reads when {@code FunctionResponseTypes} holds {@code
 * ReportBatchItemFailures}.
 */
public record SqsBatch(List<Message> messages) {
  public static final String EVENT_SOURCE = "aws:sqs";

  /**
   * One SQS message: its id (what a batch failure names), body, and the queue's region (stands in
   * for the region Auto Scaling's direct message does not carry).
   */
  public record Message(String messageId, byte[] body, String awsRegion) {
    public Message(String messageId, byte[] body) {
      this(messageId, body, null);
    }
  }

  /**
   * The batch, when the payload is an SQS event: a JSON object whose {@code Records} are all SQS
   * records. Anything else (an EventBridge event, garbage) is left to the event decoder.
   */
  public static Optional<SqsBatch> parse(byte[] payload) {
    if (payload == null || payload.length == 0 || payload.length > 7 * 1024 * 1024) {
      return Optional.empty();
    }
    JsonNode root;
    try {
      root = Json.readPayload(payload);
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
    if (root == null || !root.isObject() || root.has("detail-type")) {
      return Optional.empty();
    }
    JsonNode records = root.get("Records");
    if (records == null || !records.isArray() || records.isEmpty()) {
      return Optional.empty();
    }
    var messages = new ArrayList<Message>();
    for (JsonNode r : records) {
      if (!EVENT_SOURCE.equals(r.path("eventSource").asText())) {
        return Optional.empty();
      }
      JsonNode body = r.get("body");
      messages.add(
          new Message(
              r.path("messageId").asText(""),
              body == null || !body.isTextual()
                  ? new byte[0]
                  : body.asText().getBytes(StandardCharsets.UTF_8),
              r.path("awsRegion").asText(null)));
    }
    return Optional.of(new SqsBatch(List.copyOf(messages)));
  }

  /** What a batch came to: the outcomes per message and the messages to retry. */
  public record Result(SqsBatch batch, List<List<DrainOutcome>> outcomes, List<String> failed) {
    /** The partial batch response: only the messages to retry (empty = all succeeded). */
    public Map<String, Object> response() {
      var items = new ArrayList<Map<String, String>>();
      for (String id : failed) {
        items.add(Map.of("itemIdentifier", id));
      }
      var out = new LinkedHashMap<String, Object>();
      out.put("batchItemFailures", items);
      return out;
    }

    /** Every outcome of the batch, in message order. */
    public List<DrainOutcome> all() {
      return outcomes.stream().flatMap(List::stream).toList();
    }
  }
}
