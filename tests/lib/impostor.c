/* SPDX-License-Identifier: ISC */
/*
 * impostor - a fake pingsockd for tests/integration/impostor.sh: what a
 * process that bound the socket path while the real daemon was down (or
 * a compromised daemon) can send a client.
 *
 *   impostor PATH MODE
 *
 * It listens on PATH (mode 0666) and answers every request as pingsockd
 * does (wire.h's protocol): HELLO with the token of its one state arena and an
 * answer slot there, and the arena itself (a sealed memfd) to a client
 * that does not name it; a send that asks for it answered in the slot;
 * OPEN with the data descriptor and a slot of the arena; a socket's
 * request on a connection that does not know it with WIRE_R_UNATTACHED,
 * and ATTACH with the slot; the error queue kept here and served a
 * record at a time by WIRE_ERRQ, the pending error taken by WIRE_GETOPT
 * SO_ERROR (and by a send), a wake-up on the data descriptor (counted in
 * the slot) for each record.  Except for the one malformation MODE
 * names: the first answer to one kind of request is spoilt (result out
 * of range, wrong type, body of the wrong length, a slot out of range,
 * too many or too few descriptors or ones of the wrong kind, an arena
 * that is a pipe, unsealed, small, of another file system or without
 * its magic, or none where one is due), or the socket it opens gets
 * malformed datagrams or wake-ups on its data descriptor, malformed
 * records in its error queue or nonsense in its state slot, ahead of
 * one valid reply.  "none" spoils nothing; "find-any" claims every
 * cookie WIRE_FIND asks about (an inherited descriptor's); "arena-fresh"
 * hands out a new arena at every HELLO and ends every connection after
 * its first other answer.  `impostor
 * list` prints the modes.
 *
 * The broker modes hand out kernel ping sockets: the impostor makes them
 * in a network namespace of its own (unshare) where ping_group_range
 * lets it.  It exits on SIGTERM, or after 60 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <linux/errqueue.h>
#include <time.h>
#include <unistd.h>

#include "wire/decode.h"
#include "wire/wire.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif
#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83	/* Linux 6.16, asm-generic/socket.h */
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define MAX_CONNS 8
#define MAX_FDS 8
/* Room for the longest answer, and for one too long (SP_BODY_LONG). */
#define BODY_MAX (WIRE_RESP_BODY_MAX + 64)
#define MAX_RECS 4
#define MAX_SOCKS 16
#define HUGE_PAGE (2u << 20)
#define SEALS_ALL (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

struct ans {
	uint16_t type, flags;
	int32_t result;
	uint8_t body[BODY_MAX];
	size_t len;
	int fds[MAX_FDS];
	bool own[MAX_FDS];	/* closed once sent */
	int nfds;
};

/* A control connection, and the sockets it knows (OPEN or ATTACH on
 * it; a bit for each of socks[]): the daemon's per-connection handles. */
struct conn {
	int fd;
	uint32_t knows;
	uint32_t ans_slot;	/* its answer slot (HELLO's answer) */
	uint32_t ans_seq;	/* sends answered there */
	int32_t ans_last;	/* the last one's result, for WIRE_WAIT */
	bool muted;		/* its send went unanswered (mute-send) */
};

/* The one arena: any token but zeros will do, the impostor has no other
 * arena to tell apart (the real daemon's are random). */
static const uint8_t arena_token[WIRE_NONCE_LEN] = "impostor-arena!";
static struct {
	int fd;			/* handed out at each HELLO that needs it */
	struct wire_shm *base;	/* mapped writable before the seals */
} arena = { .fd = -1 };

/* A record of the error queue; its data is made when it is served. */
struct rec {
	struct wire_dgram dg;
	uint32_t len;
};

/* A socket the client opened (iputils ping opens one of each family). */
struct psock {
	int family;
	int data;		/* our end (broker: of the liveness pair) */
	uint32_t handle, slot;
	struct wire_shm *shm;	/* its slot; NULL for a broker socket */
	struct rec q[MAX_RECS];
	int nq;
	int theirs;		/* a copy of the client's end kept (or -1) */
};

static struct psock socks[MAX_SOCKS];
static int nsocks;
/* The socket the request being answered names, or OPEN made. */
static struct psock *sk;

static uint32_t next_handle = 1;
static uint32_t next_ans_slot = 1000;
/* An arena handed out without SEAL_SHRINK: shrunk once it is sent, as a
 * liar would to make the client's mapping fault. */
static int shrink_fd = -1;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void add_fd(struct ans *a, int fd, bool own)
{
	if (fd < 0 || a->nfds >= MAX_FDS)
		die("impostor: descriptor");
	a->fds[a->nfds] = fd;
	a->own[a->nfds++] = own;
}

/* Replace descriptor i (closing ours if it was temporary). */
static void swap_fd(struct ans *a, int i, int fd)
{
	if (i >= a->nfds)
		die("impostor: no such descriptor to spoil");
	if (a->own[i])
		close(a->fds[i]);
	a->fds[i] = fd;
	a->own[i] = true;
}

/*
 * A TCP socket whose last close waits for this process: lingering (for
 * as long as the kernel lets it) on unsent data that its peer, kept
 * here and never read, has no room for.
 */
static int a_lingering(void)
{
	static char junk[65536];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	struct linger lg = { .l_onoff = 1, .l_linger = INT_MAX };
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), p = -1;

	int small = 4096;	/* the peer's window, fixed: no autotuning */

	if (l < 0 || c < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)) ||
	    bind(l, (struct sockaddr *)&sa, len) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&sa, &len) ||
	    connect(c, (struct sockaddr *)&sa, len) ||
	    (p = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
		die("impostor: lingering socket");
	close(l);
	while (send(c, junk, sizeof(junk), MSG_DONTWAIT) > 0)
		;
	if (setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		die("impostor: SO_LINGER");
	(void)p;	/* kept open, never read, until the impostor ends */
	return c;
}

/* Message mh sent on fd with descriptor pass attached (SCM_RIGHTS). */
static ssize_t send_with(int fd, struct msghdr *mh, int pass)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct cmsghdr *cm;

	mh->msg_control = cbuf.b;
	mh->msg_controllen = sizeof(cbuf.b);
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	return sendmsg(fd, mh, MSG_NOSIGNAL);
}

/* An AF_UNIX socket whose queue holds a lingering socket (a_lingering),
 * its other end closed: whoever closes it last releases that one. */
static int a_nested(void)
{
	char byte = 0;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int sv[2], pass = a_lingering();

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) ||
	    send_with(sv[1], &mh, pass) < 0)
		die("impostor: nested socket");
	close(pass);
	close(sv[1]);
	return sv[0];
}

static int a_pipe(void)
{
	int p[2];

	if (pipe(p))
		die("pipe");
	close(p[1]);
	return p[0];
}

/* The arena's magic in slot 0's first word (its cmsg), if it has room. */
static void put_magic(int fd, size_t size, uint32_t magic)
{
	if (size >= sizeof(magic) &&
	    pwrite(fd, &magic, sizeof(magic), 0) != sizeof(magic))
		die("pwrite");
}

static int a_memfd(size_t size, int seals, uint32_t magic)
{
	int fd = memfd_create("impostor", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size))
		die("memfd");
	put_magic(fd, size, magic);
	if (seals && fcntl(fd, F_ADD_SEALS, seals))
		die("seal");
	return fd;
}

