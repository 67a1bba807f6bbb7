package io.gpufleet.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.core.event.DecodeResult.Decoded;
import io.gpufleet.core.event.DecodeResult.Rejected;
import io.gpufleet.core.event.FleetEvent.AlarmStateChange;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AlarmEventDecoderTest {
  private final EventDecoder decoder = new EventDecoder();

  private static String alarm(String state) {
    return """
        {"version":"0","id":"a1","detail-type":"CloudWatch Alarm State Change",
         "source":"aws.cloudwatch","account":"123456789012","time":"2026-11-30T05:42:10Z",
         "region":"us-east-1","resources":["arn:aws:cloudwatch:us-east-1:123456789012:alarm:q"],
         "detail":{"alarmName":"q",
           "state":{%s},
           "previousState":{"value":"OK","timestamp":"2026-11-30T05:37:10.094+0000"},
           "configuration":{"description":"P Spot",
             "metrics":[{"id":"m1","metricStat":{"metric":{"namespace":"AWS/Usage","name":"ResourceCount",
               "dimensions":{"Service":"EC2","Type":"Resource","Resource":"vCPU","Class":"P/Spot"}},
               "period":300,"stat":"Maximum"},"returnData":false},
               {"id":"e1","expression":"m1 / SERVICE_QUOTA(m1) * 100","returnData":true}]}}}
        """
        .formatted(state);
  }

  @Test
  void shouldDecodeAnAlarmStateChangeWithItsMetricsAndCompactOffsetTimestamp() {
    var result =
        decoder.decodeString(
            alarm(
                "\"value\":\"ALARM\",\"reason\":\"Threshold Crossed\",\"timestamp\":\"2026-11-30T05:42:10.121+0000\""));

    assertThat(result).isInstanceOf(Decoded.class);
    var e = (AlarmStateChange) ((Decoded) result).event();
    assertThat(e.alarmName()).isEqualTo("q");
    assertThat(e.state()).isEqualTo("ALARM");
    assertThat(e.previousState()).isEqualTo("OK");
    assertThat(e.stateTime()).isEqualTo(Instant.parse("2026-11-30T05:42:10.121Z"));
    assertThat(e.description()).isEqualTo("P Spot");
    assertThat(e.metricIn("AWS/Usage"))
        .hasValueSatisfying(m -> assertThat(m.dimensions()).containsEntry("Class", "P/Spot"));
    assertThat(e.metrics()).hasSize(2);
    assertThat(e.metrics().get(1).expression()).isEqualTo("m1 / SERVICE_QUOTA(m1) * 100");
  }

  @Test
  void shouldRejectAnUnknownStateWithTheReason() {
    var result = decoder.decodeString(alarm("\"value\":\"MAYBE\""));

    assertThat(result).isInstanceOf(Rejected.class);
    assertThat(((Rejected) result).reason()).contains("detail.state.value 'MAYBE' is not one of");
    assertThat(((Rejected) result).eventId()).isEqualTo("a1");
  }

  @Test
  void shouldRejectAnAlarmWithoutState() {
    var result =
        decoder.decodeString(
            alarm("\"value\":\"ALARM\"")
                .replace("\"state\":{\"value\":\"ALARM\"}", "\"state\":\"ALARM\""));

    assertThat(((Rejected) result).reason()).isEqualTo("detail field 'state' must be an object");
  }
}
