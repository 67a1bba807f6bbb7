package io.gpufleet.core.pricing;

import com.fasterxml.jackson.core.type.TypeReference;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.store.BlobStorePort;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prices kept as one JSON object in a blob store (S3). A cache that cannot be read or written is
 * logged and treated as empty: pricing must not fail because of it.
 */
public final class BlobPriceCache implements PriceCache {
  private static final Logger LOG = LoggerFactory.getLogger(BlobPriceCache.class);
  private static final TypeReference<List<Entry>> ENTRIES = new TypeReference<>() {};
  private final BlobStorePort store;
  private final String key;

  public BlobPriceCache(BlobStorePort store, String key) {
    this.store = store;
    this.key = key;
  }

  @Override
  public List<Entry> load() {
    try {
      var bytes = store.get(key);
      return bytes.isEmpty() ? List.of() : Json.MAPPER.readValue(bytes.get(), ENTRIES);
    } catch (IOException | RuntimeException e) {
      LOG.warn("price cache {} unreadable, starting empty: {}", store.locate(key), e.toString());
      return List.of();
    }
  }

  @Override
  public void save(List<Entry> entries) {
    try {
      store.put(key, Json.MAPPER.writeValueAsBytes(entries), "application/json");
    } catch (IOException | RuntimeException e) {
      LOG.warn("price cache {} not written: {}", store.locate(key), e.toString());
    }
  }
}
