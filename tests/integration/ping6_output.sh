#!/bin/bash
# SPDX-License-Identifier: ISC
# ping6_output - our ping against iputils' ping 20221126 over IPv6.
#
# As ping_output.sh (tests/lib/pingout.sh): both run as uid 65534 with
# the same arguments, side by side, and stdout, stderr (masked:
# RTTs, run time, -D stamps, the program's path, socket fds, a flow label
# the kernel picked) and the exit status are compared.  The reference is
# a capability-free copy of /usr/bin/ping in namespaces of its own whose
# ping_group_range is open, so that it takes the ping-socket path as
# ours does.
#
# PINGSOCK_BACKEND picks how ours gets its socket: kernel (default; its
# namespace's range is open) or daemon (range closed, pingsockd serves).
# Cases named in PING6_OUTPUT_EXCLUDE are not run.
#
# Each side has the same network of its own (no neighbour entry, path
# MTU or ICMP rate-limit bucket is shared):
#
#   peer  fd00:201::2 fe80::2 (veth0) -- (veth0) fd00:201::1 fe80::1  client
#   client va fd00:202::1 -- vb (no address): fd00:202::2 fails neighbour
#          discovery (Address unreachable, from the client itself), and
#          fd00:202::3, given a made-up neighbour, never answers
#   client fd00:203:1::2 (cli0) -- (rtr0) fd00:203:1::1 router
#          fd00:203:2::1 (rtr1) -- (far0) fd00:203:2::2-5 far, MTU 1280
#
# The router forwards without ICMPv6 rate limit; it has an unreachable
# route (No route), a prohibit route (Administratively prohibited) and a
# black hole where a forger answers requests to fd00:203:6::N with the
# ICMPv6 error N stands for.  The client's /etc/hosts (ip netns exec's
# /etc/netns) names ::1 localhost and ip6-localhost, 127.0.0.1 localhost,
# fd00:201::2 peer6, and both fd00:201::2 and 127.0.0.1 dual.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
CMP_REF=iputils CMP_OURS=ours
# shellcheck source-path=SCRIPTDIR source=../lib/compare.sh
. "$(dirname "$0")/../lib/compare.sh"

BACKEND=${PINGSOCK_BACKEND:-kernel}
LABEL=ping6_output${PING6_OUTPUT_LABEL:+_$PING6_OUTPUT_LABEL}
PINGOUT_EXCLUDE=${PING6_OUTPUT_EXCLUDE:-}
# shellcheck source-path=SCRIPTDIR source=../lib/pingout.sh
. "$(dirname "$0")/../lib/pingout.sh"

# compare.sh's mask, and what else varies here: the IPv6 socket's fd in
# the -v line, and with RANDOM_FLOW set the label that the kernel picks
# for -F 0 (or for a value that an int makes 0).
eval "cmp_$(declare -f mask)"
mask() {
	local flow='s/, flow 0x[0-9a-f]{5}, /, flow 0xF, /'
	[ -n "${RANDOM_FLOW:-}" ] || flow='s/^$//'
	cmp_mask "$1" | sed -E -e "$flow" \
		-e 's#^(ping: sock4\.fd: -?[0-9N]+ \(socktype: [A-Z_0]+\), sock6\.fd: )[0-9]+ #\1N #'
}

pingout_reference

# The hosts files live where ip netns exec looks for them; they go with
# the namespaces.
HOSTS_DIRS=()
trap 'rm -rf "${HOSTS_DIRS[@]}"; ns_cleanup' EXIT

# v6ns SHORT open|closed: addresses usable at once, and no link-local
# address but those given (fe80::1 and fe80::2 on each link).
v6ns() {
	ns_new "$1" "$2" &&
	in_ns "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.default.addr_gen_mode=1
}

# link6 NS1 IF1 NS2 IF2 [MTU]: a veth, fe80::1 on IF1, fe80::2 on IF2.
link6() {
	ip link add "$2" netns "$(ns_name "$1")" type veth peer name "$4" \
		netns "$(ns_name "$3")" &&
	in_ns "$1" ip addr add fe80::1/64 dev "$2" nodad &&
	in_ns "$3" ip addr add fe80::2/64 dev "$4" nodad &&
	if [ -n "${5:-}" ]; then
		in_ns "$1" ip link set "$2" mtu "$5" &&
		in_ns "$3" ip link set "$4" mtu "$5"
	fi &&
	in_ns "$1" ip link set "$2" up && in_ns "$3" ip link set "$4" up
}

