package io.gpufleet.schedule.model;

import java.util.Map;

/**
 * What one replica of a Deployment or StatefulSet asks for, from its pod template: the accelerators
 * (GPUs, Neuron devices: requests, else limits, of the device plugins' resources; the larger of the
 * containers' sum and any init container) and the pod labels (the team label among them).
 */
public record PodTemplate(int accelerators, Map<String, String> labels) {
  public PodTemplate {
    labels = labels == null ? Map.of() : Map.copyOf(labels);
  }
}
