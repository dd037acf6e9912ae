/*
 * impostor - a fake pingsockd for tests/integration/impostor.sh: what a
 * process that bound the socket path while the real daemon was down (or
 * a compromised daemon) can send a client.
 *
 *   impostor PATH MODE
 *
 * It listens on PATH (mode 0666) and answers every request as pingsockd
 * would (HELLO, OPEN with a data descriptor, a sealed state page and an
 * error descriptor, ATTACH, the socket calls), except for the one
 * malformation MODE names: the first answer to one kind of request is
 * spoilt (result out of range, wrong type, body of the wrong length, too
 * many or too few descriptors or ones of the wrong kind, a state page that
 * is unsealed, empty or too small), or the socket it opens gets malformed
 * datagrams on its data descriptor, malformed records on its error
 * descriptor or nonsense in its state page, ahead of one valid reply.
 * "none" spoils nothing.  `impostor list` prints the modes.
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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <linux/errqueue.h>
#include <time.h>
#include <unistd.h>

#include "wire/wire.h"

#define MAX_CONNS 8
#define MAX_FDS 8
#define BODY_MAX 2048

struct ans {
	uint16_t type, flags;
	int32_t result;
	uint8_t body[BODY_MAX];
	size_t len;
	int fds[MAX_FDS];
	bool own[MAX_FDS];	/* closed once sent */
	int nfds;
};

/* The socket the client opened last (there is only one client). */
static struct {
	int family;
	int data, err;		/* our ends */
	int shmfd;
	struct wire_shm *shm;
	int shrink_fd;		/* an unsealed page, shrunk once handed out */
} sk = { .data = -1, .err = -1, .shmfd = -1, .shrink_fd = -1 };

static uint32_t next_handle = 1;

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
	if (a->own[i])
		close(a->fds[i]);
	a->fds[i] = fd;
	a->own[i] = true;
}

static int a_pipe(void)
{
	int p[2];

	if (pipe(p))
		die("pipe");
	close(p[1]);
	return p[0];
}

