#!/usr/bin/env bash
# The project's one test command (run it as ./gpufleet test): installs the Python test tools into
# .venv when missing, builds (or reuses) the real API server tier's binaries, then runs every tier:
# unit, adapter (moto server), handler, simulate, real API server, the Lambda runtime tier (each
# deployment jar under aws-lambda-rie, failsafe *LambdaRuntimeIT), the Spotless format check (mvn
# verify) and the template tier (cfn-lint, sam validate, template rules, checkov, sam build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# A merge left half done must fail at once, not deep inside a build (markers at line start only).
if command -v git >/dev/null 2>&1 && git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 \
   && git -C "$ROOT" grep -nE '^(<<<<<<< |>>>>>>> )' -- . >&2; then
  echo "== merge conflict markers in tracked files (above)" >&2
  exit 1
fi
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

# checkov (template tier) in a venv of its own: its pinned boto3 conflicts with aws-sam-cli's.
CHECKOV_VENV="$ROOT/.venv-checkov"
REQ_CHECKOV="$ROOT/scripts/requirements-checkov.txt"
if [ ! -x "$CHECKOV_VENV/bin/checkov" ] \
   || ! cmp -s "$REQ_CHECKOV" "$CHECKOV_VENV/.requirements-installed" 2>/dev/null; then
  echo "== installing checkov into .venv-checkov"
  python3 -m venv "$CHECKOV_VENV"
  "$CHECKOV_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ_CHECKOV"
  cp "$REQ_CHECKOV" "$CHECKOV_VENV/.requirements-installed"
fi

echo "== real API server tier: kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok, kwokctl, kubectl"
# Built from their Go modules into ~/.cache/gpufleet/k8s on first use (a cold build takes about
# 21 minutes on 2 cores, see docs/benchmarks-history.md), reused afterwards.
GPUFLEET_K8S_BIN="$("$ROOT/scripts/k8s-bins.sh")"
export GPUFLEET_K8S_BIN
# Karpenter's and KEDA's published CRDs (NodePool, NodeClaim, ScaledObject), pinned, from their Go
# modules (go mod download) into ~/.cache/gpufleet/crds; every real-API test installs these.
GPUFLEET_CRDS="$("$ROOT/scripts/published-crds.sh")"
export GPUFLEET_CRDS

echo "== Lambda runtime tier: aws-lambda-rie (Runtime Interface Emulator)"
# Built from its Go module into ~/.cache/gpufleet/rie on first use (seconds), reused afterwards.
# Without Go this fails here, with the reason: the tier never skips.
GPUFLEET_RIE="$("$ROOT/scripts/rie-bin.sh")"
export GPUFLEET_RIE

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
echo "== maven: unit, adapter, handler, simulate, real API server and Lambda runtime tests; Spotless check"
mvn -B -ntp verify "$@"

# Least privilege, shown: each function's real-API tests ran as its own Kubernetes identity, and
# RealApiLeastPrivilegeTest failed the build above on an unused grant or a 403 (docs/deploy.md, "IAM, EKS access entry and RBAC").
echo "== least-privilege reports (functions/*/target/least-privilege/*.txt)"
for report in "$ROOT"/functions/*/target/least-privilege/*.txt; do
  [ -f "$report" ] && echo "$(basename "$report" .txt): $(tail -n 1 "$report")"
done

# Each function's deployment jar, run the way LocalInvoke runs it, on a payload it must reject: a
# JSON log line and a REJECTED outcome prove the shaded jar's wiring and JSON logging work (logback,
# configured in code by lambda-logging). No logging noise may appear: logback status lines
# ("|-WARN in", "|-ERROR in"), SLF4J's provider warnings, Powertools' "No LoggingManager" lines, and
# no log4j StatusLogger (log4j is not in the jars any more).
smoke() { # smoke MODULE PAYLOAD EXPECTED-LOG-MESSAGE-PREFIX [ENV=VALUE ...]
  local module="$1" payload="$2" message="$3"
  shift 3
  echo "== $module jar smoke test: a payload it must reject gives a JSON log line and REJECTED"
  local jar out
  jar=$(ls "$ROOT"/functions/"$module"/target/"$module"-*-lambda.jar)
  out=$(echo "$payload" | env AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=smoke AWS_SECRET_ACCESS_KEY=smoke \
    POWERTOOLS_SERVICE_NAME=smoke "$@" "$JAVA_HOME/bin/java" -jar "$jar" - 2>&1)
  if ! grep -q "\"level\":\"WARN\",\"message\":\"$message" <<<"$out" \
     || ! grep -q '"status":"REJECTED"' <<<"$out" \
     || grep -qE 'StatusLogger|\|-(WARN|ERROR) in |SLF4J\(|LoggingManager' <<<"$out"; then
    echo "$out" >&2
    echo "== $module jar smoke test FAILED" >&2
    exit 1
  fi
  echo "== $module jar smoke test: ok"
}
smoke interruption-drain '{}' 'event rejected' CLUSTER_NAME=smoke KUBE_API_URL=http://127.0.0.1:9
smoke cost-report '{"window":"fortnight"}' 'cost report rejected' \
  CLUSTER_NAME=smoke REPORT_BUCKET=smoke KUBE_API_URL=http://127.0.0.1:9
smoke disruption-schedule '{}' 'schedule REJECTED' CLUSTER_NAME=smoke \
  SCHEDULE_POLICY="file:$ROOT/deploy/policy/disruption-schedule.example.yaml" KUBE_API_URL=http://127.0.0.1:9
smoke capacity-preflight '{"bogus":1}' 'payload rejected'

# Deployment jar sizes (issue 11 item 6: <= 25 MiB each), measured on the jars the Lambda runtime
# tier ran above: shaded, then shrunk by ProGuard (build/lambda-shrink.pro).
echo "== deployment jar sizes"
"$ROOT/scripts/jar-sizes.sh"

echo "== template tier"
VENV="$VENV" CHECKOV="$CHECKOV_VENV/bin/checkov" "$ROOT/deploy/check-template.sh"
echo "== all test tiers passed"
