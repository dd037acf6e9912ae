/* SPDX-License-Identifier: ISC */
/*
 * steps/sendto.h - the steps of sendto.c and sendto6.c, for either
 * family: rows of the sendto table (each on a fresh socket, with the
 * socket's name afterwards: the first send binds an identifier even when
 * it fails), the header fields the socket overwrites, sendmsg shapes,
 * the identifier a failed send binds.
 */
#ifndef STEPS_SENDTO_H
#define STEPS_SENDTO_H

#include "../conf.h"

/* One sendto of an Echo Request of len bytes to ip (IPv6: scope dev, an
 * interface's name or a number), and whether a reply comes. */
struct sendto_row {
	const char *what, *ip, *dev;
	size_t len;
	bool reply;
	uint16_t seq;
};

/* One flag of sendto to the loopback address. */
struct sendto_flag {
	const char *what;
	int flags;
	bool reply;
	uint16_t seq;
};

/* One sendto on a fresh socket (with SO_BROADCAST if bcast); the name
 * afterwards; the reply if one is expected. */
static void sendto_full(const struct conf_fam *f, const char *what,
			size_t len, const void *dst, socklen_t dstlen,
			int flags, bool bcast, bool reply, uint16_t seq)
{
	int fd = conf_fsocket(f);

	if (bcast && conf_setint(fd, SOL_SOCKET, SO_BROADCAST, 1) < 0)
		out("SO_BROADCAST: -1 %s", conf_errname(errno));
	f->echo(conf_big, len, seq);
	TRY(what, pingsock_sendto(fd, conf_big, len, flags, dst, dstlen));
	conf_fname(f, L("  %s: getsockname", what), fd, false, PORT_MASK);
	if (reply)
		conf_freply1(f, L("  %s: reply", what), fd, false);
	pingsock_close(fd);
}

static void sendto_rows(const struct conf_fam *f, const struct sendto_row *r,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct conf_addr a = conf_addr(f, r[i].ip, 0,
					       conf_scope_id(r[i].dev));

		sendto_full(f, r[i].what, r[i].len, &a.u, a.len, 0, false,
			    r[i].reply, r[i].seq);
	}
}

static void sendto_flags(const struct conf_fam *f,
			 const struct sendto_flag *r, size_t n)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);

	out("## flags");
	for (size_t i = 0; i < n; i++)
		sendto_full(f, r[i].what, 64, &a.u, a.len, r[i].flags, false,
			    r[i].reply, r[i].seq);
}

/*
 * The address lengths: none, 0, the short ones given (sequence seq),
 * a sockaddr_storage's 128 and one more (seq + 1).
 */
static void sendto_lengths(const struct conf_fam *f, const char *const *what,
			   const socklen_t *len, size_t n, uint16_t seq)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);

	sendto_full(f, "no address", 64, NULL, 0, 0, false, false, seq);
	sendto_full(f, "address, addrlen 0", 64, &a.u, 0, 0, false, false,
		    seq);
	for (size_t i = 0; i < n; i++)
		sendto_full(f, what[i], 64, &a.u, len[i], 0, false, false, seq);
	sendto_full(f, "addrlen 128", 64, &a.u, sizeof(a.u.ss), 0, false,
		    true, (uint16_t)(seq + 1));
	sendto_full(f, "addrlen 129", 64, &a.u, 129, 0, false, false,
		    (uint16_t)(seq + 1));
}

/*
 * An Echo Request to the loopback address with the byte at off set to
 * val; then the socket's name (name) or what answers within 300 ms
 * (answer).
 */
static void sendto_hdr(const struct conf_fam *f, const char *what, int off,
		       uint8_t val, bool name, bool answer)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);
	int fd = conf_fsocket(f);

	f->echo(conf_big, 64, 30);
	conf_big[off] = val;
	TRY(what, pingsock_sendto(fd, conf_big, 64, 0, &a.u.sa, a.len));
	if (name)
		conf_fname(f, L("  %s: getsockname", what), fd, false,
			   PORT_MASK);
	if (answer)
		conf_fquiet(f, L("  %s: answer", what), fd, 300);
	pingsock_close(fd);
}

/* The identifier and checksum as given are ignored; any sequence goes. */
static void sendto_ident_cksum(const struct conf_fam *f)
{
	static const uint16_t seqs[] = { 0xffff, 0 };
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);
	int fd = conf_fsocket(f);

	f->echo(conf_big, 64, 0x1234);
	conf_big[2] = conf_big[3] = 0;
	conf_big[4] = conf_big[5] = 0;
	TRY("ident 0, checksum 0, seq 0x1234",
	    pingsock_sendto(fd, conf_big, 64, 0, &a.u.sa, a.len));
	conf_freply1(f, "  reply", fd, false);
	for (size_t i = 0; i < 2; i++) {
		f->echo(conf_big, 64, seqs[i]);
		TRY(seqs[i] ? "seq 0xffff" : "seq 0",
		    pingsock_sendto(fd, conf_big, 64, 0, &a.u.sa, a.len));
		conf_freply1(f, "  reply", fd, false);
	}
	pingsock_close(fd);
}

