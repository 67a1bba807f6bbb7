package io.gpufleet.preflight.aws;

import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.QuotaPort;
import io.gpufleet.preflight.model.QuotaValue;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.servicequotas.model.NoSuchResourceException;
import software.amazon.awssdk.services.servicequotas.model.RequestedServiceQuotaChange;
import software.amazon.awssdk.services.servicequotas.model.ServiceQuota;

/**
 * EC2 vCPU quotas through Service Quotas: codes resolved by quota name from ListServiceQuotas(ec2)
 * (codes have changed before), then by the reference table's code, then GetServiceQuota on that
 * code for what the listing lacked, then the AWS default (GetAWSDefaultServiceQuota).
 */
public final class ServiceQuotasAdapter implements QuotaPort {
  static final String EC2 = "ec2";
  private final RegionalClients clients;

  public ServiceQuotasAdapter(RegionalClients clients) {
    this.clients = clients;
  }

  @Override
  public Map<QuotaBucket.Key, QuotaValue> quotas(String region, Collection<QuotaBucket.Key> keys) {
    var client = clients.serviceQuotas(region);
    var byName = new TreeMap<QuotaBucket.Key, QuotaValue>();
    var byCode = new TreeMap<QuotaBucket.Key, QuotaValue>();
    client
        .listServiceQuotasPaginator(r -> r.serviceCode(EC2))
        .quotas()
        .forEach(
            q -> {
              for (QuotaBucket.Key key : keys) {
                if (key.bucket()
                    .quotaName(key.capacityType())
                    .filter(q.quotaName()::equals)
                    .isPresent()) {
                  byName.put(key, value(key, q, "name"));
                } else if (key.bucket()
                    .fallbackQuotaCode(key.capacityType())
                    .filter(q.quotaCode()::equals)
                    .isPresent()) {
                  byCode.put(key, value(key, q, "code"));
                }
              }
            });
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
      try {
        var q = client.getServiceQuota(r -> r.serviceCode(EC2).quotaCode(code.get())).quota();
        out.put(key, value(key, q, "reference code"));
      } catch (NoSuchResourceException e) {
        try {
          // never changed in this account: its AWS default applies
          var q =
              client
                  .getAWSDefaultServiceQuota(r -> r.serviceCode(EC2).quotaCode(code.get()))
                  .quota();
          out.put(key, value(key, q, "AWS default"));
        } catch (NoSuchResourceException unknown) {
          // no source knows it: the planner reports the quota as unknown
        }
      }
    }
    return out;
  }

  private static QuotaValue value(QuotaBucket.Key key, ServiceQuota q, String resolvedBy) {
    String usageClass = key.usageClass();
    if (q.usageMetric() != null && q.usageMetric().hasMetricDimensions()) {
      usageClass = q.usageMetric().metricDimensions().getOrDefault("Class", usageClass);
    }
    return new QuotaValue(
        key,
        q.quotaCode(),
        q.quotaName(),
        q.value() == null ? 0 : q.value(),
        usageClass,
        resolvedBy,
        Boolean.TRUE.equals(q.adjustable()));
  }

  @Override
  public List<QuotaRequest> requests(String region, String quotaCode) {
    return clients
        .serviceQuotas(region)
        .listRequestedServiceQuotaChangeHistoryByQuotaPaginator(
            r -> r.serviceCode(EC2).quotaCode(quotaCode))
        .requestedQuotas()
        .stream()
        .map(ServiceQuotasAdapter::request)
        .toList();
  }

  @Override
  public QuotaRequest requestIncrease(String region, String quotaCode, double desiredValue) {
    return request(
        clients
            .serviceQuotas(region)
            .requestServiceQuotaIncrease(
                r -> r.serviceCode(EC2).quotaCode(quotaCode).desiredValue(desiredValue))
            .requestedQuota());
  }

  private static QuotaRequest request(RequestedServiceQuotaChange c) {
    return new QuotaRequest(
        c.id(), c.statusAsString(), c.desiredValue() == null ? 0 : c.desiredValue());
  }
}
