#!/usr/bin/env bash
# Makes the daemon's AOT cache (JDK 25, JEP 483/514): one training start of bin/ateom against throw-away dirs,
# answering /healthz, /metrics and a listing, then a clean stop; the JVM writes the classes it loaded and linked
# to ateom-microvm/target/ateom.aot, which bin/ateom then maps at start (faster start, less RSS). Run by
# scripts/build.sh after every build, since a cache only fits the jars it was made from. A failure only warns:
# bin/ateom runs without the cache.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/ateom-microvm/target/ateom.aot"
work=$(mktemp -d /tmp/ateom-aot.XXXXXX)
trap 'rm -rf "$work"' EXIT
rm -f "$CACHE"
: >"$work/empty.yaml"
ATEOM_JAVA_OPTS="-XX:AOTCacheOutput=$work/ateom.aot -Xlog:aot*=off" "$ROOT/bin/ateom" daemon --port 0 \
  --port-file "$work/port" --state-dir "$work/state" --run-dir "$work/run" --config "$work/empty.yaml" \
  --vmm-pool 0 --log-level WARNING >"$work/daemon.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [[ -s "$work/port" ]] && curl -sf "http://127.0.0.1:$(cat "$work/port")/healthz" >/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -s "$work/port" ]]; then
  url="http://127.0.0.1:$(cat "$work/port")"
  auth="Authorization: Bearer $(cat "$work/state/api-token")"
  curl -sf -H "$auth" "$url/metrics" >/dev/null
  curl -sf -H "$auth" "$url/v1/sandboxes" >/dev/null
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid"
if [[ -s "$work/ateom.aot" ]]; then
  mv "$work/ateom.aot" "$CACHE"
  echo "AOT cache: $CACHE ($(( $(stat -c %s "$CACHE") >> 20 )) MiB)"
else
  echo "warning: no AOT cache made (bin/ateom starts without one); training log: $(tail -3 "$work/daemon.log")" >&2
fi
