#!/bin/bash
# SPDX-License-Identifier: ISC
# impostor - the library against a daemon that lies (issue 15, finding 8:
# "The library trusts nothing the daemon sends").  An impostor at the
# socket path (anyone who binds it while pingsockd is down) or a
# compromised daemon may deny service, but never corrupts a client's
# memory (design.md, "Security model").
#
# tests/lib/impostor.c answers like pingsockd (wire.h's protocol) but for one
# malformation per run (impostor list): control answers with a result
# out of range (on the channel or in the answer slot), the wrong type, a
# body of the wrong length, a slot out of the arena (a socket's or the
# connection's answer slot) or one a live socket holds (a second socket
# is refused), descriptors too many, too few or of the
# wrong kind; a send's answer that never comes in the answer slot (only
# on the channel, for WIRE_WAIT: not a malformation); a state
# arena that is a pipe, unsealed or not sealed against shrinking (and
# shrunk once handed out), small, empty, without its magic, of another
# file system (hugetlbfs, a plain file), missing where the token is new
# or sent where the token is the client's own; WIRE_ERRQ answers too
# short, with a length field that says another length, a positive
# result, a body or descriptor with a failure; datagrams, wake-ups and
# error-queue records that are truncated, oversized, of the wrong kind or
# family, with options longer than their buffer, data or fields where a
# wake-up has none, or an errno that is none; a request never answered
# (HELLO, DETACH: the call gives up after the library's timeout, where it
# used to wait for ever); a data descriptor the
# daemon closed (its end, the control connection kept); nonsense in the
# state slot (a pending error that is no errno or that the daemon does
# not have, counts out of range, every receive option on).  For each, a
# client (pstool untrusted, uid 65534, PINGSOCK_BACKEND=daemon) makes
# every call once, and:
#   - the call that meets the malformation fails with EPROTO (a datagram
#     or record is consumed: the next receive gets the next one; a bad
#     answer also ends the control connection, and the next call dials
#     again and re-attaches the socket), a pending error that is no
#     errno is ignored;
#   - the client exits by itself (no signal), with no sanitizer report
#     (the ASan build's pass), and no descriptor left over.
# Then iputils ping as root under the shim (a privileged process with
# libpingsock-preload.so in /etc/ld.so.preload), against the attacks on
# its receive path and its state arena: it must end by itself, unharmed.
# Last, an impostor of its own uid that claims every inherited
# descriptor (find-any): a pair root made and a program under the shim
# inherited must not be written to (no proof of holding it).
#
# No network namespace of the test's own: only a unix socket path under
# $T (the impostor makes kernel ping sockets for the broker modes in a
# namespace of its own, see impostor.c).
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"

IMP=$T/tests/lib/impostor
PST=$T/tests/lib/pstool
SOCK=$T/imp/socket
mkdir -p "$T/imp" && chmod 755 "$T/imp"
sanitizer='ERROR: [A-Za-z]*Sanitizer|runtime error:|stack smashing'

