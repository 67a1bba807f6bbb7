package io.gpufleet.schedule.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.schedule.policy.Policy.WorkloadKind;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PolicyParserTest {
  static final String VALID =
      """
      apiVersion: gpufleet.io/v1
      kind: DisruptionSchedule
      timeZone: Europe/Berlin
      defaultWindow: off-hours
      windows:
        business-hours: { days: mon-fri, hours: "08:00-19:00" }
        night-batch: { days: [sat], hours: "22:00-02:00" }
      holidays: [2026-12-24, 2026-12-25]
      gracePeriod: 30m
      nodePools:
        - name: gpu
          selector: { names: [gpu-a100], labels: { team: ml } }
          windows:
            business-hours: { budgets: [{ nodes: "10%" }], consolidateAfter: 30m }
            off-hours: { budgets: [{ nodes: "50%", reasons: [Underutilized, Empty] }, { nodes: "3" }] }
      workloads:
        - name: batch
          selector: { namespaces: [ml], labels: { tier: batch } }
          kinds: [Deployment, HPA]
          replicas: { off-hours: 0, night-batch: 2 }
        - name: opted-in
          selector: { annotation: gpufleet.io/off-hours }
          replicas: { off-hours: 1 }
      """;

  @Test
  void shouldReadEveryPartOfAValidYamlPolicy() {
    Policy p = PolicyParser.parse(VALID, "test.yaml");

    assertThat(p.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
    assertThat(p.defaultWindow()).isEqualTo("off-hours");
    assertThat(p.windows()).hasSize(2);
    var business = p.windows().get(0);
    assertThat(business.days()).isEqualTo(EnumSet.range(DayOfWeek.MONDAY, DayOfWeek.FRIDAY));
    assertThat(business.startMinute()).isEqualTo(8 * 60);
    assertThat(business.endMinute()).isEqualTo(19 * 60);
    assertThat(p.windows().get(1).crossesMidnight()).isTrue();
    assertThat(p.holidays())
        .containsExactlyInAnyOrder(LocalDate.of(2026, 12, 24), LocalDate.of(2026, 12, 25));
    assertThat(p.gracePeriod()).isEqualTo(Duration.ofMinutes(30));
    assertThat(p.excludeAnnotation()).isEqualTo("gpufleet.io/exclude");
    var pool = p.nodePools().get(0);
    assertThat(pool.windows().get("off-hours").budgets()).hasSize(2);
    assertThat(pool.windows().get("off-hours").budgets().get(0).reasons())
        .containsExactly("Underutilized", "Empty");
    assertThat(pool.windows().get("business-hours").consolidateAfter()).isEqualTo("30m");
    assertThat(pool.windows().get("off-hours").consolidateAfter()).isNull();
    assertThat(p.workloads().get(0).kinds())
        .isEqualTo(Set.of(WorkloadKind.DEPLOYMENT, WorkloadKind.HPA));
    assertThat(p.workloads().get(0).replicas())
        .containsEntry("off-hours", 0)
        .containsEntry("night-batch", 2);
    assertThat(p.workloads().get(1).kinds()).isEqualTo(EnumSet.allOf(WorkloadKind.class));
    assertThat(p.workloads().get(1).selector().annotation()).isEqualTo("gpufleet.io/off-hours");
  }

  @Test
  void shouldReadTheSamePolicyAsJson() {
    String json =
        """
        {"timeZone":"America/New_York","defaultWindow":"off-hours",
         "windows":{"business-hours":{"days":["mon","tue","wed","thu","fri"],"hours":"09:00-17:00"}},
         "nodePools":[{"name":"gpu","selector":{"names":["gpu"]},
           "windows":{"off-hours":{"budgets":[{"nodes":"100%"}]}}}]}
        """;
    Policy p = PolicyParser.parse(json, "inline");
    assertThat(p.zone().getId()).isEqualTo("America/New_York");
    assertThat(p.nodePools().get(0).windows().get("off-hours").budgets().get(0).nodes())
        .isEqualTo("100%");
    assertThat(p.workloads()).isEmpty();
  }

  /** Each mistake, alone in an otherwise valid policy, and the message it must produce. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          unknown time zone       | timeZone: Europe/Berlin                  | timeZone: Europe/Atlantis            | timeZone: unknown time zone 'Europe/Atlantis'
          zone abbreviation       | timeZone: Europe/Berlin                  | timeZone: CET                         | timeZone: 'CET' is not an IANA time zone
          bad HH:MM               | hours: "08:00-19:00"                     | hours: "8am-7pm"                      | windows.business-hours.hours: '8am-7pm' is not HH:MM-HH:MM
          hour out of range       | hours: "08:00-19:00"                     | hours: "08:00-25:00"                  | windows.business-hours.hours: end '25:00' is not a valid HH:MM time
          minute out of range     | hours: "08:00-19:00"                     | hours: "08:60-19:00"                  | windows.business-hours.hours: start '08:60' is not a valid HH:MM time
          empty window            | hours: "08:00-19:00"                     | hours: "08:00-08:00"                  | windows.business-hours.hours: '08:00-08:00' is empty
          overlapping windows     | days: [sat], hours: "22:00-02:00"        | days: [fri], hours: "18:00-02:00"     | windows.night-batch: overlaps window 'business-hours' (08:00-19:00) on Friday at 18:00
          overlap after midnight  | days: [sat], hours: "22:00-02:00"        | days: [sun], hours: "22:00-09:00"     | windows.night-batch: overlaps window 'business-hours' (08:00-19:00) on Monday at 08:00
          percent above 100       | nodes: "10%"                             | nodes: "150%"                         | nodePools[0].windows.business-hours.budgets[0].nodes: '150%' is outside 0-100%
          negative nodes          | nodes: "10%"                             | nodes: "-5%"                          | nodePools[0].windows.business-hours.budgets[0].nodes: '-5%' is neither a percentage
          unknown workload kind   | kinds: [Deployment, HPA]                 | kinds: [Deployment, CronJob]          | workloads[0].kinds[1]: 'CronJob' is not a workload kind
          unknown document kind   | kind: DisruptionSchedule                 | kind: NodePool                        | kind: 'NodePool' is not a known kind (expected DisruptionSchedule)
          unknown day             | days: mon-fri                            | days: mon-fry                         | windows.business-hours.days: 'mon-fry' is not a day
          unknown window in rule  | replicas: { off-hours: 0, night-batch: 2 } | replicas: { weekend: 0 }            | workloads[0].replicas.weekend: unknown window 'weekend'
          negative replicas       | replicas: { off-hours: 0, night-batch: 2 } | replicas: { off-hours: -1 }         | workloads[0].replicas.off-hours: '-1' is not a replica count
          unknown reason          | reasons: [Underutilized, Empty]          | reasons: [Expired]                    | budgets[0].reasons[0]: 'Expired' is not a disruption reason
          bad consolidateAfter    | consolidateAfter: 30m                    | consolidateAfter: soon                | consolidateAfter: 'soon' is not a duration
          bad holiday             | holidays: [2026-12-24, 2026-12-25]       | holidays: [2026-12-32]                | holidays[0]: '2026-12-32' is not a date
          unknown field           | gracePeriod: 30m                         | gracePeriodd: 30m                     | gracePeriodd: unknown field
          bad grace period        | gracePeriod: 30m                         | gracePeriod: half an hour             | gracePeriod: 'half an hour' is not a duration
          """)
  void shouldRejectEachMistakeWithAPreciseMessage(
      String name, String replace, String with, String expected) {
    String text = VALID.replace(replace.strip(), with.strip());
    assertThat(text).as("the fixture must contain the replaced text").isNotEqualTo(VALID);

    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOf(PolicyException.class)
        .hasMessageContaining("policy p.yaml is invalid")
        .hasMessageContaining(expected.strip());
  }

  @Test
  void shouldReportEveryProblemAtOnce() {
    String text = VALID.replace("Europe/Berlin", "Mars/Olympus").replace("\"10%\"", "\"101%\"");
    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .isInstanceOfSatisfying(
            PolicyException.class,
            e ->
                assertThat(e.problems())
                    .hasSize(2)
                    .anySatisfy(m -> assertThat(m).startsWith("timeZone:"))
                    .anySatisfy(m -> assertThat(m).contains("'101%' is outside 0-100%")));
  }

  @Test
  void shouldRejectAMissingTimeZoneAndDefaultWindow() {
    assertThatThrownBy(() -> PolicyParser.parse("windows: {}", "p.yaml"))
        .hasMessageContaining("timeZone: is required")
        .hasMessageContaining("defaultWindow: is required");
  }

  @Test
  void shouldRejectAnEmptyOrUnparsableDocument() {
    assertThatThrownBy(() -> PolicyParser.parse("  ", "p.yaml"))
        .hasMessageContaining("the document is empty");
    assertThatThrownBy(() -> PolicyParser.parse("timeZone: [unclosed", "p.yaml"))
        .hasMessageContaining("not valid YAML/JSON");
  }

  @Test
  void shouldRejectADefaultWindowThatHasHours() {
    String text = VALID.replace("night-batch: { days: [sat]", "off-hours: { days: [sat]");
    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .hasMessageContaining("windows.off-hours: the default window has no hours");
  }

  @Test
  void shouldRejectASelectorThatSelectsEverything() {
    String text =
        VALID.replace("selector: { namespaces: [ml], labels: { tier: batch } }", "selector: {}");
    assertThatThrownBy(() -> PolicyParser.parse(text, "p.yaml"))
        .hasMessageContaining("workloads[0].selector: selects every workload in the cluster");
  }

  @Test
  void shouldAcceptAWholeDayWindowEndingAt24() {
    String text =
        VALID.replace("days: [sat], hours: \"22:00-02:00\"", "days: [sun], hours: \"00:00-24:00\"");
    Policy p = PolicyParser.parse(text, "p.yaml");
    assertThat(p.windows().get(1).endMinute()).isEqualTo(1440);
    assertThat(p.windows().get(1).crossesMidnight()).isFalse();
  }
}
