# SPDX-License-Identifier: GPL-2.0-or-later
#
# Settings shared by the scripts: where the base comes from, where the
# build area lives (outside the clone, so repeated runs are incremental).

QEMU_VERSION=10.2.2
QEMU_DEB_VERSION=1:10.2.2+ds-1

# Upstream release tarball (with wheels and firmware).
QEMU_UPSTREAM_TARBALL=qemu-$QEMU_VERSION.tar.xz
QEMU_UPSTREAM_URL=https://download.qemu.org/$QEMU_UPSTREAM_TARBALL
QEMU_UPSTREAM_SHA256=784b296ff29c1417aa72323abcb2d2ea9ab9771724f577dcd785c3b04f21e176

# Debian's source package (stripped "+ds" orig plus the debian/ tarball).
QEMU_DEB_ORIG=qemu_10.2.2+ds.orig.tar.xz
QEMU_DEB_ORIG_SHA256=be05230fe47a6937cd29f28f562932c8125f9c93c2a82c625198f7a4aa601dfb
QEMU_DEB_DEBIAN=qemu_10.2.2+ds-1.debian.tar.xz
QEMU_DEB_DEBIAN_SHA256=ddf75aceab4f8f77374f3cb34fc97b41514895aeb293ce8b2ddd5e072bb0f5c0
QEMU_DEB_DSC=qemu_10.2.2+ds-1.dsc
QEMU_DEB_DSC_SHA256=f1684b3aa5ec500c3389d346c6501dee45041ea91656c6556d4da9023b7987dd

RVCFO_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RVCFO_SHARED=${RVCFO_SHARED:-$RVCFO_TOP/../shared}
if [ -z "${HOME:-}" ]; then
    HOME=$(getent passwd "$(id -u)" | cut -d: -f6)
    export HOME
fi
RVCFO_CACHE=${RVCFO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rvcfo}
RVCFO_DIST=$RVCFO_CACHE/dist
RVCFO_BASE=$RVCFO_CACHE/base
RVCFO_SRC=$RVCFO_CACHE/src
RVCFO_QEMU_BUILD=$RVCFO_CACHE/build-qemu
RVCFO_PROJ_BUILD=$RVCFO_CACHE/build-tests
export CCACHE_DIR=${CCACHE_DIR:-$RVCFO_CACHE/ccache}

log() {
    echo "$(basename "$0"): $*" >&2
}

die() {
    log "error: $*"
    exit 1
}

# sha256_ok FILE SUM
sha256_ok() {
    [ -f "$1" ] && echo "$2  $1" | sha256sum --quiet -c - >/dev/null 2>&1
}

# Install dependencies, build the patched QEMU and the tests (all
# incremental).  Returns non-zero, after saying why, on any failure.
build_everything() {
    "$RVCFO_TOP/scripts/install-deps" || {
        log "error: installing dependencies failed"
        return 1
    }
    "$RVCFO_TOP/scripts/build" || {
        log "error: building QEMU failed"
        return 1
    }
    # --reconfigure re-reads the test lists (qtests are found by globbing).
    local reconf=
    [ -f "$RVCFO_PROJ_BUILD/build.ninja" ] && reconf=--reconfigure
    meson setup $reconf "$RVCFO_PROJ_BUILD" "$RVCFO_TOP" \
        -Dqemu_build="$RVCFO_QEMU_BUILD" -Dqemu_src="$RVCFO_SRC" \
        >"$RVCFO_CACHE/meson-setup.log" 2>&1 || {
        cat "$RVCFO_CACHE/meson-setup.log" >&2
        log "error: meson setup of the test build failed"
        return 1
    }
    meson compile -C "$RVCFO_PROJ_BUILD" >"$RVCFO_PROJ_BUILD/compile.log" 2>&1 || {
        cat "$RVCFO_PROJ_BUILD/compile.log" >&2
        log "error: building the tests failed"
        return 1
    }
}

QEMU_CONFIGURE_ARGS=(
    --target-list=riscv64-softmmu
    --python=/usr/bin/python3
    --disable-docs
    --disable-install-blobs
    --disable-tools
    --disable-guest-agent
    --enable-werror
)

# qemu_configure SRC BUILD STAMP
# Configure SRC in BUILD when the configuration or STAMP (what the tree
# was made from) changed.
qemu_configure() {
    local src=$1 build=$2 stamp=$3 want
    want="${QEMU_CONFIGURE_ARGS[*]} $stamp"
    if [ ! -f "$build/build.ninja" ] ||
       [ "$(cat "$build/.rvcfo-config" 2>/dev/null)" != "$want" ]; then
        log "configuring QEMU in $build"
        rm -rf "$build"
        mkdir -p "$build"
        ( cd "$build" &&
          "$src/configure" "${QEMU_CONFIGURE_ARGS[@]}" >configure.log 2>&1 ) || {
            tail -n 30 "$build/configure.log" >&2
            die "configure failed (log: $build/configure.log)"
        }
        echo "$want" >"$build/.rvcfo-config"
    fi
}

# qemu_build SRC BUILD STAMP TARGET...
# qemu_configure, then build TARGETs with ninja (which re-runs meson by
# itself when a meson.build changes).
qemu_build() {
    local build=$2 rc
    qemu_configure "$1" "$2" "$3"
    shift 3

    log "building $*"
    # Keep compiler messages, drop ninja's progress lines.
    set +e
    ninja -C "$build" "$@" |
        grep -v '^\[[0-9]*/[0-9]*\] \|^ninja: Entering\|^Cleaning\.\.\.\|^Running postconf'
    rc=${PIPESTATUS[0]}
    set -e
    [ "$rc" -eq 0 ] || die "build failed (ninja exit $rc)"
    log "built $build/$1"
}
