package io.gpufleet.core.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 REST client against moto: real S3 answers and error documents, conditional writes, and
 * keys that need encoding checked with the SDK's own S3 client (so both agree on every key's name).
 * Every request is held to the S3 model by the testkit's inspector.
 */
class S3RestMotoTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = AwsEmulatorExtension.forServices("s3");

  static final String BUCKET = "s3rest-" + UUID.randomUUID().toString().substring(0, 8);
  static S3Client sdk;
  static S3Rest s3;

  @BeforeAll
  static void bucket() {
    sdk = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true));
    sdk.createBucket(r -> r.bucket(BUCKET));
    s3 = S3Rest.from(AWS.emulator().clients());
  }

  @AfterAll
  static void close() {
    sdk.close();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldPutGetAndDeleteAnObjectWithItsContentTypeAndETag() {
    String etag = s3.put(BUCKET, "reports/r.json", utf8("{\"a\":1}"), "application/json");

    var blob = s3.get(BUCKET, "reports/r.json").orElseThrow();
    assertThat(blob.text()).isEqualTo("{\"a\":1}");
    assertThat(blob.etag()).isEqualTo(etag).startsWith("\"");
    assertThat(blob.contentType()).isEqualTo("application/json");
    assertThat(sdk.headObject(r -> r.bucket(BUCKET).key("reports/r.json")).contentType())
        .isEqualTo("application/json");

    s3.delete(BUCKET, "reports/r.json");
    assertThat(s3.get(BUCKET, "reports/r.json")).isEmpty();
    s3.delete(BUCKET, "reports/r.json"); // S3 answers 204 for a key that is not there
  }

  @Test
  void shouldStoreEachKeyUnderTheNameTheSdkReadsItBy() {
    for (String key :
        new String[] {
          "plans/a b.yaml", "plans/ü/ß+€.yaml", "plans/%41~*'()!$&,;=@:.yaml", "plans//double"
        }) {
      s3.put(BUCKET, key, utf8(key), "text/plain");

      assertThat(sdk.getObjectAsBytes(r -> r.bucket(BUCKET).key(key)).asUtf8String())
          .as(key)
          .isEqualTo(key);
      assertThat(s3.get(BUCKET, key).orElseThrow().text()).as(key).isEqualTo(key);
    }
  }

  @Test
  void shouldRefuseAConditionalWriteThatNoLongerHolds() {
    String key = "cas/" + UUID.randomUUID();
    s3.put(BUCKET, key, utf8("1"), "text/plain", S3Rest.Condition.ifAbsent());

    assertThatThrownBy(
            () -> s3.put(BUCKET, key, utf8("2"), "text/plain", S3Rest.Condition.ifAbsent()))
        .isInstanceOfSatisfying(
            S3RestException.class,
            e -> {
              assertThat(e.status()).isEqualTo(412);
              assertThat(e.code()).isEqualTo("PreconditionFailed");
              assertThat(e.conditionRefused()).isTrue();
            });
    String first = s3.get(BUCKET, key).orElseThrow().etag();
    String second = s3.put(BUCKET, key, utf8("3"), "text/plain", S3Rest.Condition.ifMatch(first));
    assertThat(second).isNotEqualTo(first);
    assertThatThrownBy(
            () -> s3.put(BUCKET, key, utf8("4"), "text/plain", S3Rest.Condition.ifMatch(first)))
        .isInstanceOfSatisfying(
            S3RestException.class, e -> assertThat(e.conditionRefused()).isTrue());
    assertThat(s3.get(BUCKET, key).orElseThrow().text()).isEqualTo("3");
  }

  @Test
  void shouldTellAMissingBucketFromAMissingKey() {
    assertThat(s3.get(BUCKET, "none/here")).isEmpty();
    assertThatThrownBy(() -> s3.get(BUCKET + "-gone", "k"))
        .isInstanceOfSatisfying(
            S3RestException.class,
            e -> {
              assertThat(e.noSuchBucket()).isTrue();
              assertThat(e.awsMessage()).isNotBlank();
            });
  }
}
