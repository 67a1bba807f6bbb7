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
   && git -C "$ROOT" grep -nE '^(LIMIT_MIB_INTERRUPTION_DRAIN=28 LIMIT_MIB_DISRUPTION_SCHEDULE=36 LIMIT_MIB_COST_REPORT=35 \
  LIMIT_MIB_CAPACITY_PREFLIGHT=33 "$ROOT/scripts/jar-sizes.sh"

echo "== template tier"
VENV="$VENV" CHECKOV="$CHECKOV_VENV/bin/checkov" "$ROOT/deploy/check-template.sh"
echo "== all test tiers passed"
