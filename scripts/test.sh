#!/usr/bin/env bash
# The project's one test command (run it as ./gpufleet test): installs the Python test tools into
# .venv when missing, builds (or reuses) the real API server tier's binaries, then runs every tier:
# unit, adapter (moto server), handler, simulate, real API server, the Spotless format check
# (mvn verify) and the template tier (cfn-lint, sam validate, sam build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
REQ="$ROOT/scripts/requirements-test.txt"
cd "$ROOT"

if [ ! -x "$VENV/bin/moto_server" ] || [ ! -x "$VENV/bin/sam" ] || [ ! -x "$VENV/bin/cfn-lint" ] \
   || ! cmp -s "$REQ" "$VENV/.requirements-installed" 2>/dev/null; then
  echo "== installing test tools into .venv (moto server, cfn-lint, aws-sam-cli)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$VENV/.requirements-installed"
fi
export MOTO_SERVER="$VENV/bin/moto_server"

echo "== real API server tier: kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok"
# Built from their Go modules into ~/.cache/gpufleet/k8s on first use (a cold build takes about
# 21 minutes on 2 cores, see BENCHMARKS.md), reused afterwards.
GPUFLEET_K8S_BIN="$("$ROOT/scripts/k8s-bins.sh")"
export GPUFLEET_K8S_BIN

# The cost report's HTML is opened in headless Chromium by a test (it fails in CI without it).
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 \
   && [ -z "${CHROMIUM:-}" ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== installing chromium (Debian package) for the cost report's browser test"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  elif command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "== installing chromium (Debian package) for the cost report's browser test"
    sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "== chromium not found and cannot be installed here: the cost report's browser test" \
      "is skipped locally and fails in CI (CI=true)" >&2
  fi
fi

echo "== java: $JAVA_HOME"
echo "== maven: unit, adapter, handler, simulate and real API server tests; Spotless check"
mvn -B -ntp verify "$@"

echo "== deployment jar smoke test: a malformed event gives a JSON log line and a REJECTED outcome, log4j reports no configuration error"
jar=$(ls "$ROOT"/functions/interruption-drain/target/interruption-drain-*-lambda.jar)
out=$(echo '{}' | CLUSTER_NAME=smoke KUBE_API_URL=http://127.0.0.1:9 AWS_REGION=us-east-1 \
  POWERTOOLS_SERVICE_NAME=smoke "$JAVA_HOME/bin/java" -jar "$jar" - 2>&1)
if ! grep -q '"level":"WARN","message":"event rejected' <<<"$out" \
   || ! grep -q '"status":"REJECTED"' <<<"$out" \
   || grep -q 'StatusLogger' <<<"$out"; then
  echo "$out" >&2
  echo "== deployment jar smoke test FAILED" >&2
  exit 1
fi
echo "== deployment jar smoke test: ok"

echo "== cost report jar smoke test: a bad window gives a JSON log line and a REJECTED outcome, log4j reports no configuration error"
jar=$(ls "$ROOT"/functions/cost-report/target/cost-report-*-lambda.jar)
out=$(echo '{"window":"fortnight"}' | CLUSTER_NAME=smoke REPORT_BUCKET=smoke KUBE_API_URL=http://127.0.0.1:9 \
  AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=smoke AWS_SECRET_ACCESS_KEY=smoke POWERTOOLS_SERVICE_NAME=smoke \
  "$JAVA_HOME/bin/java" -jar "$jar" - 2>&1)
if ! grep -q '"level":"WARN","message":"cost report rejected' <<<"$out" \
   || ! grep -q '"status":"REJECTED"' <<<"$out" \
   || grep -q 'StatusLogger' <<<"$out"; then
  echo "$out" >&2
  echo "== cost report jar smoke test FAILED" >&2
  exit 1
fi
echo "== cost report jar smoke test: ok"
echo "== disruption-schedule jar smoke test: a payload that is no schedule tick gives a JSON log line and REJECTED, log4j reports no configuration error"
jar=$(ls "$ROOT"/functions/disruption-schedule/target/disruption-schedule-*-lambda.jar)
out=$(echo '{}' | CLUSTER_NAME=smoke SCHEDULE_POLICY="file:$ROOT/deploy/policy/disruption-schedule.example.yaml" \
  KUBE_API_URL=http://127.0.0.1:9 AWS_REGION=us-east-1 POWERTOOLS_SERVICE_NAME=smoke \
  "$JAVA_HOME/bin/java" -jar "$jar" - 2>&1)
if ! grep -q '"level":"WARN","message":"schedule REJECTED' <<<"$out" \
   || ! grep -q '"status":"REJECTED"' <<<"$out" \
   || grep -q 'StatusLogger' <<<"$out"; then
  echo "$out" >&2
  echo "== disruption-schedule jar smoke test FAILED" >&2
  exit 1
fi
echo "== disruption-schedule jar smoke test: ok"

echo "== template tier"
VENV="$VENV" "$ROOT/deploy/check-template.sh"
echo "== all test tiers passed"
