/* SPDX-License-Identifier: ISC */
/*
 * wire - the protocol between libpingsock and pingsockd.
 *
 * Two channels per client process:
 *
 *  - the control channel: AF_UNIX SOCK_SEQPACKET connections to the
 *    daemon's listener, one per process, or a few when its threads call at
 *    once (lib/conn.h).  On each, the client sends one request and waits
 *    for its response; requests name a socket by the handle the daemon gave
 *    at WIRE_OPEN (or at WIRE_ATTACH, on another connection or after fork).
 *    What each request type is - its fields, who may send it when, the
 *    answer it gets - is one row of one table (struct wire_req_type).  The
 *    daemon decodes requests with wire_decode_req(), which checks every
 *    length and field; anything malformed is a protocol error and the
 *    client is disconnected.  The client checks answers as strictly
 *    (wire/decode.h: wire_check_answer()).
 *
 *  - one data descriptor per socket: the client's end of a SOCK_SEQPACKET
 *    socketpair the daemon created, passed with SCM_RIGHTS.  It is the fd the
 *    program holds.  Each message on it is one received datagram: a fixed
 *    struct wire_dgram followed by the ICMP message, so that poll() on the fd
 *    is exactly "a datagram is queued" and nothing is buffered in the client.
 *
 *    Besides replies, the daemon puts a wake-up (WIRE_DG_WAKE) on it when
 *    an error arrives, so that a program waiting in poll() or recv()
 *    wakes and finds the error: readers skip wake-ups.
 *
 *  - one state arena per process (struct wire_shm slots in a sealed memfd
 *    the daemon makes at the first WIRE_HELLO and maps, the client maps
 *    read-only): the state a receive must see without asking, such as the
 *    pending error, one slot per socket the process uses.  Later
 *    connections of the process (and of its forked children) name the
 *    arena by the token the first WIRE_HELLO answered.  The error queue
 *    itself stays in the daemon (WIRE_ERRQ), so that the daemon holds one
 *    descriptor per socket: its end of the data pair.
 *
 * Values are in host byte order: both ends are on the same host.
 */
#ifndef PS_WIRE_H
#define PS_WIRE_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "wire/in6ext.h"

#define WIRE_VERSION 13

/* Largest ICMP message a client may hand over (the kernel's 0xFFFF check). */
#define WIRE_DATA_MAX 0xFFFF
/* sockaddr_storage: the kernel refuses longer names with EINVAL. */
#define WIRE_ADDR_MAX 128
#define WIRE_OPTVAL_MAX 512	/* a struct group_source_req is 264 */
#define WIRE_CTL_MAX 1024
#define WIRE_REQ_HDR 8
#define WIRE_MSG_MAX (WIRE_REQ_HDR + 64 + WIRE_ADDR_MAX + WIRE_CTL_MAX + \
		      WIRE_DATA_MAX)

