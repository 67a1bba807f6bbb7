-- Spot savings by day (UTC): the On-Demand equivalent of Spot capacity minus what it cost.
SELECT
  CAST(ChargePeriodStart AS DATE) AS day,
  ROUND(SUM(CASE WHEN PricingCategory = 'Dynamic' THEN ListCost - EffectiveCost ELSE 0 END), 2)
    AS spot_savings,
  ROUND(SUM(CASE WHEN PricingCategory = 'Dynamic' THEN EffectiveCost ELSE 0 END), 2) AS spot_cost,
  ROUND(SUM(EffectiveCost), 2) AS effective_cost
FROM focus
GROUP BY CAST(ChargePeriodStart AS DATE)
ORDER BY day
