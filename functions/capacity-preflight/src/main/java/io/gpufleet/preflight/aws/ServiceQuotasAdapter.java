package io.gpufleet.preflight.aws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.QuotaPort;
import io.gpufleet.preflight.model.QuotaValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * EC2 vCPU quotas through Service Quotas: codes resolved by quota name from ListServiceQuotas(ec2)
 * (codes have changed before), then by the reference table's code, then GetServiceQuota on that
 * code for what the listing lacked, then the AWS default (GetAWSDefaultServiceQuota). Answers are
 * read by the service model's member names (ServiceQuota: QuotaCode, QuotaName, Value, Adjustable,
 * UsageMetric.MetricDimensions; RequestedServiceQuotaChange: Id, Status, DesiredValue).
 */
public final class ServiceQuotasAdapter implements QuotaPort {
  static final String EC2 = "ec2";
  static final String NO_SUCH_RESOURCE = "NoSuchResourceException";
  private final RegionalClients clients;

  public ServiceQuotasAdapter(RegionalClients clients) {
    this.clients = clients;
  }

  @Override
  public Map<QuotaBucket.Key, QuotaValue> quotas(String region, Collection<QuotaBucket.Key> keys) {
    var client = clients.serviceQuotas(region);
    var byName = new TreeMap<QuotaBucket.Key, QuotaValue>();
    var byCode = new TreeMap<QuotaBucket.Key, QuotaValue>();
    client.paginate(
        "ListServiceQuotas",
        AwsJson.input().put("ServiceCode", EC2),
        page ->
            page.path("Quotas")
                .forEach(
                    q -> {
                      String name = q.path("QuotaName").asText();
                      String code = q.path("QuotaCode").asText();
                      for (QuotaBucket.Key key : keys) {
                        if (key.bucket()
                            .quotaName(key.capacityType())
                            .filter(name::equals)
                            .isPresent()) {
                          byName.put(key, value(key, q, "name"));
                        } else if (key.bucket()
                            .fallbackQuotaCode(key.capacityType())
                            .filter(code::equals)
                            .isPresent()) {
                          byCode.put(key, value(key, q, "code"));
                        }
                      }
                    }));
    var out = new TreeMap<QuotaBucket.Key, QuotaValue>(byCode);
    out.putAll(byName);
    for (QuotaBucket.Key key : keys) {
      if (out.containsKey(key)) {
        continue;
      }
      var code = key.bucket().fallbackQuotaCode(key.capacityType());
      if (code.isEmpty()) {
        continue;
      }
      ObjectNode quota = quotaInput(code.get());
      // then the account's value by code; never changed in this account: its AWS default applies;
      // no source knows it: the planner reports the quota as unknown
      knownQuota(client, "GetServiceQuota", quota)
          .map(q -> value(key, q, "reference code"))
          .or(
              () ->
                  knownQuota(client, "GetAWSDefaultServiceQuota", quota)
                      .map(q -> value(key, q, "AWS default")))
          .ifPresent(v -> out.put(key, v));
    }
    return out;
  }

  /** The answer's {@code Quota}, or empty when the service has no such quota. */
  private static Optional<JsonNode> knownQuota(AwsJson client, String operation, ObjectNode input) {
    try {
      return Optional.of(client.call(operation, input).path("Quota"));
    } catch (AwsCallException e) {
      if (NO_SUCH_RESOURCE.equals(e.code())) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private static ObjectNode quotaInput(String quotaCode) {
    return AwsJson.input().put("ServiceCode", EC2).put("QuotaCode", quotaCode);
  }

  private static QuotaValue value(QuotaBucket.Key key, JsonNode q, String resolvedBy) {
    String usageClass =
        q.path("UsageMetric").path("MetricDimensions").path("Class").asText(key.usageClass());
    return new QuotaValue(
        key,
        q.path("QuotaCode").asText(),
        q.path("QuotaName").asText(),
        q.path("Value").asDouble(0),
        usageClass,
        resolvedBy,
        q.path("Adjustable").asBoolean(false));
  }

  @Override
  public List<QuotaRequest> requests(String region, String quotaCode) {
    var out = new ArrayList<QuotaRequest>();
    clients
        .serviceQuotas(region)
        .paginate(
            "ListRequestedServiceQuotaChangeHistoryByQuota",
            quotaInput(quotaCode),
            page -> page.path("RequestedQuotas").forEach(c -> out.add(request(c))));
    return out;
  }

  @Override
  public QuotaRequest requestIncrease(String region, String quotaCode, double desiredValue) {
    return request(
        clients
            .serviceQuotas(region)
            .call(
                "RequestServiceQuotaIncrease",
                quotaInput(quotaCode).put("DesiredValue", desiredValue))
            .path("RequestedQuota"));
  }

  private static QuotaRequest request(JsonNode c) {
    return new QuotaRequest(
        c.path("Id").asText(null),
        c.path("Status").asText(null),
        c.path("DesiredValue").asDouble(0));
  }
}
