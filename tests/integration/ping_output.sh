#!/bin/bash
# ping_output - our ping against iputils' ping 20221126, line by line.
#
# Both run as uid 65534 with the same arguments; stdout and stderr are
# compared separately after masking what legitimately varies (RTTs, the
# run's duration, -D stamps, the program's path in error messages), and
# so is the exit status.  The reference is a copy of /usr/bin/ping (cp
# drops its file capability, so it takes the ping-socket path) run in a
# namespace of its own whose ping_group_range is open.
#
# PINGSOCK_BACKEND picks how ours gets its socket: kernel (default; its
# namespace's range is open) or daemon (range closed, pingsockd serves).
. "$(dirname "$0")/../lib/netns.sh"

BACKEND=${PINGSOCK_BACKEND:-kernel}
LABEL=ping_output${PING_OUTPUT_LABEL:+_$PING_OUTPUT_LABEL}

REF=${PING_REFERENCE:-/usr/bin/ping}

if [ "$(id -u)" != 0 ]; then
	skip $LABEL "needs root for network namespaces"
	ns_done
fi
if ! [ -x "$REF" ] || ! "$REF" -V 2>/dev/null | grep -q 'iputils 20221126'; then
	skip $LABEL "no iputils ping 20221126 at $REF to compare with"
	ns_done
fi
mkdir -p "$T/ref" && cp "$REF" "$T/ref/ping" && chmod -R a+rX "$T/ref"

ns_new r open || { fail $LABEL/setup "ip netns add"; ns_done; }
case $BACKEND in
kernel)	ns_new k open ;;
daemon)	ns_new k closed
	daemon_start k || { fail $LABEL/setup "pingsockd"; ns_done; } ;;
*)	fail $LABEL/setup "PINGSOCK_BACKEND=$BACKEND"; ns_done ;;
esac

# In both namespaces: 10.202.0.1/24 on a veth whose peer has no address,
# so 10.202.0.2 fails ARP (Destination Host Unreachable, from ourselves)
# and 10.202.0.3, given a made-up neighbour, is sent to and never answers.
for n in r k; do
	in_ns $n ip link add va type veth peer name vb &&
	in_ns $n ip addr add 10.202.0.1/24 dev va &&
	in_ns $n ip link set va up && in_ns $n ip link set vb up &&
	in_ns $n ip neigh add 10.202.0.3 lladdr 02:00:00:00:00:09 dev va \
		nud permanent || { fail $LABEL/setup "veth in $n"; ns_done; }
done

# ours|ref ARGS...: one ping as nobody, in its namespace.
ours() { as_nobody k env PINGSOCK_BACKEND="$BACKEND" "$T/ping" "$@"; }
ref() { as_nobody r "$T/ref/ping" "$@"; }

mask() {
	sed -E -e 's#^[^ ]*/ping: #ping: #' \
		-e 's/ time=[0-9.]+ ms/ time=T ms/' \
		-e 's/, time [0-9]+ms/, time Tms/' \
		-e 's#^(rtt min/avg/max/mdev = )[0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms#\1R ms#' \
		-e 's#(, min/avg/ewma/max = )[0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+ ms#\1R ms#' \
		-e 's#^\[[0-9]+\.[0-9]{6}\] #[TS] #' "$1"
}

# compare NAME DIR: DIR/{ours,ref}.{out,err,rc} against each other.
compare() {
	local name=$1 d=$2 s why=""
	for s in out err; do
		if ! diff <(mask "$d/ref.$s") <(mask "$d/ours.$s") >"$d/diff.$s"; then
			why+="std$s differs (< iputils, > ours): "
			why+=$(head -12 "$d/diff.$s" | tr '\n' '|')" "
		fi
	done
	[ "$(cat "$d/ours.rc")" = "$(cat "$d/ref.rc")" ] ||
		why+="exit $(cat "$d/ours.rc"), iputils $(cat "$d/ref.rc") "
	[ -z "$why" ] && pass "$name" || fail "$name" "$why"
}

# same NAME ARGS...: run both, compare everything.  Cases named in
# PING_OUTPUT_EXCLUDE are not run (for a backend still missing what they
# need; the caller says which and why).
same() {
	local name=$LABEL/$1 d; shift
	case " ${PING_OUTPUT_EXCLUDE:-} " in *" ${name#"$LABEL"/} "*) return ;; esac
	d=$(mktemp -d "$T/case.XXXXXX")
	ours "$@" >"$d/ours.out" 2>"$d/ours.err"; echo $? >"$d/ours.rc"
	ref "$@" >"$d/ref.out" 2>"$d/ref.err"; echo $? >"$d/ref.rc"
	compare "$name" "$d"
}

# spawn ours|ref OUTPREFIX ARGS...: in the background, $! being ping itself
# (every layer execs), for signals.
spawn() {
	local who=$1 o=$2 ns bin; shift 2
	if [ "$who" = ours ]; then ns=k bin=$T/ping; else ns=r bin=$T/ref/ping; fi
	( exec ip netns exec "$(ns_name $ns)" setpriv --reuid=65534 \
		--regid=65534 --clear-groups env PINGSOCK_BACKEND="$BACKEND" \
		PINGSOCK_SOCKET="$(ns_sock $ns)" "$bin" "$@" >"$o.out" 2>"$o.err" ) &
}

