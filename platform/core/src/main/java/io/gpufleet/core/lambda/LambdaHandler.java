package io.gpufleet.core.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Every function's Lambda handler: a {@link LambdaEntry} (how this function decodes, runs and
 * answers) behind the runtime's {@link RequestStreamHandler}. A subclass only builds the entry:
 * from the environment in its no-argument constructor (Lambda's), from given parts in the others
 * (tests, the CLI, simulate).
 */
public abstract class LambdaHandler implements RequestStreamHandler, AutoCloseable {
  private final LambdaEntry<?> entry;

  protected LambdaHandler(LambdaEntry<?> entry) {
    this.entry = entry;
  }

  @Override
  public final void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    entry.handle(input, output, context);
  }

  /** One-shot local runs only ({@link LocalInvoker}): lets go of the entry's clients. */
  @Override
  public final void close() {
    entry.close();
  }
}
