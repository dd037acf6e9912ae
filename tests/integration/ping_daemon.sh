#!/bin/bash
# SPDX-License-Identifier: ISC
# The setuid-less ping through pingsockd, as uid 65534, with the kernel's
# ping sockets closed: replies, iputils' output, exit codes, and a clear
# word on why when it cannot work.
. "$(dirname "$0")/../lib/netns.sh"

ns_new d closed
ns_new peer closed
ns_veth d peer 10.203.0.1/24 10.203.0.2/24
daemon_start d || { fail ping_daemon/start "pingsockd did not start"; ns_done; }

out=$(as_nobody d "$T/ping" -c 3 -i 0.2 127.0.0.1 2>&1)
rc=$?
if [ $rc = 0 ] &&
	grep -q '^PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.$' <<<"$out" &&
	[ "$(grep -cE '^64 bytes from 127.0.0.1: icmp_seq=[123] ttl=64 time=[0-9.]+ ms$' <<<"$out")" = 3 ] &&
	grep -q '^--- 127.0.0.1 ping statistics ---$' <<<"$out" &&
	grep -qE '^3 packets transmitted, 3 received, 0% packet loss, time [0-9]+ms$' <<<"$out" &&
	grep -qE '^rtt min/avg/max/mdev = [0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms$' <<<"$out"; then
	pass ping_daemon/loopback_3_replies
else
	fail ping_daemon/loopback_3_replies "exit $rc: $out"
fi

out=$(as_nobody d "$T/ping" -c 2 -i 0.2 10.203.0.2 2>&1)
rc=$?
[ $rc = 0 ] && [ "$(grep -c '^64 bytes from 10.203.0.2' <<<"$out")" = 2 ] &&
	pass ping_daemon/veth_peer || fail ping_daemon/veth_peer "exit $rc: $out"

out=$(as_nobody d env PINGSOCK_BACKEND=kernel "$T/ping" -c 1 127.0.0.1 2>&1)
rc=$?
[ $rc = 2 ] && grep -q 'ping_group_range' <<<"$out" &&
	pass ping_daemon/kernel_backend_says_why ||
	fail ping_daemon/kernel_backend_says_why "exit $rc: $out"

# Nothing answers at the socket: both halves of the reason.
out=$(as_nobody d env PINGSOCK_SOCKET="$T/nowhere/socket" "$T/ping" -c 1 127.0.0.1 2>&1)
rc=$?
[ $rc = 2 ] && grep -q 'ping_group_range' <<<"$out" &&
	grep -q 'pingsockd is not running' <<<"$out" &&
	pass ping_daemon/no_daemon_says_why ||
	fail ping_daemon/no_daemon_says_why "exit $rc: $out"

# The socket is there, but its directory is closed to the user: the
# EACCES of connect() is said as such, not as the "groups" policy's.
mkdir -m 700 "$T/closed" && ln "$(ns_sock d)" "$T/closed/socket"
out=$(as_nobody d env PINGSOCK_SOCKET="$T/closed/socket" "$T/ping" -c 1 127.0.0.1 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "$T/closed/socket is not open to you" <<<"$out" &&
	! grep -q 'groups' <<<"$out" &&
	pass ping_daemon/closed_socket_says_why ||
	fail ping_daemon/closed_socket_says_why "exit $rc: $out"
rm -rf "$T/closed"

# Load: 100 concurrent pings, 20 echoes each 0.2 s apart (the 2010
# patch's test at a twentieth of its size): no reply may be lost.
pids=()
for i in $(seq 1 100); do
	as_nobody d "$T/ping" -q -c 20 -i 0.2 127.0.0.1 >"$T/load.$i" 2>&1 &
	pids+=($!)
done
wait "${pids[@]}"	# not the daemon, also a background job
lost=$(cat "$T"/load.* | grep -c -v -E '^$|^PING |^---|^rtt |20 packets transmitted, 20 received, 0% packet loss')
if [ "$lost" = 0 ] && [ "$(cat "$T"/load.* | grep -c ' 0% packet loss')" = 100 ]; then
	pass ping_daemon/100_concurrent_no_loss
else
	fail ping_daemon/100_concurrent_no_loss "$(cat "$T"/load.* | grep -v -E '^$|^PING |^rtt ' | sort | uniq -c | head)"
fi

printf 'groups = 100 200\n' >"$T/groups.conf"
daemon_stop
daemon_start d --config "$T/groups.conf" || fail ping_daemon/restart "with --config"
out=$(as_nobody d "$T/ping" -c 1 127.0.0.1 2>&1)
rc=$?
[ $rc = 2 ] && grep -q 'Permission denied' <<<"$out" && grep -q 'groups' <<<"$out" &&
	pass ping_daemon/policy_refusal_says_why ||
	fail ping_daemon/policy_refusal_says_why "exit $rc: $out"

ns_done
