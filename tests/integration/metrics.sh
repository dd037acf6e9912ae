#!/bin/bash
# SPDX-License-Identifier: ISC
# metrics - what pingsockctl reports of the daemon itself and of its
# limits (issue 19, item 7): pingsockd_build_info (version, mode),
# pingsockd_start_time_seconds, sockets refused by reason, sends the rate
# held back, and the per-uid counters (pingsockd_user_requests_total,
# pingsockd_user_refused_total), which cover only the uids the daemon
# keeps state for, come in pages, and follow the access rule of the
# socket table (root: every uid, anyone else: its own).  The strict
# format of the whole exposition is audit.sh's.
#
# Clients: Python's socket module through the shim, as uids 65534 and
# 1000, and pingsock's own ping as 175 uids at once (more than one page
# of WIRE_USERS), in a namespace where only pingsockd serves ping sockets.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

shim_init metrics
PY=/usr/bin/python3
CTL=$T/pingsockctl
SOCK=$(ns_sock d)
V=$(sed -n 's/^#define PINGSOCK_VERSION "\(.*\)"$/\1/p' include/pingsock.h)
ns_new d closed || { fail "$LABEL/setup" "namespace"; ns_done; }

cat >"$T/m.py" <<'PY'
import errno, os, socket, struct, sys, threading, time

def sock():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)

def echo(seq):
    return struct.pack('!BBHHH', 8, 0, 0, 0, seq & 0xffff) + b'metrics'

def name(e):
    return errno.errorcode.get(e, str(e))

def hold(ready, go):
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.05)

cmd = sys.argv[1]
if cmd == "sockets":    # N READY GO: open up to N, say the first failure
    held, err = [], "none"
    for i in range(int(sys.argv[2])):
        try:
            held.append(sock())
        except OSError as e:
            err = name(e.errno)
            break
    print("opened %d then %s" % (len(held), err))
    sys.stdout.flush()
    hold(sys.argv[3], sys.argv[4])
elif cmd == "echo":     # N READY GO: N echoes and their replies, then hold
    s = sock()
    s.settimeout(2)
    for i in range(int(sys.argv[2])):
        s.sendto(echo(i), ("127.0.0.1", 0))
        s.recv(512)
    print("sent %s" % sys.argv[2])
    sys.stdout.flush()
    hold(sys.argv[3], sys.argv[4])
elif cmd == "dontwait": # N: N sends at once, MSG_DONTWAIT
    s = sock()
    n = {"ok": 0, "EAGAIN": 0}
    for i in range(int(sys.argv[2])):
        try:
            s.sendto(echo(i), socket.MSG_DONTWAIT, ("127.0.0.1", 0))
            n["ok"] += 1
        except OSError as e:
            n[name(e.errno)] = n.get(name(e.errno), 0) + 1
    print(" ".join("%s=%d" % kv for kv in sorted(n.items())))
elif cmd == "one":      # READY GO: one blocking send once told to
    s = sock()
    hold(sys.argv[2], sys.argv[3])
    try:
        s.sendto(echo(1), ("127.0.0.1", 0))
        print("ok")
    except OSError as e:
        print(name(e.errno))
PY
chmod a+r "$T/m.py"
mkdir -p "$T/sig" && chmod 777 "$T/sig"

py_as() { local u=$1; shift
	as_uid "$u" d env LD_PRELOAD="$PRELOAD" "${PY_ENV[@]}" "$PY" "$T/m.py" "$@"; }
ctl() { in_ns d "$CTL" --socket "$SOCK" "$@"; }
ctl_as() { local u=$1; shift; as_uid "$u" d "$CTL" --socket "$SOCK" "$@"; }
# val FILE SAMPLE: the value of one sample (its name and labels as
# printed), or "none".
val() { awk -v s="$2" '$1 == s { v = $2 } END { print v == "" ? "none" : v }' "$1"; }
# conf TEXT: restart the namespace's daemon with that configuration.
conf() {
	printf '%b' "$1" >"$T/m.conf"
	chmod 644 "$T/m.conf"
	shim_daemon_restart d --config "$T/m.conf"
}
# wait_files FILE...: until all exist (10 s at most).
wait_files() {
	local f
	for _ in $(seq 1 200); do
		for f in "$@"; do
			[ -e "$f" ] || { sleep 0.05; continue 2; }
		done
		return 0
	done
	return 1
}
# expect NAME FILE SAMPLE=VALUE...: each sample has that value.
expect() {
	local name=$1 file=$2 bad="" kv
	shift 2
	for kv in "$@"; do
		[ "$(val "$file" "${kv%=*}")" = "${kv##*=}" ] ||
			bad="$bad ${kv%=*}=$(val "$file" "${kv%=*}") (want ${kv##*=})"
	done
	if [ -z "$bad" ]; then pass "$LABEL/$name"; else fail "$LABEL/$name" "$bad"; fi
}
RF=pingsockd_sockets_refused_total
RL=pingsockd_sends_rate_limited_total
UR=pingsockd_user_requests_total
UF=pingsockd_user_refused_total

