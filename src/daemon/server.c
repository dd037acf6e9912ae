#include "daemon/server.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/broker.h"
#include "daemon/closer.h"
#include "daemon/listener.h"
#include "daemon/log.h"
#include "daemon/sandbox.h"
#include "engine/uidtab.h"
#include "engine/icmp.h"
#include "engine/icmperr.h"
#include "engine/psock.h"
#include "engine/psraw.h"
#include "wire/wire.h"

#define HANDLE_IDX_BITS 20
#define HANDLE_IDX_MASK ((1u << HANDLE_IDX_BITS) - 1)
/* A client waits for each answer, so a second read right after one
 * request would almost always find nothing: take one request per event
 * (epoll is level-triggered and reports the rest). */
#define MAX_REQS_PER_WAKE 1
#define MAX_RAW_BATCHES 16
#define MAX_GROUPS 65536
#define PSD_IPV6_FLOWLABEL_MGR 32	/* <linux/in6.h> */
#define LOOP_SPIN_NS 50000
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71	/* Linux 5.14 */
#endif
/* Descriptors the daemon keeps for itself below its limit: the loop's,
 * the raw sockets, and room to accept a connection and refuse it. */
#define FD_RESERVE 64
#define FDS_CONN 1		/* a control connection */
#define FDS_RELAY 4		/* data pair end, memfd, error pair (both) */
#define FDS_BROKER 1		/* the liveness pair end */
#define PARKED_MAX 1048576u	/* bytes of parked sends per uid */
#define ACCEPT_PAUSE_NS 100000000u	/* after EMFILE from accept */
#define SCANS_PER_S 50		/* /proc scans clients can cause, a second */
#define SCANS_BURST 10

enum hkind { H_LISTEN, H_CLIENT, H_DATA, H_RAW, H_RAW6, H_SIGNAL };

struct handler {
	enum hkind kind;
	int fd;
};

struct dsock;

struct client {
	struct handler h;	/* first: epoll data points here */
	uid_t uid;
	gid_t gid;
	pid_t pid;
	gid_t *groups;
	size_t ngroups;
	bool hello;
	bool foreign;		/* another network namespace: nothing served */
	struct dsock **socks;	/* sockets this connection may use */
	size_t nsocks, capsocks;
	struct parked *park;	/* its send, waiting for its time */
	struct client *next, *prev;
};

/*
 * A send that policy makes wait (min_interval): checked and rewritten
 * already, it goes out at due_ns.  The client waits for the answer, so
 * its connection is not read meanwhile.
 */
struct parked {
	struct dsock *ds;
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

struct dsock {
	struct handler h;	/* fd: the daemon's end of the data pair */
	uint32_t handle;
	struct psock *ps;
	dev_t client_dev;	/* identity of the client's end, for ATTACH */
	ino_t client_ino;
	uid_t uid;
	pid_t pid;
	struct client **clients;
	size_t nclients, capclients;
	int shm_fd;		/* sealed memfd behind shm, handed out */
	struct wire_shm *shm;
	int err_fd;		/* our end of the error queue's pair */
	int err_peer;		/* the client's end, kept to hand out again */
	uint64_t sent, replies, drops;
	uint64_t errors;	/* audit: errors delivered, failed sends */
	uint64_t opened_ns;	/* audit: when it was opened (mono_ns) */
	struct destset dests;	/* audit: distinct destinations */
	uint64_t last_send_ns;	/* for min_interval */
	/* The last proof of holding its descriptor (wire.h: struct
	 * wire_proof), for one WIRE_ATTACH or WIRE_BROKER_BIND. */
	uint8_t proof[WIRE_NONCE_LEN];
	bool has_proof;
	/* Broker mode: a kernel ping socket handed out (ps is NULL, h.fd
	 * our end of its liveness pair, no client is linked to it).  The
	 * kernel sockets are counted while they exist (/proc/net/icmp):
	 * k[0] the one in use, k[1] the one a bind replaced, until it is
	 * gone too; the record goes when both are gone and the liveness
	 * pair hung up. */
	bool broker;
	bool rebound;		/* WIRE_BROKER_BIND done (once a socket) */
	bool live_gone;		/* the liveness pair hung up */
	uint8_t family;
	struct ksock {
		ino_t ino;	/* 0: none */
		uint16_t ident;
		bool seen;	/* in the last scan */
	} k[2];
};

struct slot {
	struct dsock *ds;
	uint32_t gen;
	uint32_t next_free;
};

struct server {
	int ep;
	struct handler listen, raw, raw6, sig;
	bool raw_on, raw6_on;	/* in the epoll set (see raw_watch) */
	bool listen_on;		/* off for a while after accept's EMFILE */
	uint64_t listen_resume_ns;
	uint64_t netns;		/* SO_NETNS_COOKIE of the raw socket's */
	unsigned fd_budget;	/* descriptors for clients (uidtab UID_FDS) */
	unsigned nbroker;	/* kernel sockets handed out, alive */
	uint64_t scan_due_ns;	/* a /proc scan for broker sockets, 0: none */
	uint16_t brover[2];	/* broker identifiers, by family */
	uint64_t last_scan_ns;
	struct rate_bucket scans;	/* scan_allowed() */
	struct server_conf conf;
	struct pstab *tab;
	struct uidtab *uids;	/* per-user limits */
	const struct ps_env *env;
	struct slot *slots;
	uint32_t nslots, free_head;
	struct client *clients;
	struct wire_stats stats;
	struct {
		uint64_t opened;	/* sockets opened since start */
		uint64_t errors;	/* dsock.errors of all, since start */
	} audit;
	uint8_t *reqbuf;
	uint8_t *msgbuf;
	bool stop;
	time_t next_tick;
};

/* What a request handler answers. */
struct reply {
	int32_t result;
	uint8_t body[512];
	const uint8_t *ext;	/* if set, the body is there (len bytes) */
	size_t len;
	int fd;			/* passed with SCM_RIGHTS if >= 0, then closed */
	int shm_fd;		/* passed too if >= 0, and kept */
	int err_fd;		/* passed too if >= 0, and kept */
	int fd2;		/* passed last if >= 0, then closed */
	bool deferred;		/* no answer now: the send is parked */
};

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int ep_add(struct server *s, struct handler *h, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	return epoll_ctl(s->ep, EPOLL_CTL_ADD, h->fd, &ev);
}

/*
 * Broker mode: the raw sockets see every ICMP message of the namespace,
 * the replies to brokered sockets too, and would take a copy of each.
 * They are watched only while relay sockets exist, or always for a
 * family that broker mode does not serve; what queued meanwhile (nothing
 * a relay socket asked for) is dropped when they are watched again.
 */
static void watch_one(struct server *s, struct handler *h, bool *on,
		      bool want)
{
	char junk[256];
	int err;

	if (h->fd < 0 || *on == want)
		return;
	/* The ICMP filter keeps the kernel from copying each packet to
	 * the raw socket at all; the epoll set, from waking for any. */
	err = h == &s->raw ? raw_listen(s->conf.raw4, want)
			   : raw6_listen(s->conf.raw6, want);
	if (err)
		log_warn("raw socket filter: %s", strerror(-err));
	if (want) {
		while (recv(h->fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0)
			;
		if (ep_add(s, h, EPOLLIN) != 0)
			return;
	} else if (epoll_ctl(s->ep, EPOLL_CTL_DEL, h->fd, NULL) != 0) {
		return;
	}
	*on = want;
}

static void raw_watch(struct server *s)
{
	bool relay = pstab_sockets(s->tab) > 0;

	watch_one(s, &s->raw, &s->raw_on, relay || !s->conf.broker.v4);
	watch_one(s, &s->raw6, &s->raw6_on, relay || !s->conf.broker.v6);
}

/* ---- small pointer sets (a socket's clients, a client's sockets) ---- */

static int ptrset_add(void ***arr, size_t *n, size_t *cap, void *p)
{
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i] == p)
			return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		void **a = realloc(*arr, nc * sizeof(*a));

		if (!a)
			return -1;
		*arr = a;
		*cap = nc;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

static bool ptrset_del(void **arr, size_t *n, const void *p)
{
	for (size_t i = 0; i < *n; i++) {
		if (arr[i] == p) {
			arr[i] = arr[--*n];
			return true;
		}
	}
	return false;
}

static bool ptrset_has(void *const *arr, size_t n, const void *p)
{
	for (size_t i = 0; i < n; i++)
		if (arr[i] == p)
			return true;
	return false;
}

static int link_pair(struct client *c, struct dsock *ds)
{
	if (ptrset_add((void ***)&c->socks, &c->nsocks, &c->capsocks, ds))
		return -1;
	if (ptrset_add((void ***)&ds->clients, &ds->nclients, &ds->capclients,
		       c)) {
		ptrset_del((void **)c->socks, &c->nsocks, ds);
		return -1;
	}
	return 0;
}

static void unlink_pair(struct client *c, struct dsock *ds)
{
	ptrset_del((void **)c->socks, &c->nsocks, ds);
	ptrset_del((void **)ds->clients, &ds->nclients, c);
}

/* ---- socket handles ---- */

static int slot_alloc(struct server *s, struct dsock *ds)
{
	uint32_t idx = s->free_head;

	if (idx == 0) {
		uint32_t n = s->nslots ? s->nslots * 2 : 64;
		struct slot *t;

		if (n > HANDLE_IDX_MASK)
			return -1;
		t = realloc(s->slots, n * sizeof(*t));
		if (!t)
			return -1;
		memset(t + s->nslots, 0, (n - s->nslots) * sizeof(*t));
		/* Slot 0 is never used, so that no handle is 0. */
		for (uint32_t i = n - 1; i >= (s->nslots ? s->nslots : 1); i--) {
			t[i].next_free = s->free_head;
			s->free_head = i;
		}
		s->slots = t;
		s->nslots = n;
		idx = s->free_head;
	}
	s->free_head = s->slots[idx].next_free;
	s->slots[idx].ds = ds;
	s->slots[idx].gen = (s->slots[idx].gen + 1) & (UINT32_MAX >> HANDLE_IDX_BITS);
	ds->handle = s->slots[idx].gen << HANDLE_IDX_BITS | idx;
	return 0;
}

static void slot_free(struct server *s, uint32_t handle)
{
	uint32_t idx = handle & HANDLE_IDX_MASK;

	if (idx == 0 || idx >= s->nslots)
		return;
	s->slots[idx].ds = NULL;
	s->slots[idx].next_free = s->free_head;
	s->free_head = idx;
}

static struct dsock *slot_get(const struct server *s, uint32_t handle)
{
	uint32_t idx = handle & HANDLE_IDX_MASK;

