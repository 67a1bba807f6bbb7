package io.gpufleet.cli;

import io.gpufleet.deploy.Dashboard;
import io.gpufleet.deploy.DashboardCheck;
import io.gpufleet.deploy.EnvironmentReference;
import io.gpufleet.scenario.ProjectHome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gpufleet docs environment|dashboard [--check]}: the pages and template blocks generated
 * from the code.
 */
@Command(
    name = "docs",
    description = {
      "Write the pages generated from the code: environment = docs/environment.md, every"
          + " variable each function reads (type, default, accepted values, description);"
          + " dashboard = the AWS::CloudWatch::Dashboard block of template.yaml, from the"
          + " functions' metric declarations (checked against them and the template's alarms).",
      "Exit codes: 0 written (or up to date with --check), 1 out of date or code, template and"
          + " descriptions disagree, 2 bad flag."
    })
final class DocsCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;

  @Parameters(paramLabel = "PAGE", description = "environment or dashboard.")
  Page page;

  @Option(
      names = "--check",
      description = "Write nothing; fail when the committed page differs from the generated one.")
  boolean check;

  enum Page {
    environment,
    dashboard
  }

  DocsCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException {
    if (page == Page.dashboard) {
      return dashboard();
    }
    Path root = ProjectHome.findRoot(ProjectHome.path());
    var result = new EnvironmentReference(root).generate();
    result.problems().forEach(p -> err.println("gpufleet docs: " + p));
    // the page and the settings schemas come from the same reads: written and checked together
    var stale = new java.util.ArrayList<String>();
    for (var file : result.files().entrySet()) {
      Path path = root.resolve(file.getKey());
      String committed = Files.isRegularFile(path) ? Files.readString(path) : "";
      if (committed.equals(file.getValue())) {
        continue;
      }
      stale.add(file.getKey());
      if (!check) {
        Files.createDirectories(path.getParent());
        Files.writeString(path, file.getValue());
      }
    }
    if (check) {
      stale.forEach(
          f ->
              err.println(
                  "gpufleet docs: " + f + " is out of date: run ./gpufleet docs environment"));
      if (stale.isEmpty()) {
        out.println(String.join(", ", result.files().keySet()) + " are up to date");
      }
      return stale.isEmpty() && result.problems().isEmpty() ? 0 : 1;
    }
    out.println(
        stale.isEmpty()
            ? String.join(", ", result.files().keySet()) + " are up to date"
            : "wrote " + String.join(", ", stale));
    return result.problems().isEmpty() ? 0 : 1;
  }

  private int dashboard() throws IOException {
    var file = ProjectHome.findRoot(ProjectHome.path()).resolve("template.yaml");
    String committed = Files.readString(file);
    String generated;
    try {
      generated = Dashboard.spliced(committed);
    } catch (IllegalStateException e) {
      err.println("gpufleet docs: " + e.getMessage());
      return 1;
    }
    var problems = DashboardCheck.problems(generated);
    problems.forEach(p -> err.println("gpufleet docs: dashboard: " + p));
    if (check) {
      if (!committed.equals(generated)) {
        err.println(
            "gpufleet docs: the dashboard in template.yaml is out of date: run ./gpufleet docs"
                + " dashboard");
        return 1;
      }
      out.println("the dashboard in template.yaml is up to date");
      return problems.isEmpty() ? 0 : 1;
    }
    if (!committed.equals(generated)) {
      Files.writeString(file, generated);
    }
    out.println("wrote the dashboard block of template.yaml");
    return problems.isEmpty() ? 0 : 1;
  }
}
