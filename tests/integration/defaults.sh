#!/bin/bash
# SPDX-License-Identifier: ISC
# defaults - the 2010 patch's own test, in short, under pingsockd's
# defaults (no configuration at all): one user's 200 concurrent pings,
# 25 echoes each 0.2 s apart (5 s), to a peer over a veth pair, in relay
# and in broker mode.  Nothing may be lost and no limit may be met: no
# refusal counted, and no send held back by policy (a ping whose sends
# waited for a rate would not finish its 25 echoes by its deadline, twice
# the time they take).  Issue 17, item 1.
. "$(dirname "$0")/../lib/netns.sh"

N=200
COUNT=25
ns_new d closed
ns_new peer closed
ns_veth d peer 10.217.0.1/24 10.217.0.2/24 ||
	{ fail defaults/setup "veth"; ns_done; }
: >"$T/empty.conf"
chmod 644 "$T/empty.conf"

# load MODE-ARGS...: the pings, then what they and the daemon say.
load() {	# LABEL [daemon args...]
	local label=$1 out lost refused; shift
	daemon_start d --config "$T/empty.conf" "$@" ||
		{ fail "defaults/$label/start" "pingsockd"; return; }
	rm -f "$T"/load.*
	local pids=()
	for i in $(seq 1 $N); do
		as_nobody d "$T/ping" -q -c $COUNT -i 0.2 -w 10 10.217.0.2 \
			>"$T/load.$i" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"	# not the daemon, also a background job
	out=$(cat "$T"/load.*)
	lost=$(grep -c -v -E "^\$|^PING |^---|^rtt |^$COUNT packets transmitted, $COUNT received, 0% packet loss" <<<"$out")
	if [ "$lost" = 0 ] &&
		[ "$(grep -c " 0% packet loss" <<<"$out")" = $N ]; then
		pass "defaults/$label/${N}_pings_no_loss"
	else
		fail "defaults/$label/${N}_pings_no_loss" \
			"$(grep -v -E '^$|^PING |^rtt ' <<<"$out" | sort | uniq -c | head)"
	fi
	refused=$(in_ns d "$T/pingsockctl" --socket "$(ns_sock d)" status |
		sed -n 's/^refused //p')
	if [ "$refused" = 0 ]; then
		pass "defaults/$label/no_limit_met"
	else
		fail "defaults/$label/no_limit_met" "refused: '$refused'"
	fi
	daemon_stop
}

load relay
load broker --mode broker --broker-group "$BROKER_GID"
ns_done
