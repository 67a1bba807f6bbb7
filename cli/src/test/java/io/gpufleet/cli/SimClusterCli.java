package io.gpufleet.cli;

import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * For tests of a gpufleet command that reaches a cluster as a user's does, through a kubeconfig:
 * each test gets a fresh simulated cluster ({@link #populate} seeds it) and a kubeconfig naming it,
 * which fabric8 reads from the {@code kubeconfig} system property (before {@code KUBECONFIG}); the
 * property is put back after the test.
 */
abstract class SimClusterCli extends CapturedCli {
  SimCluster cluster;
  private String previousKubeconfig;

  /** What the cluster holds before the test. */
  abstract void populate(SimCluster cluster);

  @BeforeEach
  void startCluster(@TempDir Path dir) throws Exception {
    cluster = SimCluster.start(SimTime.realTime());
    populate(cluster);
    Path kubeconfig = dir.resolve("config");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: sim
          cluster:
            server: %s
        users:
        - name: sim
          user:
            token: sim-token
        contexts:
        - name: sim
          context:
            cluster: sim
            user: sim
        current-context: sim
        """
            .formatted(cluster.url()));
    previousKubeconfig = System.setProperty("kubeconfig", kubeconfig.toString());
  }

  @AfterEach
  void stopCluster() {
    if (previousKubeconfig == null) {
      System.clearProperty("kubeconfig");
    } else {
      System.setProperty("kubeconfig", previousKubeconfig);
    }
    cluster.close();
  }
}
