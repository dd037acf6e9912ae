#!/bin/bash
# SPDX-License-Identifier: ISC
# security - the attacks of issue 15's audit, each made again as the
# audit made it, and shown to do no harm now.  One section per finding
# (the numbers are the issue's); each prints PASS/FAIL lines named
# security/<finding>_<what>.  The attacks are tests/lib/attack.c; the
# victims are other users' pings (ping -c 3 -i 0.2: 3 of 3 within 10 s,
# a bound no quiet machine needs and no harm stays under: the audit
# measured 9-14 s for one ping, or none at all).
#
#  1  symlink race at start-up: a racer of the daemon's user (inotify and
#     a tight loop) swaps the fresh socket for a link to a root-owned
#     file over 20 restarts; the file is untouched.  --log-file refuses
#     files that are another user's, links, or with two names.
#  2  lingering descriptor: a TCP socket whose close blocks for 30 s,
#     passed before HELLO and on a data descriptor: refused by the kernel
#     (SO_PASSRIGHTS), or taken by the closing thread (the test build,
#     PINGSOCKD_TEST_CLOSER=thread); another user's ping is on time, also
#     when the connection hangs up with it queued behind an empty record
#     or an unread answer.  The thread starts safely under the seccomp
#     filter and leaves SIGTERM and SIGHUP to the loop.
#  3  broker steal: connect(AF_UNSPEC) and bind() to another user's
#     identifier on a handed-out kernel socket: EINVAL, nothing received
#     (victims served by broker and by relay, relay_uids).
#  4  namespaces: a client of another network namespace (ip netns, and
#     an unprivileged `unshare -rn` sandbox) gets EACCES, a pingsock_why()
#     that names the namespace, and no reply from the daemon's network,
#     relay and broker.
#  5  connection flood: max_connections, and a daemon short of
#     descriptors: the flooding uid is refused, at a bounded log rate,
#     without a spinning accept(); another user's ping is on time.
#  6  parked sends: one socket attached on 1,000 connections, each with
#     a 60,000-byte send that the rate makes wait: ENOBUFS at once, the
#     daemon's memory bounded, another user's ping on time.
#  7  broker max_sockets: WIRE_BROKER_BIND again and again, and binds
#     through the library with a dup() of each old socket kept: never
#     more than max_sockets + 1 kernel sockets.
#  9  raw_compat hoarding: four users take identifiers with emulated raw
#     sockets; max_idents stops each, and with no cap the fair share
#     still leaves a fifth user its ping, whether the four come at once
#     or one after another.
# 10  the daemon's user: nobody, a user owning its home, a user another
#     process runs as: refused unless --allow-shared-user; no pingsock
#     user: the error says how to make it.
# 11  demo's pid file: a link planted in /run/pingsock is not followed.
# 13  log flood: 1,000 malformed requests all counted, logged at ~10 a
#     second and summed up in "N more protocol errors not logged".
# 22  (rev35 F2) that flood does not hide another uid's line: the limit
#     is per uid and class, and the summary names the uid.
# 15  sandbox: IP_HDRINCL kills (SIGSYS), an abstract unix connect is
#     refused (Landlock), an inherited descriptor is closed at start.
# 16  a broker group inside someone's /etc/subgid range is refused.
# 17  the answer slot's protocol (wire.h: WIRE_RQ_SLOT, WIRE_WAIT) broken
#     three ways: each disconnects and counts; kept, it answers.
# 18  a send made to wait outlives its socket, whose handle comes round
#     to a new socket: EBADF, not a send through that one (the daemon
#     died of it in broker mode).
# 19  proofs of holding a socket: a wrong nonce uses none up, and two
#     written one after the other each work once; eight queued survive
#     a wrong nonce that reads them all (rv10 F3).
# 23  (rv10 F1) descriptors passed on a socket's data descriptor, 16
#     records of 200: refused by the kernel (SO_PASSRIGHTS, 6.16), or
#     (the test build's closing thread, as on older kernels) the first
#     record ends the daemon's reading of that socket for good: an
#     attach took up to 64 records, 12,800 descriptors, in the loop.
# 24  (rv10 F2) waiting sends (min_interval) all due at once: sent in
#     their user's turns of the loop, not all ahead of another user's.
# 20  one socket attached from 3,000 new state arenas, one after the
#     other: the daemon's mappings stay bounded (64 arenas of a user at
#     most without a connection), another user pings.
# 21  junk written on 2,000 sockets' data descriptors: the daemon does
#     not read it (it stays idle), another user pings.
# fifo (rev35 F5) a user's FIFO at --pidfile, --log-file, --config in a
#     sticky directory: refused at once, not a start hung for ever.
# impostor (rev35 F4) a user's listener (or file) at the socket's path in
#     a sticky directory: replaced, said so, and the daemon serves.
# (8, the library against an impostor daemon: impostor.sh; 12, LSRR:
# tests/conformance/ipopts.c; 14: broker.sh's restored range.)
#
# Everything runs in namespaces made here (the host's network is never
# touched), clients as unprivileged uids through setpriv; what the daemon
# refuses to start with is tried in throw-away mount namespaces (a copy of
# /etc/passwd or /etc/subgid bind-mounted), never by editing the host's.
#
# PS_SECURITY_OLD=1 runs the same attacks against a build of the code
# before the fixes (c5a466f): config keys it does not know
# (max_connections, max_idents) are left out, and its daemon user was
# nobody.  SEC_ONLY="race linger ..." runs some sections only.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

if [ "$(id -u)" != 0 ]; then
	skip security "needs root for network namespaces"
	ns_done
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OLD=${PS_SECURITY_OLD:-0}
: "${PS_DAEMON_USER:=nobody}"	# (the code before the fixes had no user)
DUID=$(id -u "$PS_DAEMON_USER")
DGID=$(id -g "$PS_DAEMON_USER")
ATK=$T/tests/lib/attack
PST=$T/tests/lib/pstool
SBT=$T/tests/lib/pingsockd-sandboxtest
ASAN=0
nm "$T/pingsockd" 2>/dev/null | grep -q __asan_init && ASAN=1
G=$BROKER_GID
BGPIDS=()
T0=$(date +%s%3N)

ms() { date +%s%3N; }

# Stop what the sections left running: attackers wait for their stop
# files, then go; then netns.sh's clean-up (daemons, namespaces, $T).
sec_cleanup() {
	local p
	touch "$T"/stop.* "$T"/pingsockd-race.stop 2>/dev/null
	for p in "${BGPIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	sleep 0.2
	for p in "${BGPIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	ns_cleanup
}
trap sec_cleanup EXIT

wanted() { [ -z "${SEC_ONLY:-}" ] || [[ " $SEC_ONLY " == *" $1 "* ]]; }

# wait_for SECONDS 'COMMANDS': until they succeed (0) or time is up (1).
wait_for() {
	local n=$(($1 * 20))
	for _ in $(seq 1 $n); do
		eval "$2" && return 0
		sleep 0.05
	done
	return 1
}

# check NAME WHY-IF-FAILED CONDITION...: pass or fail NAME.
check() {
	local name=$1 why=$2; shift 2
	if "$@"; then pass "security/$name"; else fail "security/$name" "$why"; fi
}

# conf NAME LINES: a config file $T/NAME.conf; the code before the fixes
# knew no max_connections or max_idents (PS_SECURITY_OLD=1).
conf() {
	printf '%b' "$2" >"$T/$1.conf"
	if [ "$OLD" = 1 ]; then
		sed -i -E '/^(max_connections|max_idents) /d' "$T/$1.conf"
	fi
	chmod 644 "$T/$1.conf"
	echo "$T/$1.conf"
}

# dstart TAG SHORT [pingsockd args...]: a daemon in namespace SHORT, on
# $T/run-TAG/socket, logging to $T/TAG.log; DBIN and DWRAP choose another
# binary and a wrapper.  Waits until its socket exists (not with DNOWAIT
# set).  DPID[TAG].
declare -A DPID=() DNS=()
dsock() { echo "$T/run-$1/socket"; }
dstart() {
	local tag=$1 short=$2 sock; shift 2
	sock=$(dsock "$tag")
	# Not through a function: $! must be the daemon itself.
	ip netns exec "$(ns_name "$short")" ${DWRAP:-} "${DBIN:-$T/pingsockd}" \
		--foreground --socket "$sock" --user "$PS_DAEMON_USER" "$@" \
		2>>"$T/$tag.log" &
	DPID[$tag]=$!
	DNS[$tag]=$short
	DAEMON_PIDS+=("$!")
	[ -z "${DNOWAIT:-}" ] || return 0
	wait_for 10 "[ -S '$sock' ] || ! kill -0 ${DPID[$tag]} 2>/dev/null"
	[ -S "$sock" ] && return 0
	echo "# $tag: pingsockd did not start: $(tail -3 "$T/$tag.log" | tr '\n' ' ')"
	return 1
}
dstop() {
	kill -TERM "${DPID[$1]}" 2>/dev/null
	reap "${DPID[$1]}"
}
alive() { [ -n "${DPID[$1]:-}" ] && kill -0 "${DPID[$1]}" 2>/dev/null; }
stat_of() {
	in_ns "${DNS[$1]}" timeout 5 "$T/pingsockctl" --socket "$(dsock "$1")" \
		status 2>/dev/null | awk -v k="$2" '$1 == k { print $2 }'
}
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/${DPID[$1]}/status" 2>/dev/null; }
# The daemon's CPU time so far, in clock ticks (utime + stime).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/${DPID[$1]}/stat" 2>/dev/null; }

