package io.gpufleet.cost;

import static io.gpufleet.cost.Fixtures.gpuNode;
import static io.gpufleet.cost.Fixtures.instance;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.pricing.StaticPrices;
import io.gpufleet.core.s3.S3BlobStoreAdapter;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.cost.model.InventorySnapshot;
import io.gpufleet.cost.model.Lifecycle;
import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.sim.Recorders;
import io.gpufleet.testkit.aws.AwsEmulatorExtension;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Two cost runs that read the inventory snapshot before either writes it must both land their rows:
 * the snapshot is written with If-Match on the ETag read (moto 5.2.5 answers a stale one with 412
 * PreconditionFailed, as S3 does), and the loser reads, merges and writes again.
 */
class ConcurrentSnapshotMotoTest {
  @RegisterExtension static final AwsEmulatorExtension AWS = new AwsEmulatorExtension();
  static final Instant T = Instant.parse("2026-11-30T10:40:00Z");
  private static S3Rest s3;

  @BeforeAll
  static void clients() {
    try (var sdk = AWS.emulator().clients().build(S3Client.builder().forcePathStyle(true))) {
      sdk.createBucket(r -> r.bucket("cost-concurrency"));
    }
    s3 = S3Rest.from(AWS.emulator().clients());
  }

  /** The S3 store, holding the first snapshot read of its run until {@code release} opens. */
  static final class HeldStore implements BlobStorePort {
    final BlobStorePort s3;
    final CountDownLatch read = new CountDownLatch(1);
    final CountDownLatch release;
    final AtomicInteger snapshotReads = new AtomicInteger();
    final AtomicInteger refusedWrites = new AtomicInteger();

    HeldStore(BlobStorePort s3, CountDownLatch release) {
      this.s3 = s3;
      this.release = release;
    }

    @Override
    public Versioned getVersioned(String key) {
      var v = s3.getVersioned(key);
      if (key.startsWith("inventory/") && snapshotReads.getAndIncrement() == 0) {
        read.countDown();
        try {
          assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
      return v;
    }

    @Override
    public boolean putIfUnchanged(String key, byte[] body, String type, String etag) {
      boolean written = s3.putIfUnchanged(key, body, type, etag);
      if (!written) {
        refusedWrites.incrementAndGet();
      }
      return written;
    }

    @Override
    public java.util.Optional<byte[]> get(String key) {
      return s3.get(key);
    }

    @Override
    public void put(String key, byte[] body, String contentType) {
      s3.put(key, body, contentType);
    }

    @Override
    public String locate(String key) {
      return s3.locate(key);
    }
  }

  static CostReportService snapshotRun(BlobStorePort store, String node, String instanceId) {
    var cluster = new Fixtures.FakeCluster();
    var ec2 = new Fixtures.FakeEc2();
    var launch = T.minusSeconds(3600);
    cluster.nodes.add(gpuNode(node, instanceId, "g6e.12xlarge", 4, "on-demand", launch));
    ec2.instances.add(instance(instanceId, "g6e.12xlarge", Lifecycle.ON_DEMAND, launch));
    return new CostReportService(
        CostSettings.defaults(Fixtures.CLUSTER),
        Fixtures.REGION,
        cluster,
        ec2,
        new Fixtures.FakeSpot(),
        new StaticPrices(),
        store,
        CostReporting.reporter(
            new Recorders.RecordingMetrics(),
            new Recorders.RecordingPublisher(),
            new Recorders.RecordingNotifier()),
        new VirtualTime(T).clock());
  }

  InventorySnapshot storedSnapshot(String prefix) throws Exception {
    var body =
        new S3BlobStoreAdapter(s3, "cost-concurrency", prefix)
            .get(CostReportService.snapshotKey(Fixtures.CLUSTER))
            .orElseThrow();
    return Json.MAPPER.readValue(body, InventorySnapshot.class);
  }

  void twoRunsReadingTheSameSnapshot(String prefix) throws Exception {
    var s3Store = new S3BlobStoreAdapter(s3, "cost-concurrency", prefix);
    var releaseA = new CountDownLatch(1);
    var heldA = new HeldStore(s3Store, releaseA);
    var request = new CostReportService.Request(null, null, true);

    // Given run A has read the snapshot (holding it) ...
    var runA =
        CompletableFuture.supplyAsync(
            () -> snapshotRun(heldA, "node-a", "i-0aaaaaaaaaaaaaaaa").run(request, m -> {}));
    assertThat(heldA.read.await(60, TimeUnit.SECONDS)).isTrue();
    // ... When run B reads and writes it meanwhile, then A goes on
    snapshotRun(s3Store, "node-b", "i-0bbbbbbbbbbbbbbbb").run(request, m -> {});
    releaseA.countDown();
    runA.get(120, TimeUnit.SECONDS);

    // Then A's first write was refused and it merged again
    assertThat(heldA.refusedWrites.get()).isEqualTo(1);
    assertThat(heldA.snapshotReads.get()).isEqualTo(2);
  }

  @Test
  void shouldKeepBothRunsRowsWhenTwoRunsReadTheSameSnapshot() throws Exception {
    twoRunsReadingTheSameSnapshot("first/");

    assertThat(storedSnapshot("first/").nodes())
        .extracting(NodeRecord::id)
        .containsExactlyInAnyOrder("i-0aaaaaaaaaaaaaaaa", "i-0bbbbbbbbbbbbbbbb");
  }

  @Test
  void shouldKeepEveryRowWhenTheRunsRaceOnAnExistingSnapshot() throws Exception {
    // Given a snapshot that already holds a node (so the writes use If-Match, not If-None-Match)
    var s3Store = new S3BlobStoreAdapter(s3, "cost-concurrency", "existing/");
    snapshotRun(s3Store, "node-0", "i-0000000000000000a")
        .run(new CostReportService.Request(null, null, true), m -> {});

    // When
    twoRunsReadingTheSameSnapshot("existing/");

    // Then
    assertThat(storedSnapshot("existing/").nodes())
        .extracting(NodeRecord::id)
        .containsExactlyInAnyOrder(
            "i-0000000000000000a", "i-0aaaaaaaaaaaaaaaa", "i-0bbbbbbbbbbbbbbbb");
  }

  @Test
  void shouldRefuseStaleAndMissingPreconditionsLikeS3() {
    var store = new S3BlobStoreAdapter(s3, "cost-concurrency", "cas/");
    assertThat(store.putIfUnchanged("k", new byte[] {1}, "application/json", null)).isTrue();
    assertThat(store.putIfUnchanged("k", new byte[] {2}, "application/json", null))
        .as("If-None-Match: * on an existing object")
        .isFalse();
    var v1 = store.getVersioned("k");
    assertThat(store.putIfUnchanged("k", new byte[] {3}, "application/json", v1.etag())).isTrue();
    assertThat(store.putIfUnchanged("k", new byte[] {4}, "application/json", v1.etag()))
        .as("If-Match with a stale ETag")
        .isFalse();
    assertThat(store.putIfUnchanged("gone", new byte[] {5}, "application/json", v1.etag()))
        .as("If-Match on a missing object")
        .isFalse();
    assertThat(store.get("k")).hasValueSatisfying(b -> assertThat(b).containsExactly(3));
  }
}
