package io.gpufleet.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.json.CfnYaml;
import io.gpufleet.core.json.Json;
import io.gpufleet.core.outcome.Metric;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Whether template.yaml's dashboard and alarms agree with what the functions publish: every metric
 * a widget names is declared by the function of its Service dimension with exactly those
 * dimensions, every alarm on our namespace names a published metric, and every published metric is
 * on a widget or an alarm unless {@link Dashboard#DELIBERATELY_UNGRAPHED} says why not.
 */
public final class DashboardCheck {
  private static final Pattern SEARCH =
      Pattern.compile(
          "SEARCH\\('\\{([^}]*)\\} MetricName=\"([^\"]+)\" Service=\"([^\"]+)\"', '([^']+)', \\d+\\)");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]+)}");

  private final Map<String, Map<String, Metric>> published;
  private final Map<String, String> deliberate;
  private final Set<String> used = new TreeSet<>();
  private final List<String> problems = new ArrayList<>();

  DashboardCheck(Map<String, Map<String, Metric>> published, Map<String, String> deliberate) {
    this.published = published;
    this.deliberate = deliberate;
  }

  /** What is wrong between the template text and the declarations (empty: they agree). */
  public static List<String> problems(String templateText) {
    return new DashboardCheck(Dashboard.publishedByService(), Dashboard.DELIBERATELY_UNGRAPHED)
        .check(CfnYaml.load(templateText));
  }

  @SuppressWarnings("unchecked")
  List<String> check(Map<String, Object> template) {
    var resources = (Map<String, Object>) template.getOrDefault("Resources", Map.of());
    var dashboard = (Map<String, Object>) resources.get(Dashboard.RESOURCE);
    if (dashboard == null || !"AWS::CloudWatch::Dashboard".equals(dashboard.get("Type"))) {
      problems.add("no AWS::CloudWatch::Dashboard resource named " + Dashboard.RESOURCE);
    } else {
      widgets(resources, (Map<String, Object>) dashboard.get("Properties"));
    }
    alarms(resources, Map.of());
    for (var service : published.entrySet()) {
      for (String name : service.getValue().keySet()) {
        String key = service.getKey() + "/" + name;
        if (!used.contains(key) && !deliberate.containsKey(name)) {
          problems.add(
              key
                  + " is published but on no widget and no alarm (graph it or list it as deliberate)");
        }
      }
    }
    return problems;
  }

  @SuppressWarnings("unchecked")
  private void widgets(Map<String, Object> resources, Map<String, Object> properties) {
    if (!Map.of("Ref", "AWS::StackName").equals(properties.get("DashboardName"))) {
      problems.add(
          "the dashboard is not named after the stack (DashboardName: !Ref AWS::StackName)");
    }
    Object sub = ((Map<String, Object>) properties.get("DashboardBody")).get("Fn::Sub");
    String body = sub instanceof List<?> l ? String.valueOf(l.get(0)) : String.valueOf(sub);
    var m = PLACEHOLDER.matcher(body);
    while (m.find()) {
      String ref = m.group(1);
      String resource = ref.contains(".") ? ref.substring(0, ref.indexOf('.')) : ref;
      if (!resource.startsWith("AWS::") && !resources.containsKey(resource)) {
        problems.add("the dashboard refers to ${" + ref + "}: no such resource");
      }
    }
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(PLACEHOLDER.matcher(body).replaceAll("x"));
    } catch (java.io.IOException e) {
      problems.add("the dashboard body is not JSON: " + e.getMessage());
      return;
    }
    for (JsonNode w : root.path("widgets")) {
      for (JsonNode series : w.path("properties").path("metrics")) {
        series(w.path("properties").path("title").asText(), series);
      }
    }
  }

  private void series(String widget, JsonNode s) {
    if (s.size() == 1 && s.get(0).has("expression")) {
      String expression = s.get(0).path("expression").asText();
      var m = SEARCH.matcher(expression);
      if (!m.matches()) {
        problems.add(widget + ": expression not understood: " + expression);
        return;
      }
      var schema = List.of(m.group(1).split(","));
      named(
          widget,
          schema.get(0),
          m.group(3),
          m.group(2),
          Set.copyOf(schema.subList(1, schema.size())));
      return;
    }
    String namespace = s.path(0).asText();
    String name = s.path(1).asText();
    var dims = new HashMap<String, String>();
    for (int i = 2; i + 1 < s.size() && s.get(i).isTextual(); i += 2) {
      dims.put(s.get(i).asText(), s.get(i + 1).asText());
    }
    if (!namespace.equals(Metric.NAMESPACE)) {
      return; // AWS/SQS and the like: published by AWS
    }
    named(widget, namespace, dims.get(Metric.SERVICE), name, dims.keySet());
  }

  private void named(
      String where, String namespace, String service, String name, Set<String> dims) {
    if (!namespace.equals(Metric.NAMESPACE)) {
      problems.add(
          where + ": " + name + " in namespace " + namespace + ", want " + Metric.NAMESPACE);
      return;
    }
    var metrics = service == null ? null : published.get(service);
    if (metrics == null) {
      problems.add(where + ": " + name + " with Service " + service + ": no such function");
      return;
    }
    Metric declared = metrics.get(name);
    if (declared == null) {
      problems.add(where + ": " + service + " publishes no metric " + name);
      return;
    }
    var want = new TreeSet<>(declared.dimensions());
    want.add(Metric.SERVICE);
    if (!new TreeSet<>(dims).equals(want)) {
      problems.add(
          where
              + ": "
              + service
              + "/"
              + name
              + " with dimensions "
              + new TreeSet<>(dims)
              + ", published with "
              + want);
      return;
    }
    used.add(service + "/" + name);
  }

  /** Alarms, Fn::ForEach loops expanded with their bindings. */
  @SuppressWarnings("unchecked")
  private void alarms(Map<String, Object> resources, Map<String, String> bindings) {
    for (var e : resources.entrySet()) {
      if (e.getKey().startsWith("Fn::ForEach::") && e.getValue() instanceof List<?> loop) {
        String var = String.valueOf(loop.get(0));
        if (!(loop.get(1) instanceof List<?> values)) {
          continue;
        }
        for (Object v : values) {
          var inner = new HashMap<>(bindings);
          inner.put(var, String.valueOf(v));
          alarms((Map<String, Object>) loop.get(2), inner);
        }
      } else if (e.getValue() instanceof Map<?, ?> r
          && "AWS::CloudWatch::Alarm".equals(r.get("Type"))) {
        var p = (Map<String, Object>) r.get("Properties");
        String namespace = resolve(p.get("Namespace"), bindings);
        if (!Metric.NAMESPACE.equals(namespace)) {
          continue;
        }
        String service = null;
        var dims = new TreeSet<String>();
        for (Object d : (List<Object>) p.getOrDefault("Dimensions", List.of())) {
          var dim = (Map<String, Object>) d;
          dims.add(String.valueOf(dim.get("Name")));
          if (Metric.SERVICE.equals(dim.get("Name"))) {
            service = resolve(dim.get("Value"), bindings);
          }
        }
        named(
            "alarm " + e.getKey(),
            namespace,
            service,
            resolve(p.get("MetricName"), bindings),
            dims);
      }
    }
  }

  private static String resolve(Object value, Map<String, String> bindings) {
    if (value instanceof Map<?, ?> m && m.get("Ref") instanceof String ref) {
      return bindings.getOrDefault(ref, ref);
    }
    if (value instanceof String s) {
      var m = PLACEHOLDER.matcher(s);
      return m.replaceAll(
          r ->
              java.util.regex.Matcher.quoteReplacement(
                  bindings.getOrDefault(r.group(1), r.group())));
    }
    return String.valueOf(value);
  }
}
