package io.gpufleet.cost.render;

import java.util.List;

/**
 * One chart of the cost page: its frame and its shapes in drawing order. The geometry is computed
 * in {@link ReportHtml}; {@code svg.jte} writes the markup (and escapes every text).
 */
public record Svg(String id, int width, int height, String title, List<Shape> shapes) {

  /** A rectangle or a text, drawn in list order. */
  public sealed interface Shape permits Rect, Text {}

  /** {@code title} is the hover text, null for none. */
  public record Rect(String cls, String x, String y, String w, String h, String title)
      implements Shape {}

  /** {@code cls} is null for none. */
  public record Text(String x, String y, String cls, String text) implements Shape {}
}
