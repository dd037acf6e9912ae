/* SPDX-License-Identifier: ISC */
/*
 * fuzz_dispatch - libFuzzer target for pingsockd's event loop and request
 * dispatch, in process: the daemon's own server.c (built with -DPSD_FUZZ),
 * closer.c, log.c, the engine and the wire code, around fakes of what
 * needs root or the host (fake_host.c).
 *
 * Each input is a session.  Its first bytes choose the configuration
 * (limits, rate, raw_compat, broker mode per family, IPv6, ...); the rest
 * is a sequence of operations on up to MAX_CLIENTS clients, each followed
 * by one turn of the daemon's loop and the reading of every answer:
 * connect (a socketpair, the listening socket, as another uid, from
 * another network namespace), HELLO with the process's arena token,
 * another's, none or a forged one, well-formed requests built with
 * wire_encode_req(), raw frames, frames with descriptors, proofs written
 * on data descriptors, packets from the network (answers to what the
 * daemon sent, forged ones), closing clients and descriptors, the clock,
 * a reload.  At the end every client and descriptor is closed and the
 * server torn down.
 *
 * Invariants (abort when one breaks):
 *  - each answer's type is the request's, in order, with a zero pad, and
 *    it passes the library's own check (wire_check_answer()), its
 *    descriptors of the kinds that check names;
 *  - a malformed request, one not allowed in the client's state and one
 *    that came with descriptors are never answered: the client is
 *    disconnected; every other request is answered, once its time came;
 *  - descriptors come only with a successful HELLO that made a new state
 *    arena (1: a sealed memfd of WIRE_ARENA_SIZE bytes that nobody can
 *    write or map writable), OPEN (1 relayed, 2 broker) or BROKER_BIND
 *    (1); ATTACH and BROKER_BIND succeed only with a proof this harness
 *    wrote on that socket's own descriptor, each proof once; a failed
 *    request carries no body;
 *  - HELLO with the token of an arena that a connection or socket still
 *    holds gets that arena back (no descriptor); with no token, a forged
 *    one or that of an arena gone, a new one, never another process's;
 *    a socket's slot in an arena is never another live socket's there,
 *    a second connection of the arena gets the same slot for it, and
 *    every arena that mirrors a socket holds the same plausible state;
 *  - a socket is served only to a connection that opened or attached it
 *    (others get WIRE_R_UNATTACHED, or EBADF once it is gone);
 *  - a reply or error record (WIRE_ERRQ's) reaches a socket only for a
 *    request that socket sent (its sequence number), and is well formed
 *    (wire_decode_dgram()); the data descriptor carries replies and
 *    wake-ups only;
 *  - where the kernel refuses descriptors (SO_PASSRIGHTS), a descriptor
 *    sent to the daemon fails with EPERM;
 *  - nothing leaks: at the end of the session, closing a relayed
 *    socket's data descriptor makes the daemon close exactly one
 *    (FDS_RELAY), and once every client and descriptor is closed the
 *    daemon holds what it held before the first client came; ASan's
 *    leak check, and the process holds the same descriptors after each
 *    input as before it.
 *
 * Run as build/fuzz/fuzz_dispatch_thread (a link to the same binary),
 * the daemon closes client-reachable descriptors with its closing thread
 * (closer_init(force_thread)), and lets descriptors through to it, as on
 * a kernel without SO_PASSRIGHTS.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/closer.h"
#include "daemon/server.h"
#include "engine/icmp.h"
#include "fake_host.h"
#include "fuzz_dispatch.h"
#include "wire/decode.h"
#include "wire/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__asan_default_options(void);
int LLVMFuzzerInitialize(int *argc, char ***argv);
void __real_closer_stop(void);
void __wrap_closer_stop(void);

#define MAX_CLIENTS 6
#define MAX_HSOCK 12
#define MAX_OUT 16		/* requests a client has not had answered */
#define MAX_SEQS 48		/* sequence numbers remembered per socket */
#define NPROOF 64		/* proofs remembered per socket (more than
				 * the daemon's SSOCK_PROOFS: any it takes
				 * must be among them) */
#define ANSWER_MAX (WIRE_RESP_HDR + WIRE_RESP_BODY_MAX + 64)
#define DGRAM_MAX (WIRE_DGRAM_HDR + WIRE_DATA_MAX + 64)
#define MAX_ARENAS 40		/* more than the HELLOs of a session */
/* What a relayed socket costs the daemon: its end of the data pair. */
#define FDS_RELAY 1
/* The most records an error queue can hold (a record weighs more than
 * 512 bytes against the uid's 4 MiB): a plausible count in a slot. */
#define ERRQ_PLAUSIBLE 8192u
#define CM_KNOWN (WIRE_CM_TIMESTAMP | WIRE_CM_TIMESTAMPNS | \
		  WIRE_CM_TSTAMP_NEW | WIRE_CM_TTL | WIRE_CM_TOS | \
		  WIRE_CM_PKTINFO | WIRE_CM_RECVOPTS | WIRE_CM_RETOPTS | \
		  WIRE_CM_RXQ_OVFL | WIRE_CM_TSTAMPING_NEW | \
		  WIRE_CM_PKTINFO6 | WIRE_CM_HOPLIMIT | WIRE_CM_TCLASS | \
		  WIRE_CM_FLOWINFO | WIRE_CM_SNDFLOW | WIRE_CM_PKTINFO2292 | \
		  WIRE_CM_HOPLIMIT2292)
#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#define SEALS_WANTED (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL | \
		      F_SEAL_FUTURE_WRITE)

/* The descriptors the harness may hold of a socket. */
enum fdkind { K_DATA, K_KSOCK, K_KOLD, K_LIVE, K_END };

struct hsock {
	uint32_t handle;
	int family;
	bool broker, raw, rebound;
	uid_t uid;		/* its opener's (WIRE_FIND answers only it) */
	bool gone;		/* its data (liveness) descriptor closed here */
	int fd[K_END];
	unsigned attached;	/* clients linked to it, by slot */
	uint8_t proof[NPROOF][WIRE_NONCE_LEN];
	bool proof_used[NPROOF];
	unsigned nproofs;
	uint16_t seqs[MAX_SEQS];
	bool probes[MAX_SEQS];	/* seqs[i] was an Extended Echo Request's */
	unsigned nseqs;
	uint32_t slot[MAX_ARENAS];	/* its state's slot in each arena, or 0 */
};

/* A state arena the daemon handed out (HELLO), mapped read-only. */
struct harena {
	uint8_t token[WIRE_NONCE_LEN];
	uid_t uid;		/* whose: only its user's HELLO joins it */
	int fd;
	const struct wire_shm *map;
};

/* What a request sent is waiting for. */
struct expect {
	struct wire_req req;	/* as the daemon decodes it (no data) */
	bool disconnect;	/* it must not be answered */
	/* HELLO: the arena its token names (-1: none this harness knows),
	 * and whether that arena is sure to be alive when the daemon reads
	 * the request (a holder that lets go meanwhile: H.drops moves). */
	int arena;
	bool alive;
	unsigned drops;
	/* A send answered in the connection's answer slot, the slot_seq'th
	 * there: nothing comes on the channel (wire.h: WIRE_RQ_SLOT). */
	bool in_slot;
	uint32_t slot_seq;
	/* WIRE_WAIT's: req is the send it waits for, answered as that one
	 * was when the daemon ran it (what happened to its socket since is
	 * no measure of the result). */
	bool waited;
};

struct fclient {
	int fd;			/* -1: slot free */
	uid_t uid;
	gid_t gid;
	bool hello;		/* as the daemon will see it when it gets here */
	bool foreign;		/* made in another network namespace */
	bool listener;		/* connected through the listening socket */
	bool answered;		/* has had an answer */
	bool doomed;		/* sent something it must be disconnected for */
	bool guarded;		/* the daemon's end refuses descriptors
				 * (SO_PASSRIGHTS off; all do, if the kernel
				 * has it) */
	int arena;		/* its process's arena (H.a), -1: none yet */
	/* A send answered in the slot and not yet waited for (as the
	 * daemon will see it), and that send. */
	bool waitable;
	struct wire_req slot_send;
	uint32_t slot_sends;	/* sends with WIRE_RQ_SLOT it made */
	uint32_t ans_slot;	/* its answer slot (HELLO's answer) */
	struct expect out[MAX_OUT];
	unsigned head, nout;
};

struct fcfg {
	bool raw_compat, broker4, broker6, raw6, ident_keep, loopback;
	bool relay_1000, groups_1000;
	bool stable;		/* no reload asked: the policy is as set */
};

struct harness {
	struct server *s;
	struct fclient c[MAX_CLIENTS];
	struct hsock h[MAX_HSOCK];
	unsigned nh;
	struct fcfg cfg;
	struct sockaddr_un laddr;
	socklen_t laddr_len;
	uint32_t nonces;
	uint16_t seq;
	struct fin in;
	/* The arena token of the process in each client slot (a client
	 * there later is that process again), and the arenas seen. */
	uint8_t tok[MAX_CLIENTS][WIRE_NONCE_LEN];
	struct harena a[MAX_ARENAS];
	unsigned na;
	unsigned drops;		/* holders of arenas let go: clients, sockets */
	int fds_base;		/* the process's, with the daemon set up */
	/* uids whose sockets' share of the loop went (check_relay_fds) */
	uid_t share_gone[MAX_HSOCK];
	unsigned nshare_gone;
};

static struct harness H;
static FILE *out_err;		/* the real stderr (the daemon's goes nowhere) */
static bool thread_mode;	/* the daemon's closing thread closes */
static bool as_root;
static bool in_group_1000;	/* a supplementary group of this process */
static int ns_home = -1, ns_other = -1;	/* network namespaces */
static bool tracing;		/* FUZZ_DISPATCH_TRACE=1: say each step */

static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
	va_list ap;

	if (!tracing)
		return;
	va_start(ap, fmt);
	vfprintf(out_err, fmt, ap);
	va_end(ap);
	fputc('\n', out_err);
}

void fuzz_fail(const char *why)
{
	fprintf(out_err, "fuzz_dispatch: invariant broken: %s\n", why);
	fflush(out_err);
	abort();
}

/* ---- the input ---- */

uint8_t fin_u8(struct fin *in)
{
	return in->off < in->n ? in->p[in->off++] : 0;
}

uint16_t fin_u16(struct fin *in)
{
	uint16_t lo = fin_u8(in);

	return (uint16_t)(lo | fin_u8(in) << 8);
}

uint32_t fin_u32(struct fin *in)
{
	uint32_t lo = fin_u16(in);

	return lo | (uint32_t)fin_u16(in) << 16;
}

size_t fin_bytes(struct fin *in, uint8_t *dst, size_t len)
{
	size_t n = in->n - in->off < len ? in->n - in->off : len;

	memcpy(dst, in->p + in->off, n);
	memset(dst + n, 0, len - n);
	in->off += n;
	return n;
}

/* ---- descriptors ---- */

/*
 * Open descriptors: one poll() over the numbers 0..FD_SPAN-1 (POLLNVAL
 * for a closed one), much cheaper than reading /proc/self/fd.  A new
 * descriptor takes the lowest free number, and an input never holds
 * nearly FD_SPAN at once, so a leaked one is always among them.
 */
