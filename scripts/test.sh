#!/usr/bin/env bash
# Sets up everything a fresh machine needs, builds, and runs every test.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH="$JAVA_HOME/bin:$PATH"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
./scripts/setup.sh
# shellcheck disable=SC1091
source .tools/env.sh
exec mvn install "$@"