/* A file of another file system, which no seal can be added to. */
static int a_tmpfile(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {
		char tmpl[] = "/tmp/impostor-arena.XXXXXX";

		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	if (fd < 0 || ftruncate(fd, (off_t)WIRE_ARENA_SIZE))
		die("impostor: tmpfile");
	put_magic(fd, WIRE_ARENA_SIZE, WIRE_ARENA_MAGIC);
	return fd;
}

/*
 * A hugetlbfs memfd, sealed as an arena must be: it passes every check
 * but the file system's (its pages may run out under the mapping).  No
 * magic: writing it would need a huge page.  A plain file where there is
 * no hugetlbfs.
 */
static int a_hugetlb(void)
{
	size_t size = (WIRE_ARENA_SIZE + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	int fd = memfd_create("impostor", MFD_CLOEXEC | MFD_ALLOW_SEALING |
					  MFD_HUGETLB);

	if (fd < 0)
		return a_tmpfile();
	if (ftruncate(fd, (off_t)size) || fcntl(fd, F_ADD_SEALS, SEALS_ALL)) {
		close(fd);
		return a_tmpfile();
	}
	return fd;
}

/* The arena as arena.c makes it: mapped, then sealed (the client's
 * mapping can then only read it), then the magic written. */
static void arena_init(void)
{
	int fd = memfd_create("impostor-arena",
			      MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *p;

	if (fd < 0 || ftruncate(fd, (off_t)WIRE_ARENA_SIZE))
		die("impostor: arena");
	p = mmap(NULL, WIRE_ARENA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED ||
	    fcntl(fd, F_ADD_SEALS, SEALS_ALL | F_SEAL_FUTURE_WRITE))
		die("impostor: arena");
	arena.fd = fd;
	arena.base = p;
	atomic_store(&arena.base[0].cmsg, WIRE_ARENA_MAGIC);
}

/* A kernel ping socket, or another kind for the malformations. */
static int kernel_sock(int family, int type, int proto)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd < 0)
		die("impostor: kernel socket");
	return fd;
}

static int ping_sock(int family)
{
	return kernel_sock(family, SOCK_DGRAM,
			   family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
}

static void put_u32(struct ans *a, size_t off, uint32_t v)
{
	memcpy(a->body + off, &v, 4);
}

/* OPEN's and ATTACH's body: handle, flags or family, slot. */
static void put_u32x3(struct ans *a, uint32_t x, uint32_t y, uint32_t z)
{
	put_u32(a, 0, x);
	put_u32(a, 4, y);
	put_u32(a, 8, z);
	a->len = 12;
}

/* ---- valid datagrams and records ---- */

static void dgram_base(struct wire_dgram *dg, uint8_t kind)
{
	struct timespec now;

	memset(dg, 0, sizeof(*dg));
	clock_gettime(CLOCK_REALTIME, &now);
	dg->kind = kind;
	dg->family = (uint8_t)sk->family;
	dg->ttl = 64;
	dg->ifindex = 1;
	dg->ts_sec = now.tv_sec;
	dg->ts_nsec = now.tv_nsec;
	if (sk->family == AF_INET6) {
		dg->src[15] = 1;
		dg->dst[15] = 1;
	} else {
		memcpy(dg->src, "\x7f\x00\x00\x01", 4);
		memcpy(dg->dst, "\x7f\x00\x00\x01", 4);
	}
}

static void valid_reply(struct wire_dgram *dg)
{
	dgram_base(dg, WIRE_DG_REPLY);
}

static void valid_record(struct wire_dgram *dg)
{
	dgram_base(dg, WIRE_DG_ERROR);
	dg->ee_errno = EHOSTUNREACH;
	if (sk->family == AF_INET6) {
		dg->ee_origin = SO_EE_ORIGIN_ICMP6;
		dg->ee_type = 1;
		dg->ee_code = 3;
	} else {
		dg->ee_origin = SO_EE_ORIGIN_ICMP;
		dg->ee_type = 3;
		dg->ee_code = 1;
	}
	dg->offender_family = (uint8_t)sk->family;
	dg->offender[0] = 10;
	dg->offender[3] = 1;
}

/* The family the socket is not of. */
static uint8_t other_family(void)
{
	return sk->family == AF_INET6 ? AF_INET : AF_INET6;
}

/* len bytes of an Echo message (type 0: reply, 8: request). */
static void fill_echo(uint8_t *data, size_t len, uint8_t type)
{
	memset(data, 0xa5, len);
	if (len >= 8) {
		data[0] = sk->family == AF_INET6 ? (uint8_t)(type ? 128 : 129)
						: type;
		data[1] = 0;
		data[4] = 0x12;
		data[5] = 0x34;
	}
}

/* The header, then len bytes of an Echo message. */
static void send_dgram(int fd, const void *hdr, size_t hlen, size_t len,
		       uint8_t type)
{
	static uint8_t data[WIRE_DATA_MAX + 1024];
	struct iovec iov[2] = { { (void *)hdr, hlen }, { data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (fd < 0)
		return;		/* dg-eof: closed */
	fill_echo(data, len, type);
	/* A client that refused the socket has closed its end: no news. */
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 && errno != EPIPE &&
	    errno != ECONNREFUSED && errno != ECONNRESET)
		perror("impostor: datagram");
}

/* sstate.c wake(): counted in the slot first, so that a reader that
 * sees it knows to look for it. */
static void wake(void)
{
	struct wire_dgram dg;

	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_WAKE;
	atomic_fetch_add(&sk->shm->wakes, 1);
	send_dgram(sk->data, &dg, sizeof(dg), 0, 0);
}

/* sstate_queue(): the record, its count, a wake-up. */
static void queue_record(const struct wire_dgram *dg, uint32_t len)
{
	if (sk->nq >= MAX_RECS)
		return;
	sk->q[sk->nq].dg = *dg;
	sk->q[sk->nq++].len = len;
	atomic_store(&sk->shm->errq, (uint32_t)sk->nq);
	wake();
}

/* ---- the malformations ---- */

enum spoil {
	SP_NONE, SP_RESULT_POS, SP_RESULT_ERRNO, SP_RESULT_EMFILE,
	SP_RESULT_EPERM, SP_TYPE, SP_HDR_FLAGS,
	SP_BODY_SHORT, SP_BODY_LONG, SP_BODY_TRUNC, SP_OPEN_FLAGS,
	SP_HANDLE0, SP_FDS_FEW, SP_FDS_EXTRA, SP_FDS_MANY, SP_FAIL_FDS,
	SP_FD0_PIPE, SP_FD0_STREAM, SP_FD0_UDP, SP_FD0_RAW, SP_FD0_FAMILY,
	SP_FD1_PIPE, SP_SEND_RESULT, SP_GETOPT_BODY, SP_GETNAME_FAMILY,
	SP_SETOPT_BODY, SP_UNATTACHED, SP_ATTACH_FAMILY, SP_NOFD,
	SP_SLOT0, SP_SLOT_BIG, SP_SLOT_BROKER, SP_SLOT_LAST,
	SP_ARENA_UNSEALED, SP_ARENA_NOSHRINK, SP_ARENA_NOSEAL,
	SP_ARENA_SMALL, SP_ARENA_EMPTY, SP_ARENA_MAGIC, SP_ARENA_HUGETLB,
	SP_ARENA_FILE, SP_TOKEN_OWN, SP_TOKEN_OWN_ARENA,
	SP_ERRQ_SHORT, SP_ERRQ_NOLEN, SP_ERRQ_LEN_BIG, SP_ERRQ_LEN_SMALL,
	SP_ERRQ_ERRNO_BODY, SP_STATS_VERSION, SP_USERS_LOOP, SP_FIND_ANY,
	SP_HELLO_SLOT_BIG, SP_SLOT_LATE, SP_SLOT_SAME, SP_MUTE,
	SP_DATA_FOREIGN, SP_DATA_FLAGS, SP_ARENA_FRESH,
	SP_LINGER, SP_LINGER_MANY, SP_DATA_QUEUED, SP_NESTED,
};

/* What is put on the socket OPEN made, or in its slot; the records
 * (EQ_*) are in one run, from EQ_ONE to EQ_LONG. */
enum inject {
	IN_NONE, DG_OPTLEN, DG_SHORT, DG_KIND, DG_FAMILY, DG_FAMILY6,
	DG_NSEC, DG_ICMP_SHORT, DG_PORT, DG_SCOPE, DG_PAD, DG_BIG,
	WK_VALID, WK_MANY, WK_DATA, WK_FIELD, WK_FIELD0, WK_SHORT,
	WK_GARBAGE, WK_AHEAD, WK_ENDLESS, DG_EOF,
	EQ_ONE, EQ_OPTLEN, EQ_ERRNO, EQ_KIND, EQ_WAKE, EQ_ORIGIN,
	EQ_OFFENDER, EQ_FAMILY, EQ_ERRNO0, EQ_LEN_MAX, EQ_LONG,
	SL_ERR, SL_ERR_BIG, SL_ERR_NEG, SL_ERR_STUCK, SL_ERRQ, SL_CMSG,
	SL_SHUT, SL_WAKES, SL_ERR_FLIP, DG_RIGHTS, DG_RIGHTS_ON, WK_TRICKLE,
};

struct mode {
	const char *name;
	uint16_t type;		/* the request whose first answer is spoilt */
	enum spoil spoil;
	uint16_t type2;		/* and a later one (0: none) */
	enum spoil spoil2;
	enum inject inject;	/* onto the socket OPEN made */
	bool broker;		/* OPEN answers in broker mode */
};

static const struct mode modes[] = {
	{ "none", 0, SP_NONE, 0, SP_NONE, IN_NONE, false },
	{ "broker-none", 0, SP_NONE, 0, SP_NONE, IN_NONE, true },
	{ "hello-result", WIRE_HELLO, SP_RESULT_POS, 0, 0, 0, false },
	{ "hello-emfile", WIRE_HELLO, SP_RESULT_EMFILE, 0, 0, 0, false },
	{ "hello-eperm", WIRE_HELLO, SP_RESULT_EPERM, 0, 0, 0, false },
	{ "hello-type", WIRE_HELLO, SP_TYPE, 0, 0, 0, false },
	{ "hello-flags", WIRE_HELLO, SP_HDR_FLAGS, 0, 0, 0, false },
	{ "hello-fds", WIRE_HELLO, SP_FDS_EXTRA, 0, 0, 0, false },
	{ "hello-body", WIRE_HELLO, SP_BODY_LONG, 0, 0, 0, false },
	{ "hello-arena-pipe", WIRE_HELLO, SP_FD0_PIPE, 0, 0, 0, false },
	{ "hello-arena-unsealed", WIRE_HELLO, SP_ARENA_UNSEALED, 0, 0, 0, false },
	{ "hello-arena-noshrink", WIRE_HELLO, SP_ARENA_NOSHRINK, 0, 0, 0, false },
	{ "hello-arena-noseal", WIRE_HELLO, SP_ARENA_NOSEAL, 0, 0, 0, false },
	{ "hello-arena-small", WIRE_HELLO, SP_ARENA_SMALL, 0, 0, 0, false },
	{ "hello-arena-empty", WIRE_HELLO, SP_ARENA_EMPTY, 0, 0, 0, false },
	{ "hello-arena-magic", WIRE_HELLO, SP_ARENA_MAGIC, 0, 0, 0, false },
	{ "hello-arena-hugetlb", WIRE_HELLO, SP_ARENA_HUGETLB, 0, 0, 0, false },
	{ "hello-arena-file", WIRE_HELLO, SP_ARENA_FILE, 0, 0, 0, false },
	{ "hello-arena-none", WIRE_HELLO, SP_NOFD, 0, 0, 0, false },
	{ "hello-token-zero", WIRE_HELLO, SP_TOKEN_OWN, 0, 0, 0, false },
	{ "hello-token-zero-arena", WIRE_HELLO, SP_TOKEN_OWN_ARENA, 0, 0, 0,
	  false },
	/* A setopt answer too long ends the connection; the next call
	 * dials again and names the arena: an arena comes anyway. */
	{ "hello-arena-own", WIRE_SETOPT, SP_BODY_LONG, WIRE_HELLO,
	  SP_TOKEN_OWN_ARENA, 0, false },
	{ "open-type", WIRE_OPEN, SP_TYPE, 0, 0, 0, false },
	{ "open-result", WIRE_OPEN, SP_RESULT_POS, 0, 0, 0, false },
	{ "open-errno", WIRE_OPEN, SP_RESULT_ERRNO, 0, 0, 0, false },
	{ "open-body-short", WIRE_OPEN, SP_BODY_SHORT, 0, 0, 0, false },
	{ "open-body-long", WIRE_OPEN, SP_BODY_LONG, 0, 0, 0, false },
	{ "open-trunc", WIRE_OPEN, SP_BODY_TRUNC, 0, 0, 0, false },
	{ "open-flags", WIRE_OPEN, SP_OPEN_FLAGS, 0, 0, 0, false },
	{ "open-handle0", WIRE_OPEN, SP_HANDLE0, 0, 0, 0, false },
	{ "open-fds-few", WIRE_OPEN, SP_FDS_FEW, 0, 0, 0, false },
	{ "open-fds-extra", WIRE_OPEN, SP_FDS_EXTRA, 0, 0, 0, false },
	{ "open-fds-many", WIRE_OPEN, SP_FDS_MANY, 0, 0, 0, false },
	{ "open-fail-fds", WIRE_OPEN, SP_FAIL_FDS, 0, 0, 0, false },
	{ "open-data-pipe", WIRE_OPEN, SP_FD0_PIPE, 0, 0, 0, false },
	{ "open-data-stream", WIRE_OPEN, SP_FD0_STREAM, 0, 0, 0, false },
	{ "open-data-udp", WIRE_OPEN, SP_FD0_UDP, 0, 0, 0, false },
	{ "open-slot0", WIRE_OPEN, SP_SLOT0, 0, 0, 0, false },
	{ "open-slot-big", WIRE_OPEN, SP_SLOT_BIG, 0, 0, 0, false },
	/* Not a malformation: the arena's last slot, which must work. */
	{ "open-slot-last", WIRE_OPEN, SP_SLOT_LAST, 0, 0, 0, false },
	/* Every socket OPEN makes in slot 1: a first socket works, a second
	 * one while the first lives is refused (pstool twosocks). */
	{ "open-slot-same", 0, SP_SLOT_SAME, 0, 0, 0, false },
	/* The data descriptor a connection to a third party's listener
	 * (impostor.sh starts one, root's; without it, one of its own),
	 * and the first SETOPT answered "unattached" (a proof asked for). */
	{ "open-data-foreign", WIRE_SETOPT, SP_UNATTACHED, 0, SP_DATA_FOREIGN,
	  0, false },
	/* The data descriptor's open file O_NONBLOCK and O_ASYNC: the
	 * socket must be as a new one (blocking) all the same. */
	{ "open-data-flags", 0, SP_DATA_FLAGS, 0, 0, 0, false },
	/* A descriptor whose last close waits for the impostor: a TCP
	 * socket lingering on unsent data its peer (ours) never reads.
	 * One more than the answer promises; or past the four a control
	 * buffer of the answer's size has room for (the kernel released
	 * the rest in the client's receive); or queued, with a reply, on
	 * the data descriptor before it is handed over. */
	{ "hello-linger", WIRE_HELLO, SP_LINGER, 0, 0, 0, false },
	{ "hello-linger-many", WIRE_HELLO, SP_LINGER_MANY, 0, 0, 0, false },
	{ "open-linger", WIRE_OPEN, SP_LINGER, 0, 0, 0, false },
	{ "open-data-queued", WIRE_OPEN, SP_DATA_QUEUED, 0, 0, 0, false },
	/* An AF_UNIX socket with a lingering one queued in it, one more
	 * than HELLO's answer promises: its last close releases what it
	 * holds. */
	{ "hello-nested", WIRE_HELLO, SP_NESTED, 0, 0, 0, false },
	{ "broker-udp", WIRE_OPEN, SP_FD0_UDP, 0, 0, 0, true },
	{ "broker-raw", WIRE_OPEN, SP_FD0_RAW, 0, 0, 0, true },
	{ "broker-family", WIRE_OPEN, SP_FD0_FAMILY, 0, 0, 0, true },
	{ "broker-unix", WIRE_OPEN, SP_FD0_STREAM, 0, 0, 0, true },
	{ "broker-fds", WIRE_OPEN, SP_FDS_EXTRA, 0, 0, 0, true },
	{ "broker-live-pipe", WIRE_OPEN, SP_FD1_PIPE, 0, 0, 0, true },
	{ "broker-slot", WIRE_OPEN, SP_SLOT_BROKER, 0, 0, 0, true },
	{ "bbind-udp", WIRE_BROKER_BIND, SP_FD0_UDP, 0, 0, 0, true },
	{ "bbind-fds", WIRE_BROKER_BIND, SP_FDS_EXTRA, 0, 0, 0, true },
	{ "bbind-nofd", WIRE_BROKER_BIND, SP_NOFD, 0, 0, 0, true },
	{ "bbind-body", WIRE_BROKER_BIND, SP_BODY_LONG, 0, 0, 0, true },
	{ "bind-result", WIRE_BIND, SP_RESULT_POS, 0, 0, 0, false },
	{ "bind-errno", WIRE_BIND, SP_RESULT_ERRNO, 0, 0, 0, false },
	{ "bind-body", WIRE_BIND, SP_BODY_LONG, 0, 0, 0, false },
	{ "bind-fds", WIRE_BIND, SP_FDS_EXTRA, 0, 0, 0, false },
	{ "send-result", WIRE_SEND, SP_SEND_RESULT, 0, 0, 0, false },
	/* Not a malformation: a send's answer that never comes in the
	 * answer slot, only on the channel for WIRE_WAIT. */
	{ "send-slot-late", WIRE_SEND, SP_SLOT_LATE, 0, 0, 0, false },
	/* The first request of the type never answered (the connection
	 * kept): the library gives up after its timeout. */
	{ "mute-hello", WIRE_HELLO, SP_MUTE, 0, 0, 0, false },
	{ "mute-detach", WIRE_DETACH, SP_MUTE, 0, 0, 0, false },
	/* And a send: neither in the slot nor on the channel, its
	 * WIRE_WAIT left unanswered too (sendwait's own test). */
	{ "mute-send", WIRE_SEND, SP_MUTE, 0, 0, 0, false },
	/* The same, and then a send on a connection that does not know
	 * its socket (the next one, the first dropped) answered "not
	 * attached here" only after 1.5 s (a busy daemon). */
	{ "mute-slow", WIRE_SEND, SP_MUTE, 0, 0, 0, false },
	{ "hello-slot-big", WIRE_HELLO, SP_HELLO_SLOT_BIG, 0, 0, 0, false },
	/* Every HELLO: a token never given before, and the arena again;
	 * every connection closed after its first answer but HELLO's (see
	 * serve()).  So each call dials, and is handed a new arena. */
	{ "arena-fresh", 0, SP_ARENA_FRESH, 0, 0, 0, false },
	{ "send-type", WIRE_SEND, SP_TYPE, 0, 0, 0, false },
	{ "getopt-body", WIRE_GETOPT, SP_GETOPT_BODY, 0, 0, 0, false },
	{ "getname-body", WIRE_GETNAME, SP_BODY_LONG, 0, 0, 0, false },
	{ "getname-family", WIRE_GETNAME, SP_GETNAME_FAMILY, 0, 0, 0, false },
	{ "setopt-body", WIRE_SETOPT, SP_SETOPT_BODY, 0, 0, 0, false },
	{ "attach-family", WIRE_SETOPT, SP_UNATTACHED, WIRE_ATTACH,
	  SP_ATTACH_FAMILY, 0, false },
	{ "attach-body", WIRE_SETOPT, SP_UNATTACHED, WIRE_ATTACH,
	  SP_BODY_SHORT, 0, false },
	{ "attach-fds", WIRE_SETOPT, SP_UNATTACHED, WIRE_ATTACH,
	  SP_FDS_EXTRA, 0, false },
	{ "attach-slot0", WIRE_SETOPT, SP_UNATTACHED, WIRE_ATTACH,
	  SP_SLOT0, 0, false },
	{ "attach-slot-big", WIRE_SETOPT, SP_UNATTACHED, WIRE_ATTACH,
	  SP_SLOT_BIG, 0, false },
	/* For pingsockctl (the library's request client): what it took
	 * before it shared the library's checks. */
	{ "ctl-stats-flags", WIRE_STATS, SP_HDR_FLAGS, 0, 0, 0, false },
	{ "ctl-stats-fds", WIRE_STATS, SP_FDS_EXTRA, 0, 0, 0, false },
	/* A version that would end its label value, a users page that
	 * would make pingsockctl ask again and again. */
	{ "ctl-stats-version", WIRE_STATS, SP_STATS_VERSION, 0, 0, 0, false },
	{ "ctl-users-loop", WIRE_USERS, SP_USERS_LOOP, 0, 0, 0, false },
	/* Not one answer spoilt: every WIRE_FIND claims the cookie, as an
	 * impostor would to have a proof written on a pair the client
	 * inherited from someone else (answer_find). */
	{ "find-any", 0, SP_FIND_ANY, 0, 0, 0, false },
	{ "dg-optlen", 0, 0, 0, 0, DG_OPTLEN, false },
	{ "dg-short", 0, 0, 0, 0, DG_SHORT, false },
	{ "dg-kind", 0, 0, 0, 0, DG_KIND, false },
	{ "dg-family", 0, 0, 0, 0, DG_FAMILY, false },
	{ "dg-family6", 0, 0, 0, 0, DG_FAMILY6, false },
	{ "dg-nsec", 0, 0, 0, 0, DG_NSEC, false },
	{ "dg-icmp-short", 0, 0, 0, 0, DG_ICMP_SHORT, false },
	{ "dg-port", 0, 0, 0, 0, DG_PORT, false },
	{ "dg-scope", 0, 0, 0, 0, DG_SCOPE, false },
	{ "dg-pad", 0, 0, 0, 0, DG_PAD, false },
	{ "dg-big", 0, 0, 0, 0, DG_BIG, false },
	/* The reply carries a lingering TCP socket (see hello-linger): the
	 * client's end takes none (SO_PASSRIGHTS), so it comes without. */
	{ "dg-rights", 0, 0, 0, 0, DG_RIGHTS, false },
	/* ... and the impostor, which kept a copy of the client's end,
	 * turns SO_PASSRIGHTS on again there first: it comes. */
	{ "dg-rights-on", 0, 0, 0, 0, DG_RIGHTS_ON, false },
	/* Wake-ups: valid ones (skipped), too many, with data, with a
	 * field set (counted in the slot, or not), cut short, or valid
	 * ones and garbage after them. */
	{ "dg-wake", 0, 0, 0, 0, WK_VALID, false },
	{ "dg-wake-many", 0, 0, 0, 0, WK_MANY, false },
	{ "dg-wake-data", 0, 0, 0, 0, WK_DATA, false },
	{ "dg-wake-field", 0, 0, 0, 0, WK_FIELD, false },
	{ "dg-wake-field0", 0, 0, 0, 0, WK_FIELD0, false },
	{ "dg-wake-short", 0, 0, 0, 0, WK_SHORT, false },
	{ "dg-wake-garbage", 0, 0, 0, 0, WK_GARBAGE, false },
	/* 300 valid ones ahead of the reply, as the real daemon queues
	 * after as many errors (one wake-up each): all are skipped. */
	{ "dg-wake-ahead", 0, 0, 0, 0, WK_AHEAD, false },
	{ "dg-wake-endless", 0, 0, 0, 0, WK_ENDLESS, false },
	/* One valid wake-up every 300 ms for 20 s, after the reply, with no
	 * error to go with it: a receive with SO_RCVTIMEO must still time
	 * out (pstool rcvtimeo). */
	{ "dg-wake-trickle", 0, 0, 0, 0, WK_TRICKLE, false },
	/* The data descriptor's end closed after the reply, the control
	 * connection kept (the real daemon closes it only when the client
	 * has let go of its own). */
	{ "dg-eof", 0, 0, 0, 0, DG_EOF, false },
	/* WIRE_ERRQ's answer malformed, with a valid record queued. */
	{ "errq-short", WIRE_ERRQ, SP_ERRQ_SHORT, 0, 0, EQ_ONE, false },
	{ "errq-nolen", WIRE_ERRQ, SP_ERRQ_NOLEN, 0, 0, EQ_ONE, false },
	{ "errq-len-big", WIRE_ERRQ, SP_ERRQ_LEN_BIG, 0, 0, EQ_ONE, false },
	{ "errq-len-small", WIRE_ERRQ, SP_ERRQ_LEN_SMALL, 0, 0, EQ_ONE, false },
	{ "errq-result", WIRE_ERRQ, SP_RESULT_POS, 0, 0, EQ_ONE, false },
	{ "errq-errno-body", WIRE_ERRQ, SP_ERRQ_ERRNO_BODY, 0, 0, EQ_ONE,
	  false },
	{ "errq-fds", WIRE_ERRQ, SP_FDS_EXTRA, 0, 0, EQ_ONE, false },
	{ "errq-type", WIRE_ERRQ, SP_TYPE, 0, 0, EQ_ONE, false },
	/* A well-formed answer, a malformed record in it. */
	{ "errq-optlen", 0, 0, 0, 0, EQ_OPTLEN, false },
	{ "errq-errno", 0, 0, 0, 0, EQ_ERRNO, false },
	{ "errq-errno0", 0, 0, 0, 0, EQ_ERRNO0, false },
	{ "errq-kind", 0, 0, 0, 0, EQ_KIND, false },
	{ "errq-wake", 0, 0, 0, 0, EQ_WAKE, false },
	{ "errq-origin", 0, 0, 0, 0, EQ_ORIGIN, false },
	{ "errq-offender", 0, 0, 0, 0, EQ_OFFENDER, false },
	{ "errq-family", 0, 0, 0, 0, EQ_FAMILY, false },
	{ "errq-len-max", 0, 0, 0, 0, EQ_LEN_MAX, false },
	/* Not a malformation: a record longer than an answer carries. */
	{ "errq-long", 0, 0, 0, 0, EQ_LONG, false },
	{ "slot-err", 0, 0, 0, 0, SL_ERR, false },
	{ "slot-err-big", 0, 0, 0, 0, SL_ERR_BIG, false },
	{ "slot-err-neg", 0, 0, 0, 0, SL_ERR_NEG, false },
	{ "slot-err-stuck", 0, 0, 0, 0, SL_ERR_STUCK, false },
	{ "slot-errq-big", 0, 0, 0, 0, SL_ERRQ, false },
	{ "slot-cmsg", 0, 0, 0, 0, SL_CMSG, false },
	{ "slot-shutdown", 0, 0, 0, 0, SL_SHUT, false },
	{ "slot-wakes", 0, 0, 0, 0, SL_WAKES, false },
	/* The pending error set and cleared again and again (for 5 s, by a
	 * child): a wait must not end "timed out" before its time. */
	{ "slot-err-flip", 0, 0, 0, 0, SL_ERR_FLIP, false },
};

static const struct mode *mode;
static bool spoilt, spoilt2;

static void spoil_fds(struct ans *a, enum spoil s)
{
	switch (s) {
	case SP_FDS_FEW:
		if (a->nfds == 0)
			break;
		if (a->own[a->nfds - 1])
			close(a->fds[a->nfds - 1]);
		a->nfds--;
		break;
	case SP_FDS_EXTRA:
		add_fd(a, a_pipe(), true);
		break;
	case SP_FDS_MANY:
		for (int i = 0; i < 3; i++)
			add_fd(a, a_pipe(), true);
		break;
	case SP_NOFD:
		while (a->nfds)
			spoil_fds(a, SP_FDS_FEW);
		break;
	case SP_LINGER:
		add_fd(a, a_lingering(), true);
		break;
	case SP_LINGER_MANY:
		while (a->nfds < 5)
			add_fd(a, a_pipe(), true);
		add_fd(a, a_lingering(), true);
		break;
	case SP_NESTED:
		add_fd(a, a_nested(), true);
		break;
	default:
		break;
	}
}

static void spoil_kinds(struct ans *a, enum spoil s)
{
	int sv[2];

	switch (s) {
	case SP_FD0_PIPE:
		swap_fd(a, 0, a_pipe());
		break;
	case SP_FD0_STREAM:
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			die("socketpair");
		close(sv[1]);
		swap_fd(a, 0, sv[0]);
		break;
	case SP_FD0_UDP:
		swap_fd(a, 0, kernel_sock(sk->family, SOCK_DGRAM, IPPROTO_UDP));
		break;
	case SP_FD0_RAW:
		swap_fd(a, 0, kernel_sock(sk->family, SOCK_RAW, IPPROTO_ICMP));
		break;
	case SP_FD0_FAMILY:
		swap_fd(a, 0, ping_sock(other_family()));
		break;
	case SP_FD1_PIPE:
		swap_fd(a, 1, a_pipe());
		break;
	default:
		break;
	}
}

/* Another arena in place of HELLO's (descriptor 0), or another token. */
static void spoil_arena(struct ans *a, const struct wire_req *req,
			enum spoil s)
{
	switch (s) {
	case SP_ARENA_UNSEALED:
	case SP_ARENA_NOSHRINK:
		shrink_fd = a_memfd(WIRE_ARENA_SIZE,
				    s == SP_ARENA_NOSHRINK
					    ? F_SEAL_GROW | F_SEAL_SEAL : 0,
				    WIRE_ARENA_MAGIC);
		swap_fd(a, 0, shrink_fd);
		a->own[0] = false;	/* ours: shrunk after sending */
		break;
	case SP_ARENA_NOSEAL:
		swap_fd(a, 0, a_memfd(WIRE_ARENA_SIZE,
				      F_SEAL_SHRINK | F_SEAL_GROW,
				      WIRE_ARENA_MAGIC));
		break;
	case SP_ARENA_SMALL:
		swap_fd(a, 0, a_memfd(WIRE_ARENA_SIZE - 4096, SEALS_ALL,
				      WIRE_ARENA_MAGIC));
		break;
	case SP_ARENA_EMPTY:
		swap_fd(a, 0, a_memfd(0, SEALS_ALL, 0));
		break;
	case SP_ARENA_MAGIC:
		swap_fd(a, 0, a_memfd(WIRE_ARENA_SIZE, SEALS_ALL,
				      WIRE_ARENA_MAGIC ^ 0x20202020u));
		break;
	case SP_ARENA_HUGETLB:
		swap_fd(a, 0, a_hugetlb());
		break;
	case SP_ARENA_FILE:
		swap_fd(a, 0, a_tmpfile());
		break;
	case SP_TOKEN_OWN:
		memcpy(a->body, req->nonce, WIRE_NONCE_LEN);
		spoil_fds(a, SP_NOFD);
		break;
	case SP_TOKEN_OWN_ARENA:
		memcpy(a->body, req->nonce, WIRE_NONCE_LEN);
		if (a->nfds == 0)
			add_fd(a, arena.fd, false);
		break;
	default:
		break;
	}
}

/* Slots out of range (OPEN and ATTACH have it at the same place), and
 * WIRE_ERRQ's answer of the wrong length or with a length field that
 * says another. */
static void spoil_fields(struct ans *a, enum spoil s)
{
	uint32_t full;

	memcpy(&full, a->body, 4);
	switch (s) {
	case SP_SLOT0: put_u32(a, 8, 0); break;
	case SP_SLOT_BIG: put_u32(a, 8, WIRE_ARENA_SLOTS); break;
	case SP_SLOT_BROKER: put_u32(a, 8, 1); break;
	case SP_ERRQ_SHORT: a->len = 4 + WIRE_DGRAM_HDR - 1; break;
	case SP_ERRQ_NOLEN: a->len = 2; break;
	case SP_ERRQ_LEN_BIG: put_u32(a, 0, full + 1); break;
	case SP_ERRQ_LEN_SMALL: put_u32(a, 0, full - 1); break;
	case SP_ERRQ_ERRNO_BODY: a->result = -EAGAIN; break;
	case SP_STATS_VERSION:
		memcpy(a->body + offsetof(struct wire_stats, version), "1\"", 2);
		break;
	case SP_USERS_LOOP: put_u32(a, 0, 1); break;	/* next, none listed */
	default: break;
	}
}

/* A well-formed refusal: the errno, no body, no descriptor. */
static void error_only(struct ans *a, int32_t err)
{
	for (int i = 0; i < a->nfds; i++)
		if (a->own[i])
			close(a->fds[i]);
	a->nfds = 0;
	a->len = 0;
	a->result = err;
}

static void spoil(struct ans *a, const struct wire_req *req, enum spoil s)
{
	switch (s) {
	case SP_RESULT_POS: a->result = 3; break;
	case SP_RESULT_ERRNO: a->result = -70000; break;
	case SP_RESULT_EMFILE: error_only(a, -EMFILE); break;
	case SP_RESULT_EPERM: error_only(a, -EPERM); break;
	case SP_TYPE: a->type = a->type == WIRE_HELLO ? WIRE_OPEN : WIRE_HELLO; break;
	case SP_HDR_FLAGS: a->flags = 1; break;
	case SP_BODY_SHORT: a->len = a->len > 4 ? 4 : 2; break;
	case SP_BODY_LONG: a->len += 8; break;
	case SP_BODY_TRUNC: a->len = 1000; break;
	case SP_OPEN_FLAGS: memcpy(a->body + 4, "\x80\0\0\0", 4); break;
	case SP_HANDLE0: memset(a->body, 0, 4); break;
	case SP_FAIL_FDS: a->result = -EACCES; break;
	case SP_SEND_RESULT: a->result = (int32_t)req->u.send.len + 1000; break;
	case SP_HELLO_SLOT_BIG:
		memcpy(a->body + WIRE_NONCE_LEN, "\0\0\1\0", 4);  /* 65536 */
		break;
	case SP_SLOT_LATE: break;	/* serve() */
	case SP_MUTE: break;		/* serve() */
	case SP_GETOPT_BODY: a->len = WIRE_OPTVAL_MAX; break;
	case SP_SETOPT_BODY: a->len = 4; break;
	case SP_UNATTACHED: a->result = WIRE_R_UNATTACHED; break;
	case SP_ATTACH_FAMILY: memcpy(a->body + 4, "\x63\0\0\0", 4); break;
	case SP_GETNAME_FAMILY: {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

		memcpy(a->body, &s6, sizeof(s6));
		a->len = sizeof(s6);
		break;
	}
	default:
		spoil_fds(a, s);
		spoil_kinds(a, s);
		spoil_arena(a, req, s);
		spoil_fields(a, s);
		break;
	}
}

/* ---- what is put on the socket OPEN made ---- */

/* A valid reply on fd (our end of a data pair not handed over yet),
 * carrying a lingering socket. */
static void queue_rights(int fd)
{
	struct wire_dgram dg;
	uint8_t data[64];
	struct iovec iov[2] = { { &dg, sizeof(dg) }, { data, sizeof(data) } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int pass = a_lingering();

	valid_reply(&dg);
	fill_echo(data, sizeof(data), 0);
	if (send_with(fd, &mh, pass) < 0)
		die("impostor: queued datagram");
	close(pass);
}

/* A wake-up carrying a lingering socket on the data descriptor: refused
 * by the client's end (SO_PASSRIGHTS), and then not sent at all; taken
 * when the impostor turned that back on (dg-rights-on). */
static void inject_rights(void)
{
	struct wire_dgram dg;
	struct iovec iov = { &dg, sizeof(dg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int pass = a_lingering();

	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_WAKE;
	atomic_fetch_add(&sk->shm->wakes, 1);
	if (send_with(sk->data, &mh, pass) < 0) {
		static const struct linger off = { .l_onoff = 0 };

		atomic_fetch_sub(&sk->shm->wakes, 1);
		fprintf(stderr, "impostor: a descriptor on the data pair: %s\n",
			strerror(errno));
		/* Ours the last: its close would wait for ourselves. */
		(void)setsockopt(pass, SOL_SOCKET, SO_LINGER, &off, sizeof(off));
	}
	close(pass);
}

static void inject_dgram(enum inject in)
{
	struct wire_dgram dg;
	size_t len = 64;

	valid_reply(&dg);
	switch (in) {
	case DG_OPTLEN: dg.optlen = 255; memset(dg.opts, 0x44, 40); break;
	case DG_KIND: dg.kind = 7; break;
	case DG_FAMILY: dg.family = 99; break;
	case DG_FAMILY6: dg.family = other_family(); break;
	case DG_NSEC: dg.ts_nsec = 5000000000LL; break;
	case DG_ICMP_SHORT: len = 3; break;
	case DG_PORT: dg.port = 7; break;
	case DG_SCOPE: dg.src_scope = 5; break;
	case DG_PAD: dg.pad = 1; break;
	case DG_BIG: len = WIRE_DATA_MAX + 100; break;
	case DG_SHORT:
		send_dgram(sk->data, &dg, 40, 0, 0);
		return;
	default:
		return;
	}
	send_dgram(sk->data, &dg, sizeof(dg), len, 0);
}

/* Wake-ups on the data descriptor, valid or not, before the reply. */
static void inject_wakes(enum inject in)
{
	struct wire_dgram dg;
	int n = in == WK_MANY	 ? 100
		: in == WK_AHEAD   ? 300
		: in == WK_GARBAGE ? 2
				   : 3;
	int room = 8 << 20;	/* root's SO_SNDBUFFORCE: room for 300 */

	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_WAKE;
	if (in == WK_AHEAD &&
	    setsockopt(sk->data, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof(room)))
		perror("impostor: SO_SNDBUFFORCE");
	switch (in) {
	case WK_VALID:
	case WK_MANY:
	case WK_AHEAD:
	case WK_GARBAGE:
		for (int i = 0; i < n; i++)
			wake();
		if (in == WK_GARBAGE)
			send_dgram(sk->data, "\x01garbage!", 10, 0, 0);
		return;
	case WK_DATA:
		atomic_fetch_add(&sk->shm->wakes, 1);
		send_dgram(sk->data, &dg, sizeof(dg), 64, 0);
		return;
	case WK_FIELD:
	case WK_FIELD0:
		if (in == WK_FIELD)
			atomic_fetch_add(&sk->shm->wakes, 1);
		dg.ttl = 1;
		send_dgram(sk->data, &dg, sizeof(dg), 0, 0);
		return;
	case WK_SHORT:
		atomic_fetch_add(&sk->shm->wakes, 1);
		send_dgram(sk->data, &dg, 1, 0, 0);
		return;
	default:
		return;
	}
}

/* Records in the error queue, the pending error set first as the daemon
 * sets it (deliver.c: a reader woken by the record finds both). */
static void inject_records(enum inject in)
{
	struct wire_dgram dg;
	uint32_t len = 64;

	if (in < EQ_ONE || in > EQ_LONG)
		return;
	valid_record(&dg);
	atomic_store(&sk->shm->err, EHOSTUNREACH);
	switch (in) {
	case EQ_OPTLEN: dg.optlen = 255; break;
	case EQ_KIND: dg.kind = WIRE_DG_REPLY; break;
	case EQ_WAKE: memset(&dg, 0, sizeof(dg)); dg.kind = WIRE_DG_WAKE; len = 0; break;
	case EQ_ORIGIN: dg.ee_origin = 9; break;
	case EQ_OFFENDER: dg.offender_family = other_family(); break;
	case EQ_FAMILY: dg.family = other_family(); break;
	case EQ_ERRNO0: dg.ee_errno = 0; break;
	case EQ_LEN_MAX: len = UINT32_MAX; break;
	case EQ_LONG: len = 10000; break;
	case EQ_ERRNO:
		/* A valid record, then one whose errno is no errno: taking
		 * the first makes the second's the pending error. */
		queue_record(&dg, len);
		dg.ee_errno = 0x80000000u;
		break;
	default:
		break;
	}
	queue_record(&dg, len);
}

/* WK_ENDLESS: after the reply, a child (gone with the impostor) writes
 * wake-ups as fast as they are read, until the client's end goes or for
 * FLOOD_S seconds at most. */
#define FLOOD_S 20
static void wake_flood(void)
{
	struct wire_dgram dg;
	struct iovec iov = { .iov_base = &dg, .iov_len = sizeof(dg) };
	struct mmsghdr mm[64];
	time_t t0 = time(NULL);

	if (fork() != 0)
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_WAKE;
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 64; i++) {
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	while (time(NULL) - t0 < FLOOD_S) {
		atomic_fetch_add(&sk->shm->wakes, 64);
		if (sendmmsg(sk->data, mm, 64, MSG_NOSIGNAL) < 0)
			break;
	}
	_exit(0);
}

/* WK_TRICKLE: a child (gone with the impostor) wakes the socket every
 * 300 ms for FLOOD_S seconds. */
static void wake_trickle(void)
{
	const struct timespec gap = { 0, 300000000 };
	time_t t0 = time(NULL);

	if (fork() != 0)
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (time(NULL) - t0 < FLOOD_S) {
		nanosleep(&gap, NULL);
		wake();
	}
	_exit(0);
}

/* Nonsense in the state slot, which only the daemon writes. */

/* SL_ERR_FLIP: a child (gone with the impostor) sets and clears the
 * socket's pending error for 5 s. */
static void err_flip(void)
{
	struct timespec t0, t;

	if (fork() != 0)
		return;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Its mapping of the arena is all it needs: no connection of the
	 * impostor's is kept open by it. */
	close_range(3, ~0u, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		atomic_store(&sk->shm->err, EHOSTUNREACH);
		for (volatile int i = 0; i < 2000; i++)
			;
		atomic_store(&sk->shm->err, 0);
		for (volatile int i = 0; i < 2000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 5);
	_exit(0);
}

static void inject_slot(enum inject in)
{
	switch (in) {
	case SL_ERR: atomic_store(&sk->shm->err, INT32_MIN); break;
	case SL_ERR_BIG: atomic_store(&sk->shm->err, 5000); break;
	case SL_ERR_NEG: atomic_store(&sk->shm->err, -EHOSTUNREACH); break;
	case SL_ERR_STUCK: atomic_store(&sk->shm->err, EHOSTUNREACH); break;
	case SL_ERRQ: atomic_store(&sk->shm->errq, UINT32_MAX); break;
	case SL_CMSG:
		atomic_store(&sk->shm->cmsg, UINT32_MAX);
		atomic_store(&sk->shm->tsflags, UINT32_MAX);
		break;
	case SL_SHUT: atomic_store(&sk->shm->shutdown, UINT32_MAX); break;
	case SL_WAKES: atomic_store(&sk->shm->wakes, UINT32_MAX); break;
	case SL_ERR_FLIP: err_flip(); break;
	default: break;
	}
}

static void inject(void)
{
	struct wire_dgram dg;

	if (!sk->shm)
		return;		/* a broker socket: the kernel's */
	inject_slot(mode->inject);
	if (mode->inject == DG_RIGHTS_ON && sk->theirs >= 0) {
		static const int on = 1;

		if (setsockopt(sk->theirs, SOL_SOCKET, SO_PASSRIGHTS, &on,
			       sizeof(on)))
			perror("impostor: SO_PASSRIGHTS on");
	}
	if (mode->inject == DG_RIGHTS || mode->inject == DG_RIGHTS_ON)
		inject_rights();
	inject_dgram(mode->inject);
	inject_wakes(mode->inject);
	inject_records(mode->inject);
	valid_reply(&dg);
	send_dgram(sk->data, &dg, sizeof(dg), 64, 0);
	if (mode->inject == WK_ENDLESS)
		wake_flood();
	if (mode->inject == WK_TRICKLE)
		wake_trickle();
	if (mode->inject == DG_EOF) {
		close(sk->data);
		sk->data = -1;
	}
}

/* ---- answers ---- */

/* A new socket's entry, or NULL when the table is full. */
static struct psock *sock_new(int family, int data)
{
	struct psock *p;

	if (nsocks >= MAX_SOCKS)
		return NULL;
	p = &socks[nsocks++];
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->data = data;
	p->theirs = -1;
	p->handle = next_handle++;
	return p;
}

/* The socket a request names, by its handle (NULL: none such). */
static struct psock *sock_find(uint32_t handle)
{
	for (int i = 0; i < nsocks; i++)
		if (socks[i].handle == handle)
			return &socks[i];
	return NULL;
}

static uint32_t sock_bit(const struct psock *p)
{
	return 1u << (p - socks);
}

/* A new relayed socket: its pair, its slot (socket i has slot i + 1, as
 * the daemon hands them out, or counts down from the arena's last). */
/* A connection to the third party's listener (abstract
 * "pingsock-impostor-3rd"), or to one of the impostor's own if there is
 * none; -1 if neither can be had. */
static int third_party(void)
{
	static const char name[] = "\0pingsock-impostor-3rd";
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + sizeof(name) - 1;
	static int own = -1;
	int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	memcpy(sun.sun_path, name, sizeof(name) - 1);
	if (c >= 0 && connect(c, (struct sockaddr *)&sun, len) == 0)
		return c;
	if (own < 0) {
		own = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (own < 0 || bind(own, (struct sockaddr *)&sun, len) ||
		    listen(own, 8))
			return c < 0 ? -1 : (close(c), -1);
	}
	if (c >= 0 && connect(c, (struct sockaddr *)&sun, len) == 0)
		return c;
	if (c >= 0)
		close(c);
	return -1;
}

static void new_sock(struct ans *a, int family)
{
	int d[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d))
		die("socketpair");
	sk = sock_new(family, d[0]);
	if (!sk) {
		close(d[0]);
		close(d[1]);
		a->result = -EMFILE;
		return;
	}
	sk->slot = (uint32_t)nsocks;
	if (mode->spoil == SP_SLOT_LAST)
		sk->slot = WIRE_ARENA_SLOTS - (uint32_t)nsocks;
	if (mode->spoil == SP_SLOT_SAME)
		sk->slot = 1;
	sk->shm = &arena.base[sk->slot];
	/* Every receive option that writes the IP options. */
	atomic_store(&sk->shm->cmsg, WIRE_CM_RECVOPTS | WIRE_CM_RETOPTS |
				    WIRE_CM_TTL | WIRE_CM_PKTINFO |
				    WIRE_CM_TIMESTAMP);
	put_u32x3(a, sk->handle, 0, sk->slot);
	if (mode->spoil == SP_DATA_FLAGS)
		(void)fcntl(d[1], F_SETFL, O_NONBLOCK | O_ASYNC);
	if (mode->spoil == SP_DATA_QUEUED && !spoilt)
		queue_rights(d[0]);
	if (mode->inject == DG_RIGHTS_ON)
		sk->theirs = dup(d[1]);
	if (mode->spoil2 == SP_DATA_FOREIGN) {
		int c = third_party();

		if (c >= 0) {
			close(d[1]);
			d[1] = c;
		}
	}
	add_fd(a, d[1], true);
}

static void new_broker(struct ans *a, int family)
{
	int live[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, live))
		die("socketpair");
	sk = sock_new(family, live[0]);
	if (!sk) {
		close(live[0]);
		close(live[1]);
		a->result = -EMFILE;
		return;
	}
	put_u32x3(a, sk->handle, WIRE_OPEN_BROKER, 0);
	add_fd(a, ping_sock(family), true);
	add_fd(a, live[1], true);
}

static void answer_name(struct ans *a)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(0x1234),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(0x1234) };

	if (sk->family == AF_INET6) {
		s6.sin6_addr.s6_addr[15] = 1;
		memcpy(a->body, &s6, sizeof(s6));
		a->len = sizeof(s6);
	} else {
		memcpy(a->body, &s4, sizeof(s4));
		a->len = sizeof(s4);
	}
}

static bool from_icmp(const struct wire_dgram *dg)
{
	return dg->ee_origin == SO_EE_ORIGIN_ICMP ||
	       dg->ee_origin == SO_EE_ORIGIN_ICMP6;
}

/* op_errq() and sstate_dequeue(): the next record, taken; the pending
 * error becomes the next ICMP record's, or goes with the last one. */
static void answer_errq(struct ans *a)
{
	struct rec r;
	uint32_t n;

	if (!sk->shm || sk->nq == 0) {
		a->result = -EAGAIN;
		return;
	}
	r = sk->q[0];
	sk->nq--;
	memmove(sk->q, sk->q + 1, (size_t)sk->nq * sizeof(r));
	if (sk->nq && from_icmp(&sk->q[0].dg))
		atomic_store(&sk->shm->err, (int32_t)sk->q[0].dg.ee_errno);
	else if (from_icmp(&r.dg))
		atomic_store(&sk->shm->err, 0);
	atomic_store(&sk->shm->errq, (uint32_t)sk->nq);
	n = r.len < WIRE_ERRQ_DATA_MAX ? r.len : (uint32_t)WIRE_ERRQ_DATA_MAX;
	put_u32(a, 0, r.len);
	memcpy(a->body + 4, &r.dg, WIRE_DGRAM_HDR);
	fill_echo(a->body + 4 + WIRE_DGRAM_HDR, n, 8);
	a->len = 4 + WIRE_DGRAM_HDR + n;
}

/*
 * sstate_take_err(): the pending error, cleared.  A send takes only an
 * errno (its result is minus it); a slot that lies (slot-err-stuck)
 * shows one the daemon does not have.
 */
static int32_t take_err(bool errno_only)
{
	int32_t v;

	if (!sk->shm || mode->inject == SL_ERR_STUCK)
		return 0;
	v = atomic_load(&sk->shm->err);
	if (errno_only && !wire_is_errno(v))
		return 0;
	atomic_store(&sk->shm->err, 0);
	return v;
}

static void answer_opt(const struct wire_req *req, struct ans *a)
{
	int32_t v = 64;

	if (req->u.opt.level == SOL_SOCKET && req->u.opt.name == SO_ERROR)
		v = take_err(false);
	a->len = req->u.opt.len < sizeof(v) ? req->u.opt.len : sizeof(v);
	memcpy(a->body, &v, a->len);
}

static void answer_send(const struct wire_req *req, struct ans *a)
{
	int32_t err = take_err(true);

	if (err)
		a->result = -err;
	else
		a->result = req->u.send.len <= WIRE_DATA_MAX
				    ? (int32_t)req->u.send.len : -EMSGSIZE;
}

/* HELLO: the token and the connection's answer slot; the arena unless
 * the client named it. */
static void answer_hello(const struct wire_req *req, struct ans *a,
			 const struct conn *cn)
{
	static uint32_t fresh;

	memcpy(a->body, arena_token, WIRE_NONCE_LEN);
	if (mode->spoil == SP_ARENA_FRESH) {
		fresh++;
		memcpy(a->body, &fresh, sizeof(fresh));
		memcpy(a->body + WIRE_NONCE_LEN, &cn->ans_slot, 4);
		a->len = WIRE_NONCE_LEN + 4;
		add_fd(a, arena.fd, false);
		return;
	}
	memcpy(a->body + WIRE_NONCE_LEN, &cn->ans_slot, 4);
	a->len = WIRE_NONCE_LEN + 4;
	if (memcmp(req->nonce, arena_token, WIRE_NONCE_LEN) != 0)
		add_fd(a, arena.fd, false);
}

/*
 * The socket a request names: -EBADF for a handle there is none of, and
 * WIRE_R_UNATTACHED for a socket's request on a connection that neither
 * opened nor attached it.  0 when the request may go on.
 */
static int32_t check_sock(const struct wire_req *req, const struct conn *cn)
{
	const struct wire_req_type *t = wire_req_type(req->type);
	bool sock_req = t && t->also == WIRE_R_UNATTACHED;

	if (!sock_req && req->type != WIRE_ATTACH &&
	    req->type != WIRE_BROKER_BIND)
		return 0;
	if (!sk)
		return -EBADF;
	return sock_req && !(cn->knows & sock_bit(sk)) ? WIRE_R_UNATTACHED
						       : 0;
}

/*
 * WIRE_FIND.  It knows no inherited socket: its own are the client's.
 * In find-any it claims every cookie, the socket an IPv4 one of a new
 * handle with a slot, so that the client proves it holds the descriptor
 * (a write on it) and its ATTACH is answered as for a socket it opened.
 */
static void answer_find(struct ans *a)
{
	if (mode->spoil != SP_FIND_ANY) {
		a->result = -ENOENT;
		return;
	}
	sk = sock_new(AF_INET, -1);	/* the data descriptor: not ours */
	if (!sk) {
		a->result = -ENOENT;
		return;
	}
	sk->slot = (uint32_t)nsocks;
	sk->shm = &arena.base[sk->slot];
	put_u32x3(a, sk->handle, AF_INET, 0);
}

static void answer_normal(const struct wire_req *req, struct ans *a,
			  struct conn *cn)
{
	a->result = check_sock(req, cn);
	if (a->result)
		return;
	switch (req->type) {
	case WIRE_HELLO: answer_hello(req, a, cn); break;
	case WIRE_OPEN:
		if (mode->broker)
			new_broker(a, req->u.open.domain);
		else
			new_sock(a, req->u.open.domain);
		if (sk && !mode->broker)
			cn->knows |= sock_bit(sk);
		break;
	case WIRE_ATTACH:
		put_u32x3(a, sk->handle, (uint32_t)sk->family, sk->slot);
		cn->knows |= sock_bit(sk);
		break;
	case WIRE_SEND: answer_send(req, a); break;
	case WIRE_GETOPT: answer_opt(req, a); break;
	case WIRE_GETNAME:
	case WIRE_GETPEER: answer_name(a); break;
	case WIRE_ERRQ: answer_errq(a); break;
	case WIRE_STATS: a->len = sizeof(struct wire_stats); break;
	/* One page, no socket: a header of zeros. */
	case WIRE_TABLE: a->len = sizeof(struct wire_table_hdr); break;
	case WIRE_USERS: a->len = sizeof(struct wire_users_hdr); break;
	case WIRE_BROKER_BIND: add_fd(a, ping_sock(sk->family), true); break;
	case WIRE_FIND: answer_find(a); break;
	default: break;		/* result 0, nothing else */
	}
}

static void send_ans(int c, const struct ans *a)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(MAX_FDS * sizeof(int))];
	} cbuf;
	uint8_t hdr[WIRE_RESP_HDR];
	struct iovec iov[2] = { { hdr, sizeof(hdr) },
				{ (void *)a->body, a->len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	memcpy(hdr, &a->type, 2);
	memcpy(hdr + 2, &a->flags, 2);
	memcpy(hdr + 4, &a->result, 4);
	if (a->nfds) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.b;
		mh.msg_controllen = CMSG_SPACE((size_t)a->nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)a->nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), a->fds, (size_t)a->nfds * sizeof(int));
	}
	if (sendmsg(c, &mh, MSG_NOSIGNAL) < 0)
		perror("impostor: answer");
	for (int i = 0; i < a->nfds; i++)
		if (a->own[i])
			close(a->fds[i]);
}