#define FD_SPAN 512
static int count_fds(void)
{
	static struct pollfd p[FD_SPAN];
	int open = 0;

	for (int i = 0; i < FD_SPAN; i++)
		p[i] = (struct pollfd){ .fd = i };
	if (poll(p, FD_SPAN, 0) < 0)
		fuzz_fail("poll");
	for (int i = 0; i < FD_SPAN; i++)
		open += !(p[i].revents & POLLNVAL);
	return open;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static struct hsock *hs_find(uint32_t handle)
{
	for (unsigned i = 0; i < H.nh; i++)
		if (H.h[i].handle == handle)
			return &H.h[i];
	return NULL;
}

static struct hsock *hs_new(uint32_t handle, int family)
{
	struct hsock *hs;

	if (H.nh == MAX_HSOCK || hs_find(handle))
		return NULL;
	hs = &H.h[H.nh++];
	memset(hs, 0, sizeof(*hs));
	hs->handle = handle;
	hs->family = family;
	for (int k = 0; k < K_END; k++)
		hs->fd[k] = -1;
	return hs;
}

/* Keep fd as the socket's descriptor of kind k, or close it. */
static void hs_keep(struct hsock *hs, enum fdkind k, int fd)
{
	if (hs && hs->fd[k] < 0 && !(hs->gone && (k == K_DATA || k == K_LIVE)))
		hs->fd[k] = fd;
	else
		close(fd);
}

/* The socket's own descriptor, on which proofs are written. */
static int *hs_own(struct hsock *hs)
{
	return &hs->fd[hs->broker ? K_LIVE : K_DATA];
}

static void hs_close_all(void)
{
	for (unsigned i = 0; i < H.nh; i++)
		for (int k = 0; k < K_END; k++)
			close_fd(&H.h[i].fd[k]);
}

/* ---- state arenas ---- */

static int arena_find(const uint8_t *token)
{
	for (unsigned i = 0; i < H.na; i++)
		if (memcmp(H.a[i].token, token, WIRE_NONCE_LEN) == 0)
			return (int)i;
	return -1;
}

/*
 * Is arena a sure to be alive?  A connection that uses it is open (and
 * sent nothing it is disconnected for).  Sockets' slots keep it too, but
 * not surely: past its user's share of arenas without a connection, the
 * oldest one's slots are given back (arena.h).
 */
static bool arena_held(int a)
{
	if (a < 0)
		return false;
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (H.c[i].fd >= 0 && !H.c[i].doomed && H.c[i].arena == a)
			return true;
	return false;
}

_Static_assert(sizeof(struct wire_shm) == 8 * sizeof(uint32_t),
	       "struct wire_shm: 8 words");
#define W(field) (offsetof(struct wire_shm, field) / sizeof(uint32_t))

/* A slot's words, as the daemon last wrote them. */
static void slot_read(const struct harena *a, uint32_t slot, uint32_t *w)
{
	memcpy(w, (const uint8_t *)a->map + (size_t)slot * sizeof(struct wire_shm),
	       sizeof(struct wire_shm));
}

/* What a client can do with its arena: map it read-only, nothing else. */
static void arena_unwritable(int fd)
{
	uint32_t v = 0;
	int seals = fcntl(fd, F_GET_SEALS);
	void *p;

	if (seals < 0 || (seals & SEALS_WANTED) != SEALS_WANTED)
		fuzz_fail("HELLO: the arena is not sealed");
	if (pwrite(fd, &v, sizeof(v), 0) >= 0)
		fuzz_fail("HELLO: the arena can be written");
	if (ftruncate(fd, 0) == 0 ||
	    ftruncate(fd, 2 * (off_t)WIRE_ARENA_SIZE) == 0)
		fuzz_fail("HELLO: the arena can be resized");
	p = mmap(NULL, WIRE_ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p != MAP_FAILED)
		fuzz_fail("HELLO: the arena can be mapped writable");
}

/*
 * A new arena handed out with HELLO's answer: checked and kept (its
 * descriptor, a read-only mapping).  Its index in H.a, or -1 when the
 * table is full (then it is closed).
 */
static int arena_new(const uint8_t *token, uid_t uid, int fd)
{
	uint32_t w[8];
	struct stat st;
	void *p;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)WIRE_ARENA_SIZE)
		fuzz_fail("HELLO: the arena is no file of WIRE_ARENA_SIZE bytes");
	arena_unwritable(fd);
	p = mmap(NULL, WIRE_ARENA_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fuzz_fail("HELLO: the arena cannot be mapped read-only");
	if (mprotect(p, WIRE_ARENA_SIZE, PROT_READ | PROT_WRITE) == 0)
		fuzz_fail("HELLO: the arena's mapping can be made writable");
	if (H.na == MAX_ARENAS) {
		munmap(p, WIRE_ARENA_SIZE);
		close(fd);
		return -1;
	}
	H.a[H.na] = (struct harena){ .uid = uid, .fd = fd, .map = p };
	memcpy(H.a[H.na].token, token, WIRE_NONCE_LEN);
	slot_read(&H.a[H.na], 0, w);
	if (w[0] != WIRE_ARENA_MAGIC || w[1] || w[2] || w[3] || w[4] ||
	    w[5] || w[6] || w[7])
		fuzz_fail("HELLO: the arena's header is not its magic alone");
	return (int)H.na++;
}

static void arenas_close(void)
{
	for (unsigned i = 0; i < H.na; i++)
		close_fd(&H.a[i].fd);
}

static void arenas_unmap(void)
{
	for (unsigned i = 0; i < H.na; i++)
		munmap((void *)H.a[i].map, WIRE_ARENA_SIZE);
	H.na = 0;
}

/*
 * The daemon keeps no arena open (it maps them, and hands each out once):
 * every regular file of an arena's size open in this process is one
 * that this harness holds.
 */
static void check_arena_fds(void)
{
	for (int fd = 0; fd < FD_SPAN; fd++) {
		struct stat st;
		bool ours = false;

		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
		    st.st_size != (off_t)WIRE_ARENA_SIZE)
			continue;
		for (unsigned i = 0; i < H.na && !ours; i++)
			ours = H.a[i].fd == fd;
		if (!ours)
			fuzz_fail("the daemon keeps a state arena open");
	}
}

/* A slot as the daemon may write it: flags of options, an errno. */
static void slot_plausible(const uint32_t *w)
{
	int32_t err = (int32_t)w[W(err)];

	if ((w[W(cmsg)] & ~CM_KNOWN) ||
	    (w[W(shutdown)] & ~(WIRE_SHUT_RD | WIRE_SHUT_WR)) ||
	    (w[W(tsflags)] & ~WIRE_TS_MASK))
		fuzz_fail("a state slot with flags that no option sets");
	if (err < 0 || err > WIRE_ERRNO_MAX)
		fuzz_fail("a state slot's pending error is no errno");
	if (w[W(errq)] > ERRQ_PLAUSIBLE)
		fuzz_fail("a state slot counts more records than can be queued");
	/* A slot a connection had for its answers is zeroed before a
	 * socket gets it. */
	if (w[W(ans_seq)] || w[W(ans_result)])
		fuzz_fail("a socket's state slot holds a send's answer");
}

/* Every arena that mirrors a live relayed socket holds one plausible
 * state of it (the daemon copies it into each). */
static void check_slots(const struct hsock *hs)
{
	uint32_t first[8], w[8];
	bool seen = false;

	if (hs->broker || hs->gone)
		return;
	for (unsigned i = 0; i < H.na; i++) {
		/* An arena whose last connection went may have given its
		 * slots back (zeroed; arena.h: lingering arenas). */
		if (!hs->slot[i] || !arena_held((int)i))
			continue;
		slot_read(&H.a[i], hs->slot[i], w);
		slot_plausible(w);
		if (seen && memcmp(first, w, sizeof(w)) != 0)
			fuzz_fail("arenas that mirror one socket hold different "
				  "states of it");
		memcpy(first, w, sizeof(w));
		seen = true;
	}
}

/*
 * OPEN or ATTACH gave hs slot in arena a (-1: one not kept): never a
 * slot another live socket has there, and the one hs has there already
 * if it has one (another connection of the process opened or attached
 * it).
 */
static void slot_given(struct hsock *hs, int a, uint32_t slot)
{
	if (!hs || a < 0)
		return;
	if (hs->slot[a] && !hs->gone && hs->slot[a] != slot)
		fuzz_fail("a second slot for a socket in an arena that "
			  "mirrors it already");
	for (unsigned i = 0; i < H.nh; i++) {
		const struct hsock *o = &H.h[i];

		if (o != hs && !o->broker && !o->gone && o->slot[a] == slot)
			fuzz_fail("one slot of an arena for two live sockets");
	}
	trace("  socket %#x: slot %u of arena %d", hs->handle, slot, a);
	hs->slot[a] = slot;
}

/* ---- the closing thread ----
 *
 * The daemon's teardown calls closer_stop() (linked with
 * --wrap=closer_stop): here it waits until the thread has closed
 * everything queued so far, by queueing the write end of a pipe and
 * reading until it is closed (the queue is in order), but keeps the
 * thread for the next input.  The real closer_stop() runs at exit.
 * Before it decides that a request was neither answered nor refused,
 * the harness waits so too (closer_drain()).
 */
static void closer_drain(void)
{
	int p[2];
	char c;

	if (!thread_mode)
		return;		/* closer_close() closes at once */
	if (pipe2(p, O_CLOEXEC) != 0)
		fuzz_fail("pipe");
	closer_close(p[1]);
	while (read(p[0], &c, 1) > 0)
		;
	close(p[0]);
}

void __wrap_closer_stop(void)
{
	closer_drain();
}

static void stop_closer(void)
{
	__real_closer_stop();
}

/*
 * ASan keeps 256 MiB of freed memory unused by default, so that each
 * input's allocations come from memory not touched for long (page faults,
 * cache misses); an input frees far less than 32 MiB, so a use after free
 * within it is still caught.
 */
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=32";
}

/*
 * libFuzzer's entropic schedule updates a frequency for every feature of
 * every run; an input here touches thousands (the daemon's set-up and
 * teardown each time), and that bookkeeping took a quarter of the time.
 * Off unless the command line says otherwise.
 */
static void default_flags(int *argc, char ***argv)
{
	static char *args[64];
	int n = *argc;

	for (int i = 1; i < n; i++)
		if (strncmp((*argv)[i], "-entropic=", 10) == 0)
			return;
	if (n + 2 > (int)(sizeof(args) / sizeof(args[0])))
		return;
	memcpy(args, *argv, (size_t)n * sizeof(*args));
	args[n++] = "-entropic=0";
	args[n] = NULL;
	*argc = n;
	*argv = args;
}

/* Is gid one of this process's supplementary groups (and its clients',
 * which SO_PEERGROUPS reports)? */
static bool supplementary(gid_t gid)
{
	gid_t g[256];
	int n = getgroups(256, g);

	for (int i = 0; i < n; i++)
		if (g[i] == gid)
			return true;
	return false;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *name = strrchr((*argv)[0], '/');
	char err[256];

	default_flags(argc, argv);
	name = name ? name + 1 : (*argv)[0];
	thread_mode = strstr(name, "_thread") != NULL;
	tracing = getenv("FUZZ_DISPATCH_TRACE") != NULL;
	fake_init();
	out_err = stderr;
	/* The daemon logs to stderr: not here (libFuzzer keeps its own
	 * FILE, sanitizers write to descriptor 2). */
	stderr = fopen("/dev/null", "we");
	if (!stderr)
		stderr = out_err;
	if (closer_init(thread_mode, err, sizeof(err)) != 0) {
		fprintf(out_err, "closer_init: %s\n", err);
		exit(1);
	}
	/* Without SO_PASSRIGHTS the thread runs whatever the name says. */
	thread_mode = !closer_kernel_refuses();
	atexit(stop_closer);
	as_root = geteuid() == 0;
	in_group_1000 = supplementary(1000);
	/* The fakes' descriptors that stay, before any input counts. */
	raw_close(fake_raw_new());
	raw6_close(fake_raw6_new());
	/* A second network namespace, for clients of another one. */
	if (as_root) {
		ns_home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (ns_home >= 0 && unshare(CLONE_NEWNET) == 0) {
			ns_other = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
			if (setns(ns_home, CLONE_NEWNET) != 0) {
				/* Not a finding: no crash artifact. */
				fprintf(out_err, "fuzz_dispatch: setns: %s\n",
					strerror(errno));
				exit(1);
			}
		}
	}
	return 0;
}

/* ---- clients ---- */

/* Make a socket (pair) as uid/gid and in namespace ns (-1: this one). */
static int as_other(uid_t uid, gid_t gid, int ns, int (*mk)(int *), int *sv)
{
	int rc;

	if (ns >= 0 && setns(ns, CLONE_NEWNET) != 0)
		return -1;
	/* This thread's credentials only (the kernel's are per thread;
	 * glibc's seteuid() would stop every thread to change theirs). */
	if (uid && (syscall(SYS_setresgid, -1, gid, -1) != 0 ||
		    syscall(SYS_setresuid, -1, uid, -1) != 0))
		fuzz_fail("setresuid");
	rc = mk(sv);
	if (uid && (syscall(SYS_setresuid, -1, 0, -1) != 0 ||
		    syscall(SYS_setresgid, -1, 0, -1) != 0))
		fuzz_fail("setresuid back");
	if (ns >= 0 && setns(ns_home, CLONE_NEWNET) != 0)
		fuzz_fail("setns back home");
	return rc;
}

