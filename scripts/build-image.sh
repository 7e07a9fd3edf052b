#!/usr/bin/env bash
# Builds the daemon's container image (default ateom:dev) FROM scratch, from files on this machine only:
#   /opt/java        a jlink'ed Temurin 25 with only the modules the daemon needs (found by jdeps)
#   /usr/lib/...     the glibc and other shared libraries that runtime, JNA and zstd-jni load (per ldd)
#   /usr/bin/ateom-die-with-parent  how the daemon makes its children die with it (static)
#   /usr/bin/tini    PID 1: reaps orphaned grandchildren, forwards signals to the JVM
#   /opt/virtiofsd   .tools/virtiofsd with its own (trixie) glibc, its loader re-pointed to /opt/virtiofsd/lib
#   /opt/ateom       ateom-microvm.jar and lib/ (with e2b.jar, the E2B API extension)
# Needs scripts/build.sh (the jar) and scripts/setup.sh (virtiofsd, patchelf, docker) first.
# Idempotent: the jlink runtime and the jdeps answer are cached in packaging/target/, and the image carries a
# label with the hash of its build context, so an unchanged second run does not call `docker build` at all.
#
# Usage: scripts/build-image.sh [--force]   (--force: docker build even when the label matches)
#        ATEOM_IMAGE overrides the tag, DOCKER the client, ATEOM_TOOLS the .tools folder.
set -euo pipefail
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${ATEOM_IMAGE:-ateom:dev}"
# /usr/local/bin/docker on these machines is an unrelated client; docker.io's is /usr/bin/docker
DOCKER="${DOCKER:-/usr/bin/docker}"
TARGET="$ROOT/ateom-microvm/target"
VIRTIOFSD_DIR="${ATEOM_TOOLS:-$ROOT/.tools}/virtiofsd"
WORK="$ROOT/packaging/target"
CONTEXT="$WORK/context"
FORCE=0
[[ "${1:-}" == "--force" ]] && FORCE=1

say() { printf '[build-image] %s\n' "$*"; }
die() { printf '[build-image] ERROR: %s\n' "$*" >&2; exit 1; }
sha() { sha256sum | cut -c1-64; }

[[ -f "$TARGET/ateom-microvm.jar" && -d "$TARGET/lib" ]] || die "daemon not built: run scripts/build.sh first"
[[ -x "$VIRTIOFSD_DIR/bin/virtiofsd" ]] || die "virtiofsd missing in $VIRTIOFSD_DIR: run scripts/setup.sh first"
command -v patchelf >/dev/null || die "patchelf missing: run scripts/setup.sh first"
"$DOCKER" info >/dev/null 2>&1 || die "no Docker engine answers $DOCKER: run scripts/setup.sh (it starts dockerd)"
start=$(date +%s%N)
elapsed() { printf '%d.%d s' $(( ($(date +%s%N) - start) / 1000000000 )) $(( ($(date +%s%N) - start) / 100000000 % 10 )); }
mkdir -p "$WORK"
# one build at a time: several test runs in this tree (the e2e tests call this) may start it at once
exec 9>"$WORK/.lock"
flock 9

