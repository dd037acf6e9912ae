/* SPDX-License-Identifier: ISC */
/*
 * srv - the objects of the server (server.h) and what its modules say to
 * each other.  Internal to src/daemon: the modules, from the bottom up,
 *
 *   loop.c     the event loop and its timers
 *   audit.c    each socket's counters, destinations and records
 *   arena.c    the state arenas of client processes (arena.h)
 *   sstate.c   a relayed socket's state, copied into arenas, and its
 *              error queue
 *   deliver.c  what the raw sockets receive, to the sockets it answers
 *   ssock.c    served sockets: handles, relayed sockets, proofs
 *   bsock.c    broker sockets: kernel sockets handed out, counted while
 *              they exist
 *   bscan.c    which of them still exist (/proc/net/icmp), records freed
 *   ops.c      the requests, one procedure each, and their table
 *   client.c   connections: accepting, reading, answering, waiting sends
 *   server.c   set-up, signals, configuration, the loop's ticks
 *
 * each calls only those above it in this list (no cycle).
 */
#ifndef PSD_SRV_H
#define PSD_SRV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/loop.h"
#include "daemon/serverconf.h"
#include "engine/psock.h"
#include "engine/rate.h"
#include "engine/uidtab.h"
#include "wire/wire.h"

/* Descriptors the daemon keeps for itself below its limit: the loop's,
 * the raw sockets, and room to accept a connection and refuse it. */
#define FD_RESERVE 64
#define FDS_CONN 1		/* a control connection */
#define FDS_RELAY 1		/* its data pair's end */
#define FDS_BROKER 1		/* the liveness pair end */
#define PARKED_MAX 1048576u	/* bytes of parked sends per uid */
#define ERRQ_UID_MAX 4194304u	/* bytes on error queues per uid */
/* Bytes past the default that SO_RCVBUF may add to a uid's data pairs
 * (the daemon's memory, whoever asks: ssock_size_pair()). */
#define PAIRBUF_UID_EXTRA 16777216u
#define PAIRBUF_DEFAULT 212992u	/* net.core.rmem_default: a ping
				 * socket's receive buffer until SO_RCVBUF */
/* A uid's data pairs that get PAIRBUF_DEFAULT, at most; its others get
 * PAIRBUF_SMALL: room for the largest reply (a unix datagram longer
 * than its sender's buffer is refused, EMSGSIZE) and a queue of some 60
 * small ones.  A pair holds its buffer and one datagram more, so a
 * user's unread replies hold at most 256 x 274 KiB and 138 KiB a socket
 * past them (max_sockets 8192, every socket at the default and 60,000
 * bytes a reply: 2.2 GB of the daemon's memory, now 1.1 GB; max_sockets
 * and max_request bound it further). */
#define PAIRBUF_UID_FULL 256u
/* Bytes of a uid's sockets' audit destination sets (16 KiB a socket at
 * WIRE_DEST_CAP): past it a set grows no more and says "N+".  Without
 * it 8,192 sockets of one user each sending to 1,024 destinations held
 * 128 MiB. */
#define DESTS_UID_MAX 1048576u
#define PAIRBUF_SMALL 73728u
/* The least a pair's buffer may be: a unix datagram longer than its
 * sender's buffer less 32 bytes is refused (EMSGSIZE), where the
 * kernel's ping socket takes one reply of any size into an empty
 * queue, whatever its SO_RCVBUF. */
#define PAIRBUF_LEAST ((uint32_t)(WIRE_DGRAM_HDR + WIRE_DATA_MAX + 32))
_Static_assert(PAIRBUF_SMALL >= PAIRBUF_LEAST,
	       "a pair's buffer takes the largest reply");

struct arena;
struct bhold;
struct ssock;
struct uidtab;

