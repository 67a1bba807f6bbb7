package io.gpufleet.drain;

import java.util.ArrayList;
import java.util.List;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;

/**
 * Run in a child JVM by {@link SnapStartHookOrderIT} the way the java21 runtime runs a function
 * (org.crac bridged to the runtime interface client's CRaC context): registers three resources it
 * keeps and one it drops, then drives the hooks as the client's AWSLambda does around {@code
 * restore/next}, and prints the order they ran in.
 */
public final class CracOrderProbe {
  static final List<String> RAN = new ArrayList<>();

  record Named(String name) implements Resource {
    @Override
    public void beforeCheckpoint(Context<? extends Resource> context) {
      RAN.add("before:" + name);
    }

    @Override
    public void afterRestore(Context<? extends Resource> context) {
      RAN.add("after:" + name);
    }
  }

  private CracOrderProbe() {}

  public static void main(String[] args) throws Exception {
    var kept = List.of(new Named("A"), new Named("B"), new Named("C"));
    for (var r : kept) {
      Core.getGlobalContext().register(r);
    }
    Core.getGlobalContext().register(new Named("dropped"));
    System.gc();
    // what AWSLambda does once INIT is over (the JNI library backs the client's DNS cache reset)
    Class.forName("com.amazonaws.services.lambda.runtime.api.client.runtimeapi.JniHelper")
        .getMethod("load")
        .invoke(null);
    var context =
        Class.forName("com.amazonaws.services.lambda.crac.Core")
            .getMethod("getGlobalContext")
            .invoke(null);
    Class<?> ctx = Class.forName("com.amazonaws.services.lambda.crac.Context");
    ctx.getMethod("beforeCheckpoint", ctx).invoke(context, (Object) null);
    RAN.add("restore/next");
    ctx.getMethod("afterRestore", ctx).invoke(context, (Object) null);
    System.out.println("order=" + String.join(",", RAN) + " kept=" + kept.size());
  }
}
