package io.gpufleet.preflight;

import java.util.Locale;

/** vCPU counts as reports and notifications print them: "1,024 vCPU", "0.5". */
final class VcpuText {
  private VcpuText() {}

  static String vcpu(double v) {
    return num(v) + " vCPU";
  }

  /** Whole numbers with thousands separators, anything else with one decimal. */
  static String num(double v) {
    return v == Math.rint(v)
        ? String.format(Locale.ROOT, "%,d", (long) v)
        : String.format(Locale.ROOT, "%,.1f", v);
  }
}
