package io.gpufleet.preflight.aws;

import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsRetry;
import io.gpufleet.core.aws.Ec2Query;
import io.gpufleet.core.time.Sleeper;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.servicequotas.ServiceQuotasClient;

/**
 * AWS clients per region (SDK clients, and the EC2 Query client), built once on first use and kept
 * (one preflight talks to many regions). The endpoint override, when set, serves every region
 * (emulators, the simulated account).
 */
public final class RegionalClients implements AutoCloseable {
  private final AwsCredentialsProvider credentials;
  private final Optional<URI> endpoint;
  private final Map<String, AwsClients> factories = new ConcurrentHashMap<>();
  private final Map<String, Ec2Query> ec2 = new ConcurrentHashMap<>();
  private final Map<String, ServiceQuotasClient> quotas = new ConcurrentHashMap<>();
  private final Map<String, CloudWatchClient> cloudWatch = new ConcurrentHashMap<>();

  private final Sleeper ec2RetrySleeper;

  public RegionalClients(AwsCredentialsProvider credentials, Optional<URI> endpoint) {
    this(credentials, endpoint, Sleeper.SYSTEM);
  }

  /** {@code ec2RetrySleeper}: how the EC2 client waits between retries (virtual in tests). */
  public RegionalClients(
      AwsCredentialsProvider credentials, Optional<URI> endpoint, Sleeper ec2RetrySleeper) {
    this.credentials = credentials;
    this.endpoint = endpoint;
    this.ec2RetrySleeper = ec2RetrySleeper;
  }

  public AwsClients clients(String region) {
    return factories.computeIfAbsent(
        region, r -> new AwsClients(Region.of(r), credentials, endpoint));
  }

  /** EC2 of {@code region} through the Query client (no EC2 SDK: see {@link Ec2Query}). */
  public Ec2Query ec2(String region) {
    return ec2.computeIfAbsent(
        region,
        r -> Ec2Query.from(clients(r)).withRetry(AwsRetry.standard().withSleeper(ec2RetrySleeper)));
  }

  public ServiceQuotasClient serviceQuotas(String region) {
    return quotas.computeIfAbsent(region, r -> clients(r).build(ServiceQuotasClient.builder()));
  }

  public CloudWatchClient cloudWatch(String region) {
    return cloudWatch.computeIfAbsent(region, r -> clients(r).build(CloudWatchClient.builder()));
  }

  @Override
  public void close() {
    quotas.values().forEach(ServiceQuotasClient::close);
    cloudWatch.values().forEach(CloudWatchClient::close);
  }
}
