#include "lib/errq.h"

#include <errno.h>
#include <sched.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>

#include "engine/addr.h"
#include "lib/cmsg.h"
#include "wire/wire.h"

#define MAX_IOV 15

int errq_take_pending(const struct fdent *ent)
{
	if (!ent->shm || !atomic_load(&ent->shm->err))
		return 0;
	return atomic_exchange(&ent->shm->err, 0);
}

bool errq_pollerr(const struct fdent *ent)
{
	return ent->shm && (atomic_load(&ent->shm->err) != 0 ||
			    atomic_load(&ent->shm->errq) > 0);
}

/* The kind of the message at the head, without taking it; 0 if none. */
static int peek_kind(int errfd)
{
	struct wire_dgram dg;
	ssize_t n = recv(errfd, &dg, sizeof(dg), MSG_PEEK | MSG_DONTWAIT);

	return n >= (ssize_t)sizeof(dg) ? dg.kind : 0;
}

void errq_drain_wakes(const struct fdent *ent)
{
	struct wire_dgram dg;

	if (ent->errfd < 0)
		return;
	while (peek_kind(ent->errfd) == WIRE_DG_WAKE)
		if (recv(ent->errfd, &dg, sizeof(dg), MSG_DONTWAIT) < 0)
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
	ssize_t n;

	atomic_fetch_sub(&ent->shm->errq, 1);
	errq_drain_wakes(ent);
	n = recv(ent->errfd, &next, sizeof(next), MSG_PEEK | MSG_DONTWAIT);
	if (n >= (ssize_t)sizeof(next) && next.kind == WIRE_DG_ERROR &&
	    from_icmp(&next)) {
		icmp_next = true;
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
		ssize_t n = recvmsg(ent->errfd, m, MSG_DONTWAIT);

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
	while (recv(ent->errfd, &dg, sizeof(dg), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		;
	atomic_store(&ent->shm->errq, 0);
}

long errq_recv(const struct fdent *ent, struct msghdr *msg, int flags)
{
	struct iovec iov[1 + MAX_IOV];
	struct wire_dgram dg;
	struct msghdr m = { .msg_iov = iov };
	struct cmsg_out co;
	uint32_t cm;
	ssize_t n;

	if (ent->errfd < 0 || !ent->shm)
		return -EAGAIN;
	if (msg->msg_iovlen > MAX_IOV)
		return -EMSGSIZE;
	errq_drain_wakes(ent);
	iov[0].iov_base = &dg;
	iov[0].iov_len = sizeof(dg);
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		iov[1 + i] = msg->msg_iov[i];
	m.msg_iovlen = 1 + msg->msg_iovlen;
	/* The error queue never blocks (ip_recv_error()), and takes the
	 * record even under MSG_PEEK, as the kernel does. */
	n = read_record(ent, &m);
	if (n < 0)
		return n;
	if ((size_t)n < sizeof(dg) || dg.kind != WIRE_DG_ERROR)
		return -EAGAIN;
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
	msg->msg_flags = MSG_ERRQUEUE | (m.msg_flags & MSG_TRUNC) | co.flags;
	after_dequeue(ent, &dg);
	(void)flags;
	return n - (ssize_t)sizeof(dg);
}
