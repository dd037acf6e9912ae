#!/bin/bash
# SPDX-License-Identifier: ISC
# shim_ping6 - unmodified iputils ping -6, fping -6 and traceroute -6 -I
# through libpingsock-preload.so, on pingsockd's IPv6 ping sockets.
#
# As shim_ping.sh: capability-free copies run as uid 65534 with only
# LD_PRELOAD set in a client namespace whose ping_group_range is "1 0"
# (pingsockd serves), compared - output with times masked, and exit
# status - with the same copies on the kernel's own IPv6 ping socket in a
# namespace with the range open.  The client -- router -- far chain of
# shimlib.sh has IPv6 too: Time Exceeded and Destination Unreachable come
# from the router, Packet Too Big from its 1280-byte route to the far
# hosts.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init shim_ping6 ping fping traceroute
router_topology k || { fail "$LABEL/setup" "kernel-side namespaces"; ns_done; }
router_topology d || { fail "$LABEL/setup" "daemon-side namespaces"; ns_done; }
# A link-local address of the router that is the same on both sides (the
# generated ones follow the random MAC addresses).
for s in k d; do
	ip -n "$(ns_name ${s}r)" addr add fe80::77:1/64 dev vc nodad ||
		{ fail "$LABEL/setup" "link-local address"; ns_done; }
done

ours() { shimmed dc "$@"; }
ref() { kernel kc "$@"; }
P=$T/bin/ping

same c3		"$P" -6 -c 3 -i 0.2 ::1
same by_address	"$P" -c 2 -i 0.2 ::1
same s1000	"$P" -6 -c 2 -i 0.2 -s 1000 ::1
same quiet	"$P" -6 -q -c 2 -i 0.2 ::1
same router	"$P" -6 -c 2 -i 0.2 $TOPO6_ROUTER
same two_hops	"$P" -6 -c 2 -i 0.2 $TOPO6_FAR1
same link_local	"$P" -6 -c 2 -i 0.2 fe80::77:1%veth0
same link_local_I "$P" -6 -c 2 -i 0.2 -I veth0 fe80::77:1
CMP_EXPECT="out:^From $TOPO6_ROUTER icmp_seq=1 Time exceeded: Hop limit$" \
	same_rc 1 hop_limit1 "$P" -6 -c 2 -i 0.2 -t 1 $TOPO6_FAR1
CMP_EXPECT="out:Packet too big: mtu=1280" \
	same_rc 1 packet_too_big "$P" -6 -c 2 -i 0.2 -M do -s 1400 $TOPO6_FAR1
CMP_EXPECT="out:Destination unreachable: No route" \
	same_rc 1 unreachable "$P" -6 -c 1 $TOPO6_UNREACH

# traceroute -6 -I: hop 1 the router (an error-queue record), then the
# target; -N 1 so that no probe meets a pending error.
TR=$T/bin/traceroute
CMP_EXPECT="out:^ 1  $TOPO6_ROUTER  T ms$
out:^ 2  $TOPO6_FAR1  T ms$" \
	same traceroute6_N1 "$TR" -6 -I -n -q 1 -N 1 -w 1 $TOPO6_FAR1

# fping -6: checks the identifier of replies, so on the kernel's socket
# every reply is lost; PINGSOCK_IDENT=keep makes the shim keep it.
F=$T/bin/fping
CMP_EXPECT="err:^$TOPO6_FAR1 +: xmt/rcv/%loss = 3/0/100%" \
	same_rc 1 fping6 "$F" -6 -c 3 -p 200 -t 500 $TOPO6_FAR1 $TOPO6_FAR2 \
	$TOPO6_DEAD
d=$(mktemp -d "$T/case.XXXXXX")
PINGSOCK_IDENT=keep ours "$F" -6 -c 3 -p 200 -t 500 $TOPO6_FAR1 \
	$TOPO6_FAR2 $TOPO6_DEAD >"$d/out" 2>"$d/err"
if grep -Eq "^$TOPO6_FAR1 +: xmt/rcv/%loss = 3/3/0%" "$d/err" &&
	grep -Eq "^$TOPO6_FAR2 +: xmt/rcv/%loss = 3/3/0%" "$d/err" &&
	grep -Eq "^$TOPO6_DEAD +: xmt/rcv/%loss = 3/0/100%" "$d/err"; then
	pass "$LABEL/fping6_ident_keep"
else
	fail "$LABEL/fping6_ident_keep" "$(tr '\n' '|' <"$d/err")"
fi

ns_done