	if (idx == 0 || idx >= s->nslots || !s->slots[idx].ds ||
	    s->slots[idx].ds->handle != handle)
		return NULL;
	return s->slots[idx].ds;
}

/* ---- audit: the per-socket counters and records ---- */

static uint64_t addr_hash(const struct ps_addr *a)
{
	uint64_t h = 0xcbf29ce484222325u;	/* FNV-1a, then a mix */
	uint8_t b[1 + 16 + 4];

	b[0] = a->family;
	memcpy(b + 1, a->a, 16);
	memcpy(b + 17, &a->scope, 4);
	for (size_t i = 0; i < sizeof(b); i++)
		h = (h ^ b[i]) * 0x100000001b3u;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return h ? h : 1;
}

static bool destset_put(uint64_t *t, uint32_t cap, uint64_t h)
{
	for (uint32_t i = (uint32_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (t[i] == h)
			return false;
		if (!t[i]) {
			t[i] = h;
			return true;
		}
	}
}

static void destset_add(struct destset *d, const struct ps_addr *a)
{
	uint64_t h = addr_hash(a);

	if (d->cap && !d->capped) {
		for (uint32_t i = (uint32_t)h & (d->cap - 1); d->h[i];
		     i = (i + 1) & (d->cap - 1))
			if (d->h[i] == h)
				return;
	}
	if (d->n >= WIRE_DEST_CAP) {
		d->capped = true;	/* a new one past the cap */
		return;
	}
	if ((d->n + 1) * 2 > d->cap) {	/* at most half full */
		uint32_t nc = d->cap ? d->cap * 2 : 8;
		uint64_t *t = calloc(nc, sizeof(*t));

		if (!t) {
			d->capped = true;	/* no memory: say so, not lie */
			return;
		}
		for (uint32_t i = 0; i < d->cap; i++)
			if (d->h[i])
				destset_put(t, nc, d->h[i]);
		free(d->h);
		d->h = t;
		d->cap = nc;
	}
	if (destset_put(d->h, d->cap, h))
		d->n++;
}

static const char *family_name(int family)
{
	return family == AF_INET6 ? "inet6" : "inet";
}

/* An error delivered to the socket, or a send of its that failed. */
static void count_error(struct server *s, struct dsock *ds)
{
	ds->errors++;
	s->audit.errors++;
}

/* A send refused with an error: EAGAIN is flow control, not counted. */
static void send_failed(struct server *s, struct dsock *ds, int err)
{
	if (err != -EAGAIN)
		count_error(s, ds);
}

static int ds_family(const struct dsock *ds)
{
	return ds->broker ? ds->family : ps_family(ds->ps);
}

static uint16_t ds_ident(const struct dsock *ds)
{
	return ds->broker ? ds->k[0].ident : ps_ident(ds->ps);
}

static void audit_open(struct server *s, const struct dsock *ds)
{
	s->audit.opened++;
	log_info("event=open socket=%u uid=%u pid=%d family=%s%s", ds->handle,
		 (unsigned)ds->uid, (int)ds->pid,
		 family_name(ds_family(ds)),
		 ds->broker ? " mode=broker" :
		 psraw_is(ds->ps) ? " type=raw" : "");	/* the emulation */
}

static void audit_close(const struct dsock *ds)
{
	char dests[16];

	if (ds->broker) {
		/* The kernel carried its packets: nothing was counted. */
		log_info("event=close socket=%u uid=%u pid=%d family=%s "
			 "ident=%u mode=broker duration_ms=%llu", ds->handle,
			 (unsigned)ds->uid, (int)ds->pid,
			 family_name(ds->family), ds->k[0].ident,
			 (unsigned long long)((mono_ns() - ds->opened_ns) /
					      1000000u));
		return;
	}

	snprintf(dests, sizeof(dests), ds->dests.capped ? "%u+" : "%u",
		 ds->dests.n);
	log_info("event=close socket=%u uid=%u pid=%d family=%s ident=%u "
		 "destinations=%s requests=%llu replies=%llu errors=%llu "
		 "drops=%llu duration_ms=%llu", ds->handle, (unsigned)ds->uid,
		 (int)ds->pid, family_name(ps_family(ds->ps)),
		 ps_ident(ds->ps), dests, (unsigned long long)ds->sent,
		 (unsigned long long)ds->replies,
		 (unsigned long long)ds->errors,
		 (unsigned long long)ds->drops,
		 (unsigned long long)((mono_ns() - ds->opened_ns) / 1000000u));
}

/* ---- sockets ---- */

static void side_free(struct dsock *ds);
static void client_free(struct server *s, struct client *c);
static int send_reply(struct client *c, uint16_t type, const struct reply *r);
static void bsock_forget(struct server *s, struct dsock *ds);

/* The user's share of the daemon's descriptors, taken or given back. */
static void fds_add(struct server *s, uid_t uid, int n)
{
	struct uident *u = uidtab_get(s->uids, uid, n > 0);

	if (u)
		uidtab_add(s->uids, u, UID_FDS, n);
}

static void dsock_free(struct server *s, struct dsock *ds)
{
	struct uident *u = uidtab_get(s->uids, ds->uid, false);

	if (ds->broker)
		bsock_forget(s, ds);
	else if (u && u->nsockets)
		u->nsockets--;
	fds_add(s, ds->uid, ds->broker ? -FDS_BROKER : -FDS_RELAY);
	audit_close(ds);
	while (ds->nclients)
		unlink_pair(ds->clients[0], ds);
	for (struct client *c = s->clients; c; c = c->next)
		if (c->park && c->park->ds == ds)
			c->park->ds = NULL;	/* answered EBADF when due */
	free(ds->clients);
	free(ds->dests.h);
	side_free(ds);
	slot_free(s, ds->handle);
	pstab_close(s->tab, ds->ps);
	/* Also leaves the epoll set; what a client queued there goes with
	 * it (closer.h). */
	epoll_ctl(s->ep, EPOLL_CTL_DEL, ds->h.fd, NULL);
	closer_close_socket(ds->h.fd, ds->uid);
	free(ds);
	raw_watch(s);
}

static void side_free(struct dsock *ds)
{
	if (ds->shm)
		munmap(ds->shm, WIRE_SHM_SIZE);
	if (ds->shm_fd >= 0)
		close(ds->shm_fd);
	closer_close_socket(ds->err_fd, ds->uid);	/* the client writes too */
	if (ds->err_peer >= 0)
		close(ds->err_peer);
}

/*
 * The socket's shared page.  Sealed against shrinking, so that no client
 * can make the daemon's mapping fault.
 */
static int shm_new(struct dsock *ds)
{
	int fd = memfd_create("pingsock", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, WIRE_SHM_SIZE) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
	    (p = mmap(NULL, WIRE_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0)) == MAP_FAILED) {
		int err = -errno;

		close(fd);
		return err;
	}
	ds->shm = p;
	ds->shm_fd = fd;
	ds->shm->version = WIRE_VERSION;
	return 0;
}

/*
 * A socketpair for a client: pair[0] the daemon's end, non-blocking and
 * refusing descriptors (closer.h).  -errno (EMFILE, ENFILE or ENOBUFS).
 */
static int client_pair(int pair[2])
{
	int err = 0;

	pair[0] = pair[1] = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
		err = errno == EMFILE || errno == ENFILE ? -errno : -ENOBUFS;
	else if (fcntl(pair[0], F_SETFL, O_NONBLOCK) != 0 ||
		 closer_guard(pair[0]) != 0)
		err = -ENOBUFS;
	if (err && pair[0] >= 0) {
		close(pair[0]);
		close(pair[1]);
		pair[0] = pair[1] = -1;
	}
	return err;
}

/*
 * The shared page and the error queue's socketpair: what a socket has
 * besides its data descriptor.  -errno on failure (nothing left open).
 */
static int side_new(struct dsock *ds)
{
	int pair[2], err = shm_new(ds);

	if (err == 0)
		err = client_pair(pair);
	if (err == 0) {
		ds->err_fd = pair[0];
		ds->err_peer = pair[1];
	}
	if (err) {
		side_free(ds);
		ds->shm = NULL;
		ds->shm_fd = ds->err_fd = ds->err_peer = -1;
		return err == -EMFILE || err == -ENFILE ? err : -ENOBUFS;
	}
	return 0;
}

/* Create the socket and its data pair; *client_fd is the client's end. */
static int dsock_new(struct server *s, struct client *c,
		     const struct wire_req *req, int *client_fd)
{
	struct dsock *ds = calloc(1, sizeof(*ds));
	int pair[2] = { -1, -1 }, err;

	if (!ds)
		return -ENOMEM;
	ds->shm_fd = ds->err_fd = ds->err_peer = -1;
	err = pstab_open(s->tab, req->u.open.domain, req->u.open.type,
			 req->u.open.protocol, c->uid, &ds->ps);
	if (!err && ps_family(ds->ps) == AF_INET6 && !s->conf.raw6) {
		pstab_close(s->tab, ds->ps);
		err = -EAFNOSUPPORT;	/* as a kernel without IPv6 says */
	}
	if (err) {
		free(ds);
		return err;
	}
	err = side_new(ds);
	if (err) {
		pstab_close(s->tab, ds->ps);
		free(ds);
		return err;
	}
	err = client_pair(pair);
	if (err)
		goto fail;
	ds->h.kind = H_DATA;
	ds->h.fd = pair[0];
	ds->uid = c->uid;
	ds->pid = c->pid;
	ps_set_owner(ds->ps, ds);
	ps_set_pid(ds->ps, (int32_t)c->pid);
	if (slot_alloc(s, ds)) {
		err = -ENOMEM;
		goto fail;
	}
	if (ep_add(s, &ds->h, EPOLLIN | EPOLLRDHUP) || link_pair(c, ds)) {
		slot_free(s, ds->handle);
		err = -ENOMEM;
		goto fail;
	}
	*client_fd = pair[1];
	ds->opened_ns = mono_ns();
	fds_add(s, ds->uid, FDS_RELAY);
	audit_open(s, ds);
	return 0;
fail:
	if (pair[0] >= 0)
		close(pair[0]);
	if (pair[1] >= 0)
		close(pair[1]);
	side_free(ds);
	pstab_close(s->tab, ds->ps);
	free(ds);
	return err;
}

/*
 * What the client wrote on the socket's own descriptor: nothing is read
 * from there but a proof of holding it (wire.h: struct wire_proof), kept
 * for the request that follows it.  false: the client hung up.
 */
static bool take_writes(struct dsock *ds)
{
	for (int i = 0; i < 64; i++) {
		struct wire_proof pf;
		struct iovec iov = { .iov_base = &pf, .iov_len = sizeof(pf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		unsigned passed;
		ssize_t n = closer_recv(ds->h.fd, ds->uid, &mh, &passed);

		if (n == 0)
			return false;
		if (n < 0)
			break;
		if ((size_t)n == sizeof(pf) && pf.magic == WIRE_PROOF_MAGIC &&
		    !(mh.msg_flags & MSG_TRUNC)) {
			memcpy(ds->proof, pf.nonce, sizeof(ds->proof));
			ds->has_proof = true;
		}
	}
	return true;
}

/* Did the caller prove that it holds the socket?  The proof is used up. */
static bool proven(struct dsock *ds, const uint8_t *nonce)
{
	bool ok;

	if (!take_writes(ds) && !ds->broker)
		return false;
	ok = ds->has_proof &&
	     memcmp(ds->proof, nonce, sizeof(ds->proof)) == 0;
	ds->has_proof = false;
	memset(ds->proof, 0, sizeof(ds->proof));
	return ok;
}

/* ---- broker mode (broker.h) ---- */

/* Does broker mode serve this socket of this client? */
static bool brokered(const struct server *s, const struct client *c,
		     const struct wire_req *req)
{
	const struct broker_plan *b = &s->conf.broker;
	int family = req->u.open.domain;
	int base = req->u.open.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (base != SOCK_DGRAM || policy_uid_relayed(&s->conf.policy, c->uid))
		return false;
	if (family == AF_INET)
		return b->v4 && req->u.open.protocol == IPPROTO_ICMP;
	return family == AF_INET6 && b->v6 &&
	       req->u.open.protocol == IPPROTO_ICMPV6;
}

/* Count a kernel socket the client now holds: slot k of ds. */
static void bsock_take(struct server *s, struct dsock *ds, int k, int fd,
		       uint16_t ident)
{
	struct uident *u = uidtab_get(s->uids, ds->uid, true);
	struct stat st;

	/* An inode that is never listed, if fstat() could fail: then the
	 * next scan lets go of it, and the counts stay right. */
	ds->k[k].ino = fstat(fd, &st) == 0 ? st.st_ino : (ino_t)-1;
	ds->k[k].ident = ident;
	ds->k[k].seen = true;
	s->nbroker++;
	if (u) {
		u->nsockets++;
		u->nbroker++;
		uidtab_add(s->uids, u, UID_IDENTS, 1);
	}
	/* Relay sockets keep off it until /proc/net/icmp is read again. */
	pstab_add_foreign(s->tab, ds->family, ident);
}

/* A kernel socket of ds is gone (or the record is): no longer counted. */
static void bsock_drop(struct server *s, struct dsock *ds, int k)
{
	struct uident *u = uidtab_get(s->uids, ds->uid, false);

	if (!ds->k[k].ino)
		return;
	ds->k[k].ino = 0;
	s->nbroker--;
	if (u) {
		if (u->nsockets)
			u->nsockets--;
		if (u->nbroker)
			u->nbroker--;
		uidtab_add(s->uids, u, UID_IDENTS, -1);
	}
}

static void bsock_forget(struct server *s, struct dsock *ds)
{
	bsock_drop(s, ds, 0);
	bsock_drop(s, ds, 1);
}

/*
 * The same-uid rule: an identifier that a relay socket or another uid's
 * broker socket holds is refused, whatever SO_REUSEADDR says.
 */
static bool bsock_ident_taken(const struct server *s, int family, uid_t uid,
			      uint16_t ident)
{
	if (pstab_ident_used(s->tab, family, ident))
		return true;
	for (uint32_t i = 1; i < s->nslots; i++) {
		const struct dsock *d = s->slots[i].ds;

		if (!d || !d->broker || d->family != family || d->uid == uid)
			continue;
		for (int k = 0; k < 2; k++)
			if (d->k[k].ino && d->k[k].ident == ident)
				return true;
	}
	return false;
}

struct pick_ctx {
	const struct server *s;
	int family;
};

/* An automatic identifier: one nobody holds, as far as we know. */
static bool ident_free(void *ctx, uint16_t ident)
{
	const struct pick_ctx *pc = ctx;

	return !pstab_ident_used(pc->s->tab, pc->family, ident);
}

static void scan_kernel(struct server *s);

/*
 * Reading /proc/net/icmp costs the more the more sockets the host has:
 * what clients can make the daemon read is bounded, SCANS_PER_S a second
 * (SCANS_BURST at once), beyond the one a second it reads anyway.
 */
static bool scan_allowed(struct server *s, uint64_t now)
{
	if (rate_wait(&s->scans, now, SCANS_PER_S, SCANS_BURST))
		return false;
	rate_take(&s->scans, now, SCANS_PER_S, SCANS_BURST);
	return true;
}

/*
 * Does the user hold max sockets?  Its broker sockets may have gone since
 * the last look (the kernel says so in /proc/net/icmp, before or without
 * a hang-up of the liveness pair): look again, if the daemon may.
 */
static bool at_limit(struct server *s, struct uident *u, unsigned max)
{
	if (u->nsockets < max)
		return false;
	if (u->nbroker && scan_allowed(s, mono_ns()))
		scan_kernel(s);
	return u->nsockets >= max;
}

/*
 * May the user hold one more kernel socket, with an identifier?  A
 * replacement (a bind before first use) may go one past max_sockets for
 * as long as the socket it replaces exists: the library closes that one
 * at once, and the count is read afresh when it matters.
 */
static int bsock_allowed(struct server *s, uid_t uid, bool replacement)
{
	const struct policy *p = &s->conf.policy;
	struct uident *u = uidtab_get(s->uids, uid, true);
	unsigned max = p->max_sockets + (replacement ? 1 : 0);

	if (!u)
		return -ENOMEM;
	if (p->max_sockets && at_limit(s, u, max))
		return -EMFILE;
	if ((p->max_idents && u->idents >= p->max_idents) ||
	    !uidtab_may_take(s->uids, u, UID_IDENTS, 1, 65535))
		return -EAGAIN;
	return 0;
}

/* A kernel socket bound as o and sa say, for family; broker.h. */
static int bsock_bind(struct server *s, int family,
		      const struct broker_bindopts *o, const uint8_t *sa,
		      uint32_t len, int *fd, uint16_t *ident)
{
	struct pick_ctx pc = { s, family };
	struct broker_pick pick = {
		&s->brover[family == AF_INET6], ident_free, &pc,
	};

	return broker_bind(family, o, sa, len, &pick, fd, ident);
}

/*
 * A kernel ping socket, bound, and the liveness pair whose hang-up says
 * the client let go of it: *sock_fd and *live_fd go to the client.
 */
static int bsock_new(struct server *s, struct client *c,
		     const struct wire_req *req, int *sock_fd, int *live_fd,
		     struct dsock **out)
{
	static const struct broker_bindopts dflt = { .reuse = true };
	struct sockaddr_in6 any = { .sin6_family = (sa_family_t)req->u.open.domain };
	uint32_t alen = req->u.open.domain == AF_INET6 ? sizeof(any)
						     : sizeof(struct sockaddr_in);
	struct dsock *ds = calloc(1, sizeof(*ds));
	int pair[2] = { -1, -1 }, fd = -1, err;
	uint16_t ident = 0;

	if (!ds)
		return -ENOMEM;
	err = bsock_bind(s, req->u.open.domain, &dflt, (uint8_t *)&any, alen,
			 &fd, &ident);
	if (!err)
		err = client_pair(pair);
	ds->h.kind = H_DATA;
	ds->h.fd = pair[0];
	ds->shm_fd = ds->err_fd = ds->err_peer = -1;
	ds->broker = true;
	ds->family = (uint8_t)req->u.open.domain;
	ds->uid = c->uid;
	ds->pid = c->pid;
	if (!err && slot_alloc(s, ds))
		err = -ENOMEM;
	if (!err && ep_add(s, &ds->h, EPOLLIN | EPOLLRDHUP)) {
		slot_free(s, ds->handle);
		err = -ENOMEM;
	}
	if (err) {
		if (fd >= 0)
			close(fd);
		if (pair[0] >= 0)
			close(pair[0]);
		if (pair[1] >= 0)
			close(pair[1]);
		free(ds);
		return err;
	}
	bsock_take(s, ds, 0, fd, ident);
	fds_add(s, ds->uid, FDS_BROKER);
	ds->opened_ns = mono_ns();
	audit_open(s, ds);
	*sock_fd = fd;
	*live_fd = pair[1];
	*out = ds;
	return 0;
}

/* The kernel's errors come before EADDRINUSE: try the address alone. */
static int bsock_refuse_taken(struct server *s, const struct dsock *ds,
			      const struct broker_bindopts *o,
			      const struct wire_req *req)
{
	uint8_t sa[WIRE_ADDR_MAX];
	uint16_t ident;
	int fd, rc;

	memcpy(sa, req->u.addr.bytes, req->u.addr.len);
	memset(sa + offsetof(struct sockaddr_in, sin_port), 0, 2);
	rc = bsock_bind(s, ds->family, o, sa, req->u.addr.len, &fd, &ident);
	if (rc)
		return rc;
	close(fd);
	return -EADDRINUSE;
}

/* Checks before a bind of a fresh broker socket: 0 or -errno. */
static int rebind_allowed(struct server *s, struct dsock *ds,
			  const struct wire_req *req)
{
	/* A record whose liveness pair hung up may go at the next scan:
	 * nobody holds it to ask. */
	if (!ds->broker || ds->live_gone || !proven(ds, req->nonce))
		return -EBADF;
	if (ds->rebound)
		return -EINVAL;		/* as the kernel's: bound already */
	if ((req->flags & WIRE_BB_KEEPID) && !s->conf.policy.ident_keep)
		return -EPERM;		/* as WIRE_KEEPID */
	return bsock_allowed(s, ds->uid, true);
}

/*
 * bind() of a socket not used yet: a new kernel socket bound as asked
 * takes its place (the library puts it on the same descriptor); the old
 * one counts until it is gone.  Once a socket.
 */
static void op_broker_bind(struct server *s, struct client *c,
			   struct dsock *ds, const struct wire_req *req,
			   struct reply *r)
{
	struct broker_bindopts o = {
		.reuse = (req->flags & WIRE_BB_REUSE) != 0,
		.freebind = (req->flags & WIRE_BB_FREEBIND) != 0,
		.ifindex = req->ifindex,
	};
	int want = broker_sa_ident(req->u.addr.bytes, req->u.addr.len), nfd;
	uint16_t ident;

	r->result = rebind_allowed(s, ds, req);
	if (r->result)
		return;
	if (want > 0 && bsock_ident_taken(s, ds->family, ds->uid,
					  (uint16_t)want)) {
		r->result = bsock_refuse_taken(s, ds, &o, req);
		return;
	}
	r->result = bsock_bind(s, ds->family, &o, req->u.addr.bytes,
			       req->u.addr.len, &nfd, &ident);
	if (r->result)
		return;
	/* k[1] is free (once a socket); the old socket keeps its count
	 * there until it is gone. */
	ds->k[1] = ds->k[0];
	bsock_take(s, ds, 0, nfd, ident);
	ds->rebound = true;
	log_debug("socket %u (uid %u): bound again, to identifier %u",
		  ds->handle, (unsigned)ds->uid, ident);
	r->fd = nfd;
}

/* The liveness pair hung up: gone when its kernel sockets are. */
static void bsock_hangup(struct server *s, struct dsock *ds)
{
	uint64_t now = mono_ns();

	ds->live_gone = true;
	epoll_ctl(s->ep, EPOLL_CTL_DEL, ds->h.fd, NULL);
	if (!s->scan_due_ns)
		s->scan_due_ns = now;
}

/* The client wrote on its data (or liveness) descriptor, or let go. */
static void on_data(struct server *s, struct dsock *ds, uint32_t events)
{
	if (!(events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)) && take_writes(ds))
		return;
	if (ds->broker)
		bsock_hangup(s, ds);
	else
		dsock_free(s, ds);
}

/* ---- receiving from the network ---- */

static void fill_dgram(struct wire_dgram *dg, const struct icmp_pkt *p,
		       const struct raw_pkt *rp)
{
	memset(dg, 0, sizeof(*dg));
	dg->kind = WIRE_DG_REPLY;
	dg->family = p->src.family;
	dg->ttl = p->ttl;
	dg->tos = p->tos;
	dg->flowinfo = p->flowinfo;
	dg->ifindex = rp->ifindex;
	memcpy(dg->src, p->src.a, sizeof(dg->src));
	memcpy(dg->dst, p->dst.a, sizeof(dg->dst));
	dg->src_scope = p->src.scope;
	dg->ts_sec = rp->stamp.tv_sec;
	dg->ts_nsec = rp->stamp.tv_nsec;
	if (p->optlen && p->optlen <= sizeof(dg->opts)) {	/* IPv6: none */
		dg->optlen = (uint8_t)p->optlen;
		memcpy(dg->opts, p->opts, p->optlen);
	}
}

/* The received ICMP message onto the socket's data descriptor. */
static bool queue_dgram(struct server *s, struct dsock *ds,
			const struct psock *ps, const struct icmp_pkt *p,
			const struct raw_pkt *rp)
{
	struct wire_dgram dg;
	struct iovec iov[2];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	fill_dgram(&dg, p, rp);
	/* An emulated raw socket shows the IPv4 header: what the library
	 * cannot know otherwise (engine/rawhdr.h). */
	if (psraw_is(ps) && p->src.family == AF_INET && rp->len >= 12) {
		memcpy(&dg.ee_data, rp->data + 4, 4);
		memcpy(&dg.ee_info, rp->data + 8, 4);
	}
	iov[0].iov_base = &dg;
	iov[0].iov_len = sizeof(dg);
	iov[1].iov_base = (void *)p->icmp;
	iov[1].iov_len = p->icmplen;
	if (sendmsg(ds->h.fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		ds->drops++;	/* its queue is full: like a full rcvbuf */
		s->stats.dropped++;
		return false;
	}
	return true;
}

static void deliver_reply(struct server *s, const struct icmp_pkt *p,
			  const struct raw_pkt *rp)
{
	struct psock *ps = pstab_lookup(s->tab, p, rp->ifindex);
	struct dsock *ds;

	if (!ps) {
		s->stats.dropped++;	/* nobody asked: stray or forged */
		return;
	}
	ds = ps_owner(ps);
	if (!psraw_delivers(ps, p->type))
		return;		/* its ICMP_FILTER: not a drop */
	if (queue_dgram(s, ds, ps, p, rp)) {
		ds->replies++;
		s->stats.replies++;
	}
}

/*
 * Put a record on the socket's error queue.  The count goes up first, so
 * that a reader that takes the record at once never sees it below zero.
 */
static int queue_record(struct dsock *ds, const struct wire_dgram *dg,
			const void *data, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)dg, .iov_len = sizeof(*dg) },
		{ .iov_base = (void *)data, .iov_len = len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	atomic_fetch_add(&ds->shm->errq, 1);
	if (sendmsg(ds->err_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		atomic_fetch_sub(&ds->shm->errq, 1);
		ds->drops++;	/* a full error queue, as sock_queue_err_skb() */
		return -1;
	}
	return 0;
}

/* A pending error with no record: wake whoever polls for POLLERR. */
static void set_pending(struct dsock *ds, int err, bool wake)
{
	struct wire_dgram dg = { .kind = WIRE_DG_WAKE };

	atomic_store(&ds->shm->err, err);
	if (wake)
		send(ds->err_fd, &dg, sizeof(dg), MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* ping_err(): an ICMP error quoting one of this socket's requests. */
static void deliver_error(struct server *s, const struct icmp_pkt *p,
			  const struct raw_pkt *rp)
{
	struct psock *ps = pstab_lookup(s->tab, p, rp->ifindex);
	struct icmp_verdict v;
	struct wire_dgram dg;
	struct dsock *ds;

	if (!ps) {
		s->stats.dropped++;	/* for nobody, or forged */
		return;
	}
	ds = ps_owner(ps);
	/* An emulated raw socket receives the error itself, whole, as a
	 * raw socket does (psraw.h); then the error queue as for any. */
	if (psraw_is(ps) && psraw_delivers(ps, p->type))
		queue_dgram(s, ds, ps, p, rp);
	if (psraw_error_ignored(ps, p->type))
		return;
	if (p->src.family == AF_INET6 && p->type == 2)	/* Packet Too Big */
		ps_pmtu_changed(ps, &p->q_dst);
	if (p->src.family == AF_INET6 ?
		    !icmp6_error_verdict(p->type, p->code, p->info, &v) :
		    !icmp4_error_verdict(p->type, p->code, p->info,
					 ps_pmtudisc(ps), s->env->no_pmtu_disc,
					 &v))
		return;
	switch (ps_error_action(ps, v.hard)) {
	case PS_ERR_DROP:
		return;
	case PS_ERR_SET:
		count_error(s, ds);
		set_pending(ds, v.err, true);
		return;
	case PS_ERR_QUEUE:
		fill_dgram(&dg, p, rp);
		dg.kind = WIRE_DG_ERROR;
		memcpy(dg.src, p->q_dst.a, sizeof(dg.src));	/* msg_name */
		dg.src_scope = 0;
		dg.ee_errno = (uint32_t)v.err;
		dg.ee_origin = SO_EE_ORIGIN_ICMP;
		dg.ee_type = p->type;
		dg.ee_code = p->code;
		dg.ee_info = v.info;
		dg.offender_family = AF_INET;
		memcpy(dg.offender, p->src.a, sizeof(dg.offender));
		if (p->src.family == AF_INET6) {
			/* ipv6_recv_error(): scope ids of link-local
			 * addresses are the incoming interface. */
			dg.ee_origin = SO_EE_ORIGIN_ICMP6;
			dg.offender_family = AF_INET6;
			dg.src_scope = ps_addr_needs_scope(&p->q_dst) ? rp->ifindex : 0;
			dg.offender_scope = p->src.scope;
		}
		/* The pending error first: a reader woken by the record
		 * and taking it must find the error already there, or it
		 * would clear it before the daemon sets it. */
		count_error(s, ds);
		set_pending(ds, v.err, false);
		queue_record(ds, &dg, p->q_icmp, p->q_icmplen);
		return;
	}
}

/*
 * ip_local_error(): a send refused for its size under IP_PMTUDISC_DO (or
 * over 0xFFFF in all) also leaves a record, without data or offender.
 */
static void local_error(struct server *s, struct dsock *ds,
			const struct ps_sendinfo *info, int err)
{
	struct wire_dgram dg;
	struct timespec now;
	int mtu;

	if (err != -EMSGSIZE || !ps_local_errors(ds->ps))
		return;
	mtu = s->env->route_mtu(s->env->ctx, &info->dst, info->ifindex);
	/* ip6_append_data(): IPV6_MTU lowers the MTU a send must fit. */
	if (info->frag_size > 0 && (mtu <= 0 || info->frag_size < mtu))
		mtu = info->frag_size;
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_ERROR;
	dg.family = info->dst.family;
	memcpy(dg.src, info->dst.a, sizeof(dg.src));
	dg.src_scope = info->dst.scope;
	/* ipv6_local_error(): the port is the flow's, which for ICMPv6 is
	 * where the type and code sit. */
	if (dg.family == AF_INET6)
		dg.port = (uint16_t)(info->type << 8 | info->code);
	dg.ts_sec = now.tv_sec;
	dg.ts_nsec = now.tv_nsec;
	dg.ee_errno = EMSGSIZE;
	dg.ee_origin = SO_EE_ORIGIN_LOCAL;
	dg.ee_info = mtu > 0 ? (uint32_t)mtu : 0;
	queue_record(ds, &dg, NULL, 0);
}

static void on_packet(struct server *s, const struct raw_pkt *rp, int family)
{
	struct icmp_pkt p;
	enum icmp_parse_result res =
		family == AF_INET6 ? icmp6_parse(rp->data, rp->len, &rp->m6, &p)
				   : icmp4_parse(rp->data, rp->len, &p);

	if (res != ICMP_PARSE_OK) {
		s->stats.bad_packets++;
		return;
	}
	if (p.kind == ICMP_K_REPLY)
		deliver_reply(s, &p, rp);
	else if (p.kind == ICMP_K_ERROR)
		deliver_error(s, &p, rp);
}

static void drain_raw(struct server *s)
{
	struct raw_pkt pkts[RAW_BATCH];

	for (int b = 0; b < MAX_RAW_BATCHES; b++) {
		int n = raw_recv(s->conf.raw4, pkts, RAW_BATCH);

		for (int i = 0; i < n; i++)
			on_packet(s, &pkts[i], AF_INET);
		if (n < RAW_BATCH)
			break;
	}
}

static void drain_raw6(struct server *s)
{
	struct raw_pkt pkts[RAW_BATCH];

	for (int b = 0; s->conf.raw6 && b < MAX_RAW_BATCHES; b++) {
		int n = raw6_recv(s->conf.raw6, pkts, RAW_BATCH);

		for (int i = 0; i < n; i++)
			on_packet(s, &pkts[i], AF_INET6);
		if (n < RAW_BATCH)
			break;
	}
}

/* ---- requests ---- */

typedef void (*op_fn)(struct server *s, struct client *c, struct dsock *ds,
		      const struct wire_req *req, struct reply *r);

static bool gid_ok(const struct server *s, const struct client *c)
{
	return policy_gid_allowed(&s->conf.policy, c->gid, c->groups,
				  c->ngroups);
}

static void op_hello(struct server *s, struct client *c, struct dsock *ds,
		     const struct wire_req *req, struct reply *r)
{
	c->hello = req->u.version == WIRE_VERSION;
	r->result = c->hello ? 0 : -EPROTO;
	if (c->hello && c->foreign)
		r->result = WIRE_R_FOREIGN_NS;
}

/* A refusal by a limit: counted, and said at a bounded rate. */
static int refuse(struct server *s, const struct client *c, int err,
		  const char *why)
{
	s->stats.refused++;
	log_limited(LOGC_REFUSED, LOG_INFO, "refused socket: uid=%u pid=%d: "
		    "%s", (unsigned)c->uid, (int)c->pid, why);
	return err;
}

/* The policy and the shares before a socket is made: 0 or -errno. */
static int open_allowed(struct server *s, const struct client *c,
			bool broker, struct uident *u)
{
	unsigned need = broker ? FDS_BROKER : FDS_RELAY;

	if (!gid_ok(s, c))
		return refuse(s, c, -EACCES, "no group in range");
	if (s->conf.policy.max_sockets &&
	    at_limit(s, u, s->conf.policy.max_sockets))
		return refuse(s, c, -EMFILE, "max_sockets open");
	if (!uidtab_may_take(s->uids, u, UID_FDS, need, s->fd_budget))
		return refuse(s, c, -EMFILE, "the daemon's descriptors are "
			      "short and this user holds the most");
	if (broker && bsock_allowed(s, c->uid, false))
		return refuse(s, c, -EAGAIN, "max_idents held, or identifiers "
			      "short and this user holds the most");
	return 0;
}

static void open_answer(struct reply *r, const struct dsock *nds,
			uint32_t kind)
{
	uint32_t body[2] = { nds->handle, kind };

	memcpy(r->body, body, sizeof(body));
	r->len = sizeof(body);
}

static void op_open(struct server *s, struct client *c, struct dsock *ds,
		    const struct wire_req *req, struct reply *r)
{
	bool broker = brokered(s, c, req);
	struct uident *u = uidtab_get(s->uids, c->uid, true);
	struct dsock *nds;
	int cfd = -1;

	r->result = u ? open_allowed(s, c, broker, u) : -ENOMEM;
	if (r->result)
		return;
	if (broker) {
		r->result = bsock_new(s, c, req, &cfd, &r->fd2, &nds);
		if (r->result)
			return;
		open_answer(r, nds, WIRE_OPEN_BROKER);
		r->fd = cfd;
		return;
	}
	r->result = dsock_new(s, c, req, &cfd);
	if (r->result)
		return;
	raw_watch(s);
	u->nsockets++;
	nds = c->socks[c->nsocks - 1];
	open_answer(r, nds, 0);
	r->fd = cfd;
	r->shm_fd = nds->shm_fd;
	r->err_fd = nds->err_peer;
}

/*
 * A connection that did not open the socket (a forked child's, a process
 * the descriptor was passed to) uses it once it proves it holds it.
 */
static void op_attach(struct server *s, struct client *c, struct dsock *ds,
		      const struct wire_req *req, struct reply *r)
{
	uint32_t body[2];

	r->result = -EBADF;
	if (ds->broker || !proven(ds, req->nonce))
		return;
	if (link_pair(c, ds)) {
		r->result = -ENOMEM;
		return;
	}
	body[0] = ds->handle;
	body[1] = (uint32_t)ps_family(ds->ps);
	memcpy(r->body, body, sizeof(body));
	r->len = sizeof(body);
	r->shm_fd = ds->shm_fd;
	r->err_fd = ds->err_peer;
	r->result = 0;
}

static void op_detach(struct server *s, struct client *c, struct dsock *ds,
		      const struct wire_req *req, struct reply *r)
{
	unlink_pair(c, ds);
	r->result = 0;
}

static void op_bind(struct server *s, struct client *c, struct dsock *ds,
		    const struct wire_req *req, struct reply *r)
{
	r->result = ps_bind(s->tab, ds->ps, s->env, req->u.addr.bytes,
			    req->u.addr.len);
}

/* The address in the caller's sockaddr bytes, if it is one of the
 * socket's family (otherwise the call fails by itself). */
static bool sa_addr(int family, const uint8_t *sa, uint32_t len,
		    struct ps_addr *a)
{
	uint16_t fam;

	memset(a, 0, sizeof(*a));
	if (len < sizeof(fam))
		return false;
	memcpy(&fam, sa, sizeof(fam));
	if (fam != family)
		return false;
	a->family = (uint8_t)family;
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		memcpy(a->a, sa + offsetof(struct sockaddr_in, sin_addr), 4);
		return true;
	}
	if (family == AF_INET6 && len >= 24) {
		memcpy(a->a, sa + offsetof(struct sockaddr_in6, sin6_addr), 16);
		return true;
	}
	return false;
}

static void op_connect(struct server *s, struct client *c, struct dsock *ds,
		       const struct wire_req *req, struct reply *r)
{
	struct ps_addr dst;

	if (sa_addr(ps_family(ds->ps), req->u.addr.bytes, req->u.addr.len,
		    &dst) &&
	    !policy_dest_allowed(&s->conf.policy, &dst)) {
		r->result = -EACCES;	/* a refused destination network */
		return;
	}
	r->result = ps_connect(s->tab, ds->ps, s->env, req->u.addr.bytes,
			       req->u.addr.len);
}

/*
 * PINGSOCK_IDENT=keep: before its first send, bind the socket to the
 * identifier the program wrote, as bind() with that port would (so the
 * same-uid rule and "already bound: EINVAL" apply).  -EPERM when the
 * policy forbids it; the library then sends as without the variable.
 */
static void op_keepid(struct server *s, struct client *c, struct dsock *ds,
		      const struct wire_req *req, struct reply *r)
{
	struct ps_addr any = { .family = (uint8_t)ps_family(ds->ps) };
	uint8_t sa[sizeof(struct sockaddr_in6)];
	socklen_t len;

	if (!s->conf.policy.ident_keep) {
		r->result = -EPERM;
		return;
	}
	len = ps_addr_to_sockaddr(&any, (uint16_t)req->u.ident, sa);
	r->result = ps_bind(s->tab, ds->ps, s->env, sa, len);
}

/* Put a checked request on the wire; the send's result. */
static int32_t finish_send(struct server *s, struct dsock *ds,
			   const struct ps_sendinfo *info, const uint8_t *pkt,
			   uint32_t len)
{
	int err = info->dst.family == AF_INET6
			  ? raw6_send(s->conf.raw6, info, pkt, len)
			  : raw_send(s->conf.raw4, info, pkt, len);

	local_error(s, ds, info, err);
	if (err) {
		send_failed(s, ds, err);	/* with its record, if any */
		return err;
	}
	ps_sent(ds->ps, info, now_s());
	ds->sent++;
	destset_add(&ds->dests, &info->dst);
	ds->last_send_ns = mono_ns();
	s->stats.sent++;
	/* On loopback the reply is usually queued already: hand it over
	 * before answering, so the client wakes once, not twice. */
	if (info->dst.family == AF_INET6)
		drain_raw6(s);
	else
		drain_raw(s);
	return (int32_t)len;
}

static uint64_t interval_ns(const struct server *s)
{
	return (uint64_t)s->conf.policy.min_interval_ms * 1000000u;
}

/*
 * When this socket's next request may go (0: now): min_interval since
 * its last one, and its user's rate.
 */
static uint64_t due_at(const struct server *s, const struct dsock *ds,
		       const struct uident *u, uint64_t now)
{
	uint64_t due = 0, w;

	if (interval_ns(s) && ds->last_send_ns &&
	    now < ds->last_send_ns + interval_ns(s))
		due = ds->last_send_ns + interval_ns(s);
	w = u ? rate_wait(&u->bucket, now, s->conf.policy.rate,
			  s->conf.policy.burst) : 0;
	if (w && now + w > due)
		due = now + w;
	return due;
}

/*
 * The longest a send may be made to wait: the time of one burst at the
 * user's rate, or min_interval.  Past it the bucket's debt would grow
 * without bound (each waiting send reserves its slot): ENOBUFS, as a full
 * queue says.
 */
static uint64_t wait_max(const struct server *s)
{
	const struct policy *p = &s->conf.policy;
	uint64_t w = p->rate ? (uint64_t)p->burst * 1000000000u / p->rate : 0;

	return w > interval_ns(s) ? w : interval_ns(s);
}

/* Give back a parked send's bytes; free it. */
static void unpark(struct server *s, struct parked *p)
{
	struct uident *u = p ? uidtab_get(s->uids, p->uid, false) : NULL;

	if (u)
		u->parked -= u->parked < p->len ? u->parked : p->len;
	free(p);
}

static int park(struct server *s, struct client *c, struct dsock *ds,
		const struct ps_sendinfo *info, uint32_t len, uint64_t due)
{
	struct uident *u = uidtab_get(s->uids, ds->uid, true);
	struct epoll_event ev = { .events = 0, .data.ptr = &c->h };
	struct parked *p;

	/* The user's parked bytes are bounded (a connection parks one). */
	if (!u || u->parked + len > PARKED_MAX ||
	    !(p = malloc(sizeof(*p) + len)))
		return -1;
	u->parked += len;
	p->ds = ds;
	p->uid = ds->uid;
	p->info = *info;
	p->len = len;
	p->due_ns = due;
	memcpy(p->pkt, s->msgbuf, len);
	c->park = p;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->h.fd, &ev);
	return 0;
}

static void op_send(struct server *s, struct client *c, struct dsock *ds,
		    const struct wire_req *req, struct reply *r)
{
	const struct wire_req *q = req;
	struct ps_sendinfo info;
	uint32_t len = q->u.send.len;
	struct uident *u;
	uint64_t now, due;
	int err;

	if (len <= WIRE_DATA_MAX)
		memcpy(s->msgbuf, q->u.send.data, len);
	err = ps_send_prepare(s->tab, ds->ps, s->env, q->u.send.flags,
			      q->u.send.namelen == WIRE_NO_NAME ? NULL
								: q->u.send.name,
			      q->u.send.namelen, q->u.send.ctl,
			      q->u.send.ctllen, s->msgbuf,
			      len > WIRE_DATA_MAX ? WIRE_DATA_MAX + 1 : len,
			      &info);
	/* The policy, once the kernel's own checks have passed. */
	if (!err && len > s->conf.policy.max_request)
		err = -EMSGSIZE;
	if (!err && !policy_dest_allowed(&s->conf.policy, &info.dst))
		err = -EACCES;
	if (err)
		send_failed(s, ds, err);	/* audit (not a pending one) */
	/* The pending error (sk_err) is taken by the send, which then
	 * sends nothing; the client may have written anything there. */
	if (!err) {
		int pending = atomic_exchange(&ds->shm->err, 0);

		if (pending > 0 && pending < 4096)
			err = -pending;
	}
	if (err) {
		r->result = err;
		return;
	}
	u = uidtab_get(s->uids, ds->uid, true);
	now = mono_ns();
	due = due_at(s, ds, u, now);
	if (due && (q->u.send.flags & MSG_DONTWAIT)) {
		r->result = -EAGAIN;
		return;
	}
	if (due && due - now > wait_max(s)) {
		r->result = refuse(s, c, -ENOBUFS, "sends waiting past one "
				   "burst of the rate");
		return;
	}
	/* Its place in the user's rate is taken now, even if it waits. */
	if (u)
		rate_take(&u->bucket, now, s->conf.policy.rate,
			  s->conf.policy.burst);
	if (due) {
		if (park(s, c, ds, &info, len, due))
			r->result = refuse(s, c, -ENOBUFS, "parked sends' bytes");
		else
			r->deferred = true;
		return;
	}
	r->result = finish_send(s, ds, &info, s->msgbuf, len);
}

static void op_setopt(struct server *s, struct client *c, struct dsock *ds,
		      const struct wire_req *req, struct reply *r)
{
	uint32_t label;

	/* A flow label lease answers the label it chose (the kernel
	 * writes it into the caller's request). */
	if (req->u.opt.level == SOL_IPV6 &&
	    req->u.opt.name == PSD_IPV6_FLOWLABEL_MGR) {
		r->result = ps_flowlabel_opt(ds->ps, req->u.opt.val,
					     req->u.opt.len, &label);
		memcpy(r->body, &label, sizeof(label));
		r->len = r->result == 0 ? sizeof(label) : 0;
		return;
	}
	r->result = ps_setopt(ds->ps, s->env, req->u.opt.level, req->u.opt.name,
			      req->u.opt.val, req->u.opt.len);
	atomic_store(&ds->shm->cmsg, ps_cmsg_flags(ds->ps));
	atomic_store(&ds->shm->tsflags, ps_tsflags(ds->ps));
	if (r->result == 0 && req->u.opt.level == SOL_SOCKET &&
	    req->u.opt.name == SO_RCVBUF) {
		int v = ps_rcvbuf(ds->ps);

		/* Our end's send buffer is what bounds the client's queue. */
		setsockopt(ds->h.fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
	}
}

static void op_getopt(struct server *s, struct client *c, struct dsock *ds,
		      const struct wire_req *req, struct reply *r)
{
	uint32_t len = req->u.opt.len;

	r->result = ps_getopt(ds->ps, s->env, req->u.opt.level,
			      req->u.opt.name, r->body, &len);
	if (r->result == 0)
		r->len = len;
}

static void op_getname(struct server *s, struct client *c, struct dsock *ds,
		       const struct wire_req *req, struct reply *r)
{
	int n = ps_getname(ds->ps, req->type == WIRE_GETPEER, r->body);

	if (n < 0) {
		r->result = n;
		return;
	}
	r->len = (size_t)n;
	r->result = 0;
}

static void op_shutdown(struct server *s, struct client *c, struct dsock *ds,
			const struct wire_req *req, struct reply *r)
{
	r->result = ps_shutdown(ds->ps, req->u.how);
	atomic_store(&ds->shm->shutdown, ps_shutdown_mask(ds->ps));
}

static void op_stats(struct server *s, struct client *c, struct dsock *ds,
		     const struct wire_req *req, struct reply *r)
{
	struct wire_stats st = s->stats;
	unsigned n = 0;

	for (struct client *x = s->clients; x; x = x->next)
		n++;
	st.clients = n;
	st.sockets = pstab_sockets(s->tab);
	st.idents = pstab_idents(s->tab);
	memcpy(r->body, &st, sizeof(st));
	r->len = sizeof(st);
	r->result = 0;
}

/*
 * The live socket table, a page from the cursor (a slot index) on: all
 * sockets for root (SO_PEERCRED uid 0), the caller's own uid's for anyone
 * else.  The header's totals are for everyone, as WIRE_STATS is.
 */
static void op_table(struct server *s, struct client *c, struct dsock *ds,
		     const struct wire_req *req, struct reply *r)
{
	static uint8_t page[WIRE_RESP_BODY_MAX];
	struct wire_table_hdr h = { .opened = s->audit.opened,
				    .errors = s->audit.errors };
	bool all = c->uid == 0;
	uint64_t now = mono_ns();
	size_t off = sizeof(h);

	if (all)
		h.flags |= WIRE_TABLE_ALL;
	for (uint32_t i = req->u.cursor ? req->u.cursor : 1; i < s->nslots;
	     i++) {
		const struct dsock *d = s->slots[i].ds;
		struct wire_table_entry e;

		if (!d || (!all && d->uid != c->uid))
			continue;
		if (h.count == WIRE_TABLE_PAGE) {
			h.next = i;
			break;
		}
		memset(&e, 0, sizeof(e));
		e.handle = d->handle;
		e.uid = (uint32_t)d->uid;
		e.pid = (int32_t)d->pid;
		e.family = (uint8_t)ds_family(d);
		e.flags = d->dests.capped ? WIRE_TE_DEST_CAPPED : 0;
		if (d->broker)
			e.flags |= WIRE_TE_BROKER;
		e.ident = ds_ident(d);
		e.destinations = d->dests.n;
		e.clients = (uint32_t)d->nclients;
		e.requests = d->sent;
		e.replies = d->replies;
		e.errors = d->errors;
		e.drops = d->drops;
		e.age_ms = (now - d->opened_ns) / 1000000u;
		memcpy(page + off, &e, sizeof(e));
		off += sizeof(e);
		h.count++;
	}
	memcpy(page, &h, sizeof(h));
	r->ext = page;
	r->len = off;
	r->result = 0;
}

/* Which requests are allowed when (OpenSSH's monitor table). */
struct op {
	op_fn fn;
	bool before_hello;	/* allowed (only) as the first message */
	bool needs_sock;	/* names an attached socket by handle */
	bool proves;		/* names any socket, whose holding it proves */
};

static const struct op ops[WIRE_TYPE_END] = {
	[WIRE_HELLO] = { op_hello, true, false, false },
	[WIRE_OPEN] = { op_open, false, false, false },
	[WIRE_ATTACH] = { op_attach, false, false, true },
	[WIRE_DETACH] = { op_detach, false, true, false },
	[WIRE_BIND] = { op_bind, false, true, false },
	[WIRE_CONNECT] = { op_connect, false, true, false },
	[WIRE_SEND] = { op_send, false, true, false },
	[WIRE_SETOPT] = { op_setopt, false, true, false },
	[WIRE_GETOPT] = { op_getopt, false, true, false },
	[WIRE_GETNAME] = { op_getname, false, true, false },
	[WIRE_GETPEER] = { op_getname, false, true, false },
	[WIRE_SHUTDOWN] = { op_shutdown, false, true, false },
	[WIRE_STATS] = { op_stats, false, false, false },
	[WIRE_KEEPID] = { op_keepid, false, true, false },
	[WIRE_TABLE] = { op_table, false, false, false },
	[WIRE_BROKER_BIND] = { op_broker_bind, false, false, true },
};

static int send_reply(struct client *c, uint16_t type, const struct reply *r)
{
	uint8_t hdr[WIRE_RESP_HDR];
	uint16_t zero = 0;
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)(r->ext ? r->ext : r->body),
		  .iov_len = r->len },
	};
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(4 * sizeof(int))];
	} cbuf;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int fds[4], nfds = 0;

	memcpy(hdr, &type, 2);
	memcpy(hdr + 2, &zero, 2);
	memcpy(hdr + 4, &r->result, 4);
	if (r->fd >= 0)
		fds[nfds++] = r->fd;
	if (r->shm_fd >= 0)
		fds[nfds++] = r->shm_fd;
	if (r->err_fd >= 0)
		fds[nfds++] = r->err_fd;
	if (r->fd2 >= 0)
		fds[nfds++] = r->fd2;
	if (nfds) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	/* A client waits for each answer: a full queue means it is not
	 * following the protocol. */
	return sendmsg(c->h.fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/*
 * Check a decoded request against the table and the client's state, and
 * run it.  Returns -1 when the client must be disconnected for what it
 * asked, DISPATCH_STUCK when its answer could not be queued.
 */
#define DISPATCH_STUCK (-2)
static int dispatch(struct server *s, struct client *c,
		    const struct wire_req *req)
{
	const struct op *op = req->type < WIRE_TYPE_END ? &ops[req->type] : NULL;
	struct reply r = { .fd = -1, .shm_fd = -1, .err_fd = -1,
			   .fd2 = -1 };
	struct dsock *ds = NULL;
	int rc;

	/* A client of another namespace is told so at HELLO (op_hello),
	 * and served nothing after it. */
	if (!op || !op->fn || op->before_hello == c->hello ||
	    (c->foreign && req->type != WIRE_HELLO))
		return -1;
	if (op->needs_sock || op->proves) {
		ds = slot_get(s, req->handle);
		if (!ds)
			r.result = -EBADF;
		else if (op->needs_sock &&
			 !ptrset_has((void *const *)ds->clients, ds->nclients, c))
			r.result = WIRE_R_UNATTACHED;
		if (!ds || r.result)
			return send_reply(c, req->type, &r) ? DISPATCH_STUCK : 0;
	}
	op->fn(s, c, ds, req, &r);
	if (r.deferred)
		return 0;
	rc = send_reply(c, req->type, &r) ? DISPATCH_STUCK : 0;
	if (r.fd >= 0)
		close(r.fd);
	if (r.fd2 >= 0)
		close(r.fd2);
	return rc;
}

/* Send what is due, answer its client, read that client again. */
static void fire_parked(struct server *s)
{
	uint64_t now = mono_ns();
	struct client *c, *next;

	for (c = s->clients; c; c = next) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &c->h };
		struct reply r = { .fd = -1, .shm_fd = -1, .err_fd = -1,
			   .fd2 = -1 };
		struct parked *p = c->park;

		next = c->next;
		if (!p || p->due_ns > now)
			continue;
		r.result = p->ds ? finish_send(s, p->ds, &p->info, p->pkt, p->len)
				 : -EBADF;
		c->park = NULL;
		unpark(s, p);
		epoll_ctl(s->ep, EPOLL_CTL_MOD, c->h.fd, &ev);
		if (send_reply(c, WIRE_SEND, &r))
			client_free(s, c);
	}
}