# ---------------------------------------------------------------- the daemon (libraries and jar in two layers)
# copied first: jdeps then reads the same jars the image gets, even if a build rewrites target/ meanwhile.
# A rebuilt jar differs from the staged one only in its entries' timestamps when nothing changed: keeping the
# staged copy then keeps the build context, and so the image, as it was.
entries() { unzip -v "$1" | awk 'NR > 3 {print $7, $8}'; }
stage_jar() {
  local src=$1 dest=$2/$(basename "$1")
  unzip -tqq "$src" >/dev/null || die "$src is unreadable (being rebuilt?): retry"
  if [[ -f $dest ]] && [[ "$(entries "$src")" == "$(entries "$dest")" ]]; then return; fi
  cp "$src" "$dest"
}
mkdir -p "$CONTEXT/deps/opt/ateom/lib" "$CONTEXT/app/opt/ateom"
for staged in "$CONTEXT"/deps/opt/ateom/lib/*.jar; do
  if [[ -f $staged && ! -f "$TARGET/lib/$(basename "$staged")" ]]; then rm "$staged"; fi
done
for jar in "$TARGET"/lib/*.jar; do stage_jar "$jar" "$CONTEXT/deps/opt/ateom/lib"; done
stage_jar "$TARGET/ateom-microvm.jar" "$CONTEXT/app/opt/ateom"
# the E2B API (--e2b-listen), a ServiceLoader extension: on the class path through the image's lib/*
[[ -f "$ROOT/e2b/target/e2b.jar" ]] || die "e2b/target/e2b.jar missing: run scripts/build.sh first"
mkdir -p "$CONTEXT/app/opt/ateom/lib"
stage_jar "$ROOT/e2b/target/e2b.jar" "$CONTEXT/app/opt/ateom/lib"
cp "$ROOT/packaging/Dockerfile" "$CONTEXT/Dockerfile"

# ---------------------------------------------------------------- modules (jdeps over the daemon's classpath)
JARS=("$CONTEXT/app/opt/ateom/ateom-microvm.jar" "$CONTEXT"/deps/opt/ateom/lib/*.jar "$CONTEXT/app/opt/ateom/lib/e2b.jar")
jars_key=$(sha256sum "${JARS[@]}" | sed 's|  .*/| |' | sha)
if [[ "$(cat "$WORK/modules.key" 2>/dev/null)" != "$jars_key" ]]; then
  classpath=$(IFS=:; echo "${JARS[*]:1}")
  # modular jars given as roots are read as modules, so they go on both paths
  detected=$("$JAVA_HOME/bin/jdeps" --print-module-deps --ignore-missing-deps --multi-release 25 \
      --module-path "$classpath" --class-path "$classpath" "${JARS[@]}" 2>&1 | grep -v '^Warning: split package' | tail -1)
  [[ $detected == java.base* ]] || die "jdeps did not print a module list (got: $detected)"
  # jdk.unsupported: sun.misc.Unsafe, which several libraries look up reflectively (jdeps cannot see that)
  echo "$detected,jdk.unsupported" >"$WORK/modules"
  echo "$jars_key" >"$WORK/modules.key"
  say "modules (jdeps): $(cat "$WORK/modules")"
fi
MODULES=$(cat "$WORK/modules")

