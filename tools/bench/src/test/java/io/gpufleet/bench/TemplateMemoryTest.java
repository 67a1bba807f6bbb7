package io.gpufleet.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.testkit.lambda.SamTemplate;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The memory size each function's benchmarks default to is the one template.yaml deploys (chosen by
 * {@code bench tune}, tables in docs/benchmarks-history.md): a change to one without the other
 * fails here.
 */
class TemplateMemoryTest {
  static final Pattern RESOURCE = Pattern.compile("(?m)^  ([A-Za-z0-9]+):\\s*$");
  static final Pattern MEMORY = Pattern.compile("(?m)^      MemorySize:\\s*(\\d+)\\s*(?:#.*)?$");
  static final Pattern GLOBAL_MEMORY =
      Pattern.compile("(?ms)^Globals:\\s*\\n  Function:.*?^    MemorySize:\\s*(\\d+)\\s*$");

  /** MemorySize of the function whose Handler is {@code handler} (or the Globals' default). */
  static int memorySize(String template, String handler) {
    Matcher g = GLOBAL_MEMORY.matcher(template);
    int global = g.find() ? Integer.parseInt(g.group(1)) : 128;
    int at = template.indexOf("Handler: " + handler);
    assertThat(at).as("a function with Handler %s", handler).isPositive();
    Matcher r = RESOURCE.matcher(template);
    int start = 0;
    int end = template.length();
    while (r.find()) {
      if (r.start() < at) {
        start = r.start();
      } else {
        end = r.start();
        break;
      }
    }
    Matcher m = MEMORY.matcher(template.substring(start, end));
    return m.find() ? Integer.parseInt(m.group(1)) : global;
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "interruption-drain, io.gpufleet.drain.wiring.DrainHandler::handleRequest",
    "disruption-schedule, io.gpufleet.schedule.wiring.ScheduleHandler::handleRequest",
    "capacity-preflight, io.gpufleet.preflight.wiring.PreflightHandler::handleRequest",
    "cost-report, io.gpufleet.cost.wiring.CostHandler::handleRequest"
  })
  void shouldBenchmarkEachFunctionAtTheMemorySizeTheTemplateDeploys(String function, String handler)
      throws Exception {
    assertThat(memorySize(SamTemplate.projectTemplateText(), handler))
        .isEqualTo(LambdaShare.TEMPLATE_MEMORY_MB.get(function));
  }

  @org.junit.jupiter.api.Test
  void shouldReadAFunctionsOwnMemorySizeBeforeTheGlobalOne() {
    String t =
        String.join(
            "\n",
            List.of(
                "Globals:",
                "  Function:",
                "    MemorySize: 1024",
                "Resources:",
                "  A:",
                "    Properties:",
                "      Handler: a.A::handleRequest",
                "  B:",
                "    Properties:",
                "      Handler: b.B::handleRequest",
                "      MemorySize: 1769 # tuned",
                ""));
    assertThat(
            Map.of(
                "a", memorySize(t, "a.A::handleRequest"), "b", memorySize(t, "b.B::handleRequest")))
        .containsEntry("a", 1024)
        .containsEntry("b", 1769);
  }
}
