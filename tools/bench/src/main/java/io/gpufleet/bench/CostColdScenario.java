package io.gpufleet.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.sim.SimCluster;
import io.gpufleet.sim.SimTime;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.PricingStub;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceType;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The cost report's cold run: a direct invoke for the last 24 hours over a small cluster. EC2
 * (instances tagged for the cluster, Spot price history) and S3 (the report bucket) are moto
 * server, the Pricing API is the project's stub (behind AWS's host names where the bench may listen
 * on port 443, else AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_PRICING), the cluster the simulated API
 * server found through {@link ColdAws} (EKS DescribeCluster; the outcome event goes to its
 * EventBridge); all run here, outside the function's share. Needs moto_server ($MOTO_SERVER or
 * .venv/bin/moto_server, as the tests do).
 */
final class CostColdScenario implements ColdBench.Scenario {
  static final String CLUSTER = ColdAws.CLUSTER;
  static final String BUCKET = "gpufleet-bench-reports";

  private final Process moto;
  private final AwsStubServer pricing;
  private final SimCluster cluster;
  private final URI motoEndpoint;
  private final String payload;
  private final ColdAws aws;

  private CostColdScenario(
      Process moto,
      URI motoEndpoint,
      AwsStubServer pricing,
      SimCluster cluster,
      String payload,
      ColdAws aws) {
    this.aws = aws;
    this.moto = moto;
    this.motoEndpoint = motoEndpoint;
    this.pricing = pricing;
    this.cluster = cluster;
    this.payload = payload;
  }

  static Path motoBinary() {
    String env = System.getenv("MOTO_SERVER");
    if (env != null && !env.isBlank()) {
      return Path.of(env.trim());
    }
    return ProjectHome.path().resolve(".venv/bin/moto_server");
  }

