#!/usr/bin/env bash
# The newcomer's tour: builds what it needs, starts a throw-away daemon whose "cloud-hypervisor" is the CHV stand-in's
# qemu backend (each sandbox a real QEMU/TCG guest: the fixture guest of fixtures/guest, no /dev/kvm needed), and
# walks through what ateom does with the `ateom` CLI, printing each step's result and time:
#
#   create -> the guest's identity through its probe -> a file in the durable share -> rotate a secret on the host
#   and read the new value in the guest -> suspend -> inspect the snapshot -> resume -> clone with another identity
#   -> checkpoint (the guest keeps running) and fork 2 -> an E2B template, a sandbox from it driven by the official E2B SDK
#   -> delete everything
#
# Everything lives in one temp dir; on exit (also on failure or Ctrl-C) the daemon is stopped, nothing it started is
# left running (checked), and the dir is removed.
#
# Usage: scripts/try.sh [--no-build]     (--no-build: use what scripts/build.sh built last; CI's tour test uses it)
# Needs root on the machine scripts/setup.sh prepares (it runs it when .tools/ is missing).
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export PATH="$JAVA_HOME/bin:$PATH"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=1
for arg in "$@"; do
  case $arg in
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "try: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

TOUR_START=$(date +%s%N)
STEP=0
STEPS=12
step() { STEP=$((STEP + 1)); STEP_START=$(date +%s%N); printf '\n[%d/%d] %s\n' "$STEP" "$STEPS" "$*"; }
elapsed() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f s", (b - a) / 1e9 }'; }
# The step's result: the line the tour test looks for, with the step's time.
result() { printf '  => %s  (%s)\n' "$*" "$(elapsed "$STEP_START")"; }
# Runs the CLI, shows its output indented, and keeps it in $OUT for the step to read.
run() {
  printf '  $ ateom %s\n' "$*"
  OUT=$("$ROOT/bin/ateom" "$@" 2>&1) || { printf '%s\n' "$OUT" | sed 's/^/    /'; echo "try: 'ateom $*' failed" >&2; exit 1; }
  [[ -z $OUT ]] || printf '%s\n' "$OUT" | sed 's/^/    /'
}
# The guest probe's answer, quietly (for polling and comparisons).
ask() { "$ROOT/bin/ateom" probe "$@" 2>&1; }

# ------------------------------------------------------------------ build
if [[ ! -e $ROOT/.tools/env.sh ]]; then
  echo "try: .tools/ is missing: running scripts/setup.sh --no-docker first"
  "$ROOT/scripts/setup.sh" --no-docker
fi
# the daemon reads ATEOM_* from its environment: the tour's daemon gets only what this script and .tools/env.sh say
while read -r name; do unset "$name"; done < <(compgen -e | grep '^ATEOM_' || true)
# shellcheck disable=SC1091
source "$ROOT/.tools/env.sh"
if [[ $BUILD == 1 ]]; then
  echo "try: building (scripts/build.sh)"
  "$ROOT/scripts/build.sh"
fi
echo "try: building the fixture guest (fixtures/guest/build.sh; cached)"
GUEST_PROPS=$("$ROOT/fixtures/guest/build.sh")
prop() { sed -n "s/^$1=//p" "$GUEST_PROPS"; }
VMLINUX=$(prop vmlinux) INITRAMFS=$(prop initramfs) ROOTFS=$(prop rootfs)
GUEST_DIR=$(realpath "$(dirname "$VMLINUX")")

