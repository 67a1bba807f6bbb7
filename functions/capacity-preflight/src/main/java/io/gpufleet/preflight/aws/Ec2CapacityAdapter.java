package io.gpufleet.preflight.aws;

import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.aws.Ec2QueryException;
import io.gpufleet.core.aws.Ec2Xml;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.InstanceSpec;
import io.gpufleet.preflight.CapacityPort;
import io.gpufleet.preflight.model.CapacityBlockOffer;
import io.gpufleet.preflight.model.SpotScores;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * EC2 capacity signals through the EC2 Query client, one per region; each operation reads only the
 * fields the preflight uses.
 */
public final class Ec2CapacityAdapter implements CapacityPort {
  static final List<String> LINUX = List.of("Linux/UNIX", "Linux/UNIX (Amazon VPC)");
  private final RegionalClients clients;
  private final String homeRegion;

  /** {@code homeRegion}: where GetSpotPlacementScores is called (it scores every region). */
  public Ec2CapacityAdapter(RegionalClients clients, String homeRegion) {
    this.clients = clients;
    this.homeRegion = homeRegion;
  }

  @Override
  public Map<String, Set<String>> offerings(String region, Collection<String> instanceTypes) {
    var out = new TreeMap<String, Set<String>>();
    clients
        .ec2(region)
        .paginate(
            Ec2Query.Params.of("DescribeInstanceTypeOfferings")
                .put("LocationType", "availability-zone")
                .filter("instance-type", List.copyOf(instanceTypes)),
            page ->
                page.items("instanceTypeOfferingSet")
                    .forEach(
                        o ->
                            out.computeIfAbsent(o.text("instanceType"), k -> new TreeSet<>())
                                .add(o.text("location"))));
    return out;
  }

  @Override
  public Map<String, InstanceSpec> instanceTypes(String region, Collection<String> instanceTypes) {
    var out = new LinkedHashMap<String, InstanceSpec>();
    clients
        .ec2(region)
        // a filter, not InstanceTypes: types the region does not have are left out instead of
        // failing the call (InvalidInstanceType), so this need not wait for the offerings
        .paginate(
            Ec2Query.Params.of("DescribeInstanceTypes")
                .filter("instance-type", List.copyOf(instanceTypes)),
            page ->
                page.items("instanceTypeSet")
                    .forEach(i -> out.put(i.text("instanceType"), spec(i))));
    return out;
  }

  /** One {@code instanceTypeSet/item}; the catalog fills in what the answer lacks. */
  static InstanceSpec spec(Ec2Xml i) {
    String type = i.text("instanceType");
    var fallback = InstanceCatalog.find(type);
    int accelerators = 0;
    String model = null;
    long accelMib = 0;
    List<Ec2Xml> devices = i.items("gpuInfo/gpus");
    if (devices.isEmpty()) {
      devices = i.items("neuronInfo/neuronDevices");
    }
    if (!devices.isEmpty()) {
      accelerators = devices.stream().mapToInt(d -> orZero(d.integer("count"))).sum();
      model = devices.get(0).text("name");
      accelMib = orZero(devices.get(0).integer("memoryInfo/sizeInMiB"));
    } else if (fallback.isPresent()) {
      accelerators = fallback.get().accelerators();
      model = fallback.get().acceleratorModel();
      accelMib = fallback.get().acceleratorMemoryMib();
    }
    Integer vcpuAnswer = i.integer("vCpuInfo/defaultVCpus");
    String memAnswer = i.text("memoryInfo/sizeInMiB");
    int vcpus = vcpuAnswer != null ? vcpuAnswer : fallback.map(InstanceSpec::vcpus).orElse(0);
    long mem =
        memAnswer != null && !memAnswer.isEmpty()
            ? Long.parseLong(memAnswer)
            : fallback.map(InstanceSpec::memoryMib).orElse(0L);
    return new InstanceSpec(type, vcpus, mem, accelerators, model, accelMib);
  }

