/* SPDX-License-Identifier: ISC */
/*
 * fake_host - the host as pingsockd sees it, for fuzz_dispatch.c: every
 * function the daemon's server.c calls that needs privilege, the host's
 * network or files, implemented with unprivileged descriptors and a
 * little state.  Each fake says what it stands for.  Nothing here
 * decides what the daemon does; it only answers as the kernel would, in
 * the simplest way that lets the daemon's own paths run.
 */
#include "fake_host.h"

#include <poll.h>
#include <sanitizer/asan_interface.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/broker.h"
#include "daemon/listener.h"
#include "daemon/sandbox.h"
#include "fuzz_common.h"

#define PKT_MAX 3600		/* bytes of one packet from the network */
#define BSOCK_MAX 64		/* kernel sockets of broker mode alive */
#define FOREIGN_MAX 8		/* other users' kernel ping identifiers */

/* ---- the raw ICMP sockets (raw.h) ----
 *
 * A raw socket stands here as the daemon's end of a SOCK_DGRAM
 * socketpair: the harness writes each packet "from the network" into the
 * far end as [struct fake_meta][bytes], so that epoll, the daemon's drain
 * of stale packets (watch_one) and raw_recv() see a real queue.  Sends
 * go nowhere: the last one is kept for the harness to answer.
 */
struct fake_raw {
	int fd, far;
	int family;
	bool on;		/* raw_listen(): the ICMP filter passes */
	uint8_t (*store)[sizeof(struct fake_meta) + PKT_MAX];
	struct fake_sent last;
	bool has_last;
};

struct raw {
	struct fake_raw k;
};

struct raw6 {
	struct fake_raw k;
};

static struct fake_raw *raws[2];	/* [0] IPv4, [1] IPv6 */
/* What raw_recv() hands out, until the next call. */
static uint8_t stores[2][RAW_BATCH][sizeof(struct fake_meta) + PKT_MAX];
static int send_fail;
static unsigned nsends;
static void (*send_hook)(int family);

static int fam_idx(int family)
{
	return family == AF_INET6;
}

/* The socketpairs stay from one input to the next (a socketpair fewer to
 * make and close each time); raw_close() empties them. */
static int pairs[2][2] = { { -1, -1 }, { -1, -1 } };

