-- Saved by the disruption schedule (an ESTIMATE) by day (UTC), schedule window and team.
-- Method (docs/cost-report.md, "Off-hours savings"): each schedule run records the replicas it holds
-- below their original count (schedule_holds); a hold lasts until the next run, at most one hour.
-- Held GPU-hours = (original - held replicas) x GPUs per replica x hours held; the saving prices
-- them at the month's EffectiveCost per requested GPU-hour of the namespace's FOCUS rows (else of
-- the cluster's). It assumes the held replicas would have run on GPUs priced like the namespace's
-- others and that their capacity was released; it is not an invoice figure.
WITH runs AS (
  SELECT
    account,
    cluster,
    run_epoch,
    LEAD(run_epoch) OVER (PARTITION BY account, cluster ORDER BY run_epoch) AS next_epoch
  FROM (SELECT DISTINCT account, cluster, run_epoch FROM schedule_holds) r
),
held AS (
  SELECT
    h.billing_period,
    h.account,
    h.cluster,
    h.namespace,
    SUBSTR(h.run_at, 1, 10) AS day,
    h.schedule_window,
    COALESCE(h.team, h.namespace) AS team,
    (h.replicas_original - h.replicas_held)
      * CAST(LEAST(r.next_epoch - h.run_epoch, 3600) AS DOUBLE) / 3600 AS replica_hours,
    (h.replicas_original - h.replicas_held) * h.gpus_per_replica
      * CAST(LEAST(r.next_epoch - h.run_epoch, 3600) AS DOUBLE) / 3600 AS gpu_hours
  FROM schedule_holds h
  JOIN runs r ON r.account = h.account AND r.cluster = h.cluster AND r.run_epoch = h.run_epoch
  WHERE h.replicas_held < h.replicas_original AND r.next_epoch IS NOT NULL
),
namespace_price AS (
  SELECT
    billing_period,
    account,
    cluster,
    x_Namespace AS namespace,
    CAST(SUM(EffectiveCost) AS DOUBLE) / CAST(SUM(x_GpuHoursRequested) AS DOUBLE) AS per_gpu_hour
  FROM focus
  WHERE x_GpuHoursRequested > 0
  GROUP BY billing_period, account, cluster, x_Namespace
),
cluster_price AS (
  SELECT
    billing_period,
    account,
    cluster,
    CAST(SUM(EffectiveCost) AS DOUBLE) / CAST(SUM(x_GpuHoursRequested) AS DOUBLE) AS per_gpu_hour
  FROM focus
  WHERE x_GpuHoursRequested > 0
  GROUP BY billing_period, account, cluster
)
SELECT
  held.day,
  held.schedule_window,
  held.team,
  ROUND(SUM(held.replica_hours), 1) AS held_replica_hours,
  ROUND(SUM(held.gpu_hours), 1) AS held_gpu_hours,
  ROUND(SUM(held.gpu_hours * COALESCE(n.per_gpu_hour, c.per_gpu_hour)), 2) AS estimated_saving,
  ROUND(
    SUM(CASE WHEN COALESCE(n.per_gpu_hour, c.per_gpu_hour) IS NULL THEN held.gpu_hours ELSE 0 END),
    1) AS unpriced_gpu_hours
FROM held
LEFT JOIN namespace_price n
  ON n.billing_period = held.billing_period AND n.account = held.account
  AND n.cluster = held.cluster AND n.namespace = held.namespace
LEFT JOIN cluster_price c
  ON c.billing_period = held.billing_period AND c.account = held.account
  AND c.cluster = held.cluster
GROUP BY held.day, held.schedule_window, held.team
ORDER BY held.day, estimated_saving DESC, held.schedule_window, held.team
