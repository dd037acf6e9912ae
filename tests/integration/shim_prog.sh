#!/bin/bash
# SPDX-License-Identifier: ISC
# shim_prog - poll, select, epoll, non-blocking sockets, fork, dup, exec,
# sendmmsg/recvmmsg, close_range and threads on ping sockets, through
# libpingsock-preload.so, compared with the kernel's own ping socket.
#
# build/tests/shimprog/shimprog (tests/shimprog/shimprog.c, plain libc)
# prints one deterministic line per observable.  Each of its scenarios
# runs as uid 65534 twice:
#   kernel: client namespace with ping_group_range open, no LD_PRELOAD;
#   shim:   client namespace with range "1 0", pingsockd running, only
#           LD_PRELOAD=libpingsock-preload.so.
# Identical output (and exit status 0): "PASS: shim_prog/SCENARIO";
# otherwise FAIL with the first differing line, then the diff.
#
# Each side's client namespace 10.77.0.2/24 has a default route via a
# router namespace 10.77.0.1/24 (ip_forward=1, icmp_ratemask=0,
# icmp_echo_ignore_all=1, route unreachable 10.77.5.0/24, local
# 10.78.0.0/16 answered by tests/lib/icmpforge with ICMP errors), for
# the errors_* scenarios.
#
# The program counts ping sockets with SHIMPROG_COUNT: on the kernel side
# the lines of /proc/net/icmp (bound ping sockets of the namespace), on
# the shim side pingsockd's "sockets" (pingsockctl status).
#
# Environment: PS_BUILD (build directory), SHIMPROG_CASES (only these
# scenarios), SHIMPROG_OUT (keep the outputs there: NAME.kernel,
# NAME.shim, NAME.*.err), SHIMPROG_TIMEOUT (seconds per run, default 60).
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

LABEL=shim_prog
TIMEOUT=${SHIMPROG_TIMEOUT:-60}
# Nothing of the caller's PINGSOCK_BACKEND, PINGSOCK_DEBUG, ...
for v in "${!PINGSOCK_@}"; do unset "$v"; done

if [ "$(id -u)" != 0 ]; then
	skip $LABEL "needs root for network namespaces"
	ns_done
fi
for f in libpingsock-preload.so tests/shimprog/shimprog tests/lib/icmpforge; do
	if ! [ -e "$PS_BUILD/$f" ]; then
		fail $LABEL/setup "no $PS_BUILD/$f"
		ns_done
	fi
done
if ! cp "$PS_BUILD/libpingsock-preload.so" "$T/" || ! chmod -R a+rX "$T"; then
	fail $LABEL/setup "copies"
	ns_done
fi
PROG=$T/tests/shimprog/shimprog
OUT=${SHIMPROG_OUT:-$T/out}
mkdir -p "$OUT"

# As in shim_ping.sh: the ASan build's shim needs the ASan runtime first.
PRELOAD=$T/libpingsock-preload.so
case $PS_BUILD in
*build-asan) PRELOAD="$(gcc -print-file-name=libasan.so):$PRELOAD" ;;
esac

# side k|d: client namespace SIDE (open|closed), router SIDEr with the
# forger running.
setup_side() {
	local c=$1 r=$1r
	ns_new "$c" "$2" || return 1
	ns_new "$r" open || return 1
	ns_veth "$c" "$r" 10.77.0.2/24 10.77.0.1/24 veth0 vc || return 1
	ip -n "$(ns_name "$c")" route add default via 10.77.0.1 || return 1
	in_ns "$r" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.icmp_ratemask=0 net.ipv4.icmp_echo_ignore_all=1 ||
		return 1
	ip -n "$(ns_name "$r")" route add unreachable 10.77.5.0/24 || return 1
	ip -n "$(ns_name "$r")" route add local 10.78.0.0/16 dev lo || return 1
	# Stops by itself (-t), or when this script exits.
	ip netns exec "$(ns_name "$r")" "$T/tests/lib/icmpforge" -t 600 \
		>"$T/forge-$r.out" 2>"$T/forge-$r.err" &
	disown $!	# ns_cleanup kills it: no "Killed" report
	for _ in $(seq 1 100); do
		[ -s "$T/forge-$r.out" ] && break
		sleep 0.02
	done
	[ -s "$T/forge-$r.out" ] || { cat "$T/forge-$r.err" >&2; return 1; }
	# The router's neighbour entry resolved before any scenario runs.
	in_ns "$c" /usr/bin/ping -n -q -c 1 -W 1 10.77.0.1 >/dev/null 2>&1
	return 0
}
if ! setup_side k open 2>"$T/setup.err" ||
	! setup_side d closed 2>>"$T/setup.err"; then
	fail $LABEL/setup "namespaces: $(tail -3 "$T/setup.err" | tr '\n' ' ')"
	ns_done
