#!/usr/bin/env bash
# Writes functions/F/cold-classes.txt for each function named (all four when none is): the class
# files a fresh JVM reads from the function's deployment jar before its first answer, taken from
# the class-load log of `./gpufleet bench cold --function F` (the deployed environment: EKS lookup,
# outcome event, the schedule's SSM policy). build/ColdJar.java stores these entries uncompressed
# when the jar is packaged, so a cold start copies them instead of inflating them. Run it after a
# change that moves what INIT or the first event loads, then rebuild the jars (mvn package) and
# commit the lists; scripts/jar-sizes.sh fails when a list has gone stale.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
functions=("$@")
if [ ${#functions[@]} -eq 0 ]; then
  functions=(interruption-drain disruption-schedule capacity-preflight cost-report)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "${functions[@]}"; do
  echo "== $f: bench cold with a class-load log"
  # the bench exits 1 when the run misses its time target; the log is what matters here
  GPUFLEET_BENCH_COLD_JVM_DIAG="-Xlog:class+load=info:file=$work/$f-%n.log" \
    "$ROOT/gpufleet" bench cold --function "$f" --runs 1 >"$work/$f.out" || true
  tail -n 1 "$work/$f.out" | cut -c1-160
  if ! grep -q '"firstEventHandledMs"' "$work/$f.out" || ! ls "$work/$f"-*.log >/dev/null 2>&1; then
    echo "cold-classes: bench cold --function $f did not finish a run (above); list left as it was" >&2
    exit 1
  fi
  jar=$(ls "$ROOT"/functions/"$f"/target/"$f"-*-lambda.jar)
  "${JAVA_HOME:+$JAVA_HOME/bin/}java" "$ROOT/build/ColdJar.java" --list "$jar" \
    "$ROOT/functions/$f/cold-classes.txt" "$work/$f"-*.log
done