/*
 * Path MTU discovery on lo: IP_PMTUDISC_DO, then 4000 bytes (sequence
 * seq) and the largest that fits lo's MTU (seq + 1), both answered.
 * Returns the socket, still open.
 */
static int sendto_pmtu_lo(const struct conf_fam *f, uint16_t seq,
			  size_t largest)
{
	int fd = conf_fsocket(f);

	out("## path MTU discovery on lo");
	TRY(L("%s %s_DO", f->mtu_discover.label, f->pmtudisc),
	    conf_setint(fd, f->mtu_discover.level, f->mtu_discover.name,
			IP_PMTUDISC_DO));
	conf_fping(f, "4000 bytes", fd, f->loopback, seq, 4000);
	conf_freply1(f, "  reply", fd, false);
	conf_fping(f, L("%zu bytes", largest), fd, f->loopback,
		   (uint16_t)(seq + 1), largest);
	conf_freply1(f, "  reply", fd, false);
	return fd;
}

/*
 * sendmsg's shapes (sequence seq): three pieces, no name, a short name
 * (namelen short), no iov, empty pieces.  Returns the socket, open.
 */
static int sendto_sendmsg(const struct conf_fam *f, uint16_t seq,
			  socklen_t short_len)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);
	struct iovec iov[3] = {
		{ conf_big, 3 }, { conf_big + 3, 5 }, { conf_big + 8, 56 },
	};
	struct msghdr m;
	int fd = conf_fsocket(f);

	out("## sendmsg");
	f->echo(conf_big, 64, seq);
	memset(&m, 0, sizeof(m));
	m.msg_name = &a.u;
	m.msg_namelen = a.len;
	m.msg_iov = iov;
	m.msg_iovlen = 3;
	TRY("sendmsg 3 pieces (3+5+56)", pingsock_sendmsg(fd, &m, 0));
	conf_freply1(f, "  reply", fd, false);
	m.msg_namelen = 0;
	TRY("sendmsg namelen 0", pingsock_sendmsg(fd, &m, 0));
	m.msg_name = NULL;
	m.msg_namelen = a.len;
	TRY("sendmsg name NULL", pingsock_sendmsg(fd, &m, 0));
	m.msg_name = &a.u;
	m.msg_namelen = short_len;
	TRY(L("sendmsg namelen %u", (unsigned)short_len),
	    pingsock_sendmsg(fd, &m, 0));
	m.msg_namelen = a.len;
	m.msg_iovlen = 0;
	TRY("sendmsg no iov", pingsock_sendmsg(fd, &m, 0));
	iov[0].iov_len = 0;
	iov[1].iov_base = conf_big;
	iov[1].iov_len = 8;
	iov[2].iov_len = 0;
	m.msg_iovlen = 3;
	TRY("sendmsg 0+8+0", pingsock_sendmsg(fd, &m, 0));
	conf_freply1(f, "  reply", fd, false);
	return fd;
}

/*
 * sendmsg of the 64 bytes in conf_big to the loopback address with one
 * control message of level/type, the int v and cmsg_len cmsglen.
 */
static long sendto_cmsg_int(const struct conf_fam *f, const char *what,
			    int fd, int level, int type, int v,
			    size_t cmsglen)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);

	memset(&cb, 0, sizeof(cb));
	cb.align.cmsg_level = level;
	cb.align.cmsg_type = type;
	cb.align.cmsg_len = cmsglen;
	memcpy(CMSG_DATA(&cb.align), &v, sizeof(v));
	return conf_sendmsg(what, fd, &a, 64, cb.b, sizeof(cb.b));
}

/* A send that fails (no route) binds an identifier, and it stays
 * (sequences seq, seq + 1). */
static void sendto_failed_binds(const struct conf_fam *f, uint16_t seq)
{
	struct conf_addr a = conf_addr(f, f->noroute, 0, 0);
	unsigned id1;
	int fd;

	out("## the identifier a failed send binds stays");
	fd = conf_fsocket(f);
	f->echo(conf_big, 64, seq);
	TRY(L("sendto %s", f->noroute),
	    pingsock_sendto(fd, conf_big, 64, 0, &a.u.sa, a.len));
	id1 = conf_ident(fd);
	conf_fping(f, L("then sendto %s", f->loopback), fd, f->loopback,
		   (uint16_t)(seq + 1), 64);
	out("  same identifier as after the failed send: %s",
	    id1 && id1 == conf_ident(fd) ? "yes" : "no");
	conf_freply1(f, "  reply", fd, false);
	pingsock_close(fd);
}

#endif
