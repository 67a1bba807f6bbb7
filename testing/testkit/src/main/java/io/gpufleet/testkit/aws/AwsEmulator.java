package io.gpufleet.testkit.aws;

import io.gpufleet.core.aws.AwsClients;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * A running AWS emulator (moto server or LocalStack): where to send requests and with which region
 * and credentials. Closing it stops the emulator; closing twice is harmless.
 */
public final class AwsEmulator implements AutoCloseable {
  /** Which emulator is behind the endpoint. */
  public enum Kind {
    MOTO,
    LOCALSTACK
  }

  private final Kind kind;
  private final URI endpoint;
  private final Region region;
  private final StaticCredentialsProvider credentials;
  private final Runnable stop;
  private final AtomicBoolean closed = new AtomicBoolean();

  AwsEmulator(
      Kind kind, URI endpoint, Region region, String accessKey, String secretKey, Runnable stop) {
    this.kind = kind;
    this.endpoint = endpoint;
    this.region = region;
    this.credentials =
        StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey));
    this.stop = stop;
  }

  public Kind kind() {
    return kind;
  }

  public URI endpoint() {
    return endpoint;
  }

  public Region region() {
    return region;
  }

  public StaticCredentialsProvider credentials() {
    return credentials;
  }

  /** The project's client factory pointed at this emulator. */
  public AwsClients clients() {
    return new AwsClients(region, credentials, Optional.of(endpoint));
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      stop.run();
    }
  }

  @Override
  public String toString() {
    return kind + " at " + endpoint + " (" + region + ")";
  }
}