/* One request read: 0, or -1 at EOF.  Descriptors that come with it are
 * closed (no request carries one). */
static int read_req(int c, struct wire_req *req)
{
	uint8_t buf[WIRE_MSG_MAX];
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(8 * sizeof(int))];
	} cbuf;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b,
			     .msg_controllen = sizeof(cbuf.b) };
	ssize_t n = recvmsg(c, &mh, MSG_CMSG_CLOEXEC);

	if (n <= 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
	     cm = CMSG_NXTHDR(&mh, cm))
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		     i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	if (wire_decode_req(buf, (size_t)n, req)) {
		memset(req, 0, sizeof(*req));
		if (n >= 2)
			memcpy(&req->type, buf, 2);
	}
	return 0;
}

/*
 * A send that asked for its answer in the slot: there, as pingsockd
 * does (its result spoilt or not), unless that answer is spoilt in a way
 * the slot cannot carry (its type, its body, its descriptors: then on
 * the channel, where a client that waits for the slot in vain finds it
 * after its WIRE_WAIT), or late (SP_SLOT_LATE: never in the slot).
 * true if answered here.
 */
static bool answer_slot(struct conn *cn, const struct ans *a,
			enum spoil how)
{
	struct wire_shm *w = &arena.base[cn->ans_slot];

