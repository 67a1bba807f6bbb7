package io.gpufleet.preflight;

/** Port: reads a plan document by URI (s3://bucket/key in production). */
@FunctionalInterface
public interface PlanLoader {
  String read(String uri);

  PlanLoader NONE =
      uri -> {
        throw new io.gpufleet.core.config.ConfigException(
            "cannot read " + uri + ": no object store configured");
      };
}
