/*
 * dsock - calls on a daemon-served socket: one request on the control
 * connection, re-attaching the socket first when this process's
 * connection does not know it yet (after fork, or a reconnect).
 */
#ifndef PS_DSOCK_H
#define PS_DSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "lib/fdtab.h"
#include "wire/wire.h"

/*
 * Returns the daemon's result (>= 0) or -errno.  The documented errno when
 * the daemon has gone away is ECONNRESET.
 */
int dsock_call(int fd, struct fdent *ent, struct wire_req *req,
	       const struct iovec *data, int ndata, void *body,
	       size_t *bodylen);

/*
 * Prove to the daemon that this process holds the socket fd (its data
 * descriptor, or a broker socket's liveness descriptor): a fresh random
 * nonce, written there as a struct wire_proof and copied to nonce
 * (WIRE_NONCE_LEN bytes) for the request that follows.  0 or -errno.
 */
int dsock_prove(int fd, uint8_t *nonce);

/*
 * Map a socket's shared page from its memfd (one that conn_call() checked:
 * sealed, big enough).  0 with *shm set, -ENOMEM, or -EPROTO if the page
 * is not of this protocol version.
 */
int dsock_map_shm(int memfd, struct wire_shm **shm);

/* Set errno from a negative result and return -1; else return rc. */
long dsock_ret(long rc);

#endif
