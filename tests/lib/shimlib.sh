# SPDX-License-Identifier: ISC
# shellcheck shell=bash
# tests/lib/shimlib.sh - set-up shared by the tests of unmodified programs
# through libpingsock-preload.so (source it).
#
#   . "$(dirname "$0")/../lib/shimlib.sh"
#   shim_init LABEL ping traceroute   # root, the shim, $T/bin/PROG copies
#   router_topology k                 # kernel side: kc -- kr -- kf
#   router_topology d                 # daemon side, its own pingsockd in dc
#   ours() { shimmed dc "$T/bin/ping" "$@"; }
#   ref() { kernel kc "$T/bin/ping" "$@"; }
#   same c5 -c 5 127.0.0.1            # (compare.sh)
#
# Sources netns.sh (namespaces, daemons, as_nobody, pass/fail/skip and
# the clean-up on exit) and compare.sh (mask, compare, same).
#
# PRELOAD is the LD_PRELOAD list: the shim, after the ASan runtime for an
# ASan build (ASan must come before anything it intercepts; UBSan's
# runtime is a plain dependency of the shim and needs nothing).  PY_ENV
# goes before /usr/bin/python3: with the ASan runtime, Python's own
# leaks at exit fail the run (measured: `import icmplib` under libasan
# alone, no shim, leaks 18249 bytes in 10 allocations, every one from
# python3.11), so leak detection is off for Python; the other programs
# keep it.
#
# The programs are copies: /usr/bin/ping and /usr/bin/fping carry file
# capabilities, and the loader ignores LD_PRELOAD for such a file (cp
# does not copy them), and the copy must be where uid 65534 can read it.

# shellcheck source-path=SCRIPTDIR source=netns.sh
. "$(dirname "${BASH_SOURCE[0]}")/netns.sh"
# shellcheck source-path=SCRIPTDIR source=compare.sh
. "$(dirname "${BASH_SOURCE[0]}")/compare.sh"

PRELOAD=$T/libpingsock-preload.so
PY_ENV=()
# shellcheck disable=SC2034  # PY_ENV: for the tests that source this
case $PS_BUILD in
*build-asan) PRELOAD="$(gcc -print-file-name=libasan.so):$PRELOAD"
	PY_ENV=(ASAN_OPTIONS=detect_leaks=0) ;;
esac
declare -A SHIM_DAEMON=()
# The programs get only what the tests give them: nothing of the
# caller's PINGSOCK_BACKEND, PINGSOCK_DEBUG, ...
for v in "${!PINGSOCK_@}"; do unset "$v"; done

# shim_prog NAME: where the program NAME is (PING_REFERENCE for ping).
shim_prog() {
	if [ "$1" = ping ] && [ -n "${PING_REFERENCE:-}" ]; then
		echo "$PING_REFERENCE"
		return
	fi
	PATH=$PATH:/usr/sbin:/sbin command -v "$1"
}

# shim_init LABEL [PROG...]: skips (and exits) without root; fails (and
# exits) without the shim or one of the programs.  Sets LABEL.
shim_init() {
	local p path
	LABEL=$1; shift
	if [ "$(id -u)" != 0 ]; then
		skip "$LABEL" "needs root for network namespaces"
		ns_done
	fi
	if ! [ -e "$PS_BUILD/libpingsock-preload.so" ]; then
		fail "$LABEL/setup" "no $PS_BUILD/libpingsock-preload.so"
		ns_done
	fi
	if ! mkdir -p "$T/bin" || ! cp "$PS_BUILD/libpingsock-preload.so" "$T/"
	then
		fail "$LABEL/setup" "copy of the shim"
		ns_done
	fi
	for p in "$@"; do
		path=$(shim_prog "$p")
		if [ -z "$path" ] || ! cp "$path" "$T/bin/$p"; then
			fail "$LABEL/setup" "no $p to run (install it)"
			ns_done
		fi
	done
	chmod -R a+rX "$T"
}

# shimmed SHORT CMD...: as uid 65534 in SHORT with only LD_PRELOAD (and
# PINGSOCK_SOCKET) added.  kernel SHORT CMD...: the same without the shim.
shimmed() { local n=$1; shift; as_nobody "$n" env LD_PRELOAD="$PRELOAD" "$@"; }
kernel() { as_nobody "$@"; }

# shim_daemon SHORT [ARGS...]: pingsockd in SHORT, remembered as its
# namespace's daemon.
shim_daemon() {
	daemon_start "$@" || return 1
	SHIM_DAEMON[$1]=$DAEMON_PID
}

# shim_daemon_restart SHORT [ARGS...]: stop SHORT's daemon, start a fresh
# one (with ARGS) that has never had a client.
shim_daemon_restart() {
	if [ -n "${SHIM_DAEMON[$1]:-}" ]; then
		DAEMON_PID=${SHIM_DAEMON[$1]}
		daemon_stop
	fi
	rm -f "$(ns_sock "$1")"
	shim_daemon "$@"
}

