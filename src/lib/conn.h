/*
 * conn - the process's control connection to pingsockd.
 *
 * One SOCK_SEQPACKET connection per process, made on first use, remade in
 * a child after fork() (the child then re-attaches each socket it uses,
 * proving that it holds it: dsock_prove()).  Calls are serialised
 * by one lock: a request and its response are never interleaved with
 * another thread's.
 */
#ifndef PS_CONN_H
#define PS_CONN_H

#include <stddef.h>
#include <sys/uio.h>

#include "lib/call.h"
#include "wire/wire.h"

#define CONN_MAX_FDS CALL_MAX_FDS

/*
 * Send req, followed by the bytes of data[0..ndata) (WIRE_SEND), and wait
 * for the response.  Copies its body
 * into body and sets *bodylen; receives its descriptors into fd_out[] if
 * given (-1 where none came).
 *
 * The response is checked before anything of it is used: call_exchange()
 * (call.h), the request client pingsockctl shares.  A malformed one is
 * -EPROTO: its descriptors are closed and the connection too (the next
 * call dials afresh).
 *
 * Returns the response's result (>= 0, or -errno from the daemon, or
 * WIRE_R_UNATTACHED for a request that names a socket), or -EPROTO, or
 * WIRE_R_NODAEMON when the daemon cannot be reached (conn_dial_error()
 * says why), or WIRE_R_BROKEN when the connection broke.  All the WIRE_R_*
 * values are outside the range of -errno, so that a daemon's own
 * -ECONNREFUSED (a pending error) is never taken for them.
 */
int conn_call(const struct wire_req *req, const struct iovec *data,
	      int ndata, void *body, size_t *bodylen, int *fd_out);

/*
 * The library's own descriptors (the connection, each socket's error
 * queue) are moved up to CONN_HIGH_FD or above when the limit allows, so
 * that the descriptors a program sees are numbered as they would be with
 * the kernel's sockets.  Returns the descriptor to use.
 */
#define CONN_HIGH_FD 512
int conn_move_high(int fd);

/*
 * Why the calling thread's last attempt to reach the daemon failed: a
 * -errno, or WIRE_R_FOREIGN_NS when the daemon serves only its own
 * network namespace and this process is in another.
 */
int conn_dial_error(void);

/* The socket path in use (PINGSOCK_SOCKET or the default). */
const char *conn_path(void);

#endif