# The lines pstool untrusted must print in MODE (all of them).
expect() {
	case $1 in
	none|ctl-*|open-slot-last|open-slot-same|find-any|send-slot-late) echo "socket=OK flags=as_new send=64 getopt=OK errq1=EAGAIN peek=64 recv1=64 recv2=EAGAIN" ;;
	# The daemon's end set O_NONBLOCK and O_ASYNC on the open file: a
	# blocking socket all the same, as socket() makes it.
	open-data-flags) echo "socket=OK flags=as_new send=64 getopt=OK peek=64 recv1=64 recv2=EAGAIN" ;;
	broker-none) echo "socket=OK bind=OK" ;;
	# The setopt answer ends the connection; the next dial (bind's) is
	# sent an arena with the client's own token, the one after works.
	hello-arena-own) echo "setopt=EPROTO bind=ECONNRESET send=64 peek=64 recv1=64" ;;
	# A daemon out of descriptors says so; any other errno at HELLO is
	# not one socket() can mean.
	hello-emfile) echo "socket=EMFILE" ;;
	# The pending error comes and goes: any call may meet it (its own
	# test is the shim's waits, below).
	slot-err-flip) echo "socket=OK close=OK" ;;
	# The impostor's own listener here (root's): its own pair, as good
	# as any it makes.  (Its test is below, with a third party.)
	open-data-foreign) echo "leak=0" ;;
	# Never answered: the library gives up after its timeout (10 s), as
	# for a daemon that closed at once; close() closes all the same.
	mute-hello) echo "socket=ECONNREFUSED" ;;
	mute-detach) echo "socket=OK send=64 close=OK" ;;
	hello-*|open-*|broker-*) echo "socket=EPROTO" ;;
	bbind-*|bind-*) echo "bind=EPROTO" ;;
	send-*) echo "send=EPROTO" ;;
	getopt-*) echo "getopt=EPROTO" ;;
	getname-*) echo "getname=EPROTO" ;;
	setopt-*|attach-*) echo "setopt=EPROTO send=64" ;;
	# Wake-ups are skipped.  One of a wake-up's length whose first byte
	# says wake-up is taken by pingsock_poll() unread when the slot
	# counts wake-ups (relay_data_queued()): dg-wake-field's never
	# reaches the receive; with none counted (field0) the receive
	# meets it.
	# (dg-wake-ahead: 300 ahead, as the real daemon queues after as many
	# errors; a receive that gave up after 64 of them failed EAGAIN with
	# the reply still queued.)
	dg-wake|dg-wake-many|dg-wake-field|dg-wake-ahead|dg-rights|dg-rights-on) echo "peek=64 recv1=64 recv2=EAGAIN" ;;
	# What was queued is read; then the end of the descriptor.
	dg-eof) echo "peek=64 recv1=64 errq2=EAGAIN recv2=ECONNRESET" ;;
	dg-*) echo "peek=EPROTO recv1=64 recv2=EAGAIN" ;;
	# The record is taken before its checks: the queue is empty after.
	errq-errno) echo "errq1=64 peek=64 recv1=64 errq2=EPROTO soerror=OK" ;;
	errq-long) echo "errq1=2048 peek=64 recv1=64 errq2=EAGAIN" ;;
	errq-*) echo "errq1=EPROTO peek=64 recv1=64 errq2=EAGAIN" ;;
	slot-*) echo "errq1=EAGAIN peek=64 recv1=64 soerror=OK recv2=EAGAIN" ;;
	*) echo "unknown-mode" ;;
	esac
}

# impostor_start MODE [PATH [UID]]: the impostor on PATH ($SOCK), as
# UID (root); waits until it listens.
impostor_start() {
	local path=${2:-$SOCK} as=()
	[ -n "${3:-}" ] && as=(setpriv --reuid="$3" --regid="$3" --clear-groups)
	rm -f "$path"
	"${as[@]}" "$IMP" "$path" "$1" 2>>"$T/impostor.log" &
	IMP_PID=$!
	for _ in $(seq 1 100); do
		[ -S "$path" ] && return 0
		kill -0 "$IMP_PID" 2>/dev/null || break
		sleep 0.02
	done
	return 1
}

impostor_stop() {
	kill -TERM "$IMP_PID" 2>/dev/null
	wait "$IMP_PID" 2>/dev/null
}

# verdict NAME RC OUT ERRFILE WANT...: what a run must show.
verdict() {
	local name=$1 rc=$2 out=$3 err=$4 w bad=""; shift 4
	if [ "$rc" = 124 ]; then
		bad="hung (killed after 20 s)"
	elif [ "$rc" -gt 128 ]; then
		bad="killed by signal $((rc - 128))"
	elif grep -qE "$sanitizer" "$err"; then
		bad="sanitizer: $(grep -m1 -E "$sanitizer" "$err")"
	elif [ "$rc" -ne 0 ] && [ -n "$out" ]; then
		bad="exited $rc"
	fi
	for w in "$@"; do
		[ -n "$bad" ] && break
		grep -qx -- "$w" <<<"$out" ||
			bad="want $w, got: $(tr '\n' ' ' <<<"$out")"
	done
	if [ -z "$bad" ]; then
		pass "$name"
	else
		fail "$name" "$bad"
		sed 's/^/    | /' "$err" | head -12
	fi
}