/* A control connection: one per client process. */
struct client {
	struct loop_handler h;	/* client.c's, data: this */
	int fd;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	gid_t *groups;
	size_t ngroups;
	bool hello;
	bool foreign;		/* another network namespace: nothing served */
	struct arena *arena;	/* its process's state arena (after HELLO) */
	uint32_t ans_slot;	/* its answer slot there (0: none) */
	uint32_t ans_seq;	/* WIRE_RQ_SLOT sends answered there */
	int32_t ans_last;	/* the last one's result, for WIRE_WAIT */
	bool ans_waitable;	/* one was answered there since the last WAIT */
	bool park_slot;		/* the parked send asked for WIRE_RQ_SLOT */
	struct ssock **socks;	/* sockets this connection may use */
	size_t nsocks, capsocks;
	struct loop_group *grp;	/* its user's share of the loop */
	struct parked *park;	/* its send, waiting for its time */
	struct loop_timer park_timer;
	bool park_due;		/* its time came: sent in the user's turn */
	struct server *srv;
	struct client *next, *prev;
};

/*
 * A send that policy makes wait (rate, min_interval): checked and
 * rewritten already, it goes out at due_ns.  The client waits for the
 * answer, so its connection is not read meanwhile.  It names its socket
 * by handle and serial: a socket closed meanwhile is not found (EBADF),
 * nor taken for another that got the handle since (the handle's
 * generation wraps after 4,096 sockets in its slot).
 */
struct parked {
	uint32_t handle;
	uint64_t serial;
	uid_t uid;		/* whose parked bytes it counts in */
	struct ps_sendinfo info;
	uint64_t due_ns;
	uint32_t len;
	uint8_t pkt[];
};

/*
 * The distinct destinations a socket sent to, for its audit record: an
 * open-addressing set of 64-bit hashes of the addresses (0: empty), grown
 * as needed, exact (but for a 64-bit hash collision) up to WIRE_DEST_CAP,
 * then only "capped".
 */
struct destset {
	uint64_t *h;
	uint32_t n, cap;
	bool capped;
};

/* A relayed socket's state slot in one process's arena. */
struct mirror {
	struct arena *a;
	uint32_t slot;
};

/* A record on a socket's error queue: struct wire_dgram, then len bytes
 * of data (the request it is about). */
struct erec {
	struct erec *next;
	uint32_t len;
	struct wire_dgram dg;
	uint8_t data[];
};

/* A kernel socket handed out in broker mode, counted while it exists. */
struct ksock {
	ino_t ino;	/* 0: none */
	uint64_t cookie;	/* its SO_COOKIE, for the guard's counts */
	uint16_t ident;
	uint8_t missed;	/* scans in a row that did not list it */
};

/* Proofs of holding a socket kept (struct ssock: proofs): room for a
 * few at first, for as many as one read takes when more come. */
#define SSOCK_PROOFS_FEW 4
#define SSOCK_PROOFS_MAX 64

struct ssock_proof {
	uint8_t nonce[WIRE_NONCE_LEN];
	uint32_t at;		/* when kept (proof_seq); 0: free */
};

/*
 * What the loop watches a socket's data (or liveness) pair for: its
 * hang-up alone.  What the client writes there (a proof) is read when a
 * request asks for it (ssock_proven()), not when it comes: a user
 * writing on thousands of its own descriptors once had the loop read
 * them all, ahead of every other user (another's ping: 0.12 ms, then
 * 20 ms on average).
 */
#define SSOCK_WATCH EPOLLRDHUP