static int raw_init(struct fake_raw *k, int family)
{
	int *sv = pairs[fam_idx(family)];

	if (sv[0] < 0 && socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
				    SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	k->store = stores[fam_idx(family)];
	k->fd = sv[0];
	k->far = sv[1];
	k->family = family;
	k->on = true;
	raws[fam_idx(family)] = k;
	return 0;
}

static void raw_fini(struct fake_raw *k)
{
	while (recv(k->fd, k->store[0], sizeof(k->store[0]), MSG_DONTWAIT) >= 0)
		;
	if (raws[fam_idx(k->family)] == k)
		raws[fam_idx(k->family)] = NULL;
}

struct raw *fake_raw_new(void)
{
	struct raw *r = calloc(1, sizeof(*r));

	if (r && raw_init(&r->k, AF_INET)) {
		free(r);
		return NULL;
	}
	return r;
}

struct raw6 *fake_raw6_new(void)
{
	struct raw6 *r = calloc(1, sizeof(*r));

	if (r && raw_init(&r->k, AF_INET6)) {
		free(r);
		return NULL;
	}
	return r;
}

int fake_inject(int family, const struct fake_meta *m, const uint8_t *pkt,
		size_t len)
{
	struct fake_raw *k = raws[fam_idx(family)];
	struct iovec iov[2] = {
		{ .iov_base = (void *)m, .iov_len = sizeof(*m) },
		{ .iov_base = (void *)pkt, .iov_len = len < PKT_MAX ? len : PKT_MAX },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	/* The filter off: the kernel does not queue it at all. */
	if (!k || !k->on || sendmsg(k->far, &mh, MSG_DONTWAIT) < 0)
		return -1;
	return 0;
}

static int k_recv(struct fake_raw *k, struct raw_pkt *pkts, int max)
{
	int n = 0;

	if (max > RAW_BATCH)
		max = RAW_BATCH;
	while (n < max) {
		struct fake_meta m;
		ssize_t got = recv(k->fd, k->store[n], sizeof(k->store[n]),
				   MSG_DONTWAIT);

		if (got < 0)
			return n ? n : (errno == EAGAIN ? 0 : -errno);
		if ((size_t)got < sizeof(m))
			continue;	/* not from fake_inject: dropped */
		memcpy(&m, k->store[n], sizeof(m));
		memset(&pkts[n], 0, sizeof(pkts[n]));
		pkts[n].data = k->store[n] + sizeof(m);
		pkts[n].len = (size_t)got - sizeof(m);
		pkts[n].ifindex = m.ifindex;
		pkts[n].m6 = m.m6;
		clock_gettime(CLOCK_REALTIME, &pkts[n].stamp);
		n++;
	}
	return n;
}

static int k_send(struct fake_raw *k, const struct ps_sendinfo *info,
		  const uint8_t *msg, size_t len)
{
	int err = send_fail;

	send_fail = 0;
	if (err)
		return err;
	k->last.info = *info;
	k->last.len = len < FAKE_SENT_MAX ? len : FAKE_SENT_MAX;
	memcpy(k->last.msg, msg, k->last.len);
	k->has_last = true;
	nsends++;
	if (send_hook)
		send_hook(k->family);
	return 0;
}

void raw_close(struct raw *r)
{
	if (r) {
		raw_fini(&r->k);
		free(r);
	}
}

void raw6_close(struct raw6 *r)
{
	if (r) {
		raw_fini(&r->k);
		free(r);
	}
}

int raw_fd(const struct raw *r)
{
	return r->k.fd;
}

int raw6_fd(const struct raw6 *r)
{
	return r->k.fd;
}

int raw_listen(struct raw *r, bool on)
{
	r->k.on = on;
	return 0;
}

int raw6_listen(struct raw6 *r, bool on)
{
	r->k.on = on;
	return 0;
}

int raw_send(struct raw *r, const struct ps_sendinfo *info,
	     const uint8_t *msg, size_t len)
{
	return k_send(&r->k, info, msg, len);
}

int raw6_send(struct raw6 *r, const struct ps_sendinfo *info,
	      const uint8_t *msg, size_t len)
{
	return k_send(&r->k, info, msg, len);
}

int raw_recv(struct raw *r, struct raw_pkt *pkts, int max)
{
	return k_recv(&r->k, pkts, max);
}

int raw6_recv(struct raw6 *r, struct raw_pkt *pkts, int max)
{
	return k_recv(&r->k, pkts, max);
}

bool fake_last_sent(int family, struct fake_sent *out)
{
	struct fake_raw *k = raws[fam_idx(family)];

	if (!k || !k->has_last)
		return false;
	*out = k->last;
	return true;
}

void fake_raw_fail_next(int err)
{
	send_fail = err;
}

void fake_on_send(void (*fn)(int family))
{
	send_hook = fn;
}

unsigned fake_sends(void)
{
	return nsends;
}

/* ---- the host's routes and addresses (hostenv.h) ----
 *
 * A host on which every unicast address is its own (bind() to anything
 * works, as with loopback), but for 192.0.2.0/24 and 2001:db8:2::/48,
 * someone else's; 198.18.0.0/15 and 2001:db8:3::/48 have no route;
 * 255.255.255.255 and 192.0.2.255 are broadcast.  Devices: lo (1) and
 * eth0 (2).
 */
struct hostenv {
	struct ps_env env;
};

static uint32_t v4(const struct ps_addr *a)
{
	return ntohl(ps_addr_get_v4(a));
}

static bool v6_in(const struct ps_addr *a, uint16_t third)
{
	return a->a[0] == 0x20 && a->a[1] == 0x01 && a->a[2] == 0x0d &&
	       a->a[3] == 0xb8 && (a->a[4] << 8 | a->a[5]) == third;
}

static bool remote(const struct ps_addr *a)
{
	if (a->family == AF_INET6)
		return v6_in(a, 2) || v6_in(a, 3);
	return (v4(a) >> 8) == 0xc00002u || (v4(a) >> 17) == (0xc6120000u >> 17);
}

static bool unreachable(const struct ps_addr *a)
{
	if (a->family == AF_INET6)
		return v6_in(a, 3);
	return (v4(a) >> 17) == (0xc6120000u >> 17);
}

static bool loopback(const struct ps_addr *a)
{
	static const uint8_t one6[16] = { [15] = 1 };

	if (a->family == AF_INET6)
		return memcmp(a->a, one6, 16) == 0;
	return (v4(a) >> 24) == 127;
}

static int f_addr_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	(void)ctx;
	(void)ifindex;
	if (ps_addr_is_multicast(a))
		return PS_RTN_MULTICAST;
	if (a->family == AF_INET &&
	    (v4(a) == 0xffffffffu || v4(a) == 0xc00002ffu))
		return PS_RTN_BROADCAST;
	return remote(a) ? PS_RTN_UNICAST : PS_RTN_LOCAL;
}

static int f_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		   unsigned flags, struct ps_addr *src)
{
	int type = f_addr_type(ctx, dst, ifindex);

	if (unreachable(dst))
		return -ENETUNREACH;
	if (type == PS_RTN_BROADCAST && !(flags & PS_ROUTE_BROADCAST))
		return -EACCES;
	if (!ps_addr_is_any(src))
		return 0;
	if (type == PS_RTN_LOCAL) {
		*src = *dst;	/* to itself, from itself */
	} else if (dst->family == AF_INET6) {
		memset(src, 0, sizeof(*src));
		src->family = AF_INET6;
		memcpy(src->a, "\x20\x01\x0d\xb8\0\x01\0\0\0\0\0\0\0\0\0\x01", 16);
	} else {
		ps_addr_v4(src, htonl(0x0a000001u));
	}
	return 0;
}