# at_once FUNCTION ARG...: FUNCTION ARG for every ARG, 8 at a time (each
# has its own impostor, socket path and files, and mostly waits: a mute
# impostor for the library's 10 s, ping for its 3 s), their lines printed
# in ARG order.
at_once() {
	local fn=$1 i=0 a; shift
	for a in "$@"; do
		while [ "$(jobs -pr | wc -l)" -ge 8 ]; do wait -n; done
		"$fn" "$a" >"$T/at_once.$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	for ((a = 0; a < i; a++)); do
		cat "$T/at_once.$a"
		# shellcheck disable=SC2034 # netns.sh's, ns_done exits with it
		grep -q '^FAIL: ' "$T/at_once.$a" && FAILED=1
		rm -f "$T/at_once.$a"
	done
}

# untrusted MODE: pstool's every call against the impostor in MODE.
untrusted() {
	local mode=$1 path=$T/imp/$1.s err=$T/$1.err out rc
	if ! impostor_start "$mode" "$path"; then
		fail "impostor/$mode" "the impostor did not start: $(tail -2 "$T/impostor.log")"
		return
	fi
	out=$(timeout -k 2 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$path" \
		"$PST" untrusted 2>"$err")
	rc=$?
	impostor_stop
	# shellcheck disable=SC2046  # one word per expected line
	verdict "impostor/$mode" "$rc" "$out" "$err" $(expect "$mode") leak=0
}
# (arena-fresh and dg-wake-endless have their own tests, below.)
# shellcheck disable=SC2046  # one word per mode
at_once untrusted $("$IMP" list | grep -vx -e arena-fresh -e dg-wake-endless \
	-e dg-wake-trickle -e mute-send -e mute-slow)

# ---- a new arena at every call ----
# An impostor that hands out a new arena at every HELLO and ends every
# connection after one answer: each call dials again.  The library never
# unmaps an arena (a stale entry may point into one), and mapped one a
# call, without end (200 calls, 200 mappings; at vm.max_map_count every
# mmap() of the program fails).  It takes 64, then one a minute.  (Every
# call fails here: the impostor ends the connection before the call's
# own answer.)
if impostor_start arena-fresh; then
	out=$(timeout -k 2 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$SOCK" \
		"$PST" arenas 200 2>"$T/client.err")
	rc=$?
	impostor_stop
	arenas=$(sed -n 's/.* arenas=\([0-9]*\).*/\1/p' <<<"$out")
	if [ "$rc" = 0 ] && [ "${arenas:-0}" -ge 64 ] && [ "$arenas" -le 65 ]; then
		pass impostor/arena-fresh/mappings_bounded
	else
		fail impostor/arena-fresh/mappings_bounded "exit $rc: $(tr '\n' ' ' <<<"$out")"
	fi
else
	fail impostor/arena-fresh/mappings_bounded "the impostor did not start"
fi

# ---- wake-ups without end ----
# A receive that must not wait skips the wake-ups queued when it met the
# first, and no more: an impostor writing them as fast as they are read
# kept it from returning (until the flood's end, 20 s; its reads made
# slow here by strace, so that the flood outruns them).  Now it fails
# EAGAIN while the flood is still on.  (LeakSanitizer cannot run under
# a tracer.)
if ! command -v strace >/dev/null; then
	skip impostor/dg-wake-endless/receive_returns "no strace"
elif impostor_start dg-wake-endless; then
	out=$(timeout -k 2 40 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$SOCK" \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -o /dev/null -e trace=recvmsg "$PST" wakeflood 2>"$T/client.err")
	rc=$?
	impostor_stop
	verdict impostor/dg-wake-endless/receive_returns "$rc" "$out" \
		"$T/client.err" socket=OK recv1=64 recv2=EAGAIN after=queued
else
	fail impostor/dg-wake-endless/receive_returns "the impostor did not start"
fi

# ---- wake-ups against a receive timeout ----
# A blocking receive with SO_RCVTIMEO 1 s while the impostor sends one
# valid wake-up every 300 ms (for 20 s) and no error with it: each one
# taken started a new read, and the kernel's timeout with it, so the
# receive returned only after the trickle (ms=20839).  It times out as
# the kernel's does: after about a second (a bound of 8 s here, for a
# busy machine; before, more than 20).
if impostor_start dg-wake-trickle; then
	out=$(timeout -k 2 40 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$SOCK" \
		"$PST" rcvtimeo 2>"$T/client.err")
	rc=$?
	impostor_stop
	ms=$(sed -n 's/^ms=//p' <<<"$out")
	if [ "${ms:-99999}" -lt 8000 ]; then
		verdict impostor/dg-wake-trickle/rcvtimeo_expires "$rc" "$out" \
			"$T/client.err" socket=OK recv1=64 setopt=OK recv2=EAGAIN
	else
		fail impostor/dg-wake-trickle/rcvtimeo_expires "$(tr '\n' ' ' <<<"$out")"
	fi
else
	fail impostor/dg-wake-trickle/rcvtimeo_expires "the impostor did not start"
fi

# ---- a blocking send never answered ----
# The kernel's blocking send gives up waiting at a signal (EINTR) and at
# its SO_SNDTIMEO (EAGAIN).  Against an impostor that never answers a
# send (mute-send), the library waited for ever through both (killed
# after 30 s).  Now: EINTR at the signal, also with an SO_SNDTIMEO;
# EAGAIN at the SO_SNDTIMEO, but not before the library's own 10 s (1 s:
# at 10 s; 11 s: at 11 s); and the next send works (a new connection).
# (The library asks the daemon to drop the send and waits up to a second
# for its word: this impostor ends the connection at once.)  mute-slow:
# the second held send, on a new connection, is answered "not attached
# here" only after 1.5 s, past the signal: nothing went, EINTR (it was
# ECONNRESET: an attach tried on the connection given up).  nbintr: on an
# O_NONBLOCK socket, whose kernel send never waits nor fails EINTR, the
# signal ends nothing: the library's 10 s do, ECONNRESET (it was EINTR at
# the signal, and with no signal a wait for ever: the send had not looked
# at O_NONBLOCK, WIRE_RQ_ASK).
sendwait() {	# NAME MODE SECONDS MIN_MS MAX_MS WANT [IMPOSTOR_MODE]
	local name=$1 path=$T/imp/sw-$1.s out rc ms
	if ! impostor_start "${7:-mute-send}" "$path"; then
		fail "impostor/mute-send/$name" "the impostor did not start"
		return
	fi
	out=$(timeout -k 2 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$path" \
		"$T/tests/lib/sendwait" "$2" "$3" 127.0.0.1 2>"$T/sw-$name.err")
	rc=$?
	impostor_stop
	ms=$(sed -n 's/^ms=//p' <<<"$out" | tail -1)
	if [ "${ms:-0}" -ge "$4" ] && [ "${ms:-99999}" -lt "$5" ]; then
		verdict "impostor/mute-send/$name" "$rc" "$out" "$T/sw-$name.err" \
			"send1=$6" send2=64 ${7:+"send1b=EINTR"}
	else
		fail "impostor/mute-send/$name" "rc $rc: $(tr '\n' ' ' <<<"$out")"
	fi
}
# shellcheck disable=SC2086 # one word per argument
at_once_sw() { sendwait $1; }
at_once at_once_sw "signal_eintr intr 1 900 2500 EINTR" \
	"sndtimeo_eagain timeo 1 9500 13000 EAGAIN" \
	"sndtimeo_long_eagain timeo 11 10900 14000 EAGAIN" \
	"sndtimeo_signal_eintr both 1 900 2500 EINTR" \
	"unattached_given_up_eintr intr2 1 1400 3000 EINTR mute-slow" \
	"nonblocking_no_eintr nbintr 1 9500 13000 ECONNRESET"

# ---- requests left unread, and a signal every 50 ms ----
# A daemon that never reads what it is sent fills the connection; each
# signal then ended the library's wait for room, and the send started
# again: for ever (killed by timeout after 30 s).  It gives up after the
# library's timeout of 10 s, whatever the signals.
out=$(timeout -k 2 30 "$T/tests/lib/sendintr" 2>&1)
rc=$?
ms=$(sed -n 's/.* ms=//p' <<<"$out")
if [ "$rc" = 0 ] && [[ $out == exchange=broken* ]] && [ "${ms:-0}" -ge 9000 ]; then
	pass impostor/unread_requests_with_signals_give_up
else
	fail impostor/unread_requests_with_signals_give_up "exit $rc: $out"
fi

# ---- one state slot given to two sockets ----
# The daemon gives each socket a slot of its own; the library must not
# take a second socket in a live one's slot (it would count the two as
# copies of one socket: closing one would keep the other's release, and
# the shim's epoll registrations, alive for a closed descriptor).
for mode in none open-slot-same; do
	impostor_start "$mode" || { fail "impostor/twosocks/$mode" "did not start"; continue; }
	out=$(timeout -k 2 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$SOCK" \
		"$PST" twosocks 2>"$T/client.err")
	rc=$?
	impostor_stop
	want=socket2=OK
	[ $mode = open-slot-same ] && want=socket2=EPROTO
	verdict "impostor/twosocks/$mode" "$rc" "$out" "$T/client.err" \
		socket1=OK "$want" close1=OK leak=0
done

# ---- pingsockctl: the library's request client, its checks ----
# (issue 16: it had a reader of its own, which took an answer with
# header flags set or with descriptors.)  Against "none" it works.
for mode in none ctl-stats-flags ctl-stats-fds ctl-stats-version ctl-users-loop; do
	impostor_start "$mode" || { fail "impostor/ctl/$mode" "did not start"; continue; }
	out=$(timeout -k 2 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/pingsockctl" --socket "$SOCK" status 2>&1)
	rc=$?
	impostor_stop
	if [ $mode = none ]; then
		[ $rc = 0 ] && grep -q '^clients 0$' <<<"$out" &&
			pass "impostor/ctl/$mode" ||
			fail "impostor/ctl/$mode" "rc=$rc $(tr '\n' ' ' <<<"$out")"
	elif [ $rc = 1 ] && [ "$out" = "pingsockctl: $SOCK: malformed answer from the daemon" ]; then
		pass "impostor/ctl/$mode"
	else
		fail "impostor/ctl/$mode" "rc=$rc $(tr '\n' ' ' <<<"$out")"
	fi
done

# ---- a privileged program under the shim ----
SHIM=$T/libpingsock-preload.so
PRELOAD=$SHIM
case $PS_BUILD in
*build-asan) PRELOAD="$(gcc -print-file-name=libasan.so):$SHIM" ;;
esac
PING=$(command -v ping)
if ! cp "$PS_BUILD/libpingsock-preload.so" "$SHIM" 2>/dev/null || [ -z "$PING" ] ||
	! cp "$PING" "$T/ping-iputils"; then
	fail impostor/shim/setup "no shim ($PS_BUILD) or no iputils ping"
	ns_done
fi
# shim_ping MODE: iputils ping under the shim against the impostor.
shim_ping() {
	local mode=$1 path=$T/imp/shim-$1.s err=$T/shim-$1.err rc
	impostor_start "$mode" "$path" || { fail "impostor/shim/$mode" "did not start"; return; }
	# As root: the kernel refuses root's ping socket here ("1 0"), so
	# the shim turns to the "daemon", as it would for any program.
	timeout -k 2 20 env LD_PRELOAD="$PRELOAD" PINGSOCK_BACKEND=daemon \
		PINGSOCK_SOCKET="$path" "$T/ping-iputils" -n -c 2 -i 0.2 -w 3 \
		127.0.0.1 >/dev/null 2>"$err"
	rc=$?
	impostor_stop
	# ping's own status (0 or 1: replies or none) does not matter; how
	# it ended does.
	[ "$rc" -le 2 ] && rc=0
	verdict "impostor/shim/$mode" "$rc" "" "$err"
}
at_once shim_ping dg-optlen dg-wake dg-wake-data errq-optlen errq-errno \
	errq-short hello-arena-unsealed hello-arena-small hello-arena-magic \
	open-slot0 slot-err slot-errq-big slot-cmsg open-data-pipe getopt-body

# ---- waits against a state slot that flips ----
# slot-err-flip sets and clears the socket's pending error again and
# again.  poll() and epoll_wait() under the shim (Python's, as uid 65534,
# with nothing queued to read) read the slot, wait without waiting when
# it shows the error, and read it again: a wait must never end with
# nothing before its time (200 ms).
# They once returned 0 at once, a third of the time.
cat >"$T/flip.py" <<'EOF'
import select, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
time.sleep(0.1)
for _ in range(1000):   # what the impostor queued: nothing readable
    try:
        s.recv(256, socket.MSG_DONTWAIT)
    except OSError:
        pass
p = select.poll()
p.register(s.fileno(), select.POLLIN)
ep = select.epoll()
ep.register(s.fileno(), select.EPOLLIN)
early = {"poll": 0, "epoll": 0}
n = 0
end = time.monotonic() + 3
while time.monotonic() < end:
    t = time.monotonic()
    if not p.poll(200) and time.monotonic() - t < 0.15:
        early["poll"] += 1
    t = time.monotonic()
    if not ep.poll(0.2) and time.monotonic() - t < 0.15:
        early["epoll"] += 1
    n += 1
print("waits=%d" % n)
print("early_poll=%d" % early["poll"])
print("early_epoll=%d" % early["epoll"])
EOF
chmod 644 "$T/flip.py"
if impostor_start slot-err-flip; then
	out=$(timeout -k 2 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
		env LD_PRELOAD="$PRELOAD" PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$SOCK" \
		ASAN_OPTIONS=detect_leaks=0 /usr/bin/python3 "$T/flip.py" 2>"$T/client.err")
	rc=$?
	impostor_stop
	echo "# slot-err-flip: $(tr '\n' ' ' <<<"$out")"
	verdict impostor/shim/waits_not_early "$rc" "$out" "$T/client.err" \
		early_poll=0 early_epoll=0
else
	fail impostor/shim/waits_not_early "did not start: $(tail -2 "$T/impostor.log")"
fi

# ---- a data descriptor that is a connection to a third party ----
# The third party: root's listener (abstract "pingsock-impostor-3rd",
# SO_PASSCRED), which prints what reaches it and whose credentials came
# with it.  The impostor, uid 65533 (anyone who binds the socket path),
# answers OPEN with a connection to it as the socket's data descriptor.
# The library must refuse it (its maker is root, not the listener's
# uid): it once wrote its proof there, with the program's credentials
# (root's, for a root program under the shim).
cat >"$T/third.py" <<'EOF'
import socket, struct, sys
l = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
l.bind("\0pingsock-impostor-3rd")
l.listen(8)
print("listening", flush=True)
l.settimeout(20)
try:
    while True:
        c, _ = l.accept()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        c.settimeout(3)
        try:
            data, anc, _, _ = c.recvmsg(256, 256)
            uid = [struct.unpack("iii", d)[1] for lv, t, d in anc
                   if t == socket.SCM_CREDENTIALS]
            if data:
                print("got %d bytes from uid %s" % (len(data), uid), flush=True)
        except OSError:
            pass
except OSError:
    pass
EOF
chmod 644 "$T/third.py"
/usr/bin/python3 "$T/third.py" >"$T/third.out" 2>&1 &
THIRD=$!
for _ in $(seq 1 100); do grep -q listening "$T/third.out" && break; sleep 0.05; done
install -d -m 0755 -o 65533 -g 65533 "$T/imp-f"
if impostor_start open-data-foreign "$T/imp-f/socket" 65533; then
	out=$(timeout -k 2 20 env PINGSOCK_BACKEND=daemon \
		PINGSOCK_SOCKET="$T/imp-f/socket" "$PST" untrusted 2>"$T/client.err")
	rc=$?
	sleep 0.3
	impostor_stop
	echo "# third party: $(grep -v listening "$T/third.out" | tr '\n' ' ')"
	verdict impostor/foreign_data_refused "$rc" "$out" "$T/client.err" \
		socket=EPROTO leak=0
	if grep -q '^got' "$T/third.out"; then
		fail impostor/foreign_data_nothing_written "$(grep '^got' "$T/third.out" | head -1)"
	else
		pass impostor/foreign_data_nothing_written
	fi
else
	fail impostor/foreign_data_refused "did not start: $(tail -2 "$T/impostor.log")"
fi
kill "$THIRD" 2>/dev/null
wait "$THIRD" 2>/dev/null

# ---- a listener that takes no connection ----
# Its queue full, it never accepts: connect() gives up after the
# library's timeout (10 s), and socket() says ECONNREFUSED, as for a
# listener that refused, not EAGAIN, which socket() never says.  (It
# once waited for ever.)
cat >"$T/full.py" <<'EOF'
import socket, sys, time
l = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
l.bind(sys.argv[1])
l.listen(0)
held = []
for _ in range(4):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    c.setblocking(False)
    try:
        c.connect(sys.argv[1])
    except OSError:
        pass
    held.append(c)
print("full", flush=True)
time.sleep(40)
EOF
chmod 644 "$T/full.py"
rm -f "$T/imp/full"
/usr/bin/python3 "$T/full.py" "$T/imp/full" >"$T/full.out" 2>&1 &
FULL=$!
for _ in $(seq 1 100); do grep -q full "$T/full.out" && break; sleep 0.05; done
chmod 666 "$T/imp/full" 2>/dev/null
out=$(timeout -k 2 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
	env PINGSOCK_BACKEND=daemon PINGSOCK_SOCKET="$T/imp/full" \
	"$PST" untrusted 2>"$T/client.err")
rc=$?
kill "$FULL" 2>/dev/null
wait "$FULL" 2>/dev/null
verdict impostor/listener_full_refused "$rc" "$out" "$T/client.err" \
	socket=ECONNREFUSED leak=0

# ---- a claim on a pair the program inherited from someone else ----
# An impostor (here uid 65533, no root: anyone who binds the path) says
# yes to every WIRE_FIND (find-any).  Root makes a SOCK_SEQPACKET pair,
# keeps one end and execs a program as uid 65534, under the shim, that
# inherits the other: its first calls on it (python's socket(fileno=)
# asks SO_DOMAIN, SO_TYPE and SO_PROTOCOL; then a receive) resolve the
# inherited descriptor.  The pair is neither the program's own (root
# made it) nor made by the uid at the other end of the library's control
# connection (65533), so the library must not adopt it: nothing written
# on it (no proof), and the calls are a plain AF_UNIX socket's
# (family 1, type 5 SOCK_SEQPACKET, an empty queue).
install -d -m 0755 -o 65533 -g 65533 "$T/imp-a"
cat >"$T/holder.py" <<'EOF'
import socket, subprocess, sys
mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
theirs.set_inheritable(True)
p = subprocess.run(sys.argv[1:] + [str(theirs.fileno())],
                   pass_fds=[theirs.fileno()], stdout=subprocess.PIPE,
                   timeout=20)
sys.stdout.write(p.stdout.decode())
print("rc=%d" % p.returncode)
mine.setblocking(False)
try:    # theirs still open here: an empty queue is EAGAIN, not EOF
    print("held-end=%d bytes" % len(mine.recv(4096)))
except BlockingIOError:
    print("held-end=EAGAIN")
EOF
cat >"$T/inheritor.py" <<'EOF'
import socket, sys
s = socket.socket(fileno=int(sys.argv[1]))
print("family=%d type=%d" % (s.family, s.type))
s.setblocking(False)
try:
    print("recv=%d" % len(s.recv(64)))
except BlockingIOError:
    print("recv=EAGAIN")
EOF
chmod 644 "$T/holder.py" "$T/inheritor.py"
if impostor_start find-any "$T/imp-a/socket" 65533; then
	out=$(timeout -k 2 30 /usr/bin/python3 "$T/holder.py" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		env LD_PRELOAD="$PRELOAD" PINGSOCK_BACKEND=daemon \
		PINGSOCK_SOCKET="$T/imp-a/socket" ASAN_OPTIONS=detect_leaks=0 \
		/usr/bin/python3 "$T/inheritor.py" 2>"$T/client.err")
	rc=$?
	impostor_stop
	verdict impostor/inherit/foreign_pair "$rc" "$out" "$T/client.err" \
		"family=1 type=5" recv=EAGAIN rc=0 held-end=EAGAIN
else
	fail impostor/inherit/foreign_pair "did not start: $(tail -2 "$T/impostor.log")"
fi
ns_done

