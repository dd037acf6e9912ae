#!/bin/bash
# SPDX-License-Identifier: ISC
# ping_output through pingsockd: the same comparison with iputils' ping,
# our ping served by the daemon in a namespace with the kernel's ping
# sockets closed.
PINGSOCK_BACKEND=daemon PING_OUTPUT_LABEL=daemon \
	exec "$(dirname "$0")/ping_output.sh"
