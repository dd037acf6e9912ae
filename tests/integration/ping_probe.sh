#!/bin/bash
# SPDX-License-Identifier: ISC
# ping_probe - ping -X: RFC 8335 PROBE (Extended Echo) requests for an
# interface of the destination, by name, index and address, both
# families, on both backends.
#
# Namespace k has an open ping_group_range (the kernel's ping socket,
# PINGSOCK_BACKEND=kernel), d a closed one with pingsockd serving; both
# answer probes (net.ipv4.icmp_echo_enable_probe = 1) until the last
# cases turn that off.  Each case runs in both as uid 65534: the lines
# (times masked) and the exit status must be the same, and contain what
# the case expects.
. "$(dirname "$0")/../lib/netns.sh"

LABEL=ping_probe

if [ "$(id -u)" != 0 ]; then
	skip $LABEL "needs root for network namespaces"
	ns_done
fi
ns_new k open && ns_new d closed ||
	{ fail $LABEL/setup "ip netns add"; ns_done; }
if ! in_ns k sysctl -qw net.ipv4.icmp_echo_enable_probe=1 2>/dev/null; then
	skip $LABEL "no net.ipv4.icmp_echo_enable_probe (kernel before 5.13)"
	ns_done
fi
in_ns d sysctl -qw net.ipv4.icmp_echo_enable_probe=1 &&
	daemon_start d || { fail $LABEL/setup "pingsockd"; ns_done; }

# RTTs and the run's duration vary; the rest must not.
mask() {
	sed -E -e 's/time=[0-9.]+ ms/time=X ms/' \
		-e 's/, time [0-9]+ms$/, time Xms/' \
		-e 's#^(rtt min/avg/max/mdev = ).*#\1X#' \
		-e 's#^[^ ]*ping: #ping: #' "$1"
}

# run NS DIR ARGS...: ping in NS (its backend), DIR/NS.{out,err,rc}.
run() {
	local ns=$1 d=$2 backend=kernel; shift 2
	[ "$ns" = d ] && backend=daemon
	as_nobody "$ns" env PINGSOCK_BACKEND=$backend "$T/ping" "$@" \
		>"$d/$ns.out" 2>"$d/$ns.err"
	echo $? >"$d/$ns.rc"
}

# probe NAME RC PATTERN... -- ARGS...: both backends give status RC and
# the same masked stdout and stderr, and stdout has a line matching each
# extended regular expression PATTERN.
probe() {
	local name=$LABEL/$1 rc=$2 d p s why=; shift 2
	local pats=()
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	d=$(mktemp -d "$T/case.XXXXXX")
	run k "$d" "$@"
	run d "$d" "$@"
	for s in out err; do
		[ "$(mask "$d/k.$s")" = "$(mask "$d/d.$s")" ] ||
			why+="std$s differs: $(diff <(mask "$d/k.$s") <(mask "$d/d.$s") | tr '\n' '|') "
	done
	[ "$(cat "$d/k.rc")" = "$rc" ] && [ "$(cat "$d/d.rc")" = "$rc" ] ||
		why+="exit $(cat "$d/k.rc")/$(cat "$d/d.rc") (want $rc) "
	for p in "${pats[@]}"; do
		grep -Eq -- "$p" "$d/k.out" || why+="no '$p' in: $(tr '\n' '|' <"$d/k.out") "
	done
	if [ -z "$why" ]; then
		pass "$name"
	else
		fail "$name" "$why$(head -2 "$d/k.err" "$d/d.err" | tr '\n' '|')"
	fi
}

# bad NAME 'MESSAGE' ARGS...: refused before anything is sent: exit 2,
# nothing on stdout, MESSAGE on stderr.
bad() {
	local name=$LABEL/$1 msg=$2 d; shift 2
	d=$(mktemp -d "$T/case.XXXXXX")
	run k "$d" "$@"
	if [ "$(cat "$d/k.rc")" = 2 ] && [ ! -s "$d/k.out" ] &&
		grep -qF -- "$msg" "$d/k.err"; then
		pass "$name"
	else
		fail "$name" "exit $(cat "$d/k.rc"): $(tr '\n' '|' <"$d/k.err")"
	fi
}

C=(-c 2 -i 0.2 -W 1)
UP='^20 bytes from 127\.0\.0\.1: probe icmp_seq=[12] ttl=64 interface active, ipv4, ipv6 time=[0-9.]+ ms$'
STATS_OK='^2 packets transmitted, 2 received, 0% packet loss'
idx=$(in_ns k ip -o link show lo | cut -d: -f1)

