package io.gpufleet.testkit.aws.contract;

import io.gpufleet.core.aws.AwsQuery;
import io.gpufleet.core.aws.AwsQueryInspector;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Holds every hand-made query-protocol request ({@link AwsQuery}) to botocore's model of its
 * service: the service's metadata (protocol {@code query}, signing name, endpoint prefix, service
 * id), then the form decoded through the model with the query protocol's serialisation rules
 * ({@link QueryFormDecoder.Dialect#QUERY}: the API version, the operation, member names, list
 * numbering, scalar types) and checked like any other request (required members, enums, bounds,
 * patterns). A request the service would refuse is recorded in {@link ContractViolations} and
 * refused before it is sent.
 *
 * <p>Registered through {@code META-INF/services/io.gpufleet.core.aws.AwsQueryInspector} in the
 * testkit jar, so every test class path holding the testkit validates every such request.
 */
public final class AwsQueryModelInspector implements AwsQueryInspector {
  @Override
  public void inspect(AwsQuery.Service service, Map<String, String> params) {
    ContractViolations.judge(
        service.serviceId() + " model", validate(BotocoreModels.shared(), service, params));
  }

  /** Every reason the service would refuse this form; empty when it is valid. */
  public static List<ServiceModel.Violation> validate(
      BotocoreModels models, AwsQuery.Service service, Map<String, String> form) {
    ServiceModel model = models.service(service.endpointPrefix().toLowerCase(Locale.ROOT));
    String operation = String.valueOf(form.get("Action"));
    var out = new ArrayList<ServiceModel.Violation>();
    AwsJsonModelInspector.expectService(
        model,
        operation,
        "query",
        service.signingName(),
        service.endpointPrefix(),
        service.serviceId(),
        out);
    out.addAll(new QueryFormDecoder(model, QueryFormDecoder.Dialect.QUERY).validate(form));
    return out;
  }
}
