package io.gpufleet.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpufleet.cost.focus.FocusColumns;
import io.gpufleet.scenario.ProjectHome;
import io.gpufleet.schedule.HoldRecords;
import io.gpufleet.testkit.lambda.SamTemplate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * template.yaml's Athena side of the FOCUS data against its sources: the Glue tables' columns are
 * the columns the cost report writes (FocusColumns, with their Athena types) and the columns of the
 * schedule's hold records (HoldRecords), and each named query is a deploy/queries file, verbatim
 * (the same file `gpufleet cost query` runs).
 */
class TemplateFocusTest {
  static final Pattern COLUMN =
      Pattern.compile("(?m)^            - \\{ Name: (\\w+), Type: \"([^\"]+)\" \\}$");

  static String block(String template, String resource) {
    int at = template.indexOf("\n  " + resource + ":\n");
    assertThat(at).as("resource %s in template.yaml", resource).isPositive();
    var next = Pattern.compile("(?m)^  [A-Za-z0-9]+:\\s*$").matcher(template);
    int end = next.find(at + 3) ? next.start() : template.length();
    return template.substring(at, end);
  }

  @Test
  void glueTableShouldDeclareTheColumnsTheReportWrites() throws Exception {
    String table = block(SamTemplate.projectTemplateText(), "CostFocusTable");
    var declared = new ArrayList<String>();
    var m = COLUMN.matcher(table);
    while (m.find()) {
      declared.add(m.group(1) + " " + m.group(2));
    }
    List<String> written =
        FocusColumns.ALL.stream().map(c -> c.name() + " " + FocusColumns.hiveType(c)).toList();
    assertThat(declared).containsExactlyElementsOf(written);
    assertThat(table)
        .contains("projection.enabled: \"true\"")
        .contains("billing_period=${!billing_period}/account=${!account}/cluster=${!cluster}/");
  }

  @Test
  void holdRecordsTableShouldDeclareTheColumnsTheScheduleWrites() throws Exception {
    String table = block(SamTemplate.projectTemplateText(), "CostScheduleHoldsTable");
    var declared = new ArrayList<String>();
    var m = COLUMN.matcher(table);
    while (m.find()) {
      declared.add(m.group(1) + " " + m.group(2));
    }
    assertThat(declared)
        .containsExactlyElementsOf(
            HoldRecords.COLUMNS.stream().map(c -> c.name() + " " + c.hiveType()).toList());
    assertThat(table)
        .contains("Name: " + HoldRecords.TABLE)
        .contains("ignore.malformed.json: \"false\"")
        .contains(
            "s3://${CostReportBucket}/"
                + HoldRecords.PREFIX
                + "billing_period=${!billing_period}/account=${!account}/cluster=${!cluster}/");
    // the schedule may write there, and nowhere else in the bucket
    String role = block(SamTemplate.projectTemplateText(), "DisruptionScheduleRole");
    assertThat(role)
        .contains(
            "Resource: !Sub ${CostReportBucket.Arn}/"
                + HoldRecords.PREFIX
                + "billing_period=*/account=${AWS::AccountId}/cluster=${ClusterName}/*")
        .doesNotContain("s3:PutObject\n                Resource: !Sub ${CostReportBucket.Arn}/*");
    // FinOps readers may read the records; they expire with the reports
    assertThat(block(SamTemplate.projectTemplateText(), "CostFocusReaderPolicy"))
        .contains("table/${CostFocusDatabase}/" + HoldRecords.TABLE)
        .contains("Resource: !Sub ${CostReportBucket.Arn}/" + HoldRecords.PREFIX + "*");
    assertThat(block(SamTemplate.projectTemplateText(), "CostReportBucket"))
        .contains(
            "Prefix: "
                + HoldRecords.PREFIX
                + "\n            ExpirationInDays: !Ref CostReportRetentionDays");
  }

  @Test
  void eachNamedQueryShouldBeItsDeployQueriesFileVerbatim() throws Exception {
    String template = SamTemplate.projectTemplateText();
    Path queries = ProjectHome.findRoot(ProjectHome.path()).resolve("deploy/queries");
    int found = 0;
    for (String name : FocusQueries.NAMES) {
      var at = Pattern.compile("(?m)^      Name: " + Pattern.quote(name) + "$").matcher(template);
      assertThat(at.find()).as("an AWS::Athena::NamedQuery named %s", name).isTrue();
      int q = template.indexOf("      QueryString: |\n", at.end());
      var sb = new StringBuilder();
      for (String line : template.substring(q).split("\n", -1)) {
        if (sb.isEmpty() && line.startsWith("      QueryString:")) {
          sb.append('\u0000');
          continue;
        }
        if (!line.isEmpty() && !line.startsWith("        ")) {
          break;
        }
        sb.append(line.isEmpty() ? "" : line.substring(8)).append('\n');
      }
      String sql = sb.substring(1).replaceFirst("\n+$", "\n");
      assertThat(sql).as(name).isEqualTo(Files.readString(queries.resolve(name + ".sql")));
      found++;
    }
    assertThat(template.split("Type: AWS::Athena::NamedQuery", -1)).hasSize(found + 1);
  }
}