enum wire_type {
	WIRE_HELLO = 1,	/* u32 version, the arena's token (nonce; zeros:
			 * none yet) -> result 0, the token; the arena's
			 * memfd when a new one was made */
	WIRE_OPEN,	/* i32 domain, type, protocol -> u32 handle,
			 * u32 WIRE_OPEN_*, u32 arena slot; data fd;
			 * broker: the kernel socket, its liveness fd; type
			 * SOCK_RAW: the raw-socket emulation (engine/psraw.h) */
	WIRE_ATTACH,	/* nonce (struct wire_proof) -> u32 handle, i32
			 * domain, u32 arena slot */
	WIRE_DETACH,	/* this process no longer uses the handle */
	WIRE_BIND,	/* u32 len, name -> result */
	WIRE_CONNECT,	/* u32 len, name -> result */
	WIRE_SEND,	/* i32 flags, u32 namelen, name, u32 ctllen, ctl, data */
	WIRE_SETOPT,	/* i32 level, i32 name, u32 len, value */
	WIRE_GETOPT,	/* i32 level, i32 name, u32 len -> value, result = len */
	WIRE_GETNAME,	/* -> sockaddr, result = its length */
	WIRE_GETPEER,	/* -> sockaddr, result = its length */
	WIRE_SHUTDOWN,	/* i32 how */
	WIRE_STATS,	/* -> struct wire_stats */
	WIRE_KEEPID,	/* u32 ident: bind an unbound socket to it, if free
			 * and the policy allows (PINGSOCK_IDENT=keep) */
	WIRE_TABLE,	/* u32 cursor -> struct wire_table_hdr, entries */
	WIRE_BROKER_BIND, /* nonce, u32 flags (WIRE_BB_*), i32 the bound
			 * device's index (SO_BINDTOIFINDEX), u32 len, name ->
			 * a new kernel socket bound to name, in place of
			 * the socket the handle names (once a socket) */
	WIRE_ERRQ,	/* -> the error queue's next record: struct
			 * wire_dgram then its data; -EAGAIN if none */
	WIRE_USERS,	/* u32 cursor (the least uid) -> struct
			 * wire_users_hdr, entries */
	WIRE_FIND,	/* u64 a descriptor's SO_COOKIE -> u32 handle, u32
			 * family, u32 WIRE_FIND_*: the caller's uid's
			 * relayed socket whose data descriptor has that
			 * cookie; -ENOENT if none (a program inherited
			 * it across exec: it proves it holds it next) */
	WIRE_WAIT,	/* -> the answer of the last WIRE_SEND that asked
			 * for WIRE_RQ_SLOT, on this channel, as that
			 * WIRE_SEND's own (its type) */
	WIRE_LOGLOST,	/* -> u64: log lines the daemon could not write (it
			 * would have blocked, or the log is gone: log.h).
			 * A request of its own, not a field of WIRE_STATS:
			 * older clients require that struct's pad 0.  An
			 * older daemon calls it a bad request. */
	WIRE_SETERR,	/* i32 an errno, 1 to 511: the socket's pending
			 * error (sk_err) becomes it, as do_recvmmsg() keeps
			 * the error of a later message of a batch (the
			 * shim's recvmmsg), no waiter woken -> result 0.
			 * An older daemon takes it for a malformed request:
			 * it ends the connection (the library dials again,
			 * and asks no more: lib/errq.c). */
	WIRE_TYPE_END
};

/* WIRE_BROKER_BIND's flags: PINGSOCK_IDENT=keep's bind, and what the
 * client's socket has set of what bind() looks at. */
#define WIRE_BB_KEEPID 1u
#define WIRE_BB_REUSE 2u	/* SO_REUSEADDR */
#define WIRE_BB_FREEBIND 4u	/* IP_FREEBIND, IPV6_FREEBIND */
#define WIRE_BB_ALL 7u

/*
 * No request carries a descriptor: the daemon refuses them (SO_PASSRIGHTS
 * off).  A request about a socket the connection has not opened itself
 * (a forked child's, or one inherited across exec) proves that the caller
 * holds the socket instead: it first writes a struct wire_proof with a
 * fresh random nonce on the socket's own descriptor (the data descriptor
 * of a relayed socket, the liveness descriptor of a broker socket), which
 * only a holder can do, then sends the request with the same nonce.  The
 * daemon takes the proof from that descriptor and uses it once.
 */
#define WIRE_NONCE_LEN 16
#define WIRE_PROOF_MAGIC 0x54415350u	/* "PSAT" */
struct wire_proof {
	uint32_t magic;
	uint8_t nonce[WIRE_NONCE_LEN];
};

/* WIRE_FIND's answer, after the family. */
#define WIRE_FIND_RAW 1u	/* the raw-socket emulation (type SOCK_RAW) */

/* WIRE_OPEN's answer, after the handle. */
#define WIRE_OPEN_BROKER 1u	/* a kernel ping socket: see broker.h */

/*
 * The request header's flags (u16 after the type).  WIRE_RQ_SLOT, on a
 * WIRE_SEND only: answer in this connection's answer slot (struct
 * wire_shm's ans_*; its index came with HELLO's answer), not on the
 * channel.
 * A client that spins for its answer reads memory instead of calling
 * recvmsg(), and the daemon saves a sendmsg(): two system calls of the
 * six a relayed echo costs.  One that gives up waiting sends WIRE_WAIT
 * and reads the answer from the channel as usual.
 */
#define WIRE_RQ_SLOT 1u
/*
 * WIRE_RQ_SOLE, on a WIRE_DETACH only: no other process maps this
 * connection's arena (the program has not forked since it got it), so
 * none reads the socket's slot there any more and the daemon gives it
 * back.  Without it the slot stays while the arena does: a forked child
 * may read it before it makes a call of its own.  The flag is believed
 * as far as it reaches: the arena is the uid's own, so a false one costs
 * only that uid's processes a stale view of their own sockets.
 */
#define WIRE_RQ_SOLE 2u

