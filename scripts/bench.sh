#!/usr/bin/env bash
# Speed benchmark (issue 15): lifecycle through the REST API of bin/ateom beside the hypervisor's own calls, daemon
# start and RSS. Builds first. Env: CYCLES (default 10), BACKENDS (default none; also qemu, and chv when
# ATEOM_CLOUD_HYPERVISOR names a real Cloud Hypervisor). Tables are printed and written to bench-results/.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH="$JAVA_HOME/bin:$PATH"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f .tools/env.sh ]] && source .tools/env.sh
backends="${BACKENDS:-none${ATEOM_CLOUD_HYPERVISOR:+,chv}}"
mvn -q -o -DskipTests install
mvn -q -o -pl ateom-microvm test -Dtest=SpeedBenchmark -Dsurefire.excludedGroups=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dbench.cycles="${CYCLES:-10}" -Dbench.backends="$backends" -Dsurefire.printSummary=false 2>&1 \
  | grep -v '^\[\|^$' || true
ls bench-results/speed-*.md
