package io.gpufleet.core.aws;

/**
 * Child-JVM entry of {@link AwsClientsCredentialsTest}: resolves credentials as a function does.
 */
public final class CredentialsProbe {
  private CredentialsProbe() {}

  public static void main(String[] args) {
    AwsClients clients = AwsClients.fromEnvironment();
    if (args.length > 0 && args[0].equals("build-only")) {
      System.out.println("built");
      return;
    }
    System.out.println("access-key=" + clients.credentials().resolveCredentials().accessKeyId());
  }
}
