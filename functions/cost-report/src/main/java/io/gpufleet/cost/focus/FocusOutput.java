package io.gpufleet.cost.focus;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import io.gpufleet.core.store.BlobStorePort;
import io.gpufleet.cost.model.CostReport;
import io.gpufleet.cost.model.ReportWindow;
import java.util.Optional;

/**
 * Whether a run writes FOCUS files, and for which billing account. Environment: {@code
 * COST_ACCOUNT_ID} (the stack's account, 12 digits; the template sets it) and {@code COST_FOCUS}
 * ({@code on} by default when the account is known, {@code off}); {@code COST_FOCUS_BUCKET}, a
 * central bucket for the files (else the report bucket; the wiring builds its store).
 */
public record FocusOutput(String accountId, ParquetFile.Codec codec, BlobStorePort store) {
  public static final FocusOutput OFF = new FocusOutput(null, ParquetFile.Codec.GZIP, null);
  public static final String CONTENT_TYPE = "application/vnd.apache.parquet";

  public FocusOutput {
    if (accountId != null && !FocusExport.isAccountId(accountId)) {
      throw new ConfigException("COST_ACCOUNT_ID='" + accountId + "' is not a 12-digit account id");
    }
  }

  public static FocusOutput on(String accountId) {
    return new FocusOutput(accountId, ParquetFile.Codec.GZIP, null);
  }

  /** Files go to {@code store} (a central bucket) instead of the report bucket. */
  public FocusOutput to(BlobStorePort store) {
    return new FocusOutput(accountId, codec, store);
  }

  public static FocusOutput from(Settings s) {
    String account = s.string("COST_ACCOUNT_ID", "");
    String mode = s.string("COST_FOCUS", account.isEmpty() ? "off" : "on");
    return switch (mode) {
      case "off" -> OFF;
      case "on" -> {
        if (account.isEmpty()) {
          throw new ConfigException("COST_FOCUS=on needs COST_ACCOUNT_ID (the billing account)");
        }
        yield on(account);
      }
      default -> throw new ConfigException("COST_FOCUS='" + mode + "' is not on or off");
    };
  }

  public boolean enabled() {
    return accountId != null;
  }

  /** The key this window's file goes to, when FOCUS is on and the window gets a file. */
  public Optional<String> key(String cluster, ReportWindow window) {
    return enabled() ? FocusExport.key(accountId, cluster, window) : Optional.empty();
  }

  /** Writes the report's file to the central store, or else to {@code reports}; its location. */
  public String write(BlobStorePort reports, String key, CostReport report) {
    var to = store == null ? reports : store;
    to.put(key, bytes(report), CONTENT_TYPE);
    return to.locate(key);
  }

  public byte[] bytes(CostReport report) {
    return FocusRows.of(report, accountId, codec).bytes();
  }
}
