#!/bin/bash
# SPDX-License-Identifier: ISC
# manpages - the manual pages as they are installed: every page of man/
# with its @PLACEHOLDERS@ substituted (as the Makefile does, with sample
# paths) lints clean under mandoc -T lint (no message at all, style
# included, but the ".so is fragile" warning of the link pages, which
# exist by design) and groff gives no warning (lintian's groff-message);
# no placeholder is left over and no install path is hard-coded
# (/usr/local); every pingsock page a page refers to exists.
# pingsock(3) lists every function, macro and enumerator of
# include/pingsock.h in its SYNOPSIS, and every function has a .so link
# page; pingsockd(8) has every long option of pingsockd --help in its
# SYNOPSIS and OPTIONS, and pingsockctl(1) every command and option of
# pingsockctl --help.  The EXAMPLES program of pingsock(3) is extracted,
# compiled against this build's libpingsock.a and, as root, run: a reply
# from the kernel's ping socket, one through pingsockd, and ENOENT
# without a daemon.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
cd "$(dirname "$0")/../.." || exit 1
LABEL=manpages
HDR=include/pingsock.h
P3=man/pingsock.3

# section FILE NAME: the roff source of section .SH NAME of FILE.
section() {
	awk -v s="$2" '/^\.SH / { f = ($0 == ".SH " s || $0 == ".SH \"" s "\"");
				   next }
		       f' "$1"
}

# plain: roff source to text for searching (\- to -, fonts dropped).
plain() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\%//g'; }

# ---- the pages as installed ----
# Sample values, a path's hyphens written \- (groff may print a plain -
# as a hyphen, U+2010, which does not paste into a shell).
M=$T/man
mkdir -p "$M/man1" "$M/man3" "$M/man8"
esc() { echo "${1//-/'\\-'}"; }
subst() {
	sed -e "s|@PREFIX@|/usr|g" -e "s|@BINDIR@|/usr/bin|g" \
	    -e "s|@SBINDIR@|/usr/sbin|g" -e "s|@INCLUDEDIR@|/usr/include|g" \
	    -e "s|@MANDIR@|/usr/share/man|g" -e "s|@DAEMON_USER@|pingsock|g" \
	    -e "s|@LIBDIR@|$(esc /usr/lib/x86_64-linux-gnu)|g" \
	    -e "s|@PKGLIBDIR@|$(esc /usr/lib/x86_64-linux-gnu/pingsock)|g" \
	    -e "s|@SYSCONFDIR@|/etc|g" \
	    -e "s|@SYSTEMDUNITDIR@|/usr/lib/systemd/system|g" \
	    -e "s|@VERSION@|0.1.0|g" "$1"
}
pages=()
for f in man/*.[138]; do
	b=${f#man/}
	# ping(8) is installed as pingsock-ping(8).
	[ "$b" = ping.8 ] && b=pingsock-ping.8
	subst "$f" >"$M/man${b##*.}/$b"
	pages+=("man${b##*.}/$b")
done

left=$(cd "$M" && grep -o -n '@[A-Z_]*@' "${pages[@]}" | head -5)
if [ -z "$left" ]; then
	pass "$LABEL/placeholders"
else
	fail "$LABEL/placeholders" "unknown placeholders left: $left"
fi

if command -v mandoc >/dev/null; then
	# From the tree's top, as man(1) reads .so man3/pingsock.3.
	msgs=$(cd "$M" && for p in "${pages[@]}"; do
		mandoc -T lint "$p" 2>&1
	done | grep -v -E '^mandoc: man3/[A-Za-z_]+\.3:2:2: WARNING: \.so is fragile, better use ln\(1\): so man3/pingsock\.3$')
	if [ -z "$msgs" ]; then
		pass "$LABEL/mandoc_lint_clean (${#pages[@]} pages)"
	else
		fail "$LABEL/mandoc_lint_clean" "$(head -20 <<<"$msgs")"
	fi
else
	skip "$LABEL/mandoc_lint_clean" "no mandoc (apt install mandoc)"
fi

# groff's warnings, as lintian asks man(1) for them (its groff-message).
if command -v man >/dev/null && command -v groff >/dev/null; then
	msgs=$(cd "$M" && for p in "${pages[@]}"; do
		LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
			man --warnings -E UTF-8 -l -Tutf8 -Z "$p" 2>&1 >/dev/null |
			sed "s|^|$p: |"
	done)
	if [ -z "$msgs" ]; then
		pass "$LABEL/groff_warnings"
	else
		fail "$LABEL/groff_warnings" "$(head -10 <<<"$msgs")"
	fi
else
	skip "$LABEL/groff_warnings" "no man-db or groff (apt install man-db)"
fi

# /usr/local is not where pingsock is installed (placeholders say where);
# the administrator's own wrapper for fping in pingsock-preload(8) is
# where FHS puts local scripts.
hard=$(grep -n '/usr/local' man/*.[138] |
	grep -v -E '/usr/local/(bin/fping|libexec)\b' | head -5)
if [ -z "$hard" ]; then
	pass "$LABEL/no_usr_local"
else
	fail "$LABEL/no_usr_local" "$hard"
fi

# Every reference to a pingsock page resolves to a page: a file, or a
# name in a page's NAME line (a link made at install).
known=$(cd "$M" && for p in "${pages[@]}"; do
	sec=${p##*.}
	echo "${p##*/}"
	section "$p" NAME | plain | tr '\n' ' ' | sed 's/ - .*//' |
		tr ',' '\n' | sed -e 's/^ *//' -e 's/ *$//' -e "s/\$/.$sec/"
	echo
