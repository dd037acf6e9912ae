#include "lib/conn.h"
#include "lib/shimapi.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "lib/fdcheck.h"
#include "pingsock.h"
#include "wire/buf.h"
#include "wire/decode.h"
#include "lib/sys.h"

#define CONN_SPIN_NS 50000
/* exchange(): the answer was malformed (conn_call() says -EPROTO). */
#define CONN_PROTO (-100003)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ctl_fd = -1;
static bool forked;	/* set in the child: ctl_fd is the parent's */

const char *conn_path(void)
{
	const char *p = secure_getenv("PINGSOCK_SOCKET");

	return p && *p ? p : PINGSOCK_DEFAULT_SOCKET;
}

int conn_fd(void)
{
	int fd;

	pthread_mutex_lock(&lock);
	fd = ctl_fd;
	pthread_mutex_unlock(&lock);
	return fd;
}

static void atfork_prepare(void) { pthread_mutex_lock(&lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&lock); }
static void atfork_child(void)
{
	forked = true;
	pthread_mutex_unlock(&lock);
}

static void init_once(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static int xsend(int fd, struct msghdr *mh)
{
	ssize_t n;

	do {
		n = sys_sendmsg(fd, mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Wait for the answer.  The daemon answers within microseconds, and going
 * to sleep and being woken costs more than that here, so poll without
 * blocking for a short while first (bounded: CONN_SPIN_NS) before sleeping.
 */
static ssize_t xrecv(int fd, struct msghdr *mh)
{
	uint64_t until = 0;
	ssize_t n;

	for (;;) {
		n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n;
		if (!until)
			until = mono_ns() + CONN_SPIN_NS;
		else if (mono_ns() > until)
			break;
	}
	do {
		n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	return n;
}

static int exchange(int fd, const struct wire_req *req,
		    const struct iovec *data, int ndata, void *body,
		    size_t *bodylen, int *fd_out);

/* Connect and say hello.  Returns the fd or -errno. */
static int dial(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *path = conn_path();
	struct wire_req hello = { .type = WIRE_HELLO,
				  .u.version = WIRE_VERSION };
	int fd, rc;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = sys_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sys_connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		rc = -errno;
		sys_close(fd);
		return rc;
	}
	rc = exchange(fd, &hello, NULL, 0, NULL, NULL, NULL);
	if (rc < 0) {
		sys_close(fd);
		if (rc == WIRE_R_FOREIGN_NS)
			return -CONN_ERR_FOREIGN_NS;
		/* Not a pingsockd, or one of another protocol version. */
		return rc == CONN_BROKEN ? -ECONNREFUSED : -EPROTO;
	}
	return conn_move_high(fd);
}

int conn_move_high(int fd)
{
	int high = sys_fcntl(fd, F_DUPFD_CLOEXEC, CONN_HIGH_FD);

	if (high < 0)
		return fd;	/* a low limit: keep it where it is */
	sys_close(fd);
	return high;
}

static __thread int dial_errno;

int conn_dial_errno(void)
{
	return dial_errno;
}

/*
 * The descriptors that came with an answer, in order, into fds[0..max)
 * (any beyond are closed); returns how many came.  *other: the control
 * data held something else too.
 */
static int take_fds(struct msghdr *mh, int *fds, int max, bool *other)
{
	int n = 0;

	*other = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			*other = true;
			continue;
		}
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++, n++) {
			int rfd;

			memcpy(&rfd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n < max)
				fds[n] = rfd;
			else
				sys_close(rfd);
		}
	}
	return n;
}

/*
 * Is this the answer req must get (wire_check_answer()), with exactly
 * the descriptors it promises, each of its kind?  The daemon is trusted
 * no more than it trusts us: it may be an impostor at the socket path.
 */
static bool answer_ok(const struct wire_req *req, const uint8_t *resp,
		      ssize_t got, const struct msghdr *mh, const int *fds,
		      int nfds, struct wire_answer *ans)
{
	if (got < 0 || (mh->msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    wire_check_answer(req, resp, (size_t)got, ans) ||
	    (unsigned)nfds != ans->nfds)
		return false;
	for (int i = 0; i < nfds; i++)
		if (!fdcheck_kind(fds[i], ans->fd_kind[i], ans->fd_family))
			return false;
	return true;
}

/*
 * Read and check the answer to req: its body into body (at most
 * *bodylen bytes: a longer one is malformed), its descriptors into
 * fd_out.  The result, or CONN_BROKEN (the daemon went away), or
 * CONN_PROTO (a malformed answer: nothing of it is kept).
 */
static int take_answer(int fd, const struct wire_req *req, void *body,
		       size_t *bodylen, int *fd_out)
{
	uint8_t resp[WIRE_RESP_HDR + 512];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE((CONN_MAX_FDS + 1) * sizeof(int))];
	} cbuf;
	struct iovec iov = { .iov_base = resp, .iov_len = sizeof(resp) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.buf,
			     .msg_controllen = sizeof(cbuf.buf) };
	struct wire_answer ans;
	int fds[CONN_MAX_FDS + 1], nfds;
	ssize_t got = xrecv(fd, &mh);
	bool other;

	if (got < 0)
		return CONN_BROKEN;
	nfds = take_fds(&mh, fds, CONN_MAX_FDS + 1, &other);
	if (other || !answer_ok(req, resp, got, &mh, fds, nfds, &ans) ||
	    (body && bodylen && ans.len > *bodylen)) {
		for (int i = 0; i < nfds && i <= CONN_MAX_FDS; i++)
			sys_close(fds[i]);
		return got == 0 && nfds == 0 && !other ? CONN_BROKEN : CONN_PROTO;
	}
	if (body && bodylen) {
		memcpy(body, ans.body, ans.len);
		*bodylen = ans.len;
	}
	for (int i = 0; i < nfds; i++) {
		if (fd_out)
			fd_out[i] = fds[i];
		else
			sys_close(fds[i]);
	}
	return ans.result;
}

