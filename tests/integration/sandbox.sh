#!/bin/bash
# SPDX-License-Identifier: ISC
# sandbox - pingsockd after start-up (issue 8, item 1; src/daemon/sandbox.h):
# the seccomp filter is in force (Seccomp: 2) with no_new_privs and no
# capabilities, in the foreground and daemonised; its / is an empty,
# deleted directory; pings, SIGHUP reloads and the socket's removal at
# exit still work inside it; and a forbidden system call, made by the
# test build (pingsockd-sandboxtest, -DPSD_TESTING: SIGUSR1 opens
# /etc/passwd for writing, SIGUSR2 calls execve) after start-up, kills the
# daemon with SIGSYS and names the call in its log.  The installed pingsockd
# has no such trigger.
. "$(dirname "$0")/../lib/netns.sh"

PST=$T/tests/lib/pstool
SBT=$T/tests/lib/pingsockd-sandboxtest
asan=0
nm "$T/pingsockd" 2>/dev/null | grep -q __asan_init && asan=1

ns_new d closed || { fail sandbox/setup "namespace"; ns_done; }
cfg=$T/sandbox.conf
printf 'groups = 0 4294967294\n' >"$cfg"
chmod 644 "$cfg"
daemon_start d --config "$cfg" || { fail sandbox/start "did not start"; ns_done; }
SOCK=$(ns_sock d)
pid=$DAEMON_PID

# status_ok PID: the filter, no_new_privs and no capabilities.
status_ok() {
	local st=/proc/$1/status
	grep -q '^Seccomp:[[:space:]]*2$' "$st" &&
		grep -q '^NoNewPrivs:[[:space:]]*1$' "$st" &&
		grep -q '^CapEff:[[:space:]]*0000000000000000$' "$st" &&
		grep -q '^CapPrm:[[:space:]]*0000000000000000$' "$st"
}
status_of() { grep -E '^(Seccomp|NoNewPrivs|CapEff|CapPrm):' "/proc/$1/status" | tr '\n' ' '; }

# root_ok PID: / is the new directory next to the socket, empty and gone.
root_ok() {
	local root dir=$2
	root=$(readlink "/proc/$1/root")
	[[ $root == "$dir"/.pingsockd-root.*" (deleted)" ]] &&
		[ -z "$(ls -A "/proc/$1/root/" 2>&1)" ]
}

status_ok "$pid" && pass sandbox/filter_in_force ||
	fail sandbox/filter_in_force "$(status_of "$pid")"

# The sanitizer build keeps the file system (LeakSanitizer reads /proc
# at exit); the plain build checks the chroot.
if [ $asan = 0 ]; then
	if root_ok "$pid" "$(dirname "$SOCK")" &&
		[ -z "$(find "$(dirname "$SOCK")" -name '.pingsockd-root.*')" ]; then
		pass sandbox/root_is_empty_deleted_dir
	else
		fail sandbox/root_is_empty_deleted_dir "root $(readlink "/proc/$pid/root"): $(ls -A "/proc/$pid/root/" 2>&1 | head -3)"
	fi
fi

# Served pings, both families, from inside the sandbox.
out=$(as_nobody d "$T/ping" -c 2 -i 0.2 127.0.0.1 2>&1)
grep -q '2 packets transmitted, 2 received' <<<"$out" &&
	pass sandbox/ping_ipv4 || fail sandbox/ping_ipv4 "$out"
out=$(as_nobody d "$T/ping" -c 2 -i 0.2 ::1 2>&1)
grep -q '2 packets transmitted, 2 received' <<<"$out" &&
	pass sandbox/ping_ipv6 || fail sandbox/ping_ipv6 "$out"
out=$(as_nobody d "$PST" pair 127.0.0.1 6101 6102)
[ "$out" = $'sock0 seq=100\nsock1 seq=200' ] && pass sandbox/bind_and_demux ||
	fail sandbox/bind_and_demux "$out"

# SIGHUP re-reads the config through the kept directory handle: a
# changed file applies, and one replaced by rename (as editors do) too.
printf 'groups = 100 200\n' >"$cfg"
hup_wait "$pid" "$T/d.log"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
if kill -0 "$pid" && grep -q 'socket=EACCES' <<<"$out" &&
	grep -q "reloaded $cfg" "$T/d.log"; then
	pass sandbox/sighup_applies_changed_config
else
	fail sandbox/sighup_applies_changed_config "$out / $(tail -3 "$T/d.log")"
fi
printf 'groups = 0 4294967294\n' >"$cfg.new"
chmod 644 "$cfg.new"
mv "$cfg.new" "$cfg"
hup_wait "$pid" "$T/d.log"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
kill -0 "$pid" && grep -q '^reply' <<<"$out" &&
	pass sandbox/sighup_after_rename || fail sandbox/sighup_after_rename "$out"
printf 'groups = banana\n' >"$cfg"
hup_wait "$pid" "$T/d.log"
out=$(as_nobody d "$PST" ping 127.0.0.1 1 2>&1)
kill -0 "$pid" && grep -q '^reply' <<<"$out" && grep -q "$cfg:1:" "$T/d.log" &&
	pass sandbox/bad_reload_keeps_policy ||
	fail sandbox/bad_reload_keeps_policy "$out / $(tail -2 "$T/d.log")"
