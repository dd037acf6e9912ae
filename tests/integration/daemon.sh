#!/bin/bash
# SPDX-License-Identifier: ISC
# pingsockd end to end: served pings, policy, identifiers, robustness,
# privileges, start-up failures, signals.  Clients run as uid 65534 in a
# namespace whose kernel ping sockets are closed (ping_group_range 1 0).
. "$(dirname "$0")/../lib/netns.sh"

PST=$T/tests/lib/pstool
SOCK=$(ns_sock d)
ctl() { in_ns d "$T/pingsockctl" --socket "$SOCK" status; }
stat_of() { ctl | awk -v k="$1" '$1 == k { print $2 }'; }

ns_new d closed
ns_new peer closed
ns_veth d peer 10.202.0.1/24 10.202.0.2/24
daemon_start d || { fail daemon_start "pingsockd did not start"; ns_done; }

# --- served pings ---------------------------------------------------------
out=$(as_nobody d env PINGSOCK_BACKEND=daemon "$PST" ping 127.0.0.1 3)
[ "$(grep -c '^reply' <<<"$out")" = 3 ] && pass daemon/loopback_3_replies ||
	fail daemon/loopback_3_replies "$out"

out=$(as_nobody d "$PST" ping 10.202.0.2 2)
[ "$(grep -c '^reply seq=[12] from=10.202.0.2' <<<"$out")" = 2 ] &&
	pass daemon/veth_peer || fail daemon/veth_peer "$out"

out=$(as_nobody d env PINGSOCK_BACKEND=kernel "$PST" ping 127.0.0.1 1 2>&1)
if grep -q 'socket=EACCES' <<<"$out" && grep -q 'ping_group_range' <<<"$out"; then
	pass daemon/kernel_backend_refused_clearly
else
	fail daemon/kernel_backend_refused_clearly "$out"
fi

# A send looks at O_NONBLOCK only when the daemon says it would wait: 10
# sends of a blocking socket make no fcntl(F_GETFL) (10 before).  (No
# leak check under strace: LeakSanitizer cannot run under ptrace.)
if ! command -v strace >/dev/null; then
	skip daemon/send_no_fcntl "no strace (.ci/test-packages)"
elif out=$(as_nobody d env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=fcntl "$PST" burst 127.0.0.1 10 block 2>&1) &&
	[ "$(grep -c '=ok$' <<<"$out")" = 10 ] && ! grep -q F_GETFL <<<"$out"; then
	pass daemon/send_no_fcntl
else
	fail daemon/send_no_fcntl "$(grep -c F_GETFL <<<"$out") F_GETFL: $(grep -v '^fcntl' <<<"$out" | tr '\n' ' ')"
fi

# --- identifiers ----------------------------------------------------------
as_nobody d "$PST" bind 4242 30 >"$T/hold.out" &
holder=$!
file_has "$T/hold.out" '^bind=0$' 10
out=$(as_uid 1000 d "$PST" bind 4242)
[ "$out" = "bind=EADDRINUSE" ] && pass daemon/cross_uid_ident_refused ||
	fail daemon/cross_uid_ident_refused "$out"
out=$(as_nobody d "$PST" bind 4242)
[ "$out" = "bind=0" ] && pass daemon/same_uid_ident_shared ||
	fail daemon/same_uid_ident_shared "$out"
pkill -KILL -f "$PST bind 4242 30"; wait $holder 2>/dev/null

out=$(as_nobody d "$PST" pair 127.0.0.1 5001 5002)
[ "$out" = $'sock0 seq=100\nsock1 seq=200' ] && pass daemon/own_replies_only ||
	fail daemon/own_replies_only "$out"

# The request on the wire carries the socket's ident and a correct
# checksum, whatever the caller wrote (0x1234, checksum 0xdead).
in_ns d timeout 10 tcpdump -l -n -vv -i lo -c 1 'icmp[icmptype] == 8' \
	>"$T/cap.txt" 2>"$T/cap.err" &
