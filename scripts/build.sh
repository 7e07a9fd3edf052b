#!/usr/bin/env bash
# Builds every module (no tests) so bin/ateom and the CHV stand-in can run.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH="$JAVA_HOME/bin:$PATH"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mvn -q -DskipTests install
scripts/build-aot-cache.sh
