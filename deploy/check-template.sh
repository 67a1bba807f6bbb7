#!/usr/bin/env bash
# Template tier: cfn-lint, `sam validate --lint`, the template's own rules (deploy/test_template.py:
# alarms for every function and dead-letter queue, rules pinned to the account, no secret in an
# environment), the derived names' length limits (deploy/name_limits.py), checkov against its committed suppressions (deploy/checkov-suppressions.yaml) and `sam build`
# (in-process, no Docker) on template.yaml. Every step runs; the script exits non-zero if any failed.
#
#   deploy/check-template.sh                  # tools from .venv at the repository root
#   VENV=/path/to/venv CHECKOV=/path/to/checkov deploy/check-template.sh
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
CFN_LINT="$VENV/bin/cfn-lint"
SAM="$VENV/bin/sam"
PYTHON="$VENV/bin/python"
# checkov lives in a venv of its own (scripts/requirements-checkov.txt; see scripts/test.sh).
CHECKOV="${CHECKOV:-$ROOT/.venv-checkov/bin/checkov}"

# No telemetry prompt or upload from SAM CLI; a region keeps SAM from asking for one.
export SAM_CLI_TELEMETRY=0
export AWS_REGION="${AWS_REGION:-${AWS_DEFAULT_REGION:-us-east-1}}"

for tool in "$CFN_LINT" "$SAM" "$PYTHON" "$CHECKOV"; do
  if [[ ! -x "$tool" ]]; then
    echo "check-template: $tool not found; set VENV to the virtualenv with scripts/requirements-test.txt installed" >&2
    exit 2
  fi
done

cd "$ROOT"
failed=()

step() {
  local name="$1"
  shift
  echo "== $name: $*"
  if "$@"; then
    echo "== $name: ok"
  else
    echo "== $name: FAILED" >&2
    failed+=("$name")
  fi
}

step cfn-lint "$CFN_LINT" template.yaml
step drain-delivery "$VENV/bin/python" deploy/check-drain-delivery.py template.yaml
step sam-validate "$SAM" validate --lint --template-file template.yaml
step template-rules "$PYTHON" deploy/test_template.py
# every name derived from the stack name fits its service's limit for the longest stack name allowed
step name-limits "$PYTHON" deploy/name_limits.py
# Every finding not accepted in deploy/checkov-suppressions.yaml (each with its reason) fails.
step checkov "$PYTHON" deploy/checkov_gate.py "$CHECKOV"
# Without --use-container SAM builds in this process: the Makefile runs Maven with the local JDK.
# Plain `sam build`, as the README says: samconfig.toml turns on language extensions (Fn::ForEach).
step sam-build "$SAM" build --template-file template.yaml

if ((${#failed[@]})); then
  echo "check-template: failed: ${failed[*]}" >&2
  exit 1
fi
echo "check-template: all passed"
