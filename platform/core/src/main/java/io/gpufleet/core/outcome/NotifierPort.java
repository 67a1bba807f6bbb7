package io.gpufleet.core.outcome;

/** Sends a short human summary (SNS topic and/or Slack webhook). */
public interface NotifierPort {
  void notify(String subject, String message);

  NotifierPort NONE = (subject, message) -> {};

  /** Sends to every notifier; one failing does not stop the others. */
  static NotifierPort all(java.util.List<NotifierPort> notifiers) {
    return (subject, message) -> {
      RuntimeException first = null;
      for (NotifierPort n : notifiers) {
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
