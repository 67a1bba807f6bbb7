package io.gpufleet.schedule.aws;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.schedule.PolicySourcePort;

/** The policy in an S3 object. */
public final class S3PolicyAdapter implements PolicySourcePort {
  private final S3Rest s3;
  private final String bucket;
  private final String key;

  public S3PolicyAdapter(S3Rest s3, String bucket, String key) {
    this.s3 = s3;
    this.bucket = bucket;
    this.key = key;
  }

  @Override
  public String load() {
    return s3.get(bucket, key)
        .map(S3Rest.Blob::text)
        .orElseThrow(() -> new ConfigException("policy " + name() + " does not exist"));
  }

  @Override
  public String name() {
    return "s3://" + bucket + "/" + key;
  }
}
