/* SPDX-License-Identifier: ISC */
/*
 * relay_io - sending and receiving on a relayed socket (backend.h).
 *
 * A send is a request on the control connection and
 * returns the daemon's verdict synchronously.  A receive reads the data
 * descriptor itself, so blocking, O_NONBLOCK, SO_RCVTIMEO, MSG_PEEK and
 * MSG_TRUNC are the kernel's own behaviour on that descriptor; the
 * struct wire_dgram in front of each datagram becomes the source address
 * and the ancillary data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/icmp6.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "engine/addr.h"
#include "lib/clock.h"
#include "lib/cmsg.h"
#include "lib/errq.h"
#include "lib/fdcheck.h"
#include "lib/fdtab.h"
#include "lib/iov.h"
#include "lib/ident.h"
#include "lib/rawcompat.h"
#include "lib/relay.h"
#include "wire/decode.h"
#include "wire/rights.h"
#include "lib/sys.h"
#include "lib/ucopy.h"
#include "lib/umsg.h"

#define MAX_IOV UMSG_IOV
/* The ICMP header a ping socket reads first (ICMPv6's is as long). */
#define ECHO_HDR 8

/* Too many pieces for one request: gather them into one buffer, as the
 * kernel reads them (-EFAULT for one the program does not have). */
static void *flatten(const struct iovec *iov, size_t n, size_t total,
		     long *err)
{
	char *buf = malloc(total ? total : 1), *p = buf;

	if (!buf) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!ucopy_in(p, iov[i].iov_base, iov[i].iov_len)) {
			free(buf);
			*err = -EFAULT;
			return NULL;
		}
		p += iov[i].iov_len;
	}
	return buf;
}

/*
 * PINGSOCK_IDENT=keep, at the socket's first send: ask the daemon to bind
 * it to the identifier of this Echo Request.  Whatever the answer (taken,
 * already bound, forbidden by the policy), the send then goes as usual.
 */
static void keep_ident(int fd, struct fdent *ent, const struct iovec *iov,
		       size_t niov)
{
	struct wire_req req = { .type = WIRE_KEEPID };
	int ident = ident_of_echo(ent->family, iov, niov);

	fdtab_clear_keep(fd);
	ent->keep_ident = false;
	if (ident < 0)
		return;
	req.u.ident = (uint32_t)ident;
	(void)relay_call(fd, ent, &req, NULL, 0, NULL, NULL);
}

/* The caller asked not to wait: MSG_DONTWAIT or O_NONBLOCK. */
static bool nonblocking(int fd, int flags)
{
	int fl;

	if (flags & MSG_DONTWAIT)
		return true;
	fl = sys_fcntl(fd, F_GETFL);
	return fl >= 0 && (fl & O_NONBLOCK);
}

/*
 * A send that failed EFAULT with its name and control data there: the
 * fault was in its data, which the kernel reads only once
 * inet_send_prepare() has bound the socket (as the daemon binds one whose
 * send it sees).  The daemon saw none: a ping socket is bound as that
 * autobind would (no address, any identifier; a bound one refuses, and
 * stays as it was).
 */
static void bind_as_sent(int fd, struct fdent *ent, const void *name,
			 uint32_t namelen, const void *ctl, size_t ctllen)
{
	struct wire_req req = { .type = WIRE_BIND };
	struct sockaddr_in6 any = { .sin6_family = (sa_family_t)ent->family };

	if (ent->kind != FDK_RELAY ||
	    (namelen != WIRE_NO_NAME && !ucopy_readable(name, namelen)) ||
	    !ucopy_readable(ctl, ctllen))
		return;
	req.u.addr.len = ent->family == AF_INET6 ? sizeof(struct sockaddr_in6)
						 : sizeof(struct sockaddr_in);
	memcpy(req.u.addr.bytes, &any, req.u.addr.len);
	(void)relay_call(fd, ent, &req, NULL, 0, NULL, NULL);
}

