package io.gpufleet.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpufleet.core.config.ConfigException;
import java.time.Clock;
import org.junit.jupiter.api.Test;

/** The decoder's entry refuses events of accounts the stack does not accept, whatever the kind. */
class AccountFilterTest {
  static final String SPOT =
      """
      {"version":"0","id":"1e5527d7-bb36-4607-3370-4164db56a40e",
       "detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2",
       "account":"%s","time":"2026-03-02T21:00:00Z","region":"us-east-1",
       "resources":["arn:aws:ec2:us-east-1b:instance/i-0b662ef9931388ba0"],
       "detail":{"instance-id":"i-0b662ef9931388ba0","instance-action":"terminate"}}
      """;

  @Test
  void shouldRefuseASpotWarningFromAnotherAccountBeforeParsingIt() {
    var decoder =
        new EventDecoder(Clock.systemUTC(), "us-east-1", AccountFilter.parse("111122223333"));

    var result = decoder.decodeString(SPOT.formatted("999988887777"));

    assertThat(result).isInstanceOf(DecodeResult.Rejected.class);
    assertThat(((DecodeResult.Rejected) result).reason())
        .isEqualTo(
            "account '999988887777' is not one this stack accepts events from (111122223333;"
                + " EVENT_ACCOUNTS)");
  }

  @Test
  void shouldDecodeTheStacksOwnAndTheListedAccountsEvents() {
    var decoder =
        new EventDecoder(
            Clock.systemUTC(), "us-east-1", AccountFilter.parse("111122223333, 444455556666"));

    for (String account : new String[] {"111122223333", "444455556666"}) {
      var result = decoder.decodeString(SPOT.formatted(account));
      assertThat(result).isInstanceOf(DecodeResult.Decoded.class);
      assertThat(((DecodeResult.Decoded) result).event())
          .isInstanceOf(FleetEvent.SpotInterruption.class);
    }
  }

  @Test
  void shouldRefuseAnEventWithoutAnAccountWhenAccountsAreConfigured() {
    var decoder =
        new EventDecoder(Clock.systemUTC(), "us-east-1", AccountFilter.parse("111122223333"));

    var result = decoder.decodeString(SPOT.formatted("x").replace("\"account\":\"x\",", ""));

    assertThat(((DecodeResult.Rejected) result).reason()).startsWith("account (none) is not one");
  }

  @Test
  void shouldRefuseAMalformedAccountList() {
    assertThatThrownBy(() -> AccountFilter.parse("1234"))
        .isInstanceOf(ConfigException.class)
        .hasMessage("EVENT_ACCOUNTS: '1234' is not a 12-digit account id");
  }
}
