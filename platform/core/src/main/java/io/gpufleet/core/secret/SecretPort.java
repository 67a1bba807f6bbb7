package io.gpufleet.core.secret;

/** Reads the current value of a secret (SSM SecureString or Secrets Manager). */
public interface SecretPort {
  /**
   * The secret's value. Fails with a message naming the reference, never the value; a store that is
   * not a secret store (an SSM String parameter) is refused.
   */
  String read(SecretRef ref);
}
