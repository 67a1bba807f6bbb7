package io.gpufleet.sim.real;

import java.util.List;
import java.util.Locale;

/**
 * The Kubernetes identities of the functions, exactly as the stack's EKS access entries map them:
 * an access entry of type STANDARD with no {@code Username} for the function's execution role makes
 * EKS authenticate the role's sessions as {@code arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION}
 * (Lambda's session name is the function name), in the entry's {@code KubernetesGroups} (template
 * parameters {@code KubernetesGroup}, {@code CostKubernetesGroup}, ...; their defaults here) plus
 * {@code system:authenticated}, which the API server adds to every authenticated user.
 *
 * <p>The test cluster gives each identity a bearer token with that user and those groups (a static
 * token file), so a test's requests are authorised by the RBAC objects in {@code deploy/} and
 * checked by the admission policies there, and the audit log tells the identities apart by their
 * groups.
 */
public enum FunctionIdentity {
  /** The drain with the default binding (no force-delete). */
  INTERRUPTION_DRAIN("interruption-drain", "InterruptionDrain", List.of("gpufleet-drain")),
  /**
   * The drain deployed with {@code DrainForceDelete=true}: its access entry adds the opt-in group
   * bound by {@code deploy/rbac/interruption-drain-force-delete.yaml}.
   */
  INTERRUPTION_DRAIN_FORCE_DELETE(
      "interruption-drain", "InterruptionDrain", List.of("gpufleet-drain", "gpufleet-drain-force")),
  DISRUPTION_SCHEDULE("disruption-schedule", "DisruptionSchedule", List.of("gpufleet-schedule")),
  COST_REPORT("cost-report", "CostReport", List.of("gpufleet-cost")),
  CAPACITY_PREFLIGHT("capacity-preflight", "CapacityPreflight", List.of("gpufleet-preflight"));

  static final String ACCOUNT = "123456789012";

  private final String function;
  private final String logicalId;
  private final List<String> groups;

  FunctionIdentity(String function, String logicalId, List<String> groups) {
    this.function = function;
    this.logicalId = logicalId;
    this.groups = groups;
  }

  /** The function (module and {@code deploy/rbac/<function>*.yaml} name) this identity is. */
  public String function() {
    return function;
  }

  /** The Kubernetes groups of the access entry (without {@code system:authenticated}). */
  public List<String> groups() {
    return groups;
  }

  /** The user name EKS gives the execution role's Lambda sessions. */
  public String username() {
    return "arn:aws:sts::"
        + ACCOUNT
        + ":assumed-role/gpufleet-"
        + logicalId
        + "Role-EXAMPLE/gpufleet-"
        + logicalId
        + "-EXAMPLE";
  }

  /** The identity named like {@code interruption-drain} or {@code INTERRUPTION_DRAIN}. */
  public static FunctionIdentity named(String name) {
    String key = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    try {
      return valueOf(key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown function identity '" + name + "'; one of " + List.of(values()), e);
    }
  }

  /** Every group of every identity, for the audit policy. */
  static List<String> allGroups() {
    return java.util.Arrays.stream(values()).flatMap(i -> i.groups.stream()).distinct().toList();
  }
}
