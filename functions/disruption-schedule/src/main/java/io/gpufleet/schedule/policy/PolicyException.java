package io.gpufleet.schedule.policy;

import io.gpufleet.core.config.ConfigException;
import java.util.List;

/** A policy that cannot be used; lists every problem found, each with its path in the document. */
public final class PolicyException extends ConfigException {
  private final List<String> problems;

  public PolicyException(String source, List<String> problems) {
    super(
        "policy "
            + source
            + " is invalid ("
            + problems.size()
            + (problems.size() == 1 ? " problem" : " problems")
            + "):\n  - "
            + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