static int f_addr_dev(void *ctx, const struct ps_addr *a)
{
	(void)ctx;
	if (remote(a) || ps_addr_is_multicast(a))
		return 0;
	return loopback(a) ? 1 : 2;
}

static int f_route_mtu(void *ctx, const struct ps_addr *dst, uint32_t ifindex)
{
	(void)ctx;
	(void)ifindex;
	if (unreachable(dst))
		return -ENETUNREACH;
	return loopback(dst) ? 65536 : 1500;
}

static bool f_local6(void *ctx, const struct ps_addr *a, uint32_t ifindex,
		     bool strict)
{
	(void)ctx;
	(void)strict;
	return !remote(a) && !ps_addr_is_multicast(a) &&
	       (!ifindex || ifindex == (loopback(a) ? 1u : 2u));
}

struct hostenv *fake_hostenv_new(void)
{
	struct hostenv *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->env.addr_type = f_addr_type;
	h->env.route = f_route;
	h->env.dev_index = f_dev_index;
	h->env.dev_name = f_dev_name;
	h->env.addr_dev = f_addr_dev;
	h->env.route_mtu = f_route_mtu;
	h->env.local6 = f_local6;
	h->env.default_ttl = 64;
	h->env.default_hoplimit = 64;
	return h;
}

void hostenv_close(struct hostenv *h)
{
	free(h);
}

const struct ps_env *hostenv_env(struct hostenv *h)
{
	return &h->env;
}

/* ---- the kernel's ping sockets (/proc/net/icmp, broker.h) ----
 *
 * A kernel ping socket of broker mode stands here as one end of a
 * SOCK_SEQPACKET socketpair, whose other end the fake kernel keeps: it
 * hangs up when the last descriptor of the client's end is closed, in
 * this process or in flight in an SCM_RIGHTS message, which is when the
 * kernel would stop listing the socket in /proc/net/icmp.  The fake
 * kernel keeps the identifiers they are bound to.
 */
struct bsock {
	int watch;		/* the fake kernel's end */
	ino_t ino;		/* of the client's end */
	uint16_t ident;
	uint8_t family;
	bool reuse;
};

static struct bsock bsocks[BSOCK_MAX];
static unsigned nbsocks, nmade;
static int bind_fail;
static uint16_t foreign[2][FOREIGN_MAX];
static unsigned nforeign[2];

/* Forget the sockets whose last descriptor is closed. */
static void bsock_refresh(void)
{
	struct pollfd p[BSOCK_MAX];
	unsigned kept = 0;

	for (unsigned i = 0; i < nbsocks; i++)
		p[i] = (struct pollfd){ .fd = bsocks[i].watch,
					.events = POLLRDHUP };
	if (!nbsocks || poll(p, nbsocks, 0) < 0)
		return;
	for (unsigned i = 0; i < nbsocks; i++) {
		if (p[i].revents & (POLLRDHUP | POLLHUP))
			close(bsocks[i].watch);
		else
			bsocks[kept++] = bsocks[i];
	}
	nbsocks = kept;
}

int hostenv_kernel_scan(struct hostenv *h, int family,
			struct hostenv_scan *sc)
{
	int f = fam_idx(family);