	if (a->type != WIRE_SEND || a->flags || a->len || a->nfds)
		return false;
	cn->ans_last = a->result;
	if (how == SP_SLOT_LATE)
		return true;
	if (++cn->ans_seq == 0)
		cn->ans_seq = 1;
	atomic_store_explicit(&w->ans_result, a->result, memory_order_relaxed);
	atomic_store_explicit(&w->ans_seq, cn->ans_seq, memory_order_release);
	return true;
}

/*
 * What goes on a socket's data descriptor goes once the client has made
 * a request about it (a send, an option), as the real daemon's replies
 * come after a send: a socket handed over with something already queued
 * on it is refused (fdcheck_fresh_pair).
 */
static struct psock *due;

static void inject_due(const struct wire_req *req)
{
	if (due && sk == due && req->type != WIRE_OPEN &&
	    req->type != WIRE_HELLO) {
		due = NULL;
		inject();
	}
}

/* One request: its answer, spoilt if it is the one; 0, or -1 at EOF. */
static int serve(struct conn *cn)
{
	static struct ans a;
	enum spoil how = SP_NONE;
	struct wire_req req;

	if (read_req(cn->fd, &req))
		return -1;
	sk = req.type == WIRE_OPEN ? NULL : sock_find(req.handle);
	memset(&a, 0, sizeof(a));
	a.type = req.type;
	answer_normal(&req, &a, cn);
	if (req.type == WIRE_WAIT) {	/* as the send it waits for */
		a.type = WIRE_SEND;
		a.result = cn->ans_last;
	}
	if (spoilt && req.type == WIRE_SEND && a.result == WIRE_R_UNATTACHED &&
	    strcmp(mode->name, "mute-slow") == 0) {
		const struct timespec slow = { 1, 500000000 };

		nanosleep(&slow, NULL);
	}
	if (!spoilt && mode->type == req.type) {
		spoilt = true;
		how = mode->spoil;
		spoil(&a, &req, how);
	} else if (spoilt && !spoilt2 && mode->type2 == req.type) {
		spoilt2 = true;
		how = mode->spoil2;
		spoil(&a, &req, how);
	}
	if (how == SP_MUTE || (cn->muted && req.type == WIRE_WAIT)) {
		cn->muted = req.type == WIRE_SEND;
		return 0;
	}
	if ((req.rqflags & WIRE_RQ_SLOT) && answer_slot(cn, &a, how)) {
		inject_due(&req);
		return 0;
	}
	send_ans(cn->fd, &a);
	if (shrink_fd >= 0) {
		if (ftruncate(shrink_fd, 0))
			perror("impostor: shrink");
		close(shrink_fd);
		shrink_fd = -1;
	}
	if (req.type == WIRE_OPEN && a.result == 0 && sk)
		due = sk;
	else
		inject_due(&req);
	return mode->spoil == SP_ARENA_FRESH && req.type != WIRE_HELLO ? -1
									 : 0;
}

