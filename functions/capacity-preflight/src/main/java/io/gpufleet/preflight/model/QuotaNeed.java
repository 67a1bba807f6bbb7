package io.gpufleet.preflight.model;

import io.gpufleet.core.catalog.QuotaBucket;

/**
 * One quota's arithmetic in one region. {@code quota} and {@code usage} are null when unknown;
 * {@code headroom} = quota - usage - need (null when the quota is unknown).
 */
public record QuotaNeed(
    QuotaBucket.Key key,
    String quotaCode,
    Double quota,
    Double usage,
    double need,
    Double headroom) {

  public String label() {
    return key.label();
  }
}
