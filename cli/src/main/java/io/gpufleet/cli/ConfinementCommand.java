package io.gpufleet.cli;

import io.gpufleet.deploy.confinement.ConfinementRender;
import io.gpufleet.scenario.ProjectHome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code gpufleet confinement render [--set NAME=VALUE]... [--out DIR] [--check]}: the RBAC and
 * admission manifests generated from deploy/confinement.
 */
@Command(
    name = "confinement",
    description = {
      "Render the Kubernetes RBAC roles and ValidatingAdmissionPolicies of every function from its"
          + " confinement spec (deploy/confinement/*.yaml).",
      "Without --set and --out it rewrites deploy/rbac and deploy/admission (the defaults);"
          + " --set KubernetesGroup=ops-drain --set DrainTaintEffect=NoExecute --out DIR renders"
          + " the manifests of a stack deployed with those template parameters.",
      "Exit codes: 0 written (or up to date with --check), 1 out of date, 2 bad flag or value."
    })
final class ConfinementCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "ACTION", description = "render (the only action).")
  Action action;

  @Option(
      names = "--set",
      paramLabel = "NAME=VALUE",
      description =
          "A template parameter's value (KubernetesGroup, DrainForceDeleteKubernetesGroup,"
              + " DrainTaintKey, DrainTaintEffect, ScheduleKubernetesGroup, CostKubernetesGroup,"
              + " PreflightKubernetesGroup); repeatable.")
  List<String> sets = List.of();

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Write rbac/ and admission/ under DIR (default: the repository's deploy/).")
  Path outDir;

  @Option(
      names = "--check",
      description = "Write nothing; fail when the files under the output directory differ.")
  boolean check;

  enum Action {
    render
  }

  ConfinementCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException {
    Path root = ProjectHome.findRoot(ProjectHome.path());
    var overrides = new LinkedHashMap<String, String>();
    for (String s : sets) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw Cli.bad(spec, "--set takes NAME=VALUE, not '" + s + "'");
      }
      overrides.put(s.substring(0, eq), s.substring(eq + 1));
    }
    if (!overrides.isEmpty() && outDir == null && !check) {
      throw Cli.bad(
          spec, "--set renders a non-default deploy: give --out DIR (deploy/ holds the defaults)");
    }
    Map<Path, String> rendered;
    try {
      rendered = ConfinementRender.render(root, overrides);
    } catch (IllegalArgumentException e) {
      throw Cli.bad(spec, e.getMessage());
    }
    Path target = outDir != null ? outDir : root.resolve("deploy");
    if (check) {
      int stale = 0;
      for (var e : rendered.entrySet()) {
        Path f = target.resolve(e.getKey());
        if (!Files.isRegularFile(f) || !Files.readString(f).equals(e.getValue())) {
          err.println("gpufleet confinement: " + f + " differs from its rendering");
          stale++;
        }
      }
      if (stale > 0) {
        err.println("gpufleet confinement: run ./gpufleet confinement render");
        return Cli.FAILED;
      }
      out.println(rendered.size() + " manifests up to date in " + target);
      return 0;
    }
    for (Path p : ConfinementRender.write(target, rendered)) {
      out.println("wrote " + p);
    }
    return 0;
  }
}