static int mk_pair(int *sv)
{
	return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv);
}

static int mk_conn(int *sv)
{
	sv[0] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sv[0] < 0)
		return -1;
	if (connect(sv[0], (struct sockaddr *)&H.laddr, H.laddr_len) != 0) {
		close(sv[0]);
		return -1;
	}
	return 0;
}

static void client_gone(int ci)
{
	struct fclient *c = &H.c[ci];

	if (c->fd >= 0)
		H.drops++;
	close_fd(&c->fd);
	c->arena = -1;
	for (unsigned i = 0; i < H.nh; i++)
		H.h[i].attached &= ~(1u << ci);
}

/* OP_CONNECT: how, as whom. */
static void op_connect(void)
{
	uint8_t how = fin_u8(&H.in), who = fin_u8(&H.in);
	struct fclient *c = NULL;
	int ci, sv[2] = { -1, -1 }, ns = -1;
	uid_t uid = 0;

	for (ci = 0; ci < MAX_CLIENTS && !c; ci++)
		if (H.c[ci].fd < 0)
			c = &H.c[ci];
	if (!c)
		return;
	ci--;
	if (as_root && who % 3)
		uid = 999 + who % 3;	/* 1000, 1001 */
	if (how % 4 == 3 && ns_other >= 0)
		ns = ns_other;
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->arena = -1;
	c->uid = uid ? uid : geteuid();	/* SO_PEERCRED's */
	c->gid = uid ? uid : getegid();
	c->foreign = ns >= 0;
	c->listener = how % 4 == 2;
	if (as_other(uid, uid, ns, c->listener ? mk_conn : mk_pair, sv) != 0)
		return;
	trace("  client %d: uid %u, %s", ci, (unsigned)c->uid,
	      c->listener ? "listener" : c->foreign ? "other namespace"
			  : "socketpair");
	c->fd = sv[0];
	c->guarded = closer_kernel_refuses();
	if (c->listener)
		return;		/* accepted, or refused, at the next turn */
	/* An accepted connection inherits the listener's SO_PASSRIGHTS off
	 * (the daemon relies on it): the daemon's end of a pair too. */
	if (closer_guard(sv[1]) != 0)
		fuzz_fail("closer_guard");
	if (server_fuzz_connect(H.s, sv[1]) != 0)
		client_gone(ci);	/* refused: the daemon closed its end */
}

static struct fclient *pick_client(int *ci)
{
	unsigned want = fin_u8(&H.in) % MAX_CLIENTS;

	for (unsigned i = 0; i < MAX_CLIENTS; i++) {
		unsigned k = (want + i) % MAX_CLIENTS;

		if (H.c[k].fd >= 0) {
			*ci = (int)k;
			return &H.c[k];
		}
	}
	return NULL;
}

static struct hsock *pick_hsock(void)
{
	return H.nh ? &H.h[fin_u8(&H.in) % H.nh] : NULL;
}

/* A handle for a request: mostly one the harness knows. */
static uint32_t pick_handle(void)
{
	uint8_t b = fin_u8(&H.in);

	if (b >= 0xf0 || !H.nh)
		return b == 0xff ? 0 : fin_u32(&H.in);
	return H.h[b % H.nh].handle;
}

/* A socket cookie to look up (WIRE_FIND): a socket's data
 * descriptor's here, or any. */
static uint64_t pick_cookie(void)
{
	uint8_t b = fin_u8(&H.in);
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);
	struct hsock *hs = H.nh ? &H.h[b % H.nh] : NULL;

	if (b < 0xf0 && hs && hs->fd[K_DATA] >= 0 &&
	    getsockopt(hs->fd[K_DATA], SOL_SOCKET, SO_COOKIE, &cookie,
		       &len) == 0 && cookie)
		return cookie;
	return (uint64_t)fin_u32(&H.in) + 1;
}

static void op_close_client(void)
{
	int ci;

	if (pick_client(&ci))
		client_gone(ci);
}

/* ---- requests ---- */

static bool ext_type(uint8_t type)
{
	return type == 42 || type == 43 || type == 160 || type == 161;
}

/* Did hs send the request this message (a reply, or the quote of an
 * error) answers?  Of the same kind, Echo or PROBE; an Extended Echo
 * Reply repeats only the PROBE's sequence number (the high byte), a
 * quote is the request whole. */
static bool seq_known(const struct hsock *hs, const uint8_t *icmp)
{
	uint16_t seq = (uint16_t)(icmp[6] << 8 | icmp[7]);
	bool probe = ext_type(icmp[0]);
	uint16_t mask = icmp[0] == 43 || icmp[0] == 161 ? 0xff00 : 0xffff;

	for (unsigned i = 0; i < hs->nseqs && i < MAX_SEQS; i++)
		if (hs->probes[i] == probe &&
		    ((hs->seqs[i] ^ seq) & mask) == 0)
			return true;
	return false;
}

/* A send for hs: its sequence number may come back. */
static void note_send(const struct wire_req *req)
{
	struct hsock *hs = hs_find(req->handle);
	const uint8_t *m = req->u.send.data;

	if (!hs || req->u.send.datalen < ICMP_HDR_LEN)
		return;
	hs->probes[hs->nseqs % MAX_SEQS] = ext_type(m[0]);
	hs->seqs[hs->nseqs++ % MAX_SEQS] = (uint16_t)(m[6] << 8 | m[7]);
}

/* What req will be answered with needs to be known of it: itself (without
 * its data, which the frame held), and for HELLO its token's arena. */
static void expect_req(const struct wire_req *req, struct expect *e)
{
	e->req = *req;
	if (req->type == WIRE_SEND) {
		e->req.u.send.ctl = NULL;
		e->req.u.send.data = NULL;
	}
	e->arena = req->type == WIRE_HELLO ? arena_find(req->nonce) : -1;
	e->alive = arena_held(e->arena);
	e->drops = H.drops;
}

/* The answer slot's protocol (wire.h), for a client past HELLO: a send
 * with WIRE_RQ_SLOT is answered there (every connection has a slot: no
 * harness fills an arena), WIRE_WAIT only after one such, once. */
static void slot_protocol(struct fclient *c, const struct wire_req *req,
			  struct expect *e)
{
	if (req->rqflags & WIRE_RQ_SLOT) {
		e->in_slot = true;
		if (++c->slot_sends == 0)
			c->slot_sends = 1;
		e->slot_seq = c->slot_sends;
		c->waitable = true;
		c->slot_send = e->req;
	} else if (req->type == WIRE_WAIT) {
		e->disconnect = !c->waitable;
		if (c->waitable) {
			e->req = c->slot_send;
			e->waited = true;
		}
		c->waitable = false;
	}
}

/*
 * What the daemon must do with this frame from c, given what c sent
 * before it (the daemon takes them in order): answer it, or disconnect
 * (malformed, descriptors with it, not allowed in c's state).
 */
static void classify(struct fclient *c, const uint8_t *frame, size_t len,
		     bool passed, struct expect *e)
{
	struct wire_req req;
	bool ok = wire_decode_req(frame, len, &req) == 0;

	memset(e, 0, sizeof(*e));
	e->arena = -1;
	if (ok)
		expect_req(&req, e);
	if (!ok || passed) {
		e->disconnect = true;
	} else if (req.type == WIRE_HELLO) {
		if (c->hello)
			e->disconnect = true;
		else
			c->hello = req.u.version == WIRE_VERSION;
	} else if (!c->hello || c->foreign) {
		e->disconnect = true;	/* a foreign one is told at HELLO */
	} else {
		slot_protocol(c, &req, e);
	}
	c->doomed = e->disconnect;
	if (e->disconnect)
		H.drops++;	/* it may hold an arena: not for long */
	if (!e->disconnect && req.type == WIRE_SEND)
		note_send(&req);
}

static void add_rights(struct msghdr *mh, void *cbuf, size_t cap, int fd)
{
	struct cmsghdr *cm;

	memset(cbuf, 0, cap);
	mh->msg_control = cbuf;
	mh->msg_controllen = CMSG_SPACE(sizeof(int));
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
}

/*
 * sendmsg() with a descriptor (passfd >= 0) on fd, whose daemon end
 * refuses them if guarded: then it must fail with EPERM.  Returns
 * sendmsg()'s result.
 */
static ssize_t send_rights(int fd, struct msghdr *mh, int passfd,
			   bool guarded)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(int))];
	} cb;
	ssize_t n;

	if (passfd >= 0)
		add_rights(mh, cb.b, sizeof(cb.b), passfd);
	n = sendmsg(fd, mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (passfd >= 0 && guarded && n >= 0)
		fuzz_fail("a descriptor reached the daemon although its "
			  "socket refuses them (SO_PASSRIGHTS)");
	if (passfd >= 0 && !guarded && n < 0 && errno == EPERM)
		fuzz_fail("EPERM for a descriptor the daemon would take");
	return n;
}

/* A descriptor to pass: a pipe's read end (the write end is closed). */
static int passable(void)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		fuzz_fail("pipe");
	close(p[1]);
	return p[0];
}

/* Send a frame (and the data that follows it) from client ci. */
static void send_frame(int ci, const uint8_t *frame, size_t flen,
		       const uint8_t *data, size_t dlen, bool pass)
{
	static uint8_t whole[WIRE_MSG_MAX + 64];
	struct fclient *c = &H.c[ci];
	struct iovec iov[2] = { { (void *)frame, flen }, { (void *)data, dlen } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = dlen ? 2 : 1 };
	int passfd = pass ? passable() : -1;
	ssize_t n;

	if (c->doomed || c->nout == MAX_OUT || flen + dlen > sizeof(whole)) {
		close_fd(&passfd);
		return;
	}
	n = send_rights(c->fd, &mh, passfd, c->guarded);
	close_fd(&passfd);
	if (n < 0)
		return;
	memcpy(whole, frame, flen);
	if (dlen)
		memcpy(whole + flen, data, dlen);
	classify(c, whole, flen + dlen, pass, &c->out[(c->head + c->nout) % MAX_OUT]);
	trace("  client %d: frame of %zu bytes, type %u, handle %#x: %s", ci,
	      flen + dlen, c->out[(c->head + c->nout) % MAX_OUT].req.type,
	      c->out[(c->head + c->nout) % MAX_OUT].req.handle,
	      c->out[(c->head + c->nout) % MAX_OUT].disconnect ? "refuse"
	      : c->out[(c->head + c->nout) % MAX_OUT].in_slot ? "slot" : "answer");
	c->nout++;
}

static void send_req(int ci, const struct wire_req *req, const uint8_t *data,
		     size_t dlen, bool pass)
{
	static uint8_t buf[WIRE_MSG_MAX];
	long n = wire_encode_req(req, buf, sizeof(buf));

	if (n < 0)
		fuzz_fail("wire_encode_req refused a request the harness made");
	send_frame(ci, buf, (size_t)n, data, dlen, pass);
}

/* ---- answers ---- */

static void proof_use(struct hsock *hs, const uint8_t *nonce)
{
	for (unsigned i = 0; i < hs->nproofs && i < NPROOF; i++) {
		if (memcmp(hs->proof[i], nonce, WIRE_NONCE_LEN) == 0 &&
		    !hs->proof_used[i]) {
			hs->proof_used[i] = true;
			return;
		}
	}
	fuzz_fail("a socket handed over without a proof written on its "
		  "descriptor (or with one used before)");
}

static bool brokered(const struct fclient *c, const struct wire_req *req)
{
	int type = req->u.open.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (type != SOCK_DGRAM || (H.cfg.relay_1000 && c->uid == 1000))
		return false;
	if (req->u.open.domain == AF_INET)
		return H.cfg.broker4 && req->u.open.protocol == IPPROTO_ICMP;
	return req->u.open.domain == AF_INET6 && H.cfg.broker6 &&
	       req->u.open.protocol == IPPROTO_ICMPV6;
}

/* What the configuration says of an OPEN that succeeded. */
static void open_allowed(const struct fclient *c, const struct wire_req *req,
			 bool broker)
{
	if (!H.cfg.stable)
		return;		/* a reload may have changed the policy */
	if (broker != brokered(c, req))
		fuzz_fail("broker mode where relay was due, or the reverse");
	if (H.cfg.groups_1000 && c->gid != 1000 && !in_group_1000)
		fuzz_fail("a socket for a client of no allowed group");
	if (!broker && req->u.open.domain == AF_INET6 && !H.cfg.raw6)
		fuzz_fail("an IPv6 socket on a host without IPv6");
	if ((req->u.open.type & 0xf) == SOCK_RAW && !H.cfg.raw_compat)
		fuzz_fail("a raw socket without raw_compat");
}

