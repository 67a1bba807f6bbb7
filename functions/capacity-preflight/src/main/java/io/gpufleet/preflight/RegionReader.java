package io.gpufleet.preflight;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.pricing.HourlyPrice;
import io.gpufleet.core.pricing.OnDemandPrices;
import io.gpufleet.preflight.model.CapacityBlockOffer;
import io.gpufleet.preflight.model.Plan;
import io.gpufleet.preflight.model.PlanEntry;
import io.gpufleet.preflight.model.QuotaValue;
import io.gpufleet.preflight.model.RegionFacts;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One region's facts for a plan: its independent reads concurrently (bounded per region by the call
 * concurrency, On-Demand prices by the Pricing API's rate across all regions), within the region
 * timeout. A required read that fails fails the region, an optional one leaves a note.
 */
final class RegionReader {
  /** What one region's task produced: its facts, or why they could not be read. */
  record Read(RegionFacts facts, String problem, long elapsedMs) {}

  private final CapacityPort ec2;
  private final QuotaPort quotas;
  private final UsagePort usage;
  private final OnDemandPrices prices;
  private final PreflightSettings settings;
  // The Pricing API allows about 5 requests/s per account: never more than this many at once.
  private final Semaphore pricing = new Semaphore(4);

  RegionReader(
      CapacityPort ec2,
      QuotaPort quotas,
      UsagePort usage,
      OnDemandPrices prices,
      PreflightSettings settings) {
    this.ec2 = ec2;
    this.quotas = quotas;
    this.usage = usage;
    this.prices = prices;
    this.settings = settings;
  }

