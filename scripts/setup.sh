#!/usr/bin/env bash
# Installs every system part ateom needs, from Debian's packages only, and says what it did.
# Idempotent: a second run checks stamps and versions, changes nothing and takes seconds.
#
#   system-wide (apt, bookworm + bookworm-backports): busybox-static cpio kmod patchelf xz-utils zstd unzip
#                                                     gcc libc6-dev golang-go (the fixture guest's probe and agent)
#                                                     nftables iproute2 iptables (sandbox network slots)
#                                                     qemu-system-x86 (10.x, backports) docker.io
#   project-local (.tools/, from trixie/sid .debs, never apt-installed on bookworm):
#       .tools/virtiofsd/            virtiofsd (sid) + trixie glibc & friends, patched to use them
#       .tools/vhost-device-vsock/   vhost-device-vsock (sid), same treatment
#       .tools/kernel/               trixie linux-image-6.12 unpacked (vmlinuz, modules)
#       .tools/nodejs/               Node.js 20 (trixie nodejs + libnode115 + their libraries), only where no node >= 20.18.1
#                                    is installed: patched like virtiofsd; bin/node is a wrapper (see install_node)
#       .tools/node/                 the npm packages of scripts/node/package.json (e2b SDK, s3rver), npm ci
#
# Usage: scripts/setup.sh [--no-docker]     ATEOM_TOOLS overrides the tools folder; ATEOM_NODE_FROM=trixie installs
#                                          trixie's Node.js into .tools/nodejs even where a usable node is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${ATEOM_TOOLS:-$ROOT/.tools}"
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
export DEBIAN_FRONTEND=noninteractive
WANT_DOCKER=1
[[ "${1:-}" == "--no-docker" ]] && WANT_DOCKER=0

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (apt-get install and dockerd need it)"
[[ -x "$JAVA_HOME/bin/java" ]] || die "Temurin 25 not found at $JAVA_HOME"

start=$(date +%s)
mkdir -p "$TOOLS"

# ---------------------------------------------------------------- system packages (bookworm)
# iptables: the daemon writes to tables iptables owns (Docker's DOCKER-USER, ufw's FORWARD) only with iptables' own binaries
APT_PKGS=(busybox-static cpio kmod patchelf xz-utils zstd gcc libc6-dev golang-go unzip nftables iproute2 iptables)
BACKPORTS_LIST=/etc/apt/sources.list.d/ateom-bookworm-backports.sources
apt_updated=0
apt_update_once() {
  if [[ $apt_updated -eq 0 ]]; then say "apt-get update"; apt-get update -qq; apt_updated=1; fi
}

if [[ ! -f $BACKPORTS_LIST ]]; then
  say "adding bookworm-backports to $BACKPORTS_LIST (for QEMU 10)"
  cat >"$BACKPORTS_LIST" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt_updated=0
fi

missing=()
for p in "${APT_PKGS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  apt_update_once
  say "apt-get install ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

qemu_major() { qemu-system-x86_64 --version 2>/dev/null | sed -n 's/.*version \([0-9]*\)\..*/\1/p'; }
if [[ "$(qemu_major)" -lt 10 ]] 2>/dev/null || ! command -v qemu-system-x86_64 >/dev/null; then
  apt_update_once
  say "apt-get install -t bookworm-backports qemu-system-x86 (QEMU 10)"
  apt-get install -y -qq --no-install-recommends -t bookworm-backports qemu-system-x86 >/dev/null
fi
[[ "$(qemu_major)" -ge 10 ]] || die "QEMU >= 10 needed, have: $(qemu-system-x86_64 --version | head -1)"
[[ -f /usr/share/qemu/qboot.rom ]] || die "/usr/share/qemu/qboot.rom missing (package qemu-system-data)"

if [[ $WANT_DOCKER -eq 1 ]]; then
  if ! dpkg -s docker.io >/dev/null 2>&1; then
    apt_update_once
    say "apt-get install docker.io"
    apt-get install -y -qq --no-install-recommends docker.io >/dev/null
  fi
  if ! /usr/bin/docker info >/dev/null 2>&1; then
    # a dockerd killed at a session's end leaves its pid file, and a new one refuses to start while it names a
    # process (a pid reused, or the killed one not yet reaped); docker info failing means no dockerd answers here
    old_pid=$(cat /var/run/docker.pid 2>/dev/null || true)
    if [[ -n $old_pid ]] && ! ps -o stat=,comm= -p "$old_pid" 2>/dev/null | grep -q '^[^Z][^ ]* *dockerd$'; then
      say "removing stale /var/run/docker.pid ($old_pid)"
      rm -f /var/run/docker.pid
    fi
    say "starting dockerd (log: /var/log/ateom-dockerd.log)"
    (setsid /usr/sbin/dockerd >/var/log/ateom-dockerd.log 2>&1 &)
    for _ in $(seq 1 60); do /usr/bin/docker info >/dev/null 2>&1 && break; sleep 0.5; done
    /usr/bin/docker info >/dev/null 2>&1 && say "dockerd is up" || say "WARN: dockerd did not come up (container tests skip, or fail when CI is set)"
  fi
