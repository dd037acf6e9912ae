#!/bin/bash
# SPDX-License-Identifier: ISC
# ping_output - our ping against iputils' ping 20221126, line by line.
#
# Both run as uid 65534 with the same arguments; stdout and stderr are
# compared separately after masking what legitimately varies (RTTs, the
# run's duration, -D stamps, the program's path in error messages), and
# so is the exit status.  The reference is a copy of /usr/bin/ping (cp
# drops its file capability, so it takes the ping-socket path) run in a
# namespace of its own whose ping_group_range is open.
#
# PINGSOCK_BACKEND picks how ours gets its socket: kernel (default; its
# namespace's range is open) or daemon (range closed, pingsockd serves).
. "$(dirname "$0")/../lib/netns.sh"
# mask and compare (DIR/{ours,ref}.{out,err,rc}); compare.sh's same is
# replaced by pingout.sh's, which runs the two side by side.
CMP_REF=iputils CMP_OURS=ours
# shellcheck source-path=SCRIPTDIR source=../lib/compare.sh
. "$(dirname "$0")/../lib/compare.sh"

BACKEND=${PINGSOCK_BACKEND:-kernel}
LABEL=ping_output${PING_OUTPUT_LABEL:+_$PING_OUTPUT_LABEL}
# Cases named in PING_OUTPUT_EXCLUDE are not run (for a backend still
# missing what they need; the caller says which and why).
PINGOUT_EXCLUDE=${PING_OUTPUT_EXCLUDE:-}
# shellcheck source-path=SCRIPTDIR source=../lib/pingout.sh
. "$(dirname "$0")/../lib/pingout.sh"
pingout_reference

ns_new r open || { fail $LABEL/setup "ip netns add"; ns_done; }
case $BACKEND in
kernel)	ns_new k open ;;
daemon)	ns_new k closed
	daemon_start k || { fail $LABEL/setup "pingsockd"; ns_done; } ;;
*)	fail $LABEL/setup "PINGSOCK_BACKEND=$BACKEND"; ns_done ;;
esac

# In both namespaces: 10.202.0.1/24 on a veth whose peer has no address,
# so 10.202.0.2 fails ARP (Destination Host Unreachable, from ourselves)
# and 10.202.0.3, given a made-up neighbour, is sent to and never answers.
for n in r k; do
	in_ns $n ip link add va type veth peer name vb &&
	in_ns $n ip addr add 10.202.0.1/24 dev va &&
	in_ns $n ip link set va up && in_ns $n ip link set vb up &&
	in_ns $n ip neigh add 10.202.0.3 lladdr 02:00:00:00:00:09 dev va \
		nud permanent || { fail $LABEL/setup "veth in $n"; ns_done; }
done

# Behind each: a router and a far host, for the errors routers send.
#   client 10.203.1.2 (cli0) -- (rtr0) 10.203.1.1 router 10.203.2.1
#   (rtr1) -- (far0) 10.203.2.2-5 far, MTU 1280 on that link.
# The router answers broadcasts (the client too: -b hears two hosts),
# forwards without ICMP rate limit, and has an unreachable (Destination
# Host Unreachable), a prohibit (Packet filtered) and no route at all
# (Destination Net Unreachable) for some nets: those three are limited
# per source by ip_error()'s bucket of 5 (one back a second) that no
# sysctl of a namespace changes, so they are used for 5 errors in all.
# icmp_ratemask=0, not icmp_ratelimit=0: icmp_send()'s own per-source
# limiter keeps its tokens in the same inet_peer, and with a limit of 0
# it sets them to 0 whenever a jiffy has passed since their last update
# (6.18): a tick between ip_error() and icmp_send() did so about once in
# 500 errors (a CI run lost the second Destination Host Unreachable of
# -c 2 -i 0.2), and any error of another kind emptied the bucket.  With
# the mask empty neither that limiter nor the global one is consulted.
# 10.203.6.N is a black hole where a forger answers each request with
# the ICMP error N stands for (see below).
# Each client has its own router: no bucket or path MTU is shared.
for n in r k; do
	ns_new ${n}g closed && ns_new ${n}f closed &&
	ns_veth $n ${n}g 10.203.1.2/24 10.203.1.1/24 cli0 rtr0 &&
	ns_veth ${n}g ${n}f 10.203.2.1/24 10.203.2.2/24 rtr1 far0 &&
	in_ns ${n}g ip link set rtr1 mtu 1280 &&
	in_ns ${n}f ip link set far0 mtu 1280 &&
	for a in 3 4 5; do in_ns ${n}f ip addr add 10.203.2.$a/24 dev far0; done &&
	in_ns $n ip route add 10.203.0.0/16 via 10.203.1.1 &&
	in_ns ${n}f ip route add default via 10.203.2.1 &&
	in_ns ${n}g sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.icmp_ratemask=0 \
		net.ipv4.icmp_echo_ignore_broadcasts=0 &&
	in_ns $n sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0 &&
	in_ns ${n}g ip route add unreachable 10.203.9.0/24 &&
	in_ns ${n}g ip route add prohibit 10.203.7.0/24 &&
	in_ns ${n}g ip route add blackhole 10.203.6.0/24 ||
		{ fail $LABEL/setup "router for $n"; ns_done; }
