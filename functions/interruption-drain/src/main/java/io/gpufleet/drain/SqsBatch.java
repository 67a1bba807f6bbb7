package io.gpufleet.drain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.LifecycleEvents;
import io.gpufleet.core.json.Json;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SQS event source mapping's batch: each record's body is decoded with {@link
 * LifecycleEvents#decodeSqsBody} (Auto Scaling's direct lifecycle message, an SNS-wrapped one, or
 * an EventBridge envelope such as the drain's own continuation) and handled; a record whose
 * handling threw is reported in {@code batchItemFailures} so SQS redelivers only it (and its
 * redrive policy dead-letters it in the end). A body that cannot be decoded is acknowledged with a
 * REJECTED outcome, like a direct invocation.
 */
final class SqsBatch {
  private static final Logger LOG = LoggerFactory.getLogger(SqsBatch.class);

  private SqsBatch() {}

  static boolean isBatch(JsonNode root) {
    return root != null
        && root.isObject()
        && root.path("Records").isArray()
        && !root.path("Records").isEmpty()
        && "aws:sqs".equals(root.path("Records").get(0).path("eventSource").asText());
  }

  static ObjectNode handle(
      JsonNode root, EventDecoder decoder, DrainService service, Instant hardStop) {
    ObjectNode answer = Json.MAPPER.createObjectNode();
    var failures = answer.putArray("batchItemFailures");
    for (JsonNode record : root.path("Records")) {
      String id = record.path("messageId").asText();
      try {
        var decoded =
            LifecycleEvents.decodeSqsBody(
                record.path("body").asText(null), record.path("awsRegion").asText(null), decoder);
        service.handle(decoded, hardStop);
      } catch (RuntimeException e) {
        LOG.warn("SQS message {} failed, left for redelivery: {}", id, e.toString());
        failures.addObject().put("itemIdentifier", id);
      }
    }
    return answer;
  }
}
