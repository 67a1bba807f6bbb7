package io.gpufleet.drain.aws;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.drain.CapacityReservationPort;
import io.gpufleet.drain.InstanceLookupPort;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * EC2 DescribeInstances filtered by {@code capacity-reservation-id}, or for one instance id (its
 * private DNS name and cluster tags, to find its node without listing every node), as one
 * SigV4-signed EC2 Query request per page, parsed with the JDK's StAX reader. The drain makes this
 * single EC2 call; the EC2 SDK (about 24 MB) would triple the deployment jar for it, so the request
 * is built here from the SDK's own signer and HTTP client, and its wire shape is checked against
 * botocore's EC2 model in the tests. Read-only; IAM: {@code ec2:DescribeInstances} (no
 * resource-level scoping exists for it).
 */
public final class Ec2InstancesAdapter implements CapacityReservationPort, InstanceLookupPort {
  static final String VERSION = "2016-11-15";
  static final List<String> LIVE_STATES =
      List.of("pending", "running", "stopping", "shutting-down");
  static final int PAGE_SIZE = 1000;
  static final int MAX_PAGES = 50;

  private final URI endpoint;
  private final Region region;
  private final AwsCredentialsProvider credentials;
  private final SdkHttpClient http;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

  public Ec2InstancesAdapter(
      URI endpoint, Region region, AwsCredentialsProvider credentials, SdkHttpClient http) {
    this.endpoint = endpoint;
    this.region = region;
    this.credentials = credentials;
    this.http = http;
  }

  /**
   * The region and credentials of {@code aws}; the endpoint from {@code AWS_ENDPOINT_URL_EC2} or
   * {@code AWS_ENDPOINT_URL} (as the SDK honours them), else EC2's regional endpoint.
   */
  public static Ec2InstancesAdapter from(AwsClients aws) {
    return new Ec2InstancesAdapter(
        endpointFor(aws.region(), System.getenv()),
        aws.region(),
        aws.credentials(),
        UrlConnectionHttpClient.builder()
            .connectionTimeout(Duration.ofSeconds(3))
            .socketTimeout(Duration.ofSeconds(10))
            .build());
  }

  static URI endpointFor(Region region, Map<String, String> env) {
    for (String key : List.of("AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL")) {
      String v = env.get(key);
      if (v != null && !v.isBlank()) {
        return URI.create(v.trim());
      }
    }
    return URI.create(
        "https://ec2."
            + region.id()
            + ".amazonaws.com"
            + (region.id().startsWith("cn-") ? ".cn" : "")
            + "/");
  }

  @Override
  public List<String> runningInstances(String capacityReservationId) {
    if (capacityReservationId == null || !capacityReservationId.matches("cr-[0-9a-f]{8,17}")) {
      throw new IllegalArgumentException(
          "not a capacity reservation id: "
              + (capacityReservationId == null
                  ? "null"
                  : capacityReservationId.substring(
                      0, Math.min(40, capacityReservationId.length()))));
    }
    var ids = new ArrayList<String>();
    String token = null;
    for (int page = 1; page <= MAX_PAGES; page++) {
      Page p = describe(capacityReservationId, token);
      ids.addAll(p.instanceIds());
      token = p.nextToken();
      if (token == null || token.isEmpty()) {
        return ids;
      }
    }
    throw new ReservationLookupException(
        "DescribeInstances for " + capacityReservationId + " paged more than " + MAX_PAGES, null);
  }

  record Page(List<String> instanceIds, String nextToken) {}

