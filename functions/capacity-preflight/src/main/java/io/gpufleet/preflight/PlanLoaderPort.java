package io.gpufleet.preflight;

/** Port: reads a plan document by URI (s3://bucket/key in production). */
@FunctionalInterface
public interface PlanLoaderPort {
  String read(String uri);

  PlanLoaderPort NONE =
      uri -> {
        throw new io.gpufleet.core.config.ConfigException(
            "cannot read " + uri + ": no object store configured");
      };
}
