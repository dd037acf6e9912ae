/* SPDX-License-Identifier: ISC */
#include "lib/broker.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include "lib/conn.h"
#include "lib/fdcheck.h"
#include "lib/ident.h"
#include "lib/lock.h"
#include "lib/relay.h"
#include "wire/decode.h"
#include "wire/in6ext.h"
#include "lib/sys.h"

#define BK_OPT_MAX 256		/* longer values are not kept */

struct bkopt {
	int level, name;
	socklen_t len;
	unsigned char val[BK_OPT_MAX];
};

/*
 * "Fresh" is a property of the socket, not of one process's view of it:
 * after fork() a child's first send makes the parent's copy used too.  So
 * the flags live in shared anonymous pages, inherited by fork, one byte a
 * socket, handed out by an atomic counter in the page (unique across the
 * processes that share it), never reused.
 */
#define BK_POOL_SIZE 4096
#define BK_POOL_SLOTS (BK_POOL_SIZE - 64)

struct bkpool {
	_Atomic uint32_t next;
	uint8_t pad[60];
	_Atomic uint8_t used[BK_POOL_SLOTS];	/* 1: sent or connected */
};
_Static_assert(sizeof(struct bkpool) == BK_POOL_SIZE, "bkpool layout");

static struct bkpool *pool;	/* under LOCK_BROKER */

struct broker_sock {
	_Atomic uint8_t *used;	/* its byte in a pool */
	uint32_t handle;	/* the daemon's, for WIRE_BROKER_BIND */
	int v6only;		/* IPV6_V6ONLY as the program set it */
	bool keep_ident;
	int family;
	int livefd;
	struct bkopt *opts;	/* under LOCK_BROKER */
	size_t nopts;
};

