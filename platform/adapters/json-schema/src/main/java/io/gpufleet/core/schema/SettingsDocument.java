package io.gpufleet.core.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpufleet.core.aws.AwsCallException;
import io.gpufleet.core.aws.AwsClients;
import io.gpufleet.core.aws.AwsJson;
import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.json.Yaml;
import io.gpufleet.core.lambda.Rewiring;
import io.gpufleet.core.s3.S3Rest;
import io.gpufleet.core.s3.S3RestException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A function's settings document: its tuning knobs in one YAML or JSON object, keyed by the same
 * names as the variables the code reads ({@code DRAIN_EVICTION_CONCURRENCY: 64}), checked by the
 * function's published schema ({@code schemas/settings/<function>.schema.json}, the one the CLI and
 * editors use) before anything else runs, and laid over the environment.
 *
 * <p>{@code SETTINGS_DOCUMENT} says where it is: {@code ssm:/parameter/name}, {@code
 * s3://bucket/key} or {@code file:/path}. A document that does not exist (or is empty) means every
 * knob keeps its default: no document is needed. A document that cannot be read for any other
 * reason (access denied, throttled past retries) fails init: running on defaults the operator did
 * not choose would be worse.
 */
public final class SettingsDocument {
  /** The variable naming the document. */
  public static final String VARIABLE = "SETTINGS_DOCUMENT";

  private SettingsDocument() {}

  /** Where a document is read from. */
  public interface Source {
    /** The document's text; empty when it does not exist. */
    Optional<String> text();

    /** The location as given, for messages. */
    String name();
  }

  /**
   * The SSM parameter a deployed function reads its document from: {@code
   * /gpufleet/<stack>/<function>} (the template's {@code SETTINGS_DOCUMENT} and its role's one
   * {@code ssm:GetParameter} grant; a test holds the template to this).
   */
  public static String parameterName(String stack, String function) {
    return "/gpufleet/" + stack + "/" + function;
  }

  /** The classpath resource of {@code function}'s schema (the build copies it from schemas/). */
  public static String resource(String function) {
    return "schemas/settings/" + function + ".schema.json";
  }

  /**
   * {@code env} with {@code function}'s document laid over it when {@value #VARIABLE} names one;
   * {@code env} itself otherwise.
   */
  public static Settings apply(Settings env, String function, Supplier<AwsClients> aws) {
    var spec = env.optional(VARIABLE);
    if (spec.isEmpty()) {
      return env;
    }
    var source = source(spec.get(), aws);
    var text = source.text();
    if (text.isEmpty()) {
      return env;
    }
    return env.overlay(values(function, text.get(), source.name()), source.name());
  }

  /**
   * A handler's entry that follows the function's document ({@link Rewiring}): {@code first} is the
   * entry init wires (with its warm-up and priming), {@code next} each one wired after the document
   * changed, {@code close} lets an old one go. Without {@value #VARIABLE} the entry never changes.
   */
  public static <E> Rewiring<E> rewiring(Supplier<E> first, Supplier<E> next, Consumer<E> close) {
    var spec = Settings.fromEnvironment().optional(VARIABLE);
    Supplier<Optional<String>> probe =
        spec.isEmpty()
            ? Optional::empty
            : source(spec.get(), AwsClients.lazyFromEnvironment())::text;
    var wired = new AtomicBoolean();
    return Rewiring.of(
        probe, () -> wired.getAndSet(true) ? next.get() : first.get(), close, Clock.systemUTC());
  }

  /**
   * The knobs of one document's text, each as the text the variable would hold; every structural
   * problem (unknown name, wrong type, out of range) fails at once, each with its path.
   */
  public static Map<String, String> values(String function, String text, String origin) {
    JsonNode document = parse(text, origin);
    if (document == null || document.isMissingNode() || document.isNull()) {
      return Map.of();
    }
    var problems = schema(function).problems(document);
    if (!problems.isEmpty()) {
      throw new ConfigException(
          "settings document "
              + origin
              + " does not match schemas/settings/"
              + function
              + ".schema.json: "
              + String.join("; ", problems));
    }
    var out = new LinkedHashMap<String, String>();
    document
        .fields()
        .forEachRemaining(
            e -> {
              if (!"$schema".equals(e.getKey())) {
                out.put(e.getKey(), e.getValue().asText());
              }
            });
    return out;
  }

  /** The schema of {@code function}'s document. */
  public static DocumentSchema schema(String function) {
    return DocumentSchema.load(resource(function));
  }

  private static JsonNode parse(String text, String origin) {
    try {
      return Yaml.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      var at = e.getLocation();
      throw new ConfigException(
          "settings document "
              + origin
              + " is not YAML or JSON"
              + (at == null ? "" : " (line " + at.getLineNr() + ")")
              + ": "
              + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ConfigException("settings document " + origin + ": " + e.getMessage());
    }
  }

  /** {@code ssm:/name}, {@code s3://bucket/key} or {@code file:/path}; anything else is refused. */
  public static Source source(String spec, Supplier<AwsClients> aws) {
    if (spec.startsWith("ssm:/")) {
      return ssm(spec.substring(4), () -> AwsJson.from(aws.get(), AwsJson.SSM));
    }
    if (spec.startsWith("s3://")) {
      String rest = spec.substring(5);
      int slash = rest.indexOf('/');
      if (slash <= 0 || slash == rest.length() - 1) {
        throw new ConfigException(VARIABLE + "='" + spec + "' is not s3://bucket/key");
      }
      return s3(rest.substring(0, slash), rest.substring(slash + 1), () -> S3Rest.from(aws.get()));
    }
    if (spec.startsWith("file:")) {
      return file(Path.of(spec.substring(5)));
    }
    throw new ConfigException(
        VARIABLE + "='" + spec + "' is not ssm:/parameter/name, s3://bucket/key or file:/path");
  }

  /** An SSM parameter (String, or SecureString with a key the role may use). */
  public static Source ssm(String parameter, Supplier<AwsJson> ssm) {
    return new Source() {
      @Override
      public Optional<String> text() {
        var input = AwsJson.input().put("Name", parameter).put("WithDecryption", true);
        try {
          var value = ssm.get().call("GetParameter", input).path("Parameter").path("Value");
          return value.isTextual() ? nonBlank(value.asText()) : Optional.empty();
        } catch (AwsCallException e) {
          if ("ParameterNotFound".equals(e.code())) {
            return Optional.empty();
          }
          throw new ConfigException(
              "settings document " + name() + " cannot be read: " + e.getMessage());
        }
      }

      @Override
      public String name() {
        return "ssm:" + parameter;
      }
    };
  }

  /** An S3 object (a missing object: no document). */
  public static Source s3(String bucket, String key, Supplier<S3Rest> s3) {
    return new Source() {
      @Override
      public Optional<String> text() {
        try {
          return s3.get()
              .get(bucket, key)
              .map(S3Rest.Blob::text)
              .flatMap(SettingsDocument::nonBlank);
        } catch (S3RestException e) {
          throw new ConfigException(
              "settings document " + name() + " cannot be read: " + e.getMessage());
        }
      }

      @Override
      public String name() {
        return "s3://" + bucket + "/" + key;
      }
    };
  }

  /** A local file (CLI runs and tests; a missing file: no document). */
  public static Source file(Path path) {
    return new Source() {
      @Override
      public Optional<String> text() {
        try {
          return nonBlank(Files.readString(path));
        } catch (NoSuchFileException e) {
          return Optional.empty();
        } catch (IOException e) {
          throw new ConfigException("settings document " + path + ": " + e.getMessage());
        }
      }

      @Override
      public String name() {
        return path.toString();
      }
    };
  }

  private static Optional<String> nonBlank(String text) {
    return text == null || text.isBlank() ? Optional.empty() : Optional.of(text);
  }
}
