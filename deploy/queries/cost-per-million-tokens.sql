-- Cost per 1M output tokens by day (UTC), cluster, namespace and model: what the serving pods cost.
-- Rows carry the output tokens the cost report priced for their pod (x_OutputTokens, x_Model).
SELECT
  CAST(ChargePeriodStart AS DATE) AS day,
  account,
  cluster,
  x_Namespace AS namespace,
  x_Model AS model,
  ROUND(SUM(x_OutputTokens), 0) AS output_tokens,
  ROUND(SUM(EffectiveCost), 2) AS effective_cost,
  ROUND(1000000 * SUM(EffectiveCost) / SUM(x_OutputTokens), 4) AS cost_per_million_tokens
FROM focus
WHERE x_OutputTokens > 0
GROUP BY CAST(ChargePeriodStart AS DATE), account, cluster, x_Namespace, x_Model
ORDER BY day, effective_cost DESC, account, cluster, namespace, model