/* Milliseconds until the next parked send is due (at most max). */
static int parked_timeout(const struct server *s, int max)
{
	uint64_t now = mono_ns(), first = UINT64_MAX;

	for (const struct client *c = s->clients; c; c = c->next)
		if (c->park && c->park->due_ns < first)
			first = c->park->due_ns;
	if (!s->listen_on && s->listen_resume_ns < first)
		first = s->listen_resume_ns;
	if (s->scan_due_ns && s->scan_due_ns < first)
		first = s->scan_due_ns;
	if (first == UINT64_MAX)
		return max;
	if (first <= now)
		return 0;
	return (first - now) / 1000000u + 1 < (uint64_t)max
		       ? (int)((first - now) / 1000000u + 1)
		       : max;
}

/* A connection of uid's is gone: its place and descriptor given back. */
static void conn_release(struct server *s, uid_t uid)
{
	struct uident *u = uidtab_get(s->uids, uid, false);

	if (u) {
		u->conns -= u->conns ? 1 : 0;
		uidtab_add(s->uids, u, UID_FDS, -FDS_CONN);
	}
}

static void client_free(struct server *s, struct client *c)
{
	unpark(s, c->park);
	while (c->nsocks)
		unlink_pair(c, c->socks[0]);
	free(c->socks);
	free(c->groups);
	if (s->clients == c)
		s->clients = c->next;
	else if (c->prev)
		c->prev->next = c->next;
	if (c->next)
		c->next->prev = c->prev;
	conn_release(s, c->uid);
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->h.fd, NULL);
	closer_close_socket(c->h.fd, c->uid);	/* and what it queued */
	free(c);
}

