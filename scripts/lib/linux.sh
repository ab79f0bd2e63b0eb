# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# The Linux guest of scripts/linux: Debian's riscv64 OpenSBI, kernel,
# busybox and perf, pinned in linux-guest.lock, fetched once into the
# cache, checked, unpacked and turned into an initramfs.  Nothing is
# installed on the host.  Needs common.sh.

RVCFO_LINUX_LOCK=$RVCFO_TOP/scripts/lib/linux-guest.lock
RVCFO_LINUX_INIT=$RVCFO_TOP/scripts/lib/linux-init
RVCFO_LINUX_CACHE=$RVCFO_CACHE/linux

# The Debian archive to fetch from: RVCFO_DEBIAN_MIRROR, else the one the
# machine's APT uses.
linux_archive() {
    local entry
    if [ -n "${RVCFO_DEBIAN_MIRROR:-}" ]; then
        echo "${RVCFO_DEBIAN_MIRROR%/}"
        return 0
    fi
    # shellcheck source=scripts/lib/apt-sources.sh
    . "$RVCFO_TOP/scripts/lib/apt-sources.sh"
    entry=$(debian_archive_entry) || {
        log "error: no Debian archive entry in /etc/apt to fetch the" \
            "Linux guest from; set RVCFO_DEBIAN_MIRROR to a Debian mirror URL"
        return 1
    }
    entry=${entry%%|*}
    echo "${entry%/}"
}

