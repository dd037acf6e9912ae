#!/bin/bash
# ping_output through pingsockd: the same comparison with iputils' ping,
# our ping served by the daemon in a namespace with the kernel's ping
# sockets closed.  Two cases need ICMP errors and the error queue, which
# come with issue 5: host_unreachable ("From ... Destination Host
# Unreachable") and msgsize ("local error: message too long").
PINGSOCK_BACKEND=daemon PING_OUTPUT_LABEL=daemon \
PING_OUTPUT_EXCLUDE="host_unreachable msgsize" \
	exec "$(dirname "$0")/ping_output.sh"
