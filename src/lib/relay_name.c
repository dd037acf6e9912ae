/* SPDX-License-Identifier: ISC */
/*
 * relay_name - naming, shutdown and the end of a relayed socket
 * (backend.h): each a request to the daemon, with the system call
 * layer's own checks on the caller's arguments first.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/conn.h"
#include "lib/lock.h"
#include "lib/relay.h"
#include "lib/state.h"
#include "lib/sys.h"
#include "lib/ucopy.h"

/* move_addr_to_kernel(): the syscall layer's checks on a passed name,
 * and its copy (EFAULT for one the program does not have). */
static int addr_in(struct wire_req *req, const struct sockaddr *addr,
		   socklen_t len)
{
	if (len > WIRE_ADDR_MAX)
		return -EINVAL;
	req->u.addr.len = len;
	if (!ucopy_in(req->u.addr.bytes, addr, len))
		return -EFAULT;
	return 0;
}

static int name_call(int fd, struct fdent *ent, int type,
		     const struct sockaddr *addr, socklen_t len)
{
	struct wire_req req = { .type = (uint16_t)type };
	int rc = addr_in(&req, addr, len);

	if (rc == 0)
		rc = relay_call(fd, ent, &req, NULL, 0, NULL, NULL);
	return (int)sys_ret(rc);
}

int relay_bind(int fd, struct fdent *e, const struct sockaddr *addr,
	       socklen_t len)
{
	return name_call(fd, e, WIRE_BIND, addr, len);
}

int relay_connect(int fd, struct fdent *e, const struct sockaddr *addr,
		  socklen_t len)
{
	return name_call(fd, e, WIRE_CONNECT, addr, len);
}

/* move_addr_to_user(): copy what fits, report the full length; the
 * program's *len and addr read and written as the kernel copies them
 * (ucopy.h): EFAULT where they are not there, after what was written.
 * The length goes first, as Linux 6.18's does (conformance/efault; older
 * kernels wrote it last): an address that cannot be written leaves the
 * full length in *len. */
static int addr_out(const uint8_t *sa, size_t salen, struct sockaddr *addr,
		    socklen_t *len)
{
	socklen_t room, full = (socklen_t)salen;
	struct iovec ours[2], user[2];
	size_t n;

	if (!ucopy_in(&room, len, sizeof(room)))
		return -EFAULT;
	if ((int)room < 0)
		return -EINVAL;
	n = room < salen ? room : salen;
	ours[0].iov_base = &full;
	ours[0].iov_len = sizeof(full);
	user[0].iov_base = len;
	user[0].iov_len = sizeof(full);
	ours[1].iov_base = (void *)(uintptr_t)sa; // NOLINT(performance-no-int-to-ptr)
	ours[1].iov_len = n;
	user[1].iov_base = addr;
	user[1].iov_len = n;
	return ucopy_outv(ours, user, 2) ? 0 : -EFAULT;
}

int relay_getname(int fd, struct fdent *ent, bool peer, struct sockaddr *addr,
		  socklen_t *len)
{
	struct wire_req req = { .type = peer ? WIRE_GETPEER : WIRE_GETNAME };
	uint8_t sa[WIRE_ADDR_MAX];
	size_t blen = sizeof(sa);
	int rc = relay_call(fd, ent, &req, NULL, 0, sa, &blen);

	/* A whole sockaddr (conn_call() checked), of the socket's family. */
	if (rc >= 0 && (blen < sizeof(sa_family_t) ||
			((const struct sockaddr *)sa)->sa_family != ent->family))
		rc = -EPROTO;
	if (rc >= 0)
		rc = addr_out(sa, blen, addr, len);
	return (int)sys_ret(rc);
}

int relay_shutdown(int fd, struct fdent *e, int how)
{
	struct wire_req req = { .type = WIRE_SHUTDOWN, .u.how = how };

	return (int)sys_ret(relay_call(fd, e, &req, NULL, 0, NULL, NULL));
}

void relay_release(struct fdent *e)
{
	struct wire_req req = { .type = WIRE_DETACH, .handle = e->handle };
	struct conn *c;

	/* Best effort: the socket itself lives until its last descriptor
	 * closes, whatever this says. */
	if (e->attached != getpid())
		return;
	lock_enter();
	if (conn_take(&c) == 0) {
		if (state_arena_sole(e->shm, conn_ans(c)))
			req.rqflags = WIRE_RQ_SOLE;
		(void)conn_exchange(c, &req, NULL, 0, NULL, NULL, NULL);
		conn_give(c);
	}
	lock_leave();
}
