package io.gpufleet.cost.model;

import java.util.List;
import java.util.Map;

/**
 * Measured GPU use over the window: average utilisation (0..100 %) per node name and per pod
 * ("namespace/pod"), and output tokens per serving pod, with where each came from. Each part is
 * optional: an empty map with a note in {@code notes} says why it is missing.
 */
public record Utilisation(
    String source,
    Map<String, Double> nodePercent,
    Map<String, Double> podPercent,
    List<Tokens> tokens,
    List<String> notes) {

  /** Output tokens generated in the window by one model in one pod (pod may be null). */
  public record Tokens(String namespace, String pod, String model, String server, double output) {}

  public Utilisation {
    nodePercent = nodePercent == null ? Map.of() : Map.copyOf(nodePercent);
    podPercent = podPercent == null ? Map.of() : Map.copyOf(podPercent);
    tokens = tokens == null ? List.of() : List.copyOf(tokens);
    notes = notes == null ? List.of() : List.copyOf(notes);
  }

  public static Utilisation none(String why) {
    return new Utilisation("none", Map.of(), Map.of(), List.of(), List.of(why));
  }
}