/* A socket the daemon serves: relayed, or a broker socket's record. */
struct ssock {
	struct loop_handler h;	/* ssock.c's or bsock.c's, data: this */
	int fd;			/* the daemon's end of the data (relay) or
				 * liveness (broker) pair */
	struct loop_group *grp;	/* fd is watched in its user's share of
				 * the loop (ssock_watch()); NULL: not */
	struct server *srv;
	uint32_t handle;
	uint64_t serial;	/* never the same twice (server.serials) */
	struct psock *ps;
	uid_t uid;
	pid_t pid;
	/* Relayed: the SO_COOKIE of the client's end of the data pair, by
	 * which a program that inherited it across exec finds it
	 * (WIRE_FIND); a cookie, unlike an inode number, is never reused. */
	uint64_t cookie;
	struct ssock *cookie_next;	/* its chain in server.by_cookie */
	struct client **clients;
	size_t nclients, capclients;
	/* Relayed: its state (sstate.c), and the slots it is copied to. */
	int32_t err;		/* pending error (sk_err), positive */
	uint32_t wakes;		/* wake-ups put on the data pair */
	struct erec *eq, *eq_tail;	/* the error queue */
	uint32_t eq_n, eq_bytes;
	uint32_t pair_extra;	/* its data pair's buffer past its base */
	bool pair_small;	/* its base: PAIRBUF_SMALL, not the default */
	struct mirror *mirrors;
	uint32_t nmirrors, capmirrors;
	uint64_t sent, replies, drops;
	uint64_t errors;	/* audit: errors delivered, failed sends */
	uint64_t opened_ns;	/* audit: when it was opened */
	struct destset dests;	/* audit: distinct destinations */
	bool audit_held;	/* audit: its records are in its user's
				 * summary (audit.c), not written */
	uint64_t last_send_ns;	/* for min_interval */
	/* Proofs of holding its descriptor (wire.h: struct wire_proof)
	 * read but not yet asked for, each good for one WIRE_ATTACH or
	 * WIRE_BROKER_BIND: as many as one read takes, so that processes
	 * attaching at once do not spoil each other's, nor anyone's wrong
	 * nonce (any user's) theirs.  ssock.c: proof_read(). */
	struct ssock_proof *proofs;	/* nproofs of them (NULL: none) */
	uint8_t nproofs;
	uint32_t proof_seq;
	/* Without SO_PASSRIGHTS (closer.h): a holder passed descriptors on
	 * it, where only proofs may come.  Nothing more is read from it,
	 * its attaches fail, and its end goes to the closing thread as it
	 * is, what is queued there released by that thread, not the loop. */
	bool tainted;
	/* Broker mode: a kernel ping socket handed out (ps is NULL, no
	 * client is linked to it).  k[0] the socket in use, k[1] the one a
	 * bind replaced, until it is gone too; the record goes when both
	 * are gone and the liveness pair hung up. */
	bool broker;
	bool rebound;		/* WIRE_BROKER_BIND done (once a socket) */
	bool live_gone;		/* the liveness pair hung up */
	bool count_kept;	/* counted in its user's sockets with none
				 * of its kernel sockets left (bsock_drop()) */
	uint8_t family;
	struct ksock k[2];
};

struct slot {
	struct ssock *ss;
	uint32_t gen;
	uint32_t next_free;
};

