#!/bin/bash
# SPDX-License-Identifier: ISC
# shim_ping - an unmodified iputils ping through libpingsock-preload.so.
#
# A capability-free copy of /usr/bin/ping runs as uid 65534 with only
# LD_PRELOAD set, in a namespace whose ping_group_range is "1 0" (so the
# kernel refuses the socket and pingsockd serves it), and is compared -
# output lines with times masked, and exit status - with the same copy in
# a namespace whose range is open (the kernel's own ping socket, no shim).
# Each side is a client -- router -- far chain (shimlib.sh): Time to live
# exceeded comes from the router, and the client's 1500-byte MTU gives
# the local "message too long" error.  Then, with the range open and the
# shim loaded, the kernel's socket must be used: no call is served by
# pingsockd.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init shim_ping ping
if ! "$T/bin/ping" -V 2>/dev/null | grep -q 'iputils'; then
	fail "$LABEL/setup" "$(shim_prog ping) is not iputils ping"
	ns_done
fi
router_topology k || { fail "$LABEL/setup" "kernel-side namespaces"; ns_done; }
router_topology d || { fail "$LABEL/setup" "daemon-side namespaces"; ns_done; }

ours() { shimmed dc "$T/bin/ping" "$@"; }
ref() { kernel kc "$T/bin/ping" "$@"; }

# The acceptance list of issue 6, and a few more.
same c5		-c 5 127.0.0.1
same s1000	-c 2 -s 1000 127.0.0.1
same i02_c20	-i 0.2 -c 20 127.0.0.1
same quiet	-q -c 2 127.0.0.1
same veth	-c 2 -i 0.2 $TOPO_ROUTER
same two_hops	-c 2 -i 0.2 $TOPO_FAR1
CMP_EXPECT="out:^From $TOPO_ROUTER icmp_seq=2 Time to live exceeded$" \
	same_rc 1 ttl1 -c 2 -i 0.2 -t 1 $TOPO_FAR1
CMP_EXPECT="err:^ping: local error: message too long, mtu=1500$" \
	same_rc 1 pmtu_do -c 2 -i 0.2 -M "do" -s 2000 $TOPO_FAR1

# The shim did serve those: its debug log names pingsockd's socket.
out=$(ours -c 1 127.0.0.1 2>&1 >/dev/null)
err=$(PINGSOCK_DEBUG=1 ours -c 1 127.0.0.1 2>&1 >/dev/null)
# (In broker mode every call after socket() is the kernel's: no recvmsg.)
kind='\[pingsockd\]' io='recvmsg('
[ "${PS_DAEMON_MODE:-}" = broker ] && kind='\[pingsockd broker\]' io=
if grep -q "socket(2, .*) $kind = [0-9]*" <<<"$err" &&
	{ [ -z "$io" ] || grep -qF "$io" <<<"$err"; } && [ -z "$out" ]; then
	pass "$LABEL/debug_log"
else
	fail "$LABEL/debug_log" "$(head -5 <<<"$err" | tr '\n' '|')"
fi
# ... on stderr only.
o=$(PINGSOCK_DEBUG=1 ours -c 1 127.0.0.1 2>/dev/null)
if ! grep -q pingsock-preload <<<"$o" && grep -q '1 received' <<<"$o"; then
	pass "$LABEL/debug_stderr_only"
else
	fail "$LABEL/debug_stderr_only" "$(head -3 <<<"$o" | tr '\n' '|')"
fi

# PINGSOCK_BACKEND=kernel with the range closed: the kernel's refusal.
o=$(PINGSOCK_BACKEND=kernel ours -c 1 127.0.0.1 2>&1); rc=$?
if [ $rc != 0 ] && ! grep -q ' bytes from ' <<<"$o"; then
	pass "$LABEL/backend_kernel"
else
	fail "$LABEL/backend_kernel" "exit $rc: $(head -3 <<<"$o" | tr '\n' '|')"
fi

# Range open, shim loaded, pingsockd running: the kernel's own socket,
# nothing shimmed (debug log empty), the daemon sends nothing, and the
# output is that of the run without the shim.
sent() { in_ns dc "$T/pingsockctl" --socket "$(ns_sock dc)" status |
	awk '$1 == "sent" { print $2 }'; }
in_ns dc sysctl -qw net.ipv4.ping_group_range="0 2147483647"
d=$(mktemp -d "$T/case.XXXXXX")
before=$(sent)
PINGSOCK_DEBUG=1 ours -c 2 127.0.0.1 >"$d/out" 2>"$d/err"; rc=$?
after=$(sent)
# strace: the ping socket is the kernel's (created, no EACCES) and
# nothing connects to pingsockd's socket.  strace gets the preload only
# for the program it runs.
if command -v strace >/dev/null; then
	chmod 777 "$d"
	as_nobody dc strace -f -qq -o "$d/trace" -e trace=socket,connect \
		-E LD_PRELOAD="$PRELOAD" "$T/bin/ping" -c 1 127.0.0.1 \
		>/dev/null 2>&1
	if grep -q 'socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP) = [0-9]' \
		"$d/trace" && ! grep -q "$(ns_sock dc)" "$d/trace"; then
		pass "$LABEL/kernel_untouched_strace"
	else
		fail "$LABEL/kernel_untouched_strace" "$(grep -E 'ICMP|AF_UNIX' "$d/trace" | head -4 | tr '\n' '|')"
	fi
else
	fail "$LABEL/kernel_untouched_strace" "strace is not installed"
fi
in_ns dc sysctl -qw net.ipv4.ping_group_range="1 0"
ref -c 2 127.0.0.1 >"$d/ref.out" 2>/dev/null
if [ $rc = 0 ] && ! grep -q pingsock-preload "$d/err" && [ -n "$before" ] &&
	[ "$before" = "$after" ] &&
	diff <(mask "$d/ref.out") <(mask "$d/out") >/dev/null; then
	pass "$LABEL/kernel_untouched"
else
	fail "$LABEL/kernel_untouched" "exit $rc, daemon sent $before -> $after: $(head -3 "$d/err" | tr '\n' '|')"
fi

ns_done