addr6() { in_ns "$1" ip addr add "$3" dev "$2" nodad; }

# hosts SHORT: the client's names.
hosts() {
	local dir; dir=/etc/netns/$(ns_name "$1")
	HOSTS_DIRS+=("$dir")
	mkdir -p "$dir" && printf '%s\n' \
		'127.0.0.1	localhost' \
		'::1	localhost ip6-localhost ip6-loopback' \
		'fd00:201::2	peer6' \
		'fd00:201::2	dual' \
		'127.0.0.1	dual' >"$dir/hosts"
}

# topology N (client N, peer Np, router Ng, far Nf), client range MODE.
topology() {
	local n=$1 mode=$2
	v6ns "$n" "$mode" && v6ns "${n}p" closed && v6ns "${n}g" closed &&
	v6ns "${n}f" closed && hosts "$n" &&
	link6 "$n" veth0 "${n}p" veth0 &&
	addr6 "$n" veth0 fd00:201::1/64 && addr6 "${n}p" veth0 fd00:201::2/64 &&
	in_ns "$n" ip link add va type veth peer name vb &&
	addr6 "$n" va fd00:202::1/64 &&
	in_ns "$n" ip link set va up && in_ns "$n" ip link set vb up &&
	in_ns "$n" ip -6 neigh add fd00:202::3 lladdr 02:00:00:00:00:09 \
		dev va nud permanent &&
	link6 "${n}g" rtr0 "$n" cli0 &&
	addr6 "$n" cli0 fd00:203:1::2/64 && addr6 "${n}g" rtr0 fd00:203:1::1/64 &&
	link6 "${n}g" rtr1 "${n}f" far0 1280 &&
	addr6 "${n}g" rtr1 fd00:203:2::1/64 &&
	for a in 2 3 4 5; do addr6 "${n}f" far0 "fd00:203:2::$a/64" || return 1; done &&
	in_ns "$n" ip -6 route add fd00:203::/32 via fd00:203:1::1 &&
	in_ns "${n}f" ip -6 route add default via fd00:203:2::1 &&
	in_ns "$n" sysctl -qw net.ipv6.icmp.ratelimit=0 &&
	in_ns "${n}g" sysctl -qw net.ipv6.conf.all.forwarding=1 \
		net.ipv6.icmp.ratelimit=0 &&
	in_ns "${n}g" ip -6 route add unreachable fd00:203:9::/64 &&
	in_ns "${n}g" ip -6 route add prohibit fd00:203:7::/64 &&
	in_ns "${n}g" ip -6 route add blackhole fd00:203:6::/64
}

topology r open || { fail "$LABEL"/setup "reference namespaces"; ns_done; }
case $BACKEND in
kernel)	topology k open || { fail "$LABEL"/setup "our namespaces"; ns_done; } ;;
daemon)	topology k closed || { fail "$LABEL"/setup "our namespaces"; ns_done; }
	daemon_start k || { fail "$LABEL"/setup "pingsockd"; ns_done; } ;;
*)	fail "$LABEL"/setup "PINGSOCK_BACKEND=$BACKEND"; ns_done ;;
esac

# Over loopback.
CMP_EXPECT='out:^PING ::1\(::1\) 56 data bytes$' \
	same c3		-c 3 ::1
same forced	-6 -c 2 -i 0.2 ::1
same s1000	-c 2 -i 0.2 -s 1000 ::1
same quiet	-c 2 -q ::1
same i02	-c 3 -i 0.2 ::1
same s0		-c 2 -i 0.2 -s 0 ::1
same s8		-c 2 -i 0.2 -s 8 ::1		# below a timeval: no time=
same s16	-c 1 -s 16 ::1
same s65527	-c 1 -s 65527 ::1		# 65535 bytes back
# (The one case here of the default wait for a reply, 10 s, that ends
# a run in which none came: the others give -W 1.)
same s65528	-c 1 -s 65528 ::1		# too large: lost, no message
same pattern	-c 2 -i 0.2 -p ff ::1
same pattern_odd -c 1 -s 20 -p abc ::1
same deadline	-w 1 ::1
same timestamps	-c 2 -i 0.2 -D ::1
same audible	-c 2 -i 0.2 -a ::1
same latency	-c 2 -i 0.2 -U ::1
same all_flags	-c 1 -a -D -U -O ::1
same flood	-f -c 5 -i 0.002 ::1
same flood_quiet -f -q -c 3 -i 0.002 ::1
same flood_user	-f ::1
same flood_refused -i 0.001 ::1
same interval_2ms -c 2 -i 0.002 ::1
same preload	-l 3 -c 3 ::1
CMP_EXPECT='err:^ping: sock4\.fd: N \(socktype: SOCK_DGRAM\), sock6\.fd: N \(socktype: SOCK_DGRAM\), hints\.ai_family: AF_UNSPEC$' \
	same verbose	-v -c 2 -i 0.2 ::1
