/* SPDX-License-Identifier: ISC */
/*
 * peer: Echo to the peer namespace over the veth pair (MTU 1500):
 * replies, fragmentation and reassembly, a connected socket.  (Path MTU
 * discovery modes and their errors: pending/pmtu.c, with issue 5.)
 */
// needs: peer (10.201.0.1/24 here, 10.201.0.2/24 in the peer namespace)
#include "conf.h"
#include "steps/peer.h"

static const struct peer_size sizes[] = {
	{ 8, "", 1000 },
	{ 1472, "", 2000 },
	{ 65515, " (fragmented)", 0 },
};

int main(void)
{
	conf_begin("peer");
	peer_sizes(&conf_v4, sizes, sizeof(sizes) / sizeof(sizes[0]));
	peer_connected(&conf_v4, 5);
	return 0;
}
