#!/bin/bash
# tests/conformance/run.sh - differential conformance tests.
#
# Every case program build/tests/conformance/NAME (from tests/conformance/
# NAME.c) prints one deterministic line per observable.  Each one is run
# twice, as uid 65534:
#   kernel: namespace with ping_group_range "0 2147483647",
#           PINGSOCK_BACKEND=kernel (the kernel's own ping socket);
#   daemon: namespace with ping_group_range "1 0", pingsockd running,
#           PINGSOCK_BACKEND=daemon.
# Both namespaces have lo up and a veth pair to a peer namespace,
# 10.201.0.1/24 (veth0, local) -- 10.201.0.2/24 (veth1, peer), and no
# default route.  Identical outputs: "PASS: conformance/NAME"; otherwise
# "FAIL: conformance/NAME: ..." with the first differing line, then the
# diff.  A kernel run that exits non-zero is a failure too, and so is a
# daemon that does not start or dies.
#
# Environment:
#   PS_BUILD        build directory (tests/run sets it; default ./build)
#   CONF_CASES      only these cases (space-separated names; default all)
#   CONF_ONLY       "kernel": run only the kernel half and print its output
#                   (for writing cases; the daemon half is reported SKIP)
#   CONF_OUT        keep the outputs in this directory (NAME.kernel,
#                   NAME.daemon, NAME.*.err), e.g. to diff them by hand
#   CONF_TIMEOUT    seconds allowed per run of a case (default 30)
#   CONF_DAEMON_ARGS  extra pingsockd arguments
#
# A case says what it needs in a comment line "// needs: WHAT".  The only
# WHAT provided is "peer" (the veth pair and peer namespace, which are
# always set up); a case needing anything else fails at once, so that a
# new need is noticed rather than silently missing.

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$HERE/../lib/netns.sh"

CONF_TIMEOUT=${CONF_TIMEOUT:-30}
CONF_ONLY=${CONF_ONLY:-}
OUT=${CONF_OUT:-$T/out}
mkdir -p "$OUT"

cases=()
if [ -n "${CONF_CASES:-}" ]; then
	read -r -a cases <<<"$CONF_CASES"
else
	for c in "$HERE"/*.c; do
		[ -e "$c" ] || continue
		cases+=("$(basename "$c" .c)")
	done
fi
if [ ${#cases[@]} -eq 0 ]; then
	fail conformance "no cases found in $HERE"
	ns_done
fi

# --- namespaces -------------------------------------------------------

setup_side() {	# SHORT open|closed
	ns_new "$1" "$2" || return 1
	ns_new "$1p" open || return 1
	ns_veth "$1" "$1p" 10.201.0.1/24 10.201.0.2/24 veth0 veth1 || return 1
	# Make sure neither side has a default route: 10.99.0.0/16 must
	# be unreachable and 255.255.255.255 unroutable, as in the
	# reference measurements.
	in_ns "$1" ip route flush default 2>/dev/null
	return 0
}

if ! setup_side k open; then
	fail conformance "cannot set up the kernel-side namespaces (root needed)"
	ns_done
fi
have_daemon=0
daemon_log=""
if [ "$CONF_ONLY" != kernel ]; then
	if ! setup_side d closed; then
		fail conformance "cannot set up the daemon-side namespaces"
		ns_done
	fi
	printf 'groups = 0 2147483647\n' >"$T/conformance.conf"
	chmod 644 "$T/conformance.conf"
	start_daemon() {
		rm -f "$(ns_sock d)"
		if [ ! -x "$T/pingsockd" ]; then
			daemon_log="$PS_BUILD/pingsockd was not built"
			return 1
		fi
		# shellcheck disable=SC2086
		if daemon_start d --config "$T/conformance.conf" \
			${CONF_DAEMON_ARGS:-} 2>"$T/daemon-start.err"; then
			have_daemon=1
			return 0
		fi
		daemon_log=$(tail -5 "$T/daemon-start.err" | tr '\n' ' ')
		have_daemon=0
		return 1
	}
	start_daemon
fi

# --- helpers ----------------------------------------------------------

# first_diff A B: "line N: kernel '...' vs daemon '...'"
first_diff() {
	local -a ka da
	local i n
	mapfile -t ka <"$1"
	mapfile -t da <"$2"
	n=${#ka[@]}
	[ ${#da[@]} -gt "$n" ] && n=${#da[@]}
	for ((i = 0; i < n; i++)); do
		if [ $i -ge ${#ka[@]} ]; then
			echo "line $((i + 1)): kernel <end> vs daemon '${da[$i]}'"
			return
		elif [ $i -ge ${#da[@]} ]; then
			echo "line $((i + 1)): kernel '${ka[$i]}' vs daemon <end>"
			return
		elif [ "${ka[$i]}" != "${da[$i]}" ]; then
			echo "line $((i + 1)): kernel '${ka[$i]}' vs daemon '${da[$i]}'"
			return
		fi
	done
}

show() {	# FILE [MAX]: indented, at most MAX (40) lines
	sed 's/^/  | /' "$1" | head -"${2:-40}"
}

run_case() {	# SHORT BACKEND NAME OUTFILE ERRFILE
	as_nobody "$1" env PINGSOCK_BACKEND="$2" \
		timeout -k 5 "$CONF_TIMEOUT" "$T/tests/conformance/$3" \
		>"$4" 2>"$5"
}

# --- the cases --------------------------------------------------------

for name in "${cases[@]}"; do
	bin=$T/tests/conformance/$name
	k=$OUT/$name.kernel d=$OUT/$name.daemon
	if [ ! -x "$bin" ]; then
		fail "conformance/$name" "$PS_BUILD/tests/conformance/$name not built"
		continue
	fi
	unmet=$(sed -n 's|^// needs: *\([a-z0-9_-]*\).*|\1|p' "$HERE/$name.c" 2>/dev/null |
		grep -v -x peer | tr '\n' ' ')
	if [ -n "$unmet" ]; then
		fail "conformance/$name" "needs ${unmet% }, which run.sh does not set up"
		continue
	fi
	run_case k kernel "$name" "$k" "$k.err"
	krc=$?
	if [ $krc -ne 0 ] || [ ! -s "$k" ]; then
		fail "conformance/$name" "the kernel run itself failed (exit $krc)"
		show "$k"
		show "$k.err"
		continue
	fi
	if [ "$CONF_ONLY" = kernel ]; then
		skip "conformance/$name" "CONF_ONLY=kernel: daemon half not run"
		show "$k" 100000
		[ -s "$k.err" ] && show "$k.err"
		continue
	fi
	if [ $have_daemon -ne 1 ] && ! start_daemon; then
		fail "conformance/$name" "pingsockd is not running: $daemon_log"
		continue
	fi
	run_case d daemon "$name" "$d" "$d.err"
	drc=$?
	died=""
	if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
		died=" (pingsockd died during this case)"
		have_daemon=0
	fi
	if ! cmp -s "$k" "$d"; then
		fail "conformance/$name" "$(first_diff "$k" "$d")$died"
		diff -u --label kernel --label daemon "$k" "$d" | tail -n +3 |
			sed 's/^/  | /' | head -30
		[ -s "$d.err" ] && show "$d.err"
	elif [ $drc -ne 0 ]; then
		fail "conformance/$name" "daemon run exited $drc$died"
		show "$d.err"
	elif [ -n "$died" ]; then
		fail "conformance/$name" "same output, but$died"
	else
		pass "conformance/$name"
	fi
	if [ -n "$died" ]; then
		echo "  | pingsockd log:"
		tail -20 "$T/d.log" 2>/dev/null | sed 's/^/  | /'
	fi
done

ns_done
