#!/bin/bash
# SPDX-License-Identifier: ISC
# tests/conformance/run.sh - differential conformance tests.
#
# Every case program build/tests/conformance/NAME (from tests/conformance/
# NAME.c) prints one deterministic line per observable.  Each one is run
# twice, as uid 65534:
#   kernel: namespace with ping_group_range "0 2147483647",
#           PINGSOCK_BACKEND=kernel (the kernel's own ping socket);
#   daemon: namespace with ping_group_range "1 0", pingsockd running,
#           PINGSOCK_BACKEND=daemon.
# Both namespaces have lo up (127.0.0.1, ::1) and a veth pair to a peer
# namespace, and no default route (IPv4 or IPv6):
#   local (veth0)  10.201.0.1/24  fd00:201::1/64  fe80::1/64
#   peer  (veth1)  10.201.0.2/24  fd00:201::2/64  fe80::2/64
# Every IPv6 address in the test namespaces is fixed and usable at once:
# the namespaces have accept_dad 0 and addr_gen_mode 1 (no automatic
# link-local addresses, which would depend on the random MAC addresses),
# and the addresses are added "nodad", link-local ones included.
# Identical outputs: "PASS: conformance/NAME"; otherwise
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
#   PS_DAEMON_MODE  broker: pingsockd in broker mode; the kernel's output
#                   is first edited by broker-differences.sed, the
#                   deliberate differences of that mode (each explained
#                   there and in pingsockd(8))
#   (relay mode)    the kernel's output is first edited by
#                   relay-differences.sed, that mode's deliberate
#                   differences (each explained there and in pingsockd(8))
#   CONF_SHIM       1: run the plain-libc builds of the cases instead
#                   (build/tests/conformance-plain/NAME, not linked with
#                   libpingsock), the kernel side as they are, the daemon
#                   side with only LD_PRELOAD=libpingsock-preload.so (and
#                   no PINGSOCK_BACKEND); results "conformance-shim/NAME"
#
# A case says what it needs in a comment line "// needs: WHAT".  WHAT is
# "peer" (the veth pair and peer namespace, which are always set up) or
# "router", or "broker"; a case needing anything else fails at once, so
# that a new need is noticed rather than silently missing.
#
# "broker": the case is run in broker mode only (PS_DAEMON_MODE=broker);
# otherwise it is listed as not run, and counted neither way.  For what
# relay mode does not have at all (pingsock(3): its options that fail
# with ENOPROTOOPT), where broker mode has the kernel's.
#
# "router": the case runs instead in a client namespace of its own, on
# each side freshly built for that case (so the router's per-source rate
# limits start full) and removed after it:
#   client 10.77.0.2/24 (veth0, default route via 10.77.0.1)
#          fd00:77::2/64, fe80::2/64 (default route via fd00:77::1)
#   router 10.77.0.1/24 (vc) and 10.77.1.1/24 (vfar; that link has MTU
#          1280 on both ends);
#          fd00:77::1/64, fe80::1/64 (vc) and fd00:77:1::1/64,
#          fe80::1/64 (vfar);
#          ip_forward=1, icmp_ratemask=0 (no ICMP limiter: see
#          ping_output.sh), icmp_echo_ignore_all=1;
#          IPv6 forwarding=1, icmp ratelimit=0, echo_ignore_all=1 (the
#          ratelimit 0 leaves the IPv6 reject routes' errors unlimited
#          too: no per-source bucket there, unlike IPv4);
#          routes: unreachable 10.77.5.0/24, prohibit 10.77.6.0/24,
#          local 10.78.0.0/16 (answered by tests/lib/icmpforge, run as
#          root in the router: Echo Request for 10.78.T.C -> ICMP error
#          type T code C);
#          unreachable fd00:77:5::/64 (Destination Unreachable code 0,
#          no route), prohibit fd00:77:6::/64 (code 1, administratively
#          prohibited)
#   far    10.77.1.2/24 and 10.77.1.3/24 (veth0, default route via
#          10.77.1.1)
#          fd00:77:1::2/64, fd00:77:1::3/64, fe80::2/64 (default route
#          via fd00:77:1::1)
# The daemon side gets a pingsockd of its own in its client namespace.
#
# A router case may also set sysctls of its client namespace, on both
# sides before pingsockd starts there (the daemon reads some at start),
# with comment lines "// sysctl: KEY=NUMBER" (e.g.
# net.ipv6.flowlabel_state_ranges=1); one anywhere else fails at once.

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$HERE/../lib/netns.sh"

