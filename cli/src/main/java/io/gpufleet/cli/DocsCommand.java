package io.gpufleet.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpufleet docs environment [--check]}: the generated reference pages. */
@Command(
    name = "docs",
    description = {
      "Write the pages generated from the code: environment = docs/environment.md, every"
          + " variable each function reads (type, default, accepted values, description).",
      "Exit codes: 0 written (or up to date with --check), 1 out of date or code, template and"
          + " descriptions disagree, 2 bad flag."
    })
final class DocsCommand implements Callable<Integer> {
  private final PrintStream out;
  private final PrintStream err;

  @Mixin Cli.Help help;

  @Parameters(paramLabel = "PAGE", description = "environment (the only generated page).")
  Page page;

  @Option(
      names = "--check",
      description = "Write nothing; fail when the committed page differs from the generated one.")
  boolean check;

  enum Page {
    environment
  }

  DocsCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() throws IOException {
    var reference = new EnvironmentReference(EnvironmentReference.findRoot(Main.home()));
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
}
