#include "lib/relay.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/conn.h"
#include "lib/lock.h"
#include "lib/sys.h"

int relay_conn_call(const struct wire_req *req, const struct iovec *data,
		    int ndata, void *body, size_t *bodylen, int *fd_out)
{
	int rc;

	lock_enter();
	rc = conn_call(req, data, ndata, body, bodylen, fd_out);
	lock_leave();
	return rc;
}

/* A nonce no other process can guess. */
static int make_nonce(uint8_t *nonce)
{
	size_t got = 0;

	while (got < WIRE_NONCE_LEN) {
		ssize_t n = getrandom(nonce + got, WIRE_NONCE_LEN - got, 0);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (size_t)n;
	}
	return 0;
}

int relay_prove(int fd, uint8_t *nonce)
{
	struct wire_proof pf = { .magic = WIRE_PROOF_MAGIC };
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int rc = make_nonce(nonce);

	if (rc)
		return rc;
	memcpy(pf.nonce, nonce, WIRE_NONCE_LEN);
	for (int tries = 0; tries < 2; tries++) {
		ssize_t n = sys_send(fd, &pf, sizeof(pf), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n == (ssize_t)sizeof(pf))
			return 0;
		if (n >= 0 || errno != EAGAIN)
			break;
		/* The daemon drains it as it comes: a moment, at most. */
		if (sys_poll(&pfd, 1, 1000) <= 0)
			break;
	}
	return -ECONNRESET;
}

/*
 * WIRE_ATTACH: this connection learns the socket's handle.  conn_call()
 * checked the answer's form (handle, family; the state page and error
 * descriptor); what must match the socket is checked here.
 */
static int attach(int fd, struct fdent *ent)
{
	struct wire_req req = { .type = WIRE_ATTACH, .handle = ent->handle };
	uint32_t body[2];
	size_t blen = sizeof(body);
	int fds[CONN_MAX_FDS];
	struct wire_shm *shm = NULL;
	int rc = relay_prove(fd, req.nonce);

	if (rc)
		return rc;
	rc = relay_conn_call(&req, NULL, 0, body, &blen, fds);
	if (rc >= 0 && (blen != sizeof(body) || body[1] != (uint32_t)ent->family))
		rc = -EPROTO;
	/* A forked child has both already; a new process needs them. */
	if (rc >= 0 && !ent->shm)
		rc = relay_map_shm(fds[0], &shm);
	if (fds[0] >= 0)
		sys_close(fds[0]);
	if (rc >= 0) {
		ent->handle = body[0];
		fdtab_set_attached(fd, body[0], getpid(), &shm, &fds[1], ent);
	}
	if (shm)
		munmap(shm, WIRE_SHM_SIZE);
	for (int i = 1; i < CONN_MAX_FDS; i++)
		if (fds[i] >= 0)
			sys_close(fds[i]);
	if (rc < 0)
		return rc == -EBADF || rc == CONN_NODAEMON || rc == CONN_BROKEN
			       ? -ECONNRESET : rc;
	return 0;
}

int relay_map_shm(int memfd, struct wire_shm **shm)
{
	void *p = mmap(NULL, WIRE_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		       memfd, 0);

	*shm = NULL;
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (((struct wire_shm *)p)->version != WIRE_VERSION) {
		munmap(p, WIRE_SHM_SIZE);
		return -EPROTO;
	}
	*shm = p;
	return 0;
}

int relay_call(int fd, struct fdent *ent, struct wire_req *req,
	       const struct iovec *data, int ndata, void *body,
	       size_t *bodylen)
{
	size_t cap = bodylen ? *bodylen : 0;
	int rc;

	for (int tries = 0; tries < 2; tries++) {
		req->handle = ent->handle;
		if (bodylen)
			*bodylen = cap;
		rc = relay_conn_call(req, data, ndata, body, bodylen, NULL);
		if (rc != WIRE_R_UNATTACHED)
			break;
		rc = attach(fd, ent);
		if (rc < 0)
			break;
		rc = WIRE_R_UNATTACHED;
	}
	if (rc == WIRE_R_UNATTACHED || rc == CONN_NODAEMON || rc == CONN_BROKEN)
		rc = -ECONNRESET;
	return rc;
}
