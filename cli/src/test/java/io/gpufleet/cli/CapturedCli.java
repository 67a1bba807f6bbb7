package io.gpufleet.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * For tests of the gpufleet command as a user meets it: {@link #run} runs {@link Main#run} in this
 * JVM with stdout and stderr captured (fresh for each test, as JUnit makes an instance per test).
 */
abstract class CapturedCli {
  final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
  final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

  /** Runs {@code gpufleet argv...}; returns its exit code. */
  int run(String... argv) {
    return Main.run(
        List.of(argv),
        new PrintStream(outBytes, true, StandardCharsets.UTF_8),
        new PrintStream(errBytes, true, StandardCharsets.UTF_8));
  }

  /** What the runs so far wrote to stdout. */
  String out() {
    return outBytes.toString(StandardCharsets.UTF_8);
  }

  /** What the runs so far wrote to stderr. */
  String err() {
    return errBytes.toString(StandardCharsets.UTF_8);
  }
}
