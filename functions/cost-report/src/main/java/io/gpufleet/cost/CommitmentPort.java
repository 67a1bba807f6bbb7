package io.gpufleet.cost;

import io.gpufleet.cost.model.Commitments;
import io.gpufleet.cost.model.ReportWindow;

/** Port: what Savings Plans and Reserved Instances did to On-Demand rates in a window. */
@FunctionalInterface
public interface CommitmentPort {
  Commitments read(ReportWindow window);

  static CommitmentPort none(String why) {
    return w -> Commitments.none(why);
  }
}
