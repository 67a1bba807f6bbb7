package io.gpufleet.preflight;

import io.gpufleet.core.lambda.LocalContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code java -jar capacity-preflight-lambda.jar EVENT.json} (or {@code -} for stdin): runs the
 * handler once as Lambda would, with configuration from the environment, and prints the outcome.
 */
public final class LocalInvoke {
  private LocalInvoke() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: java -jar capacity-preflight-lambda.jar EVENT.json|-");
      System.exit(2);
    }
    byte[] payload =
        args[0].equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(args[0]));
    var handler = new PreflightHandler();
    handler.handleRequest(
        new ByteArrayInputStream(payload),
        System.out,
        new LocalContext("capacity-preflight", 300_000));
    System.out.println();
    System.out.flush();
    System.exit(0);
  }
}