# ------------------------------------------------------------------ a daemon in a temp dir
TMP=$(mktemp -d /tmp/ateom-try.XXXXXX)
DAEMON_PID=
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  echo
  if [[ -n $DAEMON_PID ]] && kill -0 "$DAEMON_PID" 2>/dev/null; then
    # SIGTERM: the daemon suspends what still runs (nothing, after the tour) and its children die with it
    kill -TERM "$DAEMON_PID" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$DAEMON_PID" 2>/dev/null || true
    wait "$DAEMON_PID" 2>/dev/null || true
  fi
  # every process the daemon started names a path in $TMP (sockets, run dir, the stand-in's wrapper)
  local left=
  for _ in $(seq 1 50); do left=$(pgrep -f "$TMP" || true); [[ -z $left ]] && break; sleep 0.1; done
  if [[ -n $left ]]; then
    echo "try: processes left behind, killed: $(ps -o pid=,args= -p "${left//$'\n'/,}" | cut -c1-150)" >&2
    kill -KILL $left 2>/dev/null || true
    status=1
  else
    echo "  => nothing left running (pgrep -f $TMP finds no process)"
  fi
  if [[ $status != 0 && -f $TMP/daemon.log ]]; then
    echo "try: FAILED; the daemon's last log lines:" >&2
    tail -n 30 "$TMP/daemon.log" >&2
    for console in "$TMP"/run/*/e*/console.log; do
      [[ -f $console ]] && { echo "try: $console:" >&2; tail -n 15 "$console" >&2; }
    done
  fi
  rm -rf "$TMP"
  echo "  => temp dir $TMP removed; tour $([[ $status == 0 ]] && echo done || echo FAILED) in $(elapsed "$TOUR_START")"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$TMP/host/secrets"
printf 'token-v1' >"$TMP/host/secrets/token"
: >"$TMP/ateom.yaml"   # no /etc/ateom/ateom.yaml of this machine: the flags below are the whole configuration
# the daemon starts "cloud-hypervisor" as it would the real one; this one is the stand-in with its qemu backend
printf '#!/bin/sh\nATEOM_STANDIN_BACKEND=qemu exec %q "$@"\n' "$ROOT/fixtures/bin/chv-standin" >"$TMP/cloud-hypervisor"
chmod 0755 "$TMP/cloud-hypervisor"
export ATEOM_URL ATEOM_TOKEN_FILE="$TMP/state/api-token"

echo "try: temp dir $TMP"
echo "try: starting the daemon (log: $TMP/daemon.log)"
"$ROOT/bin/ateom" daemon --config "$TMP/ateom.yaml" --port 0 --port-file "$TMP/port" \
  --state-dir "$TMP/state" --run-dir "$TMP/run" --token-file "$TMP/state/api-token" \
  --image-roots "$GUEST_DIR" --host-directory-roots "$TMP/host" \
  --cloud-hypervisor "$TMP/cloud-hypervisor" --virtiofsd "$ATEOM_VIRTIOFSD" --vmm-pool 1 --e2b-listen 127.0.0.1:0 \
  >"$TMP/daemon.log" 2>&1 &
DAEMON_PID=$!
for _ in $(seq 1 600); do
  [[ -s $TMP/port ]] && break
  kill -0 "$DAEMON_PID" 2>/dev/null || { echo "try: the daemon exited at start" >&2; exit 1; }
  sleep 0.1
done
[[ -s $TMP/port ]] || { echo "try: the daemon did not start within 60 s" >&2; exit 1; }
ATEOM_URL="http://127.0.0.1:$(cat "$TMP/port")"
echo "try: daemon pid $DAEMON_PID on $ATEOM_URL, ready in $(elapsed "$TOUR_START") (ATEOM_URL and ATEOM_TOKEN_FILE tell the CLI)"

# The sandbox: the fixture guest, its identity file and a secret from the host in the system-info share, the
# durable dir "data", ready once its probe answers.
cat >"$TMP/tour-a.json" <<EOF
{
  "id": "tour-a",
  "identity": {"name": "tour-a", "namespace": "tour"},
  "vcpus": 1, "memoryMib": 256,
  "kernel": "$VMLINUX", "initramfs": "$INITRAMFS", "rootfs": "$ROOTFS",
  "cmdline": "console=ttyS0 panic=-1 quiet nokaslr mitigations=off init_on_alloc=0 cryptomgr.notests tsc=reliable no_timer_check",
  "durableDirs": ["data"],
  "systemInfo": {"volumes": [
    {"name": "identity", "sources": [{"actorMetadata": {"items": [{"field": "name", "path": "name"}]}}]},
    {"name": "secrets", "defaultMode": "0440", "sources": [{"hostDirectory": {"path": "$TMP/host/secrets"}}]}
  ]},
  "readiness": {"type": "probe", "port": 1024, "timeoutSeconds": 300}
}
EOF

# ------------------------------------------------------------------ the tour
step "create a sandbox: the fixture guest boots in QEMU/TCG (spec: $TMP/tour-a.json)"
run create -f "$TMP/tour-a.json"
result "created: tour-a $(awk '$1 == "tour-a" { print $2 }' <<<"$OUT")"

step "the guest's identity: its probe reads the identity file it opened at boot (/run/ate/identity/name)"
run probe tour-a whoami
result "identity: $OUT"

step "write a file in the durable share (guest /data/data, host <state>/sandboxes/tour-a/durable/data)"
run probe tour-a write /data/data/hello.txt hello from the tour
result "durable file on the host: $(cat "$TMP/state/sandboxes/tour-a/durable/data/hello.txt")"

step "rotate a secret: change the host file, the guest sees the new value (system-info sync)"
run probe tour-a cat /run/ate/secrets/token
printf 'token-v2' >"$TMP/host/secrets/token.new" && mv "$TMP/host/secrets/token.new" "$TMP/host/secrets/token"
echo "  host: token-v1 -> token-v2; waiting for the guest to read it"
for _ in $(seq 1 40); do [[ $(ask tour-a cat /run/ate/secrets/token) == token-v2 ]] && break; sleep 0.25; done
run probe tour-a cat /run/ate/secrets/token
result "secret in the guest: $OUT"

step "suspend: pause -> snapshot -> archive the durable dir -> stop"
run suspend tour-a
SNAPSHOT=$(sed -n 's/^snapshot: \([^ ]*\).*/\1/p' <<<"$OUT")
result "suspended: tour-a, snapshot $SNAPSHOT"

step "inspect the snapshot: what it holds, every checksum recomputed"
run snapshots
printf '  $ ateom inspect --verify %s -o json   (a few of its fields)\n' "$SNAPSHOT"
OUT=$("$ROOT/bin/ateom" inspect --verify "$SNAPSHOT" -o json 2>&1) || { printf '%s\n' "$OUT" >&2; exit 1; }
grep -E '"(sourceSandboxId|createdAt|apparentBytes|allocatedBytes|durableArchiveEntries|bytesHashed)"' <<<"$OUT" \
  | tr -d ' ,' | sed 's/^/    /' | sort -u
PROBLEMS=$(tr -d ' \n' <<<"$OUT" | grep -o '"problems":\[[^]]*\]' | head -1)
[[ $PROBLEMS == '"problems":[]' ]] || { echo "try: the snapshot did not verify: $PROBLEMS" >&2; exit 1; }
result "snapshot $SNAPSHOT of tour-a verified, no problems"

step "resume: restore from the snapshot; the guest's held descriptors and files are back"
run resume tour-a
run probe tour-a whoami
IDENTITY=$OUT
run probe tour-a cat /data/data/hello.txt
result "resumed: identity $IDENTITY, durable file: $OUT"

step "clone the snapshot as tour-b with its own identity"
run clone "$SNAPSHOT" --id tour-b --name tour-b --namespace tour
run probe tour-b whoami
CLONE_IDENTITY=$OUT
run probe tour-b cat /data/data/hello.txt
[[ $CLONE_IDENTITY != "$(ask tour-a whoami)" ]] || { echo "try: the clone has the source's identity" >&2; exit 1; }
result "clone identity: $CLONE_IDENTITY (tour-a still answers $(ask tour-a whoami)); durable file: $OUT"

step "checkpoint tour-a: a snapshot while it keeps running (the guest pauses only for the snapshot)"
run checkpoint tour-a
PAUSED=$(sed -n 's/.*(guest paused \([0-9]*\) ms).*/\1/p' <<<"$OUT")
run probe tour-a ping
result "checkpointed: tour-a still RUNNING, answers $OUT, guest paused $PAUSED ms"

step "fork tour-a into 2 clones at once, each with its own identity"
run fork tour-a -n 2 --name-prefix tour-f
FORKED=()
for id in tour-f-1 tour-f-2; do FORKED+=("$id=$(ask "$id" whoami)"); done
result "forked: ${FORKED[*]}"

step "E2B SDK: a template from the spec, a sandbox from it, a command through the envd proxy (the official e2b package)"
run template create tour-template -f "$TMP/tour-a.json" --timeout 900
E2B_URL=$(sed -n 's|.*e2b: API and envd proxy on \(http://[0-9.:]*\).*|\1|p' "$TMP/daemon.log" | tail -1)
printf '  $ E2B_API_URL=%s E2B_SANDBOX_URL=%s E2B_API_KEY=<the daemon token> node -e ...\n' "$E2B_URL" "$E2B_URL"
OUT=$(E2B_API_URL=$E2B_URL E2B_SANDBOX_URL=$E2B_URL E2B_API_KEY=$(cat "$TMP/state/api-token") "$ATEOM_NODE" --input-type=module -e "
  const { Sandbox } = await import(process.env.ATEOM_NODE_MODULES + '/e2b/dist/index.mjs');
  const sbx = await Sandbox.create('tour-template', { requestTimeoutMs: 900000 });
  const run = await sbx.commands.run('cat /run/ate/identity/name');
  await sbx.kill();
  console.log(sbx.sandboxId + ' answers ' + run.stdout);" 2>&1) || { printf '%s\n' "$OUT" >&2; echo "try: the E2B SDK step failed" >&2; exit 1; }
E2B_OUT=$OUT
printf '%s\n' "$E2B_OUT" | sed 's/^/    /'
run template delete tour-template
result "e2b sandbox $E2B_OUT"

step "delete everything (sandboxes and their snapshots)"
for id in tour-f-1 tour-f-2 tour-b tour-a; do run rm --snapshots "$id"; done
run ls
run snapshots
LEFT=$(grep -c '^tour-' <<<"$OUT" || true)
result "deleted: 4 sandboxes, $LEFT snapshots left"