/*
 * WIRE_RQ_ASK, on a WIRE_SEND only: the client has not looked whether
 * the program's open file is O_NONBLOCK (an fcntl() for every send, in
 * the time between the program's clock reading and its Echo Request
 * leaving, which ping measures).  A send that the policy would make wait
 * (rate, min_interval) is answered WIRE_R_ASKED: no place in the rate
 * taken, nothing counted, nothing changed but what the send's checks
 * did before (an automatic bind, as the kernel's send makes before it
 * waits); the client then looks and sends again, with MSG_DONTWAIT or
 * without.
 */
#define WIRE_RQ_ASK 4u

/* WIRE_SEND: namelen of this value means "msg_name was NULL". */
#define WIRE_NO_NAME 0xFFFFFFFFu

struct wire_req {
	uint16_t type;
	uint16_t rqflags;	/* WIRE_RQ_* (the header's flags) */
	uint32_t handle;
	/* WIRE_ATTACH and WIRE_BROKER_BIND: the proof's nonce;
	 * WIRE_HELLO: the arena's token. */
	uint8_t nonce[WIRE_NONCE_LEN];
	uint32_t flags;		/* WIRE_BROKER_BIND: WIRE_BB_* */
	int32_t ifindex;	/* WIRE_BROKER_BIND: SO_BINDTOIFINDEX */
	union {
		uint32_t version;
		struct {
			int32_t domain, type, protocol;
		} open;
		struct {
			uint32_t len;
			uint8_t bytes[WIRE_ADDR_MAX];
		} addr;
		struct {
			int32_t flags;
			/* The caller's length: data holds exactly len bytes,
			 * or none when len > WIRE_DATA_MAX (the daemon then
			 * answers EMSGSIZE in the kernel's order of checks). */
			uint32_t len;
			uint32_t namelen;
			uint8_t name[WIRE_ADDR_MAX];
			/* A sender's: where wire_encode_send_parts() takes
			 * the name from instead of name[] (never read by
			 * the library, nor set by the decoder). */
			const void *name_src;
			/* A sender's: the program's descriptor, whose
			 * SO_SNDTIMEO bounds a blocking send's wait for its
			 * answer (lib/call.c; NULL: none, never encoded). */
			const int *timeo_fd;
			uint32_t ctllen;
			const uint8_t *ctl;
			uint32_t datalen;
			const uint8_t *data; /* points into the decoded message */
		} send;
		struct {
			int32_t level, name;
			uint32_t len;
			uint8_t val[WIRE_OPTVAL_MAX];
		} opt;
		int32_t how;
		int32_t err;		/* WIRE_SETERR: 1 to 511 */
		uint32_t ident;
		uint32_t cursor;	/* WIRE_TABLE: 0, or the last page's next */
		uint64_t cookie;	/* WIRE_FIND */
	} u;
};

/* Response header: u16 type (of the request), u16 0, i32 result, body. */
#define WIRE_RESP_HDR 8

/*
 * The result of a call: one space for the protocol and both its ends.
 * >= 0 is a success (0, a length, a count), -1..-WIRE_ERRNO_MAX an errno
 * (the kernel's MAX_ERRNO), and below that the values of enum wire_result,
 * which are never taken for an errno.  The first three go on the wire; the
 * others never do: they are how a call ended on the client's side.
 */
#define WIRE_ERRNO_MAX 4095

enum wire_result {
	/*
	 * This connection does not know the handle (a forked child, or a
	 * new connection).  The client proves it holds the socket (struct
	 * wire_proof), sends WIRE_ATTACH and repeats the call.  Only a
	 * request that names an attached socket (WIRE_ACC_SOCKET) gets it.
	 */
	WIRE_R_UNATTACHED = -100000,
	/*
	 * HELLO's result for a client in another network namespace than
	 * the daemon's (the namespace of the socket it connected with):
	 * nothing is served to it.  The library's socket() fails with
	 * EACCES.
	 */
	WIRE_R_FOREIGN_NS = -100010,
	/* A WIRE_SEND with WIRE_RQ_ASK that would wait (above). */
	WIRE_R_ASKED = -100011,
	/* The client's own: the daemon cannot be reached (lib/conn.h
	 * says why). */
	WIRE_R_NODAEMON = -100001,
	/* The client's own: the connection broke (the daemon went away,
	 * or closed it at once: a connection it refuses). */
	WIRE_R_BROKEN = -100002,
	/* The client's own: the answer broke the protocol (an impostor at
	 * the socket path, or a compromised daemon); nothing of it is
	 * kept, and the connection is of no more use. */
	WIRE_R_MALFORMED = -100003,
};