static void protocol_error(struct server *s, struct client *c, const char *why)
{
	s->stats.proto_errors++;
	log_limited(LOGC_PROTOCOL, LOG_WARNING, "disconnecting uid=%u pid=%d: "
		    "%s", (unsigned)c->uid, (int)c->pid, why);
	client_free(s, c);
}

static void on_client(struct server *s, struct client *c, uint32_t events)
{
	/* A client whose send is parked is not read (park() asks for no
	 * event), but epoll reports its hang-up all the same: it is gone,
	 * and its send with it.  Reading on would take its next request
	 * and park that one over the first, which would leak. */
	if (c->park) {
		client_free(s, c);
		return;
	}
	for (int i = 0; i < MAX_REQS_PER_WAKE; i++) {
		struct iovec iov = { .iov_base = s->reqbuf,
				     .iov_len = WIRE_MSG_MAX };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct wire_req req;
		unsigned passed;
		ssize_t n = closer_recv(c->h.fd, c->uid, &mh, &passed);
		int rc;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			client_free(s, c);	/* gone */
			return;
		}
		/* No request carries a descriptor (wire.h). */
		if (passed || (mh.msg_flags & MSG_TRUNC) ||
		    wire_decode_req(s->reqbuf, (size_t)n, &req)) {
			protocol_error(s, c, passed ? "passed a descriptor"
						    : "malformed request");
			return;
		}
		rc = dispatch(s, c, &req);
		if (rc) {
			protocol_error(s, c, rc == DISPATCH_STUCK
				       ? "not reading its answers"
				       : c->foreign ? "another network namespace"
				       : req.type < WIRE_TYPE_END && c->hello
				       ? "request not allowed now" : "bad request");
			return;
		}
	}
	(void)events;
}

