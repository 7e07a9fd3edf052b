#!/usr/bin/env bash
# Makes the daemon's AOT cache (JDK 25, JEPs 483/514/515): one training start of bin/ateom against throw-away dirs,
# then a clean stop; the JVM writes the classes it loaded and linked, and the profiles of the methods it ran, to
# ateom-microvm/target/ateom.aot, which bin/ateom then maps at start. Run by scripts/build.sh after every build, since a
# cache only fits the jars it was made from. A failure only warns: bin/ateom runs without the cache.
#
# The training is a short lifecycle when the CHV stand-in (fixtures/bin/chv-standin, `none` backend: no guest) and
# virtiofsd are here: create, suspend, resume, suspend, clones (made ahead) and deletes, so the classes of those
# operations are linked and their methods' profiles are there from the start (docs/decisions.md, "An AOT cache trained
# on the lifecycle"). Otherwise it answers /healthz, /metrics and a listing only.
set -uo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/ateom-microvm/target/ateom.aot"
CLONES=8
work=$(mktemp -d /tmp/ateom-aot.XXXXXX)
pid=
# the daemon stops its VMs, virtiofsd and pool at a clean stop; this only covers an interrupted script
trap '[[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
rm -f "$CACHE"
: >"$work/empty.yaml"
[[ -z "${ATEOM_VIRTIOFSD:-}" && -f "$ROOT/.tools/env.sh" ]] && source "$ROOT/.tools/env.sh"
standin="$ROOT/fixtures/bin/chv-standin"
lifecycle=no
if [[ -x "${ATEOM_VIRTIOFSD:-}" && -d "$ROOT/fixtures/target/classes/dev/ateom/fixtures/chv" && -d "$ROOT/fixtures/target/lib" ]]; then
  lifecycle=yes
  mkdir -p "$work/image/rootfs/etc"
  echo "not a kernel: the none backend boots nothing" >"$work/image/vmlinux"
  printf '#!/bin/sh\nATEOM_STANDIN_BACKEND=none exec %s "$@"\n' "$standin" >"$work/chv"
  chmod +x "$work/chv"
  args=(--cloud-hypervisor "$work/chv" --virtiofsd "$ATEOM_VIRTIOFSD" --image-roots "$work/image" --clone-ahead 2
    --virtiofsd-ahead 2)
else
  echo "AOT cache: no CHV stand-in or virtiofsd built here (run scripts/setup.sh and mvn install): trained on the API alone" >&2
  args=(--vmm-pool 0)
fi
ATEOM_JAVA_OPTS="-XX:AOTCacheOutput=$work/ateom.aot -Xlog:aot*=off" "$ROOT/bin/ateom" daemon --port 0 \
  --port-file "$work/port" --state-dir "$work/state" --run-dir "$work/run" --config "$work/empty.yaml" \
  "${args[@]}" --log-level WARNING >"$work/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [[ -s "$work/port" ]] && curl -sf "http://127.0.0.1:$(cat "$work/port")/healthz" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
trained="the API alone"
if [[ -s "$work/port" ]]; then
  url="http://127.0.0.1:$(cat "$work/port")"
  auth="Authorization: Bearer $(cat "$work/state/api-token")"
  call() { curl -sf --max-time 60 -H "$auth" -H 'Content-Type: application/json' "$@"; }
  call "$url/metrics" >/dev/null
  call "$url/v1/sandboxes" >/dev/null
  if [[ $lifecycle == yes ]]; then
    trained="the lifecycle"
    # each step needs the one before; the first that fails ends the training (the cache holds what ran until then)
    lifecycle_ok() {
      call -X POST "$url/v1/sandboxes" -d "{\"id\":\"train\",\"identity\":{\"name\":\"train\",\"namespace\":\"aot\"},
        \"vcpus\":1,\"memoryMib\":128,\"kernel\":\"$work/image/vmlinux\",\"rootfs\":\"$work/image/rootfs\"}" >/dev/null || return 1
      call -X POST "$url/v1/sandboxes/train/suspend" >/dev/null || return 1
      call -X POST "$url/v1/sandboxes/train/resume" >/dev/null || return 1
      local snapshot
      snapshot=$(call -X POST "$url/v1/sandboxes/train/suspend" | sed -n 's/.*"snapshotId" *: *"\([^"]*\)".*/\1/p') || return 1
      [[ -n $snapshot ]] || return 1
      for i in $(seq "$CLONES"); do
        call -X POST "$url/v1/sandboxes" -d "{\"fromSnapshot\":\"$snapshot\",\"id\":\"train-$i\",
          \"identity\":{\"name\":\"train-$i\",\"namespace\":\"aot\"}}" >/dev/null || return 1
        call "$url/v1/sandboxes/train-$i" >/dev/null || return 1
        call -X DELETE "$url/v1/sandboxes/train-$i" >/dev/null || return 1
      done
      call -X DELETE "$url/v1/sandboxes/train?deleteSnapshots=true" >/dev/null
    }
    lifecycle_ok || { trained="part of the lifecycle"; echo "warning: the AOT training's lifecycle stopped early; daemon log: $(tail -3 "$work/daemon.log")" >&2; }
  fi
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid"
pid=
if [[ -s "$work/ateom.aot" ]]; then
  mv "$work/ateom.aot" "$CACHE"
  echo "AOT cache: $CACHE ($(( $(stat -c %s "$CACHE") >> 20 )) MiB, trained on $trained)"
else
  echo "warning: no AOT cache made (bin/ateom starts without one); training log: $(tail -3 "$work/daemon.log")" >&2
fi