fi

# ---------------------------------------------------------------- trixie/sid .debs, project-local
# A private apt configuration that only knows trixie and sid: used for `apt-get download`, never install.
PAPT="$TOOLS/apt"
PAPT_OPTS=(-o "Dir::Etc::SourceList=$PAPT/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
           -o "Dir::State=$PAPT/state" -o "Dir::Cache=$PAPT/cache" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
           -o "APT::Get::AllowUnauthenticated=false")
papt_ready=0
papt() {
  if [[ $papt_ready -eq 0 ]]; then
    mkdir -p "$PAPT/state/lists/partial" "$PAPT/cache/archives/partial" "$TOOLS/debs"
    cat >"$PAPT/sources.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
EOF
    say "private apt update (trixie, sid) in $PAPT"
    apt-get "${PAPT_OPTS[@]}" update -qq
    papt_ready=1
  fi
  case $1 in show|policy|depends) apt-cache "${PAPT_OPTS[@]}" "$@" ;; *) apt-get "${PAPT_OPTS[@]}" "$@" ;; esac
}
# download_deb <pkg> <suite> -> prints the .deb path
download_deb() {
  local pkg=$1 suite=$2 ver
  ver=$(papt show "$pkg/$suite" 2>/dev/null | sed -n 's/^Version: //p' | head -1)
  [[ -n $ver ]] || die "package $pkg not found in $suite"
  local file
  file=$(ls "$TOOLS/debs/${pkg}_"*"${ver#*:}"*.deb 2>/dev/null | head -1 || true)
  if [[ -z $file ]]; then
    (cd "$TOOLS/debs" && papt download -qq "$pkg=$ver" >/dev/null) || die "download of $pkg=$ver failed"
    file=$(ls "$TOOLS/debs/${pkg}_"*.deb | grep -F "${ver#*:}" | head -1)
    say "downloaded $(basename "$file")" >&2
  fi
  echo "$file"
}

RUNTIME_LIBS=(libc6 libseccomp2 libcap-ng0 libgcc-s1)
# install_rust_tool <name> <suite> <binary path inside deb>
install_rust_tool() {
  local name=$1 suite=$2 inner=$3 dest="$TOOLS/$1"
  if [[ -x "$dest/bin/$name" ]] && "$dest/bin/$name" --version >/dev/null 2>&1 \
     && [[ "$(cat "$dest/.root" 2>/dev/null)" == "$dest" ]]; then
    say "$name ok: $("$dest/bin/$name" --version 2>&1 | head -1) ($dest/bin/$name)"
    return
  fi
  rm -rf "$dest"; mkdir -p "$dest/bin" "$dest/lib" "$dest/unpack"
  local deb
  deb=$(download_deb "$name" "$suite"); dpkg -x "$deb" "$dest/unpack"
  for lib in "${RUNTIME_LIBS[@]}"; do
    deb=$(download_deb "$lib" trixie); dpkg -x "$deb" "$dest/unpack"
  done
  cp "$dest/unpack/$inner" "$dest/bin/$name"
  # libraries of trixie's glibc and friends, flattened into lib/
  find "$dest/unpack" -path '*/lib/x86_64-linux-gnu/*' \( -type f -o -type l \) -name '*.so*' \
    -exec cp -a {} "$dest/lib/" \;
  local loader="$dest/lib/ld-linux-x86-64.so.2"
  [[ -e $loader ]] || die "loader missing after unpacking libc6 for $name"
  # the interpreter path is absolute: .root records where it was patched, a moved folder is re-done
  patchelf --set-interpreter "$loader" --set-rpath '$ORIGIN/../lib' "$dest/bin/$name"
  echo "$dest" >"$dest/.root"
  rm -rf "$dest/unpack"
  "$dest/bin/$name" --version >/dev/null 2>&1 || die "$name does not run after patching"
  say "installed $name: $("$dest/bin/$name" --version 2>&1 | head -1) ($dest/bin/$name)"
}

