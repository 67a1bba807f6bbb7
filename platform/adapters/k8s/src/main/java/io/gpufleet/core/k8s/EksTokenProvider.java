package io.gpufleet.core.k8s;

import io.gpufleet.core.lambda.SnapStart;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.regions.Region;

/**
 * The EKS bearer token: "k8s-aws-v1." + base64url(presigned STS GetCallerIdentity URL), signed with
 * the SDK's SigV4 signer with {@code x-k8s-aws-id} among the signed headers. A token is valid for
 * 15 minutes; this provider hands out a fresh one once the cached one is {@link #REFRESH_AFTER}
 * old, well before EKS would reject it. Nothing is computed at construction (safe for SnapStart).
 */
public final class EksTokenProvider implements Supplier<String>, SnapStart.Renewable {
  public static final Duration REFRESH_AFTER = Duration.ofMinutes(10);
  static final String PREFIX = "k8s-aws-v1.";

  private final String clusterName;
  private final Region region;
  private final AwsCredentialsProvider credentials;
  private final Clock clock;
  private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

  private String token;
  private Instant issuedAt;

  public EksTokenProvider(
      String clusterName, Region region, AwsCredentialsProvider credentials, Clock clock) {
    this.clusterName = clusterName;
    this.region = region;
    this.credentials = credentials;
    this.clock = clock;
    SnapStart.register(this);
  }

  /**
   * Drops the cached token (SnapStart restore): the next request signs a new one with the
   * credentials of the restored environment.
   */
  @Override
  public synchronized void renew() {
    token = null;
    issuedAt = null;
  }

  @Override
  public synchronized String get() {
    Instant now = clock.instant();
    if (token == null || !now.isBefore(issuedAt.plus(REFRESH_AFTER)) || now.isBefore(issuedAt)) {
      token = sign(now);
      issuedAt = now;
    }
    return token;
  }

  private String sign(Instant now) {
    String host =
        "sts." + region.id() + ".amazonaws.com" + (region.id().startsWith("cn-") ? ".cn" : "");
    SdkHttpRequest request =
        SdkHttpRequest.builder()
            .method(SdkHttpMethod.GET)
            .uri(URI.create("https://" + host + "/"))
            .putRawQueryParameter("Action", "GetCallerIdentity")
            .putRawQueryParameter("Version", "2011-06-15")
            .putHeader("x-k8s-aws-id", clusterName)
            .build();
    var signed =
        signer.sign(
            r ->
                r.identity(credentials.resolveCredentials())
                    .request(request)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region.id())
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "sts")
                    .putProperty(
                        AwsV4FamilyHttpSigner.AUTH_LOCATION,
                        AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING)
                    .putProperty(AwsV4FamilyHttpSigner.EXPIRATION_DURATION, Duration.ofSeconds(60))
                    .putProperty(
                        HttpSigner.SIGNING_CLOCK, Clock.fixed(now, java.time.ZoneOffset.UTC)));
    String url = signed.request().getUri().toString();
    return PREFIX
        + Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString(url.getBytes(StandardCharsets.UTF_8));
  }
}