/* SO_PEERGROUPS, growing the buffer until it fits. */
static int peer_groups(int fd, struct client *c)
{
	socklen_t len = 64 * sizeof(gid_t);

	for (;;) {
		gid_t *g = realloc(c->groups, len ? len : sizeof(gid_t));

		if (!g)
			return -1;
		c->groups = g;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
			c->ngroups = len / sizeof(gid_t);
			return 0;
		}
		if (errno != ERANGE || len > MAX_GROUPS * sizeof(gid_t))
			return -1;
	}
}

/*
 * The network namespace the client's socket was made in (the accepted
 * end is made in the connecting socket's): a cookie the client cannot
 * choose.  Unknown is foreign (fail closed).
 */
static bool foreign_ns(const struct server *s, int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

	return getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) ||
	       cookie != s->netns;
}

/* The user's connections past max_connections, or the descriptors short
 * and this user holding the most: refused (closed at once). */
static bool conn_refused(struct server *s, const struct client *c)
{
	struct uident *u = uidtab_get(s->uids, c->uid, true);
	uint32_t max = s->conf.policy.max_connections;

	if (u && (!max || u->conns < max) &&
	    uidtab_may_take(s->uids, u, UID_FDS, FDS_CONN, s->fd_budget)) {
		u->conns++;
		uidtab_add(s->uids, u, UID_FDS, FDS_CONN);
		return false;
	}
	s->stats.refused++;
	log_limited(LOGC_REFUSED, LOG_INFO, "refused connection: uid=%u "
		    "pid=%d: %s", (unsigned)c->uid, (int)c->pid,
		    !u ? "no memory" : max && u->conns >= max
		    ? "max_connections" : "the daemon's descriptors are short "
		    "and this user holds the most");
	return true;
}

