package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The CPU share, JVM flags and price of a Lambda memory size. */
class LambdaShareTest {

  @ParameterizedTest(name = "{0} MB -> quota {1} us per 100 ms")
  @CsvSource({
    "128,7236",
    "512,28943",
    "1024,57886",
    "1536,86829",
    "1769,100000",
    "2048,115772",
    "3008,170040",
    "10240,578858"
  })
  void shouldGiveOneCpuPer1769MbAsACfsQuotaPer100Ms(int memoryMb, long quotaUs) {
    var share = new LambdaShare(memoryMb);

    assertThat(share.quotaUs()).isEqualTo(quotaUs);
    assertThat(LambdaShare.PERIOD_US).isEqualTo(100_000);
    assertThat(share.cpus())
        .isCloseTo(memoryMb / 1769.0, org.assertj.core.data.Offset.offset(1e-9));
  }

  @ParameterizedTest(name = "{0} MB shows {1} CPUs")
  @CsvSource({
    "128,2", "1024,2", "3008,2", "3009,3", "5307,3", "5308,4", "7076,4", "7077,5", "8845,5",
    "8846,6", "10240,6"
  })
  void shouldShowTheCpuCountLambdaEnvironmentsShow(int memoryMb, int cpus) {
    assertThat(new LambdaShare(memoryMb).visibleCpus()).isEqualTo(cpus);
  }

  @Test
  void shouldSizeTheHeapAsTheJavaRuntimeDoes() {
    // the java17/21 runtime starts a 512 MB function with -XX:MaxHeapSize=445645k
    assertThat(new LambdaShare(512).maxHeapKib()).isEqualTo(445_645);
    assertThat(new LambdaShare(1024).jvmFlags())
        .containsExactly(
            "-XX:MaxHeapSize=891290k",
            "-XX:MaxRAM=1024m",
            "-XX:ActiveProcessorCount=2",
            "-XX:+UseSerialGC",
            "-XX:+TieredCompilation",
            "-XX:TieredStopAtLevel=1",
            "-Djava.net.preferIPv4Stack=true",
            "-Xmn96m",
            "-XX:MetaspaceSize=64m");
  }

  @Test
  void shouldPriceAnInvocationAsDurationInGbSecondsPlusTheRequest() {
    // 1 GB for 1 s = 1 GB-second
    assertThat(new LambdaShare(1024).usdPerInvocation(1000))
        .isEqualByComparingTo(new BigDecimal("0.0000166667").add(new BigDecimal("0.0000002")));
    // 2 GB for 500 ms = 1 GB-second as well
    assertThat(new LambdaShare(2048).usdPerInvocation(500))
        .isEqualByComparingTo(new LambdaShare(1024).usdPerInvocation(1000));
  }

  @Test
  void shouldBillDurationRoundedUpToTheNextMillisecond() {
    assertThat(new LambdaShare(1024).usdPerInvocation(1.2))
        .isEqualByComparingTo(new LambdaShare(1024).usdPerInvocation(2));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 127, 10_241})
  void shouldRejectSizesLambdaDoesNotOffer(int memoryMb) {
    assertThatThrownBy(() -> new LambdaShare(memoryMb))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("128 to 10240 MB");
  }
}