  private static int orZero(Integer n) {
    return n == null ? 0 : n;
  }

  /** One {@code spotPriceHistorySet/item}. */
  private record SpotPrice(String type, String zone, Instant at, BigDecimal price) {}

  @Override
  public Map<String, Map<String, BigDecimal>> spotPrices(
      String region, Collection<String> instanceTypes, Instant at) {
    // With start = end = at, EC2 returns the price in effect at that moment per type and zone
    // (the last change before it); keep the latest per (type, zone) in case it returns more.
    var latest = new HashMap<String, SpotPrice>();
    clients
        .ec2(region)
        .paginate(
            Ec2Query.Params.of("DescribeSpotPriceHistory")
                .list("InstanceType", List.copyOf(instanceTypes))
                .list("ProductDescription", LINUX)
                .put("StartTime", at)
                .put("EndTime", at),
            page ->
                page.items("spotPriceHistorySet")
                    .forEach(
                        item -> {
                          var p =
                              new SpotPrice(
                                  item.text("instanceType"),
                                  item.text("availabilityZone"),
                                  item.instant("timestamp"),
                                  new BigDecimal(item.text("spotPrice")));
                          if (p.at() != null && p.at().isAfter(at.plus(Duration.ofMinutes(5)))) {
                            return;
                          }
                          String key = p.type() + "@" + p.zone();
                          var prev = latest.get(key);
                          if (prev == null
                              || (p.at() != null
                                  && prev.at() != null
                                  && p.at().isAfter(prev.at()))) {
                            latest.put(key, p);
                          }
                        }));
    var out = new TreeMap<String, Map<String, BigDecimal>>();
    latest
        .values()
        .forEach(
            p ->
                out.computeIfAbsent(p.type(), k -> new TreeMap<>())
                    .merge(p.zone(), p.price(), BigDecimal::min));
    return out;
  }

  @Override
  public Map<String, Integer> availableReservations(
      String region, Collection<String> instanceTypes) {
    var out = new TreeMap<String, Integer>();
    clients
        .ec2(region)
        .paginate(
            Ec2Query.Params.of("DescribeCapacityReservations")
                .filter("instance-type", List.copyOf(instanceTypes))
                .filter("state", List.of("active")),
            page ->
                page.items("capacityReservationSet")
                    .forEach(
                        c -> {
                          Integer available = c.integer("availableInstanceCount");
                          // targeted reservations only serve launches that name them
                          if ("active".equals(c.text("state"))
                              && !"targeted".equals(c.text("instanceMatchCriteria"))
                              && available != null) {
                            out.merge(c.text("instanceType"), available, Integer::sum);
                          }
                        }));
    return out;
  }

  @Override
  public List<CapacityBlockOffer> capacityBlocks(
      String region, String instanceType, int count, int durationHours) {
    var out = new ArrayList<CapacityBlockOffer>();
    clients
        .ec2(region)
        .paginate(
            Ec2Query.Params.of("DescribeCapacityBlockOfferings")
                .put("InstanceType", instanceType)
                .put("InstanceCount", count)
                .put("CapacityDurationHours", durationHours),
            page ->
                page.items("capacityBlockOfferingSet")
                    .forEach(
                        o -> {
                          Integer hours = o.integer("capacityBlockDurationHours");
                          String fee = o.text("upfrontFee");
                          out.add(
                              new CapacityBlockOffer(
                                  o.text("capacityBlockOfferingId"),
                                  o.text("instanceType"),
                                  o.text("availabilityZone"),
                                  orZero(o.integer("instanceCount")),
                                  o.instant("startDate"),
                                  o.instant("endDate"),
                                  hours == null ? durationHours : hours,
                                  fee == null || fee.isEmpty() ? null : new BigDecimal(fee),
                                  o.text("currencyCode")));
                        }));
    return out;
  }

