package io.gpufleet.core.aws;

import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import javax.xml.stream.XMLStreamException;
import software.amazon.awssdk.regions.Region;

/**
 * A small client for the AWS query protocol (SNS, and the other services botocore marks {@code
 * query}): a SigV4-signed, form-encoded {@code POST /} of {@code Action=<Operation>&Version=<API
 * version>&...} answered with XML ({@code <OperationResponse><OperationResult>...}). It replaces
 * the SDK's service client for the one or two operations a function calls; signing, credentials and
 * HTTP stay the SDK's ({@link SignedHttp}).
 *
 * <p>It differs from EC2's dialect ({@link Ec2Query}) in two places: a list goes on the wire as
 * {@code Name.member.1}, and an error is {@code <ErrorResponse><Error><Code>...</Code>
 * <Message>...</Message></Error><RequestId>...}. Errors are an {@link AwsCallException} with the
 * service's code; throttling and server errors are retried by the {@link AwsRetry}. Tests hold
 * every request to botocore's model of its service through the {@link AwsQueryInspector}s on the
 * class path.
 */
public final class AwsQuery {
  /** What a query-protocol service is called on the wire (botocore's service metadata). */
  public record Service(
      String serviceId, String endpointPrefix, String signingName, String apiVersion)
      implements ServiceWire.Named {}

  public static final Service SNS = new Service("SNS", "sns", "sns", "2010-03-31");

  /** Error codes meaning "slow down" or "try again" (with HTTP 5xx and no answer, retried). */
  static final Set<String> RETRYABLE =
      Set.of(
          "Throttling",
          "ThrottlingException",
          "Throttled",
          "RequestThrottled",
          "KMSThrottling",
          "InternalError",
          "InternalFailure",
          "ServiceUnavailable");

  /** The parameters of one request: {@code Action}, {@code Version}, then the members. */
  public static final class Params extends QueryForm<Params> {
    private final Service service;

    private Params(Service service, String action) {
      super(action, service.apiVersion());
      this.service = service;
    }

    public static Params of(Service service, String action) {
      return new Params(service, action);
    }

    @Override
    protected Params self() {
      return this;
    }

    public Service service() {
      return service;
    }

    /** A list member: {@code Name.member.1}, {@code Name.member.2}, ... (nothing when empty). */
    public Params list(String name, Collection<String> items) {
      return numbered(name + ".member", items);
    }
  }

  private final Service service;
  private final ServiceWire wire;

  /** {@code service} over {@code wire} (its signing name is the service's). */
  public AwsQuery(Service service, ServiceWire wire) {
    this.service = service;
    this.wire = wire;
  }

  /** {@code service} for the clients {@code aws}: see {@link ServiceWire#from}. */
  public static AwsQuery from(AwsClients aws, Service service) {
    return new AwsQuery(service, ServiceWire.from(aws, service));
  }

  public Service service() {
    return service;
  }

  public URI endpoint() {
    return wire.endpoint();
  }

  public Region region() {
    return wire.region();
  }

  /** A request of this client's service. */
  public Params params(String action) {
    return Params.of(service, action);
  }

  /**
   * One request (retried as the policy allows); the answer's root element ({@code
   * <ActionResponse>}, its result under {@code ActionResult}).
   */
  public Ec2Xml call(Params params) {
    if (!params.service().equals(service)) {
      throw new IllegalArgumentException(
          params.action() + " of " + params.service().serviceId() + " sent to " + service);
    }
    String form = params.form();
    return wire.retry()
        .run(
            () -> {
              // every attempt is a request on the wire: each is shown to the inspectors
              Inspectors.inspect(service, params.asMap());
              return post(params.action(), form);
            });
  }

  private Ec2Xml post(String action, String form) {
    SignedHttp.Answer answer;
    try {
      answer = wire.http().postForm(wire.endpoint(), form);
    } catch (UncheckedIOException e) {
      throw error(action, 0, "TransportError", e.getCause().toString(), null, e);
    }
    String headerId = answer.header("x-amzn-RequestId").orElse(null);
    if (!answer.ok()) {
      var e = Ec2Xml.Error.of(answer.status(), answer.body(), "Error", "RequestId");
      throw error(
          action,
          answer.status(),
          e.code(),
          e.message(),
          e.requestId() == null ? headerId : e.requestId(),
          null);
    }
    try {
      return Ec2Xml.read(answer.body());
    } catch (XMLStreamException | RuntimeException e) {
      throw error(action, answer.status(), "MalformedAnswer", e.getMessage(), headerId, e);
    }
  }

  private AwsCallException error(
      String action, int status, String code, String message, String requestId, Throwable cause) {
    return new AwsCallException(
        service.serviceId(),
        action,
        status,
        code,
        message,
        requestId,
        AwsCallException.retryable(status, code, RETRYABLE),
        cause);
  }

  /** The inspectors on the class path, found once per JVM. */
  private static final class Inspectors {
    static final List<AwsQueryInspector> ALL =
        ServiceLoader.load(AwsQueryInspector.class, AwsQuery.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList();

    static void inspect(Service service, Map<String, String> params) {
      for (var inspector : ALL) {
        inspector.inspect(service, params);
      }
    }
  }
}
