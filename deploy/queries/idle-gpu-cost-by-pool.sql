-- Idle GPU cost by node pool, month to date: what the GPU capacity no pod requested cost.
SELECT
  account,
  cluster,
  x_NodePool AS node_pool,
  ROUND(SUM(CASE WHEN x_Namespace = '(idle)' THEN EffectiveCost ELSE 0 END), 2) AS idle_cost,
  ROUND(SUM(CASE WHEN x_Namespace = '(idle)' THEN x_GpuHours ELSE 0 END), 1) AS idle_gpu_hours,
  ROUND(SUM(x_GpuHours), 1) AS gpu_capacity_hours,
  ROUND(
    100 * SUM(CASE WHEN x_Namespace = '(idle)' THEN x_GpuHours ELSE 0 END)
      / SUM(x_GpuHours),
    1) AS idle_gpu_percent
FROM focus
WHERE billing_period = (SELECT MAX(billing_period) FROM focus)
GROUP BY account, cluster, x_NodePool
HAVING SUM(x_GpuHours) > 0
ORDER BY idle_cost DESC, account, cluster, node_pool
