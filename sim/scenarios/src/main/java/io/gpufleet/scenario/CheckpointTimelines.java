package io.gpufleet.scenario;

import io.gpufleet.drain.model.CheckpointReport;
import io.gpufleet.drain.model.DrainOutcome;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;

/** The checkpoint timelines of a drain's opted-in pods, as {@code simulate} prints them. */
public final class CheckpointTimelines {
  private CheckpointTimelines() {}

  /** Nothing when no pod of the outcome opted in; times are seconds after the event's receipt. */
  public static void print(PrintStream out, DrainOutcome o) {
    if (o.checkpoints() == null || o.checkpoints().isEmpty()) {
      return;
    }
    out.println();
    out.println(
        "Checkpoints on "
            + o.node()
            + " ("
            + o.kind()
            + (o.deadline() == null ? "" : ", deadline +" + secs(o, o.deadline()))
            + "):");
    for (CheckpointReport c : o.checkpoints()) {
      out.println(
          "  "
              + c.pod()
              + "  wants "
              + c.wants()
              + "  told +"
              + secs(o, c.toldAt())
              + "  checkpoint "
              + (c.made()
                  ? "done +" + secs(o, Instant.parse(c.checkpointDone()))
                  : c.checkpointDone())
              + (c.evictedAt() == null ? "  not evicted" : "  evicted +" + secs(o, c.evictedAt()))
              + (c.latestEviction() == null || c.made()
                  ? ""
                  : " (latest safe moment +" + secs(o, c.latestEviction()) + ")")
              + (c.note() == null ? "" : "  " + c.note()));
    }
  }

  private static String secs(DrainOutcome o, Instant at) {
    if (at == null) {
      return "-";
    }
    return String.format("%.1fs", Duration.between(o.receivedAt(), at).toMillis() / 1000.0);
  }
}