same verbose6	-6 -v -c 1 ::1
same hop_limit5	-c 1 -t 5 ::1
same hop_limit0	-c 1 -t 0 ::1
same bad_hop_limit -c 1 -t 256 ::1
same tclass	-c 1 -Q 0x10 ::1
same bad_tclass	-c 1 -Q 256 ::1
same pmtu_bad	-M foo ::1
versus pmtu_probe "-c 1 -M do ::1" -c 1 -M probe ::1
same ignored_rroute -c 1 -R ::1		# IPv4 options: no effect
same ignored_ts	-c 1 -T tsonly ::1
same ignored_broadcast -c 1 -b ::1

# Flow labels (-F): the kernel's flow label manager, through our socket.
CMP_EXPECT='out:^PING ::1\(::1\) , flow 0x12345, 56 data bytes$' \
	same flow	-c 1 -F 0x12345 ::1
same flow_decimal -c 1 -F 010 ::1		# decimal: 0x0000a
RANDOM_FLOW=1 CMP_EXPECT='out:, flow 0xF, ' \
	same flow_random -c 1 -F 0 ::1
RANDOM_FLOW=1 same flow_int_wrap -c 1 -F 4294967296 ::1	# an int: 0
same flow_too_big -c 1 -F 0x100000 ::1
same flow_negative -c 1 -F -1 ::1
same flow_garbage -c 1 -F 1x ::1
same flow_ipv4	-c 1 -F 5 127.0.0.1		# ignored for IPv4
# (A label lingers after its socket closes: each case has its own.)
CMP_EXPECT='out:^PING fd00:201::2\(fd00:201::2\) , flow 0x23456, from fd00:201::1 veth0: 56 data bytes$' \
	same flow_all	-c 1 -I veth0 -t 3 -F 0x23456 -Q 0x10 -M "do" fd00:201::2

# The peer, and link-local addresses.
same peer	-c 2 -i 0.2 fd00:201::2
CMP_EXPECT='out:^64 bytes from fe80::2%veth0: icmp_seq=1 ttl=64 time=T ms$' \
	same link_local	-c 2 -i 0.2 fe80::2%veth0
CMP_EXPECT='err:^ping: Warning: IPv6 link-local address on ICMP datagram socket may require ifname or scope-id' \
	same link_local_noscope -c 1 -W 1 fe80::2	# EINVAL: lost
same link_local_device -c 1 -I veth0 fe80::2	# "from :: veth0"
same link_local_source -c 1 -I fe80::1%veth0 fe80::2%veth0
same link_local_source_noscope -c 1 -I fe80::1 fe80::2%veth0
same device	-c 1 -I veth0 fd00:201::2
same device_lo	-c 1 -I lo ::1
same device_own	-c 1 -I veth0 fd00:201::1
same device_wrong -c 1 -I lo fd00:201::2
same source	-c 1 -I fd00:201::1 fd00:201::2
same source_device -c 1 -I fd00:201::1%veth0 fd00:201::2
same source_lo	-c 1 -I ::1 ::1
same source_any	-c 1 -I :: ::1
same source4_for6 -c 1 -I 127.0.0.1 ::1	# binds to the route's source
same source6_for4 -c 1 -I ::1 127.0.0.1
same source_any4 -c 1 -I 0.0.0.0 127.0.0.1
same bad_source	-c 1 -I fd00:9::9 ::1
same bad_source_text -c 1 -I 'zz::%veth0' ::1
same bad_device	-c 1 -I nosuch0 ::1
same bad_scope_device -c 1 -I 'fe80::1%nosuch' fe80::2%veth0
same bad_source_device -c 1 -I 'fd00:201::1%nosuch' fd00:201::2
same no_route	-c 1 fd00:99::1
# All nodes: this host answers first, then the peer (no (DUP!) unless -v).
same multicast	-c 2 ff02::1%veth0
same multicast_device -c 2 -I veth0 ff02::1
same multicast_verbose -c 2 -I veth0 -v ff02::1
same multicast_interval -c 2 -i 0.5 -I veth0 ff02::1
same multicast_fragment -c 1 -M want ff02::1%veth0