# as UID TAG cmd...: as that uid (its own group, no others), a client of
# TAG's daemon, in the daemon's namespace.
as() {
	local uid=$1 tag=$2; shift 2
	in_ns "${DNS[$tag]}" setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		env PINGSOCK_SOCKET="$(dsock "$tag")" "$@"
}
# bg OUT UID TAG cmd...: as, in the background (output to OUT); BG.
bg() {
	local out=$1 uid=$2 tag=$3; shift 3
	# Not through a function: $! must be the program itself.
	ip netns exec "$(ns_name "${DNS[$tag]}")" setpriv --reuid="$uid" \
		--regid="$uid" --clear-groups \
		env PINGSOCK_SOCKET="$(dsock "$tag")" "$@" >"$out" 2>&1 &
	BG=$!
	BGPIDS+=("$BG")
}
# reap PID [SECONDS]: wait for an attacker that was told to stop; one
# that does not stop in time (10 s) is killed.
reap() {
	wait_for "${2:-10}" "! kill -0 $1 2>/dev/null" || kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
# line_in FILE ERE SECONDS: the file has such a line in time.
line_in() { wait_for "$3" "grep -Eq -e '$2' '$1' 2>/dev/null"; }

# ping3 UID TAG: ping -c 3 -i 0.2 127.0.0.1 through TAG's daemon; sets
# PING_OK (3 of 3 within 10 s) and PING_SAYS.
ping3() {
	local t0 out t
	t0=$(ms)
	out=$(as "$1" "$2" env PINGSOCK_BACKEND=daemon timeout -k 2 12 "$T/ping" -c 3 \
		-i 0.2 -q 127.0.0.1 2>&1)
	t=$(( $(ms) - t0 ))
	PING_SAYS="uid $1: $(grep -E 'transmitted|ping:' <<<"$out" | tr '\n' ' ')in ${t} ms"
	PING_OK=0
	grep -q '^3 packets transmitted, 3 received' <<<"$out" && [ "$t" -lt 10000 ] &&
		PING_OK=1
	echo "# $PING_SAYS"
	[ $PING_OK = 1 ]
}

ns_new d closed && ns_new p closed && ns_new x closed && ns_new b closed &&
	ns_new m closed &&
	ns_veth d p 10.214.0.1/24 10.214.0.2/24 &&
	ns_veth b p 10.214.1.1/24 10.214.1.2/24 ||
	{ fail security/setup "namespaces"; ns_done; }
P4=10.214.0.2 PB4=10.214.1.2
if ! [ -x "$ATK" ]; then
	fail security/setup "no $ATK: build it (make)"
	ns_done
fi
UNLIMITED=$(conf unlimited 'rate = 0\nmax_sockets = 0\n')

# ==== 1. the socket swapped for a link at start-up; --log-file ===========
sec_race() {
	local dir=$T/run-race sock victim=$T/victim.race out i st ready
	sock=$dir/socket
	printf 'root-secret\n' >"$victim"
	chown root:root "$victim" && chmod 600 "$victim"
	dstart race d --config "$UNLIMITED" ||
		{ fail security/1_race_setup "no daemon"; return; }
	st="dir $(stat -c '%u:%g %a' "$dir") socket $(stat -c '%u:%g %a %F' "$sock")"
	dstop race
	check 1_socket_dir_and_file_owners "$st (want dir 0:$DGID 775, socket 0:0 666)" \
		[ "$st" = "dir 0:$DGID 775 socket 0:0 666 socket" ]
	# The racer is the daemon's user (and group), who may write in the
	# directory.  Its command line names a pingsockd (the stop file), so
	# that daemons that other tests start meanwhile do not take it for a
	# process sharing their user (privdrop.c), which they refuse.
	rm -f "$T/pingsockd-race.stop"
	ip netns exec "$(ns_name d)" setpriv --reuid="$DUID" --regid="$DGID" \
		--clear-groups "$ATK" race "$dir" socket "$victim" \
		"$T/pingsockd-race.stop" >"$T/race.out" 2>&1 &
	local racer=$!
	BGPIDS+=("$racer")
	sleep 0.2
	ready=$(grep -c 'ready on' "$T/race.log")
	for i in $(seq 1 20); do
		rm -f "$sock"	# whatever the racer left there: root's to clear
		# Its socket may be gone already: wait for the log instead.
		DNOWAIT=1 dstart race d --config "$UNLIMITED"
		wait_for 5 "[ \$(grep -c 'ready on' '$T/race.log') -ge $((ready + 1)) ] ||
			! kill -0 ${DPID[race]} 2>/dev/null"
		ready=$(grep -c 'ready on' "$T/race.log")
		dstop race
	done
	touch "$T/pingsockd-race.stop"
	reap "$racer"
	out=$(tr '\n' ' ' <"$T/race.out")
	echo "# 20 restarts, $((ready - 1)) ready; racer: $out"
	st="$(stat -c '%u:%g %a' "$victim") $(cat "$victim")"
	check 1_race_victim_untouched "victim now $st; racer: $out" \
		[ "$st" = "0:0 600 root-secret" ]
	# The attack must have been made: the racer did swap, many times.
	check 1_race_attack_made "racer: $out" \
		grep -Eq 'inotify_swaps=[1-9]' "$T/race.out"
	rm -f "$sock"
	sec_logfile
}

# --log-file FILE is refused (the daemon exits 1 at once, saying why):
# another user's file in a sticky directory, a symbolic link, two links.
logfile_refused() {	# NAME FILE ERE
	local out rc ok=0
	out=$(in_ns d timeout 3 "$T/pingsockd" --foreground --socket \
		"$T/run-lf/socket" --user "$PS_DAEMON_USER" --log-file "$2" 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -Eq -e "$3" <<<"$out" && ok=1
	check "1_log_file_$1" "exit $rc: $out" [ $ok = 1 ]
}
sec_logfile() {
	mkdir -p "$T/sticky" "$T/logs" && chmod 1777 "$T/sticky"
	setpriv --reuid=1000 --regid=1000 --clear-groups touch "$T/sticky/user.log"
	logfile_refused others_file_in_sticky_dir "$T/sticky/user.log" \
		'--log-file .*owned by uid 1000'
	printf 'kept\n' >"$T/logs/target"
	ln -s "$T/logs/target" "$T/logs/link.log"
	logfile_refused symlink "$T/logs/link.log" 'is a symbolic link'
	: >"$T/logs/two.log"
	ln "$T/logs/two.log" "$T/logs/two-again.log"
	logfile_refused two_links "$T/logs/two.log" '2 links'
	check 1_log_file_link_target_untouched "$(stat -c '%s %a' "$T/logs/target")" \
		[ "$(cat "$T/logs/target")" = kept ]
}

# ==== 2. a descriptor whose close blocks =================================
# linger_case TAG MODE: uid 1000 passes the lingering TCP socket (MODE
# hello: on a new connection before HELLO; data: on a socket's data
# descriptor) and holds its peer; meanwhile uid 65534 pings.  Whose
# close of it is the last is a race the attacker can retry until won:
# the daemon is stopped while the attacker sends and lets go of its own
# copy, so that the daemon's is the last every time.  Sets LINGER_OUT
# (the attacker's lines) and PING_OK.
linger_case() {
	local tag=$1 mode=$2 out=$T/linger.$1.$2 atk
	rm -f "$T/stop.linger" "$T/go.linger"
	bg "$out" 1000 "$tag" "$ATK" linger "$mode" "$T/go.linger" "$T/stop.linger"
	atk=$BG
	line_in "$out" '^ready$' 10
	kill -STOP "${DPID[$tag]}"
	touch "$T/go.linger"
	line_in "$out" '^passed$' 10
	kill -CONT "${DPID[$tag]}"
	ping3 65534 "$tag"
	line_in "$out" '^peer=' 12
	LINGER_OUT=$(tr '\n' ' ' <"$out")
	echo "# $tag $mode: attacker: $LINGER_OUT"
	touch "$T/stop.linger"
	reap "$atk"
}
sec_linger() {
	local m out rc
	dstart lg d --config "$UNLIMITED" ||
		{ fail security/2_linger_setup "no daemon"; return; }
	for m in hello data; do
		linger_case lg $m
		# Linux 6.16 has SO_PASSRIGHTS; before, the thread of the
		# test build's case below is what the daemon does.
		if grep -q 'no SO_PASSRIGHTS' "$T/lg.log"; then
			check "2_linger_${m}_taken_by_thread" "$LINGER_OUT" \
				grep -q 'send=ok' <<<"$LINGER_OUT"
		else
			check "2_linger_${m}_refused_by_kernel" "$LINGER_OUT" \
				grep -q 'send=EPERM' <<<"$LINGER_OUT"
		fi
		check "2_linger_${m}_others_ping_on_time" "$PING_SAYS" [ $PING_OK = 1 ]
	done
	alive lg && dstop lg
	# A kernel without SO_PASSRIGHTS: the descriptors arrive, and the
	# closing thread takes them (the test build can be told to).  The
	# thread must have started before the seccomp filter (it died of
	# SIGSYS, silently, in 1 start of 10; on one CPU in 5): a few starts
	# on one CPU, each alive and serving.
	for m in 1 2 3 4; do
		DBIN=$SBT DWRAP="taskset -c 0 env PINGSOCKD_TEST_CLOSER=thread" \
			dstart lgs$m d --config "$UNLIMITED" >/dev/null
	done
	sleep 0.5
	out=""
	for m in 1 2 3 4; do
		alive lgs$m || out="$out start $m: $(tail -1 "$T/lgs$m.log")"
		dstop lgs$m
	done
	check 2_linger_thread_starts_under_filter "$out" [ -z "$out" ]
	DBIN=$SBT DWRAP="env PINGSOCKD_TEST_CLOSER=thread" \
		dstart lgt d --config "$UNLIMITED" ||
		{ fail security/2_linger_thread_setup "no daemon"; return; }
	check 2_linger_thread_forced "$(tail -2 "$T/lgt.log" | tr '\n' ' ')" \
		grep -q 'no SO_PASSRIGHTS (forced)' "$T/lgt.log"
	# empty, reset: the connection hangs up with the descriptor queued
	# behind an empty record, or with its answer unread (ECONNRESET at
	# the daemon's first read): the daemon's drain stops before it, and
	# its own close of the connection released it in the loop (before
	# this test: others' pings waited out the 30 s).
	for m in hello data empty reset; do
		linger_case lgt $m
		check "2_linger_thread_${m}_others_ping_on_time" "$PING_SAYS" \
			[ $PING_OK = 1 ]
		check "2_linger_thread_${m}_passed" "$LINGER_OUT" \
			grep -q 'send=ok' <<<"$LINGER_OUT"
		# On a control connection that is gone, it reached the
		# thread made abortive: its close resets the peer at once,
		# the thread is not held 30 s.  (On a data descriptor it
		# waits in the pair while the socket lives.)
		[ $m = data ] && continue
		check "2_linger_thread_${m}_defused" "$LINGER_OUT" \
			grep -q 'peer=reset' <<<"$LINGER_OUT"
	done
	# Disconnected for it (the connection's own close waits in the
	# thread's queue behind the blocked one: closer.h).
	check 2_linger_thread_attacker_disconnected "$(tail -3 "$T/lgt.log" | tr '\n' ' ')" \
		grep -Eq 'disconnecting uid=1000 pid=[0-9]+: passed a descriptor' "$T/lgt.log"
	# SIGHUP reloads and SIGTERM stops it cleanly (the thread takes
	# neither: they once ended the daemon by their default action).
	kill -HUP "${DPID[lgt]}"
	sleep 0.3
	alive lgt && out=alive || out="died of SIGHUP"
	kill -TERM "${DPID[lgt]}"
	wait_for 10 '! alive lgt' || kill -KILL "${DPID[lgt]}"
	wait "${DPID[lgt]}"
	rc=$?
	check 2_linger_thread_sighup_sigterm "$out, exit $rc" \
		[ "$out:$rc" = alive:0 ]
}

# ==== 3. replies stolen in broker mode ===================================
# steal_start NAME VICTIM_UID IDENT: the victim, bound to IDENT through
# the library, pings the peer every 100 ms for 3 s; meanwhile uid 1000
# takes a broker socket, unbinds it with the kernel's connect(AF_UNSPEC),
# binds it to IDENT with the kernel's bind(), and counts what it gets.
steal_start() {
	local name=$1 vuid=$2 ident=$3
	bg "$T/victim.$name" "$vuid" bk "$ATK" victim "$PB4" "$ident" 3
	STEAL_PIDS+=("$BG")
	line_in "$T/victim.$name" '^victim ready$' 10
	bg "$T/steal.$name" 1000 bk "$ATK" steal "$ident" 2
	STEAL_PIDS+=("$BG")
}
steal_check() {
	local name=$1 v a
	v=$(tr '\n' ' ' <"$T/victim.$name")
	a=$(tr '\n' ' ' <"$T/steal.$name")
	echo "# steal $name: attacker: $a; victim: $v"
	check "3_steal_${name}_bind_refused" "$a" \
		grep -q 'backend=broker .*bind=EINVAL' <<<"$a"
	check "3_steal_${name}_nothing_received" "$a" grep -q 'stolen=0' <<<"$a"
	check "3_steal_${name}_victim_served" "$v" \
		grep -Eq 'victim sent=([0-9]+) replies=\1 ' <<<"$v "
}
sec_steal() {
	local c p
	c=$(conf broker 'rate = 0\nmax_sockets = 0\nrelay_uids = 65533 65533\n')
	dstart bk b --config "$c" --mode broker --broker-group "$G" ||
		{ fail security/3_steal_setup "no daemon"; return; }
	STEAL_PIDS=()
	steal_start broker 65534 4711
	steal_start relay_uids 65533 4712	# a relay_uids victim: relayed
	for p in "${STEAL_PIDS[@]}"; do reap "$p" 15; done
	steal_check broker
	steal_check relay_uids
}

# ==== 4. clients of another network namespace ============================
# foreign TAG NAME WHO...: a client pings the peer of TAG's daemon from
# elsewhere (WHO: how to run it there): socket() is EACCES, why names the
# namespace, nothing is received.
foreign() {
	local tag=$1 name=$2 out ok=0; shift 2
	out=$("$@" env PINGSOCK_SOCKET="$(dsock "$tag")" PINGSOCK_BACKEND=daemon \
		timeout 10 "$PST" ping "$PEER" 1 2>&1)
	grep -q '^socket=EACCES' <<<"$out" && grep -q 'network namespace' <<<"$out" &&
		! grep -q '^reply' <<<"$out" && ok=1
	check "4_${name}_daemon_backend" "$(tr '\n' ' ' <<<"$out")" [ $ok = 1 ]
	# With the default backend the kernel's own errno stands (EACCES
	# from ping_group_range), and why says both halves.
	out=$("$@" env PINGSOCK_SOCKET="$(dsock "$tag")" timeout 10 "$PST" ping \
		"$PEER" 1 2>&1)
	ok=0
	grep -q '^socket=EACCES' <<<"$out" && grep -q 'ping_group_range' <<<"$out" &&
		grep -q 'network namespace' <<<"$out" && ! grep -q '^reply' <<<"$out" &&
		ok=1
	check "4_${name}_auto_backend" "$(tr '\n' ' ' <<<"$out")" [ $ok = 1 ]
}
# In namespace x (no route anywhere), and in an unprivileged sandbox of
# uid 65534's (unshare -rn: a user namespace, a network namespace with
# only lo, down) started from the daemon's own namespace.
foreign_all() {
	local tag=$1 kind=$2
	foreign "$tag" "${kind}_other_netns" in_ns x setpriv --reuid=65534 \
		--regid=65534 --clear-groups
	if [ "$USERNS" = 1 ]; then
		foreign "$tag" "${kind}_unshare_rn" in_ns "${DNS[$tag]}" setpriv \
			--reuid=65534 --regid=65534 --clear-groups unshare -rn
	fi
	local n
	n=$(stat_of "$tag" refused_netns)
	check "4_${kind}_counted" "refused_netns ${n:-none}" [ "${n:-0}" -ge 2 ]
}
sec_netns() {
	local out
	USERNS=1
	if ! setpriv --reuid=65534 --regid=65534 --clear-groups unshare -rn true \
		2>/dev/null; then
		USERNS=0
		skip security/4_unshare_rn "unprivileged user namespaces are off here ($(setpriv --reuid=65534 --regid=65534 --clear-groups unshare -rn true 2>&1))"
	fi
	dstart ns d --config "$UNLIMITED" ||
		{ fail security/4_netns_setup "no daemon"; return; }
	# The daemon serves its own namespace (and the peer answers).
	PEER=$P4
	out=$(as 65534 ns timeout 10 "$PST" ping "$PEER" 1 2>&1)
	check 4_relay_own_netns_served "$out" grep -q '^reply' <<<"$out"
	foreign_all ns relay
	dstop ns
	if alive bk || dstart bk b --config "$(conf broker 'rate = 0\n')" \
		--mode broker --broker-group "$G"; then
		PEER=$PB4
		foreign_all bk broker
	else
		fail security/4_broker_setup "no daemon"
	fi
}

# ==== 5. connections of one uid ==========================================
# log_bounded NAME LOG ERE SECS CLASS TOTAL: the lines matching ERE came
# at most ~10 a second (log_limited: LOG_LIMIT_BURST) over SECS, and with
# the "N more CLASS not logged" summaries they account for all TOTAL.
log_bounded() {
	local name=$1 log=$2 ere=$3 secs=$4 class=$5 total=$6 n m sum ok=0
	n=$(grep -Ec -e "$ere" "$log")
	m=$(grep -Ec "more $class not logged" "$log")
	sum=$(grep -E "more $class not logged" "$log" |
		sed -E 's/.* ([0-9]+) more .*/\1/' | awk '{ s += $1 } END { print s + 0 }')
	echo "# $name: $n lines of /$ere/ in about $secs s, $m summaries of $sum more"
	# (SECS whole seconds touch SECS + 1 seconds of the clock; one line
	# more for log_flush.)
	[ "$n" -ge 1 ] && [ "$n" -le $(((secs + 1) * 10 + 1)) ] && [ "$m" -ge 1 ] &&
		[ $((n + sum)) -eq "$total" ] && ok=1
	check "${name}_log_bounded" "$n lines in about $secs s, $m summaries of $sum more; want $total in all" \
		[ $ok = 1 ]
}
# log_flush TAG: one more refused connection of uid 1000's, a second
# later: by then the tick (once a second) has written the summaries.
log_flush() {
	sleep 1.1
	touch "$T/stop.flush"
	as 1000 "$1" "$ATK" conns 1 "$T/stop.flush" >/dev/null
}
sec_conns() {
	local c out t0 secs
	c=$(conf conns 'rate = 0\nmax_sockets = 0\nmax_connections = 200\n')
	dstart cf d --config "$c" || { fail security/5_conns_setup "no daemon"; return; }
	t0=$(ms)
	bg "$T/conns.out" 1000 cf prlimit --nofile=4096:4096 "$ATK" conns 1000 "$T/stop.conns"
	local atk=$BG
	line_in "$T/conns.out" '^holding$' 60
	secs=$(( ($(ms) - t0) / 1000 + 1 ))
	out=$(head -1 "$T/conns.out")
	echo "# uid 1000, $secs s: $out"
	check 5_conns_max_connections "$out" \
		grep -q 'accepted=200 refused=800 first_refused=201 slow_refusals=0 no_answer=0' <<<"$out"
	ping3 65534 cf
	check 5_conns_others_ping_on_time "$PING_SAYS" [ $PING_OK = 1 ]
	local n
	n=$(stat_of cf refused)
	check 5_conns_refusals_counted "refused ${n:-none}" [ "${n:-0}" -ge 800 ]
	log_flush cf
	n=$(stat_of cf refused)
	log_bounded 5_conns "$T/cf.log" 'refused connection: uid=1000' "$secs" \
		refusals "${n:-0}"
	touch "$T/stop.conns"
	reap "$atk"
	dstop cf
	# The defaults, and one process dialling and hanging up, 20,000
	# times: past 4,096 at once and 1,000 a second, a user's new
	# connections are closed at once, before the rest of their set-up
	# (it held the others' requests back: a round trip 0.12 -> 1.5 ms,
	# socket() up to 110 ms).  Before, they were refused only once 4,096
	# were waiting for their end to be seen (max_connections).
	c=$(conf dials '')
	dstart dl d --config "$c" || { fail security/5_conns_dials_setup "no daemon"; return; }
	out=$(as 1000 dl "$ATK" dials 20000 2>&1)
	n=$(stat_of dl refused)
	echo "# uid 1000: $out; refused: ${n:-none}"
	log_flush dl
	check 5_conns_dials_rate_limited "$out; refused ${n:-none}" \
		grep -q 'refused connection: uid=1000: more than 1000 new connections a second' "$T/dl.log"
	ping3 65534 dl
	check 5_conns_dials_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	dstop dl
	sec_fds
}

# The daemon short of descriptors (600, and no max_connections): one uid
# floods; it is refused before the daemon runs out, the listener never
# spins, another user is served.  CAP_SYS_RESOURCE is taken away so that
# the daemon cannot raise its own limit.
sec_fds() {
	local c out t0 cpu0 cpu1 secs lim n
	c=$(conf fds 'rate = 0\nmax_sockets = 0\nmax_connections = 0\n')
	DWRAP="setpriv --bounding-set=-sys_resource prlimit --nofile=600:600" \
		dstart fd d --config "$c" || { fail security/5_fds_setup "no daemon"; return; }
	lim=$(awk '/^Max open files/ { print $4 }' "/proc/${DPID[fd]}/limits")
	t0=$(ms)
	bg "$T/fds.out" 1000 fd prlimit --nofile=4096:4096 "$ATK" conns 1000 "$T/stop.fds"
	local atk=$BG
	line_in "$T/fds.out" '^holding$' 60
	out=$(head -1 "$T/fds.out")
	echo "# daemon's limit $lim; uid 1000: $out"
	ping3 65534 fd
	check 5_fds_others_ping_on_time "$PING_SAYS" [ $PING_OK = 1 ]
	# While it holds what it got and the rest is refused: no spinning.
	cpu0=$(cpu_ticks fd)
	sleep 2
	cpu1=$(cpu_ticks fd)
	secs=$(( ($(ms) - t0) / 1000 + 1 ))
	check 5_fds_flooder_refused "$out (limit $lim)" \
		grep -Eq 'refused=[1-9][0-9]+ .*no_answer=0 connect_failed=0' <<<"$out"
	echo "# daemon's CPU time while the flooder holds its connections: $((cpu1 - cpu0)) ticks in 2 s"
	check 5_fds_accept_does_not_spin "$((cpu1 - cpu0)) ticks in 2 s" \
		[ $((cpu1 - cpu0)) -le 20 ]
	log_flush fd
	n=$(stat_of fd refused)
	# (uid 65534's ping may be refused a socket: a line of its own
	# budget, and one more refused.)
	log_bounded 5_fds "$T/fd.log" 'refused (connection: uid=1000|socket: uid=65534)|accept: ' "$secs" \
		'(refusals|accept errors)' "${n:-0}"
	touch "$T/stop.fds"
	reap "$atk"
	dstop fd
}

# ==== 6. sends parked on 1,000 connections ===============================
sec_park() {
	local c rss0 rss1 out
	c=$(conf park 'rate = 1\nburst = 1\nmax_sockets = 0\n')
	dstart pk d --config "$c" || { fail security/6_park_setup "no daemon"; return; }
	ping3 65533 pk >/dev/null	# warm-up, for the baseline
	rss0=$(rss_kb pk)
	bg "$T/park.out" 1000 pk prlimit --nofile=4096:4096 "$ATK" park 1000 60000 "$T/stop.park"
	local atk=$BG
	line_in "$T/park.out" '^holding$' 60
	rss1=$(rss_kb pk)
	out=$(head -1 "$T/park.out")
	echo "# uid 1000: $out; VmRSS $rss0 -> $rss1 kB"
	# The rate is per uid: the victim is another.
	ping3 65534 pk
	check 6_park_others_ping_on_time "$PING_SAYS" [ $PING_OK = 1 ]
	touch "$T/stop.park"
	reap "$atk"
	out="$out; $(tail -1 "$T/park.out")"
	check 6_park_attached "$out" grep -q 'park attached=1000 attach_failed=0' <<<"$out"
	check 6_park_enobufs_at_once "$out" \
		eval '[ "$(sed -n "s/.*at_once: ok=[0-9]* enobufs=\([0-9]*\).*/\1/p" <<<"$out")" -ge 900 ]'
	if [ $ASAN = 1 ]; then
		echo "# VmRSS not checked under ASan (its quarantine holds freed memory)"
	else
		check 6_park_memory_bounded "VmRSS $rss0 -> $rss1 kB" \
			[ $((rss1 - rss0)) -lt 16384 ]
	fi
	check 6_park_daemon_alive "died" alive pk
	dstop pk
}

# ==== 6b. replies left unread behind a large SO_RCVBUF =====================
# The daemon's end of a data pair holds a socket's unread replies: twice
# SO_RCVBUF, as the kernel's socket would, which is the daemon's memory
# whoever asks.  16 sockets with 4 MiB asked and 160 echoes of 60,000
# bytes each left unread held 8 MiB each (200 sockets: 1.6 GB).  Past the
# default (212,992 bytes) a uid's pairs share 16 MiB, and only 256 of
# them get the default.
sec_pairbuf() {
	local c out q
	c=$(conf pairbuf 'rate = 0\nmax_sockets = 0\n')
	dstart pb d --config "$c" || { fail security/6b_pairbuf_setup "no daemon"; return; }
	out=$(as 1000 pb env PINGSOCK_BACKEND=daemon timeout -k 2 60 "$PST" bufhold 16 160 60000 2>&1)
	q=$(sed -n 's/^queued=\([0-9]*\)$/\1/p' <<<"$out")
	echo "# uid 1000: $out"
	check 6b_pairbuf_uid_bounded "$out" \
		[ "${q:-999999999}" -le $((16 * 212992 + 16777216 + 16 * 65536)) ]
	check 6b_pairbuf_replies_kept "$out" [ "${q:-0}" -ge 16000000 ]
	ping3 65534 pb
	check 6b_pairbuf_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	# And at the default buffer: a uid's first 256 pairs get it, the
	# others 72 KiB (two replies of 60,000 bytes).  300 sockets, 4 echoes
	# of 60,000 bytes each, unread: all 300 held all 4 (max_sockets 8192:
	# 2 GB of the daemon's memory from one user).
	out=$(as 1000 pb env PINGSOCK_BACKEND=daemon timeout -k 2 60 "$PST" bufmany 300 4 60000 2>&1)
	q=$(sed -n 's/^over2=\([0-9]*\)$/\1/p' <<<"$out")
	echo "# uid 1000, 300 sockets: $out"
	check 6b_pairbuf_base_bounded "$out" [ "${q:-999}" -le 256 ]
	check 6b_pairbuf_base_kept "$out" [ "${q:-0}" -ge 200 ]
	dstop pb
}

# ==== 6d. audit destination sets ===========================================
# The daemon counts each relayed socket's distinct destinations for its
# audit record, in a set of up to 16 KiB (1,024 of them, then "1024+"):
# 8,192 sockets of one user held 128 MiB.  A user's sets now share 1 MiB
# (64 full ones); past it a set says "N+".  80 sockets, 1,024
# destinations each: all 80 counted 1,024 before.
sec_dests() {
	local c out full capped
	c=$(conf dests 'rate = 0\nmax_sockets = 0\n')
	dstart ds d --config "$c" || { fail security/6d_dests_setup "no daemon"; return; }
	in_ns d sysctl -qw net.ipv4.icmp_echo_ignore_all=1	# no replies: less load
	bg "$T/dests.out" 1000 ds env PINGSOCK_BACKEND=daemon "$ATK" dests 80 1024 \
		"$T/stop.dests"
	line_in "$T/dests.out" '^holding$' 120
	out=$(in_ns d timeout 5 "$T/pingsockctl" --socket "$(dsock ds)" table 2>&1)
	full=$(awk '$2 == 1000 && $6 == "1024"' <<<"$out" | wc -l)
	capped=$(awk '$2 == 1000 && $6 ~ /[+]$/' <<<"$out" | wc -l)
	echo "# uid 1000: $(head -1 "$T/dests.out"); sets full $full, capped $capped"
	check 6d_dests_uid_bounded "$(head -1 "$T/dests.out") full=$full" \
		[ "$full" -le 64 ]
	check 6d_dests_capped_said "capped=$capped" [ "$capped" -ge 16 ]
	touch "$T/stop.dests"
	reap "$BG"
	in_ns d sysctl -qw net.ipv4.icmp_echo_ignore_all=0
	ping3 65534 ds
	check 6d_dests_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	dstop ds
}

# ==== 6c. a user's sockets in its share of the loop ========================
# A socket's pair end is watched in its user's share of the loop, with
# its connections, so that a user's hang-ups are served a quantum a turn:
# they were in the loop's own set, and 8,000 closed at once held another
# user's ping back 35-61 ms.  Seen here in the daemon's epoll sets (its
# first one is the loop's own): 300 sockets of one user, one entry.
loop_entries() {	# TAG: what the loop's own epoll set watches
	local p=${DPID[$1]} fd
	fd=$(find "/proc/$p/fd" -lname 'anon_inode:\[eventpoll\]' -printf '%f\n' |
		sort -n | head -1)
	grep -c '^tfd:' "/proc/$p/fdinfo/$fd" 2>/dev/null
}
sec_share() {
	local c n
	c=$(conf share 'rate = 0\n')
	dstart sh d --config "$c" || { fail security/6c_share_setup "no daemon"; return; }
	bg "$T/share.out" 1000 sh "$PST" hold 300 4
	local atk=$BG
	wait_for 10 '[ "$(stat_of sh sockets)" = 300 ]'
	n=$(loop_entries sh)
	echo "# uid 1000: $(head -1 "$T/share.out"); the loop's own set: ${n:-?} entries"
	check 6c_share_sockets_in_their_share "${n:-none} entries" [ "${n:-999}" -lt 50 ]
	reap "$atk"
	ping3 65534 sh
	check 6c_share_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	dstop sh
}

# ==== 13. 1,000 malformed requests =======================================
sec_malformed() {
	local pe0 pe1 out t0 secs
	dstart mf d --config "$UNLIMITED" || { fail security/13_setup "no daemon"; return; }
	pe0=$(stat_of mf protocol_errors)
	t0=$(ms)
	out=$(as 1000 mf "$ATK" malformed 1000)
	secs=$(( ($(ms) - t0) / 1000 + 1 ))
	# One more, a second later: the last second's summary is written
	# when the next line of its kind comes.
	sleep 1.1
	as 1000 mf "$ATK" malformed 1 >/dev/null
	pe1=$(stat_of mf protocol_errors)
	echo "# $out in about $secs s; protocol_errors $pe0 -> $pe1"
	check 13_malformed_all_closed "$out" grep -q 'sent=1000 closed=1000' <<<"$out"
	check 13_malformed_all_counted "protocol_errors $pe0 -> $pe1" \
		[ $((${pe1:-0} - ${pe0:-0})) -eq 1001 ]
	log_bounded 13_malformed "$T/mf.log" 'disconnecting uid=1000 pid=[0-9]+: malformed' \
		"$secs" 'protocol errors' 1001
	dstop mf
}

# ==== 22. one user's log flood hides no other user's lines (rev35 F2) =====
# uid 1000 floods malformed requests (the protocol errors' class, as
# refusals would the refusals'); while it does, uid 4242 sends one.  With
# one budget a class for everyone, uid 4242's line was never written (and
# the "N more ... not logged" line named nobody); each user has its own
# now, and the summary, written by the tick, names the uid.
sec_logshare() {
	local out n1 sum
	dstart ls d --config "$UNLIMITED" || { fail security/22_setup "no daemon"; return; }
	bg "$T/ls.out" 1000 ls "$ATK" malformed 3500
	local atk=$BG
	wait_for 10 "[ \$(grep -c 'disconnecting uid=1000 ' '$T/ls.log') -ge 10 ]"
	out=$(as 4242 ls "$ATK" malformed 1)
	kill -0 "$atk" 2>/dev/null && echo "# uid 4242 came during uid 1000's flood"
	reap "$atk" 30
	sleep 1.5	# the tick writes the summaries
	n1=$(grep -c 'disconnecting uid=1000 ' "$T/ls.log")
	sum=$(sed -nE 's/.*uid=1000: ([0-9]+) more protocol errors not logged.*/\1/p' "$T/ls.log" |
		awk '{ s += $1 } END { print s + 0 }')
	echo "# uid 1000: $(cat "$T/ls.out"); $n1 lines, $sum in summaries; uid 4242: $out"
	check 22_other_uid_logged "$(grep -c 'uid=4242' "$T/ls.log") lines of uid 4242" \
		grep -q 'disconnecting uid=4242 pid=[0-9]*: malformed' "$T/ls.log"
	check 22_summary_names_uid "$n1 lines, $sum summed up" \
		[ $((n1 + sum)) -eq 3500 ]
	dstop ls
}

# ==== 17. the answer slot's protocol =====================================
# A client that breaks it (WIRE_WAIT with nothing to wait for,
# WIRE_RQ_SLOT with an unknown flag or on a request other than a send)
# is disconnected and counted; one that keeps it gets its send's answer
# in its slot and again on the channel for its one WAIT (-9: EBADF,
# for a handle there is none of).  The daemon
# serves the next ping.
sec_slotproto() {
	local pe0 pe1 out
	dstart sp d --config "$UNLIMITED" || { fail security/17_setup "no daemon"; return; }
	pe0=$(stat_of sp protocol_errors)
	out=$(as 1000 sp "$ATK" slotproto | tr '\n' ' ')
	pe1=$(stat_of sp protocol_errors)
	echo "# $out; protocol_errors $pe0 -> $pe1"
	check 17_slot_wait_first_closed "$out" grep -q 'wait_first=closed' <<<"$out"
	check 17_slot_unknown_flag_closed "$out" grep -q 'send_flags=closed' <<<"$out"
	check 17_slot_flag_not_send_closed "$out" grep -q 'stats_flag=closed' <<<"$out"
	check 17_slot_answered "$out" grep -q "slot_seq=1 slot_result=-9" <<<"$out"
	check 17_slot_wait_answered "$out" grep -q "wait=-9 " <<<"$out"
	check 17_slot_second_wait_closed "$out" grep -q 'wait_again=closed' <<<"$out"
	check 17_slot_all_counted "protocol_errors $pe0 -> $pe1" \
		[ $((${pe1:-0} - ${pe0:-0})) -eq 4 ]
	check 17_slot_daemon_serves "ping failed" \
		as 1000 sp "$T/ping" -c 1 -W 2 127.0.0.1
	dstop sp
}

# ==== 21. junk on data descriptors =====================================
# uid 1000 opens 2,000 sockets and writes junk on all their data
# descriptors, round after round.  The loop read what came on each as it
# came, ahead of every other user's requests: the daemon busy all the
# time, another user's ping 0.12 ms, then 20 ms on average.  Now a
# socket's descriptor is read only when a request asks for a proof: the
# daemon stays idle meanwhile, and another user pings.
sec_datajunk() {
	local out cpu0 cpu1 atk
	dstart dj d --config "$UNLIMITED" || { fail security/21_setup "no daemon"; return; }
	bg "$T/datajunk.out" 1000 dj "$ATK" datajunk 2000 "$T/stop.datajunk"
	atk=$BG
	line_in "$T/datajunk.out" '^writing$' 60
	cpu0=$(cpu_ticks dj)
	sleep 2
	cpu1=$(cpu_ticks dj)
	ping3 65534 dj
	touch "$T/stop.datajunk"
	reap "$atk"
	out=$(tr '\n' ' ' <"$T/datajunk.out")
	echo "# uid 1000: $out; the daemon's CPU time meanwhile: $((cpu1 - cpu0)) ticks in 2 s"
	check 21_datajunk_sockets "$out" grep -q 'datajunk sockets=2000' <<<"$out"
	check 21_datajunk_daemon_idle "$((cpu1 - cpu0)) ticks in 2 s" \
		[ $((cpu1 - cpu0)) -le 20 ]
	check 21_datajunk_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	check 21_datajunk_daemon_alive "died" alive dj
	dstop dj
}

# ==== 20. an arena for each attach ======================================
# One socket of uid 1000, attached 3,000 times, each time from a new
# connection with a new state arena (a 2 MiB mapping), each connection
# closed after.  The arenas stayed, one mapping each, while the socket
# lived: 65,000 of them took every mapping the daemon may have, and
# everyone else's socket() failed ENOMEM.  Now at most 64 arenas of a
# user stay without a connection (a process that forked and exited,
# whose child reads its sockets' state there: shim_prog/fork_exit);
# past that the oldest one's slots are given back and it goes: the
# daemon's mappings grow by 64 at most, and another user pings.
maps_of() { wc -l <"/proc/${DPID[$1]}/maps" 2>/dev/null; }
sec_mirrors() {
	local m0 m1 out atk
	dstart mi d --config "$UNLIMITED" || { fail security/20_setup "no daemon"; return; }
	ping3 65533 mi >/dev/null	# warm-up, for the baseline
	m0=$(maps_of mi)
	bg "$T/mirrors.out" 1000 mi "$ATK" mirrors 3000 "$T/stop.mirrors"
	atk=$BG
	line_in "$T/mirrors.out" '^holding$' 120
	m1=$(maps_of mi)
	out=$(head -1 "$T/mirrors.out")
	echo "# uid 1000: $out; the daemon's mappings $m0 -> $m1"
	check 20_mirrors_attached "$out" grep -q 'attached=3000 failed=0' <<<"$out"
	check 20_mirrors_mappings_bounded "mappings $m0 -> $m1" \
		[ "$((m1 - m0))" -lt 100 ]
	ping3 65534 mi
	check 20_mirrors_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	touch "$T/stop.mirrors"
	reap "$atk"
	check 20_mirrors_daemon_alive "died" alive mi
	# Those 3,000 lingered (past 64 slots of the socket, a lingering
	# arena gives its slots back for a new one).  Connections that stay
	# are another matter: every change of the socket's state is written
	# into each of its slots, an ICMP error that anyone can send it too,
	# outside its user's share of the loop (before: all 200 of these,
	# and up to 4,096, about a millisecond an error).  At most 64
	# processes' arenas hold one socket: the opener's and 63 of these.
	bg "$T/mirrorskeep.out" 1001 mi prlimit --nofile=1024:1024 "$ATK" mirrorskeep 200 "$T/stop.mirrorskeep"
	atk=$BG
	line_in "$T/mirrorskeep.out" '^holding$' 60
	out=$(head -1 "$T/mirrorskeep.out")
	echo "# uid 1001: $out"
	check 20_mirrors_bounded_per_socket "$out" \
		grep -q 'attached=63 failed=137 last_failure=ENOBUFS' <<<"$out"
	touch "$T/stop.mirrorskeep"
	reap "$atk"
	# A process that closes the socket, and maps its arena alone, gives
	# its place back (WIRE_DETACH with WIRE_RQ_SOLE), on whichever of its
	# connections: the library sends it on any of its pool's, and it was
	# refused (UNATTACHED) on one that had not used the socket itself.
	# Another process's connection (another arena, the same uid) is
	# refused and changes nothing.
	out=$(as 1000 mi "$ATK" soledetach 2>&1)
	echo "# uid 1000: $out"
	check 20_sole_detach_other_arena_refused "$out" \
		grep -q 'foreign=UNATTACHED opener_kept=OK ' <<<"$out"
	check 20_sole_detach_any_own_connection "$out" \
		grep -q 'own_arena=OK opener_after=UNATTACHED reattach=OK' <<<"$out"
	check 20_sole_detach_after_holder_closed "$out" \
		grep -q 'reattach=OK after_idle=OK$' <<<"$out"
	dstop mi
}

# ==== 19. proofs of holding a socket ====================================
# A WIRE_ATTACH with a wrong nonce (any connection may send one for any
# handle) used up the proof its owner had just written: the owner's own
# ATTACH then failed EBADF (ECONNRESET in the program), and another user
# could keep it failing.  And only the last proof counted: of two
# processes attaching at once, the first failed.  The proofs read before
# the one asked for are kept: a free slot first (an older one was pushed
# out with a slot free); an empty record ahead of a proof is skipped (it
# was taken for a hang-up).
sec_proofs() {
	local out
	dstart pf d --config "$UNLIMITED" || { fail security/19_setup "no daemon"; return; }
	out=$(as 1000 pf "$ATK" proofs)
	echo "# $out"
	check 19_proof_wrong_refused "$out" grep -q 'wrong=EBADF ' <<<"$out"
	check 19_proof_not_spoilt_by_wrong "$out" grep -q 'after_wrong=OK ' <<<"$out"
	check 19_proof_older_of_two "$out" grep -q 'older_of_two=OK ' <<<"$out"
	check 19_proof_newer_of_two "$out" grep -q 'newer_of_two=OK ' <<<"$out"
	check 19_proof_used_up "$out" grep -q 'used_again=EBADF ' <<<"$out"
	check 19_proof_free_slot_first "$out" \
		grep -q 'seventh=OK first_kept=OK sixth_kept=OK ' <<<"$out"
	check 19_proof_after_empty_record "$out" \
		grep -q 'after_empty_record=OK ' <<<"$out"
	# (rv10 F3) eight proofs queued and another's wrong nonce: each of
	# the eight attaches once (4 of 8 did: four were kept).
	check 19_proof_eight_after_wrong "$out" \
		grep -q 'wrong_before_eight=EBADF eight_after_wrong=8 ' <<<"$out"
	dstop pf
}

# ==== 23. descriptors passed on a data descriptor ========================
# Each attach read up to 64 records of what a holder wrote there, every
# descriptor in them installed in the loop and passed to the closing
# thread: left=0 after the first attach, and the proof written after
# them still worked.  Now one record is read (left=15), no more
# (left_again=15), and the socket's attaches fail (proof_after=EBADF).
sec_fdproofs() {
	local out
	dstart fp d --config "$UNLIMITED" || { fail security/23_setup "no daemon"; return; }
	out=$(as 1000 fp "$ATK" fdproofs)
	echo "# kernel: $out"
	if grep -q 'no SO_PASSRIGHTS' "$T/fp.log"; then
		check 23_fdproofs_read_once "$out" \
			grep -q 'wrong=EBADF left=15 wrong_again=EBADF left_again=15 proof_after=EBADF' <<<"$out"
	else
		check 23_fdproofs_refused_by_kernel "$out" grep -qx 'send=EPERM' <<<"$out"
	fi
	dstop fp
	DBIN=$SBT DWRAP="env PINGSOCKD_TEST_CLOSER=thread" \
		dstart fpt d --config "$UNLIMITED" ||
		{ fail security/23_thread_setup "no daemon"; return; }
	out=$(as 1000 fpt "$ATK" fdproofs)
	echo "# thread: $out"
	check 23_fdproofs_thread_read_once "$out" \
		grep -q 'send=ok wrong=EBADF left=15 wrong_again=EBADF left_again=15 proof_after=EBADF' <<<"$out"
	check 23_fdproofs_thread_daemon_alive "died" alive fpt
	dstop fpt
}

# ==== 24. waiting sends due together ====================================
# min_interval holds each socket's second send back.  uid 1000 has 200
# of them waiting (200 connections), uid 1001 one, due after them; the
# daemon is stopped past all their times, then let go.  It sent every
# send that was due from its timers in one go, in the order of their
# times: uid 1000's 200, then uid 1001's (what reached 127.0.0.1 read
# A x 200 then V).  Now a due send goes in its user's turn of the loop,
# and uid 1001's comes after at most a turn of uid 1000's (16).  (The
# order is the daemon's own: no timing of the clients enters it.)
sec_parkorder() {
	local conf out a ok=0
	# The first data byte of each Echo Request that reaches this
	# namespace, in order, once one came (10 s), until none for IDLE s.
	cat >"$T/sniff.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.settimeout(10)
seen = []
try:
    while True:
        d = s.recv(2048)
        h = (d[0] & 15) * 4
        if len(d) > h + 8 and d[h] == 8:
            seen.append(chr(d[h + 8]))
        s.settimeout(float(sys.argv[1]))
except socket.timeout:
    pass
print("".join(seen))
PY
	conf=$(conf parkorder 'rate = 0\nmax_sockets = 0\nmin_interval = 3000\n')
	dstart po d --config "$conf" || { fail security/24_setup "no daemon"; return; }
	bg "$T/po_a.out" 1000 po "$ATK" parkorder A 200
	local atk=$BG
	line_in "$T/po_a.out" '^parked' 30
	bg "$T/po_v.out" 1001 po "$ATK" parkorder V 1
	local vic=$BG
	line_in "$T/po_v.out" '^parked' 30
	kill -STOP "${DPID[po]}"
	in_ns d python3 "$T/sniff.py" 2 >"$T/po_sniff.out" 2>&1 &
	local sniff=$!
	sleep 3.5	# past every send's time (3 s after its first)
	kill -CONT "${DPID[po]}"
	wait "$sniff"
	reap "$atk" 70
	reap "$vic" 70
	out=$(cat "$T/po_sniff.out")
	a=${out%%V*}
	echo "# parked: $(cat "$T/po_a.out" "$T/po_v.out" | tr '\n' ' ')before V: ${#a} of ${#out}"
	check 24_parkorder_all_sent "$(cat "$T/po_a.out" "$T/po_v.out" | tr '\n' ' ')" \
		grep -q 'answered 200' "$T/po_a.out"
	[[ $out == *V* ]] && [ "${#a}" -le 64 ] && ok=1
	check 24_parkorder_other_user_in_turn "${#a} sends of uid 1000 before uid 1001's: $out" \
		[ $ok = 1 ]
	dstop po
}

# ==== 18. a waiting send's handle given to another socket ================
# Broker mode, raw_compat, min_interval 15 s: an emulated raw socket's
# second send waits; its socket is closed and its slot cycled (4,095
# opens) until the next socket opened, a broker one, gets the waiting
# send's handle.  When its time comes the send must find its socket
# gone (EBADF).  It once went out through the new socket (another
# user's, in relay mode), and here dereferenced the broker record's NULL
# socket: the daemon died (SIGSEGV).
sec_wrap() {
	local c out
	c=$(conf wrap 'raw_compat = yes\nmin_interval = 15000\nrate = 0\nmax_sockets = 0\n')
	dstart wr m --config "$c" --mode broker --broker-group "$G" ||
		{ fail security/18_wrap_setup "no daemon"; return; }
	out=$(as 1000 wr timeout -k 2 60 "$ATK" wrap 2>&1 | tr '\n' ' ')
	echo "# $out"
	check 18_wrap_handle_reused "$out" grep -q "handle is the waiting send's" <<<"$out"
	check 18_wrap_waiting_send_ebadf "$out" grep -q "waiting send answered EBADF" <<<"$out"
	check 18_wrap_daemon_alive "died: $(tail -3 "$T/wr.log" | tr '\n' ' ')" alive wr
	dstop wr
}

# ==== 7. kernel sockets past max_sockets (broker) ========================
# The kernel's ping sockets of the daemon's uid in namespace m (each
# handed out one is listed there until its last copy is closed).
ksocks() { in_ns m awk -v u="$DUID" 'NR > 1 && $8 == u { n++ } END { print n + 0 }' /proc/net/icmp; }
# At most max_sockets + 1: a bind before first use makes a new socket
# in place of the old one, and the old one counts until it is gone, so
# for as long as a copy of it lives the user holds one more than
# max_sockets (bsock_allowed()); then neither socket() nor such a bind
# is granted until the count is below max_sockets again.
sec_bbind() {
	local c out n max=4
	c=$(conf bbind "rate = 0\nmax_sockets = $max\n")
	dstart bm m --config "$c" --mode broker --broker-group "$G" ||
		{ fail security/7_bbind_setup "no daemon"; return; }
	# One socket(), then ten WIRE_BROKER_BINDs with proofs, every socket
	# they give kept.
	bg "$T/bbind.out" 1000 bm "$ATK" bbind 10 "$T/stop.bbind"
	local atk=$BG
	line_in "$T/bbind.out" '^holding$' 20
	n=$(ksocks)
	out=$(tr '\n' ' ' <"$T/bbind.out")
	echo "# $out; $n kernel sockets of uid $DUID"
	check 7_bbind_once_a_socket "$out" \
		grep -q 'bbind ok=1 results=0,EINVAL,EINVAL,EINVAL,EINVAL,EINVAL,EINVAL,EINVAL,EINVAL,EINVAL ' <<<"$out "
	check 7_bbind_kernel_sockets "$n kernel sockets, max_sockets $max" [ "$n" -le $((max + 1)) ]
	touch "$T/stop.bbind"
	reap "$atk"
	wait_for 5 '[ "$(ksocks)" = 0 ]'
	# Through the library: socket(), dup() kept, bind(), four times; then
	# one more socket().
	bg "$T/dupbind.out" 65534 bm "$ATK" dupbind $max "$T/stop.dupbind"
	atk=$BG
	line_in "$T/dupbind.out" '^holding$' 20
	n=$(ksocks)
	out=$(tr '\n' ' ' <"$T/dupbind.out")
	echo "# $out; $n kernel sockets of uid $DUID"
	check 7_dupbind_kernel_sockets "$n kernel sockets, max_sockets $max: $out" \
		[ "$n" -le $((max + 1)) ]
	check 7_dupbind_further_socket_emfile "$out" grep -q 'further=EMFILE' <<<"$out"
	touch "$T/stop.dupbind"
	reap "$atk"
	# Each kernel socket closed at once, its liveness descriptor kept:
	# the record stays, and counts in max_sockets until it goes (rv13:
	# a scan let go of the count, 153 records at max_sockets 3).
	bg "$T/keeplive.out" 1000 bm "$ATK" keeplive 40 "$T/stop.keeplive"
	atk=$BG
	line_in "$T/keeplive.out" '^holding$' 20
	out=$(tr '\n' ' ' <"$T/keeplive.out")
	echo "# $out"
	check 7_keeplive_records_bounded "$out, max_sockets $max" \
		grep -Eq "keeplive opened=[1-$max] last=EMFILE" <<<"$out"
	touch "$T/stop.keeplive"
	reap "$atk"
	ping3 65534 bm
	check 7_keeplive_others_ping "$PING_SAYS" [ $PING_OK = 1 ]
	dstop bm
	# A record whose socket closed keeps its place; a bind then gave it a
	# new socket, which counted once more, and the place was never given
	# back (rv14): at max_sockets 1, the user's every later socket() was
	# EMFILE until the daemon restarted.
	c=$(conf bbind1 "rate = 0\nmax_sockets = 1\n")
	dstart bm m --config "$c" --mode broker --broker-group "$G" ||
		{ fail security/7_bbind_setup "no daemon"; return; }
	out=$(as 1000 bm timeout -k 2 30 "$ATK" rebindleak 2>&1)
	echo "# $out"
	check 7_rebind_kept_place_given_back "$out" \
		grep -q 'rebindleak rebind=0 again=0' <<<"$out"
	dstop bm
}

# ==== 9. identifiers hoarded through raw-compat sockets ==================
# (max_idents, and with max_idents = 0 the fair share: uidtab.h)
# hoard_round NAME all|one: four uids (2001-2004) each take what they can
# of a quarter of the identifiers (64 emulated raw sockets x 256), all at
# once or one after another; then uid 2005 pings.  HOARD: what each got.
hoard_round() {
	local name=$1 how=$2 i pids=()
	in_ns p sysctl -qw net.ipv4.icmp_echo_ignore_all=1	# no replies: less load
	for i in 0 1 2 3; do
		bg "$T/hoard.$name.$i" $((2001 + i)) rc env PINGSOCK_RAW=echo \
			PINGSOCK_BACKEND=daemon "$ATK" hoard $((1 + i * 16384)) 16384 \
			"$P4" "$T/stop.hoard.$name"
		pids+=("$BG")
		[ "$how" = all ] || line_in "$T/hoard.$name.$i" '^holding$' 60
	done
	for i in 0 1 2 3; do
		line_in "$T/hoard.$name.$i" '^holding$' 60
	done
	HOARD=$(grep -h '^hoard' "$T"/hoard."$name".? | tr '\n' ' ')
	echo "# $name: $HOARD; idents $(stat_of rc idents)"
	ping3 2005 rc
	touch "$T/stop.hoard.$name"
	for i in "${pids[@]}"; do reap "$i"; done
	in_ns p sysctl -qw net.ipv4.icmp_echo_ignore_all=0
}
sec_hoard() {
	local c
	c=$(conf hoard 'raw_compat = yes\nrate = 0\nmax_sockets = 0\n')
	dstart rc d --config "$c" || { fail security/9_hoard_setup "no daemon"; return; }
	hoard_round capped all
	check 9_hoard_capped_at_max_idents "$HOARD" \
		[ "$(grep -o 'held=4096 stop=EADDRINUSE' <<<"$HOARD" | wc -l)" = 4 ]
	check 9_hoard_capped_fifth_user_pings "$PING_SAYS" [ $PING_OK = 1 ]
	dstop rc
	c=$(conf hoard0 'raw_compat = yes\nrate = 0\nmax_sockets = 0\nmax_idents = 0\n')
	dstart rc d --config "$c" || { fail security/9_hoard_setup "no daemon"; return; }
	# No cap: the fair share.  Hoarders that come one after another are
	# each below the average of those before them (they once took all
	# 65,535, and the fifth user's ping got EAGAIN).
	hoard_round uncapped_one_by_one one
	check 9_hoard_uncapped_one_by_one_fifth_user_pings "$PING_SAYS" [ $PING_OK = 1 ]
	dstop rc
	dstart rc d --config "$c" || { fail security/9_hoard_setup "no daemon"; return; }
	hoard_round uncapped_at_once all
	check 9_hoard_uncapped_at_once_fifth_user_pings "$PING_SAYS" [ $PING_OK = 1 ]
	dstop rc
}

# ==== 10. the daemon's user ==============================================
# in_mnt FILE COPY SHORT cmd...: cmd in namespace SHORT, in a private
# mount namespace where COPY is bind-mounted on FILE (the host's FILE is
# never changed).
in_mnt() {
	local file=$1 copy=$2 short=$3; shift 3
	in_ns "$short" unshare -m --propagation private sh -c \
		'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$copy" "$file" "$@"
}
# user_refused NAME ERE [in_mnt args...] -- pingsockd args...: the daemon
# exits 1 at once, saying why.
user_refused() {
	local name=$1 ere=$2 out rc ok=0 pre=(in_ns d); shift 2
	[ "$1" = -- ] || { pre=(in_mnt "$1" "$2" d); shift 2; }
	shift
	out=$("${pre[@]}" timeout 3 "$T/pingsockd" --foreground \
		--socket "$T/run-user/socket" "$@" 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -Eq -e "$ere" <<<"$out" && ok=1
	check "10_user_$name" "exit $rc: $out" [ $ok = 1 ]
}
sec_user() {
	local sleeper
	user_refused nobody_refused \
		'--user nobody: the overflow user is shared.*--allow-shared-user overrides' \
		-- --user nobody
	# Two accounts of a copy of /etc/passwd: one owns its home, one has
	# a process running as it.
	cp /etc/passwd "$T/passwd"
	printf 'pshome:x:64001:64001::%s:/usr/sbin/nologin\npsproc:x:64002:64002::/nonexistent:/usr/sbin/nologin\n' \
		"$T/home64001" >>"$T/passwd"
	mkdir -p "$T/home64001" && chown 64001:64001 "$T/home64001"
	user_refused home_owner_refused "--user pshome: owns its home directory $T/home64001" \
		/etc/passwd "$T/passwd" -- --user pshome
	setpriv --reuid=64002 --regid=64002 --clear-groups sleep 30 &
	sleeper=$!
	BGPIDS+=("$sleeper")
	user_refused process_owner_refused "--user psproc: process $sleeper runs as that user too" \
		/etc/passwd "$T/passwd" -- --user psproc
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	# No pingsock user and no --user: how to make it.
	grep -v '^pingsock:' /etc/passwd >"$T/passwd-none"
	user_refused no_user_says_how 'no user pingsock: create it \(useradd --system' \
		/etc/passwd "$T/passwd-none" --
	# --allow-shared-user overrides, with a warning.
	if dstart shared d --config "$UNLIMITED" --user nobody --allow-shared-user; then
		check 10_user_allow_shared_user_warns "$(head -3 "$T/shared.log" | tr '\n' ' ')" \
			grep -q 'warning: --user nobody: the overflow user is shared.*(--allow-shared-user)' \
			"$T/shared.log"
		check 10_user_allow_shared_user_runs "$(tail -2 "$T/shared.log" | tr '\n' ' ')" \
			grep -q 'running as nobody (uid 65534)' "$T/shared.log"
		dstop shared
	else
		fail security/10_user_allow_shared_user "did not start: $(tail -2 "$T/shared.log" | tr '\n' ' ')"
	fi
}

# ==== 11. demo's pid file ================================================
# In a private mount and network namespace (tmpfs on /run, lo up), as an
# earlier pingsockd's user left it: /run/pingsock that user's, with a
# link planted at the demo's old pid file, to a root-owned file.  The
# checkout's ./demo (build/ is built: its make has nothing to do) pings 3
# times; the file is untouched, /run/pingsock now root's.  Then
# `./demo stop` stops the daemon and removes /run/pingsock, empty: nothing
# left behind (any pingsockd of that namespace still there is killed).
sec_demo() {
	local victim=$T/victim.demo missing="" pkg out
	if ! [ -x "$ROOT/build/pingsockd" ] || ! [ -x "$ROOT/demo" ]; then
		fail security/11_demo_setup "no $ROOT/build (the demo would build it)"
		return
	fi
	for pkg in $(grep -v '^#' "$ROOT/.ci/packages"); do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $pkg"
	done
	if [ -n "$missing" ]; then	# the demo would install them
		skip security/11_demo "packages missing:$missing"
		return
	fi
	printf 'demo-untouched\n' >"$victim"
	chmod 600 "$victim"
	cat >"$T/demo-ns.sh" <<'SH'
set -u
root=$1 victim=$2 duser=$3 out=$4
ip link set lo up
mount -t tmpfs -o mode=755 tmpfs /run
mkdir /run/pingsock && chown "$duser:" /run/pingsock
setpriv --reuid="$(id -u "$duser")" --regid="$(id -g "$duser")" --clear-groups \
	ln -s "$victim" /run/pingsock/pingsockd.pid
(cd "$root" && timeout 120 ./demo) >"$out/demo.out" 2>&1
echo $? >"$out/demo.rc"
stat -c '%u:%g %a' /run/pingsock >"$out/demo.dir"
cat /run/pingsockd-demo.pid >"$out/demo.pidfile" 2>/dev/null
rm -f /run/pingsock/pingsockd.pid	# the planted link: not the demo's
(cd "$root" && timeout 30 ./demo stop) >"$out/demo-stop.out" 2>&1
ls -A /run/pingsock >"$out/demo.left" 2>&1 || echo gone >"$out/demo.left"
me=$(readlink /proc/self/ns/net)
for p in $(pgrep -x pingsockd); do
	[ "$(readlink "/proc/$p/ns/net")" = "$me" ] || continue
	echo "$p" >>"$out/demo.killed"
	kill "$p"
	for _ in $(seq 1 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
	kill -KILL "$p" 2>/dev/null
done
SH
	unshare -mn --propagation private bash "$T/demo-ns.sh" "$ROOT" "$victim" \
		"$PS_DAEMON_USER" "$T"
	out="exit $(cat "$T/demo.rc" 2>/dev/null): $(grep -E 'received|demo:|error' "$T/demo.out" | tr '\n' ' ')"
	echo "# demo: $out; /run/pingsock $(cat "$T/demo.dir" 2>/dev/null); pid file $(cat "$T/demo.pidfile" 2>/dev/null); stopped $(cat "$T/demo.killed" 2>/dev/null)"
	check 11_demo_pings "$out" \
		grep -q '3 packets transmitted, 3 received' "$T/demo.out"
	check 11_demo_link_not_followed "victim: $(stat -c '%u:%g %a' "$victim") $(head -c 60 "$victim")" \
		[ "$(stat -c '%u:%g %a' "$victim") $(cat "$victim")" = "0:0 600 demo-untouched" ]
	check 11_demo_run_pingsock_root_owned "$(cat "$T/demo.dir" 2>/dev/null)" \
		grep -q '^0:' "$T/demo.dir"
	check 11_demo_stop_stops "$(cat "$T/demo-stop.out" 2>/dev/null); left running: $(cat "$T/demo.killed" 2>/dev/null)" \
		eval 'grep -q "stopped" "$T/demo-stop.out" && ! [ -s "$T/demo.killed" ]'
	check 11_demo_stop_leaves_no_run_pingsock "/run/pingsock still there, holding: [$(cat "$T/demo.left" 2>/dev/null)]" \
		grep -qx gone "$T/demo.left"
}

# ==== 15. the sandbox ====================================================
sec_sandbox() {
	local rc py
	# IP_HDRINCL on the kept raw socket: the filter kills (test build).
	DBIN=$SBT DWRAP="env PINGSOCKD_TEST_TRY=hdrincl" dstart sbh d \
		--config "$UNLIMITED" || { fail security/15_setup "no daemon"; return; }
	kill -USR1 "${DPID[sbh]}"
	wait_for 5 '! alive sbh'
	alive sbh && kill -KILL "${DPID[sbh]}"
	wait "${DPID[sbh]}" 2>/dev/null
	rc=$?
	check 15_hdrincl_kills "exit $rc (want 159); $(tail -2 "$T/sbh.log" | tr '\n' ' ')" \
		eval '[ $rc = 159 ] && grep -Eq "forbidden system call setsockopt \([0-9]+\)" "$T/sbh.log"'
	# A connect to an abstract unix socket that listens (made here, as
	# root, in the daemon's namespace, where root can reach it).
	py='import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0pingsockd-test")
open(sys.argv[1], "w").close()
while not os.path.exists(sys.argv[2]):
    time.sleep(0.1)'
	in_ns d /usr/bin/python3 -c "$py" "$T/abstract.up" "$T/stop.abstract" &
	BGPIDS+=("$!")
	wait_for 5 '[ -e "$T/abstract.up" ]'
	check 15_abstract_listener_reachable "root cannot connect to it either" \
		in_ns d /usr/bin/python3 -c 'import socket
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).connect("\0pingsockd-test")'
	DBIN=$SBT DWRAP="env PINGSOCKD_TEST_TRY=abstract" dstart sba d \
		--config "$UNLIMITED" || { fail security/15_setup "no daemon"; return; }
	kill -USR1 "${DPID[sba]}"
	line_in "$T/sba.log" 'abstract connect (refused|succeeded)' 5
	check 15_abstract_connect_refused "$(tail -2 "$T/sba.log" | tr '\n' ' ')" \
		grep -q 'sandbox test: abstract connect refused' "$T/sba.log"
	check 15_abstract_daemon_alive "died" alive sba
	dstop sba
	touch "$T/stop.abstract"
	# A descriptor inherited at start is closed.
	exec 7</etc/hostname
	dstart inh d --config "$UNLIMITED"
	exec 7<&-
	local fds
	fds=$(ls -l "/proc/${DPID[inh]}/fd" 2>&1 | awk '{ print $(NF - 2), $NF }' | tr '\n' ' ')
	check 15_inherited_descriptor_closed "$fds" \
		eval '! grep -q /etc/hostname <<<"$fds"'
	dstop inh
}

# ==== 16. a broker group inside /etc/subgid ==============================
sec_subgid() {
	local out rc ok=0
	if ! [ -e /etc/subgid ]; then
		skip security/16_subgid "no /etc/subgid here to bind-mount a copy on"
		return
	fi
	cp /etc/subgid "$T/subgid"
	printf 'pssubtest:64000:2000\n' >>"$T/subgid"	# holds $G (64999)
	out=$(in_mnt /etc/subgid "$T/subgid" x timeout 3 "$T/pingsockd" --foreground \
		--socket "$T/run-sg/socket" --user "$PS_DAEMON_USER" --mode broker \
		--broker-group "$G" 2>&1)
	rc=$?
	[ $rc = 1 ] && grep -q "gid $G is in the subordinate group ids of pssubtest (/etc/subgid)" <<<"$out" &&
		ok=1
	check 16_broker_group_in_subgid_refused "exit $rc: $out" [ $ok = 1 ]
}

# ==== rev35 F5. a FIFO at a root-opened path ===============================
# A user's FIFO planted where root opens --pidfile, --log-file or --config
# (a sticky directory, which the man page allows): the open blocked until a
# peer opened the other end, and the root start hung for ever.  Now each
# is refused at once as "not a regular file (a FIFO)".  A FIFO root made in
# a directory of its own (no fs.protected_fifos in the way) too.
fifo_refused() {	# NAME OPTION PATH
	local out rc t0 t ok=0
	t0=$(ms)
	out=$(in_ns d timeout -k 1 4 "$T/pingsockd" --foreground --socket \
		"$T/run-fifo/socket" --user "$PS_DAEMON_USER" "$2" "$3" 2>&1)
	rc=$?
	t=$(( $(ms) - t0 ))
	[ $rc = 1 ] && grep -qF -- "$3: not a regular file (a FIFO)" <<<"$out" && ok=1
	check "f5_fifo_$1_refused" "exit $rc in $t ms: $out" [ $ok = 1 ]
}
sec_fifo() {
	local d=$T/fifo-sticky
	mkdir -p "$d" "$T/fifo-root" && chmod 1777 "$d"
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
		'mkfifo "$1/d.pid" "$1/d.log" "$1/d.conf"' sh "$d"
	fifo_refused pidfile_sticky --pidfile "$d/d.pid"
	fifo_refused log_file_sticky --log-file "$d/d.log"
	fifo_refused config_sticky --config "$d/d.conf"
	mkfifo "$T/fifo-root/d.pid"
	fifo_refused pidfile_root --pidfile "$T/fifo-root/d.pid"
	rm -rf "$d" "$T/fifo-root" "$T/run-fifo"
}

# ==== rev35 F4. a user's socket at the daemon's socket path ================
# The socket's directory may be sticky, as /tmp.  uid 65534 listens there
# first, at the daemon's --socket name: the daemon said "in use by a
# running pingsockd" and exited, and the user served its clients.  Now the
# listener's credentials are looked at (root or the daemon's user is a
# pingsockd), the user's socket is replaced with a warning naming its uid
# and pid, and another user pings through the daemon.  Also with the
# user's backlog kept full (a blocking probe would hang the start) and
# with a plain file of the user's at the name.
imp_listen() {	# SOCKET READY-FILE FILL: uid 65534 listens on SOCKET
	# The system's python: a root's PATH may lead to one nobody can run.
	local py=/usr/bin/python3
	[ -x "$py" ] || py=python3
	in_ns d setpriv --reuid=65534 --regid=65534 --clear-groups "$py" -c '
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(0)
if sys.argv[3] == "1":	# the one connection a backlog of 0 holds
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    c.setblocking(False); c.connect(sys.argv[1])
with open(sys.argv[2], "w") as f:
    f.write("%d\n" % os.getpid())
time.sleep(30)' "$@" &
	BGPIDS+=("$!")
	wait_for 5 "[ -s '$2' ]"
}
imp_case() {	# NAME FILL(0|1|file)
	local d=$T/run-imp sock=$T/run-imp/socket ipid=none st ok=0 says
	rm -rf "$d" && mkdir -p "$d" && chmod 1777 "$d"
	: >"$T/imp.log"
	if [ "$2" = file ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups touch "$sock"
	else
		imp_listen "$sock" "$d/ready" "$2"
		ipid=$(cat "$d/ready" 2>/dev/null)
	fi
	DNOWAIT=1 dstart imp d --config "$UNLIMITED"
	line_in "$T/imp.log" 'ready on' 8
	st=$(stat -c '%u %a %F' "$sock" 2>&1)
	says=$(grep -m1 'not a pingsockd' "$T/imp.log")
	if [ "$2" = 1 ] || [ "$2" = file ]; then
		grep -q "uid 65534's, not a pingsockd's: replaced" <<<"$says" && ok=1
	else
		grep -q "uid 65534's socket, listened on by uid 65534 (pid $ipid), not a pingsockd: replaced" \
			<<<"$says" && ok=1
	fi
	ping3 4242 imp
	check "f4_impostor_${1}_replaced" "socket $st; impostor pid $ipid; log: ${says:-$(tail -3 "$T/imp.log" | tr '\n' ' ')}" \
		[ $ok = 1 ] && [ "$st" = "0 666 socket" ]
	check "f4_impostor_${1}_daemon_serves" "$PING_SAYS" [ "$PING_OK" = 1 ]
	alive imp && dstop imp
	[ "$ipid" = none ] || { kill "$ipid" 2>/dev/null; reap "$ipid" 3; }
	rm -rf "$d"
}
sec_impostor() {
	imp_case listener 0
	imp_case busy_listener 1
	imp_case file file
}

# ---- main -------------------------------------------------------------
for s in race linger steal netns conns park pairbuf dests share bbind hoard user demo malformed logshare slotproto wrap proofs fdproofs parkorder mirrors datajunk sandbox subgid fifo impostor; do
	wanted "$s" || continue
	t=$(ms)
	"sec_$s"
	echo "# section $s: $(( $(ms) - t )) ms"
done
echo "# total $(( $(ms) - T0 )) ms"
ns_done
