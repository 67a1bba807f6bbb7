package io.gpufleet.deploy.confinement;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Renders every confinement spec of {@code deploy/confinement} into the RBAC and admission
 * manifests: {@code rbac/<file>} and {@code admission/<file>} relative to the output directory
 * ({@code deploy/} for the committed ones, which are this rendering for the defaults).
 */
public final class ConfinementRender {
  public static final Path SPECS = Path.of("deploy", "confinement");

  private ConfinementRender() {}

  /** The spec files, by name. */
  public static List<Path> specFiles(Path root) {
    try (Stream<Path> s = Files.list(root.resolve(SPECS))) {
      return s.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + root.resolve(SPECS), e);
    }
  }

  /** Every parameter the specs declare (name to kind and default), refusing a clash. */
  public static Map<String, ConfinementSpec.Parameter> parameters(Path root) {
    var out = new TreeMap<String, ConfinementSpec.Parameter>();
    for (Path f : specFiles(root)) {
      ConfinementSpec.parametersOf(f)
          .forEach(
              (k, v) -> {
                var before = out.put(k, v);
                if (before != null && !before.equals(v)) {
                  throw new IllegalStateException(k + " is declared differently in two specs");
                }
              });
    }
    return out;
  }

  /** Every spec loaded with {@code overrides}; an override no spec declares is refused. */
  public static List<ConfinementSpec> specs(Path root, Map<String, String> overrides) {
    var known = parameters(root);
    for (String k : overrides.keySet()) {
      if (!known.containsKey(k)) {
        throw new IllegalArgumentException(
            "unknown parameter " + k + "; the confinement specs use " + known.keySet());
      }
    }
    var out = new ArrayList<ConfinementSpec>();
    for (Path f : specFiles(root)) {
      out.add(ConfinementSpec.load(f, overrides));
    }
    return out;
  }

  /** The manifests (relative path such as {@code rbac/x.yaml} to text) for {@code overrides}. */
  public static Map<Path, String> render(Path root, Map<String, String> overrides) {
    var out = new LinkedHashMap<Path, String>();
    for (ConfinementSpec spec : specs(root, overrides)) {
      String source = SPECS.resolve(spec.identity() + ".yaml").toString();
      var rbac = new RbacRenderer(spec.identity());
      for (var f : spec.rbac()) {
        var docs = new ArrayList<Map<String, ?>>();
        f.objects().forEach(o -> docs.add(rbac.render(o)));
        out.put(Path.of("rbac", f.file()), file(source, spec, f.comment(), docs));
      }
      if (spec.admission() != null) {
        var policies = new PolicyRenderer(spec.title(), spec.identity());
        var docs = new ArrayList<Map<String, ?>>();
        spec.admission().policies().forEach(p -> docs.addAll(policies.render(p)));
        out.put(
            Path.of("admission", spec.admission().file()),
            file(source, spec, spec.admission().comment(), docs));
      }
    }
    return out;
  }

  private static String file(
      String source, ConfinementSpec spec, String comment, List<Map<String, ?>> docs) {
    var text = new StringBuilder();
    var params = new ArrayList<String>();
    spec.values().forEach((k, v) -> params.add("  " + k + "=" + v));
    text.append(
        YamlText.comment(
            "Generated from "
                + source
                + " by ./gpufleet confinement render, for\n"
                + String.join("\n", params)
                + "\nDo not edit: change the spec and render again (a test compares).\n\n"
                + comment));
    for (int i = 0; i < docs.size(); i++) {
      if (i > 0) {
        text.append("---\n");
      }
      text.append(YamlText.document(docs.get(i)));
    }
    return text.toString();
  }

  /** Writes {@code rendered} under {@code out}; returns the files written. */
  public static List<Path> write(Path out, Map<Path, String> rendered) {
    var written = new ArrayList<Path>();
    rendered.forEach(
        (rel, text) -> {
          Path target = out.resolve(rel);
          try {
            Files.createDirectories(target.getParent());
            Files.writeString(target, text);
          } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
          }
          written.add(target);
        });
    return written;
  }
}
