/* SPDX-License-Identifier: ISC */
#include "lib/errq.h"

#include <errno.h>
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
#include "lib/relay.h"
#include "lib/umsg.h"
#include "lib/sys.h"
#include "lib/ucopy.h"

#define MAX_IOV UMSG_IOV

/*
 * The state slot is the daemon's to write, and trusted no more than the
 * daemon: a pending error is one only if it is an errno, and is taken
 * from the daemon itself (WIRE_GETOPT SO_ERROR), which clears it for
 * every process that holds the socket.
 */
int errq_take_pending(int fd, const struct fdent *ent)
{
	struct wire_req req = { .type = WIRE_GETOPT };
	struct fdent e = *ent;
	int32_t v = 0;
	size_t len = sizeof(v);

	if (!ent->shm || !atomic_load(&ent->shm->err))
		return 0;
	req.u.opt.level = SOL_SOCKET;
	req.u.opt.name = SO_ERROR;
	req.u.opt.len = sizeof(v);
	if (relay_call(fd, &e, &req, NULL, 0, &v, &len) < 0 || len != sizeof(v))
		return 0;
	return wire_is_errno(v) ? v : 0;
}

/* A daemon older than WIRE_SETERR ends the connection at it, and counts
 * and logs a malformed request: asked once, not again (review rev36 F4). */
static atomic_bool seterr_unknown;

void errq_keep(int fd, const struct fdent *ent, int err)
{
	struct wire_req req = { .type = WIRE_SETERR };
	struct fdent e = *ent;
	int saved = errno, rc;

	/* Not EAGAIN (the batch only ended), nor EINTR (the kernel keeps
	 * its ERESTARTSYS there, which no program should see). */
	if (!fdkind_relayed(ent->kind) || !wire_is_errno(err) || err > 511 ||
	    err == EAGAIN || err == EINTR || atomic_load(&seterr_unknown))
		return;
	req.u.err = err;
	rc = relay_call(fd, &e, &req, NULL, 0, NULL, NULL);
	if (rc == -ECONNRESET || rc == -EPROTO)
		atomic_store(&seterr_unknown, true);
	errno = saved;
}

bool errq_pollerr(const struct fdent *ent)
{
	return ent->shm && (wire_is_errno(atomic_load(&ent->shm->err)) ||
			    atomic_load(&ent->shm->errq) > 0);
}

/* is_icmp_err_skb() */
static bool from_icmp(const struct wire_dgram *dg)
{
	return dg->ee_origin == SO_EE_ORIGIN_ICMP ||
	       dg->ee_origin == SO_EE_ORIGIN_ICMP6;
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

/* WIRE_ERRQ's answer: u32 whole length, the record, its data. */
struct errq_ans {
	uint8_t b[4 + WIRE_DGRAM_HDR + WIRE_ERRQ_DATA_MAX];
};

/*
 * Take the next record from the daemon (WIRE_ERRQ), checked into *dg:
 * the length of its data in the answer, *full its whole length; -EAGAIN
 * when there is none, -EPROTO for a malformed one.
 */
static long take_record(int fd, const struct fdent *ent,
			struct errq_ans *a, struct wire_dgram *dg,
			uint32_t *full)
{
	struct wire_req req = { .type = WIRE_ERRQ };
	struct fdent e = *ent;
	size_t len = sizeof(a->b);
	int rc = relay_call(fd, &e, &req, NULL, 0, a->b, &len);

	if (rc < 0)
		return rc == WIRE_R_BROKEN || rc == WIRE_R_MALFORMED ? -EAGAIN
								      : rc;
	memcpy(full, a->b, 4);
	if (wire_decode_dgram(a->b + 4, WIRE_DGRAM_HDR,
			      WIRE_DGRAM_HDR + (size_t)*full, WIRE_CHAN_ERR,
			      ent->family, dg) || dg->kind != WIRE_DG_ERROR)
		return -EPROTO;
	return (long)(len - 4 - WIRE_DGRAM_HDR);
}

/* The record's data into the caller's buffers (the program's: ucopy.h):
 * what was copied, or -EFAULT where one of them cannot take its part. */
static long copy_data(const struct msghdr *msg, const uint8_t *data,
		      size_t n)
{
	size_t done = 0;

	for (size_t i = 0; i < msg->msg_iovlen && done < n; i++) {
		size_t k = msg->msg_iov[i].iov_len < n - done
				   ? msg->msg_iov[i].iov_len : n - done;

		if (!ucopy_out(msg->msg_iov[i].iov_base, data + done, k))
			return -EFAULT;
		done += k;
	}
	return (long)done;
}

long errq_recv(int fd, const struct fdent *ent, struct msghdr *msg,
	       struct cmsg_out *co, int flags)
{
	struct errq_ans a;
	struct wire_dgram dg;
	uint32_t cm, full = 0;
	size_t room;
	long n, copied;

	if (!ent->shm)
		return -EAGAIN;
	if (msg->msg_iovlen > MAX_IOV)
		return -EMSGSIZE;
	room = iov_total(msg->msg_iov, msg->msg_iovlen);
	/* The error queue never blocks (ip_recv_error()), and takes the
	 * record even under MSG_PEEK, as the kernel does; one whose data
	 * cannot be copied is taken all the same. */
	n = take_record(fd, ent, &a, &dg, &full);
	if (n < 0)
		return n;
	copied = copy_data(msg, a.b + 4 + WIRE_DGRAM_HDR, (size_t)n);
	if (copied < 0)
		return copied;
	cm = atomic_load(&ent->shm->cmsg);
	cmsg_fill_name(&dg, msg, cm);
	cmsg_begin(co, msg);
	/* sock_recv_timestamp(), then for ICMP records the IP control
	 * messages of the error packet, then the record itself. */
	cmsg_from_dgram(co, &dg,
			from_icmp(&dg) ? cm
			: cm & (WIRE_CM_TIMESTAMP | WIRE_CM_TIMESTAMPNS |
				WIRE_CM_TSTAMP_NEW | WIRE_CM_TSTAMPING_NEW),
			atomic_load(&ent->shm->tsflags));
	put_recverr(co, &dg);
	msg->msg_controllen = co->used;
	msg->msg_flags = MSG_ERRQUEUE | (full > room ? MSG_TRUNC : 0) |
			 co->flags;
	(void)flags;
	/* ip_recv_error(): what was copied. */
	return copied;
}