/*
 * WIRE_SETOPT of the flow label manager (SOL_IPV6, IPV6_FLOWLABEL_MGR of
 * <linux/in6.h>) is an action, not a value: asking for any label, the
 * lease answers the label it chose (a u32 body), which the kernel writes
 * into the caller's request.  Every other SETOPT answers no body.
 */
static inline bool wire_setopt_answers_label(int32_t level, int32_t name)
{
	return level == SOL_IPV6 && name == IPV6_FLOWLABEL_MGR;
}

/*
 * A GETOPT that reads its value as input: getsockopt(IPV6_FLOWLABEL_MGR)
 * takes a struct in6_flowlabel_req (action, flags), IP_MSFILTER a struct
 * ip_msfilter and MCAST_MSFILTER a struct group_filter (the group), and
 * each writes the answer over it.  Its request carries the caller's
 * first this many bytes of the value (0: the option reads none).
 */
static inline uint32_t wire_getopt_input(int32_t level, int32_t name,
					 uint32_t len)
{
	uint32_t in = 0;

	if (level == SOL_IPV6 && name == IPV6_FLOWLABEL_MGR)
		in = 32;	/* sizeof(struct in6_flowlabel_req) */
	else if (level == SOL_IP && name == IP_MSFILTER)
		in = 16;	/* IP_MSFILTER_SIZE(0) */
	else if ((level == SOL_IP || level == SOL_IPV6) &&
		 name == MCAST_MSFILTER)
		in = 144;	/* GROUP_FILTER_SIZE(0) */
	return len < in ? len : in;
}

/*
 * Why the daemon refused a WIRE_OPEN (wire_stats.refused_open[]): the
 * policy's group range, the user's max_sockets, the daemon's descriptors
 * running short while this user holds the most, identifiers (broker
 * mode: max_idents, or the identifiers short), the daemon's own memory or
 * descriptors.  pingsockctl names each (wire_refusal_name()).
 */
enum wire_refusal {
	WIRE_RF_GROUP,
	WIRE_RF_MAX_SOCKETS,
	WIRE_RF_FDS,
	WIRE_RF_IDENTS,
	WIRE_RF_RESOURCES,
	WIRE_RF_END
};

/* The label of a refusal reason ("unknown" for none). */
const char *wire_refusal_name(unsigned reason);

#define WIRE_ST_BROKER4 1u	/* wire_stats.flags: broker mode serves IPv4 */
#define WIRE_ST_BROKER6 2u	/* ... and IPv6 */
#define WIRE_ST_ALL 3u
/* The daemon's version: a NUL-terminated string of [0-9A-Za-z.+~_-],
 * zeros after it (wire_stats_check()). */
#define WIRE_VERSION_STR 32

struct wire_stats {
	uint64_t clients;
	uint64_t sockets;
	uint64_t idents;
	uint64_t sent;
	uint64_t replies;
	uint64_t dropped;	/* replies no socket could take (full, stray) */
	uint64_t bad_packets;	/* malformed or unsolicited ICMP from the net */
	uint64_t proto_errors;	/* clients disconnected for bad requests */
	uint64_t refused;	/* connections, sockets and sends refused by
				 * a limit or a share (uidtab.h) */
	uint64_t refused_netns;	/* clients of another network namespace */
	uint64_t start_ms;	/* when the daemon started: Unix time, ms */
	uint64_t refused_open[WIRE_RF_END];	/* OPENs refused, by reason */
	/* Sends the policy's rate or min_interval held back: made to wait
	 * (parked), refused with EAGAIN (MSG_DONTWAIT), refused with
	 * ENOBUFS (a wait past one burst, or the user's parked bytes). */
	uint64_t sends_delayed;
	uint64_t sends_eagain;
	uint64_t sends_refused;
	uint64_t users;		/* uids the daemon keeps state for */
	uint32_t flags;		/* WIRE_ST_* */
	uint32_t pad;		/* 0 (older clients require it) */
	char version[WIRE_VERSION_STR];
};

_Static_assert(sizeof(struct wire_stats) == 200, "wire_stats layout");

/* Check a WIRE_STATS answer's body (the client side): flags known, the
 * version as WIRE_VERSION_STR says.  0 or -1. */
int wire_stats_check(const struct wire_stats *st);

/*
 * WIRE_USERS: what the daemon counts per uid, for the uids it keeps state
 * for (a connection, a socket, an identifier, parked bytes, a bucket not
 * yet full: engine/uidtab.h), so that what it answers is bounded by what
 * the users hold; a uid's counters start again at 0 when its state goes.
 * One page per request, in ascending uid order from the request's cursor
 * (the least uid to list); hdr.next is the cursor of the next page (the
 * last uid listed + 1), 0 after the last.  Root (SO_PEERCRED uid 0) sees
 * every uid (hdr.flags has WIRE_USERS_ALL), anyone else only its own.
 */
