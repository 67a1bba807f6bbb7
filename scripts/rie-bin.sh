#!/usr/bin/env bash
# Builds the AWS Lambda Runtime Interface Emulator (aws-lambda-rie) from its Go module for the Lambda
# runtime test tier, the way its Makefile's compile-lambda-linux target does (CGO off, -s -w), and
# caches it in ~/.cache/gpufleet/rie/<hash of the pinned version and the Go version>/aws-lambda-rie.
#
# Usage: scripts/rie-bin.sh            build when missing; prints the binary's path as the last line
#        scripts/rie-bin.sh --check    print the path if it is built, exit 1 otherwise
# Progress goes to stderr; stdout carries only the path.
# Environment: GPUFLEET_RIE_CACHE (default ~/.cache/gpufleet/rie), GO (default: go on PATH).
set -euo pipefail

# The module is served by the Go proxy only as this pseudo-version (no tagged releases).
RIE_MODULE=github.com/aws/aws-lambda-runtime-interface-emulator
RIE_VERSION=v0.0.0-20261030222936-bef5c4ba774d
RECIPE=1 # bump when the way the binary is built changes

GO="${GO:-$(command -v go || echo /usr/local/go/bin/go)}"
if [ ! -x "$GO" ] && ! command -v "$GO" >/dev/null 2>&1; then
  echo "rie-bin: the Lambda runtime tier needs the Go toolchain (go) on PATH to build aws-lambda-rie" >&2
  exit 2
fi
GO_VERSION="$("$GO" env GOVERSION)"
KEY="$(printf '%s\n' "$RIE_VERSION" "$GO_VERSION" "$("$GO" env GOOS)/$("$GO" env GOARCH)" "$RECIPE" \
  | sha256sum | cut -c1-16)"
CACHE_ROOT="${GPUFLEET_RIE_CACHE:-$HOME/.cache/gpufleet/rie}"
OUT="$CACHE_ROOT/$KEY"
BIN="$OUT/aws-lambda-rie"

if [ "${1:-}" = "--check" ]; then
  [ -x "$BIN" ] && { echo "$BIN"; exit 0; }
  exit 1
fi

mkdir -p "$CACHE_ROOT"
exec 9>"$CACHE_ROOT/$KEY.lock"
flock 9
if [ -x "$BIN" ]; then
  echo "rie-bin: cached in $BIN ($RIE_VERSION)" >&2
  echo "$BIN"
  exit 0
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpufleet-rie-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
started=$(date +%s)
echo "rie-bin: building $RIE_MODULE@$RIE_VERSION with $GO_VERSION" >&2
# go.mod of the module has no replace directives, so `go install module/cmd@version` builds it as
# published; GOTOOLCHAIN=local fails instead of downloading a toolchain if Go is too old.
(cd "$WORK" && CGO_ENABLED=0 GOFLAGS="-trimpath -mod=mod" GOTOOLCHAIN=local GOBIN="$WORK/bin" \
  nice -n 10 "$GO" install -ldflags "-s -w" "$RIE_MODULE/cmd/aws-lambda-rie@$RIE_VERSION")
mkdir -p "$OUT"
mv "$WORK/bin/aws-lambda-rie" "$BIN.tmp"
mv "$BIN.tmp" "$BIN"
printf 'module %s\nversion %s\ngo %s\nbuilt_at %s\nbuild_seconds %s\n' "$RIE_MODULE" "$RIE_VERSION" \
  "$GO_VERSION" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(($(date +%s) - started))" >"$OUT/versions.txt"
echo "rie-bin: built in $(($(date +%s) - started)) s: $BIN" >&2
echo "$BIN"
