#!/usr/bin/env bash
# Issue 15's benchmark harness in one run (SpeedBenchmark): per backend the lifecycle through bin/ateom's REST API
# beside the hypervisor's own calls, the daemon's start and RSS, scaling to N sandboxes at once; then durable archive
# vs GNU tar, snapshot write vs dd, system-info sync lag. Builds first. Tables are printed; markdown and SVG charts go
# to bench-results/ (git-ignored). Env (defaults in brackets):
#   BACKENDS [none,qemu; +chv when ATEOM_CLOUD_HYPERVISOR names a real Cloud Hypervisor]  CYCLES [10]
#   SCALING [1,5,10,20] (none backend)  GUEST_SCALING [1,5,10,20] (qemu/chv)  SCALING_ROUNDS [2]
#   ARCHIVE_MIB [1024]  SNAPSHOT_MIB [1024]  ARCHIVE_ROUNDS [3]  SYNC_UPDATES [200]  DAEMON_ARGS [] (e.g. "--vmm-pool 0")
#   MAVEN_ARGS [] (added to both mvn calls, e.g. "-Dmaven.repo.local=/path/to/repo")
#   BASELINE [true]: the none backend's lifecycle also runs on a second daemon with the resume/clone path before issue 27
#   (-Dateom.baseline=before-issue-27), cycles interleaved, and a before/after table with ratios is printed
#   BASELINE_CHECKOUT []: that second daemon is another built checkout's bin/ateom instead (e.g. a worktree of the
#   previous commit, built with scripts/build.sh), for a before/after of a change in one run
#   BASELINE_JAVA_OPTS [-Dateom.baseline=before-issue-27, none with BASELINE_CHECKOUT]: that second daemon's
#   ATEOM_JAVA_OPTS, e.g. -Djdk.virtualThreadScheduler.parallelism=16 to compare a JVM option in one run
# BENCH=soak runs the churn soak instead (SoakBenchmark: the daemon's RSS, heap after GC, descriptors and threads
# every EVERY rounds): ROUNDS [300] PARALLEL [2] EVERY [25] SOAK_JAVA_OPTS [] (e.g. -XX:NativeMemoryTracking=summary)
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH="$JAVA_HOME/bin:$PATH"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -f .tools/env.sh ]] && source .tools/env.sh
props=(-Dbench.backends="${BACKENDS:-none,qemu${ATEOM_CLOUD_HYPERVISOR:+,chv}}" -Dbench.cycles="${CYCLES:-10}"
  -Dbench.scaling="${SCALING:-1,5,10,20}" -Dbench.guestScaling="${GUEST_SCALING:-1,5,10,20}"
  -Dbench.scalingRounds="${SCALING_ROUNDS:-2}" -Dbench.archiveMib="${ARCHIVE_MIB:-1024}"
  -Dbench.snapshotMib="${SNAPSHOT_MIB:-1024}" -Dbench.archiveRounds="${ARCHIVE_ROUNDS:-3}"
  -Dbench.syncUpdates="${SYNC_UPDATES:-200}" -Dbench.daemonArgs="${DAEMON_ARGS:-}" -Dbench.baseline="${BASELINE:-true}"
  -Dbench.baselineJavaOpts="${BASELINE_JAVA_OPTS:-}" -Dbench.baselineCheckout="${BASELINE_CHECKOUT:-}"
  -Dsoak.rounds="${ROUNDS:-300}" -Dsoak.parallel="${PARALLEL:-2}" -Dsoak.every="${EVERY:-25}" -Dsoak.javaOpts="${SOAK_JAVA_OPTS:-}")
case "${BENCH:-speed}" in
  speed) bench=SpeedBenchmark ;;
  soak) bench=SoakBenchmark ;;
  *) echo "BENCH must be speed or soak, not '$BENCH'" >&2; exit 2 ;;
esac
mvn -q -o ${MAVEN_ARGS:-} -DskipTests install
# the daemon starts as shipped: with an AOT cache made from the jars just built (bin/ateom ignores an older one)
scripts/build-aot-cache.sh
mkdir -p bench-results
rm -f bench-results/*.md bench-results/*.svg # only this run's tables are listed at the end
# surefire keeps the test's output in its report file; follow it so the tables show while they are measured
report=ateom-microvm/target/surefire-reports/dev.ateom.microvm.bench.$bench-output.txt
rm -f "$report"
( while [[ ! -f "$report" ]]; do sleep 1; done; tail -n +1 -f "$report" ) & follower=$!
trap 'kill "$follower" 2>/dev/null || true' EXIT
status=0
mvn -q -o ${MAVEN_ARGS:-} -pl ateom-microvm test -Dtest="$bench" -Dsurefire.excludedGroups=none -Dsurefire.failIfNoSpecifiedTests=false \
  "${props[@]}" > bench-results/maven.log 2>&1 || status=$?
sleep 1
if (( status != 0 )); then
  echo "benchmark failed (exit $status); Maven's output: bench-results/maven.log" >&2
  grep -h -A20 '<<< \(FAILURE\|ERROR\)' ateom-microvm/target/surefire-reports/*"$bench".txt >&2 || tail -40 bench-results/maven.log >&2
  exit "$status"
fi
if [[ $bench == SpeedBenchmark ]]; then
  # the E2B API (e2b module): create-from-template at 1 and 5 at once beside the restore, commands.run('true') through
  # the envd proxy beside the agent itself; its table goes to bench-results/e2b.md and into bench.md
  e2b_report=e2b/target/surefire-reports/dev.ateom.e2b.E2bBenchmark-output.txt
  rm -f "$e2b_report"
  if mvn -q -o ${MAVEN_ARGS:-} -pl e2b test -Dtest=E2bBenchmark -Dsurefire.excludedGroups=none -Dsurefire.failIfNoSpecifiedTests=false \
      >> bench-results/maven.log 2>&1; then
    grep '^|' "$e2b_report" > bench-results/e2b.md
    { echo; echo "## E2B API (none backend)"; echo; cat bench-results/e2b.md; } >> bench-results/bench.md
    cat bench-results/e2b.md
  else
    echo "E2B benchmark failed; Maven's output: bench-results/maven.log" >&2
    exit 1
  fi
fi
echo "tables and charts:"
ls -1 "$PWD"/bench-results/*.md "$PWD"/bench-results/*.svg 2>/dev/null || true # the soak draws no chart