/* A new connection: its credentials, its namespace, the user's share. */
static struct client *client_new(struct server *s, int fd)
{
	struct client *c = calloc(1, sizeof(*c));
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (!c || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) ||
	    peer_groups(fd, c)) {
		log_limited(LOGC_ACCEPT, LOG_WARNING, "new client: %s",
			    strerror(errno));
		goto fail;
	}
	c->h.kind = H_CLIENT;
	c->h.fd = fd;
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->pid = cred.pid;
	c->foreign = foreign_ns(s, fd);
	if (c->foreign) {
		s->stats.refused_netns++;
		log_limited(LOGC_REFUSED, LOG_INFO, "refused client: uid=%u "
			    "pid=%d: in another network namespace",
			    (unsigned)c->uid, (int)c->pid);
	}
	if (conn_refused(s, c))
		goto fail;
	if (ep_add(s, &c->h, EPOLLIN) == 0)
		return c;
	conn_release(s, c->uid);
fail:
	closer_close_socket(fd, c ? c->uid : (uid_t)-1);
	if (c)
		free(c->groups);
	free(c);
	return NULL;
}

/* accept() ran out of descriptors: stop listening for a while, rather
 * than be woken for the same connection again and again. */
static void pause_listening(struct server *s)
{
	if (epoll_ctl(s->ep, EPOLL_CTL_DEL, s->listen.fd, NULL) == 0)
		s->listen_on = false;
	s->listen_resume_ns = mono_ns() + ACCEPT_PAUSE_NS;
}

