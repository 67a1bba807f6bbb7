package io.gpufleet.core.event;

import io.gpufleet.core.config.ConfigException;
import io.gpufleet.core.config.Settings;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The accounts whose events a function acts on: the stack's own, plus any a cross-account bus
 * forwards ({@code EVENT_ACCOUNTS}, comma separated; the template sets it). An event from any other
 * account is refused by the decoder's entry, whatever its kind: whoever can send to the function's
 * queue or invoke it from elsewhere cannot have a node drained. Empty (a local run without the
 * variable): every account.
 */
public record AccountFilter(Set<String> accounts) {
  public static final AccountFilter ANY = new AccountFilter(Set.of());

  public AccountFilter {
    accounts = Set.copyOf(accounts);
  }

  public static AccountFilter parse(String csv) {
    var out = new TreeSet<String>();
    if (csv != null) {
      for (String a : csv.split(",")) {
        String t = a.trim();
        if (t.isEmpty()) {
          continue;
        }
        if (!t.matches("[0-9]{12}")) {
          throw new ConfigException("EVENT_ACCOUNTS: '" + t + "' is not a 12-digit account id");
        }
        out.add(t);
      }
    }
    return new AccountFilter(out);
  }

  public static AccountFilter from(Settings s) {
    return parse(s.string("EVENT_ACCOUNTS", ""));
  }

  /** Why an event of {@code account} is refused, or empty when it is accepted. */
  public Optional<String> refusal(String account) {
    if (accounts.isEmpty() || (account != null && accounts.contains(account))) {
      return Optional.empty();
    }
    return Optional.of(
        "account "
            + (account == null ? "(none)" : EventDecoder.echo(account))
            + " is not one this stack accepts events from ("
            + String.join(", ", new TreeSet<>(accounts))
            + "; EVENT_ACCOUNTS)");
  }
}