done

# The issue's cases.
same c3		-c 3 127.0.0.1
same c2_quiet	-c 2 -q 127.0.0.1
same s0		-c 2 -i 0.2 -s 0 127.0.0.1
same s8		-c 2 -i 0.2 -s 8 127.0.0.1	# below a timeval: no time=
same s15	-c 1 -s 15 127.0.0.1
same s16	-c 1 -s 16 127.0.0.1		# the first size with time=
same s1000	-c 2 -i 0.2 -s 1000 127.0.0.1
same pattern_ff	-c 2 -i 0.2 -p ff 127.0.0.1
same pattern_odd -c 1 -s 20 -p abc 127.0.0.1	# "0xab0c"
same pattern_quiet -c 1 -q -p 0102 127.0.0.1
same ttl5	-c 1 -t 5 127.0.0.1
same deadline_w1 -w 1 127.0.0.1
same name	-c 2 -i 0.2 localhost
same numeric	-c 2 -i 0.2 -n localhost
same addr_spelling -c 1 127.1
same source_addr -c 1 -I 127.0.0.1 127.0.0.1
same device_lo	-c 1 -I lo 127.0.0.1
same tos	-c 1 -Q 0x10 127.0.0.1
same timestamps	-c 2 -i 0.2 -D 127.0.0.1
same no_reply	-c 1 -W 1 10.202.0.3
same no_reply_deadline -w 2 10.202.0.3
same host_unreachable -c 2 -i 0.2 10.202.0.2	# "+2 errors", "pipe 2"
same msgsize	-c 1 -s 65508 127.0.0.1		# local error, mtu=65535
same flood_refused -i 0.001 127.0.0.1
same interval_2ms -c 2 -i 0.002 127.0.0.1

# Bad values: wording and exit status (1 for the integer options).
same bad_count	-c x 127.0.0.1
same bad_count0	-c 0 127.0.0.1
same bad_count_range -c 99999999999999999999 127.0.0.1
same bad_size	-s -1 127.0.0.1
same bad_ttl	-t 256 127.0.0.1
same ttl0	-c 1 -t 0 127.0.0.1
same bad_deadline -w x 127.0.0.1
same bad_linger	-W -1 127.0.0.1
same garbage_interval -c 1 -i 1x 127.0.0.1	# a warning, then it runs
same bad_interval -c 1 -i inf 127.0.0.1
same bad_pattern -p 12zz 127.0.0.1
same bad_tos	-Q 256 127.0.0.1
same bad_tos_text -Q x 127.0.0.1
same no_destination
same unknown_host nosuchhost.invalid
same bad_device	-I nosuchif0 127.0.0.1
same bad_source	-I 10.9.9.9 127.0.0.1

# Usage errors: the same complaint, status and usage text (iputils'
# whole list of options, and our -X).
usage usage_error -Z 127.0.0.1
usage help	-h
usage help_long	--help			# getopt: "invalid option -- '-'"
version version

# Signals: SIGQUIT's status line (stderr), SIGINT's summary.
signals sigint "INT@1.25" -i 0.5 127.0.0.1
signals sigquit_sigint "QUIT@0.75 INT@1.25" -i 0.5 127.0.0.1
signals sigint_no_reply "INT@1.25" -i 0.5 10.202.0.3

# Errors from the router.  The unreachable ones: ip_error()'s bucket of
# 5 for this source (see the router's set-up), 5 errors in all.
same host_unreachable_router -c 2 -i 0.2 10.203.9.1
same net_unreachable -c 2 -i 0.2 10.203.8.1
same packet_filtered -c 1 10.203.7.1
same ttl_exceeded -c 2 -i 0.2 -t 1 10.203.2.2
same ttl_exceeded_stamped -c 1 -D -t 1 10.203.2.2
same ttl_exceeded_verbose -4 -v -c 1 -t 1 10.203.2.2

