# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers to add an APT entry for another Debian suite, derived from the
# machine's own Debian archive entry (same URI, same keyring).  Nothing in
# the repository names a mirror.
#
# Only "deb" for bookworm-backports and "deb-src" for newer suites are
# ever added: a binary entry for trixie/forky/sid would upgrade libc.

# Print "URI|KEYRING" of the first Debian archive entry for bookworm.
debian_archive_entry() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '
            function flush() {
                if (types ~ /(^| )deb( |$)/ && suites ~ /(^| )bookworm( |$)/ &&
                    uris != "" && uris !~ /security/) {
                    split(uris, u, " ")
                    print u[1] "|" signed
                    found = 1
                    exit
                }
                types = suites = uris = signed = ""
            }
            /^[ \t]*$/ { flush(); next }
            /^#/ { next }
            /^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
            /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
            /^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
            /^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); signed = $0 }
            END { if (!found) flush() }
        ' "$f" && return 0
    done | head -n 1 | grep . && return 0
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '
            $1 == "deb" {
                i = 2; signed = ""
                if ($2 ~ /^\[/) {
                    while (i <= NF && $i !~ /\]$/) {
                        if ($i ~ /signed-by=/) { signed = $i }
                        i++
                    }
                    if ($i ~ /signed-by=/) { signed = $i }
                    i++
                }
                gsub(/.*signed-by=|\]/, "", signed)
                if ($(i + 1) == "bookworm" && $i !~ /security/) {
                    print $i "|" signed
                    exit
                }
            }' "$f"
    done | head -n 1 | grep .
}

# add_debian_suite_entry TYPE SUITE NAME: write
# /etc/apt/sources.list.d/NAME.sources unless it exists already.
add_debian_suite_entry() {
    local type=$1 suite=$2 name=$3 entry uri keyring
    local out=/etc/apt/sources.list.d/$name.sources
    [ -f "$out" ] && return 0
    if ! entry=$(debian_archive_entry); then
        echo "apt-sources: no Debian bookworm entry found in /etc/apt;" \
             "cannot derive a $type entry for $suite" >&2
        return 1
    fi
    uri=${entry%%|*}
    keyring=${entry#*|}
    {
        echo "Types: $type"
        echo "URIs: $uri"
        echo "Suites: $suite"
        echo "Components: main"
        [ -n "$keyring" ] && echo "Signed-By: $keyring"
    } | ${SUDO:-} tee "$out" >/dev/null
    echo "apt-sources: added $type $suite entry ($out)" >&2
}
