package io.gpufleet.core.aws;

import io.gpufleet.core.lambda.SnapStart;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * A credentials provider every SDK client of a function shares, whose cache a SnapStart restore
 * drops: {@link #renew()} replaces the underlying provider (the SDK's default chain, which caches
 * what it resolved, container credentials included) with a fresh one, so the first call after a
 * restore asks the container endpoint again instead of signing with credentials from INIT.
 */
public final class RenewableCredentialsProvider
    implements AwsCredentialsProvider, SnapStart.Renewable, SdkAutoCloseable {
  private final Supplier<AwsCredentialsProvider> factory;
  private volatile AwsCredentialsProvider current;

  public RenewableCredentialsProvider(Supplier<AwsCredentialsProvider> factory) {
    this.factory = factory;
    this.current = factory.get();
    SnapStart.register(this);
  }

  @Override
  public AwsCredentials resolveCredentials() {
    return current.resolveCredentials();
  }

  @Override
  public void renew() {
    AwsCredentialsProvider old = current;
    current = factory.get();
    if (old instanceof SdkAutoCloseable closeable) {
      closeable.close();
    }
  }

  @Override
  public void close() {
    if (current instanceof SdkAutoCloseable closeable) {
      closeable.close();
    }
  }

  @Override
  public String toString() {
    return "RenewableCredentialsProvider(" + current + ")";
  }
}
