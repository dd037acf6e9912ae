#!/bin/bash
# SPDX-License-Identifier: ISC
# shim_load - 100 concurrent unmodified iputils pings through the shim.
#
# SHIM_LOAD_N (100) capability-free copies of ping, each `-i 0.2 -c 50`,
# as uid 65534 with only LD_PRELOAD set in a namespace whose
# ping_group_range is "1 0", all served by one pingsockd: half to
# 127.0.0.1, half over the veth to the router (shimlib.sh).  Every one
# must get its 50 replies (0% loss, exit 0), the daemon must count no
# drop and still be up, and it all must take about the 10 s one ping
# takes.
# shellcheck source-path=SCRIPTDIR source=../lib/shimlib.sh
. "$(dirname "$0")/../lib/shimlib.sh"

N=${SHIM_LOAD_N:-100}
COUNT=50

shim_init shim_load ping
router_topology d || { fail "$LABEL/setup" "namespaces"; ns_done; }
status() { in_ns dc "$T/pingsockctl" --socket "$(ns_sock dc)" status; }
counter() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }

mkdir -p "$T/load" && chmod 777 "$T/load"
t0=$(date +%s%N)
pids=()
for i in $(seq 1 "$N"); do
	if [ $((i % 2)) = 0 ]; then addr=127.0.0.1; else addr=$TOPO_ROUTER; fi
	shimmed dc timeout -k 5 120 "$T/bin/ping" -q -i 0.2 -c $COUNT $addr \
		>"$T/load/$i.out" 2>"$T/load/$i.err" &
	pids+=($!)
done
i=0
for p in "${pids[@]}"; do
	i=$((i + 1))
	wait "$p"; echo $? >"$T/load/$i.rc"
done
t1=$(date +%s%N)
secs=$(awk -v n=$((t1 - t0)) 'BEGIN { printf "%.1f", n / 1e9 }')
echo "$N pings of $COUNT at 0.2 s: ${secs} s in all"

bad=0 why=""
for i in $(seq 1 "$N"); do
	if [ "$(cat "$T/load/$i.rc")" = 0 ] &&
		grep -q "^$COUNT packets transmitted, $COUNT received, 0% packet loss" \
			"$T/load/$i.out" && ! [ -s "$T/load/$i.err" ]; then
		continue
	fi
	bad=$((bad + 1))
	[ $bad -le 3 ] && why+="ping $i: exit $(cat "$T/load/$i.rc"): $(grep -h -e 'packets transmitted' -e . "$T/load/$i.out" "$T/load/$i.err" | grep -v '^PING\|^---\|^rtt' | head -2 | tr '\n' '|') "
done
if [ $bad = 0 ]; then
	pass "$LABEL/all_replies"
else
	fail "$LABEL/all_replies" "$bad of $N pings lost replies or failed: $why"
fi

st=$(status); rc=$?
if kill -0 "${SHIM_DAEMON[dc]}" 2>/dev/null && [ $rc = 0 ] &&
	[ "$(counter dropped "$st")" = 0 ]; then
	pass "$LABEL/daemon_up"
else
	fail "$LABEL/daemon_up" "status exit $rc: $(tr '\n' ' ' <<<"$st") $(tail -3 "$T/dc.log" | tr '\n' '|')"
fi
# One ping alone takes (COUNT - 1) * 0.2 s; the rest is start-up and load.
if awk -v s="$secs" 'BEGIN { exit !(s < 60) }'; then
	pass "$LABEL/duration"
else
	fail "$LABEL/duration" "${secs} s (one ping: $(awk -v c=$COUNT 'BEGIN { print (c - 1) * 0.2 }') s)"
fi

ns_done
