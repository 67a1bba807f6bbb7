package io.gpufleet.core.store;

import java.util.Optional;

/**
 * Port: named byte blobs (an S3 bucket in production, a directory or memory locally). Keys use
 * {@code /} as separator.
 */
public interface BlobStorePort {

  Optional<byte[]> get(String key);

  void put(String key, byte[] body, String contentType);

  /** A blob with the version tag a conditional write names (S3: the ETag); absent = no object. */
  record Versioned(Optional<byte[]> body, String etag) {
    public static Versioned absent() {
      return new Versioned(Optional.empty(), null);
    }
  }

  /**
   * The blob and its version tag, for a read-modify-write with {@link #putIfUnchanged}. A store
   * that cannot write conditionally keeps this default and refuses such writes loudly.
   */
  default Versioned getVersioned(String key) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support conditional writes");
  }

  /**
   * Writes only if the blob is still at {@code etag} (S3 {@code If-Match}) or, when {@code etag} is
   * null, still absent ({@code If-None-Match: *}). False when another writer got there first (S3
   * 412 PreconditionFailed, 409 ConditionalRequestConflict, or 404 for an If-Match on an object
   * deleted meanwhile): read again, merge, retry.
   */
  default boolean putIfUnchanged(String key, byte[] body, String contentType, String etag) {
    throw new UnsupportedOperationException(
        getClass().getSimpleName() + " does not support conditional writes");
  }

  /** Where a key ends up, for humans (s3://bucket/key, a file path). */
  String locate(String key);
}
