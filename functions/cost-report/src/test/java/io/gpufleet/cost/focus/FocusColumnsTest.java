package io.gpufleet.cost.focus;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.focus.ParquetFile.Column;
import io.gpufleet.cost.focus.ParquetFile.Kind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The FOCUS columns we write against the specification's own column definitions (a committed copy
 * of FOCUS 1.2's column ids, feature levels, nullability and data types; source and commit in the
 * file).
 */
class FocusColumnsTest {
  record SpecColumn(String id, String level, boolean allowsNulls, String type) {}

  static Map<String, SpecColumn> spec() throws IOException {
    var out = new LinkedHashMap<String, SpecColumn>();
    try (var in =
        new BufferedReader(
            new InputStreamReader(
                Objects.requireNonNull(
                    FocusColumnsTest.class.getResourceAsStream("/focus/focus-1.2-columns.csv")),
                StandardCharsets.UTF_8))) {
      String line;
      boolean header = true;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("#") || line.isBlank()) {
          continue;
        }
        if (header) {
          header = false;
          continue;
        }
        String[] f = line.split(",");
        out.put(f[0], new SpecColumn(f[0], f[1], Boolean.parseBoolean(f[2]), f[3]));
      }
    }
    return out;
  }

  static String focusType(Kind k) {
    return switch (k) {
      case STRING -> "String";
      case JSON -> "JSON";
      case DECIMAL -> "Decimal";
      case TIMESTAMP -> "Date/Time";
    };
  }

  @Test
  void shouldBeTheSpecificationVersionOfTheCopy() throws IOException {
    assertThat(
            FocusColumnsTest.class.getResource(
                "/focus/focus-" + FocusColumns.SPEC_VERSION + "-columns.csv"))
        .isNotNull();
    assertThat(spec()).hasSize(57).containsKeys("BilledCost", "Tags", "SkuPriceDetails");
  }

  @Test
  void shouldWriteEveryMandatoryColumn() throws IOException {
    var ours = FocusColumns.ALL.stream().map(Column::name).collect(Collectors.toSet());
    var mandatory =
        spec().values().stream().filter(c -> c.level().equals("Mandatory")).map(SpecColumn::id);
    assertThat(mandatory).allSatisfy(id -> assertThat(ours).contains(id));
  }

  @Test
  void shouldGiveEachSpecificationColumnItsTypeAndNullability() throws IOException {
    var spec = spec();
    for (Column c : FocusColumns.ALL) {
      if (c.name().startsWith("x_")) {
        continue;
      }
      assertThat(spec).as("FOCUS 1.2 defines %s", c.name()).containsKey(c.name());
      var s = spec.get(c.name());
      assertThat(focusType(c.kind())).as("type of %s", c.name()).isEqualTo(s.type());
      // a column that allows no nulls is required; one that allows them may be null
      assertThat(c.required()).as("%s required", c.name()).isEqualTo(!s.allowsNulls());
    }
  }

  @Test
  void shouldNameEveryOtherColumnAsAnExtension() throws IOException {
    var spec = spec();
    assertThat(FocusColumns.ALL)
        .filteredOn(c -> !spec.containsKey(c.name()))
        .isNotEmpty()
        .allSatisfy(c -> assertThat(c.name()).matches("x_[A-Z][A-Za-z]+"));
  }

  @Test
  void shouldNameColumnsOnce() {
    assertThat(FocusColumns.ALL.stream().map(c -> c.name().toLowerCase())).doesNotHaveDuplicates();
  }
}
