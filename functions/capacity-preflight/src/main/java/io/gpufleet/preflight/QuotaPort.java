package io.gpufleet.preflight;

import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.QuotaValue;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Port: EC2 vCPU quotas of a region (Service Quotas in production). */
public interface QuotaPort {

  /**
   * The applied quotas of these keys, codes resolved by name from ListServiceQuotas(ec2) with the
   * reference table's codes as fallback; keys no source knows are absent.
   */
  Map<QuotaBucket.Key, QuotaValue> quotas(String region, Collection<QuotaBucket.Key> keys);

  /** An increase request of one quota and its status (PENDING, CASE_OPENED, APPROVED, ...). */
  record QuotaRequest(String id, String status, double desiredValue) {}

  /** Recent increase requests of a quota (ListRequestedServiceQuotaChangeHistoryByQuota). */
  List<QuotaRequest> requests(String region, String quotaCode);

  /** RequestServiceQuotaIncrease; returns the new request. */
  QuotaRequest requestIncrease(String region, String quotaCode, double desiredValue);
}
