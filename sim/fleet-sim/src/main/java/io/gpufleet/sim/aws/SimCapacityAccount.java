package io.gpufleet.sim.aws;

import io.gpufleet.core.catalog.CapacityType;
import io.gpufleet.core.catalog.CatalogEntry;
import io.gpufleet.core.catalog.InstanceCatalog;
import io.gpufleet.core.catalog.QuotaBucket;
import io.gpufleet.core.json.Json;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A simulated AWS account for the capacity preflight, served by an {@link AwsStubServer} in the
 * documented wire shapes of the real APIs: EC2 (DescribeInstanceTypeOfferings,
 * DescribeInstanceTypes, DescribeSpotPriceHistory, DescribeCapacityReservations,
 * DescribeCapacityBlockOfferings, GetSpotPlacementScores), Service Quotas (ListServiceQuotas,
 * GetServiceQuota, ListRequestedServiceQuotaChangeHistoryByQuota, RequestServiceQuotaIncrease) and
 * CloudWatch GetMetricData over AWS/Usage (JSON 1.0). One stub plays every region (the region comes
 * from each call's signature). Seed regions with {@link #region(String)}, then {@link #install()}.
 */
public final class SimCapacityAccount {
  public static final String EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/";

  /** CloudWatch GetMetricData on the JSON protocol, as the stub routes it. */
  public static final String GET_METRIC_DATA = "GraniteServiceVersion20100801.GetMetricData";

  /** CloudWatch DescribeAlarms on the JSON protocol. */
  public static final String DESCRIBE_ALARMS = "GraniteServiceVersion20100801.DescribeAlarms";

  /** The stack's quota alarms' threshold (QuotaAlarmThresholdPercent's default). */
  static final double QUOTA_ALARM_PERCENT = 80;

  public static final String ACCOUNT = "123456789012";

  /** A Capacity Block offering. */
  public record Block(String type, String zone, int count, Instant start, int hours, String fee) {}

  /** A quota increase request as Service Quotas keeps it. */
  public record Request(
      String id, String region, String quotaCode, double desired, String status) {}

  /** What one region of the account has. */
  public static final class RegionModel {
    final String name;
    final Map<String, Set<String>> offerings = new TreeMap<>();
    final Map<String, Double> quotas = new TreeMap<>();
    final Map<String, Double> usage = new TreeMap<>();
    final Map<String, Map<String, String>> spotPrices = new TreeMap<>();
    final Map<String, Integer> reservations = new TreeMap<>();
    final List<Block> blocks = new ArrayList<>();
    Integer spotScore;

    RegionModel(String name) {
      this.name = name;
    }

    /** {@code type} is offered in these zones (letters: "a", "b" → us-east-1a, us-east-1b). */
    public RegionModel offer(String type, String... zoneLetters) {
      var zones = offerings.computeIfAbsent(type, k -> new TreeSet<>());
      for (String z : zoneLetters) {
        zones.add(name + z);
      }
      return this;
    }

    public RegionModel quota(QuotaBucket bucket, CapacityType type, double vcpus) {
      quotas.put(bucket.fallbackQuotaCode(type).orElseThrow(), vcpus);
      return this;
    }

    public RegionModel usage(QuotaBucket bucket, CapacityType type, double vcpus) {
      usage.put(bucket.usageClass(type), vcpus);
      return this;
    }

    public RegionModel spotPrice(String type, String zoneLetter, String price) {
      spotPrices.computeIfAbsent(type, k -> new TreeMap<>()).put(name + zoneLetter, price);
      return this;
    }

    public RegionModel reservation(String type, int available) {
      reservations.put(type, available);
      return this;
    }

    public RegionModel block(
        String type, String zoneLetter, int count, Instant start, int hours, String fee) {
      blocks.add(new Block(type, name + zoneLetter, count, start, hours, fee));
      return this;
    }

    public RegionModel spotScore(int score) {
      this.spotScore = score;
      return this;
    }
  }

  private final AwsStubServer stub;
  private final Map<String, RegionModel> regions = new ConcurrentHashMap<>();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final AtomicInteger ids = new AtomicInteger();
  private volatile int quotaPageSize = 100;
  private volatile int metricPageSize = 500;
  private volatile Instant now = Instant.now().truncatedTo(ChronoUnit.MINUTES);

  public SimCapacityAccount(AwsStubServer stub) {
    this.stub = stub;
  }

  public AwsStubServer stub() {
    return stub;
  }

  public RegionModel region(String name) {
    return regions.computeIfAbsent(name, RegionModel::new);
  }

  /** ListServiceQuotas answers this many quotas per page (to exercise paging). */
  public SimCapacityAccount quotaPageSize(int size) {
    this.quotaPageSize = size;
    return this;
  }

  /** GetMetricData results per page (the rest behind a NextToken). */
  public SimCapacityAccount metricPageSize(int size) {
    this.metricPageSize = size;
    return this;
  }

  public SimCapacityAccount now(Instant now) {
    this.now = now;
    return this;
  }

  /** A quota increase request that already exists (e.g. PENDING). */
  public SimCapacityAccount existingRequest(
      String region, String quotaCode, double desired, String status) {
    requests.add(new Request("req-" + ids.incrementAndGet(), region, quotaCode, desired, status));
    return this;
  }

  /** Every increase request, earlier ones first. */
  public List<Request> requests() {
    return List.copyOf(requests);
  }

  /** Registers the handlers on the stub. */
  public SimCapacityAccount install() {
    stub.on("DescribeInstanceTypeOfferings", this::offerings);
    stub.on("DescribeInstanceTypes", this::instanceTypes);
    stub.on("DescribeSpotPriceHistory", this::spotPrices);
    stub.on("DescribeCapacityReservations", this::reservations);
    stub.on("DescribeCapacityBlockOfferings", this::blocks);
    stub.on("GetSpotPlacementScores", this::scores);
    stub.on(GET_METRIC_DATA, this::metricData);
    stub.on(DESCRIBE_ALARMS, this::describeAlarms);
    stub.on("ServiceQuotasV20190624.ListServiceQuotas", this::listQuotas);
    stub.on("ServiceQuotasV20190624.GetServiceQuota", this::getQuota);
    stub.on("ServiceQuotasV20190624.GetAWSDefaultServiceQuota", this::defaultQuota);
    stub.on("ServiceQuotasV20190624.ListRequestedServiceQuotaChangeHistoryByQuota", this::history);
    stub.on("ServiceQuotasV20190624.RequestServiceQuotaIncrease", this::requestIncrease);
    return this;
  }

  // ---------------------------------------------------------------- EC2 (query protocol, XML)

  private RegionModel model(AwsStubServer.Call call) {
    return regions.getOrDefault(call.region(), new RegionModel(call.region()));
  }

  private static List<String> filterValues(AwsStubServer.Call call, String name) {
    for (int i = 1; ; i++) {
      String n = call.params().get("Filter." + i + ".Name");
      if (n == null) {
        return null;
      }
      if (n.equals(name)) {
        return AwsStubServer.listParam(call, "Filter." + i + ".Value");
      }
    }
  }

  private AwsStubServer.Reply offerings(AwsStubServer.Call call) {
    var m = model(call);
    var wanted = filterValues(call, "instance-type");
    String location = call.param("LocationType").orElse("region");
    var sb = open("DescribeInstanceTypeOfferingsResponse").append("<instanceTypeOfferingSet>");
    m.offerings.forEach(
        (type, zones) -> {
          if (wanted != null && !wanted.contains(type)) {
            return;
          }
          if (location.equals("region")) {
            item(sb, type, "region", m.name);
          } else {
            zones.forEach(z -> item(sb, type, location, z));
          }
        });
    sb.append("</instanceTypeOfferingSet>");
    return close(sb, "DescribeInstanceTypeOfferingsResponse");
  }

  private static void item(StringBuilder sb, String type, String locationType, String location) {
    sb.append("<item><instanceType>")
        .append(type)
        .append("</instanceType><locationType>")
        .append(locationType)
        .append("</locationType><location>")
        .append(location)
        .append("</location></item>");
  }

  private AwsStubServer.Reply instanceTypes(AwsStubServer.Call call) {
    var m = model(call);
    var sb = open("DescribeInstanceTypesResponse").append("<instanceTypeSet>");
    var named = AwsStubServer.listParam(call, "InstanceType");
    var filtered = filterValues(call, "instance-type");
    for (String type : named.isEmpty() && filtered != null ? filtered : named) {
      var spec = InstanceCatalog.entry(type).filter(CatalogEntry::accelerated).orElse(null);
      if (spec == null || !m.offerings.containsKey(type)) {
        if (!named.isEmpty()) {
          return error(
              400,
              "InvalidInstanceType",
              "The following supplied instance types do not exist: [" + type + "]");
        }
        continue; // a filter just leaves out what the region does not have
      }
      sb.append("<item><instanceType>").append(type).append("</instanceType>");
      sb.append("<vCpuInfo><defaultVCpus>")
          .append(spec.vcpus())
          .append("</defaultVCpus></vCpuInfo>");
      sb.append("<memoryInfo><sizeInMiB>")
          .append(spec.memoryMib())
          .append("</sizeInMiB></memoryInfo>");
      accelerators(sb, spec);
      sb.append("</item>");
    }
    sb.append("</instanceTypeSet>");
    return close(sb, "DescribeInstanceTypesResponse");
  }

  /** The accelerator block of an InstanceTypeInfo, in the section EC2 reports it in. */
  private static void accelerators(StringBuilder sb, CatalogEntry e) {
    if (e.accelerators() == 0) {
      return;
    }
    // NeuronDeviceInfo has no Manufacturer member; the other device shapes do
    String device =
        "<name>"
            + e.acceleratorModel()
            + "</name>"
            + (e.kind().neuron()
                ? ""
                : "<manufacturer>" + e.kind().manufacturer() + "</manufacturer>")
            + "<count>"
            + e.accelerators()
            + "</count><memoryInfo><sizeInMiB>"
            + e.acceleratorMemoryMib()
            + "</sizeInMiB></memoryInfo>";
    switch (e.kind()) {
      case AWS_TRAINIUM, AWS_INFERENTIA ->
          sb.append("<neuronInfo><neuronDevices><item>")
              .append(device)
              .append("</item></neuronDevices></neuronInfo>");
      case QUALCOMM_AI100 ->
          sb.append("<inferenceAcceleratorInfo><accelerators><item>")
              .append(device)
              .append("</item></accelerators></inferenceAcceleratorInfo>");
      case XILINX_MEDIA ->
          sb.append("<mediaAcceleratorInfo><accelerators><item>")
              .append(device)
              .append("</item></accelerators></mediaAcceleratorInfo>");
      default ->
          sb.append("<gpuInfo><gpus><item>").append(device).append("</item></gpus></gpuInfo>");
    }
  }

  private AwsStubServer.Reply spotPrices(AwsStubServer.Call call) {
    var m = model(call);
    var types = AwsStubServer.listParam(call, "InstanceType");
    var sb = open("DescribeSpotPriceHistoryResponse").append("<spotPriceHistorySet>");
    String stamp = now.minus(Duration.ofMinutes(37)).toString();
    m.spotPrices.forEach(
        (type, byZone) -> {
          if (!types.isEmpty() && !types.contains(type)) {
            return;
          }
          byZone.forEach(
              (zone, price) ->
                  sb.append("<item><instanceType>")
                      .append(type)
                      .append(
                          "</instanceType><productDescription>Linux/UNIX</productDescription><spotPrice>")
                      .append(price)
                      .append("</spotPrice><timestamp>")
                      .append(stamp)
                      .append("</timestamp><availabilityZone>")
                      .append(zone)
                      .append("</availabilityZone></item>"));
        });
    sb.append("</spotPriceHistorySet><nextToken/>");
    return close(sb, "DescribeSpotPriceHistoryResponse");
  }

  private AwsStubServer.Reply reservations(AwsStubServer.Call call) {
    var m = model(call);
    var types = filterValues(call, "instance-type");
    var sb = open("DescribeCapacityReservationsResponse").append("<capacityReservationSet>");
    m.reservations.forEach(
        (type, available) -> {
          if (types != null && !types.contains(type)) {
            return;
          }
          String zone = m.offerings.getOrDefault(type, Set.of(m.name + "a")).iterator().next();
          sb.append("<item><capacityReservationId>cr-")
              .append(Integer.toHexString((m.name + type).hashCode()))
              .append("</capacityReservationId><ownerId>")
              .append(ACCOUNT)
              .append("</ownerId><instanceType>")
              .append(type)
              .append(
                  "</instanceType><instancePlatform>Linux/UNIX</instancePlatform><availabilityZone>")
              .append(zone)
              .append("</availabilityZone><tenancy>default</tenancy><totalInstanceCount>")
              .append(available)
              .append("</totalInstanceCount><availableInstanceCount>")
              .append(available)
              .append(
                  "</availableInstanceCount><state>active</state><instanceMatchCriteria>open</instanceMatchCriteria></item>");
        });
    sb.append("</capacityReservationSet>");
    return close(sb, "DescribeCapacityReservationsResponse");
  }

  private AwsStubServer.Reply blocks(AwsStubServer.Call call) {
    var m = model(call);
    String type = call.param("InstanceType").orElse("");
    int count = Integer.parseInt(call.param("InstanceCount").orElse("1"));
    var sb = open("DescribeCapacityBlockOfferingsResponse").append("<capacityBlockOfferingSet>");
    for (Block b : m.blocks) {
      if (!b.type().equals(type) || b.count() < count) {
        continue;
      }
      sb.append("<item><capacityBlockOfferingId>cbo-")
          .append(Integer.toHexString((b.zone() + b.start()).hashCode()))
          .append("</capacityBlockOfferingId><instanceType>")
          .append(b.type())
          .append("</instanceType><availabilityZone>")
          .append(b.zone())
          .append("</availabilityZone><instanceCount>")
          .append(count)
          .append("</instanceCount><startDate>")
          .append(b.start())
          .append("</startDate><endDate>")
          .append(b.start().plus(Duration.ofHours(b.hours())))
          .append("</endDate><capacityBlockDurationHours>")
          .append(b.hours())
          .append("</capacityBlockDurationHours><upfrontFee>")
          .append(b.fee())
          .append("</upfrontFee><currencyCode>USD</currencyCode><tenancy>default</tenancy></item>");
    }
    sb.append("</capacityBlockOfferingSet>");
    return close(sb, "DescribeCapacityBlockOfferingsResponse");
  }

  /** GetSpotPlacementScores takes at most this many RegionNames (service model: max 10). */
  public static final int MAX_SCORE_REGIONS = 10;

  private AwsStubServer.Reply scores(AwsStubServer.Call call) {
    var names = AwsStubServer.listParam(call, "RegionName");
    if (names.size() > MAX_SCORE_REGIONS) {
      // AWS refuses the request before scoring (the exact error code for this limit is not
      // documented; EC2 answers parameter-constraint violations with InvalidParameterValue)
      return error(
          400,
          "InvalidParameterValue",
          "RegionNames: " + names.size() + " regions given, at most " + MAX_SCORE_REGIONS);
    }
    var sb = open("GetSpotPlacementScoresResponse").append("<spotPlacementScoreSet>");
    var scored = new ArrayList<RegionModel>();
    for (String n : names.isEmpty() ? new TreeSet<>(regions.keySet()) : names) {
      var m = regions.get(n);
      if (m != null && m.spotScore != null) {
        scored.add(m);
      }
    }
    scored.sort((a, b) -> Integer.compare(b.spotScore, a.spotScore));
    // EC2 returns the ten best-scoring regions
    for (var m : scored.subList(0, Math.min(10, scored.size()))) {
      sb.append("<item><region>")
          .append(m.name)
          .append("</region><score>")
          .append(m.spotScore)
          .append("</score></item>");
    }
    sb.append("</spotPlacementScoreSet>");
    return close(sb, "GetSpotPlacementScoresResponse");
  }

  private static StringBuilder open(String root) {
    return new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?><")
        .append(root)
        .append(" xmlns=\"")
        .append(EC2_NS)
        .append("\"><requestId>sim</requestId>");
  }

  private static AwsStubServer.Reply close(StringBuilder sb, String root) {
    return AwsStubServer.Reply.xml(sb.append("</").append(root).append(">").toString());
  }

  private static AwsStubServer.Reply error(int status, String code, String message) {
    return new AwsStubServer.Reply(
        status,
        "text/xml;charset=UTF-8",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error><Code>"
            + code
            + "</Code><Message>"
            + message
            + "</Message></Error></Errors><RequestID>sim</RequestID></Response>");
  }

  // ---------------------------------------------------------------- CloudWatch (JSON 1.0)

  /**
   * GetMetricData as CloudWatch's JSON protocol answers it: per query its Id, Label, Timestamps
   * (epoch seconds) and Values, two datapoints a class with usage; {@link #metricPageSize} results
   * per page, the rest behind a NextToken.
   */
  private AwsStubServer.Reply metricData(AwsStubServer.Call call) {
    var m = model(call);
    var body = Json.MAPPER.valueToTree(parse(call));
    var queries = new ArrayList<com.fasterxml.jackson.databind.JsonNode>();
    body.path("MetricDataQueries").forEach(queries::add);
    int from = body.hasNonNull("NextToken") ? Integer.parseInt(body.get("NextToken").asText()) : 0;
    int to = Math.min(queries.size(), from + metricPageSize);
    var results = new ArrayList<Map<String, Object>>();
    for (var q : queries.subList(from, to)) {
      String usageClass = null;
      for (var d : q.path("MetricStat").path("Metric").path("Dimensions")) {
        if (d.path("Name").asText().equals("Class")) {
          usageClass = d.path("Value").asText();
        }
      }
      Double value = usageClass == null ? null : m.usage.get(usageClass);
      var r = new LinkedHashMap<String, Object>();
      r.put("Id", q.path("Id").asText());
      r.put("Label", "ResourceCount");
      r.put(
          "Timestamps",
          value == null
              ? List.of()
              : List.of(
                  now.minus(Duration.ofMinutes(3)).getEpochSecond(),
                  now.minus(Duration.ofMinutes(2)).getEpochSecond()));
      r.put("Values", value == null ? List.of() : List.of(value * 0.9, value));
      r.put("StatusCode", "Complete");
      results.add(r);
    }
    var out = new LinkedHashMap<String, Object>();
    out.put("MetricDataResults", results);
    out.put("Messages", List.of());
    if (to < queries.size()) {
      out.put("NextToken", Integer.toString(to));
    }
    return new AwsStubServer.Reply(200, "application/x-amz-json-1.0", Json.write(out));
  }

  /**
   * DescribeAlarms for the stack's quota alarms ({@code <stack>-quota-<Class>-<Market>}, one per
   * AWS/Usage class), evaluated as CloudWatch would: ALARM when the region's usage of that class is
   * at least {@value #QUOTA_ALARM_PERCENT}% of its quota, else OK. Other names: no such alarm.
   */
  private AwsStubServer.Reply describeAlarms(AwsStubServer.Call call) {
    var m = model(call);
    var body = Json.MAPPER.valueToTree(parse(call));
    var alarms = new ArrayList<Map<String, Object>>();
    for (var n : body.path("AlarmNames")) {
      String name = n.asText();
      int at = name.lastIndexOf("-quota-");
      if (at < 0) {
        continue;
      }
      String usageClass = name.substring(at + "-quota-".length()).replace('-', '/');
      for (QuotaBucket b : QuotaBucket.values()) {
        for (CapacityType t : CapacityType.values()) {
          if (!b.usageClass(t).equals(usageClass)) {
            continue;
          }
          Double quota = b.fallbackQuotaCode(t).map(m.quotas::get).orElse(null);
          double used = m.usage.getOrDefault(usageClass, 0.0);
          boolean alarm = quota != null && quota > 0 && used * 100 / quota >= QUOTA_ALARM_PERCENT;
          var a = new LinkedHashMap<String, Object>();
          a.put("AlarmName", name);
          a.put("StateValue", alarm ? "ALARM" : "OK");
          alarms.add(a);
        }
      }
    }
    var out = new LinkedHashMap<String, Object>();
    out.put("MetricAlarms", alarms);
    out.put("CompositeAlarms", List.of());
    return new AwsStubServer.Reply(200, "application/x-amz-json-1.0", Json.write(out));
  }

  // ---------------------------------------------------------------- Service Quotas (JSON 1.1)

  private List<Map<String, Object>> quotasOf(RegionModel m) {
    var out = new ArrayList<Map<String, Object>>();
    for (QuotaBucket b : QuotaBucket.values()) {
      for (CapacityType t : CapacityType.values()) {
        var code = b.fallbackQuotaCode(t);
        if (code.isEmpty()) {
          continue;
        }
        double value = m.quotas.getOrDefault(code.get(), b.accelerated() ? 0.0 : 5.0);
        out.add(quota(m.name, b, t, code.get(), value));
      }
    }
    return out;
  }

  private static Map<String, Object> quota(
      String region, QuotaBucket b, CapacityType t, String code, double value) {
    var q = new LinkedHashMap<String, Object>();
    q.put("ServiceCode", "ec2");
    q.put("ServiceName", "Amazon Elastic Compute Cloud (Amazon EC2)");
    q.put("QuotaArn", "arn:aws:servicequotas:" + region + ":" + ACCOUNT + ":ec2/" + code);
    q.put("QuotaCode", code);
    q.put("QuotaName", b.quotaName(t).orElseThrow());
    q.put("Value", value);
    q.put("Unit", "None");
    q.put("Adjustable", true);
    q.put("GlobalQuota", false);
    q.put(
        "UsageMetric",
        Map.of(
            "MetricNamespace", "AWS/Usage",
            "MetricName", "ResourceCount",
            "MetricDimensions",
                Map.of(
                    "Class",
                    b.usageClass(t),
                    "Resource",
                    "vCPU",
                    "Service",
                    "EC2",
                    "Type",
                    "Resource"),
            "MetricStatisticRecommendation", "Maximum"));
    return q;
  }

  private AwsStubServer.Reply listQuotas(AwsStubServer.Call call) {
    var body = Json.MAPPER.valueToTree(parse(call));
    if (!"ec2".equals(body.path("ServiceCode").asText())) {
      return jsonError(400, "NoSuchResourceException", "only ec2 is simulated");
    }
    var all = quotasOf(model(call));
    int from = body.hasNonNull("NextToken") ? Integer.parseInt(body.get("NextToken").asText()) : 0;
    int size =
        body.hasNonNull("MaxResults")
            ? Math.min(quotaPageSize, body.get("MaxResults").asInt())
            : quotaPageSize;
    int to = Math.min(all.size(), from + size);
    var out = new LinkedHashMap<String, Object>();
    out.put("Quotas", all.subList(from, to));
    if (to < all.size()) {
      out.put("NextToken", Integer.toString(to));
    }
    return AwsStubServer.Reply.json(Json.write(out));
  }

  private AwsStubServer.Reply getQuota(AwsStubServer.Call call) {
    var body = parse(call);
    String code = String.valueOf(body.get("QuotaCode"));
    for (var q : quotasOf(model(call))) {
      if (q.get("QuotaCode").equals(code)) {
        return AwsStubServer.Reply.json(Json.write(Map.of("Quota", q)));
      }
    }
    return jsonError(400, "NoSuchResourceException", "no quota " + code);
  }

  /** AWS defaults: Standard 5 vCPU, every accelerated bucket 0. */
  private AwsStubServer.Reply defaultQuota(AwsStubServer.Call call) {
    String code = String.valueOf(parse(call).get("QuotaCode"));
    var key = QuotaBucket.byQuota(code);
    if (key.isEmpty()) {
      return jsonError(400, "NoSuchResourceException", "no quota " + code);
    }
    var b = key.get().bucket();
    var q = quota(call.region(), b, key.get().capacityType(), code, b.accelerated() ? 0 : 5);
    return AwsStubServer.Reply.json(Json.write(Map.of("Quota", q)));
  }

  private AwsStubServer.Reply history(AwsStubServer.Call call) {
    var body = parse(call);
    String code = String.valueOf(body.get("QuotaCode"));
    var list = new ArrayList<Map<String, Object>>();
    for (Request r : requests) {
      if (r.region().equals(call.region()) && r.quotaCode().equals(code)) {
        list.add(requestJson(r));
      }
    }
    return AwsStubServer.Reply.json(Json.write(Map.of("RequestedQuotas", list)));
  }

  private AwsStubServer.Reply requestIncrease(AwsStubServer.Call call) {
    var body = parse(call);
    String code = String.valueOf(body.get("QuotaCode"));
    double desired = ((Number) body.get("DesiredValue")).doubleValue();
    for (Request r : requests) {
      if (r.region().equals(call.region())
          && r.quotaCode().equals(code)
          && (r.status().equals("PENDING") || r.status().equals("CASE_OPENED"))) {
        return jsonError(
            400, "ResourceAlreadyExistsException", "a request for " + code + " is already open");
      }
    }
    var r = new Request("req-" + ids.incrementAndGet(), call.region(), code, desired, "PENDING");
    requests.add(r);
    return AwsStubServer.Reply.json(Json.write(Map.of("RequestedQuota", requestJson(r))));
  }

  private static Map<String, Object> requestJson(Request r) {
    var m = new LinkedHashMap<String, Object>();
    m.put("Id", r.id());
    m.put("ServiceCode", "ec2");
    m.put("QuotaCode", r.quotaCode());
    m.put("DesiredValue", r.desired());
    m.put("Status", r.status());
    m.put("Requester", "arn:aws:sts::" + ACCOUNT + ":assumed-role/preflight");
    m.put(
        "QuotaArn",
        "arn:aws:servicequotas:" + r.region() + ":" + ACCOUNT + ":ec2/" + r.quotaCode());
    m.put("GlobalQuota", false);
    m.put("Unit", "None");
    return m;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parse(AwsStubServer.Call call) {
    try {
      return call.body().isBlank() ? Map.of() : Json.MAPPER.readValue(call.body(), Map.class);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not JSON: " + call.body(), e);
    }
  }

  private static AwsStubServer.Reply jsonError(int status, String code, String message) {
    return new AwsStubServer.Reply(
        status,
        "application/x-amz-json-1.1",
        "{\"__type\":\"" + code + "\",\"Message\":\"" + message + "\"}");
  }

  // ---------------------------------------------------------------- demo data

  /** The accelerated types of the demo account and the benchmark (12 types). */
  public static final List<String> DEMO_TYPES =
      List.of(
          "p5.48xlarge",
          "p5e.48xlarge",
          "p4d.24xlarge",
          "p4de.24xlarge",
          "g6e.12xlarge",
          "g6e.48xlarge",
          "g6.12xlarge",
          "g5.12xlarge",
          "g5.48xlarge",
          "trn1.32xlarge",
          "inf2.48xlarge",
          "dl1.24xlarge");

  /**
   * Serves Pricing API On-Demand prices for the demo types in these regions on the same stub
   * (deterministic: about 0.12 USD per vCPU-hour, a few percent more outside us-east-1).
   */
  public SimCapacityAccount installPricing(List<String> regionNames) {
    var pricing = new PricingStub().withDecoys();
    for (String r : regionNames) {
      double factor = r.equals("us-east-1") ? 1.0 : 1.0 + Math.floorMod(r.hashCode(), 13) / 100.0;
      for (String type : DEMO_TYPES) {
        var spec = InstanceCatalog.find(type).orElseThrow();
        pricing.price(r, type, price(spec.vcpus() * 0.12 * factor));
      }
    }
    stub.on(PricingStub.OPERATION, pricing::answer);
    return this;
  }

  /**
   * Seeds the demo account in these regions: deterministic per region (a hash of its name) so the
   * verdicts differ: some regions lack P types, some have small quotas, some high usage. us-east-1
   * is the demo's home: P Spot 384 vCPU with 336 in use (87 %, so its quota alarm fires), G and VT
   * On-Demand 64 vCPU.
   */
  public SimCapacityAccount seedDemo(List<String> regionNames) {
    for (String r : regionNames) {
      int h = Math.floorMod(r.hashCode(), 97);
      var m = region(r);
      for (int i = 0; i < DEMO_TYPES.size(); i++) {
        String type = DEMO_TYPES.get(i);
        boolean pType = type.startsWith("p");
        boolean offered =
            !pType || (h + i) % 3 != 0 || r.equals("us-east-1") || r.equals("us-west-2");
        if (type.startsWith("dl1") && h % 2 == 1) {
          offered = false;
        }
        if (!offered) {
          continue;
        }
        m.offer(type, "a", "b", (h + i) % 2 == 0 ? "c" : "d");
        var spec = InstanceCatalog.find(type).orElseThrow();
        double base = spec.vcpus() * 0.05 * (1 + (h % 7) / 10.0);
        m.spotPrice(type, "a", price(base * 1.05))
            .spotPrice(type, "b", price(base))
            .spotPrice(type, (h + i) % 2 == 0 ? "c" : "d", price(base * 1.2));
      }
      m.quota(QuotaBucket.P, CapacityType.SPOT, 384 + 384 * (h % 4))
          .quota(QuotaBucket.P, CapacityType.ON_DEMAND, 192 * (h % 5))
          .quota(QuotaBucket.G_VT, CapacityType.ON_DEMAND, 64 + 128 * (h % 6))
          .quota(QuotaBucket.G_VT, CapacityType.SPOT, 256 + 128 * (h % 3))
          .quota(QuotaBucket.TRN, CapacityType.ON_DEMAND, 128 * (h % 3))
          .quota(QuotaBucket.TRN, CapacityType.SPOT, 256)
          .quota(QuotaBucket.INF, CapacityType.ON_DEMAND, 192)
          .quota(QuotaBucket.INF, CapacityType.SPOT, 192)
          .quota(QuotaBucket.DL, CapacityType.ON_DEMAND, 96 * (h % 2))
          .quota(QuotaBucket.DL, CapacityType.SPOT, 0)
          .usage(QuotaBucket.P, CapacityType.SPOT, 96 * (h % 3))
          .usage(QuotaBucket.P, CapacityType.ON_DEMAND, 0)
          .usage(QuotaBucket.G_VT, CapacityType.ON_DEMAND, 48 * (h % 2))
          .usage(QuotaBucket.G_VT, CapacityType.SPOT, 96)
          .spotScore(1 + h % 10);
      if (h % 4 == 0) {
        m.reservation("p5.48xlarge", 2);
      }
      m.block("p5.48xlarge", "a", 64, now.plus(Duration.ofDays(2 + h % 5)), 24, price(3100.0 * 24));
      m.block(
          "p4d.24xlarge", "b", 64, now.plus(Duration.ofDays(1 + h % 3)), 24, price(1400.0 * 24));
    }
    if (regionNames.contains("us-east-1")) {
      region("us-east-1")
          .quota(QuotaBucket.P, CapacityType.SPOT, 384)
          .usage(QuotaBucket.P, CapacityType.SPOT, 336)
          .quota(QuotaBucket.P, CapacityType.ON_DEMAND, 384)
          .quota(QuotaBucket.G_VT, CapacityType.ON_DEMAND, 64)
          .usage(QuotaBucket.G_VT, CapacityType.ON_DEMAND, 48)
          .spotScore(6);
    }
    return this;
  }

  private static String price(double v) {
    return new BigDecimal(v).setScale(4, java.math.RoundingMode.HALF_UP).toPlainString();
  }
}