install_rust_tool virtiofsd sid usr/libexec/virtiofsd
install_rust_tool vhost-device-vsock sid usr/bin/vhost-device-vsock

# ---------------------------------------------------------------- guest kernel (trixie), unpacked
KDIR="$TOOLS/kernel"
if compgen -G "$KDIR/boot/vmlinuz-6.12*" >/dev/null && [[ -f "$KDIR/.complete" ]]; then
  say "guest kernel ok: $(basename "$(ls "$KDIR"/boot/vmlinuz-6.12*)")"
else
  rm -rf "$KDIR"; mkdir -p "$KDIR"
  kpkg=$(papt show linux-image-amd64/trixie 2>/dev/null | sed -n 's/^Depends: .*\(linux-image-6\.12[^ ,]*-amd64\).*/\1/p' | head -1)
  [[ -n $kpkg ]] || die "cannot resolve trixie's linux-image-amd64"
  deb=$(download_deb "$kpkg" trixie)
  dpkg -x "$deb" "$KDIR"
  kver=$(ls "$KDIR/lib/modules" 2>/dev/null || ls "$KDIR/usr/lib/modules")
  touch "$KDIR/.complete"
  say "guest kernel unpacked: $kpkg ($kver) in $KDIR"
fi

# ---------------------------------------------------------------- Node.js and the npm packages the tests run
# the E2B SDK (a client of the E2B API) and s3rver (an S3 server); pinned with their lock file, installed into .tools/node
NODE_MIN=20.18.1   # the e2b SDK's engines field
NODE_DEBS=(nodejs libnode115 node-acorn node-cjs-module-lexer node-minimatch node-undici)
NODE_LIBS=(libc6 libgcc-s1 libstdc++6 zlib1g libuv1t64 libbrotli1 libcares2 libnghttp2-14 libssl3t64 libicu76)
node_ok() {
  local have; have=$("$1" --version 2>/dev/null | sed 's/^v//') || return 1
  [[ -n $have && "$(printf '%s\n%s\n' "$NODE_MIN" "$have" | sort -V | head -1)" == "$NODE_MIN" ]]
}

# install_node: trixie's Node.js into .tools/nodejs, for hosts without a Node.js >= NODE_MIN. Like the Rust tools it
# runs on trixie's glibc (interpreter and RUNPATH patched). Debian's libnode reads the de-vendored JS builtins
# (undici for fetch, acorn, cjs-module-lexer, minimatch) at start from /usr/share/nodejs/..., a path compiled in;
# nothing may be installed there on bookworm, so the path is rewritten, same length, to /proc/self/fd/9///... and
# bin/node is a wrapper that opens .tools/nodejs/share/nodejs as descriptor 9 before it executes the real binary.
install_node() {
  local dest="$TOOLS/nodejs" deb lib
  if node_ok "$dest/bin/node" && [[ "$(cat "$dest/.root" 2>/dev/null)" == "$dest" ]]; then
    say "Node.js ok: $("$dest/bin/node" --version) ($dest/bin/node, trixie's)"
    return
  fi
  rm -rf "$dest"; mkdir -p "$dest/bin" "$dest/lib" "$dest/share" "$dest/unpack"
  for pkg in "${NODE_DEBS[@]}" "${NODE_LIBS[@]}"; do
    deb=$(download_deb "$pkg" trixie); dpkg -x "$deb" "$dest/unpack"
  done
  cp "$dest/unpack/usr/bin/node" "$dest/bin/node.bin"
  for dir in "$dest/unpack/lib/x86_64-linux-gnu" "$dest/unpack/usr/lib/x86_64-linux-gnu"; do
    [[ -d $dir ]] && find "$dir" -maxdepth 1 \( -type f -o -type l \) -name '*.so*' -exec cp -a {} "$dest/lib/" \;
  done
  cp -a "$dest/unpack/usr/share/nodejs" "$dest/share/nodejs"
  [[ -e $dest/lib/ld-linux-x86-64.so.2 && -e $dest/lib/libnode.so.115 ]] || die "libc6 or libnode115 missing after unpacking Node.js"
  patchelf --set-interpreter "$dest/lib/ld-linux-x86-64.so.2" --set-rpath '$ORIGIN/../lib' "$dest/bin/node.bin"
  # a library's RUNPATH serves only its own dependencies: every one that has some gets $ORIGIN (glibc itself excepted)
  for lib in "$dest"/lib/*.so*; do
    [[ -L $lib ]] && continue
    case ${lib##*/} in ld-linux*|libc.so*) continue ;; esac
    readelf -d "$lib" 2>/dev/null | grep -q NEEDED && patchelf --set-rpath '$ORIGIN' "$lib"
  done
  perl -0777 -pi -e 's{/usr/share/nodejs/}{/proc/self/fd/9///}g' "$dest/lib/libnode.so.115"
  grep -q '/proc/self/fd/9///undici/' "$dest/lib/libnode.so.115" || die "libnode.so.115 does not name /usr/share/nodejs/undici: cannot relocate its builtins"
  cat >"$dest/bin/node" <<'WRAPPER'