/* A byte for a new socket (the pages are never unmapped). */
static _Atomic uint8_t *pool_slot(void)
{
	_Atomic uint8_t *slot = NULL;

	lock_take(LOCK_BROKER);
	for (int tries = 0; tries < 2 && !slot; tries++) {
		uint32_t i = pool ? atomic_fetch_add(&pool->next, 1)
				  : BK_POOL_SLOTS;

		if (i < BK_POOL_SLOTS) {
			slot = &pool->used[i];
			break;
		}
		void *p = mmap(NULL, BK_POOL_SIZE, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		pool = p;
	}
	lock_give(LOCK_BROKER);
	return slot;
}

int broker_adopt(int livefd, uint32_t handle, int family, bool keep_ident,
		 struct fdent *ent)
{
	struct broker_sock *bk = calloc(1, sizeof(*bk));

	if (bk)
		bk->used = pool_slot();
	if (!bk || !bk->used) {
		free(bk);
		sys_close(livefd);
		return -ENOMEM;
	}
	atomic_store(bk->used, 0);
	bk->handle = handle;
	bk->v6only = 1;	/* the kernel's default for these sockets */
	bk->keep_ident = keep_ident;
	bk->family = family;
	bk->livefd = conn_move_high(livefd);
	memset(ent, 0, sizeof(*ent));
	ent->kind = FDK_BROKER_FRESH;
	ent->family = family;
	ent->livefd = bk->livefd;
	ent->bk = bk;
	return 0;
}

/* Not sent on or connected yet, by any process that shares it. */
static bool fresh(const struct fdent *ent)
{
	return ent->bk && atomic_load(ent->bk->used) == 0;
}

void broker_release(struct fdent *e)
{
	struct broker_sock *bk = e->bk;

	if (!bk)
		return;
	if (bk->livefd >= 0)
		sys_close(bk->livefd);
	free(bk->opts);
	free(bk);
}

/* Options that are actions or hold pointers: not replayed. */
static bool replayable(int level, int name, socklen_t len)
{
	if (len > BK_OPT_MAX)
		return false;
	/* The device binding is copied by the daemon before its bind (a
	 * second SO_BINDTODEVICE would need CAP_NET_RAW). */
	if (level == SOL_SOCKET)
		return name != SO_BINDTODEVICE && name != SO_BINDTOIFINDEX &&
		       name != SO_ATTACH_FILTER && name != SO_DETACH_FILTER &&
		       name != SO_ATTACH_BPF &&	/* SO_DETACH_BPF: the same */
		       name != SO_LOCK_FILTER;
	if (level == SOL_IP)
		return name != IP_ADD_MEMBERSHIP && name != IP_DROP_MEMBERSHIP;
	if (level == SOL_IPV6)
		return name != IPV6_FLOWLABEL_MGR && name != IPV6_V6ONLY &&
		       name != IPV6_ADD_MEMBERSHIP && name != IPV6_DROP_MEMBERSHIP;
	return true;
}

/* A setsockopt() that succeeded on a fresh socket: kept for a rebind. */
static void record(const struct fdent *ent, int level, int name,
		   const void *val, socklen_t len)
{
	struct broker_sock *bk = ent->bk;
	struct bkopt *o = NULL;

	if (!bk || !replayable(level, name, len))
		return;
	lock_take(LOCK_BROKER);
	for (size_t i = 0; i < bk->nopts && !o; i++)
		if (bk->opts[i].level == level && bk->opts[i].name == name)
			o = &bk->opts[i];
	if (!o) {
		struct bkopt *n = realloc(bk->opts,
					  (bk->nopts + 1) * sizeof(*n));

		if (n) {
			bk->opts = n;
			o = &n[bk->nopts++];
			o->level = level;
			o->name = name;
		}
	}
	if (o) {
		o->len = len;
		if (len)
			memcpy(o->val, val, len);
	}
	lock_give(LOCK_BROKER);
}

/* The options set so far, in the order first set, onto nfd. */
static int replay(struct broker_sock *bk, int nfd)
{
	int rc = 0;

	lock_take(LOCK_BROKER);
	for (size_t i = 0; i < bk->nopts && !rc; i++) {
		const struct bkopt *o = &bk->opts[i];

		if (sys_setsockopt(nfd, o->level, o->name, o->val, o->len) != 0)
			rc = -errno;
	}
	lock_give(LOCK_BROKER);
	return rc;
}

/* nfd takes fd's place: its file flags, then its number. */
static int take_place(int fd, int nfd)
{
	int fl = sys_fcntl(fd, F_GETFL), fdfl = sys_fcntl(fd, F_GETFD);

	if (fl < 0 || fdfl < 0 || sys_fcntl(nfd, F_SETFL, fl) != 0 ||
	    sys_dup3(nfd, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
		return -errno;
	return 0;
}

/*
 * The daemon closes its copy of a socket it handed over just after the
 * answer is sent; until then the socket outlives a close() here, and a
 * reply to its identifier could go to it.  It handles one request at a
 * time, on whichever connection, so an answer to one more request means
 * that copy is closed.
 */
static void sync_daemon(void)
{
	struct wire_req req = { .type = WIRE_STATS };

	(void)relay_conn_call(&req, NULL, 0, NULL, NULL, NULL);
}

static int int_opt(int fd, int level, int name)
{
	int v = 0;
	socklen_t len = sizeof(v);

	return sys_getsockopt(fd, level, name, &v, &len) == 0 ? v : 0;
}

/* What bind() looks at, as fd has it, for the daemon's new socket. */
static void bind_opts(int fd, int family, struct wire_req *req)
{
	if (int_opt(fd, SOL_SOCKET, SO_REUSEADDR))
		req->flags |= WIRE_BB_REUSE;
	if (int_opt(fd, family == AF_INET6 ? SOL_IPV6 : SOL_IP,
		    family == AF_INET6 ? IPV6_FREEBIND : IP_FREEBIND))
		req->flags |= WIRE_BB_FREEBIND;
	req->ifindex = int_opt(fd, SOL_SOCKET, SO_BINDTOIFINDEX);
	if (req->ifindex < 0)
		req->ifindex = 0;
}

int broker_bind_request(int oldfd, uint32_t handle, int livefd, int family,
			const struct sockaddr *addr, socklen_t len,
			uint32_t flags, int *newfd)
{
	struct wire_req req = { .type = WIRE_BROKER_BIND, .handle = handle,
				.flags = flags };
	int fds[CONN_MAX_FDS], rc;

	*newfd = -1;
	/* move_addr_to_kernel()'s checks, before anything is asked. */
	if (len > WIRE_ADDR_MAX)
		return -EINVAL;
	if (len && !addr)
		return -EFAULT;
	req.u.addr.len = len;
	if (len)
		memcpy(req.u.addr.bytes, addr, len);
	bind_opts(oldfd, family, &req);
	rc = relay_prove(livefd, req.nonce);
	if (rc == 0)
		rc = relay_conn_call(&req, NULL, 0, NULL, NULL, fds);
	else
		for (int i = 0; i < CONN_MAX_FDS; i++)
			fds[i] = -1;
	if (rc == WIRE_R_NODAEMON || rc == WIRE_R_BROKEN)
		rc = -ECONNRESET;
	if (rc >= 0 && fds[0] < 0)
		rc = -ECONNRESET;
	/* A ping socket (conn_call() checked), of this one's family. */
	if (rc >= 0 && !fdcheck_kind(fds[0], WIRE_FD_ICMP, family))
		rc = -EPROTO;
	if (rc >= 0) {
		*newfd = fds[0];
		fds[0] = -1;
	}
	for (int i = 0; i < CONN_MAX_FDS; i++)
		if (fds[i] >= 0)
			sys_close(fds[i]);
	return rc < 0 ? rc : 0;
}

/* A daemon's bind for fd: -errno, or 0 with fd now the new socket. */
static int rebind(int fd, struct broker_sock *bk, const struct sockaddr *addr,
		  socklen_t len, uint32_t flags)
{
	int nfd, rc = broker_bind_request(fd, bk->handle, bk->livefd,
					  bk->family, addr, len, flags, &nfd);

	if (rc >= 0)
		rc = replay(bk, nfd);
	if (rc >= 0)
		rc = take_place(fd, nfd);
	if (nfd >= 0)
		sys_close(nfd);
	if (rc >= 0) {
		atomic_store(bk->used, 1);
		fdtab_renew(fd);
		fdtab_set_used(fd);
		sync_daemon();
	}
	return rc < 0 ? rc : 0;
}

bool broker_identity(const struct fdent *e, uint32_t *handle, int *livefd)
{
	if (!e->bk)
		return false;
	*handle = e->bk->handle;
	*livefd = e->bk->livefd;
	return true;
}

int broker_bind(int fd, struct fdent *e, const struct sockaddr *addr,
		socklen_t len)
{
	if (!fresh(e))
		return sys_bind(fd, addr, len);
	return (int)sys_ret(rebind(fd, e->bk, addr, len, 0));
}

void broker_use(int fd, const struct fdent *ent, const struct iovec *iov,
		size_t niov)
{
	struct broker_sock *bk = ent->bk;

	if (!bk || atomic_exchange(bk->used, 1) != 0)
		return;
	fdtab_set_used(fd);
	if (bk->keep_ident && iov) {
		int ident = ident_of_echo(bk->family, iov, niov);
		struct sockaddr_in6 sa = { .sin6_family = (sa_family_t)bk->family };
		socklen_t len = bk->family == AF_INET6
					? sizeof(struct sockaddr_in6)
					: sizeof(struct sockaddr_in);

		if (ident > 0) {
			/* sin_port and sin6_port are at the same place. */
			sa.sin6_port = htons((uint16_t)ident);
			(void)rebind(fd, bk, (struct sockaddr *)&sa, len,
				     WIRE_BB_KEEPID);
		}
	}
}

bool broker_send_reaches(const struct sockaddr *dst, socklen_t dstlen)
{
	return !(dst && dstlen > WIRE_ADDR_MAX);
}

bool broker_msg_reaches(const struct msghdr *msg)
{
	return msg && msg->msg_iovlen <= IOV_MAX &&
	       msg->msg_controllen <= INT_MAX;
}

bool broker_connect_reaches(const struct sockaddr *addr, socklen_t len)
{
	return addr && len >= sizeof(sa_family_t) && len <= WIRE_ADDR_MAX &&
	       addr->sa_family != AF_UNSPEC;
}

int broker_connect(int fd, struct fdent *e, const struct sockaddr *addr,
		   socklen_t len)
{
	if (fresh(e) && broker_connect_reaches(addr, len))
		broker_use(fd, e, NULL, 0);
	return sys_connect(fd, addr, len);
}

ssize_t broker_sendto(int fd, struct fdent *e, const void *buf, size_t len,
		      int flags, const struct sockaddr *dst, socklen_t dstlen)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	if (fresh(e) && broker_send_reaches(dst, dstlen))
		broker_use(fd, e, &iov, 1);
	return sys_sendto(fd, buf, len, flags, dst, dstlen);
}

ssize_t broker_sendmsg(int fd, struct fdent *e, const struct msghdr *msg,
		       int flags)
{
	if (fresh(e) && broker_msg_reaches(msg))
		broker_use(fd, e, msg->msg_iov, msg->msg_iovlen);
	return sys_sendmsg(fd, msg, flags);
}

/*
 * The kernel allows IPV6_V6ONLY only before the socket is bound, and the
 * daemon bound it: while fresh the value is kept here (it changes nothing
 * for a ping socket but what getsockopt shows); once used, the kernel's
 * EINVAL stands.  1 for a value set (*rc), 0 for not handled here.
 */
static int v6only_set(const struct fdent *ent, const void *val,
		      socklen_t len, int *rc)
{
	int v;

	if (!ent->bk || ent->family != AF_INET6 || !fresh(ent))
		return 0;
	if (len < sizeof(int)) {
		*rc = -EINVAL;
		return 1;
	}
	if (!val) {
		*rc = -EFAULT;
		return 1;
	}
	memcpy(&v, val, sizeof(v));
	ent->bk->v6only = v != 0;
	*rc = 0;
	return 1;
}

int broker_setsockopt(int fd, struct fdent *e, int level, int name,
		      const void *val, socklen_t len)
{
	int rc;

	if (level == SOL_IPV6 && name == IPV6_V6ONLY &&
	    v6only_set(e, val, len, &rc))
		return (int)sys_ret(rc);
	rc = sys_setsockopt(fd, level, name, val, len);
	if (rc == 0 && fresh(e))
		record(e, level, name, val, len);
	return rc;
}

/* getsockopt(), with IPV6_V6ONLY as the program set it. */
int broker_getsockopt(int fd, struct fdent *e, int level, int name,
		      void *val, socklen_t *len)
{
	int rc = sys_getsockopt(fd, level, name, val, len);

	if (rc == 0 && e->bk && level == SOL_IPV6 && name == IPV6_V6ONLY &&
	    val && *len >= sizeof(int))
		memcpy(val, &e->bk->v6only, sizeof(int));
	/* IP_PROTOCOL reads inet_num, a ping socket's identifier: 0 until
	 * the socket is used, as getsockname() shows it. */
	if (rc == 0 && fresh(e) && level == SOL_IP && name == IP_PROTOCOL &&
	    val)
		memset(val, 0, *len);
	return rc;
}

int broker_getname(int fd, struct fdent *e, bool peer, struct sockaddr *addr,
		   socklen_t *len)
{
	socklen_t cap = len ? *len : 0;
	int rc;

	if (peer)
		return sys_getpeername(fd, addr, len);
	rc = sys_getsockname(fd, addr, len);
	/* The port is the third and fourth byte in both families. */
	if (rc == 0 && fresh(e) && addr && cap >= 4)
		memset((char *)addr + 2, 0, 2);
	return rc;
}
