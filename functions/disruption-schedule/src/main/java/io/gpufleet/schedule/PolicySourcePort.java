package io.gpufleet.schedule;

/** Where the policy document comes from (SSM parameter, S3 object, file or inline text). */
public interface PolicySourcePort {
  /** The document's text; throws when it cannot be read. */
  String load();

  /** A name for messages: ssm:/x, s3://b/k, a file path, "inline". */
  String name();

  static PolicySourcePort inline(String text, String name) {
    return new PolicySourcePort() {
      @Override
      public String load() {
        return text;
      }

      @Override
      public String name() {
        return name;
      }
    };
  }

  static PolicySourcePort file(java.nio.file.Path path) {
    return new PolicySourcePort() {
      @Override
      public String load() {
        try {
          return java.nio.file.Files.readString(path);
        } catch (java.io.IOException e) {
          throw new io.gpufleet.core.config.ConfigException(
              "cannot read policy file " + path + ": " + e.getMessage());
        }
      }

      @Override
      public String name() {
        return path.toString();
      }
    };
  }
}
