# SPDX-License-Identifier: ISC
# shellcheck shell=bash
# tests/lib/pingout.sh - what ping_output.sh and ping6_output.sh share:
# our ping against iputils' ping 20221126, each run as uid 65534 in a
# namespace of its own (ours in k, iputils in r) with the same
# arguments, side by side (nothing is shared between the two namespaces,
# and the pings mostly wait); stdout, stderr (masked: compare.sh's
# mask, or the caller's own) and the exit status are compared.  The
# reference is a capability-free copy of $PING_REFERENCE (default
# /usr/bin/ping), so that it takes the ping-socket path as ours does.
#
# Source it after netns.sh and compare.sh, with LABEL (the results'
# prefix), BACKEND (how ours gets its socket: kernel or daemon) and
# PINGOUT_EXCLUDE (names of cases not to run) set.
#
#   pingout_reference      skip everything unless run as root with
#                          iputils 20221126 to compare with; copy it
#   same NAME ARGS...      both pings, everything compared
#   versus NAME "REF ARGS" ARGS...  the same, iputils with other
#                          arguments (for what we take and it refuses)
#   usage NAME ARGS...     both refuse with their usage text: status 2,
#                          nothing on stdout, the same text on stderr but
#                          for the line of our own -X
#   version NAME           -V: iputils' two lines, pingsock named in the
#                          first, the same features listed in the second
#   quick NAME MS ARGS...  same, and both runs took under MS ms by their
#                          own summary ("time Nms"): for what sets the pace
#   traced NAME ERE ARGS...  same, both under strace: the calls (setsockopt,
#                          bind, connect) that match ERE must be the same,
#                          descriptors aside, and the reference must have
#                          made one: for options whose effect shows only
#                          there (with the daemon, only what the library
#                          hands the kernel itself shows)
#   signals NAME "SIG@SECONDS ..." ARGS...  both pings, the same signals
#                          at the same moments after their start
#   pingout_helper NAME SUFFIX PROGRAM ARGS...  a python3 program as
#                          root in the namespaces rSUFFIX and kSUFFIX,
#                          until both have said "ready"

REF=${PING_REFERENCE:-/usr/bin/ping}

pingout_reference() {
	if [ "$(id -u)" != 0 ]; then
		skip "$LABEL" "needs root for network namespaces"
		ns_done
	fi
	if ! [ -x "$REF" ] ||
		! "$REF" -V 2>/dev/null | grep -q 'iputils 20221126'; then
		skip "$LABEL" "no iputils ping 20221126 at $REF to compare with"
		ns_done
	fi
	mkdir -p "$T/ref" && cp "$REF" "$T/ref/ping" && chmod -R a+rX "$T/ref"
}

# ours|ref ARGS...: one ping as nobody, in its namespace (under TRACE's
# command, when traced sets one).
TRACE=()
ours() { as_nobody k "${TRACE[@]}" env PINGSOCK_BACKEND="$BACKEND" "$T/ping" "$@"; }
ref() { as_nobody r "${TRACE[@]}" "$T/ref/ping" "$@"; }

excluded() {
	case " ${PINGOUT_EXCLUDE:-} " in *" $1 "*) return 0 ;; esac
	return 1
}

# side ours|ref DIR ARGS...: one run, its output and status into DIR.
side() {
	local who=$1 d=$2; shift 2
	"$who" "$@" >"$d/$who.out" 2>"$d/$who.err"; echo $? >"$d/$who.rc"
}

