package io.gpufleet.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/** A blob store in a local directory: key {@code a/b/c.json} is the file {@code DIR/a/b/c.json}. */
public final class DirectoryBlobStore implements BlobStorePort {
  private final Path root;

  public DirectoryBlobStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  @Override
  public Optional<byte[]> get(String key) {
    try {
      return Optional.of(Files.readAllBytes(file(key)));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file(key), e);
    }
  }

  @Override
  public synchronized void put(String key, byte[] body, String contentType) {
    Path target = file(key);
    try {
      Files.createDirectories(target.getParent());
      Path tmp = Files.createTempFile(target.getParent(), ".part-", ".tmp");
      Files.write(tmp, body);
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + target, e);
    }
  }

  /** Content hash as the version tag; conditional writes are atomic within this process only. */
  @Override
  public synchronized Versioned getVersioned(String key) {
    return get(key)
        .map(body -> new Versioned(Optional.of(body), MemoryBlobStore.tag(body)))
        .orElse(Versioned.absent());
  }

  @Override
  public synchronized boolean putIfUnchanged(
      String key, byte[] body, String contentType, String etag) {
    var current = get(key);
    if (etag == null
        ? current.isPresent()
        : current.isEmpty() || !etag.equals(MemoryBlobStore.tag(current.get()))) {
      return false;
    }
    put(key, body, contentType);
    return true;
  }

  @Override
  public String locate(String key) {
    return file(key).toString();
  }

  private Path file(String key) {
    Path p = root.resolve(key).normalize();
    if (!p.startsWith(root) || key.isBlank()) {
      throw new IllegalArgumentException("blob key '" + key + "' leaves " + root);
    }
    return p;
  }
}