  /** One region's reads within the region timeout; a failure or timeout is the problem. */
  Read read(ExecutorService exec, Plan plan, String region, Instant now) {
    long t0 = System.nanoTime();
    Future<RegionFacts> gathering = exec.submit(() -> gather(plan, region, now));
    try {
      RegionFacts facts = gathering.get(settings.regionTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return new Read(facts, null, ms(t0));
    } catch (TimeoutException e) {
      gathering.cancel(true);
      return new Read(
          null, "timed out after " + settings.regionTimeout().toMillis() / 1000.0 + " s", ms(t0));
    } catch (InterruptedException e) {
      gathering.cancel(true);
      Thread.currentThread().interrupt();
      return new Read(null, "interrupted", ms(t0));
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      return new Read(
          null,
          cause instanceof RegionReadException r
              ? r.getMessage()
              : "failed: " + ErrorText.brief(cause),
          ms(t0));
    }
  }

  private static long ms(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** A required read of a region failed; the message names the call. */
  static final class RegionReadException extends RuntimeException {
    RegionReadException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The quota keys a plan can touch: the bucket of every type it names × its capacity types. */
  static Set<QuotaBucket.Key> keysOf(Plan plan) {
    var keys = new TreeSet<QuotaBucket.Key>();
    for (PlanEntry e : plan.entries()) {
      for (String t : e.instanceTypes()) {
        keys.add(new QuotaBucket.Key(InstanceCatalog.bucketOf(t), e.capacityType()));
      }
    }
    return keys;
  }

  /** All reads of one region: required ones fail the region, optional ones leave a note. */
  RegionFacts gather(Plan plan, String region, Instant now) throws InterruptedException {
    var permits = new Semaphore(settings.callConcurrency());
    var notes = new ArrayList<String>();
    var keys = keysOf(plan);
    var types = plan.instanceTypes();
    var spotTypes = typesOf(plan, CapacityType.SPOT);
    var odTypes = typesOf(plan, CapacityType.ON_DEMAND);
    // shutdownNow, not close: when the region times out (this thread is interrupted) or a
    // required read fails, the calls still running are interrupted instead of awaited
    ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor();
    try {
      var offerings = call(exec, permits, () -> ec2.offerings(region, types));
      var instanceTypes = call(exec, permits, () -> ec2.instanceTypes(region, types));
      var quotaValues = call(exec, permits, () -> quotas.quotas(region, keys));
      var reference = new TreeMap<QuotaBucket.Key, String>();
      keys.forEach(k -> reference.put(k, k.usageClass()));
      var usageValues = call(exec, permits, () -> usage.maxUsageLastHour(region, reference));
      var spot =
          spotTypes.isEmpty()
              ? null
              : call(exec, permits, () -> ec2.spotPrices(region, spotTypes, now));
      var reservations =
          odTypes.isEmpty()
              ? null
              : call(exec, permits, () -> ec2.availableReservations(region, odTypes));
      var blocks = new LinkedHashMap<String, Future<List<CapacityBlockOffer>>>();
      for (PlanEntry e : plan.entries()) {
        if (e.capacityType() != CapacityType.ON_DEMAND) {
          continue;
        }
        for (String t : e.instanceTypes()) {
          if (CapacityBlocks.offered(t) && !blocks.containsKey(t)) {
            // one block holds at most 64: larger entries need several blocks of that size
            int perBlock = Math.min(CapacityBlocks.MAX_PER_BLOCK, e.count());
            blocks.put(
                t,
                call(
                    exec,
                    permits,
                    () -> ec2.capacityBlocks(region, t, perBlock, settings.capacityBlockHours())));
          }
        }
      }
      var odPrices = new LinkedHashMap<String, Future<java.util.Optional<HourlyPrice>>>();
      for (String t : odTypes) {
        odPrices.put(
            t,
            call(
                exec,
                permits,
                () -> {
                  pricing.acquire();
                  try {
                    return prices.hourly(region, t);
                  } finally {
                    pricing.release();
                  }
                }));
      }

      Map<String, Set<String>> offered = required(offerings, "DescribeInstanceTypeOfferings");
      Map<String, InstanceSpec> specs =
          optional(instanceTypes, Map.of(), "DescribeInstanceTypes", notes);
      Map<QuotaBucket.Key, QuotaValue> q = required(quotaValues, "ListServiceQuotas");
      Map<QuotaBucket.Key, Double> used = new TreeMap<>(required(usageValues, "GetMetricData"));
      // the quota's own UsageMetric dimensions win over the reference table's class
      var differing = new TreeMap<QuotaBucket.Key, String>();
      q.forEach(
          (k, v) -> {
            if (v.usageClass() != null && !v.usageClass().equals(k.usageClass())) {
              differing.put(k, v.usageClass());
            }
          });
      if (!differing.isEmpty()) {
        used.keySet().removeAll(differing.keySet());
        used.putAll(
            required(
                call(exec, permits, () -> usage.maxUsageLastHour(region, differing)),
                "GetMetricData"));
      }
      Map<String, Map<String, BigDecimal>> spotPrices =
          optional(spot, Map.of(), "Spot prices (DescribeSpotPriceHistory)", notes);
      Map<String, Integer> reserved =
          optional(
              reservations,
              Map.of(),
              "Capacity Reservations (DescribeCapacityReservations)",
              notes);
      var blockOffers = new LinkedHashMap<String, List<CapacityBlockOffer>>();
      blocks.forEach(
          (t, f) ->
              blockOffers.put(
                  t,
                  optional(
                      f,
                      List.of(),
                      "Capacity Blocks for " + t + " (DescribeCapacityBlockOfferings)",
                      notes)));
      var od = new LinkedHashMap<String, HourlyPrice>();
      var unpriced = new ArrayList<String>();
      odPrices.forEach(
          (t, f) -> {
            var p =
                optional(
                    f, java.util.Optional.<HourlyPrice>empty(), "On-Demand price of " + t, notes);
            p.ifPresentOrElse(v -> od.put(t, v), () -> unpriced.add(t));
          });
      if (!unpriced.isEmpty()) {
        notes.add("On-Demand price unknown for " + unpriced);
      }
      return new RegionFacts(
          region,
          specs,
          offered,
          q,
          used,
          spotPrices,
          od,
          reserved,
          blockOffers,
          List.copyOf(notes));
    } finally {
      exec.shutdownNow();
    }
  }

  private static List<String> typesOf(Plan plan, CapacityType type) {
    var out = new LinkedHashSet<String>();
    plan.entries().stream()
        .filter(e -> e.capacityType() == type)
        .forEach(e -> out.addAll(e.instanceTypes()));
    return List.copyOf(out);
  }

  private static <T> Future<T> call(ExecutorService exec, Semaphore permits, Callable<T> c) {
    return exec.submit(
        () -> {
          permits.acquire();
          try {
            return c.call();
          } finally {
            permits.release();
          }
        });
  }

  private static <T> T required(Future<T> f, String what) throws InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw new RegionReadException(
          what + " failed: " + ErrorText.brief(e.getCause()), e.getCause());
    }
  }

  private static <T> T optional(Future<T> f, T fallback, String what, List<String> notes) {
    if (f == null) {
      return fallback;
    }
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fallback;
    } catch (ExecutionException e) {
      notes.add(what + " unavailable: " + ErrorText.brief(e.getCause()));
      return fallback;
    }
  }
}
