package io.gpufleet.sim.aws;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SSM GetParameter on the {@link AwsStubServer} (awsJson1_1, {@code AmazonSSM.GetParameter}) for
 * the parameters put here: as SSM, a name that does not exist is a 400 {@code ParameterNotFound}
 * ("Parameter NAME not found."), a request without a Name a {@code ValidationException}; the answer
 * carries the parameter as SSM shapes it (Name, Type, Value, Version, ARN, DataType).
 */
public final class SimSsm {
  public static final String OPERATION = "AmazonSSM.GetParameter";

  private final Map<String, String> parameters = new ConcurrentHashMap<>();

  private SimSsm() {}

  /** Serves GetParameter on {@code stub}. */
  public static SimSsm serve(AwsStubServer stub) {
    var ssm = new SimSsm();
    stub.on(OPERATION, ssm::getParameter);
    return ssm;
  }

  /** A String parameter {@code name} with {@code value} (replacing any before it). */
  public SimSsm put(String name, String value) {
    parameters.put(name, value);
    return this;
  }

  private AwsStubServer.Reply getParameter(AwsStubServer.Call call) {
    JsonNode request;
    try {
      request = Json.MAPPER.readTree(call.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String name = request.path("Name").asText("");
    if (name.isEmpty()) {
      return error("ValidationException", "1 validation error detected: Name must not be null");
    }
    String value = parameters.get(name);
    if (value == null) {
      return error("ParameterNotFound", "Parameter " + name + " not found.");
    }
    var answer = Json.MAPPER.createObjectNode();
    answer
        .putObject("Parameter")
        .put("Name", name)
        .put("Type", "String")
        .put("Value", value)
        .put("Version", 1)
        .put("ARN", "arn:aws:ssm:us-east-1:123456789012:parameter" + name)
        .put("DataType", "text");
    return AwsStubServer.Reply.json(Json.write(answer));
  }

  private static AwsStubServer.Reply error(String code, String message) {
    var body = Json.MAPPER.createObjectNode().put("__type", code).put("message", message);
    return new AwsStubServer.Reply(400, "application/x-amz-json-1.1", Json.write(body));
  }
}