fi
daemon_start d || { fail $LABEL/setup "pingsockd"; ns_done; }

K_COUNT='tail -n +2 /proc/net/icmp | wc -l'
dstat() { echo "$T/pingsockctl --socket $(ns_sock d) status | awk '\$1 == \"$1\" { print \$2 }'"; }
D_COUNT=$(dstat sockets)

run_kernel() {	# NAME OUT ERR
	as_nobody k env SHIMPROG_COUNT="$K_COUNT" \
		timeout -k 5 "$TIMEOUT" "$PROG" "$1" >"$2" 2>"$3"
}
run_shim() {	# NAME OUT ERR
	as_nobody d env SHIMPROG_COUNT="$D_COUNT" LD_PRELOAD="$PRELOAD" \
		timeout -k 5 "$TIMEOUT" "$PROG" "$1" >"$2" 2>"$3"
}

# first_diff A B: "line N: kernel '...' vs shim '...'"
first_diff() {
	local -a ka da
	local i n
	mapfile -t ka <"$1"
	mapfile -t da <"$2"
	n=${#ka[@]}
	[ ${#da[@]} -gt "$n" ] && n=${#da[@]}
	for ((i = 0; i < n; i++)); do
		if [ "${ka[$i]-<end>}" != "${da[$i]-<end>}" ]; then
			echo "line $((i + 1)): kernel '${ka[$i]-<end>}' vs shim '${da[$i]-<end>}'"
			return
		fi
	done
}

if [ -n "${SHIMPROG_CASES:-}" ]; then
	read -r -a cases <<<"$SHIMPROG_CASES"
else
	mapfile -t cases < <("$PROG" list)
fi

for name in "${cases[@]}"; do
	k=$OUT/$name.kernel s=$OUT/$name.shim
	run_kernel "$name" "$k" "$k.err"; krc=$?
	sent=$(in_ns d sh -c "$(dstat sent)")
	run_shim "$name" "$s" "$s.err"; src=$?
	died="" why=""
	if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
		died=" (pingsockd died)"
		why=$died
	elif [ "$(in_ns d sh -c "$(dstat sent)")" = "$sent" ]; then
		# Every scenario sends: so must pingsockd, or no shim was used.
		why=" (pingsockd sent nothing: was the shim used?)"
	fi
	if [ $krc -ne 0 ] || ! [ -s "$k" ]; then
		fail "$LABEL/$name" "the kernel run itself failed (exit $krc)"
		sed 's/^/  | /' "$k" "$k.err" | tail -20
	elif ! cmp -s "$k" "$s"; then
		fail "$LABEL/$name" "$(first_diff "$k" "$s")$why"
		diff -u --label kernel --label shim "$k" "$s" | tail -n +3 |
			sed 's/^/  | /' | head -40
		[ -s "$s.err" ] && sed 's/^/  | err: /' "$s.err" | head -10
	elif [ $src -ne 0 ]; then
		fail "$LABEL/$name" "the shim run exited $src$why"
		sed 's/^/  | err: /' "$s.err" | head -10
	elif [ -n "$why" ]; then
		fail "$LABEL/$name" "same output, but$why"
	else
		pass "$LABEL/$name"
	fi
	if [ -n "$died" ]; then
		tail -20 "$T/d.log" | sed 's/^/  | pingsockd: /'
		rm -f "$(ns_sock d)"
		daemon_start d || { fail $LABEL/setup "pingsockd restart"; ns_done; }
	fi
done

# After everything: no socket left behind in the daemon.
n=$(in_ns d sh -c "$D_COUNT")
if [ "$n" = 0 ]; then
	pass $LABEL/daemon_empty
else
	fail $LABEL/daemon_empty "pingsockd still has '$n' sockets"
fi

ns_done
