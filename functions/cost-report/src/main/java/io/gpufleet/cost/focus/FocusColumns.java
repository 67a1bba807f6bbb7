package io.gpufleet.cost.focus;

import io.gpufleet.cost.focus.ParquetFile.Column;
import io.gpufleet.cost.focus.ParquetFile.Kind;
import java.util.List;

/**
 * The columns of the FOCUS rows, in file order: FOCUS 1.2 columns (names, types and nullability as
 * the specification defines them; checked against a copy of its column list by FocusColumnsTest)
 * and this project's {@code x_} extension columns. Athena's table (template.yaml) declares the same
 * columns with {@link #hiveType} (checked by the CLI's TemplateFocusTest).
 */
public final class FocusColumns {
  public static final String SPEC_VERSION = "1.2";

  public static final List<Column> ALL =
      List.of(
          // mandatory
          req("BilledCost", Kind.DECIMAL),
          req("BillingAccountId", Kind.STRING),
          opt("BillingAccountName", Kind.STRING),
          req("BillingCurrency", Kind.STRING),
          req("BillingPeriodEnd", Kind.TIMESTAMP),
          req("BillingPeriodStart", Kind.TIMESTAMP),
          req("ChargeCategory", Kind.STRING),
          opt("ChargeClass", Kind.STRING),
          opt("ChargeDescription", Kind.STRING),
          req("ChargePeriodEnd", Kind.TIMESTAMP),
          req("ChargePeriodStart", Kind.TIMESTAMP),
          req("ContractedCost", Kind.DECIMAL),
          req("EffectiveCost", Kind.DECIMAL),
          req("InvoiceIssuerName", Kind.STRING),
          req("ListCost", Kind.DECIMAL),
          opt("PricingQuantity", Kind.DECIMAL),
          opt("PricingUnit", Kind.STRING),
          req("ProviderName", Kind.STRING),
          req("PublisherName", Kind.STRING),
          req("ServiceCategory", Kind.STRING),
          req("ServiceName", Kind.STRING),
          // recommended and conditional ones that apply to EC2 instances
          opt("AvailabilityZone", Kind.STRING),
          req("ChargeFrequency", Kind.STRING),
          opt("ConsumedQuantity", Kind.DECIMAL),
          opt("ConsumedUnit", Kind.STRING),
          opt("ContractedUnitPrice", Kind.DECIMAL),
          opt("ListUnitPrice", Kind.DECIMAL),
          opt("PricingCategory", Kind.STRING),
          opt("RegionId", Kind.STRING),
          opt("ResourceId", Kind.STRING),
          opt("ResourceName", Kind.STRING),
          opt("ResourceType", Kind.STRING),
          req("ServiceSubcategory", Kind.STRING),
          opt("SkuId", Kind.STRING),
          opt("Tags", Kind.JSON),
          // extensions
          req("x_ClusterName", Kind.STRING),
          opt("x_NodePool", Kind.STRING),
          opt("x_InstanceType", Kind.STRING),
          opt("x_CapacityType", Kind.STRING),
          req("x_Namespace", Kind.STRING),
          opt("x_Team", Kind.STRING),
          opt("x_Pod", Kind.STRING),
          opt("x_GpuModel", Kind.STRING),
          opt("x_PhysicalGpuShare", Kind.DECIMAL),
          req("x_GpuHours", Kind.DECIMAL),
          req("x_GpuHoursRequested", Kind.DECIMAL),
          opt("x_GpuHoursUsed", Kind.DECIMAL),
          opt("x_PriceSource", Kind.STRING),
          req("x_AllocationRule", Kind.STRING),
          req("x_ReportWindow", Kind.STRING),
          // the output tokens the row's pod generated (its share, when it has several rows) and
          // the models they came from: the report's cost per token (TokenCosts), row by row
          opt("x_Model", Kind.STRING),
          opt("x_OutputTokens", Kind.DECIMAL));

  private FocusColumns() {}

  private static Column req(String name, Kind kind) {
    return new Column(name, kind, true);
  }

  private static Column opt(String name, Kind kind) {
    return new Column(name, kind, false);
  }

  public static int index(String name) {
    for (int i = 0; i < ALL.size(); i++) {
      if (ALL.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException("no FOCUS column " + name);
  }

  /** The Athena (Hive DDL) type of a column: what the Glue table declares. */
  public static String hiveType(Column c) {
    return switch (c.kind()) {
      case STRING, JSON -> "string";
      case DECIMAL -> "decimal(" + ParquetFile.PRECISION + "," + ParquetFile.SCALE + ")";
      case TIMESTAMP -> "timestamp";
    };
  }
}
