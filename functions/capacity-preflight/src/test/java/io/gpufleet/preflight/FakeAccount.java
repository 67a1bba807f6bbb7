package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.preflight.model.CapacityBlockOffer;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.SpotScores;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A behavioural fake of the three AWS ports: per-region data, failures per (region, call), calls
 * that hang until interrupted, recorded calls and increase requests. Regions not seeded offer
 * nothing and have no quotas.
 */
final class FakeAccount implements CapacityPort, QuotaPort, UsagePort {
  final Map<String, Map<String, Set<String>>> offerings = new ConcurrentHashMap<>();
  final Map<String, Map<QuotaBucket.Key, Double>> quotas = new ConcurrentHashMap<>();
  final Map<String, Map<QuotaBucket.Key, Double>> usage = new ConcurrentHashMap<>();

  /** region -> alarm name -> state, as DescribeAlarms answers (absent: no such alarm). */
  final Map<String, Map<String, String>> alarms = new ConcurrentHashMap<>();

  final Map<String, Map<String, Map<String, BigDecimal>>> spot = new ConcurrentHashMap<>();
  final Map<String, Integer> scores = new ConcurrentHashMap<>();
  final Map<String, RuntimeException> failures = new ConcurrentHashMap<>();
  final Set<String> hanging = ConcurrentHashMap.newKeySet();
  final List<String> calls = new CopyOnWriteArrayList<>();

  /** Capacity Block queries as "type xCount for Hh". */
  final List<String> blockQueries = new CopyOnWriteArrayList<>();

  final List<QuotaRequest> requested = new CopyOnWriteArrayList<>();
  final Map<String, List<QuotaRequest>> history = new ConcurrentHashMap<>();
  final AtomicInteger inFlight = new AtomicInteger();
  final AtomicInteger maxInFlight = new AtomicInteger();
  SpotScores scoreAnswer;
  private final CountDownLatch never = new CountDownLatch(1);

  FakeAccount offer(String region, String type, String... zones) {
    var set =
        offerings
            .computeIfAbsent(region, k -> new ConcurrentHashMap<>())
            .computeIfAbsent(type, k -> new TreeSet<>());
    for (String z : zones) {
      set.add(region + z);
    }
    return this;
  }

  FakeAccount quota(String region, QuotaBucket b, CapacityType t, double v) {
    quotas
        .computeIfAbsent(region, k -> new ConcurrentHashMap<>())
        .put(new QuotaBucket.Key(b, t), v);
    return this;
  }

  FakeAccount usage(String region, QuotaBucket b, CapacityType t, double v) {
    usage.computeIfAbsent(region, k -> new ConcurrentHashMap<>()).put(new QuotaBucket.Key(b, t), v);
    return this;
  }

  FakeAccount spotPrice(String region, String type, String zone, String price) {
    spot.computeIfAbsent(region, k -> new ConcurrentHashMap<>())
        .computeIfAbsent(type, k -> new TreeMap<>())
        .put(region + zone, new BigDecimal(price));
    return this;
  }

  /** Calls of {@code call} in {@code region} throw (e.g. throttled after the SDK's retries). */
  FakeAccount fail(String region, String call, RuntimeException e) {
    failures.put(region + "/" + call, e);
    return this;
  }

  /** Calls of {@code call} in {@code region} never answer (until interrupted). */
  FakeAccount hang(String region, String call) {
    hanging.add(region + "/" + call);
    return this;
  }

  private void enter(String region, String call) {
    calls.add(region + "/" + call);
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    try {
      var f = failures.get(region + "/" + call);
      if (f != null) {
        throw f;
      }
      if (hanging.contains(region + "/" + call)) {
        try {
          never.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted");
        }
      }
    } finally {
      inFlight.decrementAndGet();
    }
  }

  @Override
  public Map<String, Set<String>> offerings(String region, Collection<String> types) {
    enter(region, "offerings");
    var out = new TreeMap<String, Set<String>>();
    offerings
        .getOrDefault(region, Map.of())
        .forEach(
            (t, z) -> {
              if (types.contains(t)) {
                out.put(t, Set.copyOf(z));
              }
            });
    return out;
  }

  @Override
  public Map<String, InstanceSpec> instanceTypes(String region, Collection<String> types) {
    enter(region, "instanceTypes");
    var out = new TreeMap<String, InstanceSpec>();
    types.forEach(t -> out.put(t, InstanceCatalog.find(t).orElseThrow()));
    return out;
  }

  @Override
  public Map<String, Map<String, BigDecimal>> spotPrices(
      String region, Collection<String> types, Instant at) {
    enter(region, "spotPrices");
    return spot.getOrDefault(region, Map.of());
  }

  @Override
  public Map<String, Integer> availableReservations(String region, Collection<String> types) {
    enter(region, "reservations");
    return Map.of();
  }

  @Override
  public List<CapacityBlockOffer> capacityBlocks(
      String region, String instanceType, int count, int durationHours) {
    enter(region, "capacityBlocks");
    blockQueries.add(instanceType + " x" + count + " for " + durationHours + "h");
    return List.of();
  }

  @Override
  public SpotScores spotPlacementScores(
      Collection<String> regions, Collection<String> types, int targetCapacity) {
    calls.add("*/spotPlacementScores");
    return scoreAnswer != null ? scoreAnswer : SpotScores.of(scores);
  }

  @Override
  public Map<QuotaBucket.Key, QuotaValue> quotas(String region, Collection<QuotaBucket.Key> keys) {
    enter(region, "quotas");
    var out = new TreeMap<QuotaBucket.Key, QuotaValue>();
    quotas
        .getOrDefault(region, Map.of())
        .forEach(
            (k, v) -> {
              if (keys.contains(k)) {
                out.put(
                    k,
                    new QuotaValue(
                        k,
                        k.bucket().fallbackQuotaCode(k.capacityType()).orElse("?"),
                        k.bucket().quotaName(k.capacityType()).orElse("?"),
                        v,
                        k.usageClass(),
                        "name",
                        true));
              }
            });
    return out;
  }

  @Override
  public java.util.Optional<String> alarmState(String region, String alarmName) {
    enter(region, "alarms");
    return java.util.Optional.ofNullable(alarms.getOrDefault(region, Map.of()).get(alarmName));
  }

  FakeAccount alarm(String region, String name, String state) {
    alarms.computeIfAbsent(region, r -> new ConcurrentHashMap<>()).put(name, state);
    return this;
  }

  @Override
  public Map<QuotaBucket.Key, Double> maxUsageLastHour(
      String region, Map<QuotaBucket.Key, String> classes) {
    enter(region, "usage");
    var out = new TreeMap<QuotaBucket.Key, Double>();
    usage
        .getOrDefault(region, Map.of())
        .forEach(
            (k, v) -> {
              if (classes.containsKey(k)) {
                out.put(k, v);
              }
            });
    return out;
  }

  @Override
  public List<QuotaRequest> requests(String region, String quotaCode) {
    enter(region, "requests");
    return new ArrayList<>(history.getOrDefault(region + "/" + quotaCode, List.of()));
  }

  @Override
  public QuotaRequest requestIncrease(String region, String quotaCode, double desired) {
    enter(region, "requestIncrease");
    var r = new QuotaRequest("req-" + (requested.size() + 1), "PENDING", desired);
    requested.add(r);
    history.computeIfAbsent(region + "/" + quotaCode, k -> new CopyOnWriteArrayList<>()).add(r);
    return r;
  }

  long count(String call) {
    return calls.stream().filter(c -> c.endsWith("/" + call)).count();
  }
}