  /**
   * GetSpotPlacementScores takes at most this many {@code RegionNames} (service model: max 10) and
   * answers with the 10 best-scoring regions, so a chunk of 10 gets every region of it scored.
   */
  static final int MAX_REGIONS_PER_CALL = 10;

  /**
   * Scores in every region asked for: one call per chunk of at most {@link #MAX_REGIONS_PER_CALL}
   * regions (balanced: 17 regions are 9 + 8), the chunks concurrently. A failed chunk leaves its
   * regions unknown with the reason; only when every chunk fails is the whole entry unknown. Each
   * chunk is a request configuration of its own for AWS's 24-hour configuration cap.
   */
  @Override
  public SpotScores spotPlacementScores(
      Collection<String> regions, Collection<String> instanceTypes, int targetCapacity) {
    List<String> distinct = List.copyOf(new LinkedHashSet<>(regions));
    List<List<String>> chunks = chunks(distinct, MAX_REGIONS_PER_CALL);
    var scores = new ConcurrentSkipListMap<String, Integer>();
    var unknown = new ConcurrentSkipListMap<String, String>();
    var reasons = new ConcurrentLinkedQueue<String>();
    try (ExecutorService exec = Executors.newVirtualThreadPerTaskExecutor()) {
      for (List<String> chunk : chunks) {
        exec.submit(
            () -> {
              try {
                scoreChunk(chunk, instanceTypes, targetCapacity)
                    .forEach((r, v) -> scores.merge(r, v, Math::max));
              } catch (RuntimeException e) {
                String reason = reason(e);
                reasons.add(reason);
                chunk.forEach(r -> unknown.put(r, reason));
              }
            });
      }
    }
    if (!reasons.isEmpty() && (chunks.size() == 1 || unknown.size() == distinct.size())) {
      return SpotScores.unknown(reasons.peek());
    }
    scores.keySet().removeAll(unknown.keySet());
    return SpotScores.partial(scores, unknown);
  }

  private Map<String, Integer> scoreChunk(
      List<String> regions, Collection<String> instanceTypes, int targetCapacity) {
    var scores = new TreeMap<String, Integer>();
    clients
        .ec2(homeRegion)
        .paginate(
            Ec2Query.Params.of("GetSpotPlacementScores")
                .list("InstanceType", List.copyOf(instanceTypes))
                .put("TargetCapacity", targetCapacity)
                .put("TargetCapacityUnitType", "units")
                .put("SingleAvailabilityZone", false)
                .list("RegionName", regions),
            page ->
                page.items("spotPlacementScoreSet")
                    .forEach(
                        s ->
                            scores.merge(s.text("region"), orZero(s.integer("score")), Math::max)));
    return scores;
  }

  /** {@code items} in the fewest chunks of at most {@code max}, sizes differing by at most one. */
  static <T> List<List<T>> chunks(List<T> items, int max) {
    if (items.isEmpty()) {
      // no RegionNames: AWS scores every region the account can use (the top 10 come back)
      return List.of(List.of());
    }
    int n = (items.size() + max - 1) / max;
    var out = new ArrayList<List<T>>();
    int from = 0;
    for (int i = 0; i < n; i++) {
      int size = items.size() / n + (i < items.size() % n ? 1 : 0);
      out.add(List.copyOf(items.subList(from, from + size)));
      from += size;
    }
    return out;
  }

  private static String reason(RuntimeException e) {
    if (!(e instanceof Ec2QueryException ec2)) {
      return "score unknown: GetSpotPlacementScores failed (" + e + ")";
    }
    String code = ec2.code();
    return switch (code) {
      case "MaxConfigLimitExceeded" ->
          "score unknown: the 24-hour cap on new Spot placement score configurations was"
              + " reached (MaxConfigLimitExceeded)";
      case "UnauthorizedOperation", "AccessDenied", "AccessDeniedException" ->
          "score unknown: no permission for ec2:GetSpotPlacementScores (" + code + ")";
      default -> "score unknown: GetSpotPlacementScores failed (" + code + ")";
    };
  }
}