#!/bin/sh
# trixie's Node.js relocated by scripts/setup.sh: libnode reads its JS builtins from /proc/self/fd/9/, this directory's
# ../share/nodejs opened as descriptor 9
here=$(dirname "$(readlink -f "$0")")
exec 9<"$here/../share/nodejs" && exec "$here/node.bin" "$@"
WRAPPER
  chmod 0755 "$dest/bin/node"
  echo "$dest" >"$dest/.root"
  rm -rf "$dest/unpack"
  node_ok "$dest/bin/node" || die "the relocated Node.js does not run: $("$dest/bin/node" --version 2>&1 | head -3)"
  "$dest/bin/node" -e 'if (typeof fetch !== "function") process.exit(1)' || die "the relocated Node.js has no fetch (undici builtin)"
  say "installed Node.js $("$dest/bin/node" --version) into $dest (trixie's)"
}

NODE_BIN=$(command -v node || true)
if [[ -z $NODE_BIN || ${ATEOM_NODE_FROM:-} == trixie ]] || ! node_ok "$NODE_BIN"; then
  install_node
  NODE_BIN=$TOOLS/nodejs/bin/node
fi
if ! command -v npm >/dev/null; then
  # npm only downloads the locked packages: bookworm's (on bookworm's Node.js 18) does that; the tests run NODE_BIN
  apt_update_once
  say "apt-get install npm (bookworm)"
  apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
NODE_DIR="$TOOLS/node"
packages_of() { (cd "$NODE_DIR" && "$NODE_BIN" -p "Object.entries(require('./package.json').dependencies).map(e=>e.join('@')).join(' ')"); }
if [[ -d $NODE_DIR/node_modules ]] && cmp -s "$ROOT/scripts/node/package-lock.json" "$NODE_DIR/package-lock.json"; then
  say "npm packages ok: $(packages_of)"
else
  rm -rf "$NODE_DIR"; mkdir -p "$NODE_DIR"
  cp "$ROOT/scripts/node/package.json" "$ROOT/scripts/node/package-lock.json" "$NODE_DIR/"
  (cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci in $NODE_DIR failed"
  say "installed npm packages into $NODE_DIR: $(packages_of)"
fi

cat >"$TOOLS/env.sh" <<EOF
# generated by scripts/setup.sh
export JAVA_HOME=$JAVA_HOME
export ATEOM_VIRTIOFSD=$TOOLS/virtiofsd/bin/virtiofsd
export ATEOM_VHOST_DEVICE_VSOCK=$TOOLS/vhost-device-vsock/bin/vhost-device-vsock
export ATEOM_GUEST_KERNEL_DIR=$KDIR
export ATEOM_QEMU=$(command -v qemu-system-x86_64)
export ATEOM_NODE=$NODE_BIN
export ATEOM_NODE_MODULES=$NODE_DIR/node_modules
EOF

say "versions: $(qemu-system-x86_64 --version | head -1); $("$TOOLS/virtiofsd/bin/virtiofsd" --version 2>&1 | head -1);" \
    "$("$TOOLS/vhost-device-vsock/bin/vhost-device-vsock" --version 2>&1 | head -1); busybox $(dpkg-query -W -f='${Version}' busybox-static);" \
    "nftables $(dpkg-query -W -f='${Version}' nftables); iptables $(dpkg-query -W -f='${Version}' iptables);" \
    "docker.io $(dpkg-query -W -f='${Version}' docker.io 2>/dev/null || echo none); go $(go version | cut -d' ' -f3);" \
    "node $("$NODE_BIN" --version)"
say "done in $(( $(date +%s) - start )) s; environment in $TOOLS/env.sh"