CONF_TIMEOUT=${CONF_TIMEOUT:-30}
CONF_ONLY=${CONF_ONLY:-}
OUT=${CONF_OUT:-$T/out}
mkdir -p "$OUT"

CONF_SHIM=${CONF_SHIM:-}
BINDIR=tests/conformance LABEL=conformance
if [ "$CONF_SHIM" = 1 ]; then
	BINDIR=tests/conformance-plain LABEL=conformance-shim
	if ! cp "$PS_BUILD/libpingsock-preload.so" "$T/" 2>/dev/null; then
		fail $LABEL "no $PS_BUILD/libpingsock-preload.so"
		ns_done
	fi
	chmod a+r "$T/libpingsock-preload.so"
	# The ASan build's shim needs the ASan runtime first.
	PRELOAD=$T/libpingsock-preload.so
	case $PS_BUILD in
	*build-asan) PRELOAD="$(gcc -print-file-name=libasan.so):$PRELOAD" ;;
	esac
fi

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
	fail $LABEL "no cases found in $HERE"
	ns_done
fi

# --- namespaces -------------------------------------------------------

# v6_prep SHORT...: before any veth is made there, so that the veth's
# IPv6 configuration starts from it: no duplicate address detection, no
# automatic (MAC-derived, so random) link-local address.
v6_prep() {
	local n
	for n in "$@"; do
		in_ns "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 \
			net.ipv6.conf.default.addr_gen_mode=1 || return 1
	done
}

# v6_addr SHORT IF ADDR/PLEN...: fixed addresses, usable at once.
v6_addr() {
	local n=$1 dev=$2 a
	shift 2
	for a in "$@"; do
		ip -n "$(ns_name "$n")" -6 addr add "$a" dev "$dev" nodad ||
			return 1
	done
}

# v6_ready SHORT...: wait (at most 2 s) until no IPv6 address there is
# tentative any more.
v6_ready() {
	local n i
	for n in "$@"; do
		for i in $(seq 1 40); do
			[ -z "$(ip -n "$(ns_name "$n")" -6 addr show tentative)" ] &&
				break
			sleep 0.05
		done
	done
}

setup_side() {	# SHORT open|closed
	ns_new "$1" "$2" || return 1
	ns_new "$1p" open || return 1
	v6_prep "$1" "$1p" || return 1
	ns_veth "$1" "$1p" 10.201.0.1/24 10.201.0.2/24 veth0 veth1 || return 1
	v6_addr "$1" veth0 fd00:201::1/64 fe80::1/64 || return 1
	v6_addr "$1p" veth1 fd00:201::2/64 fe80::2/64 || return 1
	v6_ready "$1" "$1p"
	# Make sure neither side has a default route: 10.99.0.0/16 must
	# be unreachable and 255.255.255.255 unroutable, as in the
	# reference measurements.
	in_ns "$1" ip route flush default 2>/dev/null
	# Both hosts answer broadcast and multicast echoes, so that
	# broadcast.c has answers to compare.
	in_ns "$1" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0 || return 1
	in_ns "$1p" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0 || return 1
	# probe.c: RFC 8335 PROBE answered (by this host, for both families).
	in_ns "$1" sysctl -qw net.ipv4.icmp_echo_enable_probe=1 || return 1
	return 0
}

if ! setup_side k open; then
	fail $LABEL "cannot set up the kernel-side namespaces (root needed)"
	ns_done
