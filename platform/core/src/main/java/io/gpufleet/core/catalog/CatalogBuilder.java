package io.gpufleet.core.catalog;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Collects the generated rows of {@link CatalogData}; fails on rows that contradict each other. */
final class CatalogBuilder {
  private record Row(
      String type,
      int vcpus,
      long memoryMib,
      QuotaBucket bucket,
      AcceleratorKind kind,
      int accelerators,
      String model,
      long accelMib,
      CatalogEntry.Origin origin) {}

  private final Map<String, Row> rows = new LinkedHashMap<>();
  private final Map<String, Double> partitions = new HashMap<>();
  private final Map<String, String[]> prices = new HashMap<>();
  private final Map<String, LocalDate> sourceDates = new HashMap<>();
  private final Map<String, StringBuilder> sourceTexts = new HashMap<>();

  void source(String id, int year, int month, int day) {
    sourceDates.put(id, LocalDate.of(year, month, day));
    sourceTexts.put(id, new StringBuilder());
  }

  void describe(String id, String text) {
    sourceTexts.get(id).append(text);
  }

  void dump(
      String type,
      int vcpus,
      long mem,
      QuotaBucket b,
      AcceleratorKind k,
      int n,
      String m,
      long accelMib) {
    add(new Row(type, vcpus, mem, b, k, n, m, accelMib, CatalogEntry.Origin.DUMP));
  }

  void dump(String type, int vcpus, long mem, QuotaBucket b) {
    add(new Row(type, vcpus, mem, b, AcceleratorKind.NONE, 0, null, 0, CatalogEntry.Origin.DUMP));
  }

  void corrected(
      String type,
      int vcpus,
      long mem,
      QuotaBucket b,
      AcceleratorKind k,
      int n,
      String m,
      long accelMib) {
    add(new Row(type, vcpus, mem, b, k, n, m, accelMib, CatalogEntry.Origin.DUMP_CORRECTED));
  }

  void supplement(
      String type,
      int vcpus,
      long mem,
      QuotaBucket b,
      AcceleratorKind k,
      int n,
      String m,
      long accelMib) {
    add(new Row(type, vcpus, mem, b, k, n, m, accelMib, CatalogEntry.Origin.SUPPLEMENT));
  }

  void partition(String type, double share) {
    partitions.put(type, share);
  }

  void price(String type, String usd, String sourceId) {
    prices.put(type, new String[] {usd, sourceId});
  }

  private void add(Row r) {
    if (rows.putIfAbsent(r.type(), r) != null) {
      throw new IllegalStateException("duplicate catalog row " + r.type());
    }
  }

  List<CatalogEntry> build() {
    // plain loops, no lambdas or streams: this runs in every function's cold start
    var sources = new HashMap<String, StaticPrice.Source>();
    for (var d : sourceDates.entrySet()) {
      String id = d.getKey();
      sources.put(id, new StaticPrice.Source(id, d.getValue(), sourceTexts.get(id).toString()));
    }
    var out = new ArrayList<CatalogEntry>(rows.size());
    for (Row r : rows.values()) {
      String[] p = prices.get(r.type());
      StaticPrice price = null;
      if (p != null) {
        var source = sources.get(p[1]);
        if (source == null) {
          throw new IllegalStateException("price of " + r.type() + " names no source: " + p[1]);
        }
        price = new StaticPrice(new BigDecimal(p[0]), source);
      }
      out.add(
          new CatalogEntry(
              r.type(),
              r.vcpus(),
              r.memoryMib(),
              r.bucket(),
              r.kind(),
              r.accelerators(),
              r.model(),
              r.accelMib(),
              partitions.getOrDefault(r.type(), 1.0),
              r.origin(),
              price));
    }
    if (!rows.keySet().containsAll(prices.keySet())
        || !rows.keySet().containsAll(partitions.keySet())) {
      throw new IllegalStateException("a price or partition names a type with no catalog row");
    }
    return List.copyOf(out);
  }
}
