#!/usr/bin/env bash
# Builds the binaries of the real API server test tier from their Go modules (no Docker, no release
# downloads): kube-apiserver, kube-controller-manager, kube-scheduler and kubectl from
# k8s.io/kubernetes, etcd from go.etcd.io/etcd/server/v3, kwok and kwokctl from sigs.k8s.io/kwok.
# kwokctl runs the cluster (--runtime binary, given these binaries); it calls kubectl to see the API
# server answer. They are cached outside the repo in ~/.cache/gpufleet/k8s/<hash of the pinned
# versions and the Go version>/bin and reused when present. A cache that lacks some of them (one
# built before kwokctl and kubectl were added) gets only the missing ones built into it.
#
# Usage: scripts/k8s-bins.sh            build when missing; prints the bin directory as the last line
#        scripts/k8s-bins.sh --check    print the bin directory if it is complete, exit 1 otherwise
# Progress and timings go to stderr; stdout carries only the bin directory.
# Environment: GPUFLEET_K8S_CACHE (default ~/.cache/gpufleet/k8s), GO (default: go on PATH).
set -euo pipefail

# --- pinned versions (change them together; a change builds into a new cache directory) ---
K8S_VERSION=v1.37.2 # k8s.io/kubernetes; its staging modules are published as v0.37.2
ETCD_VERSION=v3.7.3 # go.etcd.io/etcd/server/v3 (kubernetes v1.37 is built against etcd 3.7 clients)
KWOK_VERSION=v0.8.0 # sigs.k8s.io/kwok
RECIPE=1            # bump when the way the binaries are built changes

GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok kwokctl)
KUBE_CMDS=(kube-apiserver kube-controller-manager kube-scheduler kubectl)

if [ ! -x "$GO" ] && ! command -v "$GO" >/dev/null 2>&1; then
  echo "k8s-bins: needs the Go toolchain (go) on PATH" >&2
  exit 2
fi
GO_VERSION="$("$GO" env GOVERSION)"
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
KEY="$(printf '%s\n' "$K8S_VERSION" "$ETCD_VERSION" "$KWOK_VERSION" "$GO_VERSION" "$("$GO" env GOOS)/$("$GO" env GOARCH)" "$RECIPE" \
  | sha256sum | cut -c1-16)"
CACHE_ROOT="${GPUFLEET_K8S_CACHE:-$HOME/.cache/gpufleet/k8s}"
OUT="$CACHE_ROOT/$KEY"
BIN="$OUT/bin"

KWOK_STAGES=kwok-stages.yaml
STAGES_RECIPE="# gpufleet kwok stages 2: node fast + lease heartbeat, pod general"
complete() {
  local b
  for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] || return 1; done
  stages_current "$BIN/$KWOK_STAGES" && [ -f "$OUT/versions.txt" ]
}
stages_current() { [ -f "$1" ] && [ "$(head -n1 "$1")" = "$STAGES_RECIPE" ]; }

# kwok runs only the lifecycle stages it is given. Nodes: Ready at once, lease heartbeats. Pods:
# kwok's "general" stages, which act like a kubelet with per-pod delays taken from annotations
# (<stage>.stage.kwok.x-k8s.io/delay and /jitter-delay; a marked-for-deletion pod goes at a random
# time within its grace period), so tests can make a replacement slow to become Ready.
write_kwok_stages() {
  local dir
  dir="$(cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod "$GO" mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" \
    | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  local stage="$dir/kustomize/stage" f
  {
    echo "$STAGES_RECIPE"
    for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
      pod/general/pod-create.yaml pod/general/pod-init-container-running.yaml \
      pod/general/pod-init-container-completed.yaml pod/general/pod-ready.yaml \
      pod/general/pod-complete.yaml pod/general/pod-delete.yaml; do
      [ -f "$stage/$f" ] || { echo "k8s-bins: kwok $KWOK_VERSION has no $f" >&2; return 1; }
      echo "---"
      cat "$stage/$f"
    done
  } >"$1.tmp"
  mv "$1.tmp" "$1"
}

if [ "${1:-}" = "--check" ]; then
  complete && { echo "$BIN"; exit 0; }
  exit 1
fi

mkdir -p "$CACHE_ROOT"
# One build at a time per cache directory (several test JVMs or CI steps may ask at once).
exec 9>"$CACHE_ROOT/$KEY.lock"
flock 9

if [ -d "$BIN" ] && [ -f "$OUT/versions.txt" ] && ! stages_current "$BIN/$KWOK_STAGES"; then
  write_kwok_stages "$BIN/$KWOK_STAGES"
fi

if complete; then
  echo "k8s-bins: cached in $BIN (kubernetes $K8S_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION)" >&2
  echo "$BIN"
  exit 0
fi

