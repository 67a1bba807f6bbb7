package io.gpufleet.preflight;

import io.gpufleet.preflight.model.PreflightReport;
import java.util.Optional;

/** Port: where a full report is kept (S3 JSON in production); returns its URI. */
public interface ReportStorePort {
  Optional<String> save(PreflightReport report);

  ReportStorePort NONE = report -> Optional.empty();
}