# Errors from this host.
CMP_EXPECT='out:^From fd00:202::1 icmp_seq=2 Destination unreachable: Address unreachable$' \
	same addr_unreachable -c 2 -i 0.2 fd00:202::2
same no_reply	-c 1 -W 1 fd00:202::3
same no_reply_deadline -w 2 fd00:202::3
same outstanding -c 2 -i 0.3 -W 1 -O fd00:202::3
same outstanding_stamped -c 2 -i 0.3 -W 1 -O -D fd00:202::3

# Through the router, and its errors.
CMP_EXPECT='out:^64 bytes from fd00:203:2::2: icmp_seq=2 ttl=63 time=T ms$' \
	same far	-c 2 -i 0.2 fd00:203:2::2
CMP_EXPECT='out:^From fd00:203:1::1 icmp_seq=2 Time exceeded: Hop limit$' \
	same hop_exceeded -c 2 -i 0.2 -t 1 fd00:203:2::2
same hop_exceeded_stamped -c 1 -D -t 1 fd00:203:2::2
same hop_exceeded_verbose -v -c 1 -t 1 fd00:203:2::2
same hop_exceeded_quiet -c 2 -i 0.2 -q -t 1 fd00:203:2::2
same hop_exceeded_flood -f -c 3 -i 0.01 -t 1 fd00:203:2::2
same hop_exceeded_preload -l 3 -c 3 -i 0.3 -t 1 -W 1 fd00:203:2::2
CMP_EXPECT='out:^From fd00:203:1::1 icmp_seq=1 Destination unreachable: No route$' \
	same no_route_router -c 2 -i 0.2 fd00:203:9::1
CMP_EXPECT='out:Destination unreachable: Administratively prohibited$' \
	same prohibited -c 1 fd00:203:7::1
same addr_unreachable_router -c 2 -i 0.2 fd00:203:2::99
CMP_EXPECT='out:^From fd00:203:1::1 icmp_seq=1 Packet too big: mtu=1280$
err:^ping: local error: message too long, mtu: 1280$' \
	same pmtu_do	-c 3 -i 0.2 -M "do" -s 1400 fd00:203:2::3
same pmtu_want	-c 2 -i 0.2 -M want -s 1400 fd00:203:2::4
same pmtu_dont	-c 2 -i 0.2 -M dont -s 1400 fd00:203:2::5

# Names.  iputils resolves for both families whatever -4/-6 say, skips
# the addresses of the other, and takes the name of a later address from
# its (empty) canonical name: "PING  (127.0.0.1)".
CMP_EXPECT='out:^PING localhost\(localhost \(::1\)\) 56 data bytes$' \
	same name	-c 2 -i 0.2 localhost
same name6	-6 -c 1 localhost
CMP_EXPECT='out:^PING  \(127\.0\.0\.1\) 56\(84\) bytes of data\.$' \
	same name4	-4 -c 1 localhost
same name4_verbose -4 -v -c 1 localhost
same ip6_localhost -c 1 ip6-localhost
same ip6_localhost4 -4 -c 1 ip6-localhost	# no IPv4 address for it
same numeric	-c 1 -n ip6-localhost
same dual	-c 1 dual
same dual4	-4 -c 1 dual
same dual6_verbose -6 -v -c 1 dual
same name_verbose -v -c 1 peer6
same name_device -c 1 -I veth0 peer6
same name_source -c 1 -I fd00:201::1 peer6

# Bad input.
same v4_for_6	-6 -c 1 127.0.0.1
same v6_for_4	-4 -c 1 ::1
same both_families -4 -6 ::1
same both_families_6 -6 -4 ::1
same unknown_host -6 nosuchhost.invalid
same unknown_host_any nosuchhost.invalid
usage hops	-c 1 ::1 ::1
usage help	-h
usage hops_prespec -c 1 -T tsprespec ::1 ::1