tcpd=$!
file_has "$T/cap.err" 'listening on' 5
out=$(as_nobody d "$PST" rawsend 127.0.0.1)
wait $tcpd
ident=${out#ident=}
if grep -q "ICMP echo request, id $ident, seq 7" "$T/cap.txt" &&
	! grep -q 'wrong icmp cksum' "$T/cap.txt"; then
	pass daemon/wire_ident_and_checksum
else
	fail daemon/wire_ident_and_checksum "$out / $(cat "$T/cap.txt")"
fi

# --- robustness -----------------------------------------------------------
for _ in $(seq 100); do	# the clients before it gone (10 s at most)
	[ "$(stat_of idents)" = 0 ] && break
	sleep 0.1
done
as_nobody d "$PST" bind 4343 30 >"$T/victim.out" &
victim=$!
file_has "$T/victim.out" '^bind=0$' 10
before=$(stat_of idents)
pkill -KILL -f "$PST bind 4343"; wait $victim 2>/dev/null
for _ in $(seq 30); do	# the daemon sees the hang-up at once (3 s at most)
	after=$(stat_of idents)
	[ "$after" = 0 ] && break
	sleep 0.1
done
[ "$before" = 1 ] && [ "$after" = 0 ] && [ "$(stat_of sockets)" = 0 ] &&
	pass daemon/killed_client_frees_ident ||
	fail daemon/killed_client_frees_ident "idents before=$before after=$after"

out=$(as_nobody d "$PST" garbage)
out2=$(as_nobody d "$PST" ping 127.0.0.1 1)
if [ "$out" = "after-garbage=closed" ] && grep -q '^reply' <<<"$out2" &&
	kill -0 "$DAEMON_PID"; then
	pass daemon/garbage_client_disconnected
else
	fail daemon/garbage_client_disconnected "$out / $out2"
fi

# The daemon never blocks on a client: one that never reads its answers
# is disconnected, one whose queue is full loses its own replies only.
out=$(as_nobody d timeout 20 "$PST" nonreader)
out2=$(as_nobody d "$PST" ping 127.0.0.1 1)
[ "$out" = "nonreader=disconnected" ] && grep -q '^reply' <<<"$out2" &&
	pass daemon/nonreading_client_disconnected ||
	fail daemon/nonreading_client_disconnected "$out / $out2"
before=$(stat_of dropped)
as_nobody d "$PST" stall 127.0.0.1 300 >/dev/null &
staller=$!
sleep 0.5
out2=$(as_nobody d "$PST" ping 127.0.0.1 3)
wait $staller
after=$(stat_of dropped)
if [ "$(grep -c '^reply' <<<"$out2")" = 3 ] && [ "$after" -gt "$before" ]; then
	pass daemon/full_queue_drops_own_replies_only
else
	fail daemon/full_queue_drops_own_replies_only "dropped $before -> $after; $out2"
fi

# --- privileges -----------------------------------------------------------
st=/proc/$DAEMON_PID/status
if grep -q '^CapEff:[[:space:]]*0000000000000000$' $st &&
	grep -q '^CapPrm:[[:space:]]*0000000000000000$' $st &&
	grep -q '^CapBnd:[[:space:]]*0000000000000000$' $st &&
	grep -q '^NoNewPrivs:[[:space:]]*1$' $st &&
	grep -Eq "^Uid:[[:space:]]*($PS_DAEMON_UID[[:space:]]*){4}$" $st &&
	grep -q '^Groups:[[:space:]]*$' $st; then
	pass daemon/privileges_dropped
else
	fail daemon/privileges_dropped "$(grep -E 'Cap|NoNew|Uid|Groups' $st)"
fi

# No nice configured: every thread at the priority it was started with.
nices=$(ps -L -o nice= -p "$DAEMON_PID" | tr -d ' ' | sort -u | tr '\n' ' ')
[ "$nices" = "$(nice) " ] && pass daemon/nice_default_as_started ||
	fail daemon/nice_default_as_started "started at $(nice), threads at: $nices"

# --- policy and SIGHUP ----------------------------------------------------
cfg=$T/pingsockd.conf
printf '# only gids 100-200\ngroups = 100 200\n' >"$cfg"
chmod 644 "$cfg"
daemon_stop
[ ! -e "$SOCK" ] && pass daemon/sigterm_removes_socket ||
	fail daemon/sigterm_removes_socket "$SOCK still there"
daemon_start d --config "$cfg" || fail daemon/restart "with --config"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
if grep -q 'socket=EACCES' <<<"$out" && grep -q 'groups' <<<"$out"; then
	pass daemon/groups_policy_refuses
else
	fail daemon/groups_policy_refuses "$out"
fi
out=$(in_ns d setpriv --reuid=65534 --regid=150 --clear-groups env \
	PINGSOCK_SOCKET="$SOCK" "$PST" ping 127.0.0.1 1 2>&1)
grep -q '^reply' <<<"$out" && pass daemon/groups_policy_admits_egid ||
	fail daemon/groups_policy_admits_egid "$out"
out=$(in_ns d setpriv --reuid=65534 --regid=65534 --groups=150 env \
	PINGSOCK_SOCKET="$SOCK" "$PST" ping 127.0.0.1 1 2>&1)
grep -q '^reply' <<<"$out" && pass daemon/groups_policy_admits_supplementary ||
	fail daemon/groups_policy_admits_supplementary "$out"

printf 'groups = 0 4294967294\n' >"$cfg"
hup_wait "$DAEMON_PID" "$T/d.log"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
grep -q '^reply' <<<"$out" && pass daemon/sighup_reloads ||
	fail daemon/sighup_reloads "$out"
printf 'groups = 100 200\ngroups = banana\n' >"$cfg"
hup_wait "$DAEMON_PID" "$T/d.log"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
if grep -q '^reply' <<<"$out" && grep -q "$cfg:2:" "$T/d.log"; then
	pass daemon/bad_reload_keeps_policy
else
	fail daemon/bad_reload_keeps_policy "$out / $(tail -2 "$T/d.log")"
fi

# --- min_interval: sends of one socket spaced by the daemon ---------------
printf 'min_interval = 200\n' >"$cfg"
hup_wait "$DAEMON_PID" "$T/d.log"
t0=$(date +%s%N)
out=$(as_nobody d "$T/ping" -c 3 -i 0.002 -q 127.0.0.1 2>&1)
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
if grep -q '3 packets transmitted, 3 received' <<<"$out" && [ $ms -ge 400 ]; then
	pass daemon/min_interval_spaces_sends
else
	fail daemon/min_interval_spaces_sends "${ms}ms: $out"
fi
e0=$(stat_of sends_would_block); d0=$(stat_of sends_delayed)
out=$(as_nobody d "$PST" burst 127.0.0.1 3)
[ "$out" = $'send1=ok\nsend2=EAGAIN\nsend3=EAGAIN' ] &&
	pass daemon/min_interval_dontwait_eagain ||
	fail daemon/min_interval_dontwait_eagain "$out"
# O_NONBLOCK, which the daemon cannot see: the same, and counted once each.
out=$(as_nobody d "$PST" burst 127.0.0.1 3 nonblock)
e1=$(stat_of sends_would_block)
if [ "$out" = $'send1=ok\nsend2=EAGAIN\nsend3=EAGAIN' ] && [ $((e1 - e0)) = 4 ]; then
	pass daemon/min_interval_nonblock_eagain
else
	fail daemon/min_interval_nonblock_eagain "eagain +$((e1 - e0)): $out"
fi
# A blocking socket's sends wait their time, each counted delayed once.
t0=$(date +%s%N)
out=$(as_nobody d "$PST" burst 127.0.0.1 3 block)
t1=$(date +%s%N)
e2=$(stat_of sends_would_block); d2=$(stat_of sends_delayed)
if [ "$out" = $'send1=ok\nsend2=ok\nsend3=ok' ] && [ "$e2" = "$e1" ] &&
	[ $((d2 - d0)) = 2 ] && [ $(( (t1 - t0) / 1000000 )) -ge 400 ]; then
	pass daemon/min_interval_blocking_waits
else
	fail daemon/min_interval_blocking_waits "eagain +$((e2 - e1)) delayed +$((d2 - d0)) $(( (t1 - t0) / 1000000 )) ms: $out"
fi

# A client that hangs up while its send waits, with more requests behind
# it, takes its waiting send along: the user's budget of waiting bytes
# (1 MiB) is not used up by clients long gone.  70 such clients (16 kB
# sends, raw protocol), then a 60 kB send that must wait and go.
cat >"$T/parkgone.py" <<'PY'
import socket, struct, sys

def answer(s):
    msg, anc, _, _ = s.recvmsg(8192, socket.CMSG_SPACE(16))
    return struct.unpack("<HHi", msg[:8])[2], msg[8:]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    s.connect(sys.argv[1])
    s.send(struct.pack("<HHII", 1, 0, 0, int(sys.argv[2])) + bytes(16))  # HELLO, no arena
    answer(s)
    s.send(struct.pack("<HHIiii", 2, 0, 0, socket.AF_INET,
                       socket.SOCK_DGRAM, socket.IPPROTO_ICMP))
    return s, struct.unpack("<I", answer(s)[1][:4])[0]  # OPEN: handle

def send(s, h, size):                                   # SEND, 127.0.0.1
    data = struct.pack("!BBHHH", 8, 0, 0, 0, 1) + b"x" * size
    name = struct.pack("<H", socket.AF_INET) + bytes(2) + \
        socket.inet_aton("127.0.0.1") + bytes(8)
    s.send(struct.pack("<HHIiII", 7, 0, h, 0, len(data), len(name)) +
           name + struct.pack("<I", 0) + data)

for i in range(70):
    s, h = conn()             # (its descriptors stay open: the socket too)
    send(s, h, 16000)
    answer(s)                 # at once; the next waits for min_interval
    send(s, h, 16000)
    send(s, h, 16000)
    s.close()
s, h = conn()
send(s, h, 16000)
answer(s)
send(s, h, 60000)
print("send=%d" % answer(s)[0])
PY
printf 'min_interval = 2000\n' >"$cfg"
hup_wait "$DAEMON_PID" "$T/d.log"
# The protocol's version: wire.h's.
wire_version=$(sed -n 's/^#define WIRE_VERSION \([0-9][0-9]*\)$/\1/p' \
	"$(dirname "$0")/../../src/wire/wire.h")
out=$(as_nobody d timeout 20 python3 "$T/parkgone.py" "$SOCK" "$wire_version" 2>&1)
[ "$out" = "send=60008" ] && pass daemon/parked_send_of_gone_client_freed ||
	fail daemon/parked_send_of_gone_client_freed "$out"
printf 'groups = 0 4294967294\n' >"$cfg"
hup_wait "$DAEMON_PID" "$T/d.log"

# --- the daemon goes away: calls fail at once, a new daemon serves again ---
as_nobody d "$PST" orphan 127.0.0.1 2 >"$T/orphan.out" 2>&1 &
orphan=$!
file_has "$T/orphan.out" '^before=' 10	# then 2 s before its next call
daemon_stop
t0=$(date +%s)
wait $orphan
rc=$?
t1=$(date +%s)
out=$(cat "$T/orphan.out")
if [ $rc = 0 ] && [ "$out" = $'before=reply\nsend=ECONNRESET\nrecv=ECONNRESET\nclose=0' ] &&
	[ $((t1 - t0)) -le 3 ]; then
	pass daemon/daemon_gone_econnreset
else
	fail daemon/daemon_gone_econnreset "rc=$rc $(tr '\n' ' ' <<<"$out")"
fi
daemon_start d --config "$cfg" || fail daemon/restart_after_stop "did not start"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
grep -q '^reply' <<<"$out" && pass daemon/new_socket_after_restart ||
	fail daemon/new_socket_after_restart "$out"

# --- start-up failures: one clear line each -------------------------------
out=$(in_ns d "$T/pingsockd" --foreground --socket "$SOCK" --user "$PS_DAEMON_USER" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q 'in use by a running pingsockd' <<<"$out" &&
	pass daemon/startup_path_in_use || fail daemon/startup_path_in_use "$rc $out"
out=$(in_ns d setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$T/pingsockd" --foreground --socket "$T/x/socket" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q 'must be started as root' <<<"$out" &&
	pass daemon/startup_not_root || fail daemon/startup_not_root "$rc $out"
printf 'groups = 1\n' >"$T/bad.conf"
out=$(in_ns d "$T/pingsockd" --foreground --config "$T/bad.conf" \
	--socket "$T/y/socket" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "$T/bad.conf:1: groups" <<<"$out" &&
	pass daemon/startup_config_error || fail daemon/startup_config_error "$rc $out"
out=$(in_ns d "$T/pingsockd" --foreground --user no-such-user-here \
	--socket "$T/z/socket" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q 'no such user' <<<"$out" &&
	pass daemon/startup_bad_user || fail daemon/startup_bad_user "$rc $out"

# Without --foreground it daemonises, and the parent reports readiness.
in_ns d "$T/pingsockd" --socket "$T/bg/socket" --user "$PS_DAEMON_USER"
rc=$?
bgpid=$(pgrep -f "pingsockd --socket $T/bg/socket")
[ $rc = 0 ] && [ -S "$T/bg/socket" ] && [ -n "$bgpid" ] &&
	pass daemon/daemonises || fail daemon/daemonises "rc=$rc"
[ -n "$bgpid" ] && DAEMON_PIDS+=("$bgpid") && kill -TERM "$bgpid"

# --- nice: the file's, --nice's; without CAP_SYS_NICE said, not fatal -----
daemon_stop
ns_new n closed
printf 'rate = 0\nmax_sockets = 0\nnice = 5\n' >"$T/nice.conf"
chmod 644 "$T/nice.conf"
nice_of() { ps -L -o nice= -p "$DAEMON_PID" | tr -d ' ' | sort -u | tr '\n' ' '; }
if daemon_start n --config "$T/nice.conf"; then
	v=$(nice_of)
	kill -HUP "$DAEMON_PID"; sleep 0.5
	[ "$v" = "5 " ] && [ "$(nice_of)" = "5 " ] && pass daemon/nice_from_file ||
		fail daemon/nice_from_file "threads at: $v, after SIGHUP $(nice_of)"
	daemon_stop
else
	fail daemon/nice_from_file "did not start"
fi
out=$("$T/pingsockd" --nice 20 2>&1)
rc=$?
[ $rc = 2 ] && grep -q -- '--nice 20: expected -20 to 19' <<<"$out" &&
	pass daemon/nice_option_checked || fail daemon/nice_option_checked "$rc $out"
printf 'nice = -21\n' >"$T/badnice.conf"
out=$("$T/pingsockd" --check-config --config "$T/badnice.conf" 2>&1)
rc=$?
[ $rc != 0 ] && grep -q "badnice.conf:1: nice: expected -20 to 19" <<<"$out" &&
	pass daemon/nice_key_checked || fail daemon/nice_key_checked "$rc $out"
# Root without CAP_SYS_NICE (a unit or container that leaves it out):
# the daemon says so and serves at the priority it has.
before=$(nice)
PS_DAEMON_WRAPPER="setpriv --bounding-set -sys_nice"
if daemon_start n --nice -7; then
	out=$(as_nobody n "$PST" ping 127.0.0.1 1 2>&1)
	if [ "$(nice_of)" = "$before " ] && grep -q '^reply' <<<"$out" &&
		grep -q "nice -7 not set (Permission denied); running at nice $before" "$T/n.log"; then
		pass daemon/nice_without_cap_said
	else
		fail daemon/nice_without_cap_said "at $(nice_of); $out; $(grep nice "$T/n.log")"
	fi
	daemon_stop
else
	fail daemon/nice_without_cap_said "did not start"
fi
unset PS_DAEMON_WRAPPER

ns_done