  static CostColdScenario start(PrintStream err, ColdAws aws) throws IOException {
    Path binary = motoBinary();
    if (!Files.isExecutable(binary)) {
      throw new ConfigException(
          "bench cold --function cost-report: needs moto_server for EC2 and S3 (set MOTO_SERVER or"
              + " run ./gpufleet test once to install .venv); not found at "
              + binary);
    }
    var listen = aws.listen(6);
    int port;
    if (listen.getPort() != 0) {
      port = listen.getPort();
    } else {
      try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
    }
    String host = aws.named() ? listen.getAddress().getHostAddress() : "localhost";
    URI endpoint = URI.create("https://" + host + ":" + port);
    Path log = Files.createTempFile("gpufleet-bench-moto", ".log");
    Process moto =
        new ProcessBuilder(
                binary.toString(),
                "-H",
                listen.getAddress().getHostAddress(),
                "-p",
                Integer.toString(port),
                "--ssl-cert",
                aws.tls().certificatePem().toString(),
                "--ssl-key",
                aws.tls().privateKeyPem().toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      awaitReady(moto, endpoint, log, aws.tls());
      err.println("bench cold: moto_server on " + endpoint + " (EC2, S3)");
      var motoClients =
          new AwsClients(
              Region.US_EAST_1,
              StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDBENCH", "bench")),
              Optional.of(endpoint),
              aws.tls().benchHttpClient());
      var cluster = SimCluster.startHttps(SimTime.realTime());
      try (S3Client s3 = motoClients.build(S3Client.builder().forcePathStyle(true));
          Ec2Client ec2 = motoClients.build(Ec2Client.builder())) {
        s3.createBucket(b -> b.bucket(BUCKET));
        String image = ec2.describeImages(r -> r.owners("amazon")).images().get(0).imageId();
        var types =
            List.of(
                InstanceType.G6_E_12_XLARGE,
                InstanceType.G5_XLARGE,
                InstanceType.P5_48_XLARGE,
                InstanceType.G6_12_XLARGE);
        for (int i = 0; i < 8; i++) {
          var type = types.get(i % types.size());
          String zone = "us-east-1" + "abc".charAt(i % 3);
          String id =
              ec2.runInstances(
                      r ->
                          r.imageId(image)
                              .instanceType(type)
                              .minCount(1)
                              .maxCount(1)
                              .placement(p -> p.availabilityZone(zone))
                              .tagSpecifications(
                                  t ->
                                      t.resourceType(ResourceType.INSTANCE)
                                          .tags(
                                              Tag.builder()
                                                  .key("kubernetes.io/cluster/" + CLUSTER)
                                                  .value("owned")
                                                  .build(),
                                              Tag.builder()
                                                  .key("karpenter.sh/nodepool")
                                                  .value("gpu")
                                                  .build())))
                  .instances()
                  .get(0)
                  .instanceId();
          cluster.create(
              SimCluster.gpuNode(
                  "cost-" + i,
                  id,
                  zone,
                  type.toString(),
                  i % 2 == 0 ? "spot" : "on-demand",
                  "gpu",
                  null,
                  4));
          for (int p = 0; p < 6; p++) {
            cluster.create(
                SimCluster.runningPod(
                    "team-" + (p % 3),
                    "cost-" + i + "-p" + p,
                    "cost-" + i,
                    "ReplicaSet",
                    "work",
                    Map.of("team", "team-" + (p % 3)),
                    30,
                    1));
          }
        }
      } catch (RuntimeException e) {
        cluster.close();
        throw e;
      }
      var stub = aws.stub(7);
      if (aws.named()) {
        // EC2 and S3 (the bucket's virtual host too) on moto, the Pricing API on its stub
        aws.hosts()
            .route("ec2", listen.getAddress())
            .route("s3", listen.getAddress())
            .name(BUCKET + "." + AwsHosts.host("s3", "us-east-1"), listen.getAddress())
            .route("api.pricing", aws.hosts().address(7));
      }
      var prices =
          new PricingStub()
              .withDecoys()
              .listPrices("us-east-1", "g6e.12xlarge", "g5.xlarge", "p5.48xlarge", "g6.12xlarge");
      stub.on(PricingStub.OPERATION, prices::answer);
      // a direct invoke for the last 24 hours: the instances moto launched a moment ago are in it
      // (the scheduled daily report covers yesterday, when they did not exist yet)
      return new CostColdScenario(
          moto, endpoint, stub, cluster, "{\"action\":\"report\",\"window\":\"24h\"}", aws);
    } catch (IOException | RuntimeException e) {
      stop(moto);
      throw e;
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** Polls moto's own API until it answers (bounded), or fails with its log. */
  private static void awaitReady(Process moto, URI endpoint, Path log, BenchTls tls)
      throws IOException {
    var http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(1))
            .sslContext(tls.benchClientContext())
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      if (!moto.isAlive()) {
        throw new IllegalStateException("moto_server exited: " + Files.readString(log));
      }
      try {
        var r =
            http.send(
                HttpRequest.newBuilder(endpoint.resolve("/moto-api/")).build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() < 500) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for moto_server", e);
      }
      try {
        moto.waitFor(100, TimeUnit.MILLISECONDS); // returns early if it exits
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for moto_server", e);
      }
    }
    throw new IllegalStateException("moto_server not ready in 30 s: " + Files.readString(log));
  }

  private static void stop(Process p) {
    p.destroy();
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  @Override
  public Map<String, String> prepare(int n, Path event) throws IOException {
    Files.writeString(event, payload);
    var env = aws.environment(cluster);
    env.put("REPORT_BUCKET", BUCKET);
    aws.override(env, "AWS_ENDPOINT_URL", motoEndpoint);
    aws.override(env, "AWS_ENDPOINT_URL_PRICING", pricing.endpoint());
    return env;
  }

  @Override
  public String status(JsonNode answer) {
    return ColdBench.first(answer, "status");
  }

  @Override
  public String expected() {
    return "REPORTED";
  }

  /** Pricing calls the stub answered (the function reached it as api.pricing.us-east-1). */
  int pricingCalls() {
    return pricing.calls(PricingStub.OPERATION).size();
  }

  @Override
  public void close() {
    var errors = new ArrayList<RuntimeException>();
    try {
      cluster.close();
    } catch (RuntimeException e) {
      errors.add(e);
    }
    pricing.close();
    stop(moto);
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
  }
}