static void fd_is(int fd, mode_t type, const char *what)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type)
		fuzz_fail(what);
}

static int sockopt_int(int fd, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, name, &v, &len) != 0)
		return -1;
	return v;
}

/* A descriptor of an answer is of the kind the library's check wants. */
static void fd_kind_ok(int fd, uint8_t kind)
{
	switch (kind) {
	case WIRE_FD_SEQPACKET:
		fd_is(fd, S_IFSOCK, "an answer's descriptor is no socket");
		if (sockopt_int(fd, SO_DOMAIN) != AF_UNIX ||
		    sockopt_int(fd, SO_TYPE) != SOCK_SEQPACKET)
			fuzz_fail("an answer's descriptor is no AF_UNIX "
				  "SOCK_SEQPACKET socket");
		break;
	case WIRE_FD_ARENA:
		fd_is(fd, S_IFREG, "HELLO: the arena is no file");
		break;
	case WIRE_FD_ICMP:
		/* The fake kernel's ping socket: a socketpair's end. */
		fd_is(fd, S_IFSOCK, "a kernel socket that is no socket");
		break;
	default:
		fuzz_fail("the library's check wants a descriptor of no kind");
	}
}

/* The answer passes the library's own check of it (wire/types.c's row
 * of the request), with the descriptors that check wants. */
static void check_lib(const struct expect *e, const uint8_t *msg, size_t n,
		      const int *fds, int nfds)
{
	struct wire_answer ans;

	if (wire_check_answer(&e->req, msg, n, &ans) != 0)
		fuzz_fail("an answer the library refuses (wire_check_answer)");
	if ((int)ans.nfds != nfds)
		fuzz_fail("an answer with other descriptors than its check wants");
	for (int i = 0; i < nfds; i++)
		fd_kind_ok(fds[i], ans.fd_kind[i]);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * HELLO: the result its version and the client's namespace give; then
 * the arena's token: the arena the request's token names, without a
 * descriptor (certainly when that arena is sure to be alive), or a new
 * one with its descriptor, never one handed out before.
 */
static void ans_hello(int ci, const struct expect *e, int32_t result,
		      const uint8_t *body, size_t len, const int *fds, int nfds)
{
	struct fclient *c = &H.c[ci];
	uint32_t slot;
	int known;

	if (result != (e->req.u.version != WIRE_VERSION ? -EPROTO
		       : c->foreign ? WIRE_R_FOREIGN_NS : 0))
		fuzz_fail("HELLO: a wrong result");
	if (result)
		return;
	if (len != WIRE_NONCE_LEN + 4 || all_zero(body, WIRE_NONCE_LEN))
		fuzz_fail("HELLO: no token and answer slot");
	memcpy(&slot, body + WIRE_NONCE_LEN, 4);
	if (slot == 0 || slot >= WIRE_ARENA_SLOTS)
		fuzz_fail("HELLO: no answer slot in an arena with room");
	c->ans_slot = slot;
	known = arena_find(body);
	if (memcmp(body, e->req.nonce, WIRE_NONCE_LEN) == 0) {
		if (nfds || known < 0)
			fuzz_fail("HELLO: an arena for a token never given out");
		if (H.a[known].uid != c->uid)
			fuzz_fail("HELLO: another user's arena joined");
		c->arena = known;
	} else {
		if (e->alive && e->drops == H.drops &&
		    H.a[e->arena].uid == c->uid)
			fuzz_fail("HELLO: a new arena for the token of one "
				  "that is alive");
		if (known >= 0)
			fuzz_fail("HELLO: an arena handed out before (another "
				  "process's)");
		if (nfds != 1)
			fuzz_fail("HELLO: a new arena without its descriptor");
		c->arena = arena_new(body, c->uid, fds[0]);
	}
	trace("  client %d: arena %d (%s)", ci, c->arena,
	      nfds ? "new" : "joined");
	memcpy(H.tok[ci], body, WIRE_NONCE_LEN);
}

static void ans_open(int ci, const struct expect *e, const uint8_t *body,
		     size_t len, const int *fds, int nfds)
{
	uint32_t b[3];		/* handle, kind, slot */
	struct hsock *hs;
	bool broker;

	if (len != sizeof(b))
		fuzz_fail("OPEN's answer is not a handle, a kind and a slot");
	memcpy(b, body, sizeof(b));
	broker = b[1] == WIRE_OPEN_BROKER;
	if (!b[0] || (b[1] && !broker))
		fuzz_fail("OPEN: handle 0 or an unknown kind");
	if (nfds != (broker ? 2 : 1))
		fuzz_fail("OPEN: not the descriptors of its kind");
	if (broker ? b[2] != 0 : b[2] == 0 || b[2] >= WIRE_ARENA_SLOTS)
		fuzz_fail("OPEN: a slot out of the arena, or one for a "
			  "broker socket");
	if (hs_find(b[0]))
		fuzz_fail("OPEN: a handle given out before");
	open_allowed(&H.c[ci], &e->req, broker);
	fd_is(fds[0], S_IFSOCK, "OPEN: the first descriptor is no socket");
	hs = hs_new(b[0], e->req.u.open.domain);
	if (hs) {
		hs->broker = broker;
		hs->raw = (e->req.u.open.type & 0xf) == SOCK_RAW;
		hs->uid = H.c[ci].uid;
		hs->attached = broker ? 0 : 1u << ci;
	}
	if (broker) {
		hs_keep(hs, K_KSOCK, fds[0]);
		hs_keep(hs, K_LIVE, fds[1]);
		return;
	}
	slot_given(hs, H.c[ci].arena, b[2]);
	hs_keep(hs, K_DATA, fds[0]);
}

static void ans_attach(int ci, const struct expect *e, const uint8_t *body,
		       size_t len, int nfds)
{
	struct hsock *hs = hs_find(e->req.handle);
	uint32_t b[3];		/* handle, family, slot */

	if (len != sizeof(b) || nfds)
		fuzz_fail("ATTACH: not a handle, a family and a slot alone");
	memcpy(b, body, sizeof(b));
	if (!hs || hs->broker || b[0] != e->req.handle ||
	    (int)b[1] != hs->family)
		fuzz_fail("ATTACH: to a socket this harness did not open");
	if (b[2] == 0 || b[2] >= WIRE_ARENA_SLOTS)
		fuzz_fail("ATTACH: a slot out of the arena");
	proof_use(hs, e->req.nonce);
	hs->attached |= 1u << ci;
	slot_given(hs, H.c[ci].arena, b[2]);
}

static void ans_broker_bind(const struct expect *e, size_t len,
			    const int *fds, int nfds)
{
	struct hsock *hs = hs_find(e->req.handle);

	if (len || nfds != 1)
		fuzz_fail("BROKER_BIND: not one descriptor alone");
	if (!hs || !hs->broker)
		fuzz_fail("BROKER_BIND: for a socket not in broker mode");
	if (hs->rebound)
		fuzz_fail("BROKER_BIND: a second time for one socket");
	if (H.cfg.stable && (e->req.flags & WIRE_BB_KEEPID) &&
	    !H.cfg.ident_keep)
		fuzz_fail("BROKER_BIND: keepid where the policy forbids it");
	proof_use(hs, e->req.nonce);
	hs->rebound = true;
	close_fd(&hs->fd[K_KOLD]);
	hs->fd[K_KOLD] = hs->fd[K_KSOCK];
	hs->fd[K_KSOCK] = -1;
	hs_keep(hs, K_KSOCK, fds[0]);
}

static bool needs_sock(uint16_t type)
{
	return type == WIRE_DETACH || type == WIRE_BIND ||
	       type == WIRE_CONNECT || type == WIRE_SEND ||
	       type == WIRE_SETOPT || type == WIRE_GETOPT ||
	       type == WIRE_GETNAME || type == WIRE_GETPEER ||
	       type == WIRE_SHUTDOWN || type == WIRE_KEEPID ||
	       type == WIRE_ERRQ;
}

/* The clients of ci's arena (ci's process), as hs->attached's bits. */
static unsigned arena_mates(int ci)
{
	unsigned m = 1u << ci;

	for (int i = 0; H.c[ci].arena >= 0 && i < MAX_CLIENTS; i++)
		if (H.c[i].fd >= 0 && H.c[i].arena == H.c[ci].arena)
			m |= 1u << i;
	return m;
}

/*
 * A DETACH of ci's done.  With WIRE_RQ_SOLE (sent only while nothing
 * else is in flight: detach_sole) every connection of ci's arena lets
 * go of hs, and hs's slot there is given back (and may go to another
 * socket of the arena).
 */
static void detached(struct hsock *hs, int ci, bool sole)
{
	int a = H.c[ci].arena;

	uint32_t w[8];

	hs->attached &= ~(1u << ci);
	if (!sole || hs->broker || a < 0)
		return;
	hs->attached &= ~arena_mates(ci);
	if (hs->slot[a]) {
		slot_read(&H.a[a], hs->slot[a], w);
		for (int i = 0; i < 8; i++)
			if (w[i])
				fuzz_fail("DETACH with WIRE_RQ_SOLE: the slot "
					  "not given back (not zeroed)");
	}
	hs->slot[a] = 0;
}

/* Only a connection that opened or attached a socket may use it; and
 * detach it with WIRE_RQ_SOLE, any connection of an arena one of whose
 * connections did. */
static void check_access(int ci, const struct expect *e, int32_t result)
{
	struct hsock *hs = hs_find(e->req.handle);
	bool sole = e->req.type == WIRE_DETACH &&
		    (e->req.rqflags & WIRE_RQ_SOLE);
	bool may = hs && (hs->attached & (1u << ci));

	/* With WIRE_RQ_SOLE: the socket has a slot in ci's arena. */
	if (hs && sole && !hs->broker && H.c[ci].arena >= 0)
		may = may || hs->slot[H.c[ci].arena] != 0;
	if (!may) {
		if (result != WIRE_R_UNATTACHED && result != -EBADF)
			fuzz_fail("a socket served to a connection that "
				  "neither opened nor attached it");
		if (hs && !hs->gone && !hs->broker &&
		    result != WIRE_R_UNATTACHED)
			fuzz_fail("EBADF for a socket that exists");
		return;
	}
	if (!hs->gone && result == WIRE_R_UNATTACHED)
		fuzz_fail("a socket refused to a connection attached to it");
	if (e->req.type == WIRE_DETACH && result == 0)
		detached(hs, ci, e->req.rqflags & WIRE_RQ_SOLE);
}

/*
 * WIRE_ERRQ's record: its data's whole length, then a well-formed error
 * record of the socket's family (as the library decodes it), then as
 * much of its data as fits; about a request that socket sent.
 */
static void ans_errq(const struct expect *e, const uint8_t *body, size_t len)
{
	const struct hsock *hs = hs_find(e->req.handle);
	struct wire_dgram dg;
	uint32_t full;
	size_t data;

	if (!hs || len < 4 + WIRE_DGRAM_HDR)
		fuzz_fail("ERRQ: a record shorter than its header");
	memcpy(&full, body, 4);
	data = len - 4 - WIRE_DGRAM_HDR;
	if (data != (full < WIRE_ERRQ_DATA_MAX ? full : WIRE_ERRQ_DATA_MAX))
		fuzz_fail("ERRQ: not as much of the record's data as fits");
	if (wire_decode_dgram(body + 4, len - 4, WIRE_DGRAM_HDR + (size_t)full,
			      WIRE_CHAN_ERR, hs->family, &dg) != 0 ||
	    dg.kind != WIRE_DG_ERROR)
		fuzz_fail("ERRQ: a malformed record");
	trace("  socket %#x: error record, errno %u, origin %u, %u bytes",
	      hs->handle, dg.ee_errno, dg.ee_origin, full);
	if (dg.ee_origin != SO_EE_ORIGIN_LOCAL && data >= ICMP_HDR_LEN &&
	    !seq_known(hs, body + 4 + WIRE_DGRAM_HDR))
		fuzz_fail("an error about a request its socket did not send");
}

/* GETOPT: within the caller's buffer; SO_ERROR (the daemon's own,
 * taking the pending error) an errno or 0. */
static void ans_getopt(const struct expect *e, int32_t result,
		       const uint8_t *body, size_t len)
{
	int v;

	if (len > e->req.u.opt.len || (uint32_t)result > e->req.u.opt.len)
		fuzz_fail("GETOPT: more than the caller's buffer");
	if (e->req.u.opt.level != SOL_SOCKET || e->req.u.opt.name != SO_ERROR ||
	    len < sizeof(v))
		return;
	memcpy(&v, body, sizeof(v));
	if (v < 0 || v > WIRE_ERRNO_MAX)
		fuzz_fail("GETOPT SO_ERROR: no errno");
}

static void ans_table(int ci, const uint8_t *body, size_t len)
{
	struct wire_table_hdr th;

	if (wire_table_check(body, len, &th) != 0 ||
	    !(th.flags & WIRE_TABLE_ALL) != (H.c[ci].uid != 0))
		fuzz_fail("TABLE: a malformed page");
	for (size_t i = 0; i < th.count; i++) {
		struct wire_table_entry te;

		wire_table_entry_at(body, i, &te);
		if (H.c[ci].uid && te.uid != H.c[ci].uid)
			fuzz_fail("TABLE: another user's socket");
	}
}

/* USERS: a well-formed page, ascending from the cursor; root's lists
 * anyone, anyone else's only its own uid. */
static void ans_users(int ci, const struct expect *e, const uint8_t *body,
		      size_t len)
{
	struct wire_users_hdr uh;

	if (wire_users_check(body, len, e->req.u.cursor, &uh) != 0 ||
	    !(uh.flags & WIRE_USERS_ALL) != (H.c[ci].uid != 0))
		fuzz_fail("USERS: a malformed page");
	for (size_t i = 0; i < uh.count; i++) {
		struct wire_user_entry ue;

		wire_user_entry_at(body, i, &ue);
		if (H.c[ci].uid && ue.uid != H.c[ci].uid)
			fuzz_fail("USERS: another user's counters");
	}
}

/* WIRE_FIND found a socket: a relayed one this harness knows, of the
 * family and kind it has, whose data descriptor has the cookie asked. */
static void ans_find(int ci, const struct expect *e, const uint8_t *body,
		     size_t len)
{
	uint32_t b[3];
	uint64_t cookie = 0;
	socklen_t clen = sizeof(cookie);
	struct hsock *hs;

	if (len != sizeof(b))
		fuzz_fail("FIND: not handle, family, flags");
	memcpy(b, body, sizeof(b));
	hs = hs_find(b[0]);
	if (!hs || hs->broker || (int)b[1] != hs->family ||
	    !(b[2] & WIRE_FIND_RAW) != !hs->raw)
		fuzz_fail("FIND: not a relayed socket as it was opened");
	if (hs->uid != H.c[ci].uid)
		fuzz_fail("FIND: another user's socket");
	if (hs->fd[K_DATA] >= 0 &&
	    (getsockopt(hs->fd[K_DATA], SOL_SOCKET, SO_COOKIE, &cookie,
			&clen) != 0 || cookie != e->req.u.cookie))
		fuzz_fail("FIND: another socket than the cookie's");
}

static void ans_other(int ci, const struct expect *e, int32_t result,
		      const uint8_t *body, size_t len)
{
	if (needs_sock(e->req.type) && !e->waited)
		check_access(ci, e, result);
	if (e->req.type == WIRE_ERRQ && result < 0 && result != -EAGAIN &&
	    result != WIRE_R_UNATTACHED && result != -EBADF)
		fuzz_fail("ERRQ: neither a record nor EAGAIN");
	if (result < 0)
		return;
	switch (e->req.type) {
	case WIRE_STATS: {
		struct wire_stats st;

		if (len != sizeof(st))
			fuzz_fail("STATS: not a struct wire_stats");
		memcpy(&st, body, sizeof(st));
		if (wire_stats_check(&st) != 0)
			fuzz_fail("STATS: a malformed struct wire_stats");
		break;
	}
	case WIRE_TABLE:
		ans_table(ci, body, len);
		break;
	case WIRE_USERS:
		ans_users(ci, e, body, len);
		break;
	case WIRE_SEND:
		if ((uint32_t)result != e->req.u.send.len)
			fuzz_fail("SEND: not the length sent");
		break;
	case WIRE_GETOPT:
		ans_getopt(e, result, body, len);
		break;
	case WIRE_GETNAME:
	case WIRE_GETPEER:
		if (len > 28)
			fuzz_fail("GETNAME: longer than a sockaddr_in6");
		break;
	case WIRE_ERRQ:
		ans_errq(e, body, len);
		break;
	case WIRE_FIND:
		ans_find(ci, e, body, len);
		break;
	default:
		break;
	}
}

/* A checked answer to what it answers: its own check. */
static void ans_route(int ci, const struct expect *e, int32_t result,
		      const uint8_t *body, size_t len, const int *fds, int nfds)
{
	uint16_t t = e->req.type;

	if (t == WIRE_HELLO) {
		ans_hello(ci, e, result, body, len, fds, nfds);
	} else if (result < 0 || (t != WIRE_OPEN && t != WIRE_ATTACH &&
				  t != WIRE_BROKER_BIND)) {
		if (nfds)
			fuzz_fail("descriptors with an answer that has none");
		ans_other(ci, e, result, body, len);
	} else if (t == WIRE_OPEN) {
		ans_open(ci, e, body, len, fds, nfds);
	} else if (t == WIRE_ATTACH) {
		ans_attach(ci, e, body, len, nfds);
	} else {
		ans_broker_bind(e, len, fds, nfds);
	}
}

static void on_answer(int ci, const uint8_t *buf, size_t n, const int *fds,
		      int nfds)
{
	struct fclient *c = &H.c[ci];
	struct expect e;
	uint16_t type, pad;
	int32_t result;

	if (!c->nout)
		fuzz_fail("an answer to no request");
	e = c->out[c->head];
	if (e.disconnect)
		fuzz_fail("an answer to a request that must be refused "
			  "(malformed, with descriptors, or not allowed now)");
	c->head = (c->head + 1) % MAX_OUT;
	c->nout--;
	c->answered = true;
	if (n < WIRE_RESP_HDR)
		fuzz_fail("an answer shorter than its header");
	memcpy(&type, buf, 2);
	memcpy(&pad, buf + 2, 2);
	memcpy(&result, buf + 4, 4);
	trace("  client %d: answer type %u result %d, %zu bytes, %d fds", ci,
	      type, result, n - WIRE_RESP_HDR, nfds);
	if (type != e.req.type || pad)
		fuzz_fail("an answer of another type than its request");
	if (result < 0 && (n > WIRE_RESP_HDR || nfds))
		fuzz_fail("a failed request answered with a body or descriptors");
	check_lib(&e, buf, n, fds, nfds);
	ans_route(ci, &e, result, buf + WIRE_RESP_HDR, n - WIRE_RESP_HDR, fds,
		  nfds);
}

/* The daemon hung up on client ci: only for a request it must refuse,
 * or a connection refused when it was accepted. */
static void on_eof(int ci)
{
	struct fclient *c = &H.c[ci];

	trace("  client %d: hung up on", ci);
	if (!(c->nout && c->out[c->head].disconnect) &&
	    !(c->listener && !c->answered))
		fuzz_fail("a client disconnected after valid requests only");
	client_gone(ci);
}

/* The descriptors of a message; how many. */
static int take_fds(struct msghdr *mh, int *fds, int max)
{
	int n = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			fuzz_fail("an answer with other control data");
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (n == max)
				fuzz_fail("too many descriptors");
			fds[n++] = fd;
		}
	}
	return n;
}