#define WIRE_USERS_ALL 1u

struct wire_users_hdr {
	uint32_t next;		/* cursor of the next page; 0: no more */
	uint32_t count;		/* entries that follow */
	uint32_t flags;		/* WIRE_USERS_ALL */
	uint32_t pad;		/* 0 */
};

struct wire_user_entry {
	uint32_t uid;
	uint32_t pad;		/* 0 */
	uint64_t requests;	/* echo requests sent (relayed sockets) */
	uint64_t refused;	/* connections, sockets, sends refused */
};

_Static_assert(sizeof(struct wire_users_hdr) == 16, "wire_users_hdr layout");
_Static_assert(sizeof(struct wire_user_entry) == 24,
	       "wire_user_entry layout");

/*
 * WIRE_TABLE: the live socket table, one page per request.  The request
 * carries a cursor (0 for the first page); the answer is a header and
 * hdr.count entries, as many as fit in WIRE_RESP_BODY_MAX, in the order
 * of the daemon's socket slots.  hdr.next is the cursor of the next page,
 * 0 after the last.  A socket opened or closed while a client pages may
 * or may not be listed; none is listed twice.
 *
 * Who sees what: a caller whose SO_PEERCRED uid is 0 sees every socket
 * (hdr.flags has WIRE_TABLE_ALL); any other caller sees its own uid's
 * sockets only.  The header's totals and WIRE_STATS are for everyone.
 */
#define WIRE_RESP_BODY_MAX 4096

#define WIRE_TABLE_ALL 1u	/* hdr.flags: every uid's sockets are listed */

struct wire_table_hdr {
	uint32_t next;		/* cursor of the next page; 0: no more */
	uint32_t count;		/* entries that follow */
	uint32_t flags;		/* WIRE_TABLE_ALL */
	uint32_t pad;		/* 0 */
	uint64_t opened;	/* sockets opened since start (all uids) */
	uint64_t errors;	/* errors delivered, all sockets since start */
};

#define WIRE_TE_DEST_CAPPED 1u	/* entry.flags: destinations stopped
				 * counting at WIRE_DEST_CAP */
#define WIRE_TE_BROKER 2u	/* entry.flags: a kernel socket handed out
				 * (no counters) */
#define WIRE_DEST_CAP 1024u

struct wire_table_entry {
	uint32_t handle;
	uint32_t uid;
	int32_t pid;		/* of the process that opened it */
	uint8_t family;		/* AF_INET, AF_INET6 */
	uint8_t flags;		/* WIRE_TE_* */
	uint16_t ident;		/* 0: not bound yet */
	uint32_t destinations;	/* distinct addresses sent to (capped) */
	uint32_t clients;	/* connections attached (processes) */
	uint64_t requests;	/* requests sent */
	uint64_t replies;	/* replies delivered */
	uint64_t errors;	/* ICMP and local errors, failed sends */
	uint64_t drops;		/* replies and records its queues refused */
	uint64_t age_ms;	/* since it was opened */
};

_Static_assert(sizeof(struct wire_table_hdr) == 32, "wire_table_hdr layout");
_Static_assert(sizeof(struct wire_table_entry) == 64,
	       "wire_table_entry layout");
#define WIRE_TABLE_PAGE ((WIRE_RESP_BODY_MAX - sizeof(struct wire_table_hdr)) \
			 / sizeof(struct wire_table_entry))

/*
 * Check a WIRE_TABLE answer's body of len bytes (the client side): the
 * header is whole, count is at most WIRE_TABLE_PAGE, exactly count entries
 * follow, pad and unknown flags are 0.  Fills *hdr; 0 or -1.
 */
int wire_table_check(const uint8_t *body, size_t len,
		     struct wire_table_hdr *hdr);
/* Entry i of a checked body (copied: the body need not be aligned). */
void wire_table_entry_at(const uint8_t *body, size_t i,
			 struct wire_table_entry *e);

#define WIRE_USERS_PAGE ((WIRE_RESP_BODY_MAX - sizeof(struct wire_users_hdr)) \
			 / sizeof(struct wire_user_entry))

