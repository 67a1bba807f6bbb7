package io.gpufleet.cli;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.schedule.HoldRecords;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/** {@code gpufleet cost query}: the FOCUS files, queried on a laptop. */
@Command(
    name = "cost",
    description = "Cost data across reports: FOCUS files queried with an embedded engine.",
    subcommands = {CostCommand.Query.class})
final class CostCommand implements Callable<Integer> {
  private final PrintStream out;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  CostCommand(PrintStream out, PrintStream err) {
    this.out = out;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(out);
    return Cli.BAD_INPUT;
  }

  @Command(
      name = "query",
      description = {
        "Run a named query (or any SQL over tables focus and schedule_holds) on FOCUS files with"
            + " DuckDB, in process.",
        "Named queries: the files of deploy/queries, also the stack's Athena named queries (see"
            + " NAME|SQL below).",
        "--from DIR (a directory holding focus/ and schedule/, or the FOCUS partitions"
            + " themselves) or s3://BUCKET[/PREFIX] (the report bucket: its focus/ and schedule/"
            + " objects are copied to a temporary directory first; AWS credentials from the default"
            + " chain).",
        "schedule-savings is an estimate (method: docs/cost-report.md, Off-hours savings); it"
            + " needs the disruption schedule's records (schedule/) beside the FOCUS files.",
        "Exit codes: 0 answered, 2 bad flag, unknown query or bad SQL, 1 other failure."
      })
  static final class Query implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;

    @Mixin Cli.Help help;
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "NAME|SQL",
        completionCandidates = FocusQueries.Names.class,
        description = "A named query (${COMPLETION-CANDIDATES}) or SQL.")
    String query;

    @Option(
        names = "--from",
        paramLabel = "DIR|s3://…",
        required = true,
        description = "Where the FOCUS files are.")
    String from;

    @Option(names = "--format", paramLabel = "F", description = "table (default), csv or json.")
    String format = "table";

    @Option(
        names = "--region",
        paramLabel = "R",
        description = "Region of the bucket (default: AWS_REGION, AWS_DEFAULT_REGION).")
    String region;

    Query(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() throws Exception {
      if (!java.util.List.of("table", "csv", "json").contains(format)) {
        throw Cli.bad(spec, "--format must be table, csv or json, not '" + format + "'");
      }
      if (!FocusQueries.NAMES.contains(query) && !query.matches("(?is)\\s*(select|with)\\b.*")) {
        throw Cli.bad(
            spec,
            "'" + query + "' is neither a named query " + FocusQueries.NAMES + " nor a SELECT");
      }
      Path dir = from.startsWith("s3://") ? download(URI.create(from)) : Path.of(from);
      if (!Files.isDirectory(dir)) {
        throw new ConfigException("cost query: --from " + from + " is not a directory");
      }
      FocusQueries.Result r;
      try {
        r = FocusQueries.run(dir, query);
      } catch (java.sql.SQLException e) {
        throw new ConfigException("cost query: " + e.getMessage().lines().findFirst().orElse(""));
      }
      if (format.equals("table") && query.equals(FocusQueries.SCHEDULE_SAVINGS)) {
        // the figure is an estimate: the table says so above it
        out.println(FocusQueries.title(query));
      }
      out.print(
          switch (format) {
            case "csv" -> FocusQueries.csv(r);
            case "json" -> FocusQueries.json(r) + "\n";
            default -> FocusQueries.table(r);
          });
      return 0;
    }

    private Path download(URI uri) throws Exception {
      String r =
          Optional.ofNullable(region)
              .or(() -> Optional.ofNullable(System.getenv("AWS_REGION")))
              .or(() -> Optional.ofNullable(System.getenv("AWS_DEFAULT_REGION")))
              .orElseThrow(() -> new ConfigException("cost query: --region (or AWS_REGION)"));
      try (S3Client s3 = S3Client.builder().region(Region.of(r)).build()) {
        return download(s3, uri, err);
      }
    }

    /**
     * Copies the .parquet objects under s3://bucket/prefix/focus/ (prefix/ may name the focus
     * prefix itself) to DIR/focus/ of a new temporary directory, and the schedule's hold records
     * under s3://bucket/prefix/schedule/ (.json) to DIR/schedule/, keys as paths; returns DIR.
     */
    static Path download(S3Client s3, URI uri, PrintStream err) throws Exception {
      String bucket = uri.getHost();
      String prefix = uri.getPath().replaceFirst("^/", "");
      if (!prefix.isEmpty() && !prefix.endsWith("/")) {
        prefix += "/";
      }
      String base = prefix.endsWith("focus/") ? prefix.substring(0, prefix.length() - 6) : prefix;
      if (bucket == null || bucket.isEmpty()) {
        throw new ConfigException("cost query: " + uri + " names no bucket");
      }
      Path dir = Files.createTempDirectory("gpufleet-focus-");
      int n = copy(s3, bucket, base + "focus/", ".parquet", dir.resolve("focus"));
      err.println(
          "cost query: " + n + " FOCUS file(s) from s3://" + bucket + "/" + base + "focus/");
      String schedule = base + HoldRecords.PREFIX;
      int m = copy(s3, bucket, schedule, ".json", dir.resolve("schedule"));
      if (m > 0) {
        err.println(
            "cost query: " + m + " schedule record(s) from s3://" + bucket + "/" + schedule);
      }
      return dir;
    }

    private static int copy(S3Client s3, String bucket, String prefix, String suffix, Path to)
        throws Exception {
      int n = 0;
      var pages =
          s3.listObjectsV2Paginator(
              ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build());
      for (var o : pages.contents()) {
        if (!o.key().endsWith(suffix)) {
          continue;
        }
        Path f = to.resolve(o.key().substring(prefix.length())).normalize();
        if (!f.startsWith(to)) {
          continue;
        }
        Files.createDirectories(f.getParent());
        s3.getObject(GetObjectRequest.builder().bucket(bucket).key(o.key()).build(), f);
        n++;
      }
      return n;
    }
  }
}
