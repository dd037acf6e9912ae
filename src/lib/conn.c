#include "lib/conn.h"
#include "lib/shimapi.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/sys.h"
#include "pingsock.h"

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

/* Connect and say hello: the descriptor, -errno or WIRE_R_FOREIGN_NS. */
static int dial(void)
{
	int fd = call_connect(conn_path()), rc;

	if (fd < 0)
		return fd;
	rc = call_hello(fd);
	if (rc < 0) {
		sys_close(fd);
		if (rc == WIRE_R_FOREIGN_NS)
			return rc;
		/* Closed at once (refused), not a pingsockd, or one of
		 * another protocol version. */
		return rc == WIRE_R_BROKEN ? -ECONNREFUSED : -EPROTO;
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

static __thread int dial_error;

int conn_dial_error(void)
{
	return dial_error;
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
			dial_error = rc;
			pthread_mutex_unlock(&lock);
			return WIRE_R_NODAEMON;
		}
		ctl_fd = rc;
	}
	rc = call_exchange(ctl_fd, req, data, ndata, body, bodylen, fd_out);
	if (rc == WIRE_R_BROKEN || rc == WIRE_R_MALFORMED) {
		/* The daemon went away, or is not one to talk to: a later
		 * call dials afresh. */
		sys_close(ctl_fd);
		ctl_fd = -1;
	}
	if (rc == WIRE_R_MALFORMED)
		rc = -EPROTO;
	pthread_mutex_unlock(&lock);
	return rc;
}
