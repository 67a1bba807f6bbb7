package io.gpufleet.preflight.aws;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.time.Sleeper;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * AWS clients per region (the EC2 Query client, the JSON clients of Service Quotas and CloudWatch),
 * built once on first use and kept (one preflight talks to many regions). No SDK service client:
 * see {@link Ec2Query} and {@link AwsJson}. The endpoint override, when set, serves every region
 * (emulators, the simulated account).
 */
public final class RegionalClients implements AutoCloseable {
  private final AwsCredentialsProvider credentials;
  private final Optional<URI> endpoint;
  private final Map<String, AwsClients> factories = new ConcurrentHashMap<>();
  private final Map<String, Ec2Query> ec2 = new ConcurrentHashMap<>();
  private final Map<String, AwsJson> quotas = new ConcurrentHashMap<>();
  private final Map<String, AwsJson> cloudWatch = new ConcurrentHashMap<>();
  private final AwsRetry retry;

  public RegionalClients(AwsCredentialsProvider credentials, Optional<URI> endpoint) {
    this(credentials, endpoint, Sleeper.SYSTEM);
  }

  /** {@code retrySleeper}: how every client waits between retries (virtual in tests). */
  public RegionalClients(
      AwsCredentialsProvider credentials, Optional<URI> endpoint, Sleeper retrySleeper) {
    this.credentials = credentials;
    this.endpoint = endpoint;
    this.retry = AwsRetry.standard().withSleeper(retrySleeper);
  }

  public AwsClients clients(String region) {
    return factories.computeIfAbsent(
        region, r -> new AwsClients(Region.of(r), credentials, endpoint));
  }

  /** EC2 of {@code region} through the Query client (no EC2 SDK: see {@link Ec2Query}). */
  public Ec2Query ec2(String region) {
    return ec2.computeIfAbsent(region, r -> Ec2Query.from(clients(r)).withRetry(retry));
  }

  /** Service Quotas of {@code region} (JSON 1.1). */
  public AwsJson serviceQuotas(String region) {
    return quotas.computeIfAbsent(region, r -> json(r, AwsJson.SERVICE_QUOTAS));
  }

  /** CloudWatch of {@code region} (JSON 1.0). */
  public AwsJson cloudWatch(String region) {
    return cloudWatch.computeIfAbsent(region, r -> json(r, AwsJson.CLOUDWATCH));
  }

  private AwsJson json(String region, AwsJson.Service service) {
    return AwsJson.from(clients(region), service).withRetry(retry);
  }

  /** Nothing to release (the protocol clients hold no resources); callers may still scope them. */
  @Override
  public void close() {}
}
