#!/usr/bin/env bash
# Fetches the published CustomResourceDefinitions the real API server tier installs, from their Go
# modules through the Go toolchain (`go mod download`, the module proxy's checksummed zip; no
# release downloads, nothing written by hand):
#   Karpenter NodePool, NodeClaim   sigs.k8s.io/karpenter  pkg/apis/crds/karpenter.sh_{nodepools,nodeclaims}.yaml
#   KEDA ScaledObject               github.com/kedacore/keda/v2  config/crd/bases/keda.sh_scaledobjects.yaml
# They are copied into ~/.cache/gpufleet/crds/<hash of the pinned versions> (GPUFLEET_CRD_CACHE
# moves it) with versions.txt naming module, version and file; the last line of stdout is that
# directory. A warm call returns at once.
#
# Usage: scripts/published-crds.sh           fetch when missing; prints the directory last
#        scripts/published-crds.sh --check   print the directory if complete, exit 1 otherwise
set -euo pipefail

# --- pinned versions. Karpenter v1.14.3 and v1.15.0 need Go >= 1.26.10; v1.14.1 is the newest
# this Go (1.26.8, GOTOOLCHAIN=local) downloads. ---
KARPENTER_VERSION=v1.14.1
KEDA_VERSION=v2.21.0

GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
if [ ! -x "$GO" ] && ! command -v "$GO" >/dev/null 2>&1; then
  echo "published-crds: needs the Go toolchain (go) on PATH" >&2
  exit 2
fi
FILES=(karpenter.sh_nodepools.yaml karpenter.sh_nodeclaims.yaml keda.sh_scaledobjects.yaml)
KEY="$(printf '%s\n' "$KARPENTER_VERSION" "$KEDA_VERSION" "${FILES[*]}" | sha256sum | cut -c1-16)"
OUT="${GPUFLEET_CRD_CACHE:-$HOME/.cache/gpufleet/crds}/$KEY"

complete() {
  local f
  for f in "${FILES[@]}"; do [ -s "$OUT/$f" ] || return 1; done
  [ -f "$OUT/versions.txt" ]
}
if [ "${1:-}" = "--check" ]; then
  complete && { echo "$OUT"; exit 0; }
  exit 1
fi
if complete; then
  echo "$OUT"
  exit 0
fi

module_dir() { # MODULE@VERSION -> its directory in the module cache
  local json dir
  json="$(cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod GOTOOLCHAIN=local "$GO" mod download -json "$1")" || {
    echo "published-crds: go mod download $1 failed: $json" >&2
    return 1
  }
  dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")"
  [ -d "$dir" ] || { echo "published-crds: no directory for $1: $json" >&2; return 1; }
  echo "$dir"
}

mkdir -p "$OUT"
KARPENTER="$(module_dir "sigs.k8s.io/karpenter@$KARPENTER_VERSION")"
KEDA="$(module_dir "github.com/kedacore/keda/v2@$KEDA_VERSION")"
TMP="$(mktemp -d "$OUT/.fetch.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
cp "$KARPENTER/pkg/apis/crds/karpenter.sh_nodepools.yaml" "$KARPENTER/pkg/apis/crds/karpenter.sh_nodeclaims.yaml" "$TMP/"
cp "$KEDA/config/crd/bases/keda.sh_scaledobjects.yaml" "$TMP/"
{
  echo "sigs.k8s.io/karpenter $KARPENTER_VERSION pkg/apis/crds/karpenter.sh_nodepools.yaml"
  echo "sigs.k8s.io/karpenter $KARPENTER_VERSION pkg/apis/crds/karpenter.sh_nodeclaims.yaml"
  echo "github.com/kedacore/keda/v2 $KEDA_VERSION config/crd/bases/keda.sh_scaledobjects.yaml"
} >"$TMP/versions.txt"
chmod u+w "$TMP"/*
for f in "${FILES[@]}" versions.txt; do mv -f "$TMP/$f" "$OUT/$f"; done
echo "published-crds: Karpenter $KARPENTER_VERSION, KEDA $KEDA_VERSION in $OUT" >&2
echo "$OUT"
