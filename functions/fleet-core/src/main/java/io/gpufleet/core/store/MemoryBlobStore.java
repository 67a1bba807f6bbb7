package io.gpufleet.core.store;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** A blob store in memory (tests, the simulator, benchmarks). */
public final class MemoryBlobStore implements BlobStore {
  private final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
  private final Map<String, String> types = new ConcurrentHashMap<>();

  @Override
  public Optional<byte[]> get(String key) {
    return Optional.ofNullable(blobs.get(key)).map(byte[]::clone);
  }

  /** Keeps {@code body} itself (no copy): callers hand over the array. */
  @Override
  public void put(String key, byte[] body, String contentType) {
    blobs.put(key, body);
    types.put(key, contentType);
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
