package io.gpufleet.core.aws;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The form of one request in a query-style protocol (EC2's, and the AWS query protocol of SNS, SQS,
 * STS...): {@code Action} and {@code Version} first, then the parameters in the order they go on
 * the wire, URL-encoded. The protocols differ in how a list is numbered ({@code Name.1} in EC2's,
 * {@code Name.member.1} in query's), which each client's subclass says.
 *
 * @param <P> the subclass, returned by the chaining methods
 */
public abstract class QueryForm<P extends QueryForm<P>> {
  private final String action;
  private final LinkedHashMap<String, String> values = new LinkedHashMap<>();

  protected QueryForm(String action, String version) {
    this.action = action;
    values.put("Action", action);
    values.put("Version", version);
  }

  /** This form's own type, for chaining. */
  protected abstract P self();

  public String action() {
    return action;
  }

  /** A scalar member under its wire name ({@code MaxResults}, {@code TopicArn}). */
  public P put(String name, Object value) {
    values.put(name, String.valueOf(value));
    return self();
  }

  /** {@code prefix.1}, {@code prefix.2}, ... for the items (nothing for an empty list). */
  protected P numbered(String prefix, Collection<String> items) {
    int i = 0;
    for (String item : items) {
      values.put(prefix + "." + ++i, item);
    }
    return self();
  }

  /** Every parameter of {@code other} (same action), then this form's own. */
  protected P copyOf(QueryForm<?> other) {
    values.putAll(other.values);
    return self();
  }

  /** Every parameter, Action and Version included (what an inspector sees). */
  public Map<String, String> asMap() {
    return Collections.unmodifiableMap(values);
  }

  /** The URL-encoded form. */
  String form() {
    var out = new StringBuilder();
    values.forEach(
        (k, v) ->
            out.append(out.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return out.toString();
  }
}