/*
 * One WIRE_SEND.  namelen is WIRE_NO_NAME when the caller gave no address;
 * the daemon checks the name and data exactly as the kernel would.  The
 * name, the control data and the data are the program's, where it has
 * them: the kernel gathers them into the request (lib/call.c), and a
 * buffer the program does not have is EFAULT with nothing sent, as
 * ___sys_sendmsg() and the ping socket's own copies say.
 */
static long dsend(int fd, struct fdent *ent, int flags, const void *name,
		  uint32_t namelen, const struct iovec *iov, size_t niov,
		  const void *ctl, size_t ctllen)
{
	static const uint8_t none[ECHO_HDR];
	struct wire_req req = { .type = WIRE_SEND };
	size_t total = iov_total(iov, niov);
	struct iovec one;
	void *flat = NULL;
	long rc = 0;

	if (ctllen > WIRE_CTL_MAX)
		return -ENOBUFS;
	if (ent->keep_ident)
		keep_ident(fd, ent, iov, niov);
	/* The daemon cannot see O_NONBLOCK (a flag of the program's open
	 * file): a non-blocking socket's send that the policy would make
	 * wait must fail EAGAIN, as with MSG_DONTWAIT, not block.  Looked
	 * at only when the daemon says the send would wait (WIRE_RQ_ASK):
	 * most sends never do, and the look would cost each one a system
	 * call in the time ping measures. */
	req.u.send.flags = flags;
	if (!(flags & MSG_DONTWAIT))
		req.rqflags = WIRE_RQ_ASK;
	req.u.send.len = total > WIRE_DATA_MAX ? UINT32_MAX : (uint32_t)total;
	req.u.send.namelen = namelen;
	req.u.send.name_src = name;
	req.u.send.timeo_fd = &fd;
	req.u.send.ctllen = (uint32_t)ctllen;
	req.u.send.ctl = ctl;
	if (total > WIRE_DATA_MAX) {
		niov = 0;	/* the daemon answers EMSGSIZE */
	} else if (total < ECHO_HDR) {
		/* ping_common_sendmsg(): EINVAL, the data never read; so
		 * it is not read here either. */
		one.iov_base = (void *)(uintptr_t)none; // NOLINT(performance-no-int-to-ptr)
		one.iov_len = total;
		iov = &one;
		niov = 1;
	} else if (niov > MAX_IOV) {
		flat = flatten(iov, niov, total, &rc);
		one.iov_base = flat;
		one.iov_len = total;
		iov = &one;
		niov = 1;
	}
	if (rc == 0)
		rc = relay_call(fd, ent, &req, iov, (int)niov, NULL, NULL);
	if (rc == WIRE_R_ASKED) {
		req.rqflags = 0;
		if (nonblocking(fd, flags))
			req.u.send.flags |= MSG_DONTWAIT;
		rc = relay_call(fd, ent, &req, iov, (int)niov, NULL, NULL);
	}
	if (rc == -EFAULT && niov)
		bind_as_sent(fd, ent, name, namelen, ctl, ctllen);
	free(flat);
	return rc;
}

ssize_t relay_sendmsg(int fd, struct fdent *ent, const struct msghdr *msg,
		      int flags)
{
	struct umsg_send s;
	long rc = umsg_send_in(&s, msg);

	if (rc == 0)
		rc = dsend(fd, ent, flags, s.m.msg_name,
			   s.m.msg_name ? s.m.msg_namelen : WIRE_NO_NAME,
			   s.m.msg_iov, s.m.msg_iovlen, s.m.msg_control,
			   s.m.msg_controllen);
	umsg_send_done(&s);
	return sys_ret(rc);
}

