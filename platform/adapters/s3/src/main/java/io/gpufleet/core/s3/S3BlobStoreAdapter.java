package io.gpufleet.core.s3;

import io.gpufleet.core.store.BlobStorePort;
import java.util.Optional;

/**
 * Blobs in one S3 bucket under an optional prefix. Objects get the bucket's default encryption (the
 * template's report bucket enforces SSE), so no key material is named here.
 */
public final class S3BlobStoreAdapter implements BlobStorePort {
  private final S3Rest s3;
  private final String bucket;
  private final String prefix;

  public S3BlobStoreAdapter(S3Rest s3, String bucket, String prefix) {
    this.s3 = s3;
    this.bucket = bucket;
    this.prefix = prefix == null || prefix.isBlank() ? "" : prefix.replaceAll("/*$", "/");
  }

  @Override
  public Optional<byte[]> get(String key) {
    return s3.get(bucket, prefix + key).map(S3Rest.Blob::body);
  }

  @Override
  public void put(String key, byte[] body, String contentType) {
    s3.put(bucket, prefix + key, body, contentType);
  }

  @Override
  public Versioned getVersioned(String key) {
    return s3.get(bucket, prefix + key)
        .map(b -> new Versioned(Optional.of(b.body()), b.etag()))
        .orElseGet(Versioned::absent);
  }

  @Override
  public boolean putIfUnchanged(String key, byte[] body, String contentType, String etag) {
    try {
      s3.put(
          bucket,
          prefix + key,
          body,
          contentType,
          etag == null ? S3Rest.Condition.ifAbsent() : S3Rest.Condition.ifMatch(etag));
      return true;
    } catch (S3RestException e) {
      // 412: the ETag moved (or the object appeared); 409: a concurrent conditional write won;
      // 404 NoSuchKey: an If-Match object was deleted meanwhile.
      if (e.conditionRefused() || e.noSuchKey()) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public String locate(String key) {
    return "s3://" + bucket + "/" + prefix + key;
  }
}