# ---- the daemon itself, and refusals by reason ----
# uid 65534 is outside the groups; uid 1000 meets max_sockets.
t0=$(date +%s)
conf "max_sockets = 3\ngroups = 0 1000\n" || { fail "$LABEL/setup" "pingsockd"; ns_done; }
t1=$(date +%s)
ctl metrics >"$T/m0"
expect fresh "$T/m0" "pingsockd_build_info{version=\"$V\",mode=\"relay\"}=1" \
	"$RF{reason=\"group\"}=0" "$RF{reason=\"max_sockets\"}=0" \
	"$RF{reason=\"descriptors\"}=0" "$RF{reason=\"identifiers\"}=0" \
	"$RF{reason=\"resources\"}=0" "$RL{action=\"delayed\"}=0" \
	"$RL{action=\"would_block\"}=0" "$RL{action=\"refused\"}=0" \
	"$UR{uid=\"0\"}=0" "$UF{uid=\"0\"}=0" pingsockd_users=1
st=$(val "$T/m0" pingsockd_start_time_seconds)
if [[ $st =~ ^[0-9]+\.[0-9]{3}$ ]] && [ "${st%.*}" -ge "$t0" ] && [ "${st%.*}" -le "$t1" ]; then
	pass "$LABEL/start_time"
else
	fail "$LABEL/start_time" "$st, expected between $t0 and $t1"
fi
ctl metrics >"$T/m0b"
[ "$(val "$T/m0b" pingsockd_start_time_seconds)" = "$st" ] &&
	pass "$LABEL/start_time_stays" ||
	fail "$LABEL/start_time_stays" "$st, then $(val "$T/m0b" pingsockd_start_time_seconds)"

py_as 1000 sockets 5 "$T/sig/r1" "$T/sig/g1" >"$T/o1" 2>&1 &
h1=$!
o=$(py_as 65534 sockets 1 "$T/sig/r2" "$T/sig/r2" 2>&1)
wait_files "$T/sig/r1"
[ "$(cat "$T/o1")" = "opened 3 then EMFILE" ] && [ "$o" = "opened 0 then EACCES" ] ||
	fail "$LABEL/refusals_client" "uid 1000: $(cat "$T/o1"); uid 65534: $o"
ctl metrics >"$T/m1"
expect refused_by_reason "$T/m1" "$RF{reason=\"group\"}=1" \
	"$RF{reason=\"max_sockets\"}=1" "$RF{reason=\"descriptors\"}=0" \
	"$RF{reason=\"identifiers\"}=0" "$RF{reason=\"resources\"}=0" \
	pingsockd_refused_total=2 "$UF{uid=\"1000\"}=1" "$UR{uid=\"1000\"}=0" \
	"pingsockd_uid_sockets{uid=\"1000\"}=3"
o=$(ctl status)
if grep -q '^refused_sockets_max_sockets 1$' <<<"$o" &&
	grep -q '^refused_sockets_group 1$' <<<"$o" &&
	grep -q "^version $V\$" <<<"$o" && grep -q '^mode relay$' <<<"$o" &&
	grep -q "^start_time $st\$" <<<"$o" &&
	grep -q '^user 1000 requests 0 refused 1$' <<<"$o"; then
	pass "$LABEL/status"
else
	fail "$LABEL/status" "$(tr '\n' '|' <<<"$o")"
fi
: >"$T/sig/g1"
wait $h1

