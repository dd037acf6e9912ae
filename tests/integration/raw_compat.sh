#!/bin/bash
# SPDX-License-Identifier: ISC
# raw_compat - programs that know only raw ICMP sockets (busybox ping,
# liboping's oping), unprivileged, through the shim's Echo-only emulation
# of the raw socket (PINGSOCK_RAW=echo, pingsockd's raw_compat = yes).
#
# The client namespace (dc, ping_group_range "1 0") is one hop from a
# router (dr) and two from the far hosts (df): shimlib.sh's
# router_topology.  Each program runs twice there: as root on the
# kernel's own raw socket, and as uid 65534 with only LD_PRELOAD and
# PINGSOCK_RAW=echo added; the outputs must be the same (times masked).
# tests/lib/rawprobe shows, header by header, what each side receives;
# tcpdump on the client's link shows what went on the wire.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init raw_compat busybox oping
if ! PATH=$PATH:/usr/sbin:/sbin command -v tcpdump >/dev/null; then
	fail "$LABEL/setup" "no tcpdump (install it)"
	ns_done
fi
printf 'raw_compat = yes\nrate = 0\nmax_sockets = 0\n' >"$T/raw.conf"
chmod 644 "$T/raw.conf"
router_topology d --config "$T/raw.conf" ||
	{ fail "$LABEL/setup" "namespaces: $(tail -3 "$T/dc.log" | tr '\n' '|')"; ns_done; }

PROBE=$T/tests/lib/rawprobe
# busybox leaks what it allocates for its target (under the ASan
# runtime: 20 bytes, 32 for IPv6, from its own xmalloc, freed by no one
# before exit), and LeakSanitizer's exit then loses its buffered
# statistics lines: leak detection off for busybox alone (as for Python
# in shimlib.sh); oping and rawprobe keep it.
BB=("$T/bin/busybox")
case $PS_BUILD in
*build-asan) BB=(env ASAN_OPTIONS=detect_leaks=0 "$T/bin/busybox") ;;
esac
# ours: the emulation, as uid 65534 (or as_raw UID ... for another uid);
# ref: the kernel's raw socket, as root in the same namespace.
ours() { shimmed dc env PINGSOCK_RAW=echo "$@"; }
as_raw() { local u=$1; shift; as_uid "$u" dc env LD_PRELOAD="$PRELOAD" PINGSOCK_RAW=echo "$@"; }
ref() { in_ns dc "$@"; }
CMP_REF="kernel raw socket (root)" CMP_OURS="emulation (uid 65534)"

# busybox's and oping's times, on top of compare.sh's masks.
eval "base_$(declare -f mask)"
mask() {
	base_mask "$1" | sed -E \
		-e 's#^(round-trip min/avg/max = )[0-9.]+/[0-9.]+/[0-9.]+ ms#\1R ms#' \
		-e 's#, time [0-9.]+ms$#, time Tms#' \
		-e 's#^(RTT\[ms\]: ).*#\1R#'
}

# seq_same NAME ARGS...: as `same`, but the kernel's side first, then
# ours (the raw probes share identifiers, and a kernel raw socket sees
# every reply).
seq_same() {
	local name=$LABEL/$1 d; shift
	d=$(mktemp -d "$T/case.XXXXXX")
	ref "$@" >"$d/ref.out" 2>"$d/ref.err"; echo $? >"$d/ref.rc"
	ours "$@" >"$d/ours.out" 2>"$d/ours.err"; echo $? >"$d/ours.rc"
	compare "$name" "$d" 0
}

# ---- the programs ----