ssize_t relay_sendto(int fd, struct fdent *ent, const void *buf, size_t len,
		     int flags, const struct sockaddr *dst, socklen_t dstlen)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	/* __sys_sendto(): any non-NULL address is a name, even of length 0;
	 * move_addr_to_kernel() refuses one longer than sockaddr_storage. */
	if (dst && dstlen > WIRE_ADDR_MAX)
		return sys_ret(-EINVAL);
	return sys_ret(dsend(fd, ent, flags, dst, dst ? dstlen : WIRE_NO_NAME,
			     &iov, 1, NULL, 0));
}

/*
 * Every read that takes a datagram off the data pair: with room for any
 * descriptors that came with it, each let go of (fdcheck_discard()),
 * none left for the kernel to release in this thread.  The pair refuses
 * them (fdcheck_fresh_pair()), but an impostor that kept the pair's open
 * file can turn that off again.  A peek takes none: the queue keeps its
 * own.  m's control buffer is the library's (none) before and after.
 */
static ssize_t pair_recvmsg(int fd, struct msghdr *m, int flags)
{
	union wire_rights_all_buf cbuf;
	ssize_t n;

	if (flags & MSG_PEEK)
		return sys_recvmsg(fd, m, flags);
	m->msg_control = cbuf.b;
	m->msg_controllen = sizeof(cbuf.b);
	n = sys_recvmsg(fd, m, flags | MSG_CMSG_CLOEXEC);
	if (n >= 0)
		fdcheck_discard_rights(m);
	m->msg_control = NULL;
	m->msg_controllen = 0;
	return n;
}

/*
 * Read one datagram.  After shutdown(SHUT_RD) the kernel still hands out
 * what is queued, and then returns 0 at once instead of waiting.
 */
static ssize_t read_dgram(int fd, struct msghdr *m, int flags,
			  const struct wire_shm *shm)
{
	bool shut_rd = shm && (atomic_load(&shm->shutdown) & WIRE_SHUT_RD);
	ssize_t n;

	n = pair_recvmsg(fd, m,
			 (flags & (MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC)) |
				 (shut_rd ? MSG_DONTWAIT : 0));
	if (n < 0 && errno == EAGAIN && shut_rd && !nonblocking(fd, flags))
		return -2;
	return n;
}

/* A peek found the datagram at the head malformed: take it off, so that
 * the next read moves on (a malformed one is never left to loop on). */
