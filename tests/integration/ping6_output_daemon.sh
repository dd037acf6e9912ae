#!/bin/bash
# SPDX-License-Identifier: ISC
# ping6_output through pingsockd: our ping -6 served by the daemon in a
# namespace with the kernel's ping sockets closed, compared with iputils'
# ping -6 on the kernel's own socket.
PINGSOCK_BACKEND=daemon PING6_OUTPUT_LABEL=daemon \
	exec "$(dirname "$0")/ping6_output.sh"
