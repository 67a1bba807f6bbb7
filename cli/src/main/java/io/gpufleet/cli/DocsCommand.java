package io.gpufleet.cli;

import io.gpufleet.deploy.Dashboard;
import io.gpufleet.deploy.DashboardCheck;
import io.gpufleet.deploy.EnvironmentReference;
import io.gpufleet.scenario.ProjectHome;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
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
    var reference = new EnvironmentReference(ProjectHome.findRoot(ProjectHome.path()));
    var result = reference.generate();
    result.problems().forEach(p -> err.println("gpufleet docs: " + p));
    var file = reference.page();
    String committed = Files.isRegularFile(file) ? Files.readString(file) : "";
    if (check) {
      if (!committed.equals(result.markdown())) {
        err.println(
            "gpufleet docs: "
                + EnvironmentReference.PAGE
                + " is out of date: run ./gpufleet docs environment");
        return 1;
      }
      out.println(EnvironmentReference.PAGE + " is up to date");
      return result.problems().isEmpty() ? 0 : 1;
    }
    Files.createDirectories(file.getParent());
    Files.writeString(file, result.markdown());
    out.println("wrote " + EnvironmentReference.PAGE);
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
