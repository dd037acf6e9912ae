/* SPDX-License-Identifier: ISC */
/*
 * demux: replies reach the socket whose identifier they carry, and only
 * that one.  (Two sockets sharing one identifier are left out on purpose:
 * pingsockd delivers a reply only to the socket that sent the request,
 * where the kernel hands it to the newest bound one — see design.md.)
 */
// needs: peer
#include "conf.h"
#include "steps/demux.h"

#define F (&conf_v4)

int main(void)
{
	int a, b, c;

	conf_begin("demux");
	demux_bound(F, 40031, "127.0.0.1");
	demux_auto(F, &a, &b);

	out("## a closed socket's replies go nowhere");
	c = conf_socket();
	demux_bind(F, "C", c, "0.0.0.0", 40033);
	conf_ping("C: sendto seq 9", c, CONF_PEER, 9, 64);
	TRY("C: close before the reply", pingsock_close(c));
	conf_quiet("A", a, 300);
	conf_quiet("B", b, 0);
	pingsock_close(a);
	pingsock_close(b);

	pingsock_close(demux_bound_loopback(F, 40034, 10));
	demux_bound_local(F, 40035, 11);

	demux_device_lo(F, 13, 500);
	a = conf_socket();
	TRY("A: SO_BINDTODEVICE veth0", pingsock_setsockopt(a, SOL_SOCKET,
							    SO_BINDTODEVICE,
							    "veth0", 6));
	conf_ping("A: sendto 10.201.0.2", a, CONF_PEER, 15, 64);
	conf_reply1("A: reply", a, false);
	pingsock_close(a);
	return 0;
}
