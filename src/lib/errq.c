#include "lib/errq.h"

#include <errno.h>
#include <sched.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "engine/addr.h"
#include "lib/cmsg.h"
#include "lib/iov.h"
#include "wire/decode.h"
#include "wire/wire.h"
#include "lib/sys.h"

#define MAX_IOV 15

/*
 * The shared page is the daemon's to write, and trusted no more than the
 * daemon: a pending error is one only if it is an errno (anything else
 * is taken and dropped), and the count of records never goes below 0.
 */
int errq_take_pending(const struct fdent *ent)
{
	int32_t v;

	if (!ent->shm || !atomic_load(&ent->shm->err))
		return 0;
	v = atomic_exchange(&ent->shm->err, 0);
	return wire_is_errno(v) ? v : 0;
}

bool errq_pollerr(const struct fdent *ent)
{
	return ent->shm && (wire_is_errno(atomic_load(&ent->shm->err)) ||
			    atomic_load(&ent->shm->errq) > 0);
}

static void count_down(_Atomic uint32_t *count)
{
	uint32_t c = atomic_load(count);

	while (c > 0 && !atomic_compare_exchange_weak(count, &c, c - 1))
		;
}

/*
 * The message at the head, without taking it, checked into *dg: 1, or 0
 * if there is none, -1 if it is malformed.
 */
static int peek_head(const struct fdent *ent, struct wire_dgram *dg)
{
	uint8_t hdr[WIRE_DGRAM_HDR];
	ssize_t n = sys_recv(ent->errfd, hdr, sizeof(hdr),
			 MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC);

	if (n <= 0)
		return 0;
	return wire_decode_dgram(hdr, (size_t)n < sizeof(hdr) ? (size_t)n
							     : sizeof(hdr),
				 (size_t)n, WIRE_CHAN_ERR, ent->family, dg)
		       ? -1 : 1;
}

void errq_drain_wakes(const struct fdent *ent)
{
	struct wire_dgram dg;

	if (ent->errfd < 0)
		return;
	while (peek_head(ent, &dg) == 1 && dg.kind == WIRE_DG_WAKE)
		if (sys_recv(ent->errfd, &dg, sizeof(dg), MSG_DONTWAIT) < 0)
			break;
}

/* is_icmp_err_skb() */
static bool from_icmp(const struct wire_dgram *dg)
{
	return dg->ee_origin == SO_EE_ORIGIN_ICMP ||
	       dg->ee_origin == SO_EE_ORIGIN_ICMP6;
}

/*
 * sock_dequeue_err_skb(): once a record is taken, the pending error
 * becomes that of the next ICMP record, or is cleared if the one taken
 * was from ICMP and no ICMP record follows.
 */
static void after_dequeue(const struct fdent *ent, const struct wire_dgram *dg)
{
	struct wire_dgram next;
	bool icmp_next = false;

	count_down(&ent->shm->errq);
	errq_drain_wakes(ent);
	if (peek_head(ent, &next) == 1 && next.kind == WIRE_DG_ERROR &&
	    from_icmp(&next)) {
		icmp_next = true;	/* and its errno is one (checked) */
		atomic_store(&ent->shm->err, (int32_t)next.ee_errno);
	}
	if (from_icmp(dg) && !icmp_next)
		atomic_store(&ent->shm->err, 0);
}

static void fill_ee(struct sock_extended_err *ee, const struct wire_dgram *dg)
{
	ee->ee_errno = dg->ee_errno;
	ee->ee_origin = dg->ee_origin;
	ee->ee_type = dg->ee_type;
	ee->ee_code = dg->ee_code;
	ee->ee_info = dg->ee_info;
	ee->ee_data = dg->ee_data;
}

/* The IP_RECVERR (IPV6_RECVERR) message: sock_extended_err, then the
 * offender (all zero when there is none). */
static void put_recverr(struct cmsg_out *co, const struct wire_dgram *dg)
{
	struct {
		struct sock_extended_err ee;
		struct sockaddr_in offender;
	} e;
	struct {
		struct sock_extended_err ee;
		struct sockaddr_in6 offender;
	} e6;

	if (dg->family == AF_INET6) {
		memset(&e6, 0, sizeof(e6));
		fill_ee(&e6.ee, dg);
		if (dg->offender_family == AF_INET6) {
			e6.offender.sin6_family = AF_INET6;
			memcpy(&e6.offender.sin6_addr, dg->offender, 16);
			e6.offender.sin6_scope_id = dg->offender_scope;
		}
		cmsg_put(co, SOL_IPV6, IPV6_RECVERR, &e6, sizeof(e6));
		return;
	}
	memset(&e, 0, sizeof(e));
	fill_ee(&e.ee, dg);
	if (dg->offender_family == AF_INET) {
		e.offender.sin_family = AF_INET;
		memcpy(&e.offender.sin_addr, dg->offender, 4);
	}
	cmsg_put(co, SOL_IP, IP_RECVERR, &e, sizeof(e));
}