static void resume_listening(struct server *s)
{
	if (s->listen_on || mono_ns() < s->listen_resume_ns)
		return;
	if (ep_add(s, &s->listen, EPOLLIN) == 0)
		s->listen_on = true;
}

static void on_listen(struct server *s)
{
	for (int i = 0; i < 64; i++) {
		int fd = accept4(s->listen.fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c;

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				pause_listening(s);
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_limited(LOGC_ACCEPT, LOG_WARNING,
					    "accept: %s", strerror(errno));
			return;
		}
		c = client_new(s, fd);
		if (!c)
			continue;
		c->next = s->clients;
		if (s->clients)
			s->clients->prev = c;
		s->clients = c;
	}
}

/* ---- configuration and signals ---- */

int server_load_config(const char *path, bool strict, struct policy *p,
		       char *err, size_t errlen)
{
	FILE *f = sandbox_fopen_config(path, strict, err, errlen);
	char *text = NULL;
	size_t cap = 0, len = 0;
	int rc;

	if (!f)
		return -1;
	for (;;) {
		if (len == cap) {
			char *t;

			cap = cap ? cap * 2 : 4096;
			t = cap > (1 << 20) ? NULL : realloc(text, cap);
			if (!t) {
				snprintf(err, errlen, "%s: too large", path);
				free(text);
				fclose(f);
				return -1;
			}
			text = t;
		}
		size_t n = fread(text + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	rc = policy_parse(p, text, len, path, err, errlen);
	free(text);
	return rc;
}

static void reload(struct server *s)
{
	struct policy p;
	char err[512];

	if (!s->conf.config_path) {
		log_info("SIGHUP: no --config, nothing to reload");
		return;
	}
	if (server_load_config(s->conf.config_path, true, &p, err,
			       sizeof(err))) {
		log_err("reload refused, keeping the old policy: %s", err);
		return;
	}
	s->conf.policy = p;
	pstab_allow_raw(s->tab, p.raw_compat);
	log_info("reloaded %s", s->conf.config_path);
}

static void on_signal(struct server *s)
{
	struct signalfd_siginfo si;

	while (read(s->sig.fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(s);
		else
			s->stop = true;
	}
}

static int ino_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* Read /proc/net/icmp and icmp6: the identifiers of the kernel's sockets
 * for relay's automatic binding, and which of ours still exist. */
static bool read_kernel(struct server *s, unsigned long **inos, size_t *n)
{
	static uint8_t bitmap[65536 / 8];
	struct hostenv_scan sc = { .bitmap = bitmap,
				   .owner = (uint32_t)s->conf.self_uid };
	bool ok = true;

	sc.cap = s->nbroker + 64;	/* ours, and some made meanwhile */
	sc.inos = s->nbroker ? calloc(sc.cap, sizeof(*sc.inos)) : NULL;
	for (int f = 0; f < 2; f++) {
		int family = f ? AF_INET6 : AF_INET;

		if (hostenv_kernel_scan(s->conf.host, family, &sc) == 0)
			pstab_set_foreign(s->tab, family, bitmap);
		else
			ok = false;
	}
	if (sc.overflow || (s->nbroker && !sc.inos))
		ok = false;	/* not all seen: none may be declared gone */
	if (sc.inos)
		qsort(sc.inos, sc.n, sizeof(*sc.inos), ino_cmp);
	*inos = sc.inos;
	*n = sc.n;
	return ok;
}

/* Is the kernel socket still there? */
static bool ino_listed(unsigned long ino, const unsigned long *inos, size_t n)
{
	return bsearch(&ino, inos, n, sizeof(*inos), ino_cmp) != NULL;
}

/*
 * Broker sockets are counted for as long as they exist, whoever holds
 * them (a child, another process, a copy kept across a bind): the kernel
 * lists each of its ping sockets in /proc/net/icmp until the last copy is
 * closed.  A record goes when its sockets are gone and its liveness pair
 * hung up; only then is it closed in the audit.
 */
static void scan_kernel(struct server *s)
{
	unsigned long *inos = NULL;
	size_t n = 0;
	bool complete = read_kernel(s, &inos, &n);

	s->last_scan_ns = mono_ns();
	s->scan_due_ns = 0;
	for (uint32_t i = 1; complete && i < s->nslots; i++) {
		struct dsock *d = s->slots[i].ds;

		if (!d || !d->broker)
			continue;
		for (int k = 0; k < 2; k++)
			if (d->k[k].ino && !ino_listed(d->k[k].ino, inos, n))
				bsock_drop(s, d, k);
		if (d->live_gone && !d->k[0].ino && !d->k[1].ino)
			dsock_free(s, d);
	}
	free(inos);
}

static void tick(struct server *s)
{
	time_t now = (time_t)now_s();
	uint64_t ns = mono_ns();

	resume_listening(s);
	if (s->scan_due_ns && ns >= s->scan_due_ns) {
		if (scan_allowed(s, ns))
			scan_kernel(s);
		else
			s->scan_due_ns = ns + rate_wait(&s->scans, ns,
							SCANS_PER_S,
							SCANS_BURST);
	}
	if (now < s->next_tick)
		return;
	s->next_tick = now + 1;
	uidtab_prune(s->uids, ns);
	scan_kernel(s);
	closer_collect();
}

/* ---- the loop ---- */

/* Descriptors a client passed, waiting for the closing thread, count in
 * its user's share of the daemon's (closer.h). */
static void fd_charge(void *ctx, uid_t owner, int n)
{
	fds_add(ctx, owner, n);
}

/* The identifier gate of the engine (pstab_set_gate()): max_idents, and
 * the share of those left when they run short. */
static bool ident_gate(void *ctx, uint32_t uid, int delta)
{
	struct server *s = ctx;
	uint32_t max = s->conf.policy.max_idents;
	struct uident *u = uidtab_get(s->uids, uid, true);

	if (!u)
		return false;
	if (delta) {
		uidtab_add(s->uids, u, UID_IDENTS, delta);
		return true;
	}
	return (!max || u->idents < max) &&
	       uidtab_may_take(s->uids, u, UID_IDENTS, 1, 65535);
}

/*
 * What keeps one client from harming others: no descriptor accepted from
 * any (closer.h), clients of this namespace only, a budget of
 * descriptors shared fairly, identifiers shared fairly.
 */
static int setup_guards(struct server *s)
{
	socklen_t len = sizeof(s->netns);
	unsigned long lim = s->conf.nofile ? s->conf.nofile : 1024;

	if (closer_guard(s->listen.fd) != 0) {
		log_err("refusing descriptors on the listening socket: %s",
			strerror(errno));
		return -1;
	}
	if (getsockopt(s->raw.fd, SOL_SOCKET, SO_NETNS_COOKIE, &s->netns,
		       &len) != 0) {
		log_err("SO_NETNS_COOKIE: %s: without it (Linux 5.14) the "
			"daemon cannot tell which clients share its network "
			"namespace", strerror(errno));
		return -1;
	}
	if (lim > UINT32_MAX / 2)
		lim = UINT32_MAX / 2;
	s->fd_budget = lim > 2ul * FD_RESERVE ? (unsigned)lim - FD_RESERVE
					      : (unsigned)lim / 2;
	log_info("descriptor limit %lu: room for %u relayed sockets or %u "
		 "broker sockets (and a connection each)", lim,
		 s->fd_budget / (FDS_RELAY + FDS_CONN),
		 s->fd_budget / (FDS_BROKER + FDS_CONN));
	pstab_set_gate(s->tab, ident_gate, s);
	closer_charge(fd_charge, s);
	s->brover[0] = (uint16_t)(getpid() * 7919u ^ (unsigned)time(NULL));
	s->brover[1] = (uint16_t)(s->brover[0] * 31u + 17u);
	return 0;
}

static int setup(struct server *s, struct server_conf *conf)
{
	sigset_t set;

	memset(s, 0, sizeof(*s));
	s->conf = *conf;
	s->env = hostenv_env(conf->host);
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	s->tab = pstab_new((uint16_t)(getpid() ^ time(NULL)));
	if (s->tab)
		pstab_allow_raw(s->tab, conf->policy.raw_compat);
	s->uids = uidtab_new();
	s->reqbuf = malloc(WIRE_MSG_MAX);
	s->msgbuf = malloc(WIRE_DATA_MAX + 1);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sig.kind = H_SIGNAL;
	s->sig.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	s->listen.kind = H_LISTEN;
	s->listen.fd = conf->listen_fd;
	s->raw.kind = H_RAW;
	s->raw.fd = raw_fd(conf->raw4);
	s->raw6.kind = H_RAW6;
	s->raw6.fd = conf->raw6 ? raw6_fd(conf->raw6) : -1;
	if (s->ep < 0 || !s->tab || !s->uids || !s->reqbuf || !s->msgbuf || s->sig.fd < 0 ||
	    ep_add(s, &s->listen, EPOLLIN) || ep_add(s, &s->raw, EPOLLIN) ||
	    (conf->raw6 && ep_add(s, &s->raw6, EPOLLIN)) ||
	    ep_add(s, &s->sig, EPOLLIN)) {
		log_err("event loop set-up: %s", strerror(errno));
		return -1;
	}
	s->raw_on = true;
	s->raw6_on = conf->raw6 != NULL;
	s->listen_on = true;
	raw_watch(s);
	return setup_guards(s);
}

static void teardown(struct server *s)
{
	while (s->clients)
		client_free(s, s->clients);
	for (uint32_t i = 1; i < s->nslots; i++)
		if (s->slots[i].ds)
			dsock_free(s, s->slots[i].ds);
	free(s->slots);
	pstab_free(s->tab);
	uidtab_free(s->uids);
	if (s->conf.socket_path)
		listener_remove(s->conf.socket_path);
	closer_close(s->listen.fd);	/* connections not yet accepted */
	if (s->sig.fd >= 0)
		close(s->sig.fd);
	if (s->ep >= 0)
		close(s->ep);
	raw_close(s->conf.raw4);
	raw6_close(s->conf.raw6);
	hostenv_close(s->conf.host);
	free(s->reqbuf);
	free(s->msgbuf);
	closer_stop();
}

static void handle_event(struct server *s, struct epoll_event *ev)
{
	struct handler *h = ev->data.ptr;

	switch (h->kind) {
	case H_LISTEN:
		on_listen(s);
		break;
	case H_CLIENT:
		on_client(s, (struct client *)h, ev->events);
		break;
	case H_DATA:
		on_data(s, (struct dsock *)h, ev->events);
		break;
	case H_RAW:
		drain_raw(s);
		break;
	case H_RAW6:
		drain_raw6(s);
		break;
	case H_SIGNAL:
		on_signal(s);
		break;
	}
}

int server_run(struct server_conf *conf)
{
	struct server s;
	struct epoll_event evs[64];
	uint64_t spin_until = 0;
	int status = 0;

	if (setup(&s, conf)) {
		teardown(&s);
		return 1;
	}
	log_info("ready on %s", conf->socket_path);
	while (!s.stop) {
		int n = epoll_wait(s.ep, evs, 64, 0);

		/* Busy clients send their next request within microseconds:
		 * look again for a short while (LOOP_SPIN_NS) before sleeping,
		 * since a wake-up costs more than that here. */
		if (n == 0 && !spin_until)
			spin_until = mono_ns() + LOOP_SPIN_NS;
		if (n == 0 && mono_ns() < spin_until)
			continue;
		if (n == 0)
			n = epoll_wait(s.ep, evs, 64, parked_timeout(&s, 1000));
		spin_until = 0;

		if (n < 0 && errno != EINTR) {
			log_err("epoll_wait: %s", strerror(errno));
			status = 1;
			break;
		}
		for (int i = 0; i < n; i++)
			handle_event(&s, &evs[i]);
		fire_parked(&s);
		tick(&s);
	}
	log_info("stopping");
	teardown(&s);
	return status;
}

#ifdef PSD_FUZZ
/*
 * The fuzzing harness's way in (tests/fuzz/fuzz_dispatch.c): the server
 * as server_run() sets it up, a connection made from a descriptor the
 * harness holds the other end of, one turn of the loop without sleeping,
 * and the teardown.
 */
struct server *server_fuzz_new(struct server_conf *conf)
{
	struct server *s = malloc(sizeof(*s));

	if (s && setup(s, conf)) {
		teardown(s);
		free(s);
		return NULL;
	}
	return s;
}

int server_fuzz_connect(struct server *s, int fd)
{
	struct client *c = client_new(s, fd);

	if (!c)
		return -1;
	c->next = s->clients;
	if (s->clients)
		s->clients->prev = c;
	s->clients = c;
	return 0;
}

void server_fuzz_turn(struct server *s)
{
	struct epoll_event evs[64];
	int n = epoll_wait(s->ep, evs, 64, 0);

	for (int i = 0; i < n; i++)
		handle_event(s, &evs[i]);
	fire_parked(s);
	tick(s);
}

void server_fuzz_free(struct server *s)
{
	teardown(s);
	free(s);
}
#endif
