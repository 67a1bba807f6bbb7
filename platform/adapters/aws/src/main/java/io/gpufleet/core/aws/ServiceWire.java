package io.gpufleet.core.aws;

import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * Where and how one of the protocol clients ({@link AwsJson}, {@link AwsQuery}, {@link
 * AwsRestJson}) reaches its service: the endpoint, the signed transport (region, signing name,
 * credentials, HTTP client) and the retry policy.
 */
public record ServiceWire(URI endpoint, SignedHttp http, AwsRetry retry) {
  /** What a service is called on the wire (botocore's service metadata), whatever its protocol. */
  public interface Named {
    String serviceId();

    String endpointPrefix();

    String signingName();

    /** The service id as {@code AWS_ENDPOINT_URL_<ID>} spells it. */
    default String envId() {
      return SignedHttp.envId(serviceId());
    }
  }

  /** Explicit parts (tests, scripted servers). */
  public static ServiceWire of(
      URI endpoint,
      Region region,
      String signingName,
      AwsCredentialsProvider credentials,
      SdkHttpClient http,
      AwsRetry retry) {
    return new ServiceWire(endpoint, new SignedHttp(region, signingName, credentials, http), retry);
  }

  /**
   * The service in the region of {@code aws}, with its credentials and HTTP client and the standard
   * retry; the endpoint is the override of {@code aws}, else {@code AWS_ENDPOINT_URL_<ID>} or
   * {@code AWS_ENDPOINT_URL}, else the service's endpoint in the region's partition.
   */
  public static ServiceWire from(AwsClients aws, Named service) {
    return of(
        SignedHttp.endpoint(aws, service.endpointPrefix(), service.serviceId()),
        aws.region(),
        service.signingName(),
        aws.credentials(),
        aws.httpClient(),
        AwsRetry.standard());
  }

  public ServiceWire withRetry(AwsRetry other) {
    return new ServiceWire(endpoint, http, other);
  }

  public Region region() {
    return http.region();
  }
}