printf 'groups = 0 4294967294\n' >"$cfg"

# Nothing in the log says the filter refused anything, and SIGTERM
# removes the socket from outside the chroot.
daemon_stop
rc=$?
if [ $rc = 0 ] && [ ! -e "$SOCK" ] && ! grep -q 'forbidden system call' "$T/d.log"; then
	pass sandbox/clean_stop_removes_socket
else
	fail sandbox/clean_stop_removes_socket "exit $rc, $(ls -A "$(dirname "$SOCK")"); $(grep sandbox "$T/d.log")"
fi

# Daemonised: the same sandbox.
in_ns d "$T/pingsockd" --socket "$T/bg/socket" --user "$PS_DAEMON_USER" --config "$cfg"
rc=$?
bgpid=$(pgrep -f "pingsockd --socket $T/bg/socket")
[ -n "$bgpid" ] && DAEMON_PIDS+=("$bgpid")
if [ $rc = 0 ] && [ -n "$bgpid" ] && status_ok "$bgpid" &&
	{ [ $asan = 1 ] || root_ok "$bgpid" "$T/bg"; }; then
	pass sandbox/daemonised_too
else
	fail sandbox/daemonised_too "rc=$rc pid=$bgpid $( [ -n "$bgpid" ] && status_of "$bgpid") root $(readlink "/proc/$bgpid/root" 2>&1)"
fi
out=$(in_ns d setpriv --reuid=65534 --regid=65534 --clear-groups \
	env PINGSOCK_SOCKET="$T/bg/socket" "$PST" ping 127.0.0.1 1 2>&1)
grep -q '^reply' <<<"$out" && pass sandbox/daemonised_serves ||
	fail sandbox/daemonised_serves "$out"
[ -n "$bgpid" ] && kill -TERM "$bgpid"

# ---- the forbidden calls (test build) --------------------------------
if ! [ -x "$SBT" ]; then
	fail sandbox/test_build "no $SBT"
	ns_done
fi

# The installed daemon has no trigger; the test build has it.
if ! nm "$T/pingsockd" | grep -q test_forbidden &&
	! grep -qa 'sandbox test' "$T/pingsockd" &&
	nm "$SBT" | grep -q test_forbidden; then
	pass sandbox/trigger_only_in_test_build
else
	fail sandbox/trigger_only_in_test_build "nm/strings of $T/pingsockd"
fi

# forbidden SIGNAL CALL: start the test build, ping, send the signal,
# expect death by SIGSYS and "forbidden system call CALL (NR)" in its log.
forbidden() {
	local sig=$1 call=$2 short=t$1 sock log p rc out
	sock=$T/run-$short/socket
	log=$T/$short.log
	ip netns exec "$(ns_name d)" "$SBT" --foreground --socket "$sock" \
		--user "$PS_DAEMON_USER" --config "$cfg" 2>"$log" &
	p=$!
	DAEMON_PIDS+=("$p")
	for _ in $(seq 1 100); do
		[ -S "$sock" ] && break
		sleep 0.05
	done
	out=$(in_ns d setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_SOCKET="$sock" "$PST" ping 127.0.0.1 1 2>&1)
	status_ok "$p" || out="$out; $(status_of "$p")"
	kill "-$sig" "$p"
	for _ in $(seq 1 50); do	# it dies at once; never hang here
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null && out="$out; still running 5 s after SIG$sig"
	wait "$p" 2>/dev/null
	rc=$?
	if [ $rc = $((128 + 31)) ] && grep -q '^reply' <<<"$out" &&
		grep -qE "^pingsockd: sandbox: forbidden system call $call \([0-9]+\)" "$log"; then
		pass "sandbox/forbidden_${call}_kills_with_sigsys"
	else
		fail "sandbox/forbidden_${call}_kills_with_sigsys" "exit $rc (want 159, SIGSYS), $out; log: $(tail -3 "$log")"
	fi
}
forbidden USR1 openat	# open() of a path for writing
forbidden USR2 execve	# not on the list at all

# Daemonised with --log-file: the reason is in the file.
in_ns d "$SBT" --socket "$T/bg2/socket" --user "$PS_DAEMON_USER" --log-file "$T/bg2.log"
bgpid=$(pgrep -f "pingsockd-sandboxtest --socket $T/bg2/socket")
[ -n "$bgpid" ] && DAEMON_PIDS+=("$bgpid") && kill -USR2 "$bgpid"
for _ in $(seq 1 50); do
	[ -n "$bgpid" ] && kill -0 "$bgpid" 2>/dev/null || break
	sleep 0.1
done
if [ -n "$bgpid" ] && ! kill -0 "$bgpid" 2>/dev/null &&
	grep -qE ' crit: sandbox: forbidden system call execve \([0-9]+\)' "$T/bg2.log"; then
	pass sandbox/daemonised_reason_in_log_file
else
	fail sandbox/daemonised_reason_in_log_file "pid $bgpid; $(tail -2 "$T/bg2.log" 2>&1)"
fi

ns_done
