#!/usr/bin/env bash
# Deployment jar sizes (issue 11: each Lambda jar <= 25 MiB). Prints one line per function and
# exits 1 when a jar exceeds its limit: 25 MiB, or LIMIT_MIB_<MODULE> (dashes as underscores) where
# one is set. Run after `mvn package` (scripts/test.sh does); the jars it measures are the shrunk
# ones (build/lambda-shrink.pro). Also checks each jar against its cold-start list
# (functions/MODULE/cold-classes.txt, build/ColdJar.java): at most 5 % of the list may be missing
# from the jar, and its entries must be stored. And no jar may carry Netty or Vert.x: every Lambda
# path uses the JDK's HTTP client (fabric8) and the SDK's URL-connection client, and the padding of
# the cold-start entries up to cold.jar.budget.mib would hide a library that came in unnoticed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIMIT_MIB=25
status=0
for module in interruption-drain disruption-schedule cost-report capacity-preflight; do
  jar=$(ls "$ROOT"/functions/"$module"/target/"$module"-*-lambda.jar 2>/dev/null | head -n 1 || true)
  if [ -z "$jar" ]; then
    echo "jar-sizes: no deployment jar for $module (run mvn package first)" >&2
    status=1
    continue
  fi
  bytes=$(stat -c %s "$jar")
  var="LIMIT_MIB_$(echo "$module" | tr 'a-z-' 'A-Z_')"
  limit="${!var:-$LIMIT_MIB}"
  mib=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
  if [ "$bytes" -gt $((limit * 1048576)) ]; then
    echo "jar-sizes: $module $mib MiB > $limit MiB: FAILED" >&2
    status=1
  else
    echo "jar-sizes: $module $mib MiB <= $limit MiB"
  fi
  unwanted=$(python3 -c 'import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
print(sorted({n.split("/")[1] for n in names if n.startswith(("io/netty/", "io/vertx/"))}))' "$jar")
  if [ "$unwanted" != "[]" ]; then
    echo "jar-sizes: $module carries io/netty or io/vertx ($unwanted): FAILED (exclude them)" >&2
    status=1
  fi
  # the cold-start list (build/ColdJar.java): present, not stale, its entries stored
  if ! "${JAVA_HOME:+$JAVA_HOME/bin/}java" "$ROOT/build/ColdJar.java" --check "$jar" \
    "$ROOT/functions/$module/cold-classes.txt" 5; then
    status=1
  fi
done
exit "$status"
