/* SPDX-License-Identifier: ISC */
/*
 * steps/peer.h - the steps of peer.c and peer6.c, for either family:
 * echoes to the peer namespace over the veth pair (MTU 1500), up to
 * fragmentation and reassembly, and a connected socket.
 */
#ifndef STEPS_PEER_H
#define STEPS_PEER_H

#include "../conf.h"

/* An echo of len bytes to the peer ("sendto PEER LEN bytesNOTE"), its
 * reply read with room bytes (0: all of conf_rbuf). */
struct peer_size {
	size_t len;
	const char *note;
	size_t room;
};

/* Echoes of 64 bytes, then of each size, with the hop limit they came
 * with (sequences 1 on). */
static void peer_sizes(const struct conf_fam *f, const struct peer_size *s,
		       size_t n)
{
	int fd = conf_fsocket(f);

	out("## plain echo to the peer");
	conf_fset(&f->recvhops, fd, 1);
	conf_fping(f, L("sendto %s", f->peer), fd, f->peer, 1, 64);
	conf_freply(f, "  reply", fd, 1000, 0, 512, false);
	conf_fname(f, "getsockname (unconnected: no source address)", fd,
		   false, PORT_MASK);
	for (size_t i = 0; i < n; i++) {
		conf_fping(f, L("sendto %s %zu bytes%s", f->peer, s[i].len,
				s[i].note), fd, f->peer, (uint16_t)(2 + i),
			   s[i].len);
		conf_freply(f, "  reply", fd,
			    s[i].room ? s[i].room : sizeof(conf_rbuf), 0, 512,
			    false);
	}
	conf_fquiet(f, "nothing else", fd, 300);
	pingsock_close(fd);
}

/* Connected to the peer: the name, the path's MTU, three sends of 100
 * bytes (sequences seq on). */
static void peer_connected(const struct conf_fam *f, uint16_t seq)
{
	struct conf_addr a = conf_addr(f, f->peer, 0, 0);
	int fd = conf_fsocket(f);

	out("## connected to the peer");
	TRY(L("connect %s", f->peer), pingsock_connect(fd, &a.u.sa, a.len));
	conf_fname(f, "getsockname", fd, false, PORT_MASK);
	conf_fget("", &f->mtu, fd);
	for (uint16_t s = seq; s < seq + 3; s++) {
		conf_fpsend(f, L("send seq %u", s), fd, s, 100);
		conf_freply1(f, "  reply", fd, false);
	}
	pingsock_close(fd);
}

#endif
