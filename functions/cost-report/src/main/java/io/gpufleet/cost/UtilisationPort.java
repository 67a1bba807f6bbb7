package io.gpufleet.cost;

import io.gpufleet.cost.model.NodeRecord;
import io.gpufleet.cost.model.ReportWindow;
import io.gpufleet.cost.model.Utilisation;
import java.util.List;

/** Port: measured GPU utilisation and output tokens over a window (CloudWatch or Prometheus). */
@FunctionalInterface
public interface UtilisationPort {
  Utilisation read(ReportWindow window, List<NodeRecord> gpuNodes);

  static UtilisationPort none(String why) {
    return (w, n) -> Utilisation.none(why);
  }
}
