package io.gpufleet.core.outcome;

/** Sends a short human summary (SNS topic and/or Slack webhook). */
public interface Notifier {
  void notify(String subject, String message);

  Notifier NONE = (subject, message) -> {};

  /** Sends to every notifier; one failing does not stop the others. */
  static Notifier all(java.util.List<Notifier> notifiers) {
    return (subject, message) -> {
      RuntimeException first = null;
      for (Notifier n : notifiers) {
        try {
          n.notify(subject, message);
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    };
  }
}
