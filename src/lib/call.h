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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "wire/wire.h"

#define CALL_MAX_FDS WIRE_ANS_FDS
#define CALL_MAX_DATA 16	/* iovecs of WIRE_SEND's payload */

/* A blocking send gave up waiting for its answer (lib/call.c): a signal
 * came (EINTR), or its SO_SNDTIMEO went by (EAGAIN); the daemon dropped
 * it unsent. */
enum {
	CALL_R_INTR = -100100,
	CALL_R_TIMEDOUT = -100101,
};

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
 * What the owner of a connection keeps of it for call_send(): its answer
 * slot in the arena it said HELLO with (NULL: none) and the sends
 * answered there (wire.h), the receive timeout its channel has now, in
 * microseconds (0: none), and whether a send gave up waiting on it.  A
 * blocking send's wait past CALL_TIMEOUT_S takes what is left of the
 * program's SO_SNDTIMEO as that timeout (lib/call.c); every other
 * exchange needs call_bound() first.
 */
struct call_conn {
	const struct wire_shm *ans;
	uint32_t ans_seq;
	uint64_t timeo_us;
	bool shut;	/* shut for writing: of no more use */
	int why;	/* why (EINTR, EAGAIN), when shut */
};

/* A new connection's: ans from HELLO; the timeout call_connect() set. */
void call_conn_init(struct call_conn *cc, const struct wire_shm *ans);

/* The channel's receive timeout back to the library's own (10 s) if a
 * blocking send's wait changed it: 0, or WIRE_R_BROKEN. */
int call_bound(int fd, struct call_conn *cc);

/*
 * A WIRE_SEND as call_exchange() would make it, but answered in the
 * connection's answer slot while this thread may spin for its answer:
 * the same result, two system calls fewer.  It falls back to the
 * channel (call_exchange(), or WIRE_WAIT if it has waited too long).
 * A blocking send (no MSG_DONTWAIT) gives up waiting at a signal or at
 * the program's SO_SNDTIMEO (req->u.send.timeo_fd names it), not before
 * CALL_TIMEOUT_S: CALL_R_INTR or CALL_R_TIMEDOUT, the send not sent,
 * and cc->shut set (the connection is then of no more use; so it is
 * after a send that was given up but went, whose answer this returns).
 */
int call_send(int fd, const struct wire_req *req, const struct iovec *data,
	      int ndata, struct call_conn *cc);

#endif