# both DIR ARGS...: ours and iputils at once (iputils with REFARGS
# instead, when set).
REFARGS=()
both() {
	local d=$1 pid; shift
	side ours "$d" "$@" &
	pid=$!
	if [ ${#REFARGS[@]} -gt 0 ]; then
		side ref "$d" "${REFARGS[@]}"
	else
		side ref "$d" "$@"
	fi
	wait "$pid"
}

# same NAME ARGS...: ours, then iputils; everything compared (and, with
# CMP_EXPECT, a line the reference must have printed: see compare.sh).
same() {
	local name=$1 d; shift
	excluded "$name" && return
	d=$(mktemp -d "$T/case.XXXXXX")
	both "$d" "$@"
	compare "$LABEL/$name" "$d"
}

versus() {
	local name=$1 refargs=$2 d; shift 2
	excluded "$name" && return
	d=$(mktemp -d "$T/case.XXXXXX")
	# shellcheck disable=SC2206 # the reference's words, split
	REFARGS=($refargs)
	both "$d" "$@"
	REFARGS=()
	compare "$LABEL/$name" "$d"
}

usage() {
	local name=$LABEL/$1 d orc rrc; shift
	excluded "${name#"$LABEL"/}" && return
	d=$(mktemp -d "$T/case.XXXXXX")
	ours "$@" >"$d/o.out" 2>"$d/o.err"; orc=$?
	ref "$@" >"$d/r.out" 2>"$d/r.err"; rrc=$?
	mask "$d/o.err" | grep -v '^  -X <interface> ' >"$d/o.text"
	mask "$d/r.err" >"$d/r.text"
	if [ $orc = 2 ] && [ $rrc = 2 ] && [ ! -s "$d/o.out" ] &&
		[ ! -s "$d/r.out" ] && grep -q '^Usage$' "$d/r.text" &&
		diff -q "$d/r.text" "$d/o.text" >/dev/null; then
		pass "$name"
	else
		fail "$name" "exit $orc (iputils $rrc): $(diff "$d/r.text" "$d/o.text" | head -4 | tr '\n' '|')"
	fi
}

version() {
	local name=$LABEL/$1 d orc rrc; shift
	excluded "${name#"$LABEL"/}" && return
	d=$(mktemp -d "$T/case.XXXXXX")
	ours -V >"$d/o.out" 2>"$d/o.err"; orc=$?
	ref -V >"$d/r.out" 2>"$d/r.err"; rrc=$?
	sed -n 1p "$d/r.out" >"$d/r.first"
	if [ $orc = 0 ] && [ $rrc = 0 ] && [ ! -s "$d/o.err" ] &&
		grep -q '^ping from iputils [0-9]*$' "$d/r.first" &&
		sed -n 1p "$d/o.out" | grep -q '^ping from pingsock [0-9][0-9.]*$' &&
		[ "$(wc -l <"$d/o.out")" = "$(wc -l <"$d/r.out")" ] &&
		[ "$(sed -n 2p "$d/o.out" | sed -E 's/: (yes|no)/: X/g')" = \
		  "$(sed -n 2p "$d/r.out" | sed -E 's/: (yes|no)/: X/g')" ]; then
		pass "$name"
	else
		fail "$name" "exit $orc: $(tr '\n' '|' <"$d/o.out") (iputils: $(tr '\n' '|' <"$d/r.out"))"
	fi
}

# The run's length in ms, from the summary in FILE ("time Nms").
run_ms() { sed -nE 's/.*, time ([0-9]+)ms$/\1/p' "$1"; }

quick() {
	local name=$1 ms=$2 d o r; shift 2
	excluded "$name" && return
	d=$(mktemp -d "$T/case.XXXXXX")
	both "$d" "$@"
	o=$(run_ms "$d/ours.out") r=$(run_ms "$d/ref.out")
	if [ -z "$o" ] || [ -z "$r" ] || [ "$o" -ge "$ms" ] || [ "$r" -ge "$ms" ]; then
		fail "$LABEL/$name" "took ${o:-?} ms (iputils ${r:-?} ms), not under $ms"
		return
	fi
	compare "$LABEL/$name" "$d"
}

# The calls of a trace that match ERE, without pids and descriptors.
calls() {
	grep -E "$2" "$1" | sed -E -e 's/^[0-9]+ +//' -e 's/^([a-z]+)\([0-9]+, /\1(FD, /'
}

traced() {
	local name=$1 ere=$2 d who pids=(); shift 2
	excluded "$name" && return
	if ! command -v strace >/dev/null; then
		fail "$LABEL/$name" "strace is not installed"
		return
	fi
	d=$(mktemp -d "$T/case.XXXXXX")
	chmod 1777 "$d"		# strace writes there as nobody
	# LeakSanitizer cannot work under ptrace (the sanitizer build).
	for who in ours ref; do
		( TRACE=(strace -f -qq -o "$d/$who.trace"
		       -E "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		       -e 'trace=setsockopt,bind,connect')
		  side $who "$d" "$@" ) &
		pids+=($!)
	done
	wait "${pids[@]}"
	calls "$d/ours.trace" "$ere" >"$d/ours.calls"
	calls "$d/ref.trace" "$ere" >"$d/ref.calls"
	if [ ! -s "$d/ref.calls" ]; then
		fail "$LABEL/$name" "iputils made no call matching '$ere'"
	elif ! diff -q "$d/ref.calls" "$d/ours.calls" >/dev/null; then
		fail "$LABEL/$name" "calls differ (< iputils, > ours): $(diff "$d/ref.calls" "$d/ours.calls" | head -4 | tr '\n' '|')"
	else
		compare "$LABEL/$name" "$d"
	fi
}

# spawn ours|ref OUTPREFIX ARGS...: in the background, $! being ping
# itself (every layer execs), for signals.
spawn() {
	local who=$1 o=$2 ns bin; shift 2
	if [ "$who" = ours ]; then ns=k bin=$T/ping; else ns=r bin=$T/ref/ping; fi
	( exec ip netns exec "$(ns_name $ns)" setpriv --reuid=65534 \
		--regid=65534 --clear-groups env PINGSOCK_BACKEND="$BACKEND" \
		PINGSOCK_SOCKET="$(ns_sock $ns)" "$bin" "$@" >"$o.out" 2>"$o.err" ) &
}

# echoes_sent SHORT: Echo Requests sent in that namespace so far (IPv4
# and IPv6; the kernel counts those of ping sockets and of the daemon's
# raw sockets alike).  nsenter: /proc/net is the namespace's own.
echoes_sent() {
	nsenter --net="/run/netns/$(ns_name "$1")" cat /proc/net/snmp \
		/proc/net/snmp6 >"$T/snmp.$1" 2>/dev/null
	snmp_echoes "$T/snmp.$1"
	echo "$ECHOES"
}

# snmp_echoes FILE...: ECHOES, the Echo Requests counted in those
# /proc/net/snmp and snmp6 texts, with the shell's own reads (a poll
# forks nothing for it).
snmp_echoes() {
	local f k v col=0 i h hv vv
	ECHOES=0
	for f in "$@"; do
		h=""
		while read -r k v; do
			case $k in
			Icmp:)	if [ -z "$h" ]; then
					h=$v
					continue
				fi
				read -r -a hv <<<"$h"
				read -r -a vv <<<"$v"
				for ((i = 0; i < ${#hv[@]}; i++)); do
					[ "${hv[$i]}" = OutEchos ] && col=$i
				done
				ECHOES=$((ECHOES + ${vv[$col]:-0})) ;;
			Icmp6OutEchos) ECHOES=$((ECHOES + v)) ;;
			esac
		done <"$f"
	done 2>/dev/null
}

# signal_plan PID SHORT BASE PLAN: the plan's signals to one ping, timed
# from its own first Echo Request (its namespace's count past BASE), not
# from when it was started: the two sides start at different speeds (the
# sanitizer build, the daemon's handshake, a busy machine), and a plan
# timed from the start could fall on the other side of a send on one
# side only.  The count is read through the ping's own /proc entry once
# it is in the namespace (-ef: the same namespace file), which costs no
# process a look.
signal_plan() {
	local pid=$1 ns=/run/netns/$(ns_name "$2") base=$3 at prev=0 sig
	for _ in $(seq 2000); do
		kill -0 "$pid" 2>/dev/null || return
		if [ "/proc/$pid/ns/net" -ef "$ns" ]; then
			snmp_echoes "/proc/$pid/net/snmp" "/proc/$pid/net/snmp6"
			[ "$ECHOES" -gt "$base" ] && break
		fi
		sleep 0.0025
	done
	for at in $4; do
		sig=${at%@*} at=${at#*@}
		sleep "$(awk -v a="$at" -v b="$prev" 'BEGIN { print a - b }')"
		kill -"$sig" "$pid" 2>/dev/null
		prev=$at
	done
}

signals() {
	local name=$LABEL/$1 plan=$2 d po pr bo br so sr; shift 2
	excluded "${name#"$LABEL"/}" && return
	d=$(mktemp -d "$T/case.XXXXXX")
	bo=$(echoes_sent k) br=$(echoes_sent r)
	spawn ours "$d/ours" "$@"
	po=$!
	spawn ref "$d/ref" "$@"
	pr=$!
	signal_plan "$po" k "$bo" "$plan" &
	so=$!
	signal_plan "$pr" r "$br" "$plan" &
	sr=$!
	# The planners first: a ping reaped before its last signal could
	# see its pid taken by another process.
	wait "$so" "$sr"
	wait "$po"; echo $? >"$d/ours.rc"
	wait "$pr"; echo $? >"$d/ref.rc"
	compare "$name" "$d"
}

# pingout_helper NAME SUFFIX PROGRAM ARGS...: python3 -c PROGRAM ARGS in
# both sides' namespaces (r and k, with SUFFIX), its output in
# $T/NAME-r.log and $T/NAME-k.log; waits (5 s at most) until both print
# "ready".  netns.sh's cleanup stops them.
pingout_helper() {
	local name=$1 sfx=$2 prog=$3 n; shift 3
	for n in r k; do
		( exec ip netns exec "$(ns_name "$n$sfx")" python3 -c "$prog" "$@" \
			>"$T/$name-$n.log" 2>&1 ) &
		DAEMON_PIDS+=($!)
	done
	for _ in $(seq 50); do
		grep -qs ready "$T/$name-r.log" &&
			grep -qs ready "$T/$name-k.log" && break
		sleep 0.1
	done
}
