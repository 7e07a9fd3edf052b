#!/usr/bin/env bash
# The main job: set up this machine, build ateom, and run the daemon in the foreground.
# Any argument is passed to `ateom daemon` (see `bin/ateom daemon --help`).
# No Docker: nothing it runs needs one (only the tests and build-image.sh do), so setup runs with --no-docker.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --no-docker
# shellcheck disable=SC1091
source "$ROOT/.tools/env.sh"
"$ROOT/scripts/build.sh"
exec "$ROOT/bin/ateom" daemon "$@"
