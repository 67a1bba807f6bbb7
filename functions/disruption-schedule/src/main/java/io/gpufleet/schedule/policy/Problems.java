package io.gpufleet.schedule.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * The meaning problems of one policy document, each {@code path: message}, in the order they were
 * found; every section of the parser adds to the same list, so one run shows all of them.
 */
final class Problems {
  private final List<String> problems = new ArrayList<>();

  void add(String path, String message) {
    problems.add(path + ": " + message);
  }

  boolean isEmpty() {
    return problems.isEmpty();
  }

  List<String> all() {
    return problems;
  }
}