/* What came for client ci: until it waits for nothing more (all: the
 * last look, to see that nothing came that nobody asked for). */
/*
 * The sends at the head of c's queue that the daemon has answered in
 * the answer slot, taken and checked like a channel's answer.  false if
 * the head is one that it has not answered yet: nothing can come on the
 * channel before (the daemon takes a client's requests in order).
 */
static bool slot_answers(int ci)
{
	struct fclient *c = &H.c[ci];

	while (c->nout && c->out[c->head].in_slot && !c->out[c->head].disconnect) {
		const struct expect *e = &c->out[c->head];
		const struct wire_shm *w;
		uint8_t msg[WIRE_RESP_HDR] = { 0 };
		int32_t result;

		if (c->arena < 0 || !c->ans_slot)
			fuzz_fail("a send answered in a slot it has none of");
		w = &H.a[c->arena].map[c->ans_slot];
		if (atomic_load(&w->ans_seq) != e->slot_seq)
			return false;
		result = atomic_load(&w->ans_result);
		trace("  client %d: slot answer %u result %d", ci,
		      e->slot_seq, result);
		memcpy(msg, &e->req.type, 2);
		memcpy(msg + 4, &result, 4);
		check_lib(e, msg, sizeof(msg), NULL, 0);
		ans_route(ci, e, result, NULL, 0, NULL, 0);
		c->head = (c->head + 1) % MAX_OUT;
		c->nout--;
		c->answered = true;
	}
	return true;
}