static void drop_head(int fd)
{
	char c;
	struct iovec iov = { .iov_base = &c, .iov_len = sizeof(c) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	(void)pair_recvmsg(fd, &m, MSG_DONTWAIT);
}

/*
 * Read one datagram into m (iov[0]: its header, into hdr) and check it
 * into *dg (wire_decode_dgram(): the daemon is trusted no more than it
 * trusts us).  0 with *full its whole length, 1 after shutdown(SHUT_RD)
 * with nothing queued, 2 for a wake-up (taken, even under MSG_PEEK: an
 * error arrived), or -errno: -ECONNRESET at the end of the descriptor
 * (the daemon went away), -EPROTO for a malformed datagram, which is
 * consumed even under MSG_PEEK.
 */
static int read_checked(int fd, const struct fdent *ent, struct msghdr *m,
			int flags, const uint8_t *hdr, struct wire_dgram *dg,
			size_t *full)
{
	ssize_t n = read_dgram(fd, m, flags | MSG_TRUNC, ent->shm);

	if (n == -2)
		return 1;
	if (n < 0)
		return -errno;
	if (n > 0 &&
	    wire_decode_dgram(hdr, (size_t)n < WIRE_DGRAM_HDR ? (size_t)n
							     : WIRE_DGRAM_HDR,
			      (size_t)n, WIRE_CHAN_DATA, ent->family, dg) == 0) {
		*full = (size_t)n;
		if (dg->kind != WIRE_DG_WAKE)
			return 0;
		if (flags & MSG_PEEK)
			drop_head(fd);
		return 2;
	}
	if (flags & MSG_PEEK)
		drop_head(fd);
	return n == 0 ? -ECONNRESET : -EPROTO;
}

/* msg_name, the ancillary data (through co, kept for umsg.h) and the
 * flags for a checked datagram. */
static void fill_msg(int fd, const struct fdent *ent, const struct wire_dgram *dg,
		     struct msghdr *msg, struct cmsg_out *co, int mflags,
		     int flags)
{
	uint32_t cm, tsf;

	/* The options in force now, not when the reply arrived. */
	cm = ent->shm ? atomic_load(&ent->shm->cmsg) : 0;
	cmsg_fill_name(dg, msg, cm);
	cmsg_begin(co, msg);
	tsf = ent->shm ? atomic_load(&ent->shm->tsflags) : 0;
	cmsg_from_dgram(co, dg, cm, tsf);
	msg->msg_controllen = co->used;
	msg->msg_flags = (mflags & MSG_TRUNC) | co->flags |
			 (flags & MSG_CMSG_CLOEXEC);
	/* sock_recv_timestamp(): sk_stamp (SIOCGSTAMP) is kept only when
	 * no timestamp option takes the stamp as a control message. */
	if (!cmsg_takes_stamp(cm, tsf)) {
		struct timespec ts = { .tv_sec = dg->ts_sec,
				       .tv_nsec = dg->ts_nsec };

		fdtab_set_stamp(fd, ent, &ts);
	}
}

/*
 * POLLIN fired on a relayed socket: is a datagram queued, or only
 * wake-ups (an error arrived; wire.h)?  Wake-ups at the head are taken,
 * so that a level-triggered wait does not wake for them again.  A socket
 * that never had one (its state slot counts them) needs no look.
 */
bool relay_data_queued(int fd, const struct fdent *ent)
{
	uint8_t hdr[WIRE_DGRAM_HDR];

	/* (A socket not attached yet has no count to go by: it looks.) */
	if (ent->shm && !atomic_load(&ent->shm->wakes))
		return true;
	for (int i = 0; i < 64; i++) {
		ssize_t n = sys_recv(fd, hdr, sizeof(hdr),
				     MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0)
			return errno != EAGAIN;	/* an error is news too */
		if ((size_t)n != sizeof(hdr) || hdr[0] != WIRE_DG_WAKE)
			return true;	/* a datagram, the end, or garbage */
		drop_head(fd);
	}
	return true;
}

/*
 * A receive skips the wake-ups it meets, but one that must not wait skips
 * only those queued when it met the first of them (SIOCINQ counts every
 * byte a SOCK_SEQPACKET pair holds): one written after may end it with
 * EAGAIN, as a datagram that came after the call would.  So a reply
 * behind any number of them is still found (the real daemon queues
 * hundreds after as many errors), and an impostor writing them as fast
 * as they are read cannot keep the receive from returning.  *left: the
 * bytes still to skip, SIZE_MAX before the first wake-up; len: this
 * wake-up's.  True when the receive should end.
 */
static bool wakes_spent(int fd, int flags, size_t len, size_t *left)
{
	int q = 0;

	if (*left == SIZE_MAX) {
		*left = sys_ioctl(fd, SIOCINQ, &q) == 0 && q > 0 ? (size_t)q
								  : 0;
		return false;
	}
	if (len <= *left) {
		*left -= len;
		return false;
	}
	return nonblocking(fd, flags);
}

/*
 * A blocking receive that took a wake-up reads again, and each new read
 * would start the program's SO_RCVTIMEO again: wake-ups that kept coming
 * (an impostor's; the real daemon's each come with an error or a
 * shutdown, which end the receive first) kept a timed receive from ever
 * timing out.  So after a wake-up, once the error and the shutdown it
 * may have come for have been looked at, the receive waits only for what
 * is left of the timeout, counted from the call's start (t0).  0 to read
 * again, or -EAGAIN (timed out) or -EINTR (a signal, as a receive with a
 * timeout is not restarted).
 */
static int rcvtimeo_left(int fd, int flags, uint64_t t0,
			 const struct wire_shm *shm)
{
	struct timeval tv = { 0 };
	socklen_t len = sizeof(tv);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t to, used, ms;
	int n;

	/* Shut down for reading: the read says so at once (read_dgram). */
	if ((shm && (atomic_load(&shm->shutdown) & WIRE_SHUT_RD)) ||
	    nonblocking(fd, flags) ||
	    sys_getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) ||
	    len != sizeof(tv) || tv.tv_sec < 0 || tv.tv_sec > INT_MAX ||
	    (tv.tv_sec == 0 && tv.tv_usec <= 0))
		return 0;	/* no timeout: as long as it takes */
	to = (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
	used = clock_mono_ns() - t0;
	if (used >= to)
		return -EAGAIN;
	ms = (to - used + 999999) / 1000000;
	n = sys_poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
	if (n < 0)
		return errno == EINTR ? -EINTR : 0;
	return n == 0 ? -EAGAIN : 0;
}

/* Nothing to read after shutdown(SHUT_RD): 0, and no name, control
 * messages or flags (but MSG_CMSG_CLOEXEC, as ____sys_recvmsg() keeps
 * it). */
static long none_left(struct msghdr *msg, int flags)
{
	msg->msg_namelen = 0;
	msg->msg_controllen = 0;
	msg->msg_flags = flags & MSG_CMSG_CLOEXEC;
	return 0;
}

/* A receive into msg, the library's copy of the program's (umsg.h): its
 * name and control buffers are the library's, co keeps the control
 * messages; its iovecs are the program's own buffers. */
static long drecv(int fd, const struct fdent *ent, struct msghdr *msg,
		  struct cmsg_out *co, int flags, bool raw)
{
	struct iovec iov[1 + MAX_IOV];
	uint8_t hdr[WIRE_DGRAM_HDR];
	struct wire_dgram dg;
	struct msghdr m = { .msg_iov = iov };
	struct rawc_rx rx;
	bool raw4 = raw && ent->family == AF_INET;
	size_t full = 0, room, wake_left = SIZE_MAX, got;
	uint64_t t0 = clock_mono_ns();
	int rc, late;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return errq_recv(fd, ent, msg, co, flags);
	if (msg->msg_iovlen > MAX_IOV)
		return -EMSGSIZE;
	do {
		/* __skb_try_recv_datagram(): a pending error comes first,
		 * even with replies queued; a waiter woken by one takes it. */
		rc = errq_take_pending(fd, ent);
		if (rc)
			return -rc;
		late = wake_left == SIZE_MAX ? 0
					     : rcvtimeo_left(fd, flags, t0, ent->shm);
		if (late)
			return late;
		iov[0].iov_base = hdr;
		iov[0].iov_len = sizeof(hdr);
		for (size_t i = 0; i < msg->msg_iovlen; i++)
			iov[1 + i] = msg->msg_iov[i];
		m.msg_iovlen = 1 + msg->msg_iovlen;
		/* An emulated raw IPv4 socket: the message goes behind a
		 * header (rawcompat.h); raw sockets of both families learn
		 * its length. */
		if (raw4 && rawc_rx_begin(&rx, msg, &iov[1]))
			return -ENOMEM;
		if (raw4)
			m.msg_iovlen = 2;
		rc = read_checked(fd, ent, &m, flags, hdr, &dg, &full);
		got = full;
		/* The header and the message into the caller's buffers, or
		 * (when there is none to give) only the buffer freed; taken
		 * in any case, as raw_recvmsg() takes it. */
		if (raw4 && rawc_rx_end(&rx, &dg, rc ? -1 : (ssize_t)full, msg,
					&m.msg_flags, &full) && rc == 0)
			return -EFAULT;
		if (rc == 2 && wakes_spent(fd, flags, got, &wake_left)) {
			rc = errq_take_pending(fd, ent);
			return rc ? -rc : -EAGAIN;
		}
	} while (rc == 2);
	if (rc)
		return rc > 0 ? none_left(msg, flags) : rc;
	fill_msg(fd, ent, &dg, msg, co, m.msg_flags, flags);
	/* ping_recvmsg() returns what it copied, MSG_TRUNC or not. */
	if (raw)
		return rawc_ret(full - sizeof(dg), msg, flags);
	room = iov_total(msg->msg_iov, msg->msg_iovlen);
	return (long)(full - sizeof(dg) < room ? full - sizeof(dg) : room);
}

/* ____sys_recvmsg(): the program's msghdr copied in (umsg.h), the
 * receive, and what it gives written back; a datagram taken stays taken
 * when that cannot be written. */
static ssize_t recvmsg_as(int fd, struct fdent *ent, struct msghdr *msg,
			  int flags, bool raw)
{
	struct umsg_recv r;
	long rc = umsg_recv_in(&r, msg);

	if (rc == 0)
		rc = drecv(fd, ent, &r.m, &r.co, flags, raw);
	if (rc >= 0) {
		int err = umsg_recv_out(&r);

		if (err)
			rc = err;
	}
	return sys_ret(rc);
}

/*
 * move_addr_to_user() after __sys_recvfrom()'s receive (rc, a datagram
 * taken): *srclen read, as much of the name written to src as it has
 * room for, the name's whole length to *srclen.  rc, or the error that
 * stops it.
 */
static long name_out(const struct umsg_recv *r, struct sockaddr *src,
		     socklen_t *srclen, long rc)
{
	socklen_t room = 0;
	size_t n;
	struct iovec l[2], u[2];

	if (!ucopy_in(&room, srclen, sizeof(room)))
		return -EFAULT;
	if ((int)room < 0)
		return -EINVAL;
	n = room < r->m.msg_namelen ? room : r->m.msg_namelen;
	/* The length first (relay_name.c's addr_out()). */
	l[0].iov_base = (void *)(uintptr_t)&r->m.msg_namelen; // NOLINT(performance-no-int-to-ptr)
	l[0].iov_len = sizeof(room);
	u[0].iov_base = srclen;
	u[0].iov_len = sizeof(room);
	l[1].iov_base = (void *)(uintptr_t)&r->sa; // NOLINT(performance-no-int-to-ptr)
	l[1].iov_len = n;
	u[1].iov_base = src;
	u[1].iov_len = n;
	return ucopy_outv(l, u, 2) ? rc : -EFAULT;
}

/* recv() and recvfrom() without an address ask nothing more of the
 * program's memory than the kernel's own read writes. */
static ssize_t recvfrom_as(int fd, struct fdent *ent, void *buf, size_t len,
			   int flags, struct sockaddr *src, socklen_t *srclen,
			   bool raw)
{
	struct umsg_recv r;
	long rc;

	umsg_recv_plain(&r, buf, len, src != NULL);
	rc = drecv(fd, ent, &r.m, &r.co, flags, raw);
	if (rc >= 0 && src)
		rc = name_out(&r, src, srclen, rc);
	return sys_ret(rc);
}

ssize_t relay_recvmsg(int fd, struct fdent *ent, struct msghdr *msg,
		      int flags)
{
	return recvmsg_as(fd, ent, msg, flags, false);
}

ssize_t relay_recvfrom(int fd, struct fdent *ent, void *buf, size_t len,
		       int flags, struct sockaddr *src, socklen_t *srclen)
{
	return recvfrom_as(fd, ent, buf, len, flags, src, srclen, false);
}

ssize_t relay_raw_recvmsg(int fd, struct fdent *ent, struct msghdr *msg, int flags)
{
	return recvmsg_as(fd, ent, msg, flags, true);
}

ssize_t relay_raw_recvfrom(int fd, struct fdent *ent, void *buf, size_t len,
		      int flags, struct sockaddr *src, socklen_t *srclen)
{
	return recvfrom_as(fd, ent, buf, len, flags, src, srclen, true);
}