# Issue 18: the rest of iputils 20221126's options, over IPv6.
quick adaptive 1000 -c 5 -A ::1			# ipg/ewma, 2 ms apart
same adaptive_quiet -c 3 -q -A ::1
same sticky	-c 1 -B ::1			# "from ::1 :"
same sticky_peer -c 1 -B fd00:201::2
same sticky_device -c 1 -B -I veth0 fd00:201::2
same connect	-c 2 -i 0.2 -C ::1		# iputils connects IPv4 only
same connect_source -c 1 -C -I ::1 ::1
same debug	-c 1 -d ::1
traced debug_refused 'SO_DEBUG' -c 1 -d ::1
same ident	-c 1 -e 77 ::1
same ident_verbose -v -c 2 -i 0.2 -e 77 ::1	# " ident=77"
same ident_peer -c 1 -e 77 fd00:201::2
same ident_raw	-c 1 -e 0 ::1
same ident_raw6	-6 -c 1 -e 0 ::1
same ident_raw_verbose -6 -v -c 1 -e 0 ::1
# -L: this host no longer answers its own group requests; the peer does.
same noloop	-c 2 -L ff02::1%veth0
same noloop_device -c 2 -L -I veth0 ff02::1
same noloop_unicast -c 1 -L ::1
same mark	-c 1 -m 5 ::1			# the probe's and the socket's
same mark_source -c 1 -m 5 -I ::1 ::1		# no probe: once
# -N: iputils' node information options, then the raw socket it needs.
same nodeinfo	-c 1 -N name ::1
same nodeinfo6	-6 -c 1 -N fqdn ::1
same nodeinfo_verbose -v -c 1 -N ipv6-all ::1
same nodeinfo_flags -c 1 -N ipv6-global -N ipv6-linklocal ::1
same nodeinfo_help -N help ::1			# stdout, status 0
same nodeinfo_help_later -N name -N help ::1
same nodeinfo_bad -N nosuch ::1			# the list on stderr, 2
same nodeinfo_prefix -N namex ::1
same nodeinfo_no_value -N subject-name ::1
same nodeinfo_qtype_conflict -N name -N ipv4 ::1
same nodeinfo_subject_conflict -N subject-ipv4=127.0.0.1 -N subject-name=peer6 ::1
same nodeinfo_subject6 -c 1 -N subject-ipv6=fd00:201::2 ::1
same nodeinfo_subject6_family -N subject-ipv6=127.0.0.1 ::1
same nodeinfo_subject4_family -N subject-ipv4=::1 ::1
same nodeinfo_subject_unknown -N subject-ipv6=nosuch.invalid ::1
same nodeinfo_name -c 1 -N subject-name=Peer6.Example ::1
same nodeinfo_name_scope -c 1 -N subject-fqdn=peer6%veth0 ::1
same nodeinfo_name_long_scope -N subject-name=a%abcdefghijklmnop ::1
same nodeinfo_name_empty_label -N subject-name=a..b ::1
same nodeinfo_name_hyphen -N subject-name=a.-b ::1
same nodeinfo_name_hyphens -N subject-name=ab--cd ::1
same nodeinfo_name_long_label -N "subject-name=$(printf 'a%.0s' {1..64})" ::1
same nodeinfo_name_long -N "subject-name=$(printf 'abcdefg.%.0s' {1..32})" ::1
same nodeinfo_then_count -N name -c 0 ::1	# the options still in order
# -r: IPv6 ignores SO_DONTROUTE: the far host is reached.
same dontroute	-c 1 -r ::1
same dontroute_far -c 2 -i 0.2 -r fd00:203:2::2
same sndbuf	-c 1 -S 5000 ::1
traced sndbuf_set 'SO_SNDBUF, \[5000\]' -c 1 -S 5000 ::1
same all_new	-c 2 -i 0.2 -A -B -C -d -e 4321 -L -m 1 -r -S 9000 ::1

# Signals: SIGQUIT's status line (stderr), SIGINT's summary.
signals sigint "INT@1.25" -i 0.5 ::1
signals sigquit_sigint "QUIT@0.75 INT@1.25" -i 0.5 ::1
signals sigint_no_reply "INT@1.25" -i 0.5 fd00:202::3

