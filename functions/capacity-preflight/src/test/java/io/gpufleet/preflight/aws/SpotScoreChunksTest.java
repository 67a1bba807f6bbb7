package io.gpufleet.preflight.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpotScoreChunksTest {

  @ParameterizedTest(name = "{0} regions → calls of {1}")
  @CsvSource({"0, ''", "1, 1", "10, 10", "11, 6 5", "17, 9 8", "20, 10 10", "25, 9 8 8"})
  void shouldSplitRegionsIntoTheFewestBalancedCallsOfAtMostTen(int regions, String sizes) {
    var items = IntStream.range(0, regions).mapToObj(i -> "r" + i).toList();

    var chunks = Ec2CapacityAdapter.chunks(items, Ec2CapacityAdapter.MAX_REGIONS_PER_CALL);

    var expected =
        sizes.isBlank()
            ? List.of(0)
            : List.of(sizes.split(" ")).stream().map(Integer::valueOf).toList();
    assertThat(chunks).extracting(List::size).containsExactlyElementsOf(expected);
    assertThat(chunks.stream().flatMap(List::stream)).containsExactlyElementsOf(items);
  }
}
