package io.gpufleet.core.aws;

import io.gpufleet.core.store.BlobStorePort;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Blobs in one S3 bucket under an optional prefix. Objects get the bucket's default encryption (the
 * template's report bucket enforces SSE), so no key material is named here.
 */
public final class S3BlobStoreAdapter implements BlobStorePort {
  private final S3Client s3;
  private final String bucket;
  private final String prefix;

  public S3BlobStoreAdapter(S3Client s3, String bucket, String prefix) {
    this.s3 = s3;
    this.bucket = bucket;
    this.prefix = prefix == null || prefix.isBlank() ? "" : prefix.replaceAll("/*$", "/");
  }

  @Override
  public Optional<byte[]> get(String key) {
    try {
      return Optional.of(
          s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key)).asByteArray());
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    }
  }

  @Override
  public void put(String key, byte[] body, String contentType) {
    s3.putObject(
        r -> r.bucket(bucket).key(prefix + key).contentType(contentType),
        RequestBody.fromBytes(body));
  }

  @Override
  public Versioned getVersioned(String key) {
    try {
      var response = s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key));
      return new Versioned(Optional.of(response.asByteArray()), response.response().eTag());
    } catch (NoSuchKeyException e) {
      return Versioned.absent();
    }
  }

  @Override
  public boolean putIfUnchanged(String key, byte[] body, String contentType, String etag) {
    try {
      s3.putObject(
          r -> {
            r.bucket(bucket).key(prefix + key).contentType(contentType);
            if (etag == null) {
              r.ifNoneMatch("*");
            } else {
              r.ifMatch(etag);
            }
          },
          RequestBody.fromBytes(body));
      return true;
    } catch (S3Exception e) {
      // 412: the ETag moved (or the object appeared); 409: a concurrent conditional write won;
      // 404 NoSuchKey: an If-Match object was deleted meanwhile.
      if (e.statusCode() == 412 || e.statusCode() == 409 || e instanceof NoSuchKeyException) {
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