struct server {
	struct loop *loop;
	struct shares *shares;	/* each user's loop group (share.h) */
	/* and one for its sockets' pair ends (ssock_watch()): apart, so
	 * that a user with one connection and one socket has two groups
	 * of one, watched as plain descriptors, not a nested epoll, which
	 * costs an epoll_wait a request */
	struct shares *sock_shares;
	struct loop_handler listen_h, raw_h, raw6_h, sig_h;
	int listen_fd, raw_fd, raw6_fd, sig_fd;
	bool raw_on, raw6_on;	/* watched (deliver_watch()) */
	bool listen_on;		/* off for a while after accept's EMFILE */
	struct loop_timer listen_timer;
	uint64_t netns;		/* SO_NETNS_COOKIE of the raw socket's */
	unsigned fd_budget;	/* descriptors for clients (uidtab UID_FDS) */
	unsigned nbroker;	/* kernel sockets handed out, alive */
	struct bhold *bholds;	/* who holds each identifier (bsock.c) */
	bool bholds_off;	/* none could be made: walk the records */
	uint64_t idents_pruned_ns;	/* the guard's identifiers, next */
	uint64_t closed_pruned_ns;	/* its closed records, next */
	struct loop_timer scan_timer;	/* a /proc scan soon (bscan.c) */
	struct loop_timer reap_timer;	/* gone records freed, a share a
					 * turn (bscan.c REAP_MAX) */
	uint32_t reap_from;	/* the slot the next share starts at */
	uint64_t reap_turn;	/* the loop's turn of the last share */
	uint16_t brover[2];	/* broker identifiers, by family */
	struct rate_bucket scans;	/* bsock_scan_allowed() */
	uint64_t scan_rest_ns;	/* none caused before (bscan.c SCAN_REST) */
	struct loop_timer tick_timer;	/* once a second */
	struct loop_timer watchdog_timer; /* WATCHDOG=1 (notify.h) */
	struct server_conf conf;
	struct pstab *tab;
	struct uidtab *uids;	/* per-user limits */
	const struct ps_env *env;
	struct slot *slots;
	uint32_t nslots, free_head;
	uint64_t serials;	/* the last socket's serial */
	struct ssock **by_cookie;	/* relayed sockets by cookie (ssock.c) */
	struct client *clients;
	uint32_t nclients;	/* on that list (WIRE_STATS: not a walk) */
	struct arenas *arenas;	/* all of them (arena.h) */
	struct wire_stats stats;
	struct {
		uint64_t opened;	/* sockets opened since start */
		uint64_t errors;	/* ssock.errors of all, since start */
	} audit;
	uint8_t *reqbuf;
	uint8_t *msgbuf;
	bool stop;
};

/* What a request's procedure answers. */
struct reply {
	int32_t result;
	uint8_t body[512];
	const uint8_t *ext;	/* if set, the body is there (len bytes) */
	size_t len;
	int fd;			/* passed with SCM_RIGHTS if >= 0, then closed */
	int fd2;		/* passed last if >= 0, then closed */
	struct parked *park;	/* no answer now: this send waits */
};

static inline int ssock_family(const struct ssock *ss)
{
	return ss->broker ? ss->family : ps_family(ss->ps);
}

static inline uint16_t ssock_ident(const struct ssock *ss)
{
	return ss->broker ? ss->k[0].ident : ps_ident(ss->ps);
}

/* ---- server.c ---- */
/* WIRE_STATS: the counters, and what is held now. */
void server_stats(struct server *s, struct wire_stats *st);

/* ---- audit.c ---- */
/* The socket's records: written within its user's budget, else counted
 * in the user's next summary (both of them: a close follows its open). */
void audit_open(struct server *s, struct ssock *ss);
void audit_close(const struct ssock *ss);
/* Once a second (and at the end): one summary line per user of what its
 * audit budget held back, and of what its log_limited_user() budgets
 * did (log.h); then the daemon-wide ones'. */
void audit_flush(struct server *s);
/* An error delivered to the socket, or a send of its that failed. */
void audit_error(struct server *s, struct ssock *ss);
/* A send refused with err: EAGAIN is flow control, not counted. */
void audit_send_failed(struct server *s, struct ssock *ss, int err);
void audit_sent(struct server *s, struct ssock *ss, const struct ps_addr *dst);
/* Its destination set freed, and its bytes given back to its user. */
void audit_forget_dests(struct server *s, struct ssock *ss);
/* WIRE_USERS: a page of the per-uid counters from uid cursor on. */
void audit_users(struct server *s, const struct client *c, uint32_t cursor,
		 struct reply *r);

/* ---- sstate.c ---- */
/*
 * At most this many processes' arenas hold a slot of one socket: every
 * change of its state (an ICMP error that anyone can send it, too) is
 * written into each, at the loop's cost.  Past it, a lingering arena
 * holding one gives its slots back (as past ARENA_LINGER_UID), or the
 * attach fails.  The kernel has no such bound (pingsockd(8)).
 */
