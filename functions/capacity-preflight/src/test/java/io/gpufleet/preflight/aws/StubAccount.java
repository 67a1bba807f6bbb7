package io.gpufleet.preflight.aws;

import io.gpufleet.core.time.VirtualTime;
import io.gpufleet.sim.aws.AwsStubServer;
import io.gpufleet.sim.aws.SimCapacityAccount;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** Real SDK clients for every region, all pointed at one stub server. */
final class StubAccount {
  private StubAccount() {}

  static RegionalClients clients(AwsStubServer stub) {
    return new RegionalClients(
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDSTUB", "secret")),
        Optional.of(stub.endpoint()),
        new VirtualTime(java.time.Instant.parse("2026-11-30T00:00:00Z")).sleeper());
  }

  /** ListServiceQuotas(ec2) answers an empty listing: every quota must come by its code. */
  static void listNoQuotas(AwsStubServer stub) {
    stub.on(
        "ServiceQuotasV20190624.ListServiceQuotas",
        c -> AwsStubServer.Reply.json("{\"Quotas\":[]}"));
  }

  static SimCapacityAccount account(AwsStubServer stub) {
    return new SimCapacityAccount(stub);
  }
}
