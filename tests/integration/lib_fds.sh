#!/bin/bash
# SPDX-License-Identifier: ISC
# lib_fds - the library's descriptor table, through include/pingsock.h
# (tests/lib/fdcopy.c): a dup() of a socket is the same socket (issue 16:
# it used to be unknown to the table, so pingsock_sendto() on it sent
# nothing and pingsock_recv() waited forever), a descriptor closed and
# reused behind the library's back is dropped from the table, fork()
# while other threads are in the library, and the kernel refusals that
# mean "ask the daemon" (EAFNOSUPPORT on IPv4, as OpenVZ gives it; on
# IPv6 it means IPv6 is off, and stands).  Once against a relaying
# pingsockd, once against one in broker mode; the clients as uid 65534
# in a namespace whose kernel ping sockets are closed.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
LABEL=lib_fds

if [ "$(id -u)" != 0 ]; then
	skip "$LABEL" "needs root for network namespaces"
	ns_done
fi
ns_new f closed || { fail "$LABEL/setup" "namespace"; ns_done; }

# check MODE CASE WANT: fdcopy CASE prints exactly WANT (lines joined by |).
check() {
	local got
	got=$(as_nobody f timeout 60 "$T/tests/lib/fdcopy" "$2" 2>&1 | tr '\n' '|')
	[ "$got" = "$3" ] && pass "$LABEL/$1/$2" || fail "$LABEL/$1/$2" "$got"
}

for mode in relay broker; do
	if [ $mode = broker ]; then
		daemon_start f --mode broker --broker-group "$BROKER_GID"
		b=broker
	else
		daemon_start f
		b=daemon
	fi || { fail "$LABEL/$mode/start" "$(tail -3 "$T/f.log")"; continue; }
	check $mode dup "backend_dup=$b|dup_echo=reply|orig_echo=reply|after_close_echo=reply|dup2_echo=reply|"
	check $mode stale "stale_backend=none|stale_recv=hello|stale_fds=same|"
	check $mode fork "fork_hangs=0|"
	check $mode refused "eafnosupport4=$b|eafnosupport6=Address family not supported by protocol|"
	daemon_stop
done
ns_done