  /** The form body of one page (exposed for the wire-shape test). */
  static String body(String capacityReservationId, String nextToken) {
    var form = new LinkedHashMap<String, String>();
    form.put("Action", "DescribeInstances");
    form.put("Version", VERSION);
    form.put("Filter.1.Name", "capacity-reservation-id");
    form.put("Filter.1.Value.1", capacityReservationId);
    form.put("Filter.2.Name", "instance-state-name");
    for (int i = 0; i < LIVE_STATES.size(); i++) {
      form.put("Filter.2.Value." + (i + 1), LIVE_STATES.get(i));
    }
    form.put("MaxResults", String.valueOf(PAGE_SIZE));
    if (nextToken != null) {
      form.put("NextToken", nextToken);
    }
    var out = new StringBuilder();
    form.forEach(
        (k, v) ->
            out.append(out.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return out.toString();
  }

  @Override
  public Optional<Instance> describe(String instanceId) {
    if (instanceId == null || !instanceId.matches("i-[0-9a-f]{8,17}")) {
      return Optional.empty();
    }
    return parseInstance(post(instanceBody(instanceId), instanceId), instanceId);
  }

  /** The form body asking for one instance (exposed for the wire-shape test). */
  static String instanceBody(String instanceId) {
    return "Action=DescribeInstances&Version="
        + VERSION
        + "&InstanceId.1="
        + URLEncoder.encode(instanceId, StandardCharsets.UTF_8);
  }

  /** The instance's privateDnsName and tags (key → value) from a DescribeInstances answer. */
  static Optional<Instance> parseInstance(byte[] xml, String instanceId) {
    String base = "DescribeInstancesResponse/reservationSet/item/instancesSet/item";
    Deque<String> path = new ArrayDeque<>();
    String id = null;
    String dns = null;
    var tags = new LinkedHashMap<String, String>();
    String key = null;
    String value = null;
    try {
      XMLStreamReader r = factory().createXMLStreamReader(new ByteArrayInputStream(xml));
      while (r.hasNext()) {
        switch (r.next()) {
          case XMLStreamReader.START_ELEMENT -> {
            path.addLast(r.getLocalName());
            String where = String.join("/", path);
            String text = null;
            if (where.equals(base + "/instanceId")
                || where.equals(base + "/privateDnsName")
                || where.equals(base + "/tagSet/item/key")
                || where.equals(base + "/tagSet/item/value")) {
              text = r.getElementText().trim();
              path.removeLast();
            }
            if (where.equals(base + "/instanceId")) {
              id = text;
            } else if (where.equals(base + "/privateDnsName")) {
              dns = text;
            } else if (where.equals(base + "/tagSet/item/key")) {
              key = text;
            } else if (where.equals(base + "/tagSet/item/value")) {
              value = text;
            }
          }
          case XMLStreamReader.END_ELEMENT -> {
            if (String.join("/", path).equals(base + "/tagSet/item") && key != null) {
              tags.put(key, value == null ? "" : value);
              key = null;
              value = null;
            }
            path.removeLast();
          }
          default -> {}
        }
      }
    } catch (XMLStreamException e) {
      throw new ReservationLookupException("EC2 DescribeInstances answer is not XML: " + e, e);
    }
    if (id == null || !id.equals(instanceId)) {
      return Optional.empty();
    }
    return Optional.of(new Instance(dns == null ? "" : dns, Instance.clustersOf(tags)));
  }

  private Page describe(String capacityReservationId, String nextToken) {
    return parse(post(body(capacityReservationId, nextToken), capacityReservationId));
  }

  private byte[] post(String form, String subject) {
    String capacityReservationId = subject;
    byte[] body = form.getBytes(StandardCharsets.UTF_8);
    SdkHttpRequest request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.POST)
            .uri(endpoint)
            .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
            .putHeader("Content-Length", String.valueOf(body.length))
            .build();
    ContentStreamProvider payload = ContentStreamProvider.fromByteArray(body);
    var signed =
        signer.sign(
            r ->
                r.identity(credentials.resolveCredentials())
                    .request(request)
                    .payload(payload)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region.id())
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "ec2"));
    int status;
    byte[] answer;
    try {
      var response =
          http.prepareRequest(
                  HttpExecuteRequest.builder()
                      .request(signed.request())
                      .contentStreamProvider(signed.payload().orElse(payload))
                      .build())
              .call();
      status = response.httpResponse().statusCode();
      Optional<? extends InputStream> stream = response.responseBody();
      try (InputStream in = stream.isPresent() ? stream.get() : InputStream.nullInputStream()) {
        answer = in.readAllBytes();
      }
    } catch (IOException | UncheckedIOException e) {
      throw new ReservationLookupException(
          "EC2 DescribeInstances for " + capacityReservationId + " failed: " + e, e);
    }
    if (status != 200) {
      throw new ReservationLookupException(
          "EC2 DescribeInstances for "
              + capacityReservationId
              + " answered HTTP "
              + status
              + ": "
              + errorOf(answer),
          null);
    }
    return answer;
  }

  /** Instance ids (reservationSet/item/instancesSet/item/instanceId) and the page's nextToken. */
  static Page parse(byte[] xml) {
    var ids = new ArrayList<String>();
    String next = null;
    Deque<String> path = new ArrayDeque<>();
    try {
      XMLStreamReader r = factory().createXMLStreamReader(new ByteArrayInputStream(xml));
      while (r.hasNext()) {
        switch (r.next()) {
          case XMLStreamReader.START_ELEMENT -> {
            String name = r.getLocalName();
            path.addLast(name);
            String where = String.join("/", path);
            if (where.equals(
                "DescribeInstancesResponse/reservationSet/item/instancesSet/item/instanceId")) {
              ids.add(r.getElementText().trim());
              path.removeLast();
            } else if (where.equals("DescribeInstancesResponse/nextToken")) {
              next = r.getElementText().trim();
              path.removeLast();
            }
          }
          case XMLStreamReader.END_ELEMENT -> path.removeLast();
          default -> {}
        }
      }
    } catch (XMLStreamException e) {
      throw new ReservationLookupException("EC2 DescribeInstances answer is not XML: " + e, e);
    }
    return new Page(ids, next == null || next.isEmpty() ? null : next);
  }

  private static String errorOf(byte[] xml) {
    String text = new String(xml, StandardCharsets.UTF_8);
    int code = text.indexOf("<Code>");
    int end = text.indexOf("</Code>");
    return code >= 0 && end > code
        ? text.substring(code + 6, end)
        : text.substring(0, Math.min(200, text.length()));
  }

  private static XMLInputFactory factory() {
    XMLInputFactory f = XMLInputFactory.newFactory();
    f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    return f;
  }
}
