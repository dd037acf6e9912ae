/* SPDX-License-Identifier: ISC */
#include "lib/call.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/clock.h"
#include "lib/fdcheck.h"
#include "lib/sys.h"
#include "wire/decode.h"
#include "wire/rights.h"

#define CALL_SPIN_NS 50000

int call_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	int fd, rc;

	if (n >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, n + 1);
	fd = sys_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sys_connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		rc = -errno;
		sys_close(fd);
		return rc;
	}
	return fd;
}

int call_hello(int fd, const uint8_t *token, uint8_t *token_out,
	       int *arena_fd)
{
	struct wire_req hello = { .type = WIRE_HELLO,
				  .u.version = WIRE_VERSION };
	int fds[CALL_MAX_FDS];
	size_t len = WIRE_NONCE_LEN;
	int rc;

	memcpy(hello.nonce, token, WIRE_NONCE_LEN);
	rc = call_exchange(fd, &hello, NULL, 0, token_out, &len, fds);
	*arena_fd = rc >= 0 ? fds[0] : -1;
	for (int i = rc >= 0 ? 1 : 0; i < CALL_MAX_FDS; i++)
		if (fds[i] >= 0)
			sys_close(fds[i]);
	return rc;
}

static int xsend(int fd, struct msghdr *mh)
{
	ssize_t n;

	do {
		n = sys_sendmsg(fd, mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : 0;
}

/*
 * Wait for the answer.  The daemon answers a client in a tight loop
 * within microseconds, and going to sleep and being woken costs more than
 * that here (tens of microseconds on both sides), so such a client polls
 * without blocking for a short while first (bounded: CALL_SPIN_NS)
 * before sleeping.  Only such a client: spinning burns the processor the
 * daemon and everyone else need, and a process that calls now and then
 * (a ping every 200 ms; two thousand of them) would spin for every call,
 * so a process spins only if its last answer came less than
 * CALL_SPIN_RECENT_NS ago (measured: the 2,000 pings' processor time
 * less by a sixth).  And one thread of the process spins at a time
 * (CALL_SPINNERS); the others sleep at once: threads spinning side by
 * side take the processors the daemon needs to answer them (measured, 8
 * threads on 2 cores: 0.6x the rate of one thread).  A count left raised
 * in a child by a thread that was spinning across fork() only stops the
 * child's spinning.
 */
#define CALL_SPIN_NS 50000
#define CALL_SPIN_RECENT_NS 1000000
#define CALL_SPINNERS 1
static atomic_uint spinners;
static _Atomic uint64_t last_answer_ns;	/* when the last answer came */

static bool spin_for(int fd, struct msghdr *mh, ssize_t *n, uint64_t t0)
{
	uint64_t until = t0 + CALL_SPIN_NS;
	bool got = false;

	if (t0 - atomic_load_explicit(&last_answer_ns, memory_order_relaxed) >=
	    CALL_SPIN_RECENT_NS)
		return false;
	if (atomic_fetch_add(&spinners, 1) < CALL_SPINNERS) {
		do {
			*n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
			got = *n >= 0 || (errno != EAGAIN && errno != EINTR);
		} while (!got && clock_mono_ns() <= until);
	}
	atomic_fetch_sub(&spinners, 1);
	return got;
}

static ssize_t answered(ssize_t n)
{
	atomic_store_explicit(&last_answer_ns, clock_mono_ns(),
			      memory_order_relaxed);
	return n;
}

static ssize_t xrecv(int fd, struct msghdr *mh)
{
	uint64_t t0 = clock_mono_ns();
	ssize_t n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	if (n >= 0 || (errno != EAGAIN && errno != EINTR))
		return answered(n);
	if (spin_for(fd, mh, &n, t0))
		return answered(n);
	do {
		n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	return answered(n);
}

/* The descriptors that came with an answer, in order: the first
 * CALL_MAX_FDS + 1 kept (one too many says "too many"), the rest closed. */
struct got_fds {
	int fd[CALL_MAX_FDS + 1];
};

static void keep_fd(int fd, unsigned i, void *arg)
{
	struct got_fds *g = arg;

	if (i < CALL_MAX_FDS + 1)
		g->fd[i] = fd;
	else
		sys_close(fd);
}

/*
 * Is this the answer req must get (wire_check_answer()), with exactly
 * the descriptors it promises, each of its kind?
 */
static bool answer_ok(const struct wire_req *req, const uint8_t *resp,
		      ssize_t got, const struct msghdr *mh,
		      const struct got_fds *g, unsigned nfds,
		      struct wire_answer *ans)
{
	if (got < 0 || (mh->msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    wire_check_answer(req, resp, (size_t)got, ans) ||
	    nfds != ans->nfds)
		return false;
	for (unsigned i = 0; i < nfds; i++)
		if (!fdcheck_kind(g->fd[i], ans->fd_kind[i], ans->fd_family))
			return false;
	return true;
}

/*
 * Read and check the answer to req: its body into body (at most
 * *bodylen bytes: a longer one is malformed), its descriptors into
 * fd_out.  The result, WIRE_R_BROKEN or WIRE_R_MALFORMED.
 */
static int take_answer(int fd, const struct wire_req *req, void *body,
		       size_t *bodylen, int *fd_out)
{
	uint8_t resp[WIRE_RESP_HDR + WIRE_RESP_BODY_MAX];
	union wire_rights_buf cbuf;
	struct iovec iov = { .iov_base = resp, .iov_len = sizeof(resp) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b,
			     .msg_controllen = sizeof(cbuf.b) };
	struct wire_answer ans;
	struct got_fds g;
	ssize_t got = xrecv(fd, &mh);
	unsigned nfds;
	bool other;

	if (got < 0)
		return WIRE_R_BROKEN;
	nfds = wire_rights_each(&mh, keep_fd, &g, &other);
	if (other || !answer_ok(req, resp, got, &mh, &g, nfds, &ans) ||
	    (body && bodylen && ans.len > *bodylen)) {
		for (unsigned i = 0; i < nfds && i <= CALL_MAX_FDS; i++)
			sys_close(g.fd[i]);
		return got == 0 && nfds == 0 && !other ? WIRE_R_BROKEN
						       : WIRE_R_MALFORMED;
	}
	if (body && bodylen) {
		memcpy(body, ans.body, ans.len);
		*bodylen = ans.len;
	}
	for (unsigned i = 0; i < nfds; i++) {
		if (fd_out)
			fd_out[i] = g.fd[i];
		else
			sys_close(g.fd[i]);
	}
	return ans.result;
}

/* No request carries a descriptor (the daemon refuses them, wire.h). */
int call_exchange(int fd, const struct wire_req *req,
		  const struct iovec *data, int ndata, void *body,
		  size_t *bodylen, int *fd_out)
{
	uint8_t hdr[WIRE_REQ_HDR + 64 + WIRE_ADDR_MAX + WIRE_OPTVAL_MAX +
		    WIRE_CTL_MAX];
	struct iovec iov[1 + CALL_MAX_DATA];
	struct msghdr mh = { .msg_iov = iov };
	long n = wire_encode_req(req, hdr, sizeof(hdr));

	for (int i = 0; fd_out && i < CALL_MAX_FDS; i++)
		fd_out[i] = -1;
	if (n < 0 || ndata < 0 || ndata > CALL_MAX_DATA)
		return -EINVAL;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	for (int i = 0; i < ndata; i++)
		iov[1 + i] = data[i];
	mh.msg_iovlen = 1 + (size_t)ndata;
	if (xsend(fd, &mh))
		return WIRE_R_BROKEN;
	return take_answer(fd, req, body, bodylen, fd_out);
}
