#!/bin/bash
# SPDX-License-Identifier: ISC
# rawsocks - what pingsockd's raw sockets cost the namespace it serves,
# and that its two IPv4 senders carry every combination of options.
#
# The kernel looks at every raw ICMP socket of a namespace for every ICMP
# packet the namespace receives (raw_v4_input()), whoever holds the
# socket: the kernel's own ping sockets and broker mode's pay for each of
# pingsockd's.  It opens two IPv4 raw sockets (the receiver, which also
# sends with the default options, and one sender whose SO_BROADCAST,
# IP_MTU_DISCOVER and IP_MULTICAST_LOOP are set per send) and one IPv6.
# MEASURED against the build before this test: 24 IPv4 raw sockets (one
# per combination of the three options), which cost the kernel's own ping
# sockets in the namespace 12 % of their echo rate on loopback
# (make bench: broker mode 0.75x -> 0.83x of the kernel).
#
# Then the senders' options, switched back and forth between sockets of
# one client: SO_BROADCAST (a broadcast address without it: EACCES) and
# IP_MTU_DISCOVER (DO: EMSGSIZE past the MTU; DONT: fragmented), each
# step's result against the kernel's own ping socket (uid 65534 in an
# open namespace; the relay in a closed one, through the shim).  lo's MTU
# is 1500 in both namespaces; traffic stays on their loopback.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init rawsocks
PY=/usr/bin/python3
trap ns_cleanup EXIT

ns_new k open || { fail "$LABEL/setup" "namespace k"; ns_done; }
ns_new d closed || { fail "$LABEL/setup" "namespace d"; ns_done; }
in_ns k ip link set lo mtu 1500
in_ns d ip link set lo mtu 1500
shim_daemon d || { fail "$LABEL/setup" "pingsockd"; ns_done; }

# raw_count FILE PROTO-HEX: raw sockets of that protocol in the
# namespace d (its /proc/net/raw or raw6).
raw_count() {
	in_ns d cat "/proc/net/$1" |
		awk -v p="$2" 'NR > 1 { split($2, a, ":"); if (a[2] == p) n++ }
			END { print n + 0 }'
}
n4=$(raw_count raw 0001)
n6=$(raw_count raw6 003A)
if [ "$n4" = 2 ]; then
	pass "$LABEL/raw_icmp4_sockets_2"
else
	fail "$LABEL/raw_icmp4_sockets_2" "$n4 raw ICMP sockets in the namespace"
fi
if [ "$n6" = 1 ]; then
	pass "$LABEL/raw_icmp6_sockets_1"
else
	fail "$LABEL/raw_icmp6_sockets_1" "$n6 raw ICMPv6 sockets in the namespace"
fi

# Each step: SOCKET OPTIONS... -> the send's result.  Sockets a, b, c live
# through the whole run, so the daemon's sender switches between them.
cat >"$T/rawsocks.py" <<'PY'
import errno, socket, struct

IP_MTU_DISCOVER, DONT, DO = 10, 0, 2
socks = {}

def sock(name, bcast=None, pmtu=None):
    s = socks.get(name)
    if s is None:
        s = socks[name] = socket.socket(socket.AF_INET, socket.SOCK_DGRAM,
                                        socket.IPPROTO_ICMP)
    if bcast is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, bcast)
    if pmtu is not None:
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, pmtu)
    return s

def send(step, name, dst, size):
    msg = struct.pack("!BBHHH", 8, 0, 0, 0, 1) + b"x" * (size - 8)
    try:
        sock(name).sendto(msg, (dst, 0))
        r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print("%s: %s" % (step, r))

sock("a", bcast=1)
sock("b", pmtu=DO)
sock("c", bcast=1, pmtu=DONT)
send("a_broadcast", "a", "127.255.255.255", 64)
send("b_broadcast_unset", "b", "127.255.255.255", 64)
send("b_big_do", "b", "127.0.0.1", 2000)
send("c_big_dont", "c", "127.0.0.1", 2000)
send("c_broadcast", "c", "127.255.255.255", 64)
send("b_big_do_again", "b", "127.0.0.1", 2000)
send("b_broadcast_unset_again", "b", "127.255.255.255", 64)
send("a_broadcast_again", "a", "127.255.255.255", 64)
sock("a", bcast=0)
send("a_broadcast_cleared", "a", "127.255.255.255", 64)
send("a_small", "a", "127.0.0.1", 64)
PY
chmod a+r "$T/rawsocks.py"

want=$(kernel k env "${PY_ENV[@]}" "$PY" "$T/rawsocks.py" 2>&1)
got=$(shimmed d env "${PY_ENV[@]}" "$PY" "$T/rawsocks.py" 2>&1)
echo "# kernel: $(tr '\n' ' ' <<<"$want")"
echo "# relay:  $(tr '\n' ' ' <<<"$got")"
# The kernel's answers are the ones the steps say.
expect='a_broadcast: ok
b_broadcast_unset: EACCES
b_big_do: EMSGSIZE
c_big_dont: ok
c_broadcast: ok
b_big_do_again: EMSGSIZE
b_broadcast_unset_again: EACCES
a_broadcast_again: ok
a_broadcast_cleared: EACCES
a_small: ok'
if [ "$want" = "$expect" ]; then
	pass "$LABEL/kernel_as_described"
else
	fail "$LABEL/kernel_as_described" "$(tr '\n' '|' <<<"$want")"
fi
while IFS= read -r line; do
	step=${line%%:*}
	if grep -qxF "$line" <<<"$got"; then
		pass "$LABEL/$step"
	else
		fail "$LABEL/$step" "kernel: ${line#*: }; relay: $(grep "^$step:" <<<"$got" | sed 's/^[^:]*: //')"
	fi
done <<<"$want"
ns_done
