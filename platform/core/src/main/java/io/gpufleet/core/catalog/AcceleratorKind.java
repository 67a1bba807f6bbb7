package io.gpufleet.core.catalog;

import java.util.Optional;

/**
 * What accelerates an instance type, as DescribeInstanceTypes reports it (GpuInfo manufacturer,
 * NeuronInfo device, InferenceAcceleratorInfo or MediaAcceleratorInfo), and the Kubernetes extended
 * resource its device plugin advertises where we know it for certain.
 */
public enum AcceleratorKind {
  NONE(null, null),
  NVIDIA_GPU("NVIDIA", "nvidia.com/gpu"),
  AMD_GPU("AMD", "amd.com/gpu"),
  AWS_TRAINIUM("AWS", "aws.amazon.com/neuron"),
  AWS_INFERENTIA("AWS", "aws.amazon.com/neuron"),
  HABANA_GAUDI("Habana", "habana.ai/gaudi"),
  /** dl2q's Qualcomm Cloud AI 100: no device-plugin resource name confirmed, so none is claimed. */
  QUALCOMM_AI100("Qualcomm", null),
  /** vt1's Xilinx U30 media accelerators: no device-plugin resource name confirmed. */
  XILINX_MEDIA("Xilinx", null);

  private final String manufacturer;
  private final String resource;

  AcceleratorKind(String manufacturer, String resource) {
    this.manufacturer = manufacturer;
    this.resource = resource;
  }

  /** The Manufacturer DescribeInstanceTypes reports ("NVIDIA", "AWS"); null for NONE. */
  public String manufacturer() {
    return manufacturer;
  }

  /** The device plugin's extended resource ("nvidia.com/gpu"), when known. */
  public Optional<String> resource() {
    return Optional.ofNullable(resource);
  }

  /** AWS Neuron devices (Trainium, Inferentia). */
  public boolean neuron() {
    return this == AWS_TRAINIUM || this == AWS_INFERENTIA;
  }
}
