package io.gpufleet.scenario;

import com.fasterxml.jackson.databind.type.TypeFactory;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.lambda.LocalContext;
import io.gpufleet.drain.model.DrainOutcome;
import io.gpufleet.drain.wiring.DrainHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/** Invokes a function's handler in this process, the way the Lambda runtime hands it a payload. */
public final class LocalInvoke {
  /** Lambda timeouts of template.yaml, what getRemainingTimeInMillis() starts at. */
  public static final Map<String, Integer> TIMEOUT_MILLIS =
      Map.of(
          "interruption-drain", 180_000,
          "cost-report", 900_000,
          "disruption-schedule", 180_000,
          "capacity-preflight", 300_000);

  /** The drain's remaining time per invocation in a local run: its timeout less 10 s. */
  static final int DRAIN_REMAINING_MS = TIMEOUT_MILLIS.get("interruption-drain") - 10_000;

  private LocalInvoke() {}

  /** One delivery to the drain's handler; its answer read back as the outcomes it reports. */
  public static List<DrainOutcome> drain(DrainHandler handler, byte[] payload) throws IOException {
    var output = new ByteArrayOutputStream();
    handler.handleRequest(
        new ByteArrayInputStream(payload),
        output,
        new LocalContext("interruption-drain", DRAIN_REMAINING_MS));
    return Json.MAPPER.readValue(
        output.toByteArray(),
        TypeFactory.defaultInstance().constructCollectionType(List.class, DrainOutcome.class));
  }
}