/*
 * Take the next record.  The daemon counts a record before it sends it:
 * while the count says one is coming, wait for it a little (it is
 * microseconds away), so that a reader woken by POLLERR finds it.
 */
static ssize_t read_record(const struct fdent *ent, struct msghdr *m)
{
	for (int tries = 0;; tries++) {
		ssize_t n = sys_recvmsg(ent->errfd, m, MSG_DONTWAIT | MSG_TRUNC);

		if (n >= 0 || errno != EAGAIN)
			return n < 0 ? -errno : n;
		if (atomic_load(&ent->shm->errq) <= 0 || tries >= 1000)
			return -EAGAIN;
		sched_yield();
	}
}

void errq_purge(const struct fdent *ent)
{
	struct wire_dgram dg;

	if (ent->errfd < 0 || !ent->shm)
		return;
	while (sys_recv(ent->errfd, &dg, sizeof(dg), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		;
	atomic_store(&ent->shm->errq, 0);
}

/*
 * Take the next record, its data into msg's buffers, checked into *dg
 * (*mflags: the read's flags).  The whole length of its data, or -EAGAIN
 * (none, or only a wake-up), or -EPROTO: a malformed one, consumed.
 */
static long take_record(const struct fdent *ent, const struct msghdr *msg,
			struct wire_dgram *dg, int *mflags)
{
	struct iovec iov[1 + MAX_IOV];
	uint8_t hdr[WIRE_DGRAM_HDR];
	struct msghdr m = { .msg_iov = iov };
	ssize_t n;

	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof(hdr);
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		iov[1 + i] = msg->msg_iov[i];
	m.msg_iovlen = 1 + msg->msg_iovlen;
	n = read_record(ent, &m);
	if (n <= 0)
		return n < 0 ? n : -EAGAIN;	/* 0: the daemon went away */
	if (wire_decode_dgram(hdr, (size_t)n < sizeof(hdr) ? (size_t)n
							    : sizeof(hdr),
			      (size_t)n, WIRE_CHAN_ERR, ent->family, dg)) {
		count_down(&ent->shm->errq);
		return -EPROTO;
	}
	if (dg->kind != WIRE_DG_ERROR)
		return -EAGAIN;
	*mflags = m.msg_flags;
	return n - (ssize_t)sizeof(hdr);
}

long errq_recv(const struct fdent *ent, struct msghdr *msg, int flags)
{
	struct wire_dgram dg;
	struct cmsg_out co;
	uint32_t cm;
	size_t room;
	int mflags = 0;
	long len;

	if (ent->errfd < 0 || !ent->shm)
		return -EAGAIN;
	if (msg->msg_iovlen > MAX_IOV)
		return -EMSGSIZE;
	errq_drain_wakes(ent);
	/* The error queue never blocks (ip_recv_error()), and takes the
	 * record even under MSG_PEEK, as the kernel does. */
	len = take_record(ent, msg, &dg, &mflags);
	if (len < 0)
		return len;
	cm = atomic_load(&ent->shm->cmsg);
	cmsg_fill_name(&dg, msg, cm);
	cmsg_begin(&co, msg);
	/* sock_recv_timestamp(), then for ICMP records the IP control
	 * messages of the error packet, then the record itself. */
	cmsg_from_dgram(&co, &dg,
			from_icmp(&dg) ? cm
			: cm & (WIRE_CM_TIMESTAMP | WIRE_CM_TIMESTAMPNS |
				WIRE_CM_TSTAMP_NEW | WIRE_CM_TSTAMPING_NEW),
			atomic_load(&ent->shm->tsflags));
	put_recverr(&co, &dg);
	msg->msg_controllen = co.used;
	msg->msg_flags = MSG_ERRQUEUE | (mflags & MSG_TRUNC) | co.flags;
	after_dequeue(ent, &dg);
	(void)flags;
	/* ip_recv_error(): what was copied. */
	room = iov_total(msg->msg_iov, msg->msg_iovlen);
	return (long)((size_t)len < room ? (size_t)len : room);
}