# Only what the cache lacks is built (all of it when cold); the build directory is on the cache's
# file system so each finished binary is renamed into place.
MISSING=()
for b in "${BINARIES[@]}"; do [ -x "$BIN/$b" ] && [ -f "$OUT/versions.txt" ] || MISSING+=("$b"); done
wanted() { local m; for m in "${MISSING[@]}"; do [ "$m" = "$1" ] && return 0; done; return 1; }
WORK="$(mktemp -d "$CACHE_ROOT/.build-$KEY.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/bin"
mkdir -p "$STAGE"

export CGO_ENABLED=0 GOFLAGS="-trimpath -mod=mod" GOTOOLCHAIN=local
build() { nice -n 10 "$GO" "$@"; }
elapsed() { echo $(($(date +%s) - $1)); }
started=$(date +%s)
echo "k8s-bins: building ${MISSING[*]} into $OUT (kubernetes $K8S_VERSION, etcd $ETCD_VERSION, kwok $KWOK_VERSION, $GO_VERSION)" >&2

# --- kubernetes: a throwaway main module that requires k8s.io/kubernetes and points every staging
# module (replaced by ./staging/src/... in kubernetes's own go.mod) at its published release ---
KUBE_PKGS=()
for c in "${KUBE_CMDS[@]}"; do wanted "$c" && KUBE_PKGS+=("k8s.io/kubernetes/cmd/$c"); done
if [ "${#KUBE_PKGS[@]}" -gt 0 ]; then
  step=$(date +%s)
  mkdir -p "$WORK/kube"
  (cd "$WORK/kube" && "$GO" mod download -json "k8s.io/kubernetes@$K8S_VERSION" >"$WORK/kube-download.json")
  KUBE_MOD="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p' "$WORK/kube-download.json")"
  [ -f "$KUBE_MOD" ] || { echo "k8s-bins: no go.mod for k8s.io/kubernetes@$K8S_VERSION" >&2; exit 1; }
  {
    echo "module gpufleet.local/kubebins"
    echo
    grep -E '^go [0-9]' "$KUBE_MOD"
    grep -E '^godebug ' "$KUBE_MOD" || true
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    echo "replace ("
    sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9.-]*\) => \./staging/src/k8s\.io/.*$#\t\1 => \1 '"$STAGING_VERSION"'#p' "$KUBE_MOD"
    echo ")"
  } >"$WORK/kube/go.mod"
  staged=$(grep -c "=> k8s.io/" "$WORK/kube/go.mod" || true)
  [ "$staged" -gt 20 ] || { echo "k8s-bins: found only $staged staging modules in $KUBE_MOD" >&2; exit 1; }
  pkg=k8s.io/component-base/version
  LDFLAGS="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(cut -d. -f2 <<<"$K8S_VERSION")"
  LDFLAGS="$LDFLAGS -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  (cd "$WORK/kube" && build build -ldflags "$LDFLAGS" -o "$STAGE/" "${KUBE_PKGS[@]}")
  echo "k8s-bins: ${KUBE_PKGS[*]##*/} built in $(elapsed "$step") s" >&2
fi

# --- etcd: its server module also replaces its siblings with relative paths, so a tiny main module
# calls etcdmain.Main the way etcd's own main does ---
if wanted etcd; then
  step=$(date +%s)
  mkdir -p "$WORK/etcd"
  cat >"$WORK/etcd/main.go" <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  printf 'module gpufleet.local/etcdbin\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$WORK/etcd/go.mod"
  (cd "$WORK/etcd" && build mod tidy && build build -ldflags "-s -w" -o "$STAGE/etcd" .)
  echo "k8s-bins: etcd built in $(elapsed "$step") s" >&2
fi

# --- kwok and kwokctl: one plain module without replace directives ---
for c in kwok kwokctl; do
  wanted "$c" || continue
  step=$(date +%s)
  mkdir -p "$WORK/kwok"
  (cd "$WORK/kwok" && GOBIN="$STAGE" build install -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/$c@$KWOK_VERSION")
  echo "k8s-bins: $c built in $(elapsed "$step") s" >&2
done

mkdir -p "$BIN"
stages_current "$BIN/$KWOK_STAGES" || write_kwok_stages "$BIN/$KWOK_STAGES"
for b in "${MISSING[@]}"; do mv -f "$STAGE/$b" "$BIN/$b"; done
total=$(elapsed "$started")
if [ -f "$OUT/versions.txt" ]; then
  echo "added ${MISSING[*]} in $total s at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/versions.txt"
else
  {
    echo "kubernetes $K8S_VERSION"
    echo "etcd $ETCD_VERSION"
    echo "kwok $KWOK_VERSION"
    echo "go $GO_VERSION"
    echo "cold_build_seconds $total"
    echo "built_at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$OUT/versions.txt.tmp"
  mv "$OUT/versions.txt.tmp" "$OUT/versions.txt"
fi
echo "k8s-bins: built ${MISSING[*]} in ${total} s; binaries in $BIN" >&2
echo "$BIN"
