package io.gpufleet.cost;

import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.cost.focus.FocusOutput;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.render.ReportHtml;
import io.gpufleet.cost.render.ReportJson;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last stage of a run, per cluster: the report rendered as cost.json, cost.csv and cost.html
 * under the cluster's and window's prefix, and as FOCUS Parquet where that output is on.
 */
final class RenderStage {
  private final BlobStorePort store;

  RenderStage(BlobStorePort store) {
    this.store = store;
  }

  static String reportPrefix(String cluster, ReportWindow w) {
    return "reports/" + cluster + "/" + w.id() + "/";
  }

  /** Writes the report's files; answers where each went, by name (json, csv, html, focus). */
  Map<String, String> write(
      String cluster, ReportWindow window, CostReport report, FocusOutput focus) {
    String prefix = reportPrefix(cluster, window);
    var outputs = new LinkedHashMap<String, String>();
    put(prefix + "cost.json", ReportJson.json(report), "application/json", outputs, "json");
    put(prefix + "cost.csv", ReportJson.csv(report), "text/csv; charset=utf-8", outputs, "csv");
    put(prefix + "cost.html", ReportHtml.html(report), "text/html; charset=utf-8", outputs, "html");
    focus.key(cluster, window).ifPresent(k -> outputs.put("focus", focus.write(store, k, report)));
    return outputs;
  }

  private void put(String key, byte[] body, String type, Map<String, String> outputs, String name) {
    store.put(key, body, type);
    outputs.put(name, store.locate(key));
  }
}