/*
 * Check a WIRE_USERS answer's body of len bytes to the request with
 * cursor (the client side): the header whole, count at most
 * WIRE_USERS_PAGE and exactly count entries, pads and unknown flags 0,
 * the uids ascending from cursor on, next 0 or the last uid + 1 (a page
 * that lists none cannot say there is more).  Fills *hdr; 0 or -1.
 */
int wire_users_check(const uint8_t *body, size_t len, uint32_t cursor,
		     struct wire_users_hdr *hdr);
/* Entry i of a checked body. */
void wire_user_entry_at(const uint8_t *body, size_t i,
			struct wire_user_entry *e);

/*
 * Encode a request into buf.  Returns its length, or -1 if cap is too
 * small.  SEND data is appended separately by the caller (iovec), so that
 * payloads are not copied: wire_encode_req() writes everything before it.
 */
long wire_encode_req(const struct wire_req *req, uint8_t *buf, size_t cap);
/* The same with the header's flags given (WIRE_RQ_*), not req->rqflags:
 * a caller that asks for the answer slot need not copy the request. */
long wire_encode_req_as(const struct wire_req *req, uint16_t rqflags,
			uint8_t *buf, size_t cap);

/*
 * A WIRE_SEND as wire_encode_req_as() encodes it, but in pieces that
 * leave its name and control data where they are: out[0] the fields
 * before the name (in buf), out[1] the name (namelen bytes at
 * req->u.send.name_src, or of name[] if that is NULL), out[2] the
 * control data's length (in buf), out[3] the control data (at
 * req->u.send.ctl).  Neither is read here: a sender gathers them with
 * the header (sendmsg()), so that the kernel copies them from the
 * program's memory, or refuses the whole message with EFAULT.  Returns
 * the bytes of the four pieces, or -1 if buf (cap bytes) is too small
 * or a length is out of range.
 */
long wire_encode_send_parts(const struct wire_req *req, uint16_t rqflags,
			    uint8_t *buf, size_t cap, struct iovec out[4]);

/*
 * Decode one request message of len bytes.  Returns 0, or -1 if the message
 * is malformed in any way: unknown type, wrong length for its type, a field
 * out of range, bytes left over.  SEND's data and ctl point into msg.
 */
int wire_decode_req(const uint8_t *msg, size_t len, struct wire_req *req);

/* The request type's name ("unknown" for none), for messages. */
const char *wire_type_name(unsigned type);

/* What a descriptor that comes with an answer must be. */
enum wire_fd_kind {
	WIRE_FD_SEQPACKET = 1,	/* AF_UNIX SOCK_SEQPACKET: data, a broker
				 * socket's liveness */
	WIRE_FD_ARENA,		/* the state arena: a memfd of at least
				 * WIRE_ARENA_SIZE bytes, sealed against
				 * shrinking, its seals sealed */
	WIRE_FD_ICMP,		/* a kernel ping socket: AF_INET or AF_INET6
				 * (fd_family, if not 0) SOCK_DGRAM, of
				 * IPPROTO_ICMP or IPPROTO_ICMPV6 */
};

#define WIRE_ANS_FDS 3		/* the most an answer carries */

/* Who may send a request when (the daemon's rule; OpenSSH's monitor has
 * such a table). */
#define WIRE_ACC_FIRST 1u	/* the first message of a connection, and
				 * only that */
#define WIRE_ACC_SOCKET 2u	/* names a socket the connection opened or
				 * attached; WIRE_R_UNATTACHED otherwise */
#define WIRE_ACC_PROVES 4u	/* names any socket, whose holding the
				 * caller proves (struct wire_proof) */

/* What a successful answer's result is. */
enum wire_ok {
	WIRE_OK_ZERO = 1,	/* 0 */
	WIRE_OK_LEN,		/* 0, or the body's length ("result = len") */
	WIRE_OK_SENT,		/* the bytes sent: at most what was handed
				 * over (WIRE_SEND's len) */
};

/* wire_req_type.body: the answer's own check decides. */
#define WIRE_BODY_CHECKED ((size_t)-1)

struct rbuf;
struct wbuf;
struct wire_answer;	/* wire/decode.h */

/*
 * One request type, all of it: its name, its fields after the header
 * (encode writes them; decode reads and checks them, and the caller
 * checks that nothing is left), who may send it when, and the answer it
 * gets - a result beside >= 0 and -errno that it may have (WIRE_R_*, or
 * 0 for none), what a success's result is, its body's length and its
 * descriptors (WIRE_FD_*, 0-ended), and a check of what those do not
 * say (the body's fields; descriptors that depend on them).  The daemon
 * (its access rule), the library and pingsockctl (the answer) read the
 * same row.
 */
