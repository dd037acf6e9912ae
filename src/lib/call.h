/* SPDX-License-Identifier: ISC */
/*
 * call - the request client: one request and its answer on a control
 * connection to pingsockd, and making such a connection.  libpingsock's
 * connections (conn.h) and pingsockctl both call through here, so that
 * every answer either of them uses has been checked the same way: by the
 * row of its request's type (wire/decode.h: wire_check_answer()) and,
 * for each descriptor that came with it, fdcheck_kind().  The daemon is
 * trusted no more than it trusts us: it may be an impostor at the socket
 * path.  No state: the caller owns the connection and says who may use
 * it when (one exchange at a time on a connection).
 */
#ifndef PS_LIB_CALL_H
#define PS_LIB_CALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "wire/wire.h"

#define CALL_MAX_FDS WIRE_ANS_FDS

/* A blocking send gave up waiting for its answer (lib/call.c): a signal
 * came (EINTR), or its SO_SNDTIMEO went by (EAGAIN).  The connection is
 * of no more use: the answer may still come. */
enum {
	CALL_R_INTR = -100100,
	CALL_R_TIMEDOUT = -100101,
};
#define CALL_MAX_DATA 16	/* iovecs of WIRE_SEND's payload */

/*
 * A SOCK_SEQPACKET connection to the listener at path (close-on-exec):
 * the descriptor, or -errno (-ENAMETOOLONG for a path that does not fit,
 * socket()'s or connect()'s errno).
 */
int call_connect(const char *path);

/*
 * WIRE_HELLO on a new connection, naming the state arena token
 * (WIRE_NONCE_LEN bytes; zeros for none): 0 with the arena's token in
 * token_out, the connection's answer slot in *ans_slot (0: none) and, if
 * the daemon made a new arena, its memfd in *arena_fd (else -1), or why
 * not - -EPROTO (a daemon of
 * another protocol version), WIRE_R_FOREIGN_NS (it serves only its own
 * network namespace), WIRE_R_BROKEN (it closed the connection at once:
 * it refuses this one, or is no pingsockd), WIRE_R_MALFORMED (not an
 * answer of this protocol), or another -errno it answered.
 */
int call_hello(int fd, const uint8_t *token, uint8_t *token_out,
	       uint32_t *ans_slot, int *arena_fd);

/*
 * Send req on fd, followed by the bytes of data[0..ndata) (WIRE_SEND's
 * payload, at most CALL_MAX_DATA iovecs, not copied), and wait for the
 * answer.  Its body goes into body (at most *bodylen bytes: a longer one
 * is malformed) and *bodylen, if both are given; its descriptors into
 * fd_out[0..CALL_MAX_FDS) (-1 where none came), or are closed if fd_out
 * is NULL.  Returns the answer's result (>= 0, -errno, or the WIRE_R_*
 * its row allows), -EINVAL if req cannot be encoded, WIRE_R_BROKEN (the
 * connection broke) or WIRE_R_MALFORMED (nothing of the answer is kept,
 * its descriptors are closed).  After either of the last two the
 * connection is of no more use.
 */
int call_exchange(int fd, const struct wire_req *req,
		  const struct iovec *data, int ndata, void *body,
		  size_t *bodylen, int *fd_out);

/*
 * A WIRE_SEND as call_exchange() would make it, but answered in the
 * connection's answer slot (ans, from HELLO; *seq counts the sends
 * answered there, wire.h) while this thread may spin for its answer:
 * the same result, two system calls fewer.  It falls back to the
 * channel (call_exchange(), or WIRE_WAIT if it has waited too long).
 * A blocking send (no MSG_DONTWAIT) may also give up: CALL_R_INTR or
 * CALL_R_TIMEDOUT (req->u.send.timeo_fd names its SO_SNDTIMEO).
 */
int call_send(int fd, const struct wire_req *req, const struct iovec *data,
	      int ndata, const struct wire_shm *ans, uint32_t *seq);

#endif
