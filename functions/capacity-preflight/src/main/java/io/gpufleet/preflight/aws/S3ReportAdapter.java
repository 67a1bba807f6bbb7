package io.gpufleet.preflight.aws;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.s3.S3RestException;
import io.gpufleet.preflight.DedupeStorePort;
import io.gpufleet.preflight.PlanLoaderPort;
import io.gpufleet.preflight.PreflightSettings;
import io.gpufleet.preflight.ReportStorePort;
import io.gpufleet.preflight.model.PreflightReport;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The results bucket: full reports as JSON ({@code <prefix>reports/yyyy/MM/dd/<plan>-<time>.json}),
 * dedupe markers created with a conditional write ({@code If-None-Match: *}, so exactly one of
 * concurrent deliveries wins, across containers), and plan documents read by URI.
 */
public final class S3ReportAdapter implements ReportStorePort, DedupeStorePort, PlanLoaderPort {
  private static final DateTimeFormatter DAY =
      DateTimeFormatter.ofPattern("yyyy/MM/dd").withZone(ZoneOffset.UTC);
  private final Supplier<S3Rest> s3;
  private final String bucket;
  private final String prefix;

  public S3ReportAdapter(S3Rest s3, String bucket, String prefix) {
    this(() -> s3, bucket, prefix);
  }

  /**
   * Over a client made on first use: a function with no results bucket reads S3 only for a plan
   * given as an {@code s3://} URI, so its cold start need not build an S3 client for nothing.
   */
  public S3ReportAdapter(Supplier<S3Rest> s3, String bucket, String prefix) {
    this.s3 = s3;
    this.bucket = bucket;
    this.prefix = prefix;
  }

  @Override
  public Optional<String> save(PreflightReport report) {
    String name = report.plan().replaceAll("[^A-Za-z0-9._-]", "_");
    String key =
        prefix
            + "reports/"
            + DAY.format(report.generatedAt())
            + "/"
            + name
            + "-"
            + report.generatedAt().toString().replace(":", "")
            + ".json";
    s3.get()
        .put(
            bucket,
            key,
            Json.writePretty(report).getBytes(StandardCharsets.UTF_8),
            "application/json");
    return Optional.of("s3://" + bucket + "/" + key);
  }

  @Override
  public boolean claim(String dedupeKey) {
    try {
      s3.get()
          .put(
              bucket,
              markerKey(dedupeKey),
              dedupeKey.getBytes(StandardCharsets.UTF_8),
              "text/plain",
              S3Rest.Condition.ifAbsent());
      return true;
    } catch (S3RestException e) {
      // 412: the marker exists; 409: a concurrent conditional write of the same key won
      if (e.conditionRefused()) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public void release(String dedupeKey) {
    s3.get().delete(bucket, markerKey(dedupeKey));
  }

  String markerKey(String dedupeKey) {
    try {
      var sha =
          MessageDigest.getInstance("SHA-256").digest(dedupeKey.getBytes(StandardCharsets.UTF_8));
      return prefix + "dedupe/" + HexFormat.of().formatHex(sha);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String read(String uri) {
    String[] parts = PreflightSettings.checkS3Uri(uri);
    try {
      return s3.get()
          .get(parts[0], parts[1])
          .map(S3Rest.Blob::text)
          .orElseThrow(() -> new ConfigException("plan " + uri + " does not exist"));
    } catch (S3RestException e) {
      if (e.noSuchBucket()) {
        throw new ConfigException("plan " + uri + " does not exist");
      }
      throw e;
    }
  }
}