R=${TOPO_ROUTER//./\\.} F1=${TOPO_FAR1//./\\.}
CMP_EXPECT="out:^64 bytes from 127\.0\.0\.1: seq=2 ttl=64 time=T ms$
out:^3 packets transmitted, 3 packets received, 0% packet loss$" \
	same busybox_loopback "${BB[@]}" ping -c 3 -i 0.2 127.0.0.1
CMP_EXPECT="out:^64 bytes from $R: seq=2 ttl=64 time=T ms$
out:^3 packets transmitted, 3 packets received, 0% packet loss$" \
	same busybox_peer "${BB[@]}" ping -c 3 -i 0.2 "$TOPO_ROUTER"
CMP_EXPECT="out:^64 bytes from $F1: seq=1 ttl=63 time=T ms$" \
	same busybox_far "${BB[@]}" ping -c 2 -i 0.2 "$TOPO_FAR1"
CMP_EXPECT="out:^64 bytes from ${TOPO6_ROUTER}: seq=2 ttl=64 time=T ms$" \
	same busybox_peer6 "${BB[@]}" ping -6 -c 3 -i 0.2 "$TOPO6_ROUTER"

# oping: one raw socket, an identifier per host.  Its lines for the two
# hosts interleave as the replies come: compared sorted.
d=$(mktemp -d "$T/case.XXXXXX")
run_both "$d" "$T/bin/oping" -c 3 -i 0.2 "$TOPO_ROUTER" "$TOPO_FAR1"
for f in "$d"/ours.out "$d"/ref.out; do
	mask "$f" | sort >"$f.sorted" && mv "$f.sorted" "$f"
done
CMP_EXPECT="out:^56 bytes from $R \($R\): icmp_seq=3 ttl=64 time=T ms$
out:^56 bytes from $F1 \($F1\): icmp_seq=3 ttl=63 time=T ms$
out:^3 packets transmitted, 3 received, 0\.00% packet loss, time Tms$" \
	compare "$LABEL/oping_two_hosts" "$d" 0

# ---- what a raw socket receives, header by header ----

seq_same probe_socket "$PROBE" socket inet
seq_same probe_socket6 "$PROBE" socket inet6
seq_same probe_name "$PROBE" name 127.0.0.1
CMP_EXPECT="out:^ip: v4 hl 20 tos 0 len 84 df 0 mf 0 off 0 ttl 64 proto 1 $R > ${TOPO_CLIENT//./\\.} sum ok$" \
	seq_same probe_reply "$PROBE" echo "$TOPO_ROUTER" 4001 0
# A Time Exceeded from the router: the whole error packet, the quoted
# request's header and the start of the request in it.
CMP_EXPECT="out:^icmp: type 11 code 0 sum ok len 92$
out:^quote: v4 proto 1 ttl 1 ${TOPO_CLIENT//./\\.} > $F1$
out:^echo: id ours seq 1$" \
	seq_same probe_time_exceeded "$PROBE" echo "$TOPO_FAR1" 4002 1
# Record Route: the reply's options in its header, as received.
CMP_EXPECT="out:^ip options: 40 bytes, type 7 length 39 pointer 20$" \
	seq_same probe_ip_options "$PROBE" rr "$TOPO_ROUTER" 4008
CMP_EXPECT="out:^filtered: nothing$
out:^unfiltered: got$" seq_same probe_icmp_filter "$PROBE" filter "$TOPO_ROUTER" 4003
# A wrong checksum goes out as written, and no one answers it.
CMP_EXPECT="out:^send: ok 64$
out:^badsum: nothing$" seq_same probe_bad_checksum "$PROBE" badsum "$TOPO_ROUTER" 4004
CMP_EXPECT="out:^plain: ret 30 truncated 1$
out:^MSG_TRUNC: ret 84 truncated 1$" seq_same probe_truncated "$PROBE" trunc "$TOPO_ROUTER" 4005
CMP_EXPECT="out:^icmp: type 129 code 0 sum - len 64$" \
	seq_same probe_reply6 "$PROBE" echo "$TOPO6_ROUTER" 4006 0
CMP_EXPECT="out:^icmp: type 3 code 0 sum - len 112$
out:^echo: id ours seq 1$" \
	seq_same probe_time_exceeded6 "$PROBE" echo "$TOPO6_FAR1" 4007 1

# ---- two uids at the same host: each sees its own, and only that ----

# capture_start NAME / capture_stop NAME: tcpdump on the client's link.
# Not through a function: $! must be tcpdump itself (and a background
# job ignores SIGINT: it is stopped with SIGTERM).  --immediate-mode:
# without it a packet waits up to a second in the capture buffer, and
# the last ones are lost when tcpdump stops.
capture_start() {
	ip netns exec "$(ns_name dc)" tcpdump -Z root -n -i veth0 -U \
		--immediate-mode -w "$T/$1.pcap" icmp or icmp6 \
		2>"$T/$1.tcpdump" &
	CAPTURE_PID=$!
	for _ in $(seq 1 50); do
		grep -q listening "$T/$1.tcpdump" && return 0
		sleep 0.05
	done
	return 1
}
capture_stop() {
	sleep 0.3
	kill -TERM "$CAPTURE_PID" 2>/dev/null
	wait "$CAPTURE_PID" 2>/dev/null
	tcpdump -v -n -r "$T/$1.pcap" 2>/dev/null >"$T/$1.txt"
}

# isolated NAME TTL COUNT WHAT MIN: uids 65534 (ident 1111) and 65533
# (2222) on the emulation and root (3333) on the kernel's raw socket
# ping the same far host at once; WHAT is a line of tcpdump -v that
# each reply or error has, MIN times at least per identifier.
isolated() {
	local name=$LABEL/$1 ttl=$2 n=$3 what=$4 min=$5 why="" id out a b
	capture_start "$1" || why+="tcpdump did not start: $(cat "$T/$1.tcpdump") "
	as_raw 65534 "$PROBE" watch "$TOPO_FAR1" 1111 "$n" "$ttl" >"$T/$1.a" 2>&1 &
	a=$!
	as_raw 65533 "$PROBE" watch "$TOPO_FAR1" 2222 "$n" "$ttl" >"$T/$1.b" 2>&1 &
	b=$!
	ref "$PROBE" watch "$TOPO_FAR1" 3333 "$n" "$ttl" >"$T/$1.k" 2>&1
	wait "$a" "$b"
	capture_stop "$1"
	for id in 1111:a 2222:b; do
		out=$T/$1.${id#*:}
		grep -qx "ours $n foreign 0" "$out" ||
			why+="uid of ${id%:*}: $(tail -1 "$out") (want ours $n foreign 0) "
		! grep -v -e "^type [0-9]* id ${id%:*} seq" -e "^ours " "$out" | grep -q . ||
			why+="uid of ${id%:*} got: $(grep -v -e " id ${id%:*} " "$out" | head -3 | tr '\n' '|') "
		[ "$(grep -c "$what, id ${id%:*}, seq" "$T/$1.txt")" -ge "$min" ] ||
			why+="the wire has not $min ($what, id ${id%:*}): $(grep -c "$what, id ${id%:*}," "$T/$1.txt") "
	done
	# The kernel's raw socket sees them all: what the emulation hides.
	grep -q "foreign [1-9]" "$T/$1.k" ||
		why+="root's kernel raw socket saw no other identifier: $(tail -1 "$T/$1.k") "
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
}
isolated two_uids_replies 0 10 "ICMP echo reply" 10
# tcpdump -v shows the quoted request under each Time Exceeded: each
# request is on the wire twice, itself and quoted.
isolated two_uids_errors 1 5 "ICMP echo request" 10

# ---- refusals: the errno, and nothing on the wire ----

as_raw 65533 "$PROBE" hold "$TOPO_ROUTER" 5555 3 >"$T/hold.out" 2>&1 &
HOLD=$!
for _ in $(seq 1 40); do grep -q "send: ok" "$T/hold.out" && break; sleep 0.05; done
sleep 0.3	# its reply is in before the capture starts
capture_start refuse || fail "$LABEL/refusals" "tcpdump did not start"
ours "$PROBE" errnos "$TOPO_ROUTER" 5555 6666 >"$T/refuse.out" 2>&1
capture_stop refuse
kill "$HOLD" 2>/dev/null
wait "$HOLD" 2>/dev/null
want="timestamp request: EPERM
echo code 1: EPERM
echo reply: EPERM
IP_HDRINCL 1: EPERM
IP_HDRINCL 0: ok 0
held identifier: EADDRINUSE
identifier 0: EADDRINUSE
ICMP_FILTER: ok 0
ICMP_FILTER length 4
own identifier: ok 64
reply: got"
why=""
[ "$(head -11 "$T/refuse.out")" = "$want" ] ||
	why+="errnos: $(tr '\n' '|' <"$T/refuse.out") "
grep -q "send: ok 64" "$T/hold.out" || why+="uid 65533 could not hold 5555: $(cat "$T/hold.out") "
# On the wire: the one request allowed and its reply, nothing else.
pkts=$(grep -c ': ICMP' "$T/refuse.txt")
[ "$pkts" = 2 ] && [ "$(grep -c 'ICMP echo request, id 6666, seq 1' "$T/refuse.txt")" = 1 ] &&
	[ "$(grep -c 'ICMP echo reply, id 6666, seq 1' "$T/refuse.txt")" = 1 ] ||
	why+="the wire had $pkts ICMP packets: $(grep ': ICMP' "$T/refuse.txt" | head -4 | tr '\n' '|') "
if [ -z "$why" ]; then pass "$LABEL/refusals"; else fail "$LABEL/refusals" "$why"; fi

# ---- a program that clears its environment before its socket ----

# environ = NULL, then socket(): the shim read PINGSOCK_SOCKET and
# PINGSOCK_RAW when it was loaded (issue 18, item 2).
NOENV=$T/tests/lib/noenv
out=$(shimmed dc "$NOENV" dgram 127.0.0.1 2>&1)
if [ "$out" = reply ]; then pass "$LABEL/noenv_dgram"; else
	fail "$LABEL/noenv_dgram" "$out"; fi
out=$(shimmed dc env PINGSOCK_RAW=echo "$NOENV" raw 127.0.0.1 2>&1)
if [ "$out" = reply ]; then pass "$LABEL/noenv_raw"; else
	fail "$LABEL/noenv_raw" "$out"; fi

# ---- off: the kernel's EPERM stands ----

# Without PINGSOCK_RAW=echo, as if there were no emulation.
out=$(shimmed dc "$PROBE" socket inet 2>&1)
if [ "$out" = "socket: EPERM" ]; then pass "$LABEL/no_variable"; else
	fail "$LABEL/no_variable" "$out"; fi
# raw_compat not in the config (the default: no).
if shim_daemon_restart dc; then
	out=$(ours "$PROBE" socket inet 2>&1; ours "$PROBE" socket inet6 2>&1)
	if [ "$out" = "socket: EPERM
socket: EPERM" ]; then pass "$LABEL/policy_off"; else
		fail "$LABEL/policy_off" "$(echo "$out" | tr '\n' '|')"; fi
	# busybox says what it says without the shim.
	ref() { kernel dc "$@"; }
	CMP_REF="kernel (uid 65534, no shim)" CMP_EXPECT="err:^ping: permission denied \(are you root\?\)$" \
		same_rc 1 busybox_policy_off "${BB[@]}" ping -c 1 127.0.0.1
else
	fail "$LABEL/policy_off" "pingsockd restart: $(tail -2 "$T/dc.log" | tr '\n' '|')"
fi

# Both daemons stopped: no sanitizer report in their log (the sanitizer
# build's daemon reports leaks and errors there, at exit).
daemon_stop
if grep -q -e 'ERROR: [A-Za-z]*Sanitizer' -e 'runtime error:' "$T/dc.log"; then
	fail "$LABEL/daemon_log" "$(grep -m 3 -e Sanitizer -e 'runtime error' "$T/dc.log" | tr '\n' '|')"
else
	pass "$LABEL/daemon_log"
fi

ns_done