fi
have_daemon=0
daemon_log=""
if [ "$CONF_ONLY" != kernel ]; then
	if ! setup_side d closed; then
		fail $LABEL "cannot set up the daemon-side namespaces"
		ns_done
	fi
	printf 'groups = 0 2147483647\nrate = 0\nmax_sockets = 0\n' \
		>"$T/conformance.conf"
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
	local -a senv=("PINGSOCK_BACKEND=$2")
	if [ "$CONF_SHIM" = 1 ]; then
		senv=()
		[ "$2" = daemon ] && senv=("LD_PRELOAD=$PRELOAD")
	fi
	as_nobody "$1" timeout -k 5 "$CONF_TIMEOUT" env "${senv[@]}" \
		"$T/$BINDIR/$3" >"$4" 2>"$5"
}

# --- the router topology ("// needs: router") --------------------------

router_seq=0
CASE_SYSCTLS=()		# the current case's "// sysctl:" settings
ROUTER_NS=()		# the namespaces of the current router topology
FORGE_PID=""

# router_up k|d: build a fresh topology; sets RCLIENT (the client's
# SHORT).  The daemon side also starts a pingsockd there (RDAEMON_PID).
router_up() {
	local side=$1 mode=open c r f i
	[ "$side" = d ] && mode=closed
	router_seq=$((router_seq + 1))
	c=$side${router_seq}c r=$side${router_seq}r f=$side${router_seq}f
	ROUTER_NS=("$c" "$r" "$f")
	RCLIENT=$c
	ns_new "$c" "$mode" || return 1
	if [ ${#CASE_SYSCTLS[@]} -gt 0 ]; then
		in_ns "$c" sysctl -qw "${CASE_SYSCTLS[@]}" || return 1
	fi
	ns_new "$r" open || return 1
	ns_new "$f" open || return 1
	v6_prep "$c" "$r" "$f" || return 1
	ns_veth "$c" "$r" 10.77.0.2/24 10.77.0.1/24 veth0 vc || return 1
	ns_veth "$r" "$f" 10.77.1.1/24 10.77.1.2/24 vfar veth0 || return 1
	ip -n "$(ns_name "$f")" addr add 10.77.1.3/24 dev veth0 || return 1
	v6_addr "$c" veth0 fd00:77::2/64 fe80::2/64 || return 1
	v6_addr "$r" vc fd00:77::1/64 fe80::1/64 || return 1
	v6_addr "$r" vfar fd00:77:1::1/64 fe80::1/64 || return 1
	v6_addr "$f" veth0 fd00:77:1::2/64 fd00:77:1::3/64 fe80::2/64 ||
		return 1
	# Both ends: a veth drops what exceeds the receiving end's MTU, so
	# with 1280 on the router's end only, the far host's 1300-byte
	# replies would vanish instead of being fragmented.
	ip -n "$(ns_name "$r")" link set vfar mtu 1280 || return 1
	ip -n "$(ns_name "$f")" link set veth0 mtu 1280 || return 1
	ip -n "$(ns_name "$c")" route add default via 10.77.0.1 || return 1
	ip -n "$(ns_name "$f")" route add default via 10.77.1.1 || return 1
	v6_ready "$c" "$r" "$f"
	ip -n "$(ns_name "$c")" -6 route add default via fd00:77::1 ||
		return 1
	ip -n "$(ns_name "$f")" -6 route add default via fd00:77:1::1 ||
		return 1
	in_ns "$r" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.icmp_ratemask=0 net.ipv4.icmp_echo_ignore_all=1 ||
		return 1
	in_ns "$r" sysctl -qw net.ipv6.conf.all.forwarding=1 \
		net.ipv6.icmp.ratelimit=0 net.ipv6.icmp.echo_ignore_all=1 ||
		return 1
	ip -n "$(ns_name "$r")" route add unreachable 10.77.5.0/24 || return 1
	ip -n "$(ns_name "$r")" route add prohibit 10.77.6.0/24 || return 1
	ip -n "$(ns_name "$r")" -6 route add unreachable fd00:77:5::/64 ||
		return 1
	ip -n "$(ns_name "$r")" -6 route add prohibit fd00:77:6::/64 ||
		return 1
	ip -n "$(ns_name "$r")" route add local 10.78.0.0/16 dev lo ||
		return 1
	if [ ! -x "$T/tests/lib/icmpforge" ]; then
		echo "$PS_BUILD/tests/lib/icmpforge not built" >&2
		return 1
	fi
	# Stops by itself after the case's time limit (or when we exit).
	# Not through a function: $! must be the forger itself.
	ip netns exec "$(ns_name "$r")" "$T/tests/lib/icmpforge" \
		-t $((2 * CONF_TIMEOUT + 30)) \
		>"$T/forge-$r.out" 2>"$T/forge-$r.err" &
	FORGE_PID=$!
	for i in $(seq 1 100); do
		[ -s "$T/forge-$r.out" ] && break
		kill -0 "$FORGE_PID" 2>/dev/null || break
		sleep 0.02
	done
	if ! [ -s "$T/forge-$r.out" ]; then
		cat "$T/forge-$r.err" >&2
		return 1
	fi
	# Neighbours resolved before the case starts (a packet that waits
	# for ARP or ND is still sent, but no case need depend on that).
	in_ns "$c" /usr/bin/ping -n -q -c 1 -W 1 10.77.1.2 >/dev/null 2>&1
	in_ns "$c" /usr/bin/ping -6 -n -q -c 1 -W 1 fd00:77:1::2 \
		>/dev/null 2>&1
	if [ "$side" = d ]; then
		local main_pid=${DAEMON_PID:-}
		rm -f "$(ns_sock "$c")"
		# shellcheck disable=SC2086
		if ! daemon_start "$c" --config "$T/conformance.conf" \
			${CONF_DAEMON_ARGS:-}; then
			DAEMON_PID=$main_pid
			return 1
		fi
		RDAEMON_PID=$DAEMON_PID
		DAEMON_PID=$main_pid
	fi
	return 0
}

# router_down: stop what router_up started and remove its namespaces.
router_down() {
	local n p keep=()
	if [ -n "$FORGE_PID" ]; then
		kill -TERM "$FORGE_PID" 2>/dev/null
		wait "$FORGE_PID" 2>/dev/null
		FORGE_PID=""
	fi
	if [ -n "${RDAEMON_PID:-}" ]; then
		kill -TERM "$RDAEMON_PID" 2>/dev/null
		wait "$RDAEMON_PID" 2>/dev/null
		for p in "${DAEMON_PIDS[@]}"; do
			[ "$p" = "$RDAEMON_PID" ] || keep+=("$p")
		done
		DAEMON_PIDS=("${keep[@]}")
		RDAEMON_PID=""
	fi
	for n in "${ROUTER_NS[@]}"; do
		ip netns pids "$(ns_name "$n")" 2>/dev/null |
			xargs -r kill -KILL 2>/dev/null
		ip netns del "$(ns_name "$n")" 2>/dev/null
	done
	ROUTER_NS=()
}

# --- the cases --------------------------------------------------------

for name in "${cases[@]}"; do
	bin=$T/$BINDIR/$name
	k=$OUT/$name.kernel d=$OUT/$name.daemon
	if [ ! -x "$bin" ]; then
		fail "$LABEL/$name" "$PS_BUILD/$BINDIR/$name not built"
		continue
	fi
	needs=$(sed -n 's|^// needs: *\([a-z0-9_-]*\).*|\1|p' "$HERE/$name.c" 2>/dev/null)
	unmet=$(printf '%s\n' "$needs" |
		grep -v -x -e peer -e router -e broker -e '' |
		tr '\n' ' ')
	if [ -n "$unmet" ]; then
		fail "$LABEL/$name" "needs ${unmet% }, which run.sh does not set up"
		continue
	fi
	if printf '%s\n' "$needs" | grep -q -x broker &&
		[ "${PS_DAEMON_MODE:-}" != broker ]; then
		echo "-- $LABEL/$name: not run (broker mode only)"
		continue
	fi
	router=0
	printf '%s\n' "$needs" | grep -q -x router && router=1
	mapfile -t CASE_SYSCTLS < <(sed -n \
		's|^// sysctl: *\([a-z0-9_.]*=[0-9]*\) *$|\1|p' "$HERE/$name.c")
	if [ ${#CASE_SYSCTLS[@]} -gt 0 ] && [ $router -ne 1 ]; then
		fail "$LABEL/$name" "a \"// sysctl:\" line needs \"// needs: router\" (namespaces of its own)"
		continue
	fi
	# A case without a router of its own runs on both sides at once:
	# the two sides share nothing (namespaces, peers, daemon), and the
	# cases mostly wait.  BG is the daemon half's job.
	BG=""
	if [ $router -eq 0 ] && [ "$CONF_ONLY" != kernel ] &&
		{ [ $have_daemon -eq 1 ] || start_daemon; }; then
		run_case d daemon "$name" "$d" "$d.err" &
		BG=$!
	fi
	kns=k
	if [ $router -eq 1 ]; then
		if ! router_up k 2>"$T/router-up.err"; then
			fail "$LABEL/$name" "cannot build the kernel side's router topology: $(tail -3 "$T/router-up.err" | tr '\n' ' ')"
			router_down
			continue
		fi
		kns=$RCLIENT
	fi
	run_case "$kns" kernel "$name" "$k" "$k.err"
	krc=$?
	[ $router -eq 1 ] && router_down
	if [ $krc -ne 0 ] || [ ! -s "$k" ]; then
		[ -z "$BG" ] || wait "$BG"
		fail "$LABEL/$name" "the kernel run itself failed (exit $krc)"
		show "$k"
		show "$k.err"
		continue
	fi
	# Broker mode's deliberate differences (pingsockd(8), BROKER
	# MODE): what the kernel printed, as it would with them.
	# Relay mode's (relay-differences.sed), likewise.
	if [ "${PS_DAEMON_MODE:-}" = broker ]; then
		sed -f "$(dirname "$0")/broker-differences.sed" "$k" >"$k.b" &&
			mv "$k.b" "$k"
	else
		sed -f "$(dirname "$0")/relay-differences.sed" "$k" >"$k.b" &&
			mv "$k.b" "$k"
	fi
	if [ "$CONF_ONLY" = kernel ]; then
		skip "$LABEL/$name" "CONF_ONLY=kernel: daemon half not run"
		show "$k" 100000
		[ -s "$k.err" ] && show "$k.err"
		continue
	fi
	dns=d dpid=${DAEMON_PID:-} dlog=$T/d.log
	if [ $router -eq 1 ]; then
		if ! router_up d 2>"$T/router-up.err"; then
			fail "$LABEL/$name" "cannot build the daemon side's router topology or start its pingsockd: $(tail -3 "$T/router-up.err" | tr '\n' ' ')"
			router_down
			continue
		fi
		dns=$RCLIENT dpid=$RDAEMON_PID dlog=$T/$RCLIENT.log
	elif [ -z "$BG" ]; then
		fail "$LABEL/$name" "pingsockd is not running: $daemon_log"
		continue
	else
		dpid=$DAEMON_PID
	fi
	if [ -n "$BG" ]; then
		wait "$BG"
	else
		run_case "$dns" daemon "$name" "$d" "$d.err"
	fi
	drc=$?
	died=""
	if ! kill -0 "$dpid" 2>/dev/null; then
		died=" (pingsockd died during this case)"
		[ $router -eq 1 ] || have_daemon=0
	fi
	[ $router -eq 1 ] && router_down
	if ! cmp -s "$k" "$d"; then
		fail "$LABEL/$name" "$(first_diff "$k" "$d")$died"
		diff -u --label kernel --label daemon "$k" "$d" | tail -n +3 |
			sed 's/^/  | /' | head -30
		[ -s "$d.err" ] && show "$d.err"
	elif [ $drc -ne 0 ]; then
		fail "$LABEL/$name" "daemon run exited $drc$died"
		show "$d.err"
	elif [ -n "$died" ]; then
		fail "$LABEL/$name" "same output, but$died"
	else
		pass "$LABEL/$name"
	fi
	if [ -n "$died" ]; then
		echo "  | pingsockd log:"
		tail -20 "$dlog" 2>/dev/null | sed 's/^/  | /'
	fi
done

ns_done
