package io.gpufleet.preflight.aws;

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
import software.amazon.awssdk.services.ec2.model.CapacityReservationState;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.InstanceMatchCriteria;
import software.amazon.awssdk.services.ec2.model.InstanceTypeInfo;
import software.amazon.awssdk.services.ec2.model.LocationType;
import software.amazon.awssdk.services.ec2.model.SpotPrice;
import software.amazon.awssdk.services.ec2.model.TargetCapacityUnitType;

/** EC2 capacity signals through the SDK, one client per region. */
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
        .describeInstanceTypeOfferingsPaginator(
            r ->
                r.locationType(LocationType.AVAILABILITY_ZONE)
                    .filters(Filter.builder().name("instance-type").values(instanceTypes).build()))
        .instanceTypeOfferings()
        .forEach(
            o ->
                out.computeIfAbsent(o.instanceTypeAsString(), k -> new TreeSet<>())
                    .add(o.location()));
    return out;
  }

  @Override
  public Map<String, InstanceSpec> instanceTypes(String region, Collection<String> instanceTypes) {
    var out = new LinkedHashMap<String, InstanceSpec>();
    clients
        .ec2(region)
        // a filter, not InstanceTypes: types the region does not have are left out instead of
        // failing the call (InvalidInstanceType), so this need not wait for the offerings
        .describeInstanceTypesPaginator(
            r -> r.filters(Filter.builder().name("instance-type").values(instanceTypes).build()))
        .instanceTypes()
        .forEach(i -> out.put(i.instanceTypeAsString(), spec(i)));
    return out;
  }

  static InstanceSpec spec(InstanceTypeInfo i) {
    String type = i.instanceTypeAsString();
    var fallback = InstanceCatalog.find(type);
    int accelerators = 0;
    String model = null;
    long accelMib = 0;
    if (i.gpuInfo() != null && i.gpuInfo().hasGpus() && !i.gpuInfo().gpus().isEmpty()) {
      var g = i.gpuInfo().gpus().get(0);
      accelerators =
          i.gpuInfo().gpus().stream().mapToInt(x -> x.count() == null ? 0 : x.count()).sum();
      model = g.name();
      accelMib =
          g.memoryInfo() == null || g.memoryInfo().sizeInMiB() == null
              ? 0
              : g.memoryInfo().sizeInMiB();
    } else if (i.neuronInfo() != null && i.neuronInfo().hasNeuronDevices()) {
      var n = i.neuronInfo().neuronDevices().get(0);
      accelerators =
          i.neuronInfo().neuronDevices().stream()
              .mapToInt(x -> x.count() == null ? 0 : x.count())
              .sum();
      model = n.name();
      accelMib =
          n.memoryInfo() == null || n.memoryInfo().sizeInMiB() == null
              ? 0
              : n.memoryInfo().sizeInMiB();
    } else if (fallback.isPresent()) {
      accelerators = fallback.get().accelerators();
      model = fallback.get().acceleratorModel();
      accelMib = fallback.get().acceleratorMemoryMib();
    }
    int vcpus =
        i.vCpuInfo() != null && i.vCpuInfo().defaultVCpus() != null
            ? i.vCpuInfo().defaultVCpus()
            : fallback.map(InstanceSpec::vcpus).orElse(0);
    long mem =
        i.memoryInfo() != null && i.memoryInfo().sizeInMiB() != null
            ? i.memoryInfo().sizeInMiB()
            : fallback.map(InstanceSpec::memoryMib).orElse(0L);
    return new InstanceSpec(type, vcpus, mem, accelerators, model, accelMib);
  }

  @Override
  public Map<String, Map<String, BigDecimal>> spotPrices(
      String region, Collection<String> instanceTypes, Instant at) {
    // With start = end = at, EC2 returns the price in effect at that moment per type and zone
    // (the last change before it); keep the latest per (type, zone) in case it returns more.
    var latest = new HashMap<String, SpotPrice>();
    clients
        .ec2(region)
        .describeSpotPriceHistoryPaginator(
            r ->
                r.instanceTypesWithStrings(instanceTypes)
                    .productDescriptions(LINUX)
                    .startTime(at)
                    .endTime(at))
        .spotPriceHistory()
        .forEach(
            p -> {
              if (p.timestamp() != null && p.timestamp().isAfter(at.plus(Duration.ofMinutes(5)))) {
                return;
              }
              String key = p.instanceTypeAsString() + "@" + p.availabilityZone();
              var prev = latest.get(key);
              if (prev == null
                  || (p.timestamp() != null
                      && prev.timestamp() != null
                      && p.timestamp().isAfter(prev.timestamp()))) {
                latest.put(key, p);
              }
            });
    var out = new TreeMap<String, Map<String, BigDecimal>>();
    latest
        .values()
        .forEach(
            p ->
                out.computeIfAbsent(p.instanceTypeAsString(), k -> new TreeMap<>())
                    .merge(p.availabilityZone(), new BigDecimal(p.spotPrice()), BigDecimal::min));
    return out;
  }

  @Override
  public Map<String, Integer> availableReservations(
      String region, Collection<String> instanceTypes) {
    var out = new TreeMap<String, Integer>();
    clients
        .ec2(region)
        .describeCapacityReservationsPaginator(
            r ->
                r.filters(
                    Filter.builder().name("instance-type").values(instanceTypes).build(),
                    Filter.builder().name("state").values("active").build()))
        .capacityReservations()
        .forEach(
            c -> {
              // targeted reservations only serve launches that name them
              if (c.state() == CapacityReservationState.ACTIVE
                  && c.instanceMatchCriteria() != InstanceMatchCriteria.TARGETED
                  && c.availableInstanceCount() != null) {
                out.merge(c.instanceType(), c.availableInstanceCount(), Integer::sum);
              }
            });
    return out;
  }

  @Override
  public List<CapacityBlockOffer> capacityBlocks(
      String region, String instanceType, int count, int durationHours) {
    return clients
        .ec2(region)
        .describeCapacityBlockOfferingsPaginator(
            r ->
                r.instanceType(instanceType)
                    .instanceCount(count)
                    .capacityDurationHours(durationHours))
        .capacityBlockOfferings()
        .stream()
        .map(
            o ->
                new CapacityBlockOffer(
                    o.capacityBlockOfferingId(),
                    o.instanceType(),
                    o.availabilityZone(),
                    o.instanceCount() == null ? 0 : o.instanceCount(),
                    o.startDate(),
                    o.endDate(),
                    o.capacityBlockDurationHours() == null
                        ? durationHours
                        : o.capacityBlockDurationHours(),
                    o.upfrontFee() == null ? null : new BigDecimal(o.upfrontFee()),
                    o.currencyCode()))
        .toList();
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
        .getSpotPlacementScoresPaginator(
            r ->
                r.instanceTypes(instanceTypes)
                    .targetCapacity(targetCapacity)
                    .targetCapacityUnitType(TargetCapacityUnitType.UNITS)
                    .singleAvailabilityZone(false)
                    .regionNames(regions))
        .spotPlacementScores()
        .forEach(s -> scores.merge(s.region(), s.score(), Math::max));
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
    if (!(e instanceof Ec2Exception ec2)) {
      return "score unknown: GetSpotPlacementScores failed (" + e + ")";
    }
    String code = ec2.awsErrorDetails() == null ? "" : ec2.awsErrorDetails().errorCode();
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
