package io.gpufleet.testkit.aws.contract;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsRestJson;
import io.gpufleet.core.aws.AwsRestJsonInspector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Holds every hand-made rest-json request ({@link AwsRestJson}) to botocore's model of its service:
 * the service's metadata (protocol, signing name, endpoint prefix, service id), the operation's
 * HTTP method and request URI, each member the client puts in the URI (a member of the input, bound
 * to the URI under that name), then the model's own checks (required members, bounds, patterns).
 * Where the model types a name in the URI as a bare string but the resource was created under a
 * stricter shape (EKS DescribeCluster's {@code name} and CreateCluster's {@code ClusterName}), the
 * name is held to that shape too: no such resource can exist under any other name. A request the
 * service would refuse is recorded in {@link ContractViolations} and refused before it is sent.
 *
 * <p>Registered through {@code META-INF/services/io.gpufleet.core.aws.AwsRestJsonInspector}.
 */
public final class AwsRestJsonModelInspector implements AwsRestJsonInspector {
  /** "service operation member" → the shape the named resource was created under. */
  private static final Map<String, String> CREATED_AS =
      Map.of("EKS DescribeCluster name", "ClusterName");

  @Override
  public void inspect(
      AwsRestJson.Service service,
      String operation,
      String method,
      String requestUri,
      JsonNode input) {
    var violations =
        validate(BotocoreModels.shared(), service, operation, method, requestUri, input);
    ModelValidationInterceptor.VALIDATED.incrementAndGet();
    if (!violations.isEmpty()) {
      ContractViolations.record(violations);
      throw new IllegalArgumentException(
          "request refused by the " + service.serviceId() + " model (botocore): " + violations);
    }
  }

  /** Every reason the service would refuse this request; empty when it is valid. */
  public static List<ServiceModel.Violation> validate(
      BotocoreModels models,
      AwsRestJson.Service service,
      String operation,
      String method,
      String requestUri,
      JsonNode input) {
    ServiceModel model = models.service(service.endpointPrefix());
    var out = new ArrayList<ServiceModel.Violation>();
    AwsJsonModelInspector.expectService(
        model,
        operation,
        "rest-json",
        service.signingName(),
        service.endpointPrefix(),
        service.serviceId(),
        out);
    JsonNode op = model.operation(operation);
    if (op.isMissingNode()) {
      out.add(violation(model, operation, "", "is not an operation"));
      return out;
    }
    AwsJsonModelInspector.expect(
        model, operation, "http.method", op.path("http").path("method"), method, out);
    AwsJsonModelInspector.expect(
        model, operation, "http.requestUri", op.path("http").path("requestUri"), requestUri, out);
    String inputShape = model.inputShape(operation);
    JsonNode members = inputShape == null ? null : model.shape(inputShape).path("members");
    for (var it = input.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      JsonNode member = members == null ? null : members.get(name);
      if (member == null) {
        continue; // the model's own check names it
      }
      String bound = member.path("locationName").asText(name);
      if (!"uri".equals(member.path("location").asText()) || !bound.equals(name)) {
        out.add(
            violation(
                model,
                operation,
                inputShape + "." + name,
                "is not bound to the URI as {" + name + "}"));
      }
      String created = CREATED_AS.get(service.serviceId() + " " + operation + " " + name);
      if (created != null) {
        out.addAll(
            model.validateShape(operation, created, input.get(name), inputShape + "." + name));
      }
    }
    out.addAll(model.validate(operation, input));
    return out;
  }

  private static ServiceModel.Violation violation(
      ServiceModel model, String operation, String path, String problem) {
    return new ServiceModel.Violation(model.service(), operation, path, problem);
  }
}
