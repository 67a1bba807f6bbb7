package io.gpufleet.core.lambda;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a child JVM by {@code io.gpufleet.drain.SnapshotRestoreRandomnessIT} the way the java21
 * runtime runs a function (org.crac bridged to the runtime interface client's CRaC context, the
 * drain's deployment jar): INIT primes through {@link SnapStartPriming} with a draw (so the
 * generator exists in the snapshot), the client's beforeCheckpoint runs, and the jitter generator's
 * state is taken as the snapshot holds it. Each "restore" puts that state back, as resuming from
 * the snapshot does to memory, runs the client's afterRestore and draws; then the same without the
 * hooks. Prints the four sequences.
 */
public final class SnapshotRestoreProbe {
  private SnapshotRestoreProbe() {}

  public static void main(String[] args) throws Exception {
    var kept =
        SnapStartPriming.register(
            SnapshotRestoreProbe.class, "randomness probe", RestoreSafeRandom::nextDouble);
    Class.forName("com.amazonaws.services.lambda.runtime.api.client.runtimeapi.JniHelper")
        .getMethod("load")
        .invoke(null);
    Object context =
        Class.forName("com.amazonaws.services.lambda.crac.Core")
            .getMethod("getGlobalContext")
            .invoke(null);
    Class<?> ctx = Class.forName("com.amazonaws.services.lambda.crac.Context");
    ctx.getMethod("beforeCheckpoint", ctx).invoke(context, (Object) null);
    byte[] snapshot = serialize(RestoreSafeRandom.generator());

    for (int restore = 1; restore <= 2; restore++) {
      RestoreSafeRandom.reinstate(deserialize(snapshot));
      ctx.getMethod("afterRestore", ctx).invoke(context, (Object) null);
      System.out.println("restored-" + restore + "=" + draw());
    }
    for (int restore = 1; restore <= 2; restore++) {
      RestoreSafeRandom.reinstate(deserialize(snapshot));
      System.out.println("unhooked-" + restore + "=" + draw());
    }
    System.out.println("kept=" + (kept != null));
  }

  /** Eight jitters as the drain's eviction retries and the AWS clients' backoff draw them. */
  static List<Long> draw() {
    var out = new ArrayList<Long>();
    for (int i = 0; i < 4; i++) {
      out.add(RestoreSafeRandom.nextLong(1_000_001));
      out.add((long) (RestoreSafeRandom.nextDouble() * 20_000));
    }
    return out;
  }

  static byte[] serialize(SecureRandom g) throws Exception {
    var bytes = new ByteArrayOutputStream();
    try (var out = new ObjectOutputStream(bytes)) {
      out.writeObject(g);
    }
    return bytes.toByteArray();
  }

  static SecureRandom deserialize(byte[] b) throws Exception {
    try (var in = new ObjectInputStream(new ByteArrayInputStream(b))) {
      return (SecureRandom) in.readObject();
    }
  }
}
