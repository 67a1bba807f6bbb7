package io.gpufleet.core.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.time.VirtualTime;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

class EksTokenProviderTest {
  private static final Instant NOW = Instant.parse("2024-03-01T10:15:30Z");
  private static final StaticCredentialsProvider CREDENTIALS =
      StaticCredentialsProvider.create(
          AwsBasicCredentials.create("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
  private static final DateTimeFormatter AMZ_DATE =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private static EksTokenProvider provider(String cluster, Clock clock) {
    return new EksTokenProvider(cluster, Region.US_WEST_2, CREDENTIALS, clock);
  }

  /** The presigned URL inside a token. */
  private static URI presignedUrl(String token) {
    String encoded = token.substring("k8s-aws-v1.".length());
    return URI.create(new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8));
  }

  private static Map<String, String> query(URI url) {
    var params = new LinkedHashMap<String, String>();
    for (String pair : url.getRawQuery().split("&")) {
      int eq = pair.indexOf('=');
      params.put(
          URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
          URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return params;
  }

  private static Instant signedAt(String token) {
    return ZonedDateTime.parse(query(presignedUrl(token)).get("X-Amz-Date"), AMZ_DATE).toInstant();
  }

  @Nested
  class TokenShape {
    private final String token = provider("prod-gpu", Clock.fixed(NOW, ZoneOffset.UTC)).get();

    @Test
    void shouldBeThePrefixFollowedByUnpaddedBase64Url() {
      assertThat(token).startsWith("k8s-aws-v1.");
      assertThat(token.substring("k8s-aws-v1.".length()))
          .matches("[A-Za-z0-9_-]+")
          .doesNotContain("=");
    }

    @Test
    void shouldPresignAGetCallerIdentityCallToTheRegionalStsEndpoint() {
      var url = presignedUrl(token);

      assertThat(url.getScheme()).isEqualTo("https");
      assertThat(url.getHost()).isEqualTo("sts.us-west-2.amazonaws.com");
      assertThat(url.getPath()).isEqualTo("/");
      assertThat(query(url))
          .containsEntry("Action", "GetCallerIdentity")
          .containsEntry("Version", "2011-06-15")
          .containsEntry("X-Amz-Algorithm", "AWS4-HMAC-SHA256")
          .containsEntry("X-Amz-Expires", "60");
    }

    @Test
    void shouldSignTheHostAndClusterIdHeaders() {
      var signedHeaders = List.of(query(presignedUrl(token)).get("X-Amz-SignedHeaders").split(";"));

      assertThat(signedHeaders).contains("host", "x-k8s-aws-id");
    }

    @Test
    void shouldBeSignedAtTheClockTimeForUsWest2Sts() {
      var params = query(presignedUrl(token));

      assertThat(params.get("X-Amz-Date")).isEqualTo("20240301T101530Z");
      assertThat(params.get("X-Amz-Credential"))
          .isEqualTo("AKIDEXAMPLE/20240301/us-west-2/sts/aws4_request");
      assertThat(params.get("X-Amz-Signature")).matches("[0-9a-f]{64}");
    }

    @Test
    void shouldNotLeakTheSecretKey() {
      assertThat(presignedUrl(token).toString()).doesNotContain("wJalrXUtnFEMI");
    }

    @Test
    void shouldBeDeterministicForTheSameClusterCredentialsAndTime() {
      var again = provider("prod-gpu", Clock.fixed(NOW, ZoneOffset.UTC)).get();

      assertThat(again).isEqualTo(token);
    }

    @Test
    void shouldBindTheSignatureToTheClusterName() {
      // The cluster name travels only in the signed x-k8s-aws-id header, so only the signature
      // can differ.
      var other = provider("staging-gpu", Clock.fixed(NOW, ZoneOffset.UTC)).get();

      var mine = query(presignedUrl(token));
      var theirs = query(presignedUrl(other));
      assertThat(theirs.get("X-Amz-Signature")).isNotEqualTo(mine.get("X-Amz-Signature"));
      theirs.remove("X-Amz-Signature");
      mine.remove("X-Amz-Signature");
      assertThat(theirs).isEqualTo(mine);
    }
  }

  @Nested
  class Refresh {
    private final VirtualTime time = new VirtualTime(NOW);
    private final Clock clock = time.clock();
    private final EksTokenProvider provider = provider("prod-gpu", clock);

    @Test
    void shouldHandOutTheCachedTokenUntilRefreshAfter() {
      // Given
      var first = provider.get();

      // When
      time.advance(EksTokenProvider.REFRESH_AFTER.minusSeconds(1));
      var beforeRefresh = provider.get();

      // Then
      assertThat(beforeRefresh).isSameAs(first);
    }

    @Test
    void shouldSignANewTokenOnceRefreshAfterHasPassed() {
      // Given
      var first = provider.get();

      // When
      time.advance(EksTokenProvider.REFRESH_AFTER);
      var second = provider.get();

      // Then
      assertThat(second).isNotEqualTo(first);
      assertThat(signedAt(second)).isEqualTo(NOW.plus(EksTokenProvider.REFRESH_AFTER));
    }

    @ParameterizedTest(name = "every {0} s")
    @ValueSource(ints = {1, 29, 61, 170, 599, 601})
    void shouldNeverHandOutATokenOlderThanFourteenMinutes(int stepSeconds) {
      // Given callers asking at a steady pace for two hours
      var handedOut =
          Stream.iterate(0, i -> i + 1)
              .limit(Duration.ofHours(2).toSeconds() / stepSeconds)
              .map(
                  i -> {
                    var token = provider.get();
                    var age = Duration.between(signedAt(token), clock.instant());
                    time.advance(Duration.ofSeconds(stepSeconds));
                    return age;
                  })
              .toList();

      // Then every token handed out was young enough for EKS (valid 15 min, refresh before 14)
      assertThat(handedOut)
          .allSatisfy(
              age ->
                  assertThat(age)
                      .isLessThan(Duration.ofMinutes(14))
                      .isLessThan(EksTokenProvider.REFRESH_AFTER.plusNanos(1)));
    }

    @Test
    void shouldSignANewTokenWhenTheClockStepsBackwards() {
      // Given
      var first = provider.get();

      // When the clock is corrected backwards by a minute
      time.set(NOW.minus(Duration.ofMinutes(1)));
      var second = provider.get();

      // Then the token is not dated in the future
      assertThat(second).isNotEqualTo(first);
      assertThat(signedAt(second)).isEqualTo(NOW.minus(Duration.ofMinutes(1)));
    }
  }
}