struct wire_req_type {
	const char *name;
	unsigned access;		/* WIRE_ACC_* */
	void (*encode)(struct wbuf *w, const struct wire_req *req);
	int (*decode)(struct rbuf *r, struct wire_req *req);
	int32_t also;			/* WIRE_R_* it may answer, or 0 */
	enum wire_ok ok;
	size_t body;			/* or WIRE_BODY_CHECKED */
	uint8_t fds[WIRE_ANS_FDS];	/* WIRE_FD_* */
	int (*check)(const struct wire_req *req, struct wire_answer *ans);
};

/* The row of type, or NULL if no request has that type. */
const struct wire_req_type *wire_req_type(unsigned type);

/*
 * Socket state the client reads without asking: a slot of its process's
 * arena (a sealed memfd the daemon maps, and the client maps read-only),
 * so that what a receive reports follows the options in force when it is
 * called, as in the kernel, and survives fork.  Only the daemon writes:
 * it keeps the state itself and copies it into the slot of every arena
 * whose process uses the socket; the client asks the daemon to take a
 * pending error (WIRE_GETOPT SO_ERROR) or a record (WIRE_ERRQ).
 */
struct wire_shm {
	_Atomic uint32_t cmsg;		/* WIRE_CM_*: receive options on */
	_Atomic uint32_t shutdown;	/* WIRE_SHUT_* */
	_Atomic int32_t err;		/* pending error (sk_err) */
	_Atomic uint32_t errq;		/* records on the error queue */
	_Atomic uint32_t tsflags;	/* SO_TIMESTAMPING flags */
	_Atomic uint32_t wakes;		/* wake-ups put on the data pair, ever:
					 * while 0 a reader need not look for
					 * one */
	/*
	 * Used only in a connection's answer slot (WIRE_RQ_SLOT), and
	 * never in a socket's, so that a slot that changes hands is never
	 * taken for an answer: the daemon writes the answer of each
	 * WIRE_RQ_SLOT send here, the result first, then the count of
	 * those sends on the connection (from 1, never 0) with release.
	 * The client waits for the count it expects (acquire), then checks
	 * the result as it would the channel's answer.  Zeroed when the
	 * slot is given back.
	 */
	_Atomic uint32_t ans_seq;
	_Atomic int32_t ans_result;
};

/* SO_TIMESTAMPING flags as Linux 6.18 has them (newer than the headers
 * of the build may be). */
#define WIRE_TS_RX_SOFTWARE	(1u << 3)
#define WIRE_TS_SOFTWARE	(1u << 4)
#define WIRE_TS_OPT_ID		(1u << 7)
#define WIRE_TS_OPT_TSONLY	(1u << 11)
#define WIRE_TS_OPT_STATS	(1u << 12)
#define WIRE_TS_BIND_PHC	(1u << 15)
#define WIRE_TS_OPT_ID_TCP	(1u << 16)
#define WIRE_TS_OPT_RX_FILTER	(1u << 17)
#define WIRE_TS_MASK		((1u << 19) - 1)
/* Slots of an arena: more than the sockets the daemon can hold (one
 * descriptor each); slot 0 is never used (the arena's header). */
#define WIRE_ARENA_SLOTS 65536u
#define WIRE_ARENA_SIZE (WIRE_ARENA_SLOTS * sizeof(struct wire_shm))
#define WIRE_ARENA_MAGIC 0x41525350u	/* "PSRA", slot 0's first word */
#define WIRE_SHUT_RD 1u
#define WIRE_SHUT_WR 2u

/*
 * One message on the data descriptor (replies, and wake-ups that only
 * say "look at the state slot": an error arrived), or one record of the
 * error queue (WIRE_ERRQ's answer).
 */
enum wire_dgram_kind {
	WIRE_DG_REPLY = 1,
	WIRE_DG_ERROR,		/* an error-queue record; data: the request */
	WIRE_DG_WAKE,		/* no data; skipped by readers */
};