# router_topology k|d [DAEMON ARGS...]: a fresh client -- router -- far
# chain for one side, namespaces SIDEc, SIDEr, SIDEf:
#   client 10.77.0.2/24 (veth0, default route via 10.77.0.1)
#   router 10.77.0.1/24 (vc), 10.77.1.1/24 (vfar); ip_forward=1,
#          icmp_ratelimit=0 (every Time Exceeded is sent)
#   far    10.77.1.2/24 and 10.77.1.3/24 (veth0, default via 10.77.1.1),
#          two hops from the client; nobody has 10.77.1.9: the router
#          sends to a made-up neighbour (no ARP, no error: it just never
#          answers)
# Both links have MTU 1500.  Side k: the client's ping_group_range is
# open (the kernel's ping socket); side d: closed, and pingsockd (with
# DAEMON ARGS) runs in the client's namespace.
# IPv6 on the same links (no duplicate address detection, so addresses
# work at once):
#   client fd00:77::2/64 (default via fd00:77::1)
#   router fd00:77::1/64 (vc), fd00:77:1::1/64 (vfar), forwarding on,
#          net.ipv6.icmp.ratelimit=0; the route to fd00:77:1::/64 has
#          a locked MTU of 1280 (IPv6 only; forwarding ignores a route
#          MTU that is not locked): a 1400-byte request gets Packet Too
#          Big; unreachable fd00:77:5::/64
#   far    fd00:77:1::2/64 and fd00:77:1::3/64; nobody has fd00:77:1::9
#          (a made-up permanent neighbour, as for IPv4)
TOPO_CLIENT=10.77.0.2 TOPO_ROUTER=10.77.0.1
TOPO_FAR1=10.77.1.2 TOPO_FAR2=10.77.1.3 TOPO_DEAD=10.77.1.9
TOPO6_CLIENT=fd00:77::2 TOPO6_ROUTER=fd00:77::1
TOPO6_FAR1=fd00:77:1::2 TOPO6_FAR2=fd00:77:1::3 TOPO6_DEAD=fd00:77:1::9
TOPO6_UNREACH=fd00:77:5::1
router_topology() {
	local side=$1 mode=closed c r f a n; shift
	[ "$side" = k ] && mode=open
	c=${side}c r=${side}r f=${side}f
	ns_new "$c" "$mode" && ns_new "$r" closed && ns_new "$f" closed ||
		return 1
	for n in "$c" "$r" "$f"; do
		in_ns "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
	done
	ns_veth "$c" "$r" $TOPO_CLIENT/24 $TOPO_ROUTER/24 veth0 vc &&
		ns_veth "$r" "$f" 10.77.1.1/24 $TOPO_FAR1/24 vfar veth0 &&
		ip -n "$(ns_name "$f")" addr add $TOPO_FAR2/24 dev veth0 || return 1
	for a in "$c veth0" "$r vc" "$r vfar" "$f veth0"; do
		ip -n "$(ns_name "${a% *}")" link set "${a#* }" mtu 1500 || return 1
	done
	ip -n "$(ns_name "$c")" route add default via $TOPO_ROUTER &&
		ip -n "$(ns_name "$f")" route add default via 10.77.1.1 &&
		in_ns "$r" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.icmp_ratelimit=0 &&
		ip -n "$(ns_name "$r")" neigh add $TOPO_DEAD \
			lladdr 02:00:00:00:00:09 dev vfar nud permanent || return 1
	topology6 "$c" "$r" "$f" || return 1
	# Neighbours resolved before any test runs (as root: raw socket).
	for a in $TOPO_FAR1 $TOPO_FAR2 $TOPO6_FAR1 $TOPO6_FAR2; do
		in_ns "$c" ping -n -q -c 1 -W 1 "$a" >/dev/null 2>&1 ||
			return 1
	done
	if [ "$side" != k ]; then
		shim_daemon "$c" "$@" || return 1
	fi
	return 0
}

# topology6 CLIENT ROUTER FAR: the IPv6 half of router_topology.
topology6() {
	local c r f
	c=$(ns_name "$1"); r=$(ns_name "$2"); f=$(ns_name "$3")
	ip -n "$c" addr add $TOPO6_CLIENT/64 dev veth0 nodad &&
		ip -n "$r" addr add $TOPO6_ROUTER/64 dev vc nodad &&
		ip -n "$r" addr add fd00:77:1::1/64 dev vfar nodad noprefixroute &&
		ip -n "$f" addr add $TOPO6_FAR1/64 dev veth0 nodad &&
		ip -n "$f" addr add $TOPO6_FAR2/64 dev veth0 nodad &&
		ip -n "$c" -6 route add default via $TOPO6_ROUTER &&
		ip -n "$f" -6 route add default via fd00:77:1::1 &&
		ip -n "$r" -6 route add fd00:77:1::/64 dev vfar mtu lock 1280 &&
		ip -n "$r" -6 route add unreachable fd00:77:5::/64 &&
		in_ns "$2" sysctl -qw net.ipv6.conf.all.forwarding=1 \
			net.ipv6.icmp.ratelimit=0 &&
		ip -n "$r" -6 neigh add $TOPO6_DEAD lladdr 02:00:00:00:00:09 \
			dev vfar nud permanent
}

# link_local SHORT DEV: the fe80:: address of DEV in namespace SHORT.
link_local() {
	ip -n "$(ns_name "$1")" -6 -o addr show dev "$2" scope link |
		awk '{ sub(/\/.*/, "", $4); print $4; exit }'
}
