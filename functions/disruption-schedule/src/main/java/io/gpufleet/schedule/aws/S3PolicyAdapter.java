package io.gpufleet.schedule.aws;

import io.gpufleet.schedule.PolicySourcePort;
import software.amazon.awssdk.services.s3.S3Client;

/** The policy in an S3 object. */
public final class S3PolicyAdapter implements PolicySourcePort {
  private final S3Client s3;
  private final String bucket;
  private final String key;

  public S3PolicyAdapter(S3Client s3, String bucket, String key) {
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
