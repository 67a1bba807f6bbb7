package io.gpufleet.core.store;

import java.util.Optional;

/**
 * Port: named byte blobs (an S3 bucket in production, a directory or memory locally). Keys use
 * {@code /} as separator.
 */
public interface BlobStore {

  Optional<byte[]> get(String key);

  void put(String key, byte[] body, String contentType);

  /** Where a key ends up, for humans (s3://bucket/key, a file path). */
  String locate(String key);
}