/* Loopback up (a_lingering()'s TCP connection). */
static void lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		perror("impostor: lo");
	ifr.ifr_flags |= IFF_UP;
	if (fd >= 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		perror("impostor: lo up");
	if (fd >= 0)
		close(fd);
}

/* A network namespace of our own where ping sockets are allowed, for the
 * broker modes (the unix socket path works across namespaces). */
static void own_netns(void)
{
	int fd;

	if (unshare(CLONE_NEWNET))
		return;
	fd = open("/proc/sys/net/ipv4/ping_group_range", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0 2147483647", 12) < 0)
			perror("impostor: ping_group_range");
		close(fd);
	}
	lo_up();
}

/*
 * Listen at path.  Made under another name and renamed into place once
 * it listens, mode 0666: the test starts its client as soon as the path
 * exists, and a bind() there left moments in which uid 65534's connect()
 * failed (EACCES before the chmod, ECONNREFUSED before the listen).
 */
static int listen_on(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	char tmp[sizeof(sun.sun_path)];

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp))
		die("impostor: path too long");
	memcpy(sun.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(tmp, 0666) || listen(fd, 8) || rename(tmp, path))
		die("impostor: listen");
	return fd;
}

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

static void loop(int lfd)
{
	struct pollfd p[1 + MAX_CONNS];
	struct conn conns[1 + MAX_CONNS];
	int n = 1;

	p[0].fd = lfd;
	p[0].events = POLLIN;
	while (!stop) {
		if (poll(p, (nfds_t)n, 1000) < 0)
			continue;
		for (int i = n - 1; i >= 1; i--) {
			if (!p[i].revents || serve(&conns[i]) == 0)
				continue;
			close(p[i].fd);
			p[i] = p[--n];
			conns[i] = conns[n];
		}
		if ((p[0].revents & POLLIN) && n < 1 + MAX_CONNS) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0) {
				/* Answer slots after every socket's. */
				conns[n] = (struct conn){
					.fd = c, .ans_slot = next_ans_slot++ };
				p[n].fd = c;
				p[n].events = POLLIN;
				p[n++].revents = 0;
			}
		}
	}
}

int main(int argc, char **argv)
{
	int lfd;

	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			printf("%s\n", modes[i].name);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: impostor PATH MODE | impostor list\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, argv[2]) == 0)
			mode = &modes[i];
	if (!mode) {
		fprintf(stderr, "impostor: no mode %s\n", argv[2]);
		return 2;
	}
	own_netns();
	arena_init();
	signal(SIGTERM, on_term);
	alarm(60);
	lfd = listen_on(argv[1]);
	loop(lfd);
	unlink(argv[1]);
	return 0;
}