	(void)h;
	memset(sc->bitmap, 0, 65536 / 8);
	for (unsigned i = 0; i < nforeign[f]; i++)
		sc->bitmap[foreign[f][i] / 8] |= (uint8_t)(1u << (foreign[f][i] % 8));
	bsock_refresh();
	for (unsigned i = 0; i < nbsocks; i++) {
		if (bsocks[i].family != family)
			continue;
		sc->bitmap[bsocks[i].ident / 8] |=
			(uint8_t)(1u << (bsocks[i].ident % 8));
		/* All of them are the daemon's (sc->owner's); the list
		 * grows as hostenv.c's does. */
		if (!sc->cap)
			continue;
		if (sc->n == sc->cap) {
			size_t cap = sc->cap * 2;
			unsigned long *v = cap <= HOSTENV_INOS_MAX
				? realloc(sc->inos, cap * sizeof(*v)) : NULL;

			if (!v) {
				sc->overflow = true;
				continue;
			}
			sc->inos = v;
			sc->cap = cap;
		}
		sc->inos[sc->n++] = (unsigned long)bsocks[i].ino;
	}
	return 0;
}

void fake_kernel_ident(int family, uint16_t ident)
{
	int f = fam_idx(family);

	if (nforeign[f] < FOREIGN_MAX)
		foreign[f][nforeign[f]++] = ident;
}

/* Does a live kernel socket hold ident so that a bind must fail?  As
 * the kernel's ping_get_port(): unless both set SO_REUSEADDR. */
static bool ident_busy(int family, uint16_t ident, bool reuse)
{
	int f = fam_idx(family);

	/* Other users' ping sockets: SO_REUSEADDR, the kernel's default. */
	for (unsigned i = 0; i < nforeign[f]; i++)
		if (foreign[f][i] == ident && !reuse)
			return true;
	for (unsigned i = 0; i < nbsocks; i++)
		if (bsocks[i].family == family && bsocks[i].ident == ident &&
		    !(reuse && bsocks[i].reuse))
			return true;
	return false;
}

/* As broker.c's: an identifier of the rover's that the daemon accepts
 * and the kernel finds free. */
static int pick_ident(int family, const struct broker_pick *pick,
		      uint16_t *ident)
{
	int tries = 0;

	for (long n = 0; n < 65536 && tries < 64; n++) {
		uint16_t id = ++*pick->rover;

		if (id == 0 || !pick->ident_ok(pick->ctx, id))
			continue;
		tries++;
		if (!ident_busy(family, id, false)) {
			*ident = id;
			return 0;
		}
	}
	return -EADDRINUSE;
}

/* What the kernel's ping bind checks of the address itself. */
static int bind_checks(int family, const uint8_t *sa, uint32_t len)
{
	uint16_t fam;

	memcpy(&fam, sa, sizeof(fam));
	if (family == AF_INET6 && len < sizeof(struct sockaddr_in6))
		return -EINVAL;
	if (fam != family)
		return -EAFNOSUPPORT;
	return 0;
}

/* A new "kernel socket": the client's end, and the watched one. */
static int bsock_make(int *s, int *watch, ino_t *ino)
{
	int sv[2];
	struct stat st;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	if (fstat(sv[0], &st) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -EIO;
	}
	*s = sv[0];
	*watch = sv[1];
	*ino = st.st_ino;
	return 0;
}

int broker_bind(int family, const struct broker_bindopts *o,
		const uint8_t *sa, uint32_t len,
		const struct broker_pick *pick, int *fd, uint16_t *ident)
{
	int want = broker_sa_ident(sa, len), rc = bind_fail, s, watch;
	ino_t ino;

	bind_fail = 0;
	if (want < 0 || len > sizeof(struct sockaddr_storage))
		return -EINVAL;
	if (rc || (rc = bind_checks(family, sa, len)))
		return rc;
	/* SO_BINDTOIFINDEX: this host's devices are lo and eth0. */
	if (o->ifindex < 0 || o->ifindex > 2)
		return o->ifindex < 0 ? -EINVAL : -ENODEV;
	bsock_refresh();
	if (nbsocks == BSOCK_MAX)
		return -ENOBUFS;
	if (want > 0 && ident_busy(family, (uint16_t)want, o->reuse))
		return -EADDRINUSE;
	if (want > 0)
		*ident = (uint16_t)want;
	else if ((rc = pick_ident(family, pick, ident)))
		return rc;
	if ((rc = bsock_make(&s, &watch, &ino)))
		return rc;
	bsocks[nbsocks++] = (struct bsock){ watch, ino, *ident,
					    (uint8_t)family, o->reuse };
	nmade++;
	*fd = s;
	return 0;
}

int broker_sa_ident(const uint8_t *sa, uint32_t len)
{
	uint16_t port;

	if (len < sizeof(struct sockaddr_in))
		return -1;
	memcpy(&port, sa + offsetof(struct sockaddr_in, sin_port), 2);
	return ntohs(port);
}

void fake_broker_fail_next(int err)
{
	bind_fail = err;
}