static int a_memfd(size_t size, bool seal)
{
	int fd = memfd_create("impostor", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	uint32_t v = WIRE_VERSION;

	if (fd < 0 || ftruncate(fd, (off_t)size))
		die("memfd");
	if (size >= sizeof(v) && pwrite(fd, &v, sizeof(v), 0) != sizeof(v))
		die("pwrite");
	if (seal && fcntl(fd, F_ADD_SEALS,
			  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		die("seal");
	return fd;
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

static void put_u32s(struct ans *a, uint32_t x, uint32_t y)
{
	memcpy(a->body, &x, 4);
	memcpy(a->body + 4, &y, 4);
	a->len = 8;
}

/* ---- valid datagrams and records ---- */

static void dgram_base(struct wire_dgram *dg, uint8_t kind)
{
	struct timespec now;

	memset(dg, 0, sizeof(*dg));
	clock_gettime(CLOCK_REALTIME, &now);
	dg->kind = kind;
	dg->family = (uint8_t)sk.family;
	dg->ttl = 64;
	dg->ifindex = 1;
	dg->ts_sec = now.tv_sec;
	dg->ts_nsec = now.tv_nsec;
	if (sk.family == AF_INET6) {
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
	if (sk.family == AF_INET6) {
		dg->ee_origin = SO_EE_ORIGIN_ICMP6;
		dg->ee_type = 1;
		dg->ee_code = 3;
	} else {
		dg->ee_origin = SO_EE_ORIGIN_ICMP;
		dg->ee_type = 3;
		dg->ee_code = 1;
	}
	dg->offender_family = (uint8_t)sk.family;
	dg->offender[0] = 10;
	dg->offender[3] = 1;
}

/* The header, then len bytes of an Echo message (0: reply, 8: request). */
static void send_dgram(int fd, const void *hdr, size_t hlen, size_t len,
		       uint8_t type)
{
	static uint8_t data[WIRE_DATA_MAX + 1024];
	struct iovec iov[2] = { { (void *)hdr, hlen }, { data, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	memset(data, 0xa5, len);
	if (len >= 8) {
		data[0] = sk.family == AF_INET6 ? (uint8_t)(type ? 128 : 129)
						: type;
		data[1] = 0;
		data[4] = 0x12;
		data[5] = 0x34;
	}
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0)
		perror("impostor: datagram");
}

/* ---- the malformations ---- */

enum spoil {
	SP_NONE, SP_RESULT_POS, SP_RESULT_ERRNO, SP_TYPE, SP_HDR_FLAGS,
	SP_BODY_SHORT, SP_BODY_LONG, SP_BODY_TRUNC, SP_OPEN_FLAGS,
	SP_HANDLE0, SP_FDS_FEW, SP_FDS_EXTRA, SP_FDS_MANY, SP_FAIL_FDS,
	SP_FD0_PIPE, SP_FD0_STREAM, SP_FD0_UDP, SP_FD0_RAW, SP_FD0_FAMILY,
	SP_FD1_PIPE, SP_FD2_FILE, SP_SHM_SHRINK, SP_SHM_EMPTY, SP_SHM_SMALL,
	SP_SHM_VERSION, SP_SEND_RESULT, SP_GETOPT_BODY, SP_GETNAME_FAMILY,
	SP_SETOPT_BODY, SP_UNATTACHED, SP_ATTACH_FAMILY, SP_NOFD,
};

enum inject {
	IN_NONE, DG_OPTLEN, DG_SHORT, DG_KIND, DG_WAKE, DG_FAMILY,
	DG_FAMILY6, DG_NSEC, DG_ICMP_SHORT, DG_PORT, DG_SCOPE, DG_PAD,
	DG_BIG, EQ_OPTLEN, EQ_ERRNO, EQ_KIND, EQ_SHORT, EQ_ORIGIN,
	EQ_OFFENDER, EQ_ERRNO0, SHM_ERR, SHM_ERR_BIG,
};

struct mode {
	const char *name;
	uint16_t type;		/* the request whose first answer is spoilt */
	enum spoil spoil;
	uint16_t type2;		/* and a second one (0: none) */
	enum spoil spoil2;
	enum inject inject;	/* onto the socket OPEN made */
	bool broker;		/* OPEN answers in broker mode */
};

static const struct mode modes[] = {
	{ "none", 0, SP_NONE, 0, SP_NONE, IN_NONE, false },
	{ "broker-none", 0, SP_NONE, 0, SP_NONE, IN_NONE, true },
	{ "hello-result", WIRE_HELLO, SP_RESULT_POS, 0, 0, 0, false },
	{ "hello-type", WIRE_HELLO, SP_TYPE, 0, 0, 0, false },
	{ "hello-flags", WIRE_HELLO, SP_HDR_FLAGS, 0, 0, 0, false },
	{ "hello-fds", WIRE_HELLO, SP_FDS_EXTRA, 0, 0, 0, false },
	{ "hello-body", WIRE_HELLO, SP_BODY_LONG, 0, 0, 0, false },
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
	{ "open-shm-pipe", WIRE_OPEN, SP_FD1_PIPE, 0, 0, 0, false },
	{ "open-err-file", WIRE_OPEN, SP_FD2_FILE, 0, 0, 0, false },
	{ "open-shm-shrink", WIRE_OPEN, SP_SHM_SHRINK, 0, 0, 0, false },
	{ "open-shm-empty", WIRE_OPEN, SP_SHM_EMPTY, 0, 0, 0, false },
	{ "open-shm-small", WIRE_OPEN, SP_SHM_SMALL, 0, 0, 0, false },
	{ "open-shm-version", WIRE_OPEN, SP_SHM_VERSION, 0, 0, 0, false },
	{ "broker-udp", WIRE_OPEN, SP_FD0_UDP, 0, 0, 0, true },
	{ "broker-raw", WIRE_OPEN, SP_FD0_RAW, 0, 0, 0, true },
	{ "broker-family", WIRE_OPEN, SP_FD0_FAMILY, 0, 0, 0, true },
	{ "broker-unix", WIRE_OPEN, SP_FD0_STREAM, 0, 0, 0, true },
	{ "broker-fds", WIRE_OPEN, SP_FDS_EXTRA, 0, 0, 0, true },
	{ "broker-live-pipe", WIRE_OPEN, SP_FD1_PIPE, 0, 0, 0, true },
	{ "bbind-udp", WIRE_BROKER_BIND, SP_FD0_UDP, 0, 0, 0, true },
	{ "bbind-fds", WIRE_BROKER_BIND, SP_FDS_EXTRA, 0, 0, 0, true },
	{ "bbind-nofd", WIRE_BROKER_BIND, SP_NOFD, 0, 0, 0, true },
	{ "bbind-body", WIRE_BROKER_BIND, SP_BODY_LONG, 0, 0, 0, true },
	{ "bind-result", WIRE_BIND, SP_RESULT_POS, 0, 0, 0, false },
	{ "bind-errno", WIRE_BIND, SP_RESULT_ERRNO, 0, 0, 0, false },
	{ "bind-body", WIRE_BIND, SP_BODY_LONG, 0, 0, 0, false },
	{ "bind-fds", WIRE_BIND, SP_FDS_EXTRA, 0, 0, 0, false },
	{ "send-result", WIRE_SEND, SP_SEND_RESULT, 0, 0, 0, false },
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
	{ "attach-shm-pipe", WIRE_SETOPT, SP_UNATTACHED, WIRE_ATTACH,
	  SP_FD0_PIPE, 0, false },
	/* For pingsockctl (the library's request client): what it took
	 * before it shared the library's checks. */
	{ "ctl-stats-flags", WIRE_STATS, SP_HDR_FLAGS, 0, 0, 0, false },
	{ "ctl-stats-fds", WIRE_STATS, SP_FDS_EXTRA, 0, 0, 0, false },
	{ "dg-optlen", 0, 0, 0, 0, DG_OPTLEN, false },
	{ "dg-short", 0, 0, 0, 0, DG_SHORT, false },
	{ "dg-kind", 0, 0, 0, 0, DG_KIND, false },
	{ "dg-wake", 0, 0, 0, 0, DG_WAKE, false },
	{ "dg-family", 0, 0, 0, 0, DG_FAMILY, false },
	{ "dg-family6", 0, 0, 0, 0, DG_FAMILY6, false },
	{ "dg-nsec", 0, 0, 0, 0, DG_NSEC, false },
	{ "dg-icmp-short", 0, 0, 0, 0, DG_ICMP_SHORT, false },
	{ "dg-port", 0, 0, 0, 0, DG_PORT, false },
	{ "dg-scope", 0, 0, 0, 0, DG_SCOPE, false },
	{ "dg-pad", 0, 0, 0, 0, DG_PAD, false },
	{ "dg-big", 0, 0, 0, 0, DG_BIG, false },
	{ "eq-optlen", 0, 0, 0, 0, EQ_OPTLEN, false },
	{ "eq-errno", 0, 0, 0, 0, EQ_ERRNO, false },
	{ "eq-errno0", 0, 0, 0, 0, EQ_ERRNO0, false },
	{ "eq-kind", 0, 0, 0, 0, EQ_KIND, false },
	{ "eq-short", 0, 0, 0, 0, EQ_SHORT, false },
	{ "eq-origin", 0, 0, 0, 0, EQ_ORIGIN, false },
	{ "eq-offender", 0, 0, 0, 0, EQ_OFFENDER, false },
	{ "shm-err", 0, 0, 0, 0, SHM_ERR, false },
	{ "shm-err-big", 0, 0, 0, 0, SHM_ERR_BIG, false },
};

static const struct mode *mode;
static bool spoilt, spoilt2;

static void spoil_fds(struct ans *a, enum spoil s)
{
	switch (s) {
	case SP_FDS_FEW:
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
		swap_fd(a, 0, kernel_sock(sk.family, SOCK_DGRAM, IPPROTO_UDP));
		break;
	case SP_FD0_RAW:
		swap_fd(a, 0, kernel_sock(sk.family, SOCK_RAW, IPPROTO_ICMP));
		break;
	case SP_FD0_FAMILY:
		swap_fd(a, 0, ping_sock(sk.family == AF_INET6 ? AF_INET
							     : AF_INET6));
		break;
	case SP_FD1_PIPE:
		swap_fd(a, 1, a_pipe());
		break;
	case SP_FD2_FILE:
		swap_fd(a, 2, open("/dev/null", O_RDWR | O_CLOEXEC));
		break;
	default:
		break;
	}
}

/* A state page in place of the good one (descriptor 1 of OPEN). */
static void spoil_shm(struct ans *a, enum spoil s)
{
	switch (s) {
	case SP_SHM_SHRINK:
		sk.shrink_fd = a_memfd(WIRE_SHM_SIZE, false);
		a->fds[1] = sk.shrink_fd;	/* ours: shrunk after sending */
		break;
	case SP_SHM_EMPTY:
		swap_fd(a, 1, a_memfd(0, true));
		break;
	case SP_SHM_SMALL:
		swap_fd(a, 1, a_memfd(100, true));
		break;
	case SP_SHM_VERSION:
		sk.shm->version = 0;
		break;
	default:
		break;
	}
}

static void spoil(struct ans *a, const struct wire_req *req, enum spoil s)
{
	switch (s) {
	case SP_RESULT_POS: a->result = 3; break;
	case SP_RESULT_ERRNO: a->result = -70000; break;
	case SP_TYPE: a->type = a->type == WIRE_HELLO ? WIRE_OPEN : WIRE_HELLO; break;
	case SP_HDR_FLAGS: a->flags = 1; break;
	case SP_BODY_SHORT: a->len = a->len > 4 ? 4 : 2; break;
	case SP_BODY_LONG: a->len += 8; break;
	case SP_BODY_TRUNC: a->len = 1000; break;
	case SP_OPEN_FLAGS: memcpy(a->body + 4, "\x80\0\0\0", 4); break;
	case SP_HANDLE0: memset(a->body, 0, 4); break;
	case SP_FAIL_FDS: a->result = -EACCES; break;
	case SP_SEND_RESULT: a->result = (int32_t)req->u.send.len + 1000; break;
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
		spoil_shm(a, s);
		break;
	}
}

/* ---- what is put on the socket OPEN made ---- */

static void inject_dgram(enum inject in)
{
	struct wire_dgram dg;
	size_t len = 64;

	valid_reply(&dg);
	switch (in) {
	case DG_OPTLEN: dg.optlen = 255; memset(dg.opts, 0x44, 40); break;
	case DG_KIND: dg.kind = 7; break;
	case DG_WAKE: memset(&dg, 0, sizeof(dg)); dg.kind = WIRE_DG_WAKE; len = 0; break;
	case DG_FAMILY: dg.family = 99; break;
	case DG_FAMILY6: dg.family = sk.family == AF_INET6 ? AF_INET : AF_INET6; break;
	case DG_NSEC: dg.ts_nsec = 5000000000LL; break;
	case DG_ICMP_SHORT: len = 3; break;
	case DG_PORT: dg.port = 7; break;
	case DG_SCOPE: dg.src_scope = 5; break;
	case DG_PAD: dg.pad = 1; break;
	case DG_BIG: len = WIRE_DATA_MAX + 100; break;
	case DG_SHORT:
		send_dgram(sk.data, &dg, 40, 0, 0);
		return;
	default:
		return;
	}
	send_dgram(sk.data, &dg, sizeof(dg), len, 0);
}

/* Records on the error descriptor; the pending error as the daemon sets
 * it for the first. */
static void inject_records(enum inject in)
{
	struct wire_dgram dg;
	uint32_t n = 1;

	valid_record(&dg);
	switch (in) {
	case EQ_OPTLEN: dg.optlen = 255; break;
	case EQ_KIND: dg.kind = WIRE_DG_REPLY; break;
	case EQ_ORIGIN: dg.ee_origin = 9; break;
	case EQ_OFFENDER: dg.offender_family = sk.family == AF_INET6 ? AF_INET : AF_INET6; break;
	case EQ_ERRNO0: dg.ee_errno = 0; break;
	case EQ_SHORT:
		send_dgram(sk.err, &dg, 20, 0, 8);
		break;
	case EQ_ERRNO:
		/* A valid record, then one whose errno is no errno: taking
		 * the first makes the second's the pending error. */
		send_dgram(sk.err, &dg, sizeof(dg), 64, 8);
		dg.ee_errno = 0x80000000u;
		n = 2;
		break;
	default:
		return;
	}
	if (in != EQ_SHORT)
		send_dgram(sk.err, &dg, sizeof(dg), 64, 8);
	atomic_store(&sk.shm->err, EHOSTUNREACH);
	atomic_store(&sk.shm->errq, n);
}

static void inject(void)
{
	struct wire_dgram dg;

	if (mode->broker)
		return;
	inject_dgram(mode->inject);
	inject_records(mode->inject);
	if (mode->inject == SHM_ERR)
		atomic_store(&sk.shm->err, INT32_MIN);
	if (mode->inject == SHM_ERR_BIG)
		atomic_store(&sk.shm->err, 5000);
	valid_reply(&dg);
	send_dgram(sk.data, &dg, sizeof(dg), 64, 0);
}

/* ---- answers ---- */

/* A new daemon socket: its pair, its error pair, its state page. */
static void new_sock(struct ans *a, int family)
{
	int d[2], e[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, d) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, e))
		die("socketpair");
	sk.family = family;
	sk.data = d[0];
	sk.err = e[0];
	sk.shmfd = a_memfd(WIRE_SHM_SIZE, true);
	sk.shm = mmap(NULL, WIRE_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      sk.shmfd, 0);
	if (sk.shm == MAP_FAILED)
		die("mmap");
	/* Every receive option that writes the IP options. */
	atomic_store(&sk.shm->cmsg, WIRE_CM_RECVOPTS | WIRE_CM_RETOPTS |
				    WIRE_CM_TTL | WIRE_CM_PKTINFO |
				    WIRE_CM_TIMESTAMP);
	put_u32s(a, next_handle++, 0);
	add_fd(a, d[1], true);
	add_fd(a, sk.shmfd, false);
	add_fd(a, e[1], true);
}

static void new_broker(struct ans *a, int family)
{
	int live[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, live))
		die("socketpair");
	sk.family = family;
	sk.data = live[0];
	put_u32s(a, next_handle++, WIRE_OPEN_BROKER);
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

	if (sk.family == AF_INET6) {
		s6.sin6_addr.s6_addr[15] = 1;
		memcpy(a->body, &s6, sizeof(s6));
		a->len = sizeof(s6);
	} else {
		memcpy(a->body, &s4, sizeof(s4));
		a->len = sizeof(s4);
	}
}

static void answer_normal(const struct wire_req *req, struct ans *a)
{
	int v = 64;

	switch (req->type) {
	case WIRE_OPEN:
		if (mode->broker)
			new_broker(a, req->u.open.domain);
		else
			new_sock(a, req->u.open.domain);
		break;
	case WIRE_ATTACH:
		put_u32s(a, 1, (uint32_t)sk.family);
		add_fd(a, sk.shmfd, false);
		add_fd(a, dup(sk.err), true);	/* any end will do */
		break;
	case WIRE_SEND:
		a->result = req->u.send.len <= WIRE_DATA_MAX
				    ? (int32_t)req->u.send.len : -EMSGSIZE;
		break;
	case WIRE_GETOPT:
		a->len = req->u.opt.len < sizeof(v) ? req->u.opt.len : sizeof(v);
		memcpy(a->body, &v, a->len);
		break;
	case WIRE_GETNAME:
	case WIRE_GETPEER:
		answer_name(a);
		break;
	case WIRE_STATS:
		a->len = sizeof(struct wire_stats);
		break;
	case WIRE_TABLE:
		/* One page, no socket: a header of zeros. */
		a->len = sizeof(struct wire_table_hdr);
		break;
	case WIRE_BROKER_BIND:
		add_fd(a, ping_sock(sk.family), true);
		break;
	default:
		break;		/* result 0, nothing else */
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

/* One request: its answer, spoilt if it is the one; 0, or -1 at EOF. */
static int serve(int c)
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
	static struct ans a;
	struct wire_req req;
	ssize_t n = recvmsg(c, &mh, MSG_CMSG_CLOEXEC);

	if (n <= 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm;
	     cm = CMSG_NXTHDR(&mh, cm))
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		     i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			close(fd);	/* ATTACH, BROKER_BIND: not needed */
		}
	if (wire_decode_req(buf, (size_t)n, &req)) {
		memset(&req, 0, sizeof(req));
		if (n >= 2)
			memcpy(&req.type, buf, 2);
	}
	memset(&a, 0, sizeof(a));
	a.type = req.type;
	answer_normal(&req, &a);
	if (!spoilt && mode->type == req.type) {
		spoilt = true;
		spoil(&a, &req, mode->spoil);
	} else if (spoilt && !spoilt2 && mode->type2 == req.type) {
		spoilt2 = true;
		spoil(&a, &req, mode->spoil2);
	}
	send_ans(c, &a);
	if (sk.shrink_fd >= 0 && ftruncate(sk.shrink_fd, 0))
		perror("impostor: shrink");
	if (req.type == WIRE_OPEN && a.result == 0)
		inject();
	return 0;
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
	int n = 1;

	p[0].fd = lfd;
	p[0].events = POLLIN;
	while (!stop) {
		if (poll(p, (nfds_t)n, 1000) < 0)
			continue;
		for (int i = n - 1; i >= 1; i--) {
			if (!p[i].revents || serve(p[i].fd) == 0)
				continue;
			close(p[i].fd);
			p[i] = p[--n];
		}
		if ((p[0].revents & POLLIN) && n < 1 + MAX_CONNS) {
			int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (c >= 0) {
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
	signal(SIGTERM, on_term);
	alarm(60);
	lfd = listen_on(argv[1]);
	loop(lfd);
	unlink(argv[1]);
	return 0;
}
