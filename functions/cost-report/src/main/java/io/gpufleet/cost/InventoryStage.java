package io.gpufleet.cost;

import static io.gpufleet.cost.Futures.get;

import io.gpufleet.core.json.Json;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.cost.CostReportService.ClusterTarget;
import io.gpufleet.cost.CostReportService.Progress;
import io.gpufleet.cost.model.ClusterNode;
import io.gpufleet.cost.model.ClusterPod;
import io.gpufleet.cost.model.Ec2Instance;
import io.gpufleet.cost.model.InventorySnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first stage of a run: every cluster's nodes and pods and its EC2 instances, read
 * concurrently, merged with the cluster's stored inventory snapshot, and the next snapshot stored.
 * One cluster failing fails only its own report.
 */
final class InventoryStage {
  // the run's log, as before the stages were split out of the service
  private static final Logger LOG = LoggerFactory.getLogger(CostReportService.class);

  /** Attempts at the snapshot's conditional write before a run gives up (and Lambda retries). */
  static final int SNAPSHOT_WRITE_ATTEMPTS = 5;

  /** An inventory read and stored, with the notes and warnings it produced. */
  record Inventory(InventorySnapshot snapshot, List<String> clusterNotes, List<String> warnings) {}

  /** The clusters read, and why the others could not be, by cluster in the run's order. */
  record Inventories(Map<String, Inventory> read, Map<String, RuntimeException> failed) {}

  private final CostSettings settings;
  private final String region;
  private final InstancePort instances;
  private final BlobStorePort store;

  InventoryStage(
      CostSettings settings, String region, InstancePort instances, BlobStorePort store) {
    this.settings = settings;
    this.region = region;
    this.instances = instances;
    this.store = store;
  }

  static String snapshotKey(String cluster) {
    return "inventory/" + cluster + "/snapshot.json";
  }

  /**
   * Every target's inventory, concurrently. When none could be read, the first failure is thrown:
   * the run fails as one cluster always did (Lambda retries, DLQ).
   */
  Inventories readAll(List<ClusterTarget> targets, Instant now, Progress progress) {
    var inventories = new LinkedHashMap<String, Inventory>();
    var failures = new LinkedHashMap<String, RuntimeException>();
    try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
      var futures = new LinkedHashMap<String, Future<Inventory>>();
      for (ClusterTarget t : targets) {
        progress.step("reading nodes, pods and EC2 instances of " + t.name());
        futures.put(t.name(), exec.submit(() -> read(t, now)));
      }
      futures.forEach(
          (name, f) -> {
            try {
              inventories.put(name, get(f));
            } catch (RuntimeException e) {
              LOG.error("cluster {} could not be read: {}", name, e.toString(), e);
              failures.put(name, e);
            }
          });
    }
    if (failures.size() == targets.size()) {
      throw failures.values().iterator().next();
    }
    for (var inv : inventories.entrySet()) {
      progress.step(
          "inventory"
              + (targets.size() > 1 ? " of " + inv.getKey() : "")
              + ": "
              + inv.getValue().snapshot().nodes().size()
              + " nodes, "
              + inv.getValue().snapshot().pods().size()
              + " pods (snapshot stored)");
    }
    return new Inventories(inventories, failures);
  }

  /**
   * Reads cluster and EC2 concurrently, merges with the stored snapshot, stores the next one with a
   * conditional write ({@code If-Match} on the ETag read, {@code If-None-Match: *} for the first):
   * when another run wrote in between, its snapshot is read again and merged, so no row is lost.
   */
  Inventory read(ClusterTarget target, Instant now) {
    String cluster = target.name();
    var warnings = Collections.synchronizedList(new ArrayList<String>());
    List<String> notes;
    List<ClusterNode> nodes;
    List<ClusterPod> pods;
    List<Ec2Instance> ec2;
    BlobStorePort.Versioned stored;
    try (var exec = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<List<ClusterNode>> fNodes = exec.submit(target.reader()::nodes);
      Future<List<ClusterPod>> fPods = exec.submit(target.reader()::pods);
      Future<BlobStorePort.Versioned> fPrev =
          exec.submit(() -> store.getVersioned(snapshotKey(cluster)));
      nodes = get(fNodes);
      var ids = nodes.stream().map(ClusterNode::instanceId).filter(Objects::nonNull).toList();
      Future<List<Ec2Instance>> fEc2 = exec.submit(() -> instances.clusterInstances(cluster, ids));
      pods = get(fPods);
      ec2 = get(fEc2);
      stored = get(fPrev);
      notes = List.copyOf(target.reader().notes());
    }
    String key = snapshotKey(cluster);
    for (int attempt = 1; ; attempt++) {
      var next =
          InventoryMerger.merge(
              cluster,
              region,
              now,
              nodes,
              pods,
              ec2,
              previous(cluster, stored, warnings),
              settings.snapshotRetention(),
              settings.sharingReplicas());
      byte[] body;
      try {
        body = Json.MAPPER.writeValueAsBytes(next);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (store.putIfUnchanged(key, body, "application/json", stored.etag())) {
        var all = new ArrayList<String>(warnings);
        all.addAll(notes);
        return new Inventory(next, notes, List.copyOf(all));
      }
      if (attempt == SNAPSHOT_WRITE_ATTEMPTS) {
        throw new IllegalStateException(
            "inventory snapshot "
                + store.locate(key)
                + " changed under "
                + attempt
                + " conditional writes in a row; another run keeps writing it");
      }
      LOG.info("inventory snapshot {} changed since it was read; merging again", store.locate(key));
      stored = store.getVersioned(key);
    }
  }

  private InventorySnapshot previous(
      String cluster, BlobStorePort.Versioned stored, List<String> warnings) {
    String key = snapshotKey(cluster);
    var bytes = stored.body();
    if (bytes.isEmpty()) {
      return InventorySnapshot.empty(cluster);
    }
    try {
      var s = Json.MAPPER.readValue(bytes.get(), InventorySnapshot.class);
      if (s.version() != InventorySnapshot.VERSION || s.nodes() == null || s.pods() == null) {
        throw new IOException("unsupported snapshot version " + s.version());
      }
      return s;
    } catch (IOException e) {
      // a broken snapshot loses history but must not stop today's report
      LOG.warn("inventory snapshot {} unreadable: {}", store.locate(key), e.toString());
      synchronized (warnings) {
        warnings.add(
            "previous inventory snapshot unreadable; nodes gone since the last run are missing");
      }
      return InventorySnapshot.empty(cluster);
    }
  }
}