# Issue 5: the other options.
same audible	-c 2 -i 0.2 -a 127.0.0.1	# a BEL before each newline
same latency	-c 2 -i 0.2 -U 127.0.0.1
same outstanding -c 2 -i 0.3 -W 1 -O 10.202.0.3
same outstanding_stamped -c 2 -i 0.3 -W 1 -O -D 10.202.0.3
same all_flags	-c 1 -a -D -U -O 127.0.0.1
# -v: iputils -4's debugging lines (this ping has no IPv6 socket).
same verbose	-4 -v -c 2 -i 0.2 127.0.0.1
same verbose_name -4 -v -c 1 localhost
same flood_user	-f 127.0.0.1			# needs -i 0.002 or more
same flood	-f -c 5 -i 0.002 127.0.0.1	# ".\b \b" and ipg/ewma
same flood_quiet -f -q -c 3 -i 0.002 127.0.0.1
same flood_audible -f -a -c 2 -i 0.01 127.0.0.1
same flood_errors -f -c 3 -i 0.01 -t 1 10.203.2.2	# ".\bE"
same preload	-l 3 -c 3 127.0.0.1		# all at once: "pipe 3"
same preload_user -l 4 127.0.0.1
same preload_range -l 0 127.0.0.1
# Errors read while sending: the send after one fails with it, and
# iputils reports the error, then "sendmsg: No route to host".  (-W 1
# here and below: no reply comes, and the default wait for one, 10 s,
# has a case of its own in ping6_output.sh, s65528.)
same preload_errors -l 3 -c 3 -i 0.3 -t 1 -W 1 10.203.2.2
same pmtu_bad	-M foo 127.0.0.1
same pmtu_want	-c 2 -i 0.2 -M want -s 1300 10.203.2.3	# error, then fragments
same pmtu_do	-c 2 -i 0.2 -M do -s 1300 10.203.2.2	# error, then local error
same pmtu_dont	-c 2 -i 0.2 -M dont -s 1300 10.203.2.2
versus pmtu_probe "-c 1 -M do 127.0.0.1" -c 1 -M probe 127.0.0.1
same rroute	-c 2 -i 0.2 -R 10.203.2.2	# "RR:", then "(same route)"
same rroute_lo	-c 1 -R 127.0.0.1
same rroute_name -c 1 -R localhost
same rroute_quiet -c 1 -q -R 10.203.2.2
same rroute_audible -c 1 -a -R 127.0.0.1	# the BEL before "RR:"
same ts_only	-c 2 -i 0.2 -T tsonly 10.203.2.2
same ts_addr	-c 1 -T tsandaddr 10.203.2.2	# "Unrecorded hops: 2"
same ts_prespec	-c 1 -T tsprespec 10.203.1.1 10.203.2.2
same ts_prespec4 -c 1 -T tsprespec 127.0.0.1 127.0.0.2 127.0.0.3 \
	127.0.0.4 127.0.0.1
same ts_prespec_host -c 1 -T tsprespec nosuch.invalid 127.0.0.1
same ts_bad	-T foo 127.0.0.1
same rroute_ts	-R -T tsonly 127.0.0.1
same ts_rroute	-T tsonly -R 127.0.0.1
usage rroute_hosts -c 1 -R 127.0.0.1 127.0.0.1
usage ts_hosts	-c 1 -T tsonly 127.0.0.1 127.0.0.1
usage ts_prespec_many -c 1 -T tsprespec 127.0.0.1 127.0.0.1 127.0.0.1 \
	127.0.0.1 127.0.0.1 127.0.0.1
same broadcast_refused -c 1 10.203.1.255
same broadcast	-b -c 2 10.203.1.255		# this host, then the router
same broadcast_verbose -4 -b -v -c 2 10.203.1.255	# (DUP!) with -v only
same broadcast_interval -b -i 0.5 10.203.1.255
same broadcast_fragment -b -M want 10.203.1.255
same broadcast_unicast -b -c 1 127.0.0.1


