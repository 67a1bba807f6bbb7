package io.gpufleet.core.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.Supplier;

/**
 * Every function's Lambda handler: a {@link LambdaEntry} (how this function decodes, runs and
 * answers) behind the runtime's {@link RequestStreamHandler}. A subclass only builds the entry:
 * from the environment in its no-argument constructor (Lambda's), from given parts in the others
 * (tests, the CLI, simulate).
 */
public abstract class LambdaHandler implements RequestStreamHandler, AutoCloseable {
  private final Supplier<? extends LambdaEntry<?>> entry;

  protected LambdaHandler(LambdaEntry<?> entry) {
    this.entry = () -> entry;
  }

  /**
   * An entry asked for anew at every event: a {@link Rewiring} rebuilds it when the function's
   * settings document changes.
   */
  protected LambdaHandler(Supplier<? extends LambdaEntry<?>> entry) {
    this.entry = entry;
  }

  @Override
  public final void handleRequest(InputStream input, OutputStream output, Context context)
      throws IOException {
    entry.get().handle(input, output, context);
  }

  /** One-shot local runs only ({@link LocalInvoker}): lets go of the entry's clients. */
  @Override
  public final void close() {
    entry.get().close();
  }
}
