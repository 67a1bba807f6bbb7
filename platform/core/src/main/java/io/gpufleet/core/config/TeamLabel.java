package io.gpufleet.core.config;

/**
 * The pod label whose value names the owning team ({@code COST_TEAM_LABEL}, default {@code team}):
 * the cost report's team rollup and the disruption schedule's hold records read the same setting
 * (the template feeds both from parameter CostTeamLabel), validated here once.
 */
public final class TeamLabel {
  public static final String VARIABLE = "COST_TEAM_LABEL";
  public static final String DEFAULT = "team";

  private TeamLabel() {}

  /** The configured label key; a {@link ConfigException} when it is not a Kubernetes label key. */
  public static String from(Settings s) {
    String team = s.string(VARIABLE, DEFAULT);
    if (!team.matches(
        "([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")) {
      throw new ConfigException(VARIABLE + "='" + team + "' is not a label key");
    }
    return team;
  }
}
