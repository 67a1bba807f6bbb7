package io.gpufleet.preflight.aws;

import io.gpufleet.core.aws.AwsClients;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.servicequotas.ServiceQuotasClient;

/**
 * SDK clients per region, built once on first use and kept (one preflight talks to many regions).
 * The endpoint override, when set, serves every region (emulators, the simulated account).
 */
public final class RegionalClients implements AutoCloseable {
  private final AwsCredentialsProvider credentials;
  private final Optional<URI> endpoint;
  private final Map<String, AwsClients> factories = new ConcurrentHashMap<>();
  private final Map<String, Ec2Client> ec2 = new ConcurrentHashMap<>();
  private final Map<String, ServiceQuotasClient> quotas = new ConcurrentHashMap<>();
  private final Map<String, CloudWatchClient> cloudWatch = new ConcurrentHashMap<>();

  public RegionalClients(AwsCredentialsProvider credentials, Optional<URI> endpoint) {
    this.credentials = credentials;
    this.endpoint = endpoint;
  }

  public AwsClients clients(String region) {
    return factories.computeIfAbsent(
        region, r -> new AwsClients(Region.of(r), credentials, endpoint));
  }

  public Ec2Client ec2(String region) {
    return ec2.computeIfAbsent(region, r -> clients(r).build(Ec2Client.builder()));
  }

  public ServiceQuotasClient serviceQuotas(String region) {
    return quotas.computeIfAbsent(region, r -> clients(r).build(ServiceQuotasClient.builder()));
  }

  public CloudWatchClient cloudWatch(String region) {
    return cloudWatch.computeIfAbsent(region, r -> clients(r).build(CloudWatchClient.builder()));
  }

  @Override
  public void close() {
    ec2.values().forEach(Ec2Client::close);
    quotas.values().forEach(ServiceQuotasClient::close);
    cloudWatch.values().forEach(CloudWatchClient::close);
  }
}
