-- Cost by team, month to date: the latest billing period in the data, every account and cluster.
-- Idle capacity (no pod requested it) is its own line, "(idle)".
SELECT
  COALESCE(x_Team, x_Namespace) AS team,
  COUNT(DISTINCT cluster) AS clusters,
  ROUND(SUM(EffectiveCost), 2) AS effective_cost,
  ROUND(SUM(ListCost), 2) AS list_cost,
  ROUND(SUM(x_GpuHoursRequested), 1) AS gpu_hours
FROM focus
WHERE billing_period = (SELECT MAX(billing_period) FROM focus)
GROUP BY COALESCE(x_Team, x_Namespace)
ORDER BY effective_cost DESC, team