static void read_answers(int ci, bool all)
{
	struct fclient *c = &H.c[ci];
	static uint8_t buf[ANSWER_MAX];

	while (c->fd >= 0 && slot_answers(ci) &&
	       (all || c->nout || (c->listener && !c->answered))) {
		union {
			struct cmsghdr align;
			char b[CMSG_SPACE(8 * sizeof(int))];
		} cb;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cb.b,
				     .msg_controllen = sizeof(cb.b) };
		int fds[8], nfds;
		ssize_t n = recvmsg(c->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EAGAIN)
			return;
		nfds = n > 0 ? take_fds(&mh, fds, 8) : 0;
		if (n > 0 && (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
			fuzz_fail("an answer longer than the protocol allows");
		if (n <= 0) {
			on_eof(ci);
			return;
		}
		on_answer(ci, buf, (size_t)n, fds, nfds);
	}
}

/* One turn of the daemon's loop; then the answers of the clients that
 * wait for one (or to be accepted). */
static void turn(void)
{
	server_fuzz_turn(H.s);
	for (int i = 0; i < MAX_CLIENTS; i++)
		read_answers(i, false);
}

/* ---- what the requests carry ---- */

static const char *const addrs4[] = {
	"127.0.0.1", "10.0.0.1", "192.0.2.7", "198.18.0.1",
	"224.0.0.1", "255.255.255.255", "0.0.0.0", "192.0.2.255",
};
static const char *const addrs6[] = {
	"::1", "2001:db8:1::1", "2001:db8:2::7", "2001:db8:3::1",
	"ff02::1", "fe80::1", "::", "::ffff:127.0.0.1",
};

/* A socket address as a caller gives one: mostly well formed, of the
 * family, with port; sometimes short, of another family, or empty. */
static uint32_t make_addr(int family, uint16_t port, uint8_t *sa)
{
	uint8_t how = fin_u8(&H.in), k = how & 7;
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	uint32_t len;

	if ((how & 0x38) == 0x38)
		family = family == AF_INET ? AF_INET6 : AF_INET;
	memset(sa, 0, WIRE_ADDR_MAX);
	if (family == AF_INET6) {
		inet_pton(AF_INET6, addrs6[k], &s6.sin6_addr);
		s6.sin6_scope_id = (how & 0x40) ? (how >> 7) + 1 : 0;
		memcpy(sa, &s6, sizeof(s6));
		len = sizeof(s6);
	} else {
		inet_pton(AF_INET, addrs4[k], &s4.sin_addr);
		memcpy(sa, &s4, sizeof(s4));
		len = sizeof(s4);
	}
	switch ((how >> 3) & 7) {
	case 4:
		return 2;		/* the family alone */
	case 5:
		sa[0] = AF_UNSPEC;	/* AF_UNSPEC: unbind, disconnect */
		return len;
	case 6:
		return fin_u8(&H.in) % (WIRE_ADDR_MAX + 1);
	default:
		return len;
	}
}

/* An Echo Request (or another type) with a sequence number of its own. */
static size_t make_echo(int family, uint8_t *msg, size_t cap)
{
	uint8_t how = fin_u8(&H.in), plen = fin_u8(&H.in);
	size_t len = ICMP_HDR_LEN + (plen < 200 ? plen % 64u : (plen - 200u) * 64u);
	uint16_t id = fin_u16(&H.in), seq = htons(++H.seq), s;

	if (len > cap)
		len = cap;
	for (size_t i = ICMP_HDR_LEN; i < len; i++)
		msg[i] = (uint8_t)i;
	msg[0] = family == AF_INET6 ? 128 : 8;
	msg[1] = 0;
	if (how % 8 == 5)
		msg[0] = family == AF_INET6 ? 160 : 42;
	else if (how % 8 == 6)
		msg[0] = fin_u8(&H.in);
	else if (how % 8 == 7)
		msg[1] = 1;
	memcpy(msg + 4, &id, 2);
	memcpy(msg + 6, &seq, 2);
	msg[2] = msg[3] = 0;
	s = icmp_checksum(msg, len);
	memcpy(msg + 2, &s, 2);
	return len;
}

static size_t put_cmsg(uint8_t *ctl, size_t off, int level, int type,
		       const void *data, size_t len)
{
	struct cmsghdr h = { .cmsg_len = CMSG_LEN(len), .cmsg_level = level,
			     .cmsg_type = type };

	if (off + CMSG_SPACE(len) > WIRE_CTL_MAX)
		return off;
	memset(ctl + off, 0, CMSG_SPACE(len));
	memcpy(ctl + off, &h, sizeof(h));
	memcpy(ctl + off + CMSG_LEN(0), data, len);
	return off + CMSG_SPACE(len);
}

/* Ancillary data of a send: what a program may give, or junk. */
static uint32_t make_ctl(int family, uint8_t *ctl)
{
	uint8_t how = fin_u8(&H.in);
	int v = (int8_t)fin_u8(&H.in);
	struct in_pktinfo pi = { .ipi_ifindex = v & 3 };
	struct in6_pktinfo pi6 = { .ipi6_ifindex = (unsigned)v & 3 };
	size_t off = 0;

	pi6.ipi6_addr.s6_addr[15] = (uint8_t)(how >> 7);
	switch (how % 10) {
	case 1:
		off = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
		break;
	case 2:
		off = put_cmsg(ctl, 0, SOL_IP, IP_TOS, &v, sizeof(v));
		break;
	case 3:
		off = put_cmsg(ctl, 0, SOL_IP, IP_PKTINFO, &pi, sizeof(pi));
		break;
	case 4:
		off = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
		break;
	case 5:
		off = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v));
		break;
	case 6:
		off = put_cmsg(ctl, 0, SOL_IPV6, IPV6_PKTINFO, &pi6, sizeof(pi6));
		break;
	case 7:
		off = put_cmsg(ctl, 0, SOL_SOCKET, SCM_RIGHTS, &v, sizeof(v));
		break;
	case 8:
		off = fin_bytes(&H.in, ctl, fin_u8(&H.in) % 48);
		break;
	case 9:
		off = put_cmsg(ctl, 0, family == AF_INET6 ? SOL_IPV6 : SOL_IP,
			       family == AF_INET6 ? IPV6_HOPLIMIT : IP_TTL,
			       &v, sizeof(v));
		off = put_cmsg(ctl, off, SOL_SOCKET, SO_PRIORITY, &v, sizeof(v));
		break;
	default:
		break;
	}
	return (uint32_t)off;
}

