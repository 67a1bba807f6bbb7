package io.gpufleet.drain;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.drain.wiring.DrainHandler;
import io.gpufleet.sim.SimCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * EventBridge → SQS → the drain: a batch is answered with the partial batch response Lambda's event
 * source mapping reads ({@code ReportBatchItemFailures}), naming only messages whose handling
 * failed for a reason worth retrying.
 */
class DrainSqsBatchTest {
  final DrainFixture f = new DrainFixture();
  final DrainHandler handler = new DrainHandler(f.service, f.metrics, f.time.clock());

  @AfterEach
  void close() {
    f.close();
  }

  static String spot(String id, String instance, String time) {
    return """
        {"version":"0","id":"%s","detail-type":"EC2 Spot Instance Interruption Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":[],"detail":{"instance-id":"%s","instance-action":"terminate"}}
        """
        .formatted(id, time, instance);
  }

  static byte[] batch(Map<String, String> bodiesById) {
    var records = new ArrayList<Map<String, Object>>();
    bodiesById.forEach(
        (id, body) ->
            records.add(
                Map.of(
                    "messageId",
                    id,
                    "receiptHandle",
                    "AQEB" + id,
                    "body",
                    body,
                    "attributes",
                    Map.of("ApproximateReceiveCount", "1"),
                    "eventSource",
                    "aws:sqs",
                    "eventSourceARN",
                    "arn:aws:sqs:us-east-1:123456789012:q",
                    "awsRegion",
                    "us-east-1")));
    return Json.write(Map.of("Records", records)).getBytes(StandardCharsets.UTF_8);
  }

  JsonNode invoke(byte[] payload) throws IOException {
    var out = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload), out, new LocalContext("interruption-drain", 170_000));
    return Json.MAPPER.readTree(out.toByteArray());
  }

  @Test
  void shouldDrainEveryMessageOfABatchAndReportNoFailure() throws IOException {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 2);
    f.nodeWithPods("gpu-b", "i-0bbbbbbbbbbbbbbb2", 2);
    var now = f.time.now().toString();
    var bodies = new java.util.LinkedHashMap<String, String>();
    bodies.put("m-1", spot("e-1", "i-0aaaaaaaaaaaaaaa1", now));
    bodies.put("m-2", spot("e-2", "i-0bbbbbbbbbbbbbbb2", now));
    bodies.put("m-3", "not an event");

    var response = invoke(batch(bodies));

    assertThat(response.toString()).isEqualTo("{\"batchItemFailures\":[]}");
    assertThat(f.metrics.total("EventsDrained")).isEqualTo(2);
    assertThat(f.metrics.total("EventsRejected")).isEqualTo(1);
    assertThat(f.cluster.podsOn("gpu-a")).hasSize(1);
    assertThat(f.cluster.podsOn("gpu-b")).hasSize(1);
  }

  @Test
  void shouldNameOnlyTheMessageWhoseClusterCallsFailedForRetry() throws IOException {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);
    var now = f.time.now().toString();
    // the API server fails every request: the warning cannot be acted on now, the garbage never
    f.cluster.fail(SimCluster.anyRequest(), 503, -1);
    var bodies = new java.util.LinkedHashMap<String, String>();
    bodies.put("m-warning", spot("e-1", "i-0aaaaaaaaaaaaaaa1", now));
    bodies.put("m-garbage", "{\"detail\":{}}");

    var response = invoke(batch(bodies));

    assertThat(response.path("batchItemFailures"))
        .extracting(n -> n.path("itemIdentifier").asText())
        .containsExactly("m-warning");
  }

  @Test
  void shouldHandleARedeliveredMessageAsADuplicate() throws IOException {
    f.nodeWithPods("gpu-a", "i-0aaaaaaaaaaaaaaa1", 1);
    byte[] once = batch(Map.of("m-1", spot("e-1", "i-0aaaaaaaaaaaaaaa1", f.time.now().toString())));

    invoke(once);
    var again = invoke(once);

    assertThat(again.path("batchItemFailures")).isEmpty();
    assertThat(f.metrics.total("EventsDuplicate")).isEqualTo(1);
  }

  @Test
  void shouldLeaveAnEventBridgeEventWithARecordsFieldToTheDecoder() {
    var notSqs = "{\"Records\":[{\"eventSource\":\"aws:s3\"}]}".getBytes(StandardCharsets.UTF_8);

    assertThat(SqsBatch.parse(notSqs)).isEmpty();
    assertThat(SqsBatch.parse("{\"Records\":[]}".getBytes(StandardCharsets.UTF_8))).isEmpty();
    assertThat(SqsBatch.parse(List.of().toString().getBytes(StandardCharsets.UTF_8))).isEmpty();
  }
}