unsigned fake_broker_made(void)
{
	return nmade;
}

/* ---- files: the socket's path, the config file ---- */

/* The harness's listener is abstract: no file to remove. */
void listener_remove(const char *path)
{
	(void)path;
}

static char config[4096];
static size_t config_len;
static bool has_config;

void fake_config_text(const char *text, size_t len)
{
	config_len = len < sizeof(config) ? len : sizeof(config);
	memcpy(config, text, config_len);
	has_config = true;
}

/* The config file, root's, through the directory handle the sandbox
 * kept: here the text the harness chose (a FILE without a descriptor). */
FILE *sandbox_fopen_config(const char *path, bool strict, char *err,
			   size_t errlen)
{
	FILE *f = has_config && config_len
			  ? fmemopen(config, config_len, "r") : NULL;

	(void)strict;
	if (!f)
		snprintf(err, errlen, "%s: %s", path, strerror(ENOENT));
	return f;
}

/* ---- the clock ----
 *
 * The daemon's CLOCK_MONOTONIC (linked with --wrap=clock_gettime) and
 * time() (--wrap=time) stand still but when the harness advances them,
 * and start again at each input: waits (min_interval, rate) pass at
 * once, and each input runs the same way every time.  Other clocks are
 * the real ones.
 */
#define MONO_START 1000000000000ull	/* 1000 s: never 0 */
static uint64_t mono = MONO_START;

int __real_clock_gettime(clockid_t id, struct timespec *ts);
int __wrap_clock_gettime(clockid_t id, struct timespec *ts);
time_t __wrap_time(time_t *t);

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	if (id != CLOCK_MONOTONIC && id != CLOCK_MONOTONIC_COARSE &&
	    id != CLOCK_BOOTTIME)
		return __real_clock_gettime(id, ts);
	ts->tv_sec = (time_t)(mono / 1000000000u);
	ts->tv_nsec = (long)(mono % 1000000000u);
	return 0;
}

time_t __wrap_time(time_t *t)
{
	time_t v = (time_t)(1700000000u + mono / 1000000000u);

	if (t)
		*t = v;
	return v;
}

void fake_clock_advance(uint64_t ns)
{
	mono += ns;
}

/* ---- the engine's identifier tables ----
 *
 * Each server allocates two tables of 65536 chain heads (pstab_new()) and
 * frees them at its teardown.  Under ASan each is a fresh mapping, its
 * pages faulted in one by one when pstab_free() walks it: more than the
 * rest of an input costs.  calloc() and free() are wrapped (--wrap): a
 * block of exactly that size comes from a few kept blocks, zeroed as
 * calloc() does and poisoned while free (a use after free is still
 * reported); every other allocation is the real allocator's.
 */
#define POOL_SIZE (65536 * sizeof(void *))
#define POOL_N 4

static void *pool[POOL_N];
static bool pool_used[POOL_N];

void *__real_calloc(size_t n, size_t size);
void __real_free(void *p);
void *__wrap_calloc(size_t n, size_t size);
void __wrap_free(void *p);

void *__wrap_calloc(size_t n, size_t size)
{
	if (size && n == POOL_SIZE / size && POOL_SIZE % size == 0) {
		for (int i = 0; i < POOL_N; i++) {
			if (pool_used[i] || !pool[i])
				continue;
			pool_used[i] = true;
			ASAN_UNPOISON_MEMORY_REGION(pool[i], POOL_SIZE);
			memset(pool[i], 0, POOL_SIZE);
			return pool[i];
		}
	}
	return __real_calloc(n, size);
}

void __wrap_free(void *p)
{
	for (int i = 0; p && i < POOL_N; i++) {
		if (p == pool[i]) {
			if (!pool_used[i])
				abort();	/* a double free */
			pool_used[i] = false;
			ASAN_POISON_MEMORY_REGION(p, POOL_SIZE);
			return;
		}
	}
	__real_free(p);
}

/* Before any thread but this one allocates. */
void fake_init(void)
{
	for (int i = 0; i < POOL_N; i++) {
		pool[i] = __real_calloc(1, POOL_SIZE);
		if (pool[i])
			ASAN_POISON_MEMORY_REGION(pool[i], POOL_SIZE);
	}
}

void fake_reset(void)
{
	send_fail = bind_fail = 0;
	nsends = nmade = 0;
	send_hook = NULL;
	for (unsigned i = 0; i < nbsocks; i++)
		close(bsocks[i].watch);
	nbsocks = 0;
	nforeign[0] = nforeign[1] = 0;
	has_config = false;
	config_len = 0;
	mono = MONO_START;
}
