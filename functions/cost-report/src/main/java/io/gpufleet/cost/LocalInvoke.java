package io.gpufleet.cost;

import io.gpufleet.core.lambda.LocalContext;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs the Lambda handler once outside Lambda: {@code java -jar cost-report-lambda.jar EVENT.json}
 * (or the payload on standard input), configured by the same environment variables.
 */
public final class LocalInvoke {
  private LocalInvoke() {}

  public static void main(String[] args) throws Exception {
    byte[] event =
        args.length == 0 || args[0].equals("-")
            ? System.in.readAllBytes()
            : Files.readAllBytes(Path.of(args[0]));
    var handler = new CostHandler();
    var out = new ByteArrayOutputStream();
    handler.handleRequest(
        new java.io.ByteArrayInputStream(event), out, new LocalContext("cost-report", 880_000));
    System.out.println(out.toString(StandardCharsets.UTF_8));
    System.out.flush();
    System.exit(0);
  }
}
