package io.gpufleet.core.store;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** A blob store in memory (tests, the simulator, benchmarks). */
public final class MemoryBlobStore implements BlobStorePort {
  private final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
  private final Map<String, String> types = new ConcurrentHashMap<>();

  @Override
  public Optional<byte[]> get(String key) {
    return Optional.ofNullable(blobs.get(key)).map(byte[]::clone);
  }

  /** Keeps {@code body} itself (no copy): callers hand over the array. */
  @Override
  public synchronized void put(String key, byte[] body, String contentType) {
    blobs.put(key, body);
    types.put(key, contentType);
  }

  @Override
  public synchronized Versioned getVersioned(String key) {
    byte[] body = blobs.get(key);
    return body == null ? Versioned.absent() : new Versioned(Optional.of(body.clone()), tag(body));
  }

  @Override
  public synchronized boolean putIfUnchanged(
      String key, byte[] body, String contentType, String etag) {
    byte[] current = blobs.get(key);
    if (etag == null ? current != null : current == null || !etag.equals(tag(current))) {
      return false;
    }
    put(key, body, contentType);
    return true;
  }

  /** A content hash, as S3's ETag of a single-part upload is. */
  public static String tag(byte[] body) {
    try {
      return java.util.HexFormat.of()
          .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String locate(String key) {
    return "memory:" + key;
  }

  public Optional<String> contentType(String key) {
    return Optional.ofNullable(types.get(key));
  }

  /** Keys in order. */
  public java.util.Set<String> keys() {
    return new TreeMap<>(blobs).keySet();
  }
}