# ---- the rate: sends made to wait, refused with EAGAIN, with ENOBUFS ----
conf "rate = 10\nburst = 2\n" || { fail "$LABEL/setup" "pingsockd"; ns_done; }
o=$(py_as 65534 dontwait 6 2>&1)
ctl metrics >"$T/m2"
ea=$(sed -n 's/.*EAGAIN=\([0-9]*\).*/\1/p' <<<"$o")
if [ -n "$ea" ] && [ "$ea" -ge 1 ] && [ "$(val "$T/m2" "$RL{action=\"would_block\"}")" = "$ea" ]; then
	expect rate_would_block "$T/m2" "$RL{action=\"delayed\"}=0" \
		"$RL{action=\"refused\"}=0" pingsockd_refused_total=0
else
	fail "$LABEL/rate_would_block" "client: $o; would_block $(val "$T/m2" "$RL{action=\"would_block\"}")"
fi

# One a second, a burst of one: of four sends at once, the first goes,
# the next waits (at most one burst's time), the rest are refused.
conf "rate = 1\nburst = 1\n" || { fail "$LABEL/setup" "pingsockd"; ns_done; }
rm -f "$T/sig/go3"
pids=()
for i in 1 2 3 4; do
	py_as 65534 one "$T/sig/r3.$i" "$T/sig/go3" >"$T/o3.$i" 2>&1 &
	pids+=($!)
done
wait_files "$T/sig/r3.1" "$T/sig/r3.2" "$T/sig/r3.3" "$T/sig/r3.4"
: >"$T/sig/go3"
wait "${pids[@]}"
ok=$(cat "$T"/o3.* | grep -c '^ok$')
nb=$(cat "$T"/o3.* | grep -c '^ENOBUFS$')
ctl metrics >"$T/m3"
dl=$(val "$T/m3" "$RL{action=\"delayed\"}")
if [ $((ok + nb)) = 4 ] && [ "$nb" -ge 1 ] && [ "$dl" != none ] && [ "$dl" -ge 1 ] &&
	[ "$dl" -lt "$ok" ]; then
	expect rate_delayed_and_refused "$T/m3" "$RL{action=\"refused\"}=$nb" \
		"$RL{action=\"would_block\"}=0" pingsockd_refused_total="$nb" \
		"$RF{reason=\"max_sockets\"}=0" "pingsockd_requests_total=$ok"
else
	fail "$LABEL/rate_delayed_and_refused" "clients: $(cat "$T"/o3.* | tr '\n' ' '); delayed $dl"
fi

# ---- per-uid requests: as sent, only while the daemon keeps state ----
conf "" || { fail "$LABEL/setup" "pingsockd"; ns_done; }
py_as 65534 echo 3 "$T/sig/r4" "$T/sig/g4" >/dev/null 2>&1 &
h4=$!
py_as 1000 echo 5 "$T/sig/r5" "$T/sig/g4" >/dev/null 2>&1 &
h5=$!
wait_files "$T/sig/r4" "$T/sig/r5"
ctl metrics >"$T/m4"
expect user_requests "$T/m4" "$UR{uid=\"65534\"}=3" "$UR{uid=\"1000\"}=5" \
	"$UR{uid=\"0\"}=0" pingsockd_requests_total=8 pingsockd_users=3 \
	"$UF{uid=\"65534\"}=0" pingsockd_view_all_uids=1
ctl_as 1000 metrics >"$T/m4u"
n=$(grep -c '^pingsockd_user_' "$T/m4u")
expect user_requests_own_uid_only "$T/m4u" "$UR{uid=\"1000\"}=5" \
	"$UR{uid=\"65534\"}=none" "$UR{uid=\"0\"}=none" \
	pingsockd_requests_total=8 pingsockd_view_all_uids=0
[ "$n" = 2 ] || fail "$LABEL/user_requests_own_uid_only" "$n per-user samples"
o=$(ctl_as 1000 status)
grep -q '^user 1000 requests 5 refused 0$' <<<"$o" && [ "$(grep -c '^user ' <<<"$o")" = 1 ] &&
	pass "$LABEL/status_own_user" || fail "$LABEL/status_own_user" "$(tr '\n' '|' <<<"$o")"
: >"$T/sig/g4"
wait $h4 $h5
# Once their clients are gone the daemon forgets them (a tick, a
# second): their series go, nothing of them is kept.  (10 s at most, a
# busy machine's daemon.)
for _ in $(seq 100); do
	sleep 0.1
	ctl metrics >"$T/m5"
	[ "$(val "$T/m5" "$UR{uid=\"65534\"}")$(val "$T/m5" "$UR{uid=\"1000\"}")" = nonenone ] &&
		break
done
expect users_forgotten "$T/m5" "$UR{uid=\"65534\"}=none" "$UR{uid=\"1000\"}=none" \
	"$UR{uid=\"0\"}=0" pingsockd_users=1 pingsockd_requests_total=8

# ---- more users than one page (WIRE_USERS_PAGE, 170) ----
N=175
pids=()
for i in $(seq 0 $((N - 1))); do
	as_uid $((3000 + i)) d "$T/ping" -q -c 2 -i 10 127.0.0.1 >/dev/null 2>&1 &
	pids+=($!)
done
for _ in $(seq 1 100); do
	ctl metrics >"$T/m6"
	[ "$(grep -c "^$UR{uid=\"3[0-9]*\"} 1$" "$T/m6")" = $N ] && break
	sleep 0.1
done
got=$(grep -c "^$UR{uid=\"3[0-9]*\"} 1$" "$T/m6")
first=$(grep "^$UR{uid=\"3" "$T/m6" | head -1)
last=$(grep "^$UR{uid=\"3" "$T/m6" | tail -1)
ctl status >"$T/s6"
if [ "$got" = $N ] && [ "$first" = "$UR{uid=\"3000\"} 1" ] &&
	[ "$last" = "$UR{uid=\"$((3000 + N - 1))\"} 1" ] &&
	[ "$(grep -c '^user 3[0-9]* requests 1 refused 0$' "$T/s6")" = $N ] &&
	[ "$(val "$T/m6" pingsockd_users)" -ge $((N + 1)) ]; then
	pass "$LABEL/users_pages"
else
	fail "$LABEL/users_pages" "$got of $N uids with 1 request; first [$first] last [$last]; users $(val "$T/m6" pingsockd_users)"
fi
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null

ns_done