done)
bad=""
while read -r name sec; do
	grep -q -x -F "$name.$sec" <<<"$known" || bad+=" $name($sec)"
done < <(cat man/*.[138] | plain |
	grep -o -E '^\.(BR|RB|IR|RI|B|I)( \()? *pingsock[a-z_-]* \([1-8]\)' |
	sed -E 's/.* *(pingsock[a-z_-]*) \(([1-8])\)$/\1 \2/' | sort -u)
if [ -z "$bad" ]; then
	pass "$LABEL/cross_references"
else
	fail "$LABEL/cross_references" "no such page:$bad"
fi

# ---- pingsock(3) against the header ----
funcs=$(grep -o -E '\bpingsock_[a-z_]+\(' "$HDR" | tr -d '(' | sort -u)
names=$(sed -e 's,/\*.*\*/,,' "$HDR" |
	grep -o -E '^#define PINGSOCK_[A-Z0-9_]+|^[[:space:]]*PINGSOCK_[A-Z0-9_]+ *=' |
	grep -o -E 'PINGSOCK_[A-Z0-9_]+' | grep -v -x PINGSOCK_H | sort -u)
syn=$(section $P3 SYNOPSIS | plain)
nam=$(section $P3 NAME | plain)
missing=""
for f in $funcs; do
	grep -q -E "\b$f\(" <<<"$syn" || missing+=" $f(synopsis)"
	grep -q -E "\b$f\b" <<<"$nam" || missing+=" $f(name)"
	link=man/$f.3
	if ! [ -f "$link" ] ||
		[ "$(grep -v '^\.\\"' "$link")" != ".so man3/pingsock.3" ]; then
		missing+=" $link"
	fi
done
for n in $names; do
	grep -q -E "\b$n\b" <<<"$syn" || missing+=" $n(synopsis)"
done
if [ -z "$missing" ]; then
	pass "$LABEL/pingsock.3_synopsis ($(wc -w <<<"$funcs") functions, $(wc -w <<<"$names") constants)"
else
	fail "$LABEL/pingsock.3_synopsis" "missing:$missing"
fi
# ... and nothing documented that the header lacks.
extra=""
for f in $(grep -o -E '\bpingsock_[a-z_]+\(' <<<"$syn" | tr -d '(' | sort -u); do
	grep -q -x "$f" <<<"$funcs" || extra+=" $f"
done
# shellcheck disable=SC2013  # one word a name
for n in $(grep -o -E '\bPINGSOCK_[A-Z0-9_]+' <<<"$syn" | sort -u); do
	grep -q -x "$n" <<<"$names" || extra+=" $n"
done
for l in man/*.3; do
	b=$(basename "$l" .3)
	[ "$l" = $P3 ] && continue
	grep -q -x "$b" <<<"$funcs$(printf '\n%s' "$names")" || extra+=" $l"
done
if [ -z "$extra" ]; then
	pass "$LABEL/pingsock.3_nothing_extra"
else
	fail "$LABEL/pingsock.3_nothing_extra" "not in $HDR:$extra"
fi
for s in ERRORS EXAMPLES; do
	if section $P3 $s | grep -q .; then
		pass "$LABEL/pingsock.3_has_$s"
	else
		fail "$LABEL/pingsock.3_has_$s" "no .SH $s"
	fi
done
if section $P3 ERRORS | grep -q -x '\.B ENOENT'; then
	pass "$LABEL/pingsock.3_errors_enoent"
else
	fail "$LABEL/pingsock.3_errors_enoent" "ENOENT not in ERRORS"
fi

# ---- the programs' pages against their --help ----
# opts_in PAGE SECTION OPTION...: the options missing from that section.
opts_in() {
	local page=$1 sec=$2 o text out=""; shift 2
	text=$(section "$page" "$sec" | plain)
	for o in "$@"; do
		grep -q -E -- "$o([^a-z-]|\$)" <<<"$text" || out+=" $o"
	done
	echo "$out"
}
dhelp=$("$PS_BUILD/pingsockd" --help 2>&1)
dopts=$(grep -o -E -- '--[a-z][a-z-]*[a-z]' <<<"$dhelp" | sort -u)
if [ -z "$dopts" ]; then
	fail "$LABEL/pingsockd.8_options" "no options in pingsockd --help"
else
	# shellcheck disable=SC2086  # one word an option
	miss="$(opts_in man/pingsockd.8 SYNOPSIS $dopts)$(opts_in man/pingsockd.8 OPTIONS $dopts)"
	if [ -z "$miss" ]; then
		pass "$LABEL/pingsockd.8_options ($(wc -w <<<"$dopts") long options)"
	else
		fail "$LABEL/pingsockd.8_options" "not in SYNOPSIS or OPTIONS:$miss"
	fi
	stale=""
	for o in $(section man/pingsockd.8 SYNOPSIS | plain |
		   grep -o -E -- '--[a-z][a-z-]*[a-z]' | sort -u); do
		grep -q -x -- "$o" <<<"$dopts" || stale+=" $o"
	done
	if [ -z "$stale" ]; then
		pass "$LABEL/pingsockd.8_no_stale_option"
	else
		fail "$LABEL/pingsockd.8_no_stale_option" "not in --help:$stale"
	fi
fi

chelp=$("$PS_BUILD/pingsockctl" --help 2>&1)
copts=$(grep -o -E -- '--[a-z][a-z-]*[a-z]' <<<"$chelp" | sort -u)
cmds=$(sed -n -E 's/^  ([a-z]+)  .*/\1/p' <<<"$chelp")
ctext=$(section man/pingsockctl.1 COMMANDS)
miss=""
for c in $cmds; do
	grep -q -x "\.B $c" <<<"$ctext" || miss+=" $c"
done
# shellcheck disable=SC2086
miss+=$(opts_in man/pingsockctl.1 OPTIONS $copts)
if [ -n "$cmds" ] && [ -z "$miss" ]; then
	pass "$LABEL/pingsockctl.1_commands ($(wc -w <<<"$cmds") commands, $(wc -w <<<"$copts") options)"
else
	fail "$LABEL/pingsockctl.1_commands" "missing:${miss:- (no commands in --help)}"
fi

# ---- the EXAMPLES program of pingsock(3) ----
section $P3 EXAMPLES | awk '/^\.EE/ { exit } f; /^\.EX/ { f = 1 }' |
	sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" \
	    -e 's/\\(dq/"/g' -e 's/\\&//g' >"$T/example.c"
lib=$PS_BUILD/libpingsock.a
cflags=()
# The sanitizer pass's library needs its runtime.
nm "$lib" 2>/dev/null | grep -q __asan_ &&
	cflags=("-fsanitize=address,undefined")
if ! grep -q 'pingsock_socket(' "$T/example.c"; then
	fail "$LABEL/example_extract" "no program in EXAMPLES"
elif out=$(cc -Wall -Wextra -Werror "${cflags[@]}" -Iinclude \
		-o "$T/example" "$T/example.c" "$lib" 2>&1); then
	pass "$LABEL/example_compiles"
else
	fail "$LABEL/example_compiles" "$(head -10 <<<"$out")"
fi

if ! [ -x "$T/example" ]; then
	:
elif [ "$(id -u)" != 0 ]; then
	skip "$LABEL/example_runs" "needs root for network namespaces"
else
	chmod 755 "$T/example"
	ns_new k open
	ns_new d closed
	out=$(as_nobody k env PINGSOCK_BACKEND=kernel "$T/example" 127.0.0.1 2>&1)
	if [ "$out" = "8 bytes from 127.0.0.1: icmp_seq=1" ]; then
		pass "$LABEL/example_runs/kernel"
	else
		fail "$LABEL/example_runs/kernel" "$out"
	fi
	out=$(as_nobody d env PINGSOCK_BACKEND=daemon "$T/example" 127.0.0.1 2>&1)
	if grep -q '^socket: No such file or directory (pingsockd is not running' <<<"$out"; then
		pass "$LABEL/example_runs/no_daemon_enoent"
	else
		fail "$LABEL/example_runs/no_daemon_enoent" "$out"
	fi
	if daemon_start d; then
		out=$(as_nobody d "$T/example" 127.0.0.1 2>&1)
		if [ "$out" = "8 bytes from 127.0.0.1: icmp_seq=1" ]; then
			pass "$LABEL/example_runs/daemon"
		else
			fail "$LABEL/example_runs/daemon" "$out"
		fi
		# What pingsockctl prints is what pingsockctl(1) lists: every
		# key of status, every metric family.
		ctext=$(section man/pingsockctl.1 COMMANDS | plain)
		miss=""
		for k in $(in_ns d "$T/pingsockctl" --socket "$(ns_sock d)" status |
			   awk '$1 != "uid" && $1 != "user" { print $1 }'); do
			grep -q -w -- "$k" <<<"$ctext" || miss+=" $k"
		done
		for k in $(in_ns d "$T/pingsockctl" --socket "$(ns_sock d)" metrics |
			   awk '$1 == "#" && $2 == "TYPE" { print $3 }'); do
			grep -q -w -- "$k" <<<"$ctext" || miss+=" $k"
		done
		if [ -z "$miss" ]; then
			pass "$LABEL/pingsockctl.1_status_and_metrics"
		else
			fail "$LABEL/pingsockctl.1_status_and_metrics" \
				"printed but not in pingsockctl(1):$miss"
		fi
		daemon_stop
	else
		fail "$LABEL/example_runs/daemon" "pingsockd did not start"
	fi
fi
ns_done
