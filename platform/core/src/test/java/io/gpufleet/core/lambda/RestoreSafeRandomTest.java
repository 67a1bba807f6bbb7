package io.gpufleet.core.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RestoreSafeRandomTest {

  @Test
  void shouldDrawWithinTheAskedBounds() {
    for (int i = 0; i < 1000; i++) {
      assertThat(RestoreSafeRandom.nextDouble()).isGreaterThanOrEqualTo(0).isLessThan(1);
      assertThat(RestoreSafeRandom.nextLong(7)).isBetween(0L, 6L);
      assertThat(RestoreSafeRandom.nextInt(16, 250)).isBetween(16, 249);
    }
  }

  @Test
  void shouldDropTheGeneratorOfInitWhenSnapStartRenews() {
    SecureRandom init = RestoreSafeRandom.generator();

    SnapStart.afterRestore();

    assertThat(RestoreSafeRandom.generator()).isNotSameAs(init);
  }

  /**
   * What a restore does to memory, on the generator alone: two copies of one state draw the same
   * sequence (which is why it must be renewed), renewed copies do not.
   */
  @Test
  void shouldDrawDifferentSequencesFromTwoCopiesOfOneStateOnlyWhenRenewed() throws Exception {
    RestoreSafeRandom.nextDouble();
    byte[] snapshot = serialize(RestoreSafeRandom.generator());

    var lockstep = new ArrayList<List<Long>>();
    var renewed = new ArrayList<List<Long>>();
    for (int restore = 0; restore < 2; restore++) {
      RestoreSafeRandom.reinstate(deserialize(snapshot));
      lockstep.add(draw());
      RestoreSafeRandom.reinstate(deserialize(snapshot));
      RestoreSafeRandom.renew();
      renewed.add(draw());
    }

    assertThat(lockstep.get(0)).isEqualTo(lockstep.get(1));
    assertThat(renewed.get(0)).isNotEqualTo(renewed.get(1));
  }

  static List<Long> draw() {
    var out = new ArrayList<Long>();
    for (int i = 0; i < 8; i++) {
      out.add(RestoreSafeRandom.nextLong(Long.MAX_VALUE));
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