/* No request carries a descriptor (the daemon refuses them, wire.h). */
static int exchange(int fd, const struct wire_req *req,
		    const struct iovec *data, int ndata, void *body,
		    size_t *bodylen, int *fd_out)
{
	uint8_t hdr[WIRE_REQ_HDR + 64 + WIRE_ADDR_MAX + WIRE_OPTVAL_MAX +
		    WIRE_CTL_MAX];
	struct iovec iov[1 + 16];
	struct msghdr mh = { .msg_iov = iov };
	long n = wire_encode_req(req, hdr, sizeof(hdr));

	if (n < 0 || ndata > 16)
		return -EINVAL;
	iov[0].iov_base = hdr;
	iov[0].iov_len = (size_t)n;
	for (int i = 0; i < ndata; i++)
		iov[1 + i] = data[i];
	mh.msg_iovlen = 1 + (size_t)ndata;
	if (xsend(fd, &mh))
		return CONN_BROKEN;

	return take_answer(fd, req, body, bodylen, fd_out);
}

int conn_call(const struct wire_req *req, const struct iovec *data,
	      int ndata, void *body, size_t *bodylen, int *fd_out)
{
	int rc;

	for (int i = 0; fd_out && i < CONN_MAX_FDS; i++)
		fd_out[i] = -1;
	pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	if (forked) {
		/* Inherited across fork: the parent keeps using its copy. */
		if (ctl_fd >= 0)
			sys_close(ctl_fd);
		ctl_fd = -1;
		forked = false;
	}
	if (ctl_fd < 0) {
		rc = dial();
		if (rc < 0) {
			dial_errno = -rc;
			pthread_mutex_unlock(&lock);
			return CONN_NODAEMON;
		}
		ctl_fd = rc;
	}
	rc = exchange(ctl_fd, req, data, ndata, body, bodylen, fd_out);
	if (rc == CONN_BROKEN || rc == CONN_PROTO) {
		/* The daemon went away, or is not one to talk to: a later
		 * call dials afresh. */
		sys_close(ctl_fd);
		ctl_fd = -1;
	}
	if (rc == CONN_PROTO)
		rc = -EPROTO;
	pthread_mutex_unlock(&lock);
	return rc;
}
