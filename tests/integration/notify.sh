#!/bin/bash
# SPDX-License-Identifier: ISC
# pingsockd as a service manager sees it (issue 19, item 5):
#
#   - sd_notify over a real NOTIFY_SOCKET (a listener of this test's, a
#     path or an abstract name): READY=1 with STATUS= once it accepts,
#     RELOADING=1 with MONOTONIC_USEC= and READY=1 again around SIGHUP,
#     STOPPING=1 at SIGTERM, WATCHDOG=1 from the event loop at least once
#     every WATCHDOG_USEC (none when WATCHDOG_PID names another process);
#     an unusable NOTIFY_SOCKET stops the start with one line;
#   - the unit's way: started as its user with CAP_NET_RAW alone (ambient),
#     it serves pings, keeps no capability, has no_new_privs and its
#     filter, makes its socket 0666 in a directory of its own and removes
#     it, and Landlock refuses what the empty root would (an absolute
#     path) and what it would not (a path out through a kept directory's
#     ".."), root-started too; refusals: no CAP_NET_RAW, broker mode,
#     another --user;
#   - journald: with JOURNAL_STREAM naming its stderr, every line is
#     "<N>message" (no "pingsockd:", no time); naming another file, plain;
#   - syslog: daemonised without a /dev/log to reach, one warning on
#     stderr; with one, no warning and the records arrive there;
#   - --pidfile: the daemon's pid, not held by it after the drop; a symbolic link, or a
#     directory others may write, refused;
#   - the default configuration file is read when no --config is given,
#     and --no-config reads none.
. "$(dirname "$0")/../lib/netns.sh"

PS_DAEMON_GID=$(id -g "$PS_DAEMON_USER")
SBT=$T/tests/lib/pingsockd-sandboxtest
asan=0
nm "$T/pingsockd" 2>/dev/null | grep -q __asan_init && asan=1

ns_new d closed || { fail notify/setup "namespace"; ns_done; }
SOCK=$(ns_sock d)

# The service manager's end: datagrams on NAME (a path, or @abstract),
# each line "SECONDS MESSAGE" (monotonic clock; the message's newlines as
# "|") into FILE, until nothing came for TIMEOUT seconds.
cat >"$T/notify.py" <<'EOF'
import socket, sys, time
name, out, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + name[1:] if name[0] == "@" else name)
s.settimeout(timeout)
with open(out + ".up", "w"):
    pass
with open(out, "a", buffering=1) as f:
    while True:
        try:
            m = s.recv(4096).decode()
        except socket.timeout:
            break
        f.write("%.6f %s\n" % (time.monotonic(), m.replace("\n", "|")))
EOF

