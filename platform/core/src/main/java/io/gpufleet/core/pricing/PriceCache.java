package io.gpufleet.core.pricing;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/** Port: prices kept between runs (an S3 object in production). */
public interface PriceCache {

  /** One remembered API price. */
  record Entry(
      String region, String instanceType, BigDecimal perHour, String currency, Instant fetchedAt) {}

  /** Everything remembered; empty when nothing is (or the store cannot be read). */
  List<Entry> load();

  /** Replaces what is remembered. */
  void save(List<Entry> entries);

  PriceCache NONE =
      new PriceCache() {
        @Override
        public List<Entry> load() {
          return List.of();
        }

        @Override
        public void save(List<Entry> entries) {}
      };
}
