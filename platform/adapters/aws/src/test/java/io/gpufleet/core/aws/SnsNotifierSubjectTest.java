package io.gpufleet.core.aws;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The subject rules; publishing itself is covered against an emulator in fleet-sim. */
class SnsNotifierSubjectTest {

  @ParameterizedTest
  @ValueSource(ints = {100, 101, 150, 5_000})
  void shouldCutSubjectsToLessThanOneHundredCharacters(int length) {
    var subject = SnsNotifierAdapter.subject("x".repeat(length));

    assertThat(subject).hasSize(99).isEqualTo("x".repeat(98) + "…");
  }

  @Test
  void shouldKeepASubjectOfNinetyNineCharacters() {
    assertThat(SnsNotifierAdapter.subject("x".repeat(99))).isEqualTo("x".repeat(99));
  }

  @Test
  void shouldNotSplitASurrogatePairWhenCutting() {
    // Given an emoji (two UTF-16 chars) straddling the cut
    var subject = "x".repeat(97) + "\uD83D\uDE80" + "x".repeat(10);

    // When
    var cut = SnsNotifierAdapter.subject(subject);

    // Then
    assertThat(cut).isEqualTo("x".repeat(97) + "…");
  }

  @Test
  void shouldBlankControlCharacters() {
    assertThat(SnsNotifierAdapter.subject("a\r\nb\tc\u0007d")).isEqualTo("a  b c d");
  }
}