# ---------------------------------------------------------------- base layer: runtime + shared libraries
BASE="$CONTEXT/base"
# zip-6 saves ~30 MB; the daemon still starts in about a second (the CDS archive holds the startup classes)
JLINK_OPTS=(--strip-debug --no-man-pages --no-header-files --generate-cds-archive --compress=zip-6)
runtime_key=$(printf '%s\n' "$(cat "$JAVA_HOME/release")" "$(stat -c '%s %Y' "$JAVA_HOME/lib/modules")" "$MODULES" "${JLINK_OPTS[*]}" | sha)
if [[ "$(cat "$WORK/runtime.key" 2>/dev/null)" != "$runtime_key" || ! -x "$BASE/opt/java/bin/java" ]]; then
  say "jlink $MODULES"
  rm -rf "$BASE"; mkdir -p "$BASE/opt"
  "$JAVA_HOME/bin/jlink" --add-modules "$MODULES" "${JLINK_OPTS[@]}" --output "$BASE/opt/java" >/dev/null
  # java.desktop is needed for java.beans only: its X11/ALSA natives are never loaded by a headless daemon,
  # and dropping them keeps X11 and ALSA out of the image
  for so in "$BASE"/opt/java/lib/*.so; do
    # not grep -q: it would exit at the first match, ldd would die of SIGPIPE and pipefail would hide the match
    if ldd "$so" 2>/dev/null | grep -E 'libX11|libasound|libawt_xawt' >/dev/null; then rm "$so"; fi
  done
  # the CDS archive for heaps over 32 GB (no compressed oops) is not worth 14 MB here
  rm -f "$BASE/opt/java/lib/server/classes_nocoops.jsa"
  echo "$runtime_key" >"$WORK/runtime.key"
fi

# ELF files whose libraries must be in the image: the runtime and the JNI libraries JNA and zstd-jni extract to
# /tmp at run time
NATIVE="$WORK/native"
rm -rf "$NATIVE"; mkdir -p "$NATIVE"
for jar in "$CONTEXT"/deps/opt/ateom/lib/{jna,zstd-jni}-*.jar; do
  unzip -qo "$jar" 'com/sun/jna/linux-x86-64/*' 'linux/amd64/*' -d "$NATIVE" 2>/dev/null || true
done
mapfile -t elves < <(find "$BASE/opt/java" "$NATIVE" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \))
rm -rf "$BASE/usr" "$BASE/lib" "$BASE/lib64" "$BASE/bin"
mkdir -p "$BASE/usr/lib/x86_64-linux-gnu" "$BASE/usr/bin" "$BASE/lib64"
ln -s usr/lib "$BASE/lib"
ln -s usr/bin "$BASE/bin"
missing=$(ldd "${elves[@]}" 2>/dev/null | grep 'not found' | grep -v 'libjvm.so' || true)
[[ -z $missing ]] || die "unresolved libraries: $missing"
mapfile -t libs < <(ldd "${elves[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\/(usr\/)?lib/ {print $3}' | sort -u)
# libgcc_s is dlopen'ed by glibc to unwind threads on pthread_exit/cancel, so ldd never lists it
libs+=(/lib/x86_64-linux-gnu/libgcc_s.so.1)
for lib in "${libs[@]}"; do cp -L "$lib" "$BASE/usr/lib/x86_64-linux-gnu/"; done
cp -L /lib64/ld-linux-x86-64.so.2 "$BASE/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$BASE/lib64/ld-linux-x86-64.so.2"
# the children's parent-death wrapper (static); ParentDeathWrapper looks for it at /usr/bin/ateom-die-with-parent
[[ -x "$ROOT/child-process/target/ateom-die-with-parent" ]] || die "child-process/target/ateom-die-with-parent missing; run scripts/build.sh"
cp -L "$ROOT/child-process/target/ateom-die-with-parent" "$BASE/usr/bin/ateom-die-with-parent"
# the VMM jail launcher (static: needs no library); JailLauncher looks for it at /usr/bin/ateom-jail
[[ -x "$ROOT/jail/target/ateom-jail" ]] || die "jail/target/ateom-jail missing; run scripts/build.sh"
cp -L "$ROOT/jail/target/ateom-jail" "$BASE/usr/bin/ateom-jail"
# PID 1 that reaps orphans and forwards signals (docker.io's static tini, what `docker run --init` uses)
cp -L /usr/bin/docker-init "$BASE/usr/bin/tini"
# /tmp writable by all (JNA and zstd-jni extract their natives there); the daemon's default directories
mkdir -p "$BASE/tmp" "$BASE/etc" "$BASE/var/lib/ateom" "$BASE/run/ateom" "$BASE/root"
chmod 1777 "$BASE/tmp"
chmod 0700 "$BASE/var/lib/ateom" "$BASE/root"
printf 'root:x:0:0:root:/root:/nonexistent\nnobody:x:65534:65534:nobody:/nonexistent:/nonexistent\n' >"$BASE/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$BASE/etc/group"

# ---------------------------------------------------------------- virtiofsd with its own glibc
VFS="$CONTEXT/virtiofsd/opt/virtiofsd"
rm -rf "$CONTEXT/virtiofsd"; mkdir -p "$VFS/bin" "$VFS/lib"
cp "$VIRTIOFSD_DIR/bin/virtiofsd" "$VFS/bin/"
loader="$VIRTIOFSD_DIR/lib/ld-linux-x86-64.so.2"
# its loader lists exactly the libraries it loads (the folder also holds all of glibc's gconv modules)
mapfile -t vlibs < <("$loader" --list "$VIRTIOFSD_DIR/bin/virtiofsd" | awk '$2 == "=>" {print $3}')
for lib in "${vlibs[@]}" "$loader"; do cp -L "$lib" "$VFS/lib/"; done
# setup.sh points the interpreter at the repo's absolute .tools path; in the image it lives in /opt/virtiofsd
patchelf --set-interpreter /opt/virtiofsd/lib/ld-linux-x86-64.so.2 "$VFS/bin/virtiofsd"

# ---------------------------------------------------------------- build unless the same context is already built
# the hash covers paths, modes, symlink targets and file contents (not mtimes, like docker's own cache)
context_key=$(cd "$CONTEXT" && { find . -printf '%p %m %l\n' | LC_ALL=C sort; \
  find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } | sha)
current=$("$DOCKER" image inspect "$IMAGE" --format '{{index .Config.Labels "dev.ateom.context-sha256"}}' 2>/dev/null || true)
if [[ $FORCE -eq 0 && "$current" == "$context_key" ]]; then
  say "$IMAGE is up to date ($(elapsed))"
  exit 0
fi
say "docker build -t $IMAGE"
"$DOCKER" build -q --label "dev.ateom.context-sha256=$context_key" -t "$IMAGE" "$CONTEXT" >/dev/null
# the image this one replaced is left untagged: drop such leftovers of earlier builds (only ours, by label)
"$DOCKER" image prune -f --filter label=dev.ateom.context-sha256 >/dev/null

# smoke check: both runtimes start inside the image
"$DOCKER" run --rm --entrypoint /opt/java/bin/java "$IMAGE" -version >/dev/null 2>&1 || die "java does not start in $IMAGE"
"$DOCKER" run --rm --entrypoint /opt/virtiofsd/bin/virtiofsd "$IMAGE" --version >/dev/null 2>&1 \
  || die "virtiofsd does not start in $IMAGE"
size=$("$DOCKER" image inspect "$IMAGE" --format '{{.Size}}')
say "built $IMAGE: $((size / 1024 / 1024)) MiB in $(elapsed)"
