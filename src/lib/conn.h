/*
 * conn - the process's control connection to pingsockd.
 *
 * One SOCK_SEQPACKET connection per process, made on first use, remade in
 * a child after fork() (the child then re-attaches each socket it uses,
 * proving that it holds it: relay_prove()).  Calls are serialised
 * by one lock: a request and its response are never interleaved with
 * another thread's.
 */
#ifndef PS_CONN_H
#define PS_CONN_H

#include <stddef.h>
#include <sys/uio.h>

#include "wire/wire.h"

#define CONN_MAX_FDS 3

/*
 * Send req, followed by the bytes of data[0..ndata) (WIRE_SEND), and wait
 * for the response.  Copies its body
 * into body and sets *bodylen; receives its descriptors into fd_out[] if
 * given (-1 where none came).
 *
 * The response is checked before anything of it is used (wire/decode.h:
 * wire_check_answer(); lib/fdcheck.h): the type of req, a result req
 * allows, exactly the body req's answer carries (no longer than *bodylen)
 * and exactly the descriptors it promises, each of its kind.  A malformed
 * one is -EPROTO: its descriptors are closed and the connection too (the
 * next call dials afresh).
 *
 * Returns the response's result (>= 0, or -errno from the daemon, or
 * WIRE_R_UNATTACHED for a request that names a socket), or -EPROTO, or
 * CONN_NODAEMON when the daemon cannot be reached (conn_dial_errno() says
 * why), or CONN_BROKEN when the connection broke.  Both are outside the
 * range of -errno, so that a daemon's own -ECONNREFUSED (a pending error)
 * is never taken for them.
 */
#define CONN_NODAEMON (-100001)
#define CONN_BROKEN (-100002)
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
 * Why the calling thread's last connection attempt failed: an errno, or
 * CONN_ERR_FOREIGN_NS when the daemon serves only its own network
 * namespace and this process is in another.
 */
#define CONN_ERR_FOREIGN_NS 100003
int conn_dial_errno(void);

/* The socket path in use (PINGSOCK_SOCKET or the default). */
const char *conn_path(void);

#endif
