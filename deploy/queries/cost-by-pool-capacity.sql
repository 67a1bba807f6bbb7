-- Cost by node pool and capacity type, month to date (the latest billing period in the data).
SELECT
  account,
  cluster,
  x_NodePool AS node_pool,
  x_CapacityType AS capacity_type,
  ROUND(SUM(EffectiveCost), 2) AS effective_cost,
  ROUND(SUM(ListCost), 2) AS list_cost,
  ROUND(SUM(x_GpuHours), 1) AS gpu_capacity_hours
FROM focus
WHERE billing_period = (SELECT MAX(billing_period) FROM focus)
GROUP BY account, cluster, x_NodePool, x_CapacityType
ORDER BY effective_cost DESC, account, cluster, node_pool, capacity_type