# linux_lock_rows [ROLE...]: the lock's rows, of the given roles if any.
linux_lock_rows() {
    local want=" $* "
    grep -v '^#' "$RVCFO_LINUX_LOCK" | grep . | while read -r row; do
        [ $# -eq 0 ] || [[ $want == *" ${row%% *} "* ]] && echo "$row"
    done
}

# linux_fetch: every package of the lock into $RVCFO_LINUX_CACHE/debs,
# checked against its SHA-256.  A package already there and intact is
# not fetched again.
linux_fetch() {
    local debs=$RVCFO_LINUX_CACHE/debs archive='' pkg ver path sum size
    local file url
    mkdir -p "$debs"
    while read -r _ pkg ver path sum size; do
        file=$debs/${path##*/}
        sha256_ok "$file" "$sum" && continue
        [ -n "$archive" ] || archive=$(linux_archive) || return 1
        url=$archive/$path
        log "fetching $pkg $ver ($((size / 1024)) KiB)"
        if ! curl -fsSL --retry 3 --connect-timeout 20 -o "$file.part" \
                "$url"; then
            rm -f "$file.part"
            log "error: could not fetch $pkg $ver from $url" \
                "(the archive may have dropped this version: scripts/linux-lock" \
                "pins the current ones)"
            return 1
        fi
        if ! sha256_ok "$file.part" "$sum"; then
            log "error: $pkg $ver from $url: SHA-256" \
                "$(sha256sum "$file.part" | cut -d' ' -f1), the lock says $sum"
            rm -f "$file.part"
            return 1
        fi
        mv "$file.part" "$file"
    done < <(linux_lock_rows)
}

# linux_key: names one build of the guest (lock, init and this file).
linux_key() {
    cat "$RVCFO_LINUX_LOCK" "$RVCFO_LINUX_INIT" "${BASH_SOURCE[0]}" |
        sha256sum | cut -c1-12
}

# linux_unpack DIR ROLE...: dpkg-deb -x the packages of ROLEs into DIR.
linux_unpack() {
    local dir=$1 pkg ver path sum size
    shift
    mkdir -p "$dir"
    while read -r _ pkg ver path sum size; do
        dpkg-deb -x "$RVCFO_LINUX_CACHE/debs/${path##*/}" "$dir" || {
            log "error: dpkg-deb could not unpack $pkg $ver"
            return 1
        }
    done < <(linux_lock_rows "$@")
}

# linux_prepare: fetch, unpack, and build the guest once per key.  Sets
# LINUX_FW_BIN, LINUX_FW_ELF, LINUX_KERNEL, LINUX_INITRD, and
# LINUX_MODULES: the kernel's modules (the package's tree of .ko.xz
# files, kernel/...), kept out of the initramfs.
linux_prepare() {
    local dir tmp root f lock
    dir=$RVCFO_LINUX_CACHE/guest-$(linux_key)
    LINUX_FW_BIN=$dir/fw_dynamic.bin
    LINUX_FW_ELF=$dir/fw_dynamic.elf
    LINUX_KERNEL=$dir/Image
    LINUX_INITRD=$dir/initramfs.cpio
    LINUX_MODULES=$dir/modules
    [ -f "$dir/done" ] && return 0

    # one builder at a time (tests that boot Linux run in parallel)
    mkdir -p "$RVCFO_LINUX_CACHE"
    exec {lock}>"$RVCFO_LINUX_CACHE/lock"
    flock "$lock"
    if [ -f "$dir/done" ]; then
        exec {lock}>&-
        return 0
    fi
    linux_fetch || return 1
    command -v cpio >/dev/null || {
        log "error: cpio is needed to build the initramfs (scripts/install-deps)"
        return 1
    }
    log "building the Linux guest in $dir"
    rm -rf "$dir"
    tmp=$dir/unpack
    mkdir -p "$tmp"

    linux_unpack "$tmp/fw" firmware || return 1
    f=$(find "$tmp/fw" -path '*/generic/fw_dynamic.bin' | head -n 1)
    [ -n "$f" ] || { log "error: no generic/fw_dynamic.bin in opensbi"; return 1; }
    cp "$f" "$LINUX_FW_BIN"
    cp "${f%.bin}.elf" "$LINUX_FW_ELF" || return 1

    linux_unpack "$tmp/kernel" kernel || return 1
    f=$(find "$tmp/kernel" -name 'vmlinuz*' -type f | head -n 1)
    [ -n "$f" ] || { log "error: no vmlinuz in the kernel package"; return 1; }
    # Debian's riscv64 vmlinuz is an uncompressed Image
    cp "$f" "$LINUX_KERNEL"

    linux_unpack "$tmp/modules" modules || return 1
    f=$(find "$tmp/modules" -path '*/lib/modules/*/kernel' -type d | head -n 1)
    [ -n "$f" ] || {
        log "error: no lib/modules/*/kernel in the modules package"
        return 1
    }
    mv "${f%/kernel}" "$LINUX_MODULES"

    root=$tmp/root
    linux_unpack "$root" userland lib || return 1
    rm -rf "${root:?}/usr/share" "${root:?}/usr/include" \
        "${root:?}/usr/lib/python3"*
    # merged /usr, as Debian has it: the loader is /lib/ld-linux-*.so.1
    for f in bin sbin lib; do
        if [ -d "$root/$f" ] && [ ! -L "$root/$f" ]; then
            cp -a "$root/$f/." "$root/usr/$f/" && rm -rf "${root:?}/$f"
        fi
        mkdir -p "$root/usr/$f"
        ln -sfn "usr/$f" "$root/$f"
    done
    [ -x "$root/usr/bin/busybox" ] || {
        log "error: no /usr/bin/busybox in busybox-static"
        return 1
    }
    mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
        "$root/root" "$root/etc" "$root/usr/local/bin"
    echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
    echo "root:x:0:" >"$root/etc/group"
    install -m 755 "$RVCFO_LINUX_INIT" "$root/init"
    ( cd "$root" && find . | LC_ALL=C sort |
        cpio --quiet -o -H newc -R 0:0 ) >"$LINUX_INITRD.part" || {
        log "error: cpio failed"
        return 1
    }
    mv "$LINUX_INITRD.part" "$LINUX_INITRD"
    rm -rf "$tmp"
    touch "$dir/done"
    # guests of other locks or scripts are stale
    find "$RVCFO_LINUX_CACHE" -mindepth 1 -maxdepth 1 -name 'guest-*' \
        ! -path "$dir" -exec rm -rf {} +
    exec {lock}>&-
}

# linux_module_files NAME: the .ko.xz files of module NAME and of the
# modules it depends on (the "depends=" of its .modinfo), each after those
# it needs, one per line.  Needs LINUX_MODULES.
linux_module_files() {
    local name=$1 f dep
    f=$(find "$LINUX_MODULES/kernel" \( -name "$name.ko.xz" -o \
            -name "${name//_/-}.ko.xz" -o -name "${name//-/_}.ko.xz" \) |
        head -n 1)
    [ -n "$f" ] || {
        log "error: no module $name in Debian's kernel"
        return 1
    }
    for dep in $(xz -dc "$f" | tr '\0' '\n' | sed -n 's/^depends=//p' |
                 tr ',' ' '); do
        linux_module_files "$dep" || return 1
    done
    echo "$f"
}

# linux_overlay_cpio OUT DIR: DIR as a second initramfs archive (the
# kernel unpacks archives appended to each other in order).
linux_overlay_cpio() {
    ( cd "$2" && find . -mindepth 1 | LC_ALL=C sort |
        cpio --quiet -o -H newc -R 0:0 ) >"$1"
}
