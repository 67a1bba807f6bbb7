package io.gpufleet.preflight;

/** The one line of a failure a report, note or rejection shows. */
final class ErrorText {
  private ErrorText() {}

  /** The first line of the message (at most 240 characters), else the exception's simple name. */
  static String brief(Throwable t) {
    if (t == null) {
      return "unknown error";
    }
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return t.getClass().getSimpleName();
    }
    m = m.lines().findFirst().orElse(m);
    return m.length() > 240 ? m.substring(0, 240) + "…" : m;
  }
}
