#!/bin/bash
# SPDX-License-Identifier: ISC
# pingsockd under valgrind: no memory errors and no leaks over a session
# with pings, a malformed client, a reload and a clean stop.  Valgrind and
# ASan cannot share a process, so this runs in the plain build's pass only
# (the ASan pass runs the same daemon code under ASan everywhere else).
. "$(dirname "$0")/../lib/netns.sh"

if nm "$T/pingsockd" 2>/dev/null | grep -q __asan_init; then
	exit 0
fi
if ! command -v valgrind >/dev/null; then
	skip valgrind/daemon "valgrind is not installed"
	ns_done
fi

PST=$T/tests/lib/pstool
cp "$(dirname "$0")/../valgrind/libbpf.supp" "$T/" && chmod a+r "$T/libbpf.supp"
ns_new v closed
printf 'groups = 0 4294967294\n' >"$T/v.conf"

# vg NAME [pingsockd args]: the daemon under valgrind, a few clients, a
# reload and a stop; clean means exit 0, every reply, an empty log.
# Broker mode runs with the BPF guard (libbpf's loading, the maps).
vg() {
	local name=$1 out rc vglog=$T/valgrind-$1.log; shift
	PS_DAEMON_WRAPPER="valgrind -q --vgdb=no --error-exitcode=99 --leak-check=full \
--suppressions=$T/libbpf.supp \
--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
--log-file=$vglog"
	# Valgrind is slow to start (libbpf reads the kernel's BTF under
	# it: over 5 s on a busy machine).  One daemon, waited for: a second
	# one started beside a slow first (as this did) races it for the
	# socket, and the SIGHUP below can reach the first before its
	# handler is in (measured: exit 129 in a CI run).
	PS_DAEMON_START_S=120 daemon_start v --config "$T/v.conf" "$@" ||
		{ fail "valgrind/$name" "the daemon did not start"; return; }
	out=$(as_nobody v "$PST" ping 127.0.0.1 5)
	as_nobody v "$PST" pair 127.0.0.1 6001 6002 >/dev/null
	as_nobody v "$PST" garbage >/dev/null
	as_nobody v "$PST" bind 7001 >/dev/null
	kill -HUP "$DAEMON_PID"
	sleep 0.5
	as_nobody v "$PST" ping 127.0.0.1 2 >/dev/null
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID"
	rc=$?
	# Valgrind says which bpf() commands it cannot check (a netfilter
	# link's, Linux 6.4): a note about itself, not an error.
	sed -i '/WARNING: unhandled eBPF command/d' "$vglog" 2>/dev/null
	if [ $rc = 0 ] && [ "$(grep -c '^reply' <<<"$out")" = 5 ] && ! [ -s "$vglog" ]; then
		pass "valgrind/$name"
	else
		fail "valgrind/$name" "exit $rc, replies: $(grep -c '^reply' <<<"$out"); $(head -40 "$vglog")"
	fi
}
vg daemon_clean
vg broker_guard_clean --mode broker --broker-group "$BROKER_GID"
grep -q 'BPF guard loaded' "$T/v.log" || fail valgrind/broker_guard_clean "no BPF guard: $(grep -h 'guard' "$T/v.log")"
ns_done