#define SSTATE_MAX_MIRRORS 64
/* The socket's slot in arena a (made and filled if it has none): 0, or
 * -errno (ENOMEM; ENOBUFS for a full arena, or SSTATE_MAX_MIRRORS
 * arenas that hold one and are in use). */
int sstate_mirror(struct server *s, struct ssock *ss, struct arena *a,
		  uint32_t *slot);
/* c's process no longer holds ss (WIRE_DETACH).  If no other process
 * maps its arena (sole: WIRE_RQ_SOLE, the client's word, which reaches
 * only the arena's own processes), every connection of the arena lets
 * go of ss and its slot there is given back: else a process that used a
 * shared socket and closed it kept one of its SSTATE_MAX_MIRRORS places
 * for as long as it lived. */
void sstate_detach(struct server *s, struct client *c, struct ssock *ss,
		   bool sole);
/* Is req a WIRE_DETACH with WIRE_RQ_SOLE that c may send for ss, though
 * c does not hold it: ss has a slot in c's arena?  The library sends it
 * on whichever connection of its pool, and one that held ss may have
 * gone idle and been closed.  (Any connection of the arena: the uid's
 * processes that know its token, a process and its forked children.) */
bool sstate_sole_detach(const struct ssock *ss, const struct client *c,
			const struct wire_req *req);
/* Copy the socket's state into all its slots. */
void sstate_publish(struct ssock *ss);
/* Its slots given back, its error queue freed. */
void sstate_free(struct server *s, struct ssock *ss);
/* Arena a's last connection goes; if it will linger (its sockets' slots
 * keep it), room is made: past its user's share, or all users', of
 * lingering arenas, the oldest one's slots are given back (arena.h). */
void sstate_linger(struct server *s, struct arena *a);
/* The slots published, and a wake-up for whoever waits on the data
 * pair (the readers skip it). */
void sstate_wake(struct ssock *ss);
/* A pending error set (err > 0) or cleared (0); wake: tell a waiter. */
void sstate_set_err(struct ssock *ss, int err, bool wake);
/* Take the pending error: positive, or 0. */
int sstate_take_err(struct ssock *ss);
/* Put a record on the error queue (it wakes a waiter): 0, or -1 when
 * the queue is full (the record dropped, as the kernel drops it). */
int sstate_queue(struct server *s, struct ssock *ss,
		 const struct wire_dgram *dg, const void *data, size_t len);
/* The pending error set to err, then the record queued as above, the
 * slots written once for both (not at all if it is refused: the caller
 * publishes then). */
int sstate_queue_err(struct server *s, struct ssock *ss, int err,
		     const struct wire_dgram *dg, const void *data, size_t len);
/* Take the next record (NULL if none), for the caller to free(). */
struct erec *sstate_dequeue(struct server *s, struct ssock *ss);
/* Empty the error queue (IP_RECVERR turned off). */
void sstate_purge(struct server *s, struct ssock *ss);

/* ---- deliver.c ---- */
/* Watch the raw sockets while relayed sockets exist (or always for a
 * family that broker mode does not serve). */
void deliver_watch(struct server *s);
void deliver_drain(struct server *s, int family);
void deliver_raw4(void *data, uint32_t events);
void deliver_raw6(void *data, uint32_t events);
/* ip_local_error(): a send refused for its size leaves a record. */
void deliver_local_error(struct server *s, struct ssock *ss,
			 const struct ps_sendinfo *info, int err);

/* ---- ssock.c ---- */
int ssock_slot(struct server *s, struct ssock *ss);
void ssock_unslot(struct server *s, uint32_t handle);
struct ssock *ssock_get(const struct server *s, uint32_t handle);
/* The relayed socket whose client end has this SO_COOKIE (WIRE_FIND), or
 * NULL: one chain of a hash, not a walk over every socket. */
