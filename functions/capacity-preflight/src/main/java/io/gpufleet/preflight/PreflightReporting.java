package io.gpufleet.preflight;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.OutcomeReporter;
import io.gpufleet.core.outcome.OutcomeReporter.Event;
import io.gpufleet.core.outcome.OutcomeReporter.LogLine;
import io.gpufleet.core.outcome.OutcomeReporter.Notice;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.event.Level;

/**
 * What a preflight report says to each sink ({@link OutcomeReporter}): the full JSON to the report
 * store (S3, first: the other sinks link to it), a log line, EMF metrics (headroom per region and
 * quota, regions per verdict), a summary event to EventBridge, and an SNS summary when a region is
 * NO_GO.
 */
public final class PreflightReporting
    implements OutcomeReporter.Mapping<PreflightReporting.Stored> {
  public static final String DETAIL_TYPE = "GPU Fleet Preflight Report";

  /** A report and where the store kept it ({@code null}: not stored). */
  public record Stored(PreflightReport report, String uri) {}

  private PreflightReporting() {}

  public static OutcomeReporter<Stored> reporter(
      MetricsPort metrics, EventPublisherPort publisher, NotifierPort notifier) {
    return new OutcomeReporter<>(new PreflightReporting(), metrics, publisher, notifier);
  }

  /**
   * Saves the full report in {@code store} (a failing store is logged and counted like any sink),
   * then reports it; returns the report's URI in the store, if it was saved.
   */
  public static Optional<String> storeAndReport(
      OutcomeReporter<Stored> reporter, ReportStorePort store, PreflightReport report) {
    var uri = reporter.deliverReturning("report store", () -> store.save(report));
    reporter.report(new Stored(report, uri.orElse(null)));
    return uri;
  }

  @Override
  public LogLine logLine(Stored s) {
    var r = s.report();
    return new LogLine(
        Level.INFO,
        "preflight {}: {} GO, {} GO_WITH_WARNINGS, {} NO_GO, {} UNKNOWN",
        r.plan(),
        r.count(Verdict.GO),
        r.count(Verdict.GO_WITH_WARNINGS),
        r.count(Verdict.NO_GO),
        r.count(Verdict.UNKNOWN),
        entry("summary", summaryDetail(r, null)));
  }

  @Override
  public void count(Stored s, MetricsPort metrics) {
    var r = s.report();
    for (Verdict v : Verdict.values()) {
      metrics.add(PreflightMetrics.REGIONS.get(v), r.count(v));
    }
    for (RegionResult region : r.regions()) {
      for (var q : region.quotas()) {
        if (q.quota() == null) {
          continue;
        }
        double headroom = q.quota() - (q.usage() == null ? 0 : q.usage());
        metrics.add(
            PreflightMetrics.QUOTA_HEADROOM_VCPU,
            headroom,
            Map.of("Region", region.region(), "Quota", q.key().usageClass()));
        metrics.add(
            PreflightMetrics.PLAN_HEADROOM_VCPU,
            q.headroom(),
            Map.of("Region", region.region(), "Quota", q.key().usageClass()));
      }
    }
  }

  @Override
  public Optional<Event> event(Stored s) {
    return Optional.of(new Event(DETAIL_TYPE, summaryDetail(s.report(), s.uri()), List.of()));
  }

  @Override
  public Optional<Notice> notice(Stored s) {
    if (s.report().count(Verdict.NO_GO) == 0) {
      return Optional.empty();
    }
    return Optional.of(new Notice(subject(s.report()), summary(s.report(), s.uri())));
  }

  /** The event detail: small (EventBridge caps events at 256 KiB), the full report is in S3. */
  static Map<String, Object> summaryDetail(PreflightReport r, String uri) {
    var d = new LinkedHashMap<String, Object>();
    d.put("plan", r.plan());
    d.put("generatedAt", r.generatedAt().toString());
    d.put("trigger", r.trigger());
    d.put("reportUri", uri);
    d.put("best", r.best().map(RegionResult::region).orElse(null));
    var regions = new ArrayList<Map<String, Object>>();
    for (RegionResult x : r.regions()) {
      var m = new LinkedHashMap<String, Object>();
      m.put("rank", x.rank());
      m.put("region", x.region());
      m.put("verdict", x.verdict().name());
      m.put("spotScore", x.spotScore());
      m.put("hourlyCost", x.hourlyCost());
      m.put("reasons", x.blockers().isEmpty() ? x.warnings() : x.blockers());
      regions.add(m);
    }
    d.put("regions", regions);
    return d;
  }

  static String subject(PreflightReport r) {
    return "[GPU Fleet] preflight "
        + r.plan()
        + ": NO_GO in "
        + r.count(Verdict.NO_GO)
        + " of "
        + r.regions().size()
        + " regions"
        + r.best().map(b -> ", best " + b.region()).orElse(", no region fits");
  }

  /** The lines someone reads first: where it fits, and what stops it elsewhere. */
  public static String summary(PreflightReport r, String uri) {
    var sb = new StringBuilder();
    sb.append("Preflight of plan '").append(r.plan()).append("' at ").append(r.generatedAt());
    sb.append('\n');
    for (RegionResult x : r.regions()) {
      sb.append(x.rank()).append(". ").append(x.region()).append(": ").append(x.verdict());
      if (x.hourlyCost() != null) {
        sb.append(", ~")
            .append(x.hourlyCost().toPlainString())
            .append(' ')
            .append(x.currency())
            .append("/h")
            .append(x.costComplete() ? "" : " (some prices unknown)");
      }
      sb.append('\n');
      x.blockers().forEach(b -> sb.append("   - ").append(b).append('\n'));
      x.warnings().forEach(w -> sb.append("   ! ").append(w).append('\n'));
    }
    r.nodePools()
        .forEach(
            p ->
                sb.append("NodePool ")
                    .append(p.nodePool())
                    .append(": ")
                    .append(p.message())
                    .append('\n'));
    if (uri != null) {
      sb.append("full report: ").append(uri).append('\n');
    }
    return sb.toString();
  }
}