/* The options a caller may set or read, and what their values are. */
enum optval { OV_INT, OV_BYTES, OV_DEV };
static const struct {
	int level, name;
	enum optval kind;
} opts[] = {
	{ SOL_SOCKET, SO_REUSEADDR, OV_INT },
	{ SOL_SOCKET, SO_BROADCAST, OV_INT },
	{ SOL_SOCKET, SO_RCVBUF, OV_INT },
	{ SOL_SOCKET, SO_TIMESTAMP, OV_INT },
	{ SOL_SOCKET, SO_TIMESTAMPING, OV_INT },
	{ SOL_SOCKET, SO_BINDTOIFINDEX, OV_INT },
	{ SOL_SOCKET, SO_BINDTODEVICE, OV_DEV },
	{ SOL_SOCKET, SO_RXQ_OVFL, OV_INT },
	{ SOL_SOCKET, SO_ERROR, OV_INT },
	{ SOL_SOCKET, SO_TYPE, OV_INT },
	{ SOL_IP, IP_RECVERR, OV_INT },
	{ SOL_IP, IP_TTL, OV_INT },
	{ SOL_IP, IP_MTU_DISCOVER, OV_INT },
	{ SOL_IP, IP_PKTINFO, OV_INT },
	{ SOL_IP, IP_RECVTTL, OV_INT },
	{ SOL_IP, IP_OPTIONS, OV_BYTES },
	{ SOL_IP, IP_MTU, OV_INT },
	{ SOL_IP, IP_MULTICAST_TTL, OV_INT },
	{ SOL_IPV6, IPV6_RECVERR, OV_INT },
	{ SOL_IPV6, IPV6_UNICAST_HOPS, OV_INT },
	{ SOL_IPV6, IPV6_MTU_DISCOVER, OV_INT },
	{ SOL_IPV6, IPV6_MTU, OV_INT },
	{ SOL_IPV6, IPV6_RECVPKTINFO, OV_INT },
	{ SOL_IPV6, 32, OV_BYTES },	/* IPV6_FLOWLABEL_MGR */
	{ SOL_IPV6, 33, OV_INT },	/* IPV6_FLOWINFO_SEND */
	{ SOL_IPV6, IPV6_V6ONLY, OV_INT },
	{ SOL_RAW, 1, OV_BYTES },	/* ICMP_FILTER */
	{ IPPROTO_ICMPV6, 1, OV_BYTES },	/* ICMP6_FILTER */
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static int pick_int(void)
{
	static const int v[] = { 0, 1, 2, -1, 64, 255, 256, 4096, 65536 };
	uint8_t b = fin_u8(&H.in);

	return b < 9 * 24 ? v[b % 9] : (int)fin_u32(&H.in);
}

/* A value for option k into val; its length. */
static uint32_t make_optval(unsigned k, uint8_t *val)
{
	uint8_t how = fin_u8(&H.in);
	int v;

	if (opts[k].kind == OV_DEV) {
		strcpy((char *)val, how & 1 ? "eth0" : how & 2 ? "lo" : "nope0");
		return how & 4 ? 0 : (uint32_t)strlen((char *)val) + (how >> 7);
	}
	if (opts[k].kind == OV_BYTES)
		return (uint32_t)fin_bytes(&H.in, val, how % 40u);
	v = pick_int();
	memcpy(val, &v, sizeof(v));
	return how < 0xe0 ? sizeof(v) : how % 9u;
}

/* ---- operations ---- */

/* The first of a request: the client, and the request's type. */
static bool req_start(int *ci, struct wire_req *req, uint16_t type)
{
	memset(req, 0, sizeof(*req));
	req->type = type;
	return pick_client(ci) != NULL;
}

static int req_family(uint32_t handle)
{
	struct hsock *hs = hs_find(handle);

	return hs ? hs->family : AF_INET;
}

/*
 * The arena token of a HELLO from client ci: its process's (zeros if it
 * has none yet), another process's (a forked child of it), none (a new
 * process), or a forged one (from the input, never zero).
 */
static void hello_token(int ci, uint8_t *token)
{
	uint8_t how = fin_u8(&H.in);

	switch (how & 3) {
	case 0:
		memcpy(token, H.tok[ci], WIRE_NONCE_LEN);
		break;
	case 1:
		memcpy(token, H.tok[(how >> 2) % MAX_CLIENTS], WIRE_NONCE_LEN);
		break;
	case 2:
		memset(token, 0, WIRE_NONCE_LEN);
		break;
	default:
		fin_bytes(&H.in, token, WIRE_NONCE_LEN);
		token[0] |= 0x80;
		break;
	}
}

static void op_hello(void)
{
	struct wire_req req;
	uint8_t v;
	int ci;

	if (!req_start(&ci, &req, WIRE_HELLO))
		return;
	v = fin_u8(&H.in);
	req.u.version = v < 0xf0 ? WIRE_VERSION : v & 7;
	hello_token(ci, req.nonce);
	send_req(ci, &req, NULL, 0, false);
}

static void op_open(void)
{
	static const int types[] = {
		SOCK_DGRAM, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		SOCK_RAW, SOCK_STREAM, SOCK_DGRAM | 0x100, 11,
	};
	struct wire_req req;
	uint8_t how;
	int ci;

	if (!req_start(&ci, &req, WIRE_OPEN))
		return;
	how = fin_u8(&H.in);
	req.u.open.domain = how & 1 ? AF_INET6 : AF_INET;
	if ((how & 0x0e) == 0x0e)
		req.u.open.domain = how >> 4;	/* AF_UNIX, AF_PACKET, ... */
	req.u.open.type = types[(how >> 4) % 6 < 2 ? 0 : (how >> 4) % 6];
	if (how & 0x40)
		req.u.open.type = types[1];
	req.u.open.protocol = req.u.open.domain == AF_INET6 ? IPPROTO_ICMPV6
							   : IPPROTO_ICMP;
	if ((how & 0x06) == 0x06)
		req.u.open.protocol = how & 0x80 ? 0 : IPPROTO_UDP;
	send_req(ci, &req, NULL, 0, false);
}

/* BIND or CONNECT: an address; the port an identifier. */
static void op_addr(uint16_t type)
{
	struct wire_req req;
	uint16_t port;
	int ci;

	if (!req_start(&ci, &req, type))
		return;
	req.handle = pick_handle();
	port = fin_u8(&H.in) & 1 ? fin_u16(&H.in) : 0;
	req.u.addr.len = make_addr(req_family(req.handle), port,
				   req.u.addr.bytes);
	send_req(ci, &req, NULL, 0, false);
}

static void op_send(void)
{
	static uint8_t msg[8 + 200 * 64];
	uint8_t ctl[WIRE_CTL_MAX];
	struct wire_req req;
	uint8_t how;
	size_t len;
	int ci, family;

	if (!req_start(&ci, &req, WIRE_SEND))
		return;
	req.handle = pick_handle();
	family = req_family(req.handle);
	how = fin_u8(&H.in);
	len = make_echo(family, msg, sizeof(msg));
	req.u.send.flags = how & 1 ? MSG_DONTWAIT : 0;
	if (how & 0x20)
		req.rqflags = WIRE_RQ_SLOT;	/* answered in the slot */
	if ((how & 6) == 6)
		req.u.send.flags = (int)fin_u32(&H.in);
	req.u.send.len = (uint32_t)len;
	req.u.send.datalen = (uint32_t)len;
	req.u.send.namelen = how & 8 ? WIRE_NO_NAME
				     : make_addr(family, 0, req.u.send.name);
	req.u.send.ctllen = how & 0x10 ? make_ctl(family, ctl) : 0;
	req.u.send.ctl = ctl;
	if (how >= 0xf8) {	/* over 0xFFFF: no data, EMSGSIZE */
		req.u.send.len = WIRE_DATA_MAX + 1;
		len = 0;
	}
	send_req(ci, &req, msg, len, false);
}

static void op_opt(uint16_t type)
{
	struct wire_req req;
	unsigned k;
	int ci;

	if (!req_start(&ci, &req, type))
		return;
	req.handle = pick_handle();
	k = fin_u8(&H.in) % NOPTS;
	req.u.opt.level = opts[k].level;
	req.u.opt.name = opts[k].name;
	if (type == WIRE_SETOPT) {
		req.u.opt.len = make_optval(k, req.u.opt.val);
	} else {
		uint8_t l = fin_u8(&H.in);

		req.u.opt.len = l < 0xc0 ? 4 : l < 0xf0 ? l % 9u : WIRE_OPTVAL_MAX;
	}
	send_req(ci, &req, NULL, 0, false);
}

static void op_keepid(void)
{
	struct wire_req req;
	int ci;

	if (!req_start(&ci, &req, WIRE_KEEPID))
		return;
	req.handle = pick_handle();
	req.u.ident = fin_u16(&H.in);
	send_req(ci, &req, NULL, 0, false);
}

/* A nonce no other proof has: a fresh one, or one never written. */
static void make_nonce(uint8_t *nonce, bool written)
{
	uint32_t n = ++H.nonces;

	fin_bytes(&H.in, nonce, WIRE_NONCE_LEN);
	nonce[0] = written ? 0xa5 : 0x5a;
	memcpy(nonce + 1, &n, sizeof(n));
}

/* The nonce of the last proof written on hs's descriptor, or none. */
static void proof_nonce(const struct hsock *hs, uint8_t *nonce)
{
	uint8_t how = fin_u8(&H.in);

	if (hs && hs->nproofs && how < 0xe0)
		memcpy(nonce, hs->proof[(hs->nproofs - 1) % NPROOF],
		       WIRE_NONCE_LEN);
	else
		make_nonce(nonce, false);
}

static void op_attach(void)
{
	struct wire_req req;
	int ci;

	if (!req_start(&ci, &req, WIRE_ATTACH))
		return;
	req.handle = pick_handle();
	proof_nonce(hs_find(req.handle), req.nonce);
	send_req(ci, &req, NULL, 0, false);
}

static void op_broker_bind(void)
{
	static const int32_t ifs[] = { 0, 0, 1, 2, 99 };
	struct wire_req req;
	uint16_t port;
	uint8_t how;
	int ci;

	if (!req_start(&ci, &req, WIRE_BROKER_BIND))
		return;
	req.handle = pick_handle();
	proof_nonce(hs_find(req.handle), req.nonce);
	how = fin_u8(&H.in);
	req.flags = how & WIRE_BB_ALL;
	req.ifindex = ifs[(how >> 3) % 5];
	port = how & 0x80 ? fin_u16(&H.in) : 0;
	req.u.addr.len = make_addr(req_family(req.handle), port,
				   req.u.addr.bytes);
	send_req(ci, &req, NULL, 0, false);
}

/* Another socket than hs whose own descriptor is open, or NULL. */
static struct hsock *other_hsock(const struct hsock *hs)
{
	for (unsigned i = 1; i < H.nh; i++) {
		struct hsock *o = &H.h[((unsigned)(hs - H.h) + i) % H.nh];

		if (*hs_own(o) >= 0)
			return o;
	}
	return NULL;
}

/* A nonce written on hs's descriptor (good once), or not (never). */
static void proof_note(struct hsock *hs, const uint8_t *nonce, bool good)
{
	memcpy(hs->proof[hs->nproofs % NPROOF], nonce, WIRE_NONCE_LEN);
	hs->proof_used[hs->nproofs % NPROOF] = !good;
	hs->nproofs++;
}

/* Proof of holding a socket: written on its descriptor, or another's
 * (which it proves, and not this one), or not quite a proof. */
static void op_proof(void)
{
	struct hsock *hs = pick_hsock(), *on = hs;
	struct wire_proof pf = { .magic = WIRE_PROOF_MAGIC };
	uint8_t how = fin_u8(&H.in);
	struct iovec iov = { &pf, sizeof(pf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int passfd = -1;
	bool counts = true;

	if (!hs)
		return;
	make_nonce(pf.nonce, true);
	if (how % 6 == 1 && other_hsock(hs)) {
		on = other_hsock(hs);
		proof_note(hs, pf.nonce, false);
	} else if (how % 6 == 2) {
		pf.magic ^= 1u << (how >> 5);
		counts = false;
	} else if (how % 6 == 3) {
		iov.iov_len = sizeof(pf) - 1 - (how >> 4);
		counts = false;
	} else if (how % 6 == 4) {
		passfd = passable();
	}
	if (*hs_own(on) < 0 ||
	    send_rights(*hs_own(on), &mh, passfd, closer_kernel_refuses()) < 0)
		counts = false;
	close_fd(&passfd);
	if (counts)
		proof_note(on, pf.nonce, true);
}

/* Is any request of any client still unanswered? */
static bool waiting(void)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (H.c[i].fd >= 0 && H.c[i].nout)
			return true;
	return false;
}

/*
 * DETACH with WIRE_RQ_SOLE: the process says no other maps its arena,
 * and its connections all let go of the socket.  Sent only when nothing
 * else is in flight, and answered before anything more is sent: another
 * connection's request served before it or after it would see another
 * daemon, and the model could not tell which.
 */
static void answered_now(int ci)
{
	for (int i = 0; i < 8 && H.c[ci].fd >= 0 && H.c[ci].nout; i++)
		turn();
	if (H.c[ci].fd >= 0 && H.c[ci].nout)
		fuzz_fail("DETACH: no answer within 8 turns");
}

/* Before one: the daemon sees the hang-ups of connections closed here
 * (a connection of the arena that it still thinks holds the socket would
 * have it served where the model refuses it). */
static void hangups_seen(void)
{
	server_fuzz_turn(H.s);
	server_fuzz_turn(H.s);
}

static void detach_sole(int ci, struct wire_req *req)
{
	req->rqflags = WIRE_RQ_SOLE;
	hangups_seen();
	send_req(ci, req, NULL, 0, false);
	answered_now(ci);
}

/* A raw frame the daemon reads as a DETACH with WIRE_RQ_SOLE goes as
 * detach_sole()'s does (true), or, with requests in flight, without the
 * flag (its bytes changed). */
static bool sole_frame(uint8_t *buf, size_t n)
{
	struct wire_req r;

	if (wire_decode_req(buf, n, &r) || r.type != WIRE_DETACH ||
	    !(r.rqflags & WIRE_RQ_SOLE))
		return false;
	if (!waiting()) {
		hangups_seen();
		return true;
	}
	buf[2] = buf[3] = 0;
	return false;
}

/* The requests with no or a small argument. */
static void op_simple(void)
{
	static const uint16_t types[] = {
		WIRE_DETACH, WIRE_GETNAME, WIRE_GETPEER, WIRE_SHUTDOWN,
		WIRE_STATS, WIRE_TABLE, WIRE_ERRQ, WIRE_USERS, WIRE_FIND,
		WIRE_WAIT, WIRE_LOGLOST, WIRE_SETERR,
	};
	struct wire_req req;
	uint8_t how;
	int ci;

	if (!req_start(&ci, &req, 0))
		return;
	how = fin_u8(&H.in);
	req.type = types[how % (sizeof(types) / sizeof(types[0]))];
	if (req.type == WIRE_TABLE || req.type == WIRE_USERS)
		req.u.cursor = how & 0x80 ? fin_u8(&H.in) : 0;
	else if (req.type == WIRE_SHUTDOWN)
		req.u.how = how & 0x80 ? (int32_t)fin_u32(&H.in) : how >> 5;
	else if (req.type == WIRE_FIND)
		req.u.cookie = pick_cookie();
	else if (req.type == WIRE_SETERR)
		req.u.err = how & 0x80 ? (int32_t)fin_u32(&H.in) : 1 + (how >> 4);
	if (req.type != WIRE_STATS && req.type != WIRE_TABLE &&
	    req.type != WIRE_USERS && req.type != WIRE_FIND)
		req.handle = pick_handle();
	if (req.type == WIRE_DETACH && (how & 0x40) && !waiting())
		detach_sole(ci, &req);
	else
		send_req(ci, &req, NULL, 0, false);
}

/* One byte of buf changed as the input says. */
static void flip(uint8_t *buf, size_t n)
{
	uint8_t at = fin_u8(&H.in);

	buf[at % (n ? n : 1)] ^= fin_u8(&H.in);
}

/* A frame of the input's bytes, or a request made and then changed. */
static void op_rawframe(void)
{
	static uint8_t buf[512];
	struct wire_req req;
	uint8_t how;
	long n;
	int ci;

	if (!req_start(&ci, &req, 0))
		return;
	how = fin_u8(&H.in);
	if (how & 1) {
		n = (long)fin_bytes(&H.in, buf, fin_u8(&H.in));
	} else {
		req.type = (uint16_t)(how >> 1) % (WIRE_TYPE_END + 1);
		req.handle = pick_handle();
		if (req.type == WIRE_SEND || req.type == WIRE_BIND ||
		    req.type == WIRE_CONNECT || req.type == WIRE_BROKER_BIND)
			req.type = WIRE_STATS;	/* their lengths are 0: wrong */
		n = wire_encode_req(&req, buf, sizeof(buf) - 16);
		if (n < 0)
			n = 0;
		if (how & 2)	/* cut, or longer */
			n = how & 4 ? n - (n ? 1 : 0) : n + 4;
		else
			flip(buf, (size_t)n);
	}
	if (sole_frame(buf, (size_t)n)) {
		send_frame(ci, buf, (size_t)n, NULL, 0, false);
		answered_now(ci);
	} else {
		send_frame(ci, buf, (size_t)n, NULL, 0, false);
	}
}

/* A request with a descriptor attached: refused, one way or the other. */
static void op_passfd(void)
{
	struct wire_req req;
	int ci;

	if (!req_start(&ci, &req, fin_u8(&H.in) & 1 ? WIRE_STATS : WIRE_HELLO))
		return;
	req.u.version = WIRE_VERSION;
	send_req(ci, &req, NULL, 0, true);
}

static void op_close_fd(void)
{
	struct hsock *hs = pick_hsock();
	unsigned k = fin_u8(&H.in) % K_END;

	if (!hs || hs->fd[k] < 0)
		return;
	close_fd(&hs->fd[k]);
	if (&hs->fd[k] == hs_own(hs)) {
		hs->gone = true;	/* the daemon lets go of it */
		H.drops++;		/* and of its slots */
	}
}

static void op_clock(void)
{
	static const uint64_t ns[] = {
		1000000, 10000000, 100000000, 1000000000, 3000000000u,
		60000000000u,
	};

	fake_clock_advance(ns[fin_u8(&H.in) % 6]);
}

/*
 * A socket's state in the arenas that mirror it (plausible, and the same
 * in each), and an attempt to write an arena as a client would (the old
 * shared page's pending error, mostly): it must fail.
 */
static void op_arena(void)
{
	static const int32_t errs[] = { EHOSTUNREACH, ECONNREFUSED, EMSGSIZE,
					-1, 5000, 0 };
	struct hsock *hs = pick_hsock();
	uint8_t how = fin_u8(&H.in);
	int32_t v = errs[how % 6];
	off_t at = offsetof(struct wire_shm, err);
	int a = H.na ? (int)((how >> 3) % H.na) : -1;

	for (unsigned i = 0; hs && i < H.na; i++) {
		if (hs->slot[i]) {
			a = (int)i;
			at += (off_t)(hs->slot[i] * sizeof(struct wire_shm));
			break;
		}
	}
	if (a >= 0 && H.a[a].fd >= 0 &&
	    pwrite(H.a[a].fd, &v, sizeof(v), at) >= 0)
		fuzz_fail("a client wrote its state arena");
	if (hs)
		check_slots(hs);
	check_arena_fds();
}

/* What the fake kernel does next. */
static void op_knob(void)
{
	static const int raw_errs[] = { -EMSGSIZE, -ENOBUFS, -EPERM,
					-EHOSTUNREACH, -EAGAIN };
	static const int bind_errs[] = { -EADDRINUSE, -EACCES, -ENODEV,
					 -EMFILE };
	uint8_t how = fin_u8(&H.in);

	if (how % 3 == 0)
		fake_raw_fail_next(raw_errs[(how >> 2) % 5]);
	else if (how % 3 == 1)
		fake_broker_fail_next(bind_errs[(how >> 2) % 4]);
	else
		fake_kernel_ident(how & 4 ? AF_INET6 : AF_INET, fin_u16(&H.in));
}

/* A config file as text: the lines the input picks. */
static size_t config_text(char *t, size_t cap, struct fcfg *cfg)
{
	static const char *const rates[] = {
		"", "rate = 1\nburst = 1\n", "rate = 5\nburst = 2\n",
		"rate = 0\n", "rate = 2\nburst = 3\n", "rate = 1000\nburst = 1\n",
		"rate = 10\nburst = 1\n", "rate = 1\nburst = 3\n",
	};
	static const char *const nets[] = {
		"", "deny = 192.0.2.0/24\n",
		"allow = 127.0.0.0/8\nallow = ::1/128\n", "deny = 2001:db8::/32\n",
	};
	static const unsigned socks[] = { 8192, 1, 2, 3, 4, 0, 6, 2 };
	static const unsigned conns[] = { 4096, 1, 2, 0 };
	static const unsigned idents[] = { 4096, 1, 2, 0, 3, 300, 1, 2 };
	static const unsigned ivals[] = { 0, 1, 50, 1000 };
	static const unsigned reqs[] = { 65535, 64, 100, 1500 };
	uint8_t a = fin_u8(&H.in), b = fin_u8(&H.in), c = fin_u8(&H.in);
	int n;

	cfg->raw_compat = a & 1;
	cfg->ident_keep = !(a & 2);
	cfg->relay_1000 = a & 4;
	cfg->groups_1000 = a & 8;
	n = snprintf(t, cap, "raw_compat = %s\nident_keep = %s\n%s%s"
		     "max_sockets = %u\nmax_connections = %u\nmax_idents = %u\n"
		     "%smin_interval = %u\nmax_request = %u\n%s",
		     cfg->raw_compat ? "yes" : "no",
		     cfg->ident_keep ? "yes" : "no",
		     cfg->relay_1000 ? "relay_uids = 1000 1000\n" : "",
		     cfg->groups_1000 ? "groups = 1000 1000\n" : "",
		     socks[b & 7], conns[(b >> 3) & 3], idents[(b >> 5) & 7],
		     rates[c & 7], ivals[(c >> 3) & 3], reqs[(c >> 5) & 3],
		     nets[(a >> 4) & 3]);
	return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* SIGHUP: the daemon reads its config file again (this text). */
static void op_reload(void)
{
	char text[1024];
	struct fcfg cfg;
	size_t len;

	if (fin_u8(&H.in) & 1) {
		len = fin_bytes(&H.in, (uint8_t *)text, fin_u8(&H.in) % 64);
	} else {
		len = config_text(text, sizeof(text), &cfg);
	}
	fake_config_text(text, len);
	H.cfg.stable = false;
	raise(SIGHUP);
}

static bool reply_type(uint8_t type)
{
	return type == 0 || type == 43 || type == 129 || type == 161;
}

/* One datagram from a socket's data descriptor: a reply (to a request
 * that socket sent) or a wake-up, well formed as the library decodes it. */
static void check_dgram(const struct hsock *hs, const uint8_t *m, size_t n)
{
	const uint8_t *icmp = m + WIRE_DGRAM_HDR;
	struct wire_dgram dg;

	if (wire_decode_dgram(m, n, n, WIRE_CHAN_DATA, hs->family, &dg) != 0)
		fuzz_fail("a data descriptor's datagram the library refuses");
	if (dg.kind == WIRE_DG_WAKE)
		return;
	if (dg.kind != WIRE_DG_REPLY)
		fuzz_fail("a data descriptor's datagram of another kind");
	n -= WIRE_DGRAM_HDR;
	if (n >= ICMP_HDR_LEN && reply_type(icmp[0]) && !seq_known(hs, icmp))
		fuzz_fail("a reply to a request its socket did not send");
}

/* Read what a socket's data descriptor has queued, as its program
 * would (its error queue is WIRE_ERRQ's); then look at its state. */
static void op_read(void)
{
	static uint8_t buf[DGRAM_MAX];
	struct hsock *hs = pick_hsock();
	int fd;

	if (!hs || hs->broker)
		return;
	fd = hs->fd[K_DATA];
	for (int i = 0; fd >= 0 && i < 16; i++) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n <= 0)
			break;
		trace("  socket %#x: datagram of %zd bytes (kind %u)",
		      hs->handle, n, buf[0]);
		check_dgram(hs, buf, (size_t)n);
	}
	check_slots(hs);
}

/* ---- a session ---- */

enum op {
	OP_CONNECT, OP_HELLO, OP_OPEN, OP_BIND, OP_CONNECT_SOCK, OP_SEND,
	OP_SETOPT, OP_GETOPT, OP_KEEPID, OP_ATTACH, OP_PROOF, OP_BROKER_BIND,
	OP_SIMPLE, OP_RAWFRAME, OP_PASSFD, OP_ANSWER4, OP_ANSWER6, OP_FORGE,
	OP_CLOSE_CLIENT, OP_CLOSE_FD, OP_CLOCK, OP_ARENA, OP_KNOB, OP_RELOAD,
	OP_READ, OP_END
};

#define MAX_OPS 32
_Static_assert(MAX_OPS < MAX_ARENAS, "an arena for each HELLO");

static void run_op(void)
{
	uint8_t b = fin_u8(&H.in);
	unsigned op;

	trace("op %u%s (at %zu)", (b & 0x1f) % OP_END, b < 0xe0 ? "" : " (no turn)",
	      H.in.off - 1);
	switch ((b & 0x1f) % OP_END) {
	case OP_CONNECT: op_connect(); break;
	case OP_HELLO: op_hello(); break;
	case OP_OPEN: op_open(); break;
	case OP_BIND: op_addr(WIRE_BIND); break;
	case OP_CONNECT_SOCK: op_addr(WIRE_CONNECT); break;
	case OP_SEND: op_send(); break;
	case OP_SETOPT: op_opt(WIRE_SETOPT); break;
	case OP_GETOPT: op_opt(WIRE_GETOPT); break;
	case OP_KEEPID: op_keepid(); break;
	case OP_ATTACH: op_attach(); break;
	case OP_PROOF: op_proof(); break;
	case OP_BROKER_BIND: op_broker_bind(); break;
	case OP_SIMPLE: op_simple(); break;
	case OP_RAWFRAME: op_rawframe(); break;
	case OP_PASSFD: op_passfd(); break;
	case OP_ANSWER4: net_answer(&H.in, AF_INET); break;
	case OP_ANSWER6: net_answer(&H.in, AF_INET6); break;
	case OP_FORGE: net_forge(&H.in); break;
	case OP_CLOSE_CLIENT: op_close_client(); break;
	case OP_CLOSE_FD: op_close_fd(); break;
	case OP_CLOCK: op_clock(); break;
	case OP_ARENA: op_arena(); break;
	case OP_KNOB: op_knob(); break;
	case OP_RELOAD: op_reload(); break;
	default: op_read(); break;
	}
	/* A turn, unless the input says the next operation comes first,
	 * or this one gave the daemon nothing to see (the fake kernel's
	 * next answers, the arenas, reading datagrams). */
	op = (b & 0x1f) % OP_END;
	if (b < 0xe0 && op != OP_KNOB && op != OP_ARENA && op != OP_READ)
		turn();
}

/* The daemon's listening socket: abstract, so that no file is made. */
static int make_listener(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	H.laddr_len = sizeof(H.laddr);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sa_family_t)) ||
	    getsockname(fd, (struct sockaddr *)&H.laddr, &H.laddr_len) ||
	    listen(fd, 16))
		fuzz_fail("the listening socket");
	return fd;
}