struct ssock *ssock_by_cookie(const struct server *s, uint64_t cookie);
int ssock_link(struct client *c, struct ssock *ss);
void ssock_unlink(struct client *c, struct ssock *ss);
bool ssock_linked(const struct ssock *ss, const struct client *c);
void ssock_fds(struct server *s, uid_t uid, int n);
int ssock_pair(int pair[2]);
/* Every server-side part of a socket but its accounting, freed. */
void ssock_release(struct server *s, struct ssock *ss);
/* A relayed socket: *client_fd its data descriptor, *slot its state's
 * slot in the client's arena. */
int ssock_new_relay(struct server *s, struct client *c,
		    const struct wire_req *req, int *client_fd, uint32_t *slot);
void ssock_free(struct server *s, struct ssock *ss);
/* Watch ss->fd for SSOCK_WATCH in its user's share of the loop, or stop
 * (once; again is nothing).  0 or -1. */
int ssock_watch(struct server *s, struct ssock *ss);
void ssock_unwatch(struct server *s, struct ssock *ss);
/* SO_RCVBUF was set: our end's send buffer, which bounds the client's
 * queue of replies, as it asks, but past PAIRBUF_DEFAULT only within its
 * uid's PAIRBUF_UID_EXTRA. */
void ssock_size_pair(struct server *s, struct ssock *ss);
bool ssock_proven(struct ssock *ss, const uint8_t *nonce);

/* ---- bsock.c, bscan.c ---- */
bool bsock_wanted(const struct server *s, const struct client *c,
		  const struct wire_req *req);
bool bsock_at_limit(struct server *s, struct uident *u, unsigned max);
int bsock_allowed(struct server *s, uid_t uid, bool replacement);
int bsock_new(struct server *s, struct client *c, const struct wire_req *req,
	      int *sock_fd, int *live_fd, struct ssock **out);
void bsock_rebind(struct server *s, struct ssock *ss,
		  const struct wire_req *req, struct reply *r);
void bsock_free(struct server *s, struct ssock *ss);
/* Kernel socket k of ss is gone (or the record is): no longer counted,
 * but for the record's last one while the record lives. */
void bsock_drop(struct server *s, struct ssock *ss, int k);
/* May a scan that a client causes run now (bscan.c: at most SCANS_PER_S
 * a second, and SCAN_REST)?  If so, it is counted. */
bool bsock_scan_allowed(struct server *s, uint64_t now);
/* Read /proc/net/icmp(6): the kernel's identifiers for relay, and which
 * broker sockets still exist (a socket is gone when two reads in a row
 * miss it). */
void bsock_scan(struct server *s);
/* A scan soon, as often as the daemon may (bsock_scan_allowed()). */
void bsock_scan_soon(struct server *s);
/* A broker record's counts so far, from the guard, added to e's. */
void bsock_table_counts(struct server *s, const struct ssock *ss,
			struct wire_table_entry *e);
void bsock_scan_timer(void *data);
void bsock_reap_timer(void *data);

/* ---- ops.c ---- */
/*
 * Check req against the table and the client's state, and run it into
 * r.  -1: the client must be disconnected for what it asked.
 */
int ops_run(struct server *s, struct client *c, const struct wire_req *req,
	    struct reply *r);
/* Put a checked request on the wire: the send's result. */
int32_t ops_finish_send(struct server *s, struct ssock *ss,
			const struct ps_sendinfo *info, const uint8_t *pkt,
			uint32_t len);
/* Give back a waiting send's bytes; free it. */
void ops_unpark(struct server *s, struct parked *p, bool sent);
int ops_refuse(struct server *s, const struct client *c, int err,
	       const char *why);

/* ---- client.c ---- */
void client_accept(void *data, uint32_t events);
void client_listen_timer(void *data);
void client_free(struct server *s, struct client *c);
int client_connect(struct server *s, int fd);

#endif
