#!/bin/bash
# SPDX-License-Identifier: ISC
# shim_clients - real unmodified clients of ping sockets through
# libpingsock-preload.so: traceroute -I, iputils ping on a fresh daemon,
# Python's icmplib and fping 5.1 (shared/reference/real-clients.md).
#
# As in shim_ping: capability-free copies, uid 65534, only LD_PRELOAD
# added, the client in a namespace whose ping_group_range is "1 0" with
# its own pingsockd, compared with the same command on the kernel's own
# ping socket (range open); each side a client -- router -- far chain
# (shimlib.sh), the far hosts two hops away.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init shim_clients ping traceroute fping
if ! [ -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import icmplib'; then
	fail "$LABEL/setup" "no /usr/bin/python3 with icmplib (python3-icmplib)"
	ns_done
fi
router_topology k || { fail "$LABEL/setup" "kernel-side namespaces"; ns_done; }
router_topology d || { fail "$LABEL/setup" "daemon-side namespaces"; ns_done; }

# ours|ref PROGRAM ARGS...
ours() { shimmed dc "$@"; }
ref() { kernel kc "$@"; }

TR=$T/bin/traceroute
HOP1="out:^ 1  ${TOPO_ROUTER//./\\.}  T ms$"
TARGET=${TOPO_FAR1//./\\.}

# traceroute -I: hop 1 is an error-queue record (Time Exceeded from the
# router), the last one an Echo Reply.  With the default 16 probes in
# flight, the probe sent after the router's error has arrived fails with
# that pending error: hop 2 is "*", the target is hop 3.  -w 1: the "*"
# costs a second; the others are answered at once.
CMP_EXPECT="$HOP1
out:^ 2  \*$
out:^ 3  $TARGET  T ms$" same traceroute "$TR" -I -n -q 1 -w 1 $TOPO_FAR1
CMP_EXPECT="$HOP1
out:^ 2  $TARGET  T ms$" same traceroute_N1 "$TR" -I -n -q 1 -N 1 -w 1 $TOPO_FAR1

# No warm-up: each program is the first client of a daemon just started.
shim_daemon_restart dc || { fail "$LABEL/setup" "pingsockd restart"; ns_done; }
CMP_EXPECT="out:^From $TOPO_ROUTER icmp_seq=1 Time to live exceeded$" \
	same_rc 1 fresh_daemon_ping_ttl1 "$T/bin/ping" -c 2 -i 0.2 -t 1 $TOPO_FAR1
shim_daemon_restart dc || { fail "$LABEL/setup" "pingsockd restart"; ns_done; }
CMP_EXPECT="$HOP1
out:^ 2  \*$" same fresh_daemon_traceroute "$TR" -I -n -q 1 -w 1 $TOPO_FAR1
shim_daemon_restart dc || { fail "$LABEL/setup" "pingsockd restart"; ns_done; }
CMP_EXPECT="$HOP1" same fresh_daemon_traceroute_N1 \
	"$TR" -I -n -q 1 -N 1 -w 1 $TOPO_FAR1

# PINGSOCK_DEBUG=1: the log on stderr, stdout exactly the kernel's.
d=$(mktemp -d "$T/case.XXXXXX")
PINGSOCK_DEBUG=1 run_both "$d" "$TR" -I -n -q 1 -w 1 $TOPO_FAR1
why=""
diff <(mask "$d/ref.out") <(mask "$d/ours.out") >"$d/diff" ||
	why+="stdout differs (< kernel, > shim): $(head -8 "$d/diff" | tr '\n' '|') "
[ "$(cat "$d/ours.rc")" = 0 ] && [ "$(cat "$d/ref.rc")" = 0 ] ||
	why+="exit $(cat "$d/ours.rc"), kernel $(cat "$d/ref.rc") "
# (In broker mode every call after socket() is the kernel's.)
io='MSG_ERRQUEUE\|recvmsg('
[ "${PS_DAEMON_MODE:-}" = broker ] && io='\[pingsockd broker\]'
grep -q 'socket(2, .*) \[pingsockd[a-z ]*\] = [0-9]' "$d/ours.err" &&
	grep -q "$io" "$d/ours.err" ||
	why+="no debug log on stderr: $(head -3 "$d/ours.err" | tr '\n' '|') "
! grep -q pingsock-preload "$d/ours.out" || why+="debug log on stdout "
if [ -z "$why" ]; then
	pass "$LABEL/debug_traceroute"
else
	fail "$LABEL/debug_traceroute" "$why"
fi

# Python's icmplib, privileged=False: poll, non-blocking sockets, and for
# multiping many sockets under one epoll.  The same alive/dead answers.
cat >"$T/icmp.py" <<'PY'
import sys
import icmplib
if sys.argv[1] == "ping":
    hosts = [icmplib.ping(sys.argv[2], count=3, interval=0.2, timeout=3,
                          privileged=False)]
else:
    hosts = icmplib.multiping(sys.argv[2:], count=2, interval=0.2,
                              timeout=3, privileged=False)
for h in hosts:
    print(h.address, "alive" if h.is_alive else "dead",
          "sent", h.packets_sent, "received", h.packets_received)
PY
chmod 644 "$T/icmp.py"
CMP_EXPECT="out:^$TARGET alive sent 3 received 3$" \
	same icmplib_ping env "${PY_ENV[@]}" /usr/bin/python3 "$T/icmp.py" \
	ping $TOPO_FAR1
CMP_EXPECT="out:^$TARGET alive sent 2 received 2$
out:^${TOPO_FAR2//./\\.} alive sent 2 received 2$
out:^${TOPO_DEAD//./\\.} dead sent 2 received 0$" \
	same icmplib_multiping env "${PY_ENV[@]}" /usr/bin/python3 "$T/icmp.py" multi \
	$TOPO_FAR1 $TOPO_FAR2 $TOPO_DEAD

# Python's subprocess between two echoes on a socket of its own: the
# child (vfork) closes every descriptor but 0-2 (close_fds=True) in the
# program's memory; the program's socket must stay.
cat >"$T/spawn.py" <<'PY'
import select, socket, struct, subprocess, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
def echo(seq):
    s.sendto(struct.pack("!BBHHH", 8, 0, 0, 0, seq) + b"x" * 8,
             (sys.argv[1], 0))
    if not select.select([s], [], [], 2)[0]:
        return "timeout"
    return "reply type %d" % s.recvfrom(1500)[0][0]
print("before", echo(1))
print("child", subprocess.run(["/bin/true"]).returncode)
print("after", echo(2))
PY
chmod 644 "$T/spawn.py"
CMP_EXPECT="out:^before reply type 0$
out:^child 0$
out:^after reply type 0$" \
	same python_subprocess env "${PY_ENV[@]}" /usr/bin/python3 "$T/spawn.py" \
	$TOPO_FAR1

# fping 5.1 writes its own identifier and drops replies with another one:
# on the kernel's socket (which rewrites it) 100% loss on every target.
# Compared: its per-target summary lines (stderr) and the per-probe lines
# (stdout), each sorted, and the exit status.
FPING=("$T/bin/fping" -c 3 -p 200 -t 500 "$TOPO_FAR1" "$TOPO_FAR2" "$TOPO_DEAD")
summary() { mask "$1" | grep ' : xmt/rcv/%loss = ' | sort; }
fping_like_kernel() {	# NAME
	local name=$LABEL/$1 d why="" s
	d=$(mktemp -d "$T/case.XXXXXX")
	run_both "$d" "${FPING[@]}"
	for s in ref ours; do
		summary "$d/$s.err" >"$d/$s.sum"
		mask "$d/$s.out" | sort >"$d/$s.lines"
	done
	diff "$d/ref.sum" "$d/ours.sum" >"$d/diff" ||
		why+="summaries differ (< kernel, > shim): $(tr '\n' '|' <"$d/diff") "
	diff "$d/ref.lines" "$d/ours.lines" >"$d/diff" ||
		why+="stdout differs (< kernel, > shim): $(head -6 "$d/diff" | tr '\n' '|') "
	[ "$(cat "$d/ours.rc")" = "$(cat "$d/ref.rc")" ] ||
		why+="exit $(cat "$d/ours.rc"), kernel $(cat "$d/ref.rc") "
	[ "$(grep -c '/100%$' "$d/ref.sum")" = 3 ] ||
		why+="the kernel's fping did not lose everything: $(tr '\n' '|' <"$d/ref.sum") "
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
}
fping_like_kernel fping

# PINGSOCK_IDENT=keep: the daemon keeps fping's identifier, fping gets its
# replies: 0% loss on the live targets, 100% on the dead one.
d=$(mktemp -d "$T/case.XXXXXX")
PINGSOCK_IDENT=keep ours "${FPING[@]}" >"$d/out" 2>"$d/err"; rc=$?
summary "$d/err" >"$d/sum"
want="$TOPO_FAR1 : xmt/rcv/%loss = 3/3/0%, min/avg/max = R
$TOPO_FAR2 : xmt/rcv/%loss = 3/3/0%, min/avg/max = R
$TOPO_DEAD : xmt/rcv/%loss = 3/0/100%"
if [ "$(cat "$d/sum")" = "$want" ] && [ $rc = 1 ]; then
	pass "$LABEL/fping_ident_keep"
else
	fail "$LABEL/fping_ident_keep" "exit $rc (want 1): $(tr '\n' '|' <"$d/sum") $(grep -v ' : xmt/rcv' "$d/err" | head -3 | tr '\n' '|')"
fi

# ... unless the daemon's config forbids it: then the kernel's behaviour.
printf 'ident_keep = no\n' >"$T/keep-no.conf"
chmod 644 "$T/keep-no.conf"
if shim_daemon_restart dc --config "$T/keep-no.conf" 2>"$T/keep-no.err"; then
	PINGSOCK_IDENT=keep fping_like_kernel fping_ident_keep_refused
else
	fail "$LABEL/fping_ident_keep_refused" "pingsockd refused 'ident_keep = no': $(tail -2 "$T/dc.log" | tr '\n' '|')"
fi

ns_done