# The rest of iputils' ICMPv6 texts, from errors forged by the router for
# requests to fd00:203:6::N: N = 0x100 + code for Destination
# Unreachable, 0x200/0x201 Packet Too Big (mtu 1280) with code 0/1,
# 0x300 + code Time Exceeded, 0x400 + code Parameter Problem (pointer
# 40), 0x500, 0x600, 0x601 error types 5, 100 and 127 (code 3).
# fd00:203:6::700 answers Echo Requests whose identifier is 4242, and no
# other (for -e), from its own address (IPV6_FREEBIND).
forger='
import socket, struct, sys
raw = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
raw.setsockopt(socket.IPPROTO_IPV6, 78, 1)	# IPV6_FREEBIND
cap = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x86dd))
cap.bind((sys.argv[1], 0x86dd))
prefix = socket.inet_pton(socket.AF_INET6, "fd00:203:6::")[:8]
kinds = {0x100 + c: (1, c, 0) for c in range(8)}
kinds.update({0x200: (2, 0, 1280), 0x201: (2, 1, 1280)})
kinds.update({0x300 + c: (3, c, 0) for c in range(3)})
kinds.update({0x400 + c: (4, c, 40) for c in range(4)})
kinds.update({0x500: (5, 0, 0), 0x600: (100, 0, 0), 0x601: (127, 3, 0)})
print("ready", flush=True)
while True:
    pkt = cap.recv(65536)
    if len(pkt) < 48 or pkt[6] != 58 or pkt[40] != 128 or pkt[24:32] != prefix:
        continue
    n = struct.unpack("!H", pkt[38:40])[0]
    if n == 0x700 and pkt[44:46] == struct.pack("!H", 4242):
        src = pkt[24:40] + struct.pack("@I", 0)
        raw.sendmsg([bytes([129, 0, 0, 0]) + pkt[44:]],
                    [(socket.IPPROTO_IPV6, socket.IPV6_PKTINFO, src)], 0,
                    (socket.inet_ntop(socket.AF_INET6, pkt[8:24]), 0))
    if n not in kinds:
        continue
    t, c, rest = kinds[n]
    msg = struct.pack("!BBHI", t, c, 0, rest) + pkt[:1280 - 48]
    raw.sendto(msg, (socket.inet_ntop(socket.AF_INET6, pkt[8:24]), 0))
'
if command -v python3 >/dev/null; then
	pingout_helper forger g "$forger" rtr0
	for code in 0 1 2 3 4 5 6 7; do	# 5-7: "Unknown code N"
		same unreach_code$code -c 1 -W 3 fd00:203:6::10$code
	done
	same too_big	-c 1 -W 3 fd00:203:6::200
	same too_big_code -c 1 -W 3 fd00:203:6::201	# ", code=1"
	for code in 0 1 2; do
		same time_exceeded_code$code -c 1 -W 3 fd00:203:6::30$code
	done
	for code in 0 1 2 3; do
		same param_problem_code$code -c 1 -W 3 fd00:203:6::40$code
	done
	same error_type5 -c 1 -W 3 fd00:203:6::500	# "unknown icmp type: 5"
	same error_type100 -c 1 -W 3 fd00:203:6::600
	same error_type127 -c 1 -W 3 fd00:203:6::601
	same forged_stamped -c 2 -i 0.2 -D fd00:203:6::101
	same forged_flood -c 1 -f fd00:203:6::101
	same forged_quiet -c 1 -q fd00:203:6::101
	# -e: the socket's identifier, so the requests carry it.
	same ident_answered -c 1 -W 3 -e 4242 fd00:203:6::700
	same ident_unanswered -c 1 -W 1 -e 4243 fd00:203:6::700
	same ident_answered_verbose -v -c 1 -W 3 -e 4242 fd00:203:6::700
else
	skip "$LABEL"/forged_errors "no python3 to forge errors"
fi

# Duplicates: a raw socket (as root) answers each reply once more, but
# the last's (sequence 3): see ping_output.sh.
if command -v python3 >/dev/null; then
	dupper='
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
seen = set()
print("ready", flush=True)
while True:
    pkt, addr = s.recvfrom(65536)
    if len(pkt) >= 8 and pkt[0] == 129 and pkt[4:8] not in seen and \
            pkt[6:8] != b"\x00\x03":
        seen.add(pkt[4:8])
        s.sendto(pkt, (addr[0], 0))
'
	pingout_helper dup "" "$dupper"
	CMP_EXPECT='out:^64 bytes from ::1: icmp_seq=1 ttl=64 time=T ms \(DUP!\)$' \
		same duplicates -c 3 -i 0.3 ::1	# "+2 duplicates"
	same duplicates_quiet -c 3 -i 0.3 -q ::1
else
	skip "$LABEL"/duplicates "no python3 to make duplicates"
fi

ns_done
