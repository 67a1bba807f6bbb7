package io.gpufleet.sim.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * EventBridge PutEvents on the {@link AwsStubServer} (awsJson1_1, {@code AWSEvents.PutEvents}) for
 * the buses that exist: as EventBridge, an entry is accepted only with a Source, a DetailType and a
 * Detail that is a JSON object, on a bus that exists; any other entry is answered as a failed entry
 * (FailedEntryCount, ErrorCode) and not kept. Accepted entries are kept, with the bus they went to.
 */
public final class SimEventBridge {
  public static final String OPERATION = "AWSEvents.PutEvents";

  private final Set<String> buses;
  private final List<JsonNode> accepted = new CopyOnWriteArrayList<>();

  private SimEventBridge(Set<String> buses) {
    this.buses = buses;
  }

  /** Serves PutEvents on {@code stub} for the account's {@code default} bus and {@code others}. */
  public static SimEventBridge serve(AwsStubServer stub, String... others) {
    var buses = new java.util.HashSet<>(List.of(others));
    buses.add("default");
    var events = new SimEventBridge(Set.copyOf(buses));
    stub.on(OPERATION, events::putEvents);
    return events;
  }

  /** The entries accepted on {@code bus}, in arrival order. */
  public List<JsonNode> accepted(String bus) {
    return accepted.stream().filter(e -> busOf(e).equals(bus)).toList();
  }

  private AwsStubServer.Reply putEvents(AwsStubServer.Call call) {
    JsonNode request;
    try {
      request = Json.MAPPER.readTree(call.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    JsonNode entries = request.path("Entries");
    if (!entries.isArray() || entries.isEmpty() || entries.size() > 10) {
      return new AwsStubServer.Reply(
          400,
          "application/x-amz-json-1.1",
          "{\"__type\":\"ValidationException\",\"message\":\"Entries must hold 1 to 10 entries\"}");
    }
    ObjectNode answer = Json.MAPPER.createObjectNode();
    var results = answer.putArray("Entries");
    int failed = 0;
    for (JsonNode entry : entries) {
      String problem = problem(entry);
      if (problem == null) {
        accepted.add(entry);
        results.addObject().put("EventId", UUID.randomUUID().toString());
      } else {
        failed++;
        results
            .addObject()
            .put(
                "ErrorCode",
                problem.startsWith("Event bus") ? "NotFoundException" : "InvalidArgument")
            .put("ErrorMessage", problem);
      }
    }
    answer.put("FailedEntryCount", failed);
    return AwsStubServer.Reply.json(Json.write(answer));
  }

  /** The bus an entry names (by name or ARN); none is the default bus. */
  private static String busOf(JsonNode entry) {
    String bus = entry.path("EventBusName").asText("");
    int slash = bus.indexOf(":event-bus/");
    return bus.isEmpty() ? "default" : slash >= 0 ? bus.substring(slash + 11) : bus;
  }

  private String problem(JsonNode entry) {
    String bus = busOf(entry);
    if (!buses.contains(bus)) {
      return "Event bus " + bus + " does not exist.";
    }
    for (String field : List.of("Source", "DetailType", "Detail")) {
      if (entry.path(field).asText("").isBlank()) {
        return "Parameter " + field + " is not valid.";
      }
    }
    try {
      if (!Json.MAPPER.readTree(entry.path("Detail").asText()).isObject()) {
        return "Parameter Detail is not valid: not a JSON object.";
      }
    } catch (IOException e) {
      return "Parameter Detail is not valid: not JSON.";
    }
    return null;
  }
}
