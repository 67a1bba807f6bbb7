package io.gpufleet.core.config;

/** A setting, flag, policy or plan that cannot be used; the message says which and why. */
public class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
