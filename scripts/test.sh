#!/usr/bin/env bash
# The project's one test command (run it as ./gpufleet test): installs the Python test tools into
# .venv when missing, then runs every tier: unit, adapter (moto server), handler, simulate, the
# Spotless format check (mvn verify) and the template tier (cfn-lint, sam validate, sam build).
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

echo "== java: $JAVA_HOME"
echo "== maven: unit, adapter, handler and simulate tests; Spotless check"
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

echo "== template tier"
VENV="$VENV" "$ROOT/deploy/check-template.sh"
echo "== all test tiers passed"
