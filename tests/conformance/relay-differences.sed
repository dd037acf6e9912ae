# SPDX-License-Identifier: ISC
# Relay mode's deliberate differences from the kernel's ping socket,
# applied to the kernel's output before it is compared (run.sh) in the
# relay and shim runs; broker mode hands out the kernel's own sockets and
# has none of them.  Each is listed in pingsockd(8), DIFFERENCES.
#
# A relayed socket keeps its multicast memberships but no source
# filters: a change to the filter of a group it has joined is refused
# with EOPNOTSUPP (case mcast).  A ping socket never receives what is
# sent to a group, so a filter would change nothing it sees.
/^\(IP\|MCAST\)_BLOCK_SOURCE .* from the peer: 0$/s/: 0$/: -1 EOPNOTSUPP/
