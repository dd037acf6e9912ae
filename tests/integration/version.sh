#!/bin/bash
# SPDX-License-Identifier: ISC
# version - one version everywhere (issue 19, item 7): the Makefile's
# VERSION, PINGSOCK_VERSION and its parts in pingsock.h (a literal, so
# that the installed header stands alone), pingsock_version() (exported,
# in the library's version node), and what --version prints for
# pingsockctl, pingsockd, ping and pingsock-run; --help names --version.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${PS_BUILD:-$PWD/build}
T=$(mktemp -d /tmp/pingsock-version.XXXXXX)
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS: version/$1"; }
fail() { echo "FAIL: version/$1: ${2:-}"; }
check() {	# NAME EXPECTED GOT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected [$2], got [$3]"; fi
}

# The Makefile's VERSION as make sees it (however it is defined).
printf 'print-version:\n\t@echo $(VERSION)\n' >"$T/print.mk"
V=$(make --no-print-directory -s -f Makefile -f "$T/print.mk" print-version 2>/dev/null)
if ! [[ $V =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
	fail makefile "VERSION is [$V], not MAJOR.MINOR.PATCH"
	exit 0
fi
pass "makefile_$V"
maj=${BASH_REMATCH[1]} min=${BASH_REMATCH[2]} pat=${BASH_REMATCH[3]}

hdr() { sed -n "s/^#define PINGSOCK_VERSION$1[[:space:]]\{1,\}\(.*\)$/\1/p" include/pingsock.h; }
check header_literal "\"$V\"" "$(hdr '')"
check header_parts "$maj $min $pat" "$(hdr _MAJOR) $(hdr _MINOR) $(hdr _PATCH)"

want="header $V
parts $V
number $((maj * 10000 + min * 100 + pat))
library $V"
check built_program "$want" "$("$B/tests/lib/version" 2>&1)"

# The header as installed: no -DPINGSOCK_VERSION, only the include
# directory; linked with the shared library (found by its soname).
CC=${CC:-cc}
soname=$(objdump -p "$B/libpingsock.so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
mkdir -p "$T/lib"
ln -s "$B/libpingsock.so" "$T/lib/libpingsock.so"
[ -z "$soname" ] || [ "$soname" = libpingsock.so ] ||
	ln -s "$B/libpingsock.so" "$T/lib/$soname"
if command -v "$CC" >/dev/null; then
	# A sanitizer build's library needs its runtime first in the program.
	san=()
	objdump -p "$B/libpingsock.so" 2>/dev/null | grep -q 'NEEDED.*libasan' &&
		san=(-fsanitize=address,undefined)
	if "$CC" -std=c99 -Wall -Werror "${san[@]}" -Iinclude -o "$T/v" tests/lib/version.c \
		-L"$T/lib" -Wl,-rpath,"$T/lib" -lpingsock 2>"$T/cc.err"; then
		check header_alone "$want" "$("$T/v" 2>&1)"
	else
		fail header_alone "$(head -5 "$T/cc.err")"
	fi
else
	echo "SKIP: version/header_alone: no C compiler"
fi

# Exported, in the library's version node.
sym=$(objdump -T "$B/libpingsock.so" 2>/dev/null | awk '$NF == "pingsock_version" { print $(NF-1) }')
check exported_PINGSOCK_0 PINGSOCK_0 "$sym"

check pingsockctl "pingsockctl (pingsock) $V" "$("$B/pingsockctl" --version 2>&1)"
check pingsockctl_V "pingsockctl (pingsock) $V" "$("$B/pingsockctl" -V 2>&1)"
check pingsockd "pingsockd $V" "$("$B/pingsockd" --version 2>&1)"
check ping "ping from pingsock $V" "$("$B/ping" -V 2>&1 | head -1)"
check pingsock_run "pingsock-run (pingsock) $V" "$("$B/pingsock-run" --version 2>&1)"
for p in pingsockctl pingsockd; do
	if "$B/$p" --help 2>&1 | grep -q -- '-V, --version'; then
		pass "${p}_help_names_version"
	else
		fail "${p}_help_names_version" "$("$B/$p" --help 2>&1 | tail -5)"
	fi
done