# signals NAME "SIG@SECONDS ..." ARGS...: both pings, the same signals at
# the same moments after their start.
signals() {
	local name=$LABEL/$1 plan=$2 d who pid at prev sig; shift 2
	d=$(mktemp -d "$T/case.XXXXXX")
	for who in ours ref; do
		spawn $who "$d/$who" "$@"
		pid=$! prev=0
		for at in $plan; do
			sig=${at%@*} at=${at#*@}
			sleep "$(awk -v a="$at" -v b="$prev" 'BEGIN { print a - b }')"
			kill -"$sig" "$pid" 2>/dev/null
			prev=$at
		done
		wait "$pid"; echo $? >"$d/$who.rc"
	done
	compare "$name" "$d"
}

# The issue's cases.
same c3		-c 3 127.0.0.1
same c2_quiet	-c 2 -q 127.0.0.1
same s0		-c 2 -i 0.2 -s 0 127.0.0.1
same s8		-c 2 -i 0.2 -s 8 127.0.0.1	# below a timeval: no time=
same s15	-c 1 -s 15 127.0.0.1
same s16	-c 1 -s 16 127.0.0.1		# the first size with time=
same s1000	-c 2 -i 0.2 -s 1000 127.0.0.1
same pattern_ff	-c 2 -i 0.2 -p ff 127.0.0.1
same pattern_odd -c 1 -s 20 -p abc 127.0.0.1	# "0xab0c"
same pattern_quiet -c 1 -q -p 0102 127.0.0.1
same ttl5	-c 1 -t 5 127.0.0.1
same deadline_w1 -w 1 127.0.0.1
same name	-c 2 -i 0.2 localhost
same numeric	-c 2 -i 0.2 -n localhost
same addr_spelling -c 1 127.1
same source_addr -c 1 -I 127.0.0.1 127.0.0.1
same device_lo	-c 1 -I lo 127.0.0.1
same tos	-c 1 -Q 0x10 127.0.0.1
same timestamps	-c 2 -i 0.2 -D 127.0.0.1
same no_reply	-c 1 -W 1 10.202.0.3
same no_reply_deadline -w 2 10.202.0.3
same host_unreachable -c 2 -i 0.2 10.202.0.2	# "+2 errors", "pipe 2"
same msgsize	-c 1 -s 65508 127.0.0.1		# local error, mtu=65535
same flood_refused -i 0.001 127.0.0.1
same interval_2ms -c 2 -i 0.002 127.0.0.1

# Bad values: wording and exit status (1 for the integer options).
same bad_count	-c x 127.0.0.1
same bad_count0	-c 0 127.0.0.1
same bad_count_range -c 99999999999999999999 127.0.0.1
same bad_size	-s -1 127.0.0.1
same bad_ttl	-t 256 127.0.0.1
same ttl0	-c 1 -t 0 127.0.0.1
same bad_deadline -w x 127.0.0.1
same bad_linger	-W -1 127.0.0.1
same garbage_interval -c 1 -i 1x 127.0.0.1	# a warning, then it runs
same bad_interval -c 1 -i inf 127.0.0.1
same bad_pattern -p 12zz 127.0.0.1
same bad_tos	-Q 256 127.0.0.1
same bad_tos_text -Q x 127.0.0.1
same no_destination
same unknown_host nosuchhost.invalid
same bad_device	-I nosuchif0 127.0.0.1
same bad_source	-I 10.9.9.9 127.0.0.1

# Usage errors: the same complaint and status; our usage text lists only
# the options we have, so only its first line is compared.
d=$(mktemp -d "$T/case.XXXXXX")
ours -Z 127.0.0.1 >"$d/o.out" 2>"$d/o.err"; orc=$?
ref -Z 127.0.0.1 >"$d/r.out" 2>"$d/r.err"; rrc=$?
if [ $orc = 2 ] && [ $rrc = 2 ] && [ ! -s "$d/o.out" ] &&
	[ "$(mask "$d/o.err" | head -3)" = "$(mask "$d/r.err" | head -3)" ]; then
	pass $LABEL/usage_error
else
	fail $LABEL/usage_error \
		"exit $orc (iputils $rrc): $(head -3 "$d/o.err" | tr '\n' '|')"
fi
ours -h >"$d/h.out" 2>"$d/h.err"; orc=$?
[ $orc = 2 ] && [ ! -s "$d/h.out" ] && grep -q '^Usage$' "$d/h.err" &&
	pass $LABEL/help || fail $LABEL/help "exit $orc"
out=$(ours -V); orc=$?
[ $orc = 0 ] && [[ $out == "ping from pingsock "[0-9]* ]] &&
	pass $LABEL/version || fail $LABEL/version "exit $orc: $out"

# Signals: SIGQUIT's status line (stderr), SIGINT's summary.
signals sigint "INT@1.25" -i 0.5 127.0.0.1
signals sigquit_sigint "QUIT@0.75 INT@1.25" -i 0.5 127.0.0.1
signals sigint_no_reply "INT@1.25" -i 0.5 10.202.0.3

# Duplicates: a raw socket (as root) answers each reply once more.
if command -v python3 >/dev/null; then
	dupper='
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
seen = set()
print("ready", flush=True)
while True:
    pkt, addr = s.recvfrom(65536)
    icmp = pkt[(pkt[0] & 15) * 4:]
    if len(icmp) >= 8 and icmp[0] == 0 and icmp[4:8] not in seen:
        seen.add(icmp[4:8])
        s.sendto(icmp, (addr[0], 0))
'
	for n in r k; do
		( exec ip netns exec "$(ns_name $n)" python3 -c "$dupper" \
			>"$T/dup-$n.log" 2>&1 ) &
		DAEMON_PIDS+=($!)	# netns.sh's cleanup stops it
	done
	for _ in $(seq 50); do
		grep -q ready "$T/dup-r.log" && grep -q ready "$T/dup-k.log" && break
		sleep 0.1
	done
	same duplicates -c 3 -i 0.3 127.0.0.1	# "(DUP!)", "+2 duplicates"
	same duplicates_quiet -c 3 -i 0.3 -q 127.0.0.1
else
	skip $LABEL/duplicates "no python3 to make duplicates"
fi

ns_done