# The rest of iputils' table, from errors forged by the router for
# requests to 10.203.6.N: N = 100 + code for Destination Unreachable
# (code 4 with MTU 1000), 50 + code for Redirect (new gateway
# 10.203.1.5), 40 Source Quench, 41 Parameter Problem (pointer 20),
# 42 Time Exceeded.  (The kernel drops the other types and codes.)
# 10.203.6.200 answers Echo Requests whose identifier is 4242, and no
# other (for -e).
forger='
import socket, struct, sys
def csum(b):
    b += bytes(len(b) % 2)
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
hdr = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
cap = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x800))
cap.bind((sys.argv[1], 0x800))
gw = struct.unpack("!I", socket.inet_aton("10.203.1.5"))[0]
kinds = {40: (4, 0, 0), 41: (12, 0, 20 << 24), 42: (11, 0, 0)}
kinds.update({50 + c: (5, c, gw) for c in range(5)})
kinds.update({100 + c: (3, c, 1000 if c == 4 else 0) for c in range(16)})
print("ready", flush=True)
while True:
    pkt = cap.recv(65536)
    hl = (pkt[0] & 15) * 4
    if len(pkt) < hl + 8 or pkt[hl] != 8 or pkt[16:19] != bytes([10, 203, 6]):
        continue
    if pkt[19] == 200 and pkt[hl + 4:hl + 6] == struct.pack("!H", 4242):
        rep = bytearray(pkt[hl:])
        rep[0], rep[2:4] = 0, b"\0\0"
        rep[2:4] = struct.pack("!H", csum(bytes(rep)))
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 0, 0, 0, 64, 1, 0,
                         pkt[16:20], pkt[12:16])
        hdr.sendto(ip + bytes(rep), (socket.inet_ntoa(pkt[12:16]), 0))
    if pkt[19] not in kinds:
        continue
    t, c, rest = kinds[pkt[19]]
    msg = struct.pack("!BBHI", t, c, 0, rest) + pkt[:hl + 8]
    msg = msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]
    raw.sendto(msg, (socket.inet_ntoa(pkt[12:16]), 0))
'
if command -v python3 >/dev/null; then
	pingout_helper forger g "$forger" rtr0
	for code in $(seq 0 15); do
		same unreach_code$code -c 1 -W 3 10.203.6.$((100 + code))
	done
	for code in 0 1 2 3 4; do	# 4: "Redirect, Bad Code: 4"
		same redirect_code$code -c 1 -W 3 10.203.6.$((50 + code))
	done
	same source_quench -c 1 -W 3 10.203.6.40
	same parameter_problem -c 1 -W 3 10.203.6.41
	same time_exceeded_forged -c 1 -W 3 10.203.6.42
	same redirect_stamped -c 2 -i 0.2 -D 10.203.6.51
	same redirect_flood -c 1 -f 10.203.6.51
	same unreach_quiet -c 1 -q 10.203.6.101
	# -e: the identifier is the socket's (bound as its port), so the
	# requests carry it and 10.203.6.200 answers 4242 only.
	same ident_answered -c 1 -W 3 -e 4242 10.203.6.200
	same ident_unanswered -c 1 -W 1 -e 4243 10.203.6.200
	same ident_answered_verbose -4 -v -c 1 -W 3 -e 4242 10.203.6.200
else
	skip $LABEL/forged_errors "no python3 to forge errors"
fi

# Issue 18: the rest of iputils 20221126's options.
# -A: the interval follows the RTT (2 ms at least for users), and the
# summary adds ipg/ewma; without it five requests would take 4 s.
quick adaptive 1000 -c 5 -A 127.0.0.1
same adaptive_quiet -c 3 -q -A 127.0.0.1
same adaptive_no_reply -c 2 -W 1 -A 10.202.0.3	# stays at 1 s: no RTT
same adaptive_flood -f -A 127.0.0.1		# still needs -i 0.002
# -B: bind to the source the route chose ("from ... :" in the header).
same sticky	-c 1 -B 127.0.0.1
same sticky_device -c 1 -B -I lo 127.0.0.2	# from 127.0.0.1 lo
same sticky_name -c 1 -B localhost
# -C: connect() the socket to where the route probe connected.  With
# -I ADDRESS (no probe) iputils passes an address it never filled in,
# and fails or not as its stack has it; ours connects where the probe
# would have, as iputils does with -B (the same header).
same connect	-c 2 -i 0.2 -C 127.0.0.1
same connect_any -c 1 -C 0.0.0.0
same connect_far -c 1 -C 10.203.2.2
same connect_prespec -c 1 -C -T tsprespec 10.203.1.1 10.203.2.2
versus connect_source "-c 1 -C -B 127.0.0.1" -c 1 -C -I 127.0.0.1 127.0.0.1
versus connect_source_unroutable "-c 1 -C -r -B 10.203.2.2" \
	-c 1 -C -r -I 10.203.1.2 10.203.2.2