/* Receive-side options in force when the datagram was queued. */
#define WIRE_CM_TIMESTAMP	0x0001u	/* SO_TIMESTAMP (struct timeval) */
#define WIRE_CM_TIMESTAMPNS	0x0002u	/* SO_TIMESTAMPNS (struct timespec) */
#define WIRE_CM_TSTAMP_NEW	0x0004u	/* the _NEW (64-bit) option names */
#define WIRE_CM_TTL		0x0010u	/* IP_RECVTTL */
#define WIRE_CM_TOS		0x0020u	/* IP_RECVTOS */
#define WIRE_CM_PKTINFO		0x0040u	/* IP_PKTINFO */
#define WIRE_CM_RECVOPTS	0x0080u	/* IP_RECVOPTS */
#define WIRE_CM_RETOPTS		0x0100u	/* IP_RETOPTS */
#define WIRE_CM_RXQ_OVFL	0x0200u	/* SO_RXQ_OVFL */
#define WIRE_CM_TSTAMPING_NEW	0x0400u	/* set with SO_TIMESTAMPING_NEW */
#define WIRE_CM_PKTINFO6	0x0800u	/* IPV6_RECVPKTINFO */
#define WIRE_CM_HOPLIMIT	0x1000u	/* IPV6_RECVHOPLIMIT */
#define WIRE_CM_TCLASS		0x2000u	/* IPV6_RECVTCLASS */
#define WIRE_CM_FLOWINFO	0x4000u	/* IPV6_FLOWINFO (receive) */
#define WIRE_CM_SNDFLOW		0x8000u	/* IPV6_FLOWINFO_SEND: msg_name
					 * carries the flow information */
#define WIRE_CM_PKTINFO2292	0x10000u /* IPV6_2292PKTINFO */
#define WIRE_CM_HOPLIMIT2292	0x20000u /* IPV6_2292HOPLIMIT */
#define WIRE_CM_ORIGDST		0x40000u /* IP_RECVORIGDSTADDR */
#define WIRE_CM_ORIGDST6	0x80000u /* IPV6_RECVORIGDSTADDR */

struct wire_dgram {
	uint8_t kind;
	uint8_t family;		/* AF_INET, AF_INET6 */
	uint8_t ttl;
	uint8_t tos;
	uint32_t drops;		/* the socket's drops so far (SO_RXQ_OVFL) */
	uint32_t ifindex;	/* incoming interface */
	/* msg_name: the same bytes, named for what each kind carries. */
	union {
		uint32_t src_scope;	/* a reply: scope id of src (IPv6
					 * link-local) */
		uint32_t req_dst_scope;	/* a record: of req_dst */
	};
	union {
		uint8_t src[16];	/* a reply: the replier */
		uint8_t req_dst[16];	/* a record: the destination of the
					 * request it is about */
	};
	uint8_t dst[16];	/* the address the reply was sent to */
	int64_t ts_sec;		/* the kernel's receive time (CLOCK_REALTIME) */
	int64_t ts_nsec;
	uint8_t optlen;		/* IPv4 options of the reply */
	uint8_t pad;
	union {
		uint16_t port;		/* a reply: msg_name's port, 0 */
		uint16_t req_typecode;	/* a record of an IPv6 local error:
					 * the request's ICMPv6 type << 8 |
					 * code, which the kernel puts where
					 * msg_name's port goes (they share
					 * the flow's port field); 0 in any
					 * other record */
	};
	uint32_t flowinfo;	/* IPv6: the reply's flow information
				 * (network order) */
	uint8_t opts[40];
	/* WIRE_DG_ERROR: struct sock_extended_err and the offender. */
	uint32_t ee_errno;
	uint8_t ee_origin, ee_type, ee_code, ee_pad;
	/* WIRE_DG_REPLY of an emulated raw IPv4 socket: ee_data holds
	 * bytes 4-7 of the IP header as received (identification, flags,
	 * offset), ee_info bytes 8-11 (TTL, protocol, checksum); see
	 * engine/rawhdr.h. */
	uint32_t ee_info;
	uint32_t ee_data;
	uint8_t offender_family;	/* 0: none (all-zero sockaddr) */
	uint8_t pad2;
	uint16_t l4sum;		/* a reply or an ICMP error record: bytes 2-3
				 * of the ICMP message as received (its
				 * checksum), which the kernel reports as
				 * the port of IP(V6)_ORIGDSTADDR */
	uint8_t offender[16];
	uint32_t offender_scope;	/* IPv6 link-local offender */
};

#define WIRE_DGRAM_HDR ((size_t)sizeof(struct wire_dgram))
/* The most of a record's data WIRE_ERRQ's answer carries (an ICMP error
 * quotes at most 576 bytes in IPv4, 1232 in IPv6; a longer forged one is
 * cut, and MSG_TRUNC still says how long it was). */
#define WIRE_ERRQ_DATA_MAX (WIRE_RESP_BODY_MAX - 4 - WIRE_DGRAM_HDR)
_Static_assert(sizeof(struct wire_dgram) == 152, "wire_dgram layout");

#endif
