package io.gpufleet.preflight;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import io.gpufleet.core.outcome.EventPublisherPort;
import io.gpufleet.core.outcome.MetricsPort;
import io.gpufleet.core.outcome.MetricsPort.Unit;
import io.gpufleet.core.outcome.NotifierPort;
import io.gpufleet.core.outcome.Sinks;
import io.gpufleet.preflight.model.PreflightReport;
import io.gpufleet.preflight.model.RegionResult;
import io.gpufleet.preflight.model.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a report everywhere it belongs: the full JSON to the report store (S3), a summary event to
 * EventBridge, EMF metrics (headroom per region and quota, regions per verdict) and an SNS summary
 * when a region is NO_GO. A failing sink is logged and counted, never fails the run.
 */
public final class PreflightReporter {
  public static final String DETAIL_TYPE = "GPU Fleet Preflight Report";
  private static final Logger LOG = LoggerFactory.getLogger(PreflightReporter.class);

  private final ReportStorePort store;
  private final MetricsPort metrics;
  private final EventPublisherPort publisher;
  private final NotifierPort notifier;

  public PreflightReporter(
      ReportStorePort store,
      MetricsPort metrics,
      EventPublisherPort publisher,
      NotifierPort notifier) {
    this.store = store;
    this.metrics = metrics;
    this.publisher = publisher;
    this.notifier = notifier;
  }

  /** Returns the report's URI in the store, if it was saved. */
  public Optional<String> report(PreflightReport r) {
    LOG.info(
        "preflight {}: {} GO, {} GO_WITH_WARNINGS, {} NO_GO, {} UNKNOWN",
        r.plan(),
        r.count(Verdict.GO),
        r.count(Verdict.GO_WITH_WARNINGS),
        r.count(Verdict.NO_GO),
        r.count(Verdict.UNKNOWN),
        entry("summary", summaryDetail(r, null)));
    Optional<String> uri = Optional.empty();
    try {
      uri = store.save(r);
    } catch (RuntimeException e) {
      failed("report store", e);
    }
    for (Verdict v : Verdict.values()) {
      metrics.add("Regions" + camel(v.name()), r.count(v), Unit.COUNT);
    }
    for (RegionResult region : r.regions()) {
      for (var q : region.quotas()) {
        if (q.quota() == null) {
          continue;
        }
        double headroom = q.quota() - (q.usage() == null ? 0 : q.usage());
        metrics.add(
            "QuotaHeadroomVcpu",
            headroom,
            Unit.NONE,
            Map.of("Region", region.region(), "Quota", q.key().usageClass()));
        metrics.add(
            "PlanHeadroomVcpu",
            q.headroom(),
            Unit.NONE,
            Map.of("Region", region.region(), "Quota", q.key().usageClass()));
      }
    }
    String location = uri.orElse(null);
    guarded(
        "eventbridge", () -> publisher.publish(DETAIL_TYPE, summaryDetail(r, location), List.of()));
    if (r.count(Verdict.NO_GO) > 0) {
      guarded("notification", () -> notifier.notify(subject(r), summary(r, location)));
    }
    return uri;
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

  private void guarded(String sink, Runnable action) {
    Sinks.guarded(metrics, LOG, sink, action);
  }

  private void failed(String sink, RuntimeException e) {
    metrics.add("ReportFailures", 1, Unit.COUNT);
    LOG.warn("could not report to {}: {}", sink, e.toString());
  }

  private static String camel(String enumName) {
    var sb = new StringBuilder();
    for (String p : enumName.toLowerCase(java.util.Locale.ROOT).split("_")) {
      sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
    }
    return sb.toString();
  }
}