probe by_name 0 '^PROBE 127\.0\.0\.1 \(127\.0\.0\.1\) interface name lo$' \
	"${UP/\[12\]/1}" "${UP/\[12\]/2}" "$STATS_OK" '^rtt min' -- \
	"${C[@]}" -X lo 127.0.0.1
probe by_index 0 "^PROBE 127\\.0\\.0\\.1 \\(127\\.0\\.0\\.1\\) interface index $idx\$" \
	"$UP" "$STATS_OK" -- "${C[@]}" -X "$idx" 127.0.0.1
probe by_address 0 'interface address 127\.0\.0\.1$' \
	'^24 bytes from 127\.0\.0\.1: probe icmp_seq=1 ttl=64 interface active, ipv4, ipv6 time=' \
	"$STATS_OK" -- "${C[@]}" -X 127.0.0.1 127.0.0.1
probe by_address6 0 'interface address ::1$' \
	'^36 bytes from 127\.0\.0\.1: probe icmp_seq=1 ttl=64 interface active, ipv4, ipv6 time=' \
	-- "${C[@]}" -X ::1 127.0.0.1
probe unknown_name 1 \
	'^24 bytes from 127\.0\.0\.1: probe icmp_seq=1 ttl=64 No Such Interface time=[0-9.]+ ms$' \
	'^2 packets transmitted, 0 received, \+2 errors, 100% packet loss' -- \
	"${C[@]}" -X nosuch0 127.0.0.1
probe unknown_index 1 'probe icmp_seq=1 ttl=64 No Such Interface' -- \
	"${C[@]}" -X 99999 127.0.0.1
# Linux takes a name of fewer than IFNAMSIZ bytes, its padding included.
probe long_name 1 'probe icmp_seq=1 ttl=64 Malformed Query time=' -- \
	"${C[@]}" -X abcdefghijklm 127.0.0.1
probe ipv6_by_name 0 '^PROBE ::1\(::1\) interface name lo$' \
	'^20 bytes from ::1: probe icmp_seq=2 .*interface active, ipv4, ipv6 time=' \
	'^--- ::1 ping statistics ---$' "$STATS_OK" -- \
	"${C[@]}" -X lo ::1
probe ipv6_unknown 1 '^24 bytes from ::1: probe icmp_seq=1 .*No Such Interface' -- \
	"${C[@]}" -X nosuch0 ::1
# The sequence number is 8 bits: 255 is followed by 0.
probe wrap 0 'probe icmp_seq=255 ' 'probe icmp_seq=0 ' 'probe icmp_seq=4 ' \
	'^260 packets transmitted, 260 received, 0% packet loss' -- \
	-c 260 -i 0.002 -X lo 127.0.0.1
probe quiet 0 '^2 packets transmitted, 2 received' -- "${C[@]}" -q -X lo 127.0.0.1

bad empty 'invalid probe interface: empty name' -X '' 127.0.0.1
bad index_range 'invalid probe interface index: 4294967296' \
	-X 4294967296 127.0.0.1
bad bad_addr6 'invalid probe interface address: fe80::zz' \
	-X fe80::zz 127.0.0.1
bad scoped_addr6 'invalid probe interface address: fe80::1%lo' \
	-X fe80::1%lo 127.0.0.1
bad name_256 'probe interface name too long: 256 bytes (at most 255)' \
	-X "$(printf 'a%.0s' $(seq 256))" 127.0.0.1

# Without icmp_echo_enable_probe nothing answers.
in_ns k sysctl -qw net.ipv4.icmp_echo_enable_probe=0
in_ns d sysctl -qw net.ipv4.icmp_echo_enable_probe=0
probe disabled 1 '^PROBE 127\.0\.0\.1 \(127\.0\.0\.1\) interface name lo$' \
	'^2 packets transmitted, 0 received, 100% packet loss' -- \
	"${C[@]}" -X lo 127.0.0.1
d=$(mktemp -d "$T/case.XXXXXX")
run k "$d" "${C[@]}" -X lo 127.0.0.1
if grep -q 'bytes from' "$d/k.out"; then
	fail $LABEL/disabled_no_lines "$(tr '\n' '|' <"$d/k.out")"
else
	pass $LABEL/disabled_no_lines
fi

ns_done
