package io.gpufleet.schedule;

import io.gpufleet.core.lambda.LocalContext;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the Lambda handler once outside Lambda: {@code java -jar disruption-schedule-lambda.jar
 * EVENT.json} (or the event on standard input), configured by the same environment variables.
 */
public final class LocalInvoke {
  private LocalInvoke() {}

  public static void main(String[] args) throws Exception {
    byte[] event;
    if (args.length == 0 || args[0].equals("-")) {
      event = System.in.readAllBytes();
    } else {
      event = Files.readAllBytes(Path.of(args[0]));
    }
    long t0 = System.nanoTime();
    var handler = new ScheduleHandler();
    long t1 = System.nanoTime();
    var out = new ByteArrayOutputStream();
    try (InputStream in = new java.io.ByteArrayInputStream(event)) {
      handler.handleRequest(in, out, new LocalContext("disruption-schedule", 170_000));
    }
    long t2 = System.nanoTime();
    if (System.getenv("GPUFLEET_TIMINGS") != null) {
      long jvmStart =
          ProcessHandle.current()
              .info()
              .startInstant()
              .map(java.time.Instant::toEpochMilli)
              .orElse(0L);
      System.err.printf(
          "timings: jvm->main %d ms, init %d ms, handle %d ms%n",
          System.currentTimeMillis() - jvmStart - (t2 - t0) / 1_000_000,
          (t1 - t0) / 1_000_000,
          (t2 - t1) / 1_000_000);
    }
    System.out.println(out.toString(StandardCharsets.UTF_8));
    System.out.flush();
    // JVM exit waits (~0.3 s) for threads blocked in native code, such as the HTTP client's
    // selector: close the client first
    handler.close();
    // the HTTP clients keep non-daemon worker threads; a one-shot invoke ends here
    System.exit(0);
  }
}
