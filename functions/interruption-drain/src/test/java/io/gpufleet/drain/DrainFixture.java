package io.gpufleet.drain;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpufleet.core.event.DecodeResult;
import io.gpufleet.core.event.EventDecoder;
import io.gpufleet.core.event.FleetEvent;
import io.gpufleet.core.time.TimeSource;
import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.drain.wiring.DrainWiring;
import io.gpufleet.sim.Recorders;
import io.gpufleet.sim.RequestTime;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.aws.AwsStubServer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;

/**
 * A simulated cluster plus a drain service wired to it with recording fakes, all on one virtual
 * time: the drain's waits take no real time and the cluster's pods go at the virtual instant their
 * grace period ends, so every figure is exact whatever the machine's load.
 */
public final class DrainFixture implements AutoCloseable {
  public static final Instant START = Instant.parse("2026-11-29T12:00:00Z");
  final VirtualTime time;
  final SimCluster cluster;
  final KubernetesClient client;
  final Recorders.RecordingPublisher publisher = new Recorders.RecordingPublisher();
  final Recorders.RecordingNotifier notifier = new Recorders.RecordingNotifier();
  final Recorders.RecordingMetrics metrics = new Recorders.RecordingMetrics();
  DrainSettings settings;
  DrainService service;

  DrainFixture() {
    this(DrainSettings.defaults("sim-cluster"));
  }

  DrainFixture(DrainSettings settings) {
    this.time = new VirtualTime(START);
    this.cluster = SimCluster.start(time);
    this.client = cluster.newClient();
    use(settings);
  }

  void use(DrainSettings newSettings) {
    this.settings = newSettings;
    this.service =
        DrainWiring.service(
            client,
            DrainWiring.Parts.of(settings).reportingTo(metrics, publisher, notifier).timedBy(time));
  }

  Instant hardStop() {
    return time.now().plus(Duration.ofMinutes(14));
  }

  static final EventDecoder DECODER = new EventDecoder();

  FleetEvent spot(String id, String instance) {
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Spot Instance Interruption Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:ec2:us-east-1a:instance/%s"],
         "detail":{"instance-id":"%s","instance-action":"terminate"}}
        """
            .formatted(id, time.now(), instance, instance));
  }

  FleetEvent spot(String id, String instance, String action) {
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Spot Instance Interruption Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:ec2:us-east-1a:instance/%s"],
         "detail":{"instance-id":"%s","instance-action":"%s"}}
        """
            .formatted(id, time.now(), instance, instance, action));
  }

  /** EC2 user guide shape (monitor-interruptible-cr.html); termination time null = omitted. */
  FleetEvent capacityReservationInterruption(String id, String instance, Instant terminates) {
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Capacity Reservation Instance Interruption Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:ec2:us-east-1:123456789012:instance/%s"],
         "detail":{"instance-id":"%s","instance-action":"terminate"%s,"azId":"use1-az1"}}
        """
            .formatted(
                id,
                time.now(),
                instance,
                instance,
                terminates == null ? "" : ",\"instance-termination-time\":\"" + terminates + "\""));
  }

  FleetEvent capacityBlockExpiring(String id, String reservation, Instant endDate) {
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"Capacity Block Expiration Warning",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":["arn:aws:ec2:us-east-1:123456789012:capacity-reservation/%s"],
         "detail":{"capacity-reservation-id":"%s","end-date":"%s"}}
        """
            .formatted(id, time.now(), reservation, reservation, endDate));
  }

  FleetEvent rebalance(String id, String instance) {
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Instance Rebalance Recommendation",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":[],"detail":{"instance-id":"%s"}}
        """
            .formatted(id, time.now(), instance));
  }

  FleetEvent stateChange(String id, String instance, String state) {
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"EC2 Instance State-change Notification",
         "source":"aws.ec2","account":"123456789012","time":"%s","region":"us-east-1",
         "resources":[],"detail":{"instance-id":"%s","state":"%s"}}
        """
            .formatted(id, time.now(), instance, state));
  }

  FleetEvent health(String id, Instant start, String... instances) {
    var entities = new StringBuilder();
    for (String i : instances) {
      entities
          .append(entities.isEmpty() ? "" : ",")
          .append("{\"entityValue\":\"")
          .append(i)
          .append("\"}");
    }
    return decode(
        """
        {"version":"0","id":"%s","detail-type":"AWS Health Event","source":"aws.health",
         "account":"123456789012","time":"%s","region":"us-east-1","resources":[],
         "detail":{"eventArn":"arn:aws:health:us-east-1::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/x",
          "service":"EC2","eventTypeCode":"AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED",
          "eventTypeCategory":"scheduledChange","startTime":"%s",
          "affectedEntities":[%s]}}
        """
            .formatted(id, time.now(), start, entities));
  }

  static FleetEvent decode(String json) {
    var result = DECODER.decodeString(json);
    if (result instanceof DecodeResult.Decoded d) {
      return d.event();
    }
    throw new AssertionError("fixture event did not decode: " + result);
  }

  /** A node with {@code pods} ReplicaSet pods (no PDB) plus one DaemonSet pod. */
  void nodeWithPods(String node, String instance, int pods) {
    cluster.create(
        SimCluster.gpuNode(
            node, instance, "us-east-1a", "g6e.12xlarge", "spot", "gpu-inference", null, 4));
    for (int i = 0; i < pods; i++) {
      cluster.create(
          SimCluster.runningPod(
              "apps", node + "-web-" + i, node, "ReplicaSet", "web", Map.of("app", "web"), 30, 0));
    }
    cluster.create(
        SimCluster.runningPod(
            "kube-system",
            node + "-dcgm",
            node,
            "DaemonSet",
            "dcgm-exporter",
            Map.of("app", "dcgm"),
            30,
            0));
  }

  /**
   * An Auto Scaling client of the simulated service behind {@code stub}, stamping each call with
   * the caller's time (at which the simulated hook acts).
   */
  public static AutoScalingClient autoScaling(AwsStubServer stub, TimeSource time) {
    return AutoScalingClient.builder()
        .region(Region.US_EAST_1)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "s")))
        .endpointOverride(stub.endpoint())
        .overrideConfiguration(c -> c.addExecutionInterceptor(RequestTime.stampingSdk(time)))
        .build();
  }

  long evictionRequests() {
    return cluster.requests().stream().filter(r -> r.path().contains("/eviction")).count();
  }

  @Override
  public void close() {
    client.close();
    cluster.close();
  }
}
