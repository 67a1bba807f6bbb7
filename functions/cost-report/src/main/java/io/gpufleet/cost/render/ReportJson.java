package io.gpufleet.cost.render;

import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.gpufleet.core.json.Json;
import io.gpufleet.cost.model.CostReport;
import java.io.IOException;
import java.io.UncheckedIOException;

/** cost.json (the whole report) and cost.csv (the allocation rows), both through Jackson. */
public final class ReportJson {
  private static final ObjectWriter JSON =
      Json.MAPPER.writer().with(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN);
  private static final CsvMapper CSV =
      CsvMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
          .build();
  private static final ObjectWriter CSV_ROWS =
      CSV.writer(CSV.schemaFor(CostReport.Row.class).withHeader());

  private ReportJson() {}

  public static byte[] json(CostReport report) {
    try {
      return JSON.writeValueAsBytes(report);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static byte[] csv(CostReport report) {
    try {
      return CSV_ROWS.writeValueAsBytes(report.rows());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The schema's column names in order (for tests and docs). */
  public static java.util.List<String> csvColumns() {
    CsvSchema schema = CSV.schemaFor(CostReport.Row.class);
    var names = new java.util.ArrayList<String>();
    schema.forEach(c -> names.add(c.getName()));
    return names;
  }
}