/* The configuration, from the input's first bytes. */
static void configure(struct server_conf *conf)
{
	static const unsigned long nofiles[] = { 0, 70, 80, 100, 140, 200,
						 1024, 0 };
	char text[1024], err[256];
	size_t len = config_text(text, sizeof(text), &H.cfg);
	uint8_t d = fin_u8(&H.in);

	memset(conf, 0, sizeof(*conf));
	policy_default(&conf->policy);
	if (policy_parse(&conf->policy, text, len, "fuzz.conf", err,
			 sizeof(err)) != 0)
		fuzz_fail(err);
	H.cfg.raw6 = !(d & 4);
	H.cfg.broker4 = d & 1;
	H.cfg.broker6 = (d & 2) && H.cfg.raw6;
	H.cfg.loopback = d & 8;
	H.cfg.stable = true;
	conf->listen_fd = make_listener();
	conf->socket_path = "@pingsock-fuzz";	/* abstract: nothing removed */
	conf->config_path = "/etc/pingsock/pingsockd.conf";
	conf->raw4 = fake_raw_new();
	conf->raw6 = H.cfg.raw6 ? fake_raw6_new() : NULL;
	conf->host = fake_hostenv_new();
	conf->broker.v4 = H.cfg.broker4;
	conf->broker.v6 = H.cfg.broker6;
	conf->broker.gid = getegid();
	conf->nofile = nofiles[(d >> 4) & 7];
	conf->self_uid = geteuid();
	if (!conf->raw4 || (H.cfg.raw6 && !conf->raw6) || !conf->host)
		fuzz_fail("out of memory for the fakes");
}

/* Let the daemon see what was closed: a turn, and what it gave its
 * closing thread closed. */
static void settle(void)
{
	server_fuzz_turn(H.s);
	closer_drain();
}

/*
 * A relayed socket costs the daemon FDS_RELAY descriptors (its end of
 * the data pair) and nothing more: closing the harness's data descriptor
 * of one, its only one, lets the daemon free it, which closes exactly
 * those.  Once for each uid, one more may go with it: the epoll set of
 * the uid's sockets' share of the loop, with the last of them.  A socket
 * kept as more, or one that outlives its descriptor, shows here; an
 * arena's memfd kept open, in check_arena_fds().
 */
static bool share_closed_once(uid_t uid)
{
	for (unsigned i = 0; i < H.nshare_gone; i++)
		if (H.share_gone[i] == uid)
			return false;
	if (H.nshare_gone < MAX_HSOCK)
		H.share_gone[H.nshare_gone++] = uid;
	return true;
}

static void check_relay_fds(void)
{
	settle();
	settle();
	check_arena_fds();
	for (unsigned i = 0; i < H.nh; i++) {
		struct hsock *hs = &H.h[i];
		int before, closed;

		if (hs->broker || hs->gone || hs->fd[K_DATA] < 0)
			continue;
		before = count_fds();
		close_fd(&hs->fd[K_DATA]);
		hs->gone = true;
		settle();
		closed = before - count_fds() - 1;
		trace("  socket %#x closed: the daemon closed %d descriptors",
		      hs->handle, closed);
		if (closed != FDS_RELAY &&
		    !(closed == FDS_RELAY + 1 && share_closed_once(hs->uid)))
			fuzz_fail("the daemon did not close exactly FDS_RELAY "
				  "descriptors with a relayed socket");
	}
}

/*
 * Once every client and descriptor of the harness is closed, the daemon
 * holds what it held before the first client came (a broker socket goes
 * at its next look at the kernel's table: the clock moves for that).
 */
static void check_daemon_fds(void)
{
	for (int i = 0; i < 16; i++) {
		settle();
		if (count_fds() == H.fds_base)
			return;
		fake_clock_advance(1000000000ull);
	}
	trace("  %d descriptors, %d with no client", count_fds(), H.fds_base);
	fuzz_fail("the daemon holds other descriptors with all its clients "
		  "and sockets gone than before the first came");
}

/* Let every request come to its end (parked ones: their time comes),
 * then close everything and tear the daemon down. */
static void finish(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t hup;

	for (int i = 0; i < 64 && waiting(); i++) {
		turn();
		/* With the closing thread, what the daemon closed is
		 * closed some time later: a hang-up too. */
		if (thread_mode && waiting()) {
			closer_drain();
			for (int k = 0; k < MAX_CLIENTS; k++)
				read_answers(k, false);
		}
		if (waiting())
			fake_clock_advance(1000000ull << (i < 40 ? i : 40));
	}
	if (waiting())
		fuzz_fail("a request neither answered nor refused");
	for (int i = 0; i < MAX_CLIENTS; i++)
		read_answers(i, true);
	check_relay_fds();
	for (int i = 0; i < MAX_CLIENTS; i++)
		client_gone(i);
	hs_close_all();
	arenas_close();
	check_daemon_fds();
	server_fuzz_free(H.s);
	H.s = NULL;
	arenas_unmap();
	fake_reset();
	/* A SIGHUP the daemon did not read is not for the next one. */
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	while (sigtimedwait(&hup, NULL, &zero) > 0)
		;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct server_conf conf;
	int fds_before;

	if (size < 4 || size > 4096)
		return 0;
	fds_before = count_fds();
	fake_reset();
	memset(&H, 0, sizeof(H));
	for (int i = 0; i < MAX_CLIENTS; i++) {
		H.c[i].fd = -1;
		H.c[i].arena = -1;
	}
	H.in = (struct fin){ data, size, 0 };
	configure(&conf);
	if (H.cfg.loopback)
		fake_on_send(net_loopback);
	H.s = server_fuzz_new(&conf);
	if (!H.s)
		fuzz_fail("server_fuzz_new failed");
	H.fds_base = count_fds();
	for (int i = 0; i < MAX_OPS && H.in.off < H.in.n; i++)
		run_op();
	finish();
	if (count_fds() != fds_before)
		fuzz_fail("descriptors left open after the session");
	return 0;
}
