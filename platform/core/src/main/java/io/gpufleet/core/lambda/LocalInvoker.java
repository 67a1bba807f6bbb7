package io.gpufleet.core.lambda;

import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Runs a function's Lambda handler once outside Lambda: {@code java -jar FUNCTION-lambda.jar
 * EVENT.json} (or {@code -} / nothing for standard input), configured by the same environment
 * variables, and prints what the handler answered. Every function's jar has this as its main class
 * (through a one-line {@code LocalInvoke}).
 */
public final class LocalInvoker {
  private LocalInvoker() {}

  /**
   * @param timeoutMillis what {@code getRemainingTimeInMillis()} starts at: the function's timeout
   * @param handler builds the handler the way Lambda does (its no-argument constructor); a handler
   *     that is {@link AutoCloseable} is closed before the JVM exits
   */
  public static void run(
      String[] args, String functionName, int timeoutMillis, Supplier<RequestStreamHandler> handler)
      throws Exception {
    byte[] event =
        args.length == 0 || args[0].equals("-")
            ? System.in.readAllBytes()
            : Files.readAllBytes(Path.of(args[0]));
    long t0 = System.nanoTime();
    RequestStreamHandler h = handler.get();
    long t1 = System.nanoTime();
    var out = new ByteArrayOutputStream();
    h.handleRequest(
        new ByteArrayInputStream(event), out, new LocalContext(functionName, timeoutMillis));
    long t2 = System.nanoTime();
    if (System.getenv("GPUFLEET_TIMINGS") != null) {
      // CPU time of the whole process so far (JVM start included): what a CPU share divides, so
      // it compares runs on a busy host better than wall time does
      long cpuMs =
          ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L);
      System.err.printf(
          "timings: init %d ms, handle %d ms, process cpu %d ms%n",
          (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, cpuMs);
    }
    System.out.println(out.toString(StandardCharsets.UTF_8));
    System.out.flush();
    // JVM exit waits (~0.3 s) for threads blocked in native code, such as an HTTP client's
    // selector: close the handler's clients first
    if (h instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        System.err.println("gpufleet: could not close the handler's clients: " + e);
      }
    }
    // the HTTP clients keep non-daemon worker threads; a one-shot invoke ends here
    System.exit(0);
  }
}
