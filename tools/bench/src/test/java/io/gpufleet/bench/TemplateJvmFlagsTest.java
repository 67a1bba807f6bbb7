package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.testkit.lambda.SamTemplate;
import java.util.Arrays;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bench cold} starts the function's JVM with {@link LambdaShare#jvmFlags()} and drops any
 * JAVA_TOOL_OPTIONS of the caller: every option template.yaml sets in JAVA_TOOL_OPTIONS must be
 * among those flags, or the cold figures would be measured with another JIT/GC than Lambda runs.
 */
class TemplateJvmFlagsTest {
  static final Pattern OPTIONS = Pattern.compile("(?m)^\\s+JAVA_TOOL_OPTIONS:\\s*(.+?)\\s*$");

  @ParameterizedTest(name = "{0} MB")
  @ValueSource(ints = {1024, 1536, 3008})
  void shouldStartTheColdJvmWithEveryOptionTheTemplateSets(int memoryMb) throws Exception {
    var m = OPTIONS.matcher(SamTemplate.projectTemplateText());
    int found = 0;
    while (m.find()) {
      found++;
      var options = Arrays.asList(m.group(1).replace("\"", "").split("\\s+"));
      assertThat(new LambdaShare(memoryMb).jvmFlags()).containsAll(options);
    }
    assertThat(found).as("JAVA_TOOL_OPTIONS in template.yaml").isPositive();
  }
}
