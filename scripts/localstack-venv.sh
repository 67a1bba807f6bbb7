#!/usr/bin/env bash
# Creates .venv-localstack (LocalStack from PyPI, host mode) when a Python >= 3.13 is available and
# prints its python; exits 3 with the reason on stderr when there is none. Reused while
# scripts/requirements-localstack.txt is unchanged.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv-localstack"
REQ="$ROOT/scripts/requirements-localstack.txt"
if [ -x "$VENV/bin/python" ] && cmp -s "$REQ" "$VENV/.requirements-installed" 2>/dev/null; then
  echo "$VENV/bin/python"
  exit 0
fi
PY=""
for candidate in "${LOCALSTACK_BASE_PYTHON:-}" python3.13 python3.14 \
    "$HOME"/.pyenv/versions/3.13*/bin/python3 "$HOME"/.pyenv/versions/3.14*/bin/python3; do
  [ -n "$candidate" ] || continue
  if command -v "$candidate" >/dev/null 2>&1 \
     && "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 13) else 1)' 2>/dev/null; then
    PY="$candidate"
    break
  fi
done
if [ -z "$PY" ]; then
  echo "no Python >= 3.13 found (set LOCALSTACK_BASE_PYTHON): LocalStack 2026.3 cannot run" >&2
  exit 3
fi
"$PY" -m venv "$VENV"
# localstack-core with what it resolves to, then the pins over it without their dependencies (joserfc
# asks for cryptography >= 45, which pyOpenSSL 24.3 refuses; the services used here run with 44)
grep -E '^localstack-core' "$REQ" | xargs "$VENV/bin/pip" install --quiet --disable-pip-version-check >&2
grep -vE '^(#|localstack-core|$)' "$REQ" | xargs "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps >&2
cp "$REQ" "$VENV/.requirements-installed"
echo "$VENV/bin/python"
