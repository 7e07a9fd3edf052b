#!/usr/bin/env bash
# Sets up everything a fresh machine needs, builds, and runs every test.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH="$JAVA_HOME/bin:$PATH"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
./scripts/setup.sh
# setup.sh starts dockerd; the container e2e test (ateom:dev via Testcontainers) needs it, so stop here if it is down
if ! /usr/bin/docker info >/dev/null 2>&1; then
  echo "[test] ERROR: the Docker engine is not running (dockerd log: /var/log/ateom-dockerd.log)" >&2
  exit 1
fi
# shellcheck disable=SC1091
source .tools/env.sh
exec mvn install "$@"