same connect_unroutable -c 1 -C -r 10.203.2.2	# "connect failed"
# -d: SO_DEBUG, which needs CAP_NET_ADMIN: refused, and nothing said.
same debug	-c 1 -d 127.0.0.1
traced debug_refused 'SO_DEBUG' -c 1 -d 127.0.0.1
# -e: the identifier; 0 would need a raw socket, refused as without
# CAP_NET_RAW (the wire's identifier: the forger's 10.203.6.200 below).
same ident	-c 1 -e 77 127.0.0.1
same ident_verbose -4 -v -c 2 -i 0.2 -e 77 127.0.0.1	# " ident=77"
same ident_max	-c 1 -e 65535 127.0.0.1
same ident_range -c 1 -e 65536 127.0.0.1
same ident_negative -c 1 -e -1 127.0.0.1
same ident_garbage -c 1 -e 7x 127.0.0.1
same ident_empty -c 1 -e '' 127.0.0.1
same ident_raw	-c 1 -e 0 127.0.0.1
same ident_raw4	-4 -c 1 -e 0 127.0.0.1
same ident_raw_verbose -v -c 1 -e 0 127.0.0.1
same ident_raw_after -c 1 -e 5 -e 0 127.0.0.1
# -L: no loopback of our multicast requests, so this host does not
# answer them; the router still does.
same multicast	-c 2 -I cli0 224.0.0.1		# this host, then the router
same noloop	-c 2 -L -I cli0 224.0.0.1	# the router only
same noloop_unicast -c 1 -L 127.0.0.1
# -m: SO_MARK needs CAP_NET_ADMIN: a warning for the route probe's and
# the ping socket's, and on.
same mark	-c 1 -m 5 127.0.0.1
same mark_source -c 1 -m 5 -I 127.0.0.1 127.0.0.1	# no probe: once
same mark_zero	-c 1 -m 0 127.0.0.1
same mark_max	-c 1 -m 4294967295 127.0.0.1
same mark_range	-c 1 -m 4294967296 127.0.0.1
same mark_negative -c 1 -m -1 127.0.0.1
# -N: node information queries are ICMPv6's and need a raw socket.
same nodeinfo	-c 1 -N name 127.0.0.1
same nodeinfo4	-4 -c 1 -N ipv4 127.0.0.1
same nodeinfo_help -N help 127.0.0.1
same nodeinfo_bad -N nosuch 127.0.0.1
# -r: SO_DONTROUTE routes IPv4 on-link only: the router answers, the far
# host behind it is not reached (no message, 100% loss).
same dontroute	-c 1 -r 127.0.0.1
same dontroute_link -c 1 -r 10.203.1.1
same dontroute_far -c 2 -i 0.2 -r -W 1 10.203.2.2
same dontroute_far_verbose -4 -v -c 1 -r -W 1 10.203.2.2
# -S: SO_SNDBUF's value instead of iputils' estimate.
same sndbuf	-c 1 -S 5000 127.0.0.1
traced sndbuf_set 'SO_SNDBUF, \[(5000|1)\]' -c 1 -S 5000 127.0.0.1
traced sndbuf_small 'SO_SNDBUF, \[(5000|1)\]' -c 1 -S 1 127.0.0.1
same sndbuf_zero -c 1 -S 0 127.0.0.1
same sndbuf_range -c 1 -S 2147483648 127.0.0.1
same sndbuf_garbage -c 1 -S 1k 127.0.0.1
# All of them at once.
same all_new	-c 2 -i 0.2 -A -B -C -d -e 4321 -L -m 1 -r -S 9000 127.0.0.1

# Duplicates: a raw socket (as root) answers each reply once more, but
# the last's (sequence 3): whether that copy came before ping ended was
# a race between the two processes, on each side on its own.
if command -v python3 >/dev/null; then
	dupper='
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
seen = set()
print("ready", flush=True)
while True:
    pkt, addr = s.recvfrom(65536)
    icmp = pkt[(pkt[0] & 15) * 4:]
    if len(icmp) >= 8 and icmp[0] == 0 and icmp[4:8] not in seen and \
            icmp[6:8] != b"\x00\x03":
        seen.add(icmp[4:8])
        s.sendto(icmp, (addr[0], 0))
'
	pingout_helper dup "" "$dupper"
	same duplicates -c 3 -i 0.3 127.0.0.1	# "(DUP!)", "+2 duplicates"
	same duplicates_quiet -c 3 -i 0.3 -q 127.0.0.1
else
	skip $LABEL/duplicates "no python3 to make duplicates"
fi

ns_done
