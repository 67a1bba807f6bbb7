package io.gpufleet.schedule.aws;

import io.gpufleet.schedule.PolicySource;
import software.amazon.awssdk.services.s3.S3Client;

/** The policy in an S3 object. */
public final class S3PolicySource implements PolicySource {
  private final S3Client s3;
  private final String bucket;
  private final String key;

  public S3PolicySource(S3Client s3, String bucket, String key) {
    this.s3 = s3;
    this.bucket = bucket;
    this.key = key;
  }

  @Override
  public String load() {
    return s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asUtf8String();
  }

  @Override
  public String name() {
    return "s3://" + bucket + "/" + key;
  }
}