# (In the daemon's network namespace: abstract names are per namespace.)
listen() {	# name file timeout: in the background, once bound
	rm -f "$2" "$2.up"
	case $1 in /*) rm -f "$1" ;; esac
	ip netns exec "$(ns_name d)" python3 "$T/notify.py" "$1" "$2" "$3" &
	LISTENER=$!
	for _ in $(seq 1 100); do [ -e "$2.up" ] && return 0; sleep 0.05; done
	return 1
}

exited() {	# pid: its exit status once it ends (5 s), or 124
	for _ in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return $?; }
		sleep 0.05
	done
	return 124
}

wait_sock() {	# path
	for _ in $(seq 1 100); do [ -S "$1" ] && return 0; sleep 0.05; done
	return 1
}

# Until LOG says the loop runs (signals are handled from then on).
wait_ready() {	# log
	for _ in $(seq 1 100); do
		grep -q 'ready on' "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

ping_ok() {	# socket: one ping as nobody, answered
	in_ns d setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_SOCKET="$1" "$T/ping" -c 1 127.0.0.1 2>&1 |
		grep -q '^64 bytes from 127.0.0.1'
}

# --- READY, WATCHDOG, RELOADING, STOPPING over a path -----------------------

listen "$T/notify.sock" "$T/n1" 3
PS_DAEMON_WRAPPER="env NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=1600000" \
	daemon_start d || fail notify/start "$(cat "$T/d.log")"
pid=$DAEMON_PID
wait_ready "$T/d.log"
sleep 3.3
ping_ok "$SOCK" || fail notify/ping "$(tail -3 "$T/d.log")"
t_hup=$(python3 -c 'import time; print("%.6f" % time.monotonic())')
kill -HUP "$pid"
sleep 0.3
kill -TERM "$pid"
exited "$pid"
rc=$?
wait "$LISTENER"
msgs=$(cat "$T/n1" 2>/dev/null)

first=$(head -1 <<<"$msgs" | cut -d' ' -f2-)
grep -qE "^READY=1\|STATUS=serving on $SOCK \((relay|broker)\)$" <<<"$first" &&
	pass notify/ready_first_with_status ||
	fail notify/ready_first_with_status "$msgs"

# At least once every WATCHDOG_USEC (1.6 s) from READY to the reload,
# and every half of it (0.8 s) as a rule: the median gap is between 0.6
# and 1.2 s.  (One late beat, the daemon or the listener kept from a
# processor on a busy machine, is what the half interval's margin is
# for.)  A daemon beating at the full interval, or at a pace of its own
# that does not follow WATCHDOG_USEC, fails.
gaps=$(awk -v h="$t_hup" '$2 == "WATCHDOG=1" && $1 < h { if (p) print $1 - p; p = $1 }' <<<"$msgs")
n=$(wc -l <<<"$gaps")
if [ "$n" -ge 3 ] && awk '$1 > 1.6 { bad = 1 } END { exit bad }' <<<"$gaps" &&
	sort -n <<<"$gaps" | awk '{ g[NR] = $1 } END { m = g[int((NR + 1) / 2)]
		exit !(m >= 0.6 && m <= 1.2) }'; then
	pass notify/watchdog_every_half_interval
else
	fail notify/watchdog_every_half_interval "gaps: $(tr '\n' ' ' <<<"$gaps"); $msgs"
fi

# RELOADING=1 with the monotonic clock of the moment, then READY=1.
rl=$(grep -n ' RELOADING=1|MONOTONIC_USEC=' <<<"$msgs" | head -1)
rl_at=${rl%%:*}
usec=$(sed -n 's/.*MONOTONIC_USEC=\([0-9]*\).*/\1/p' <<<"$rl")
got=$(cut -d' ' -f1 <<<"${rl#*:}")
next=$(sed -n "$((${rl_at:-0} + 1)),\$p" <<<"$msgs" | grep -v ' WATCHDOG=1$' | head -1 | cut -d' ' -f2-)
if [ -n "$usec" ] && awk -v u="$usec" -v g="$got" 'BEGIN { d = u / 1e6 - g; exit !(d < 0.5 && d > -0.5) }' &&
	grep -q '^READY=1|STATUS=serving on .*, reloaded ' <<<"$next"; then
	pass notify/reloading_then_ready
else
	fail notify/reloading_then_ready "reloading '$rl', then '$next'"
fi

last=$(grep -v ' WATCHDOG=1$' <<<"$msgs" | tail -1 | cut -d' ' -f2-)
[ "$rc" = 0 ] && [ "$last" = 'STOPPING=1|STATUS=stopping' ] &&
	pass notify/stopping_last || fail notify/stopping_last "exit $rc, last '$last'"

# WATCHDOG_PID of another process: the watchdog is not ours.
listen "$T/notify.sock" "$T/n2" 1.5
PS_DAEMON_WRAPPER="env NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=200000 WATCHDOG_PID=1" \
	daemon_start d
wait_ready "$T/d.log"
sleep 0.8
daemon_stop
wait "$LISTENER"
grep -q ' READY=1' "$T/n2" && ! grep -q 'WATCHDOG=1' "$T/n2" &&
	pass notify/watchdog_pid_other_ignored ||
	fail notify/watchdog_pid_other_ignored "$(cat "$T/n2")"

# A NOTIFY_SOCKET nothing listens on: one line, exit 1, no socket made.
out=$(in_ns d env NOTIFY_SOCKET="$T/nowhere.sock" "$T/pingsockd" --foreground \
	--user "$PS_DAEMON_USER" --socket "$T/nn/socket" 2>&1)
rc=$?
[ $rc = 1 ] && [ "$out" = "pingsockd: NOTIFY_SOCKET=$T/nowhere.sock: No such file or directory" ] &&
	[ ! -e "$T/nn" ] && pass notify/unusable_socket_refused ||
	fail notify/unusable_socket_refused "exit $rc: $out"

# --- the unit's way: no root, CAP_NET_RAW alone, abstract NOTIFY_SOCKET --------

# unit_start LOG [env...] -- [args...]: as the unit starts it, on
# $T/own/socket (its directory the daemon's, as RuntimeDirectory= makes).
unit_start() {
	local log=$1; shift
	local e=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do e+=("$1"); shift; done
	shift
	# Not through a function: $! must be the daemon itself.
	ip netns exec "$(ns_name d)" env "${e[@]}" setpriv --reuid="$PS_DAEMON_USER" \
		--regid="$PS_DAEMON_GID" --clear-groups --inh-caps=+net_raw \
		--ambient-caps=+net_raw --bounding-set=-all,+net_raw --no-new-privs \
		"${BIN:-$T/pingsockd}" --foreground --socket "$T/own/socket" "$@" \
		2>>"$T/$log" &
	DAEMON_PID=$!
	DAEMON_PIDS+=("$DAEMON_PID")
}
install -d -m 0755 -o "$PS_DAEMON_USER" -g "$PS_DAEMON_GID" "$T/own"
abstract="@pingsock-notify-test-$$"
listen "$abstract" "$T/n3" 2
unit_start u.log NOTIFY_SOCKET="$abstract" -- --user "$PS_DAEMON_USER"
pid=$DAEMON_PID
wait_ready "$T/u.log"
sleep 0.2
st=$(cat "/proc/$pid/status" 2>/dev/null)
mode=$(stat -c %a "$T/own/socket" 2>/dev/null)
ping_ok "$T/own/socket" && pinged=1 || pinged=0
kill -TERM "$pid"
exited "$pid"
rc=$?
wait "$LISTENER"
grep -q ' READY=1|STATUS=serving on ' "$T/n3" && grep -q ' STOPPING=1' "$T/n3" &&
	pass notify/abstract_socket_after_sandbox ||
	fail notify/abstract_socket_after_sandbox "$(cat "$T/n3"); $(tail -3 "$T/u.log")"
[ $pinged = 1 ] && [ $rc = 0 ] && pass notify/no_root_serves_pings ||
	fail notify/no_root_serves_pings "exit $rc; $(cat "$T/u.log")"
grep -qP "^Uid:\t$PS_DAEMON_UID\t$PS_DAEMON_UID\t$PS_DAEMON_UID\t$PS_DAEMON_UID\$" <<<"$st" &&
	grep -qP '^CapEff:\t0+$' <<<"$st" && grep -qP '^CapPrm:\t0+$' <<<"$st" &&
	grep -qP '^CapInh:\t0+$' <<<"$st" && grep -qP '^CapAmb:\t0+$' <<<"$st" &&
	grep -qP '^NoNewPrivs:\t1$' <<<"$st" && grep -qP '^Seccomp:\t2$' <<<"$st" &&
	pass notify/no_root_privileges_dropped ||
	fail notify/no_root_privileges_dropped "$(grep -E '^(Uid|Cap|NoNew|Seccomp)' <<<"$st")"
[ "$mode" = 666 ] && [ ! -e "$T/own/socket" ] &&
	pass notify/no_root_socket_0666_removed ||
	fail notify/no_root_socket_0666_removed "mode $mode; $(ls -la "$T/own")"

# Landlock: an absolute path given to openat() on the config file's kept
# directory (which the filter lets through: it sees the descriptor only)
# is refused without the chroot, as the empty root refuses it; and a path
# out through that directory's "..", which the chroot alone would let
# through, is refused either way.  A reload still reads the file.
# The sanitizer build keeps the file system (LeakSanitizer reads /proc at
# exit): the plain build's pass checks this, the sanitizer's says nothing.
if [ $asan = 0 ]; then
	printf 'rate = 0\n' >"$T/ll.conf"
	chmod 644 "$T/ll.conf"
	for try in absolute dotdot; do
		: >"$T/ll.log"
		BIN=$SBT unit_start ll.log PINGSOCKD_TEST_TRY=$try -- --config "$T/ll.conf"
		pid=$DAEMON_PID
		wait_ready "$T/ll.log"
		kill -USR1 "$pid"; sleep 0.2
		kill -HUP "$pid"; sleep 0.2
		kill -TERM "$pid"; exited "$pid"
		grep -q 'Landlock closes the file system' "$T/ll.log" &&
			grep -q 'sandbox test: path open refused' "$T/ll.log" &&
			grep -q "reloaded $T/ll.conf" "$T/ll.log" &&
			pass "notify/no_root_landlock_$try" ||
			fail "notify/no_root_landlock_$try" "$(cat "$T/ll.log")"
		# A root start, chrooted.
		: >"$T/d.log"
		ip netns exec "$(ns_name d)" env PINGSOCKD_TEST_TRY=$try "$SBT" \
			--foreground --socket "$SOCK" --user "$PS_DAEMON_USER" \
			--config "$T/ll.conf" 2>>"$T/d.log" &
		pid=$!; DAEMON_PIDS+=("$pid")
		wait_ready "$T/d.log"
		kill -USR1 "$pid"; sleep 0.2; kill -TERM "$pid"; exited "$pid"
		grep -q 'sandbox test: path open refused' "$T/d.log" &&
			pass "notify/root_chroot_landlock_$try" ||
			fail "notify/root_chroot_landlock_$try" "$(cat "$T/d.log")"
	done
fi

# Refusals without root: one line, exit 1.
no_root_refused() {	# name, expected text, setpriv caps args, daemon args...
	local name=$1 want=$2 caps=$3; shift 3
	local out rc
	# shellcheck disable=SC2086
	out=$(in_ns d setpriv --reuid="$PS_DAEMON_USER" --regid="$PS_DAEMON_GID" \
		--clear-groups $caps "$T/pingsockd" --foreground \
		--socket "$T/own/socket" "$@" 2>&1)
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qF -- "$want" <<<"$out" &&
		pass "notify/$name" || fail "notify/$name" "exit $rc: $out"
}
raw="--inh-caps=+net_raw --ambient-caps=+net_raw"
no_root_refused no_root_without_net_raw_refused \
	"must be started as root, or with CAP_NET_RAW for relay mode" ""
no_root_refused no_root_broker_refused \
	"mode broker: needs a start as root" "$raw" --mode broker
no_root_refused no_root_other_user_refused \
	"--user root: started as $PS_DAEMON_USER without root" "$raw" --user root

# --- journald ------------------------------------------------------------------

# jstart LOG JOURNAL_STREAM-value: a root start, stderr to LOG; SIGHUP
# with a bad file (an error line), then SIGTERM.
jstart() {
	printf 'rate = 0\n' >"$T/j.conf"; chmod 644 "$T/j.conf"
	: >"$1"
	local js=$2
	[ "$js" = self ] && js=$(stat -c '%d:%i' "$1")
	ip netns exec "$(ns_name d)" env JOURNAL_STREAM="$js" "$T/pingsockd" --foreground \
		--user "$PS_DAEMON_USER" --socket "$SOCK" --config "$T/j.conf" 2>>"$1" &
	local p=$!; DAEMON_PIDS+=("$p")
	wait_ready "$1"
	printf 'groups = banana\n' >"$T/j.conf"
	kill -HUP "$p"; sleep 0.2; kill -TERM "$p"; exited "$p"
}
jstart "$T/j1.log" self
bad=$(grep -vE '^<[0-7]>[^<]' "$T/j1.log")
if [ -z "$bad" ] && grep -q "^<6>ready on $SOCK\$" "$T/j1.log" &&
	grep -q "^<3>reload refused, keeping the old policy: $T/j.conf:1: " "$T/j1.log" &&
	! grep -q 'pingsockd:' "$T/j1.log"; then
	pass notify/journal_priorities
else
	fail notify/journal_priorities "$(head -20 "$T/j1.log")"
fi
jstart "$T/j2.log" "1:1"
grep -q "^pingsockd: ready on $SOCK\$" "$T/j2.log" && ! grep -q '^<' "$T/j2.log" &&
	pass notify/journal_stream_of_another_file_ignored ||
	fail notify/journal_stream_of_another_file_ignored "$(head -5 "$T/j2.log")"

# --- syslog and --pidfile: daemonised ---------------------------------------------

# In a mount namespace of its own, /dev is DIR: /dev/null the real one,
# and /dev/log whatever DIR holds.  The starting command's output is
# checked; the daemon writes its pid to FILE.
mkdev() {	# dir
	mkdir -p "$1"
	touch "$1/null"
}
dstart() {	# dev-dir pidfile: prints the start's output, returns its status
	in_ns d unshare -m sh -c 'mount --make-rprivate / &&
		mount --bind /dev/null "$1/null" && mount --rbind "$1" /dev &&
		exec "$2" --user "$3" --socket "$4" --pidfile "$5"' sh \
		"$1" "$T/pingsockd" "$PS_DAEMON_USER" "$SOCK" "$2" 2>&1
}
mkdev "$T/dev1"
out=$(dstart "$T/dev1" "$T/run.pid")
rc=$?
dpid=$(cat "$T/run.pid" 2>/dev/null)
[ -n "$dpid" ] && DAEMON_PIDS+=("$dpid")
if [ $rc = 0 ] && [ "$(grep -c 'warning: syslog' <<<"$out")" = 1 ] &&
	grep -q "^pingsockd: warning: syslog (/dev/log): .*: the daemon's messages will be lost" <<<"$out"; then
	pass notify/syslog_unreachable_warns_once
else
	fail notify/syslog_unreachable_warns_once "exit $rc: $out"
fi
comm=$(cat "/proc/$dpid/comm" 2>/dev/null)
owner=$(stat -c '%U %a' "$T/run.pid" 2>/dev/null)
ping_ok "$SOCK" && pinged=1 || pinged=0
# The unprivileged daemon holds no descriptor of it: a compromised one
# kept one, open for writing, and could name any process there for the
# init script to signal as root.
held=$(find "/proc/$dpid/fd" -lname "$T/run.pid" 2>/dev/null | wc -l)
kill -TERM "$dpid" 2>/dev/null
for _ in $(seq 1 100); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.05; done
if [ "$comm" = pingsockd ] && [ "$owner" = "root 644" ] && [ $pinged = 1 ] &&
	[ "$held" = 0 ] && [ "$(cat "$T/run.pid")" = "$dpid" ]; then
	pass notify/pidfile_written_and_closed
else
	fail notify/pidfile_written_and_closed "pid '$dpid' ($comm), $owner, pinged $pinged, held $held, file '$(cat "$T/run.pid" 2>&1)'"
fi

# A listening /dev/log: no warning, and the records arrive there.
mkdev "$T/dev2"
listen "$T/dev2/log" "$T/syslog" 2
out=$(dstart "$T/dev2" "$T/run2.pid")
rc=$?
dpid=$(cat "$T/run2.pid" 2>/dev/null)
[ -n "$dpid" ] && DAEMON_PIDS+=("$dpid")
sleep 0.3
kill -TERM "$dpid" 2>/dev/null
wait "$LISTENER"
if [ $rc = 0 ] && ! grep -q 'syslog' <<<"$out" &&
	grep -q "pingsockd\[$dpid\]: ready on $SOCK" "$T/syslog"; then
	pass notify/syslog_reachable_no_warning
else
	fail notify/syslog_reachable_no_warning "exit $rc: $out; $(head -3 "$T/syslog")"
fi

# Refused: a symbolic link (its target untouched), a directory that
# others may write.
: >"$T/target"
ln -s "$T/target" "$T/link.pid"
out=$(in_ns d "$T/pingsockd" --foreground --user "$PS_DAEMON_USER" \
	--socket "$T/p1/socket" --pidfile "$T/link.pid" 2>&1)
rc=$?
[ $rc = 1 ] && [ "$out" = "pingsockd: --pidfile $T/link.pid: is a symbolic link" ] &&
	[ ! -s "$T/target" ] && [ ! -e "$T/p1" ] && pass notify/pidfile_symlink_refused ||
	fail notify/pidfile_symlink_refused "exit $rc: $out"
install -d -m 0777 "$T/open"
out=$(in_ns d "$T/pingsockd" --foreground --user "$PS_DAEMON_USER" \
	--socket "$T/p2/socket" --pidfile "$T/open/d.pid" 2>&1)
rc=$?
[ $rc = 1 ] && grep -q "writable by nobody else" <<<"$out" && [ ! -e "$T/open/d.pid" ] &&
	pass notify/pidfile_open_directory_refused ||
	fail notify/pidfile_open_directory_refused "exit $rc: $out"

# --help says what the man page says: the pid stays in the file at exit
# (the daemon closed it before the drop); it said "emptied at exit".
help=$("$T/pingsockd" --help 2>&1 | grep -A1 -e '--pidfile PATH' | tr -s ' \n' ' ')
grep -q 'left there at exit' <<<"$help" && ! grep -q emptied <<<"$help" &&
	pass notify/pidfile_help_matches_man || fail notify/pidfile_help_matches_man "$help"

# --- the default configuration file --------------------------------------------

# In a mount namespace where the deepest existing directory above the
# default file (its path from --help) is a copy with the file in it
# ("groups = 1 0": nobody may ping): read without --config; --no-config
# and an explicit --config win over it.
default=$("$T/pingsockd" --help | sed -n 's/^ *default \(\/.*\), if it exists$/\1/p')
top=$(dirname "$default")
while [ -n "$default" ] && [ ! -d "$top" ]; do top=$(dirname "$top"); done
if [ -z "$default" ] || [ -e "$default" ] || [ "$top" = / ]; then
	skip notify/default_config_read "default '$default' (exists, or no directory to stand in for)"
else
	cp -a "$top" "$T/top"
	rel=${default#"$top"/}
	mkdir -p "$(dirname "$T/top/$rel")"
	printf 'groups = 1 0\n' >"$T/top/$rel"
	chmod 644 "$T/top/$rel"
	cstart() {	# args...: start, one ping as nobody, stop; 0 if answered
		: >"$T/c.log"
		ip netns exec "$(ns_name d)" unshare -m sh -c 'mount --make-rprivate / &&
			mount --rbind "$1" "$2" && shift 2 && exec "$@"' sh "$T/top" "$top" \
			"$T/pingsockd" --foreground --user "$PS_DAEMON_USER" \
			--socket "$SOCK" "$@" 2>>"$T/c.log" &
		local p=$!; DAEMON_PIDS+=("$p")
		wait_ready "$T/c.log"
		ping_ok "$SOCK"; local r=$?
		kill -TERM "$p"; exited "$p"
		return $r
	}
	printf 'rate = 0\n' >"$T/other.conf"; chmod 644 "$T/other.conf"
	! cstart && grep -q 'refused socket: uid=65534' "$T/c.log" &&
		pass notify/default_config_read ||
		fail notify/default_config_read "$default: $(tail -5 "$T/c.log")"
	cstart --no-config && pass notify/no_config_reads_none ||
		fail notify/no_config_reads_none "$(tail -5 "$T/c.log")"
	cstart --config "$T/other.conf" && pass notify/config_option_wins ||
		fail notify/config_option_wins "$(tail -5 "$T/c.log")"
fi

ns_done
