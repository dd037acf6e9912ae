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
#include <linux/filter.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "lib/conn.h"
#include "lib/fdcheck.h"
#include "lib/ident.h"
#include "lib/lock.h"
#include "lib/relay.h"
#include "lib/shimapi.h"
#include "lib/swap.h"
#include "wire/decode.h"
#include "wire/in6ext.h"
#include "lib/sys.h"
#include "lib/ucopy.h"
#include "lib/umsg.h"

#define BK_OPT_MAX 4096		/* longer values are not kept */
#define BK_OPTS_MAX 1024	/* nor more options than this */

/* An option set on a fresh socket, to be set again on its replacement. */
struct bkopt {
	int level, name;
	socklen_t len;
	unsigned char *val;	/* SO_ATTACH_FILTER: the instructions */
	int fd;			/* SO_ATTACH_BPF: a copy of the program, or -1 */
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

/*
 * Options not replayed: the device binding is copied by the daemon before
 * its bind (a second SO_BINDTODEVICE would need CAP_NET_RAW); IPV6_V6ONLY
 * is kept apart (v6only_set); the others hold pointers or leases that
 * belong to the old socket.
 */
static bool replayable(int level, int name, socklen_t len)
{
	if (level == SOL_SOCKET)
		return name != SO_BINDTODEVICE && name != SO_BINDTOIFINDEX &&
		       name != SO_ATTACH_REUSEPORT_CBPF &&
		       name != SO_ATTACH_REUSEPORT_EBPF &&
		       (name == SO_ATTACH_FILTER || len <= BK_OPT_MAX);
	if (len > BK_OPT_MAX)
		return false;
	if (level == SOL_IPV6)
		return name != IPV6_FLOWLABEL_MGR && name != IPV6_V6ONLY;
	return true;
}

/* A filter attached or detached: it replaces the one before. */
static bool filter_opt(int level, int name)
{
	return level == SOL_SOCKET &&
	       (name == SO_ATTACH_FILTER || name == SO_ATTACH_BPF ||
		name == SO_DETACH_FILTER);	/* SO_DETACH_BPF: the same */
}

/*
 * Options that are actions rather than values: each call counts, in its
 * order (join, then leave; attach, then lock), so each is kept as made.
 * Every other option is a value: the last one set is kept, at the place
 * where it was first set.
 */
static bool action_opt(int level, int name)
{
	if (level == SOL_SOCKET)
		return filter_opt(level, name) || name == SO_LOCK_FILTER;
	if (level == SOL_IP)
		switch (name) {
		case IP_ADD_MEMBERSHIP: case IP_DROP_MEMBERSHIP:
		case IP_ADD_SOURCE_MEMBERSHIP: case IP_DROP_SOURCE_MEMBERSHIP:
		case IP_BLOCK_SOURCE: case IP_UNBLOCK_SOURCE: case IP_MSFILTER:
			return true;
		}
	if (level == SOL_IP || level == SOL_IPV6)
		switch (name) {
		case MCAST_JOIN_GROUP: case MCAST_LEAVE_GROUP:
		case MCAST_JOIN_SOURCE_GROUP: case MCAST_LEAVE_SOURCE_GROUP:
		case MCAST_BLOCK_SOURCE: case MCAST_UNBLOCK_SOURCE:
		case MCAST_MSFILTER:
			return true;
		}
	return level == SOL_IPV6 &&
	       (name == IPV6_ADD_MEMBERSHIP || name == IPV6_DROP_MEMBERSHIP ||
		name == IPV6_JOIN_ANYCAST || name == IPV6_LEAVE_ANYCAST);
}

/*
 * The program descriptors kept for SO_ATTACH_BPF, of every socket: the
 * library's own, which a close_range() of the program must not close
 * (broker_kept_fds).  Under LOCK_BROKER.
 */
static int *kept;
static size_t nkept;

static void kept_add(int fd)
{
	int *n = realloc(kept, (nkept + 1) * sizeof(*n));

	if (n) {
		kept = n;
		kept[nkept++] = fd;
	}
}

static void kept_drop(int fd)
{
	for (size_t i = 0; i < nkept; i++)
		if (kept[i] == fd) {
			kept[i] = kept[--nkept];
			return;
		}
}

size_t broker_kept_fds(int *out, size_t max)
{
	size_t n;

	lock_take(LOCK_BROKER);
	n = nkept;
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = kept[i];
	lock_give(LOCK_BROKER);
	return n;
}

/* Under the lock. */
static void opt_free(struct bkopt *o)
{
	free(o->val);
	if (o->fd >= 0) {
		kept_drop(o->fd);
		sys_close(o->fd);
	}
}

/*
 * What the option's value is, kept: the bytes, but for SO_ATTACH_FILTER
 * the instructions its sock_fprog points to (the kernel took them, so
 * they are readable and at most BPF_MAXINSNS), and for SO_ATTACH_BPF a
 * copy of the program's descriptor (the program may close its own).
 */
static int opt_keep(struct bkopt *o, const void *val, socklen_t len)
{
	struct sock_fprog fp;
	size_t n = len;
	const void *from = val;

	if (o->level == SOL_SOCKET && o->name == SO_ATTACH_FILTER) {
		if (len < sizeof(fp) || !val)
			return -1;
		memcpy(&fp, val, sizeof(fp));
		n = (size_t)fp.len * sizeof(struct sock_filter);
		from = fp.filter;
	} else if (o->level == SOL_SOCKET && o->name == SO_ATTACH_BPF) {
		int pfd;

		if (len < sizeof(int) || !val)
			return -1;
		memcpy(&pfd, val, sizeof(pfd));
		o->fd = sys_fcntl(pfd, F_DUPFD_CLOEXEC, CONN_HIGH_FD);
		if (o->fd < 0)
			o->fd = sys_fcntl(pfd, F_DUPFD_CLOEXEC, 0);
		if (o->fd >= 0)
			kept_add(o->fd);
		return o->fd < 0 ? -1 : 0;
	}
	o->len = (socklen_t)n;
	if (!n)
		return 0;
	o->val = malloc(n);
	if (!o->val || !from)
		return -1;
	memcpy(o->val, from, n);
	return 0;
}

/* Under the lock: the filters kept are replaced (attach, detach). */
static void forget_filters(struct broker_sock *bk)
{
	size_t k = 0;

	for (size_t i = 0; i < bk->nopts; i++) {
		struct bkopt *o = &bk->opts[i];

		if (o->level == SOL_SOCKET && (o->name == SO_ATTACH_FILTER ||
					       o->name == SO_ATTACH_BPF))
			opt_free(o);
		else
			bk->opts[k++] = *o;
	}
	bk->nopts = k;
}

/* Under the lock: n in the list, in place of the value it replaces. */
static void opt_put(struct broker_sock *bk, struct bkopt *n)
{
	struct bkopt *t;

	for (size_t i = 0; i < bk->nopts && !action_opt(n->level, n->name);
	     i++)
		if (bk->opts[i].level == n->level &&
		    bk->opts[i].name == n->name) {
			opt_free(&bk->opts[i]);
			bk->opts[i] = *n;
			return;
		}
	t = bk->nopts < BK_OPTS_MAX
		    ? realloc(bk->opts, (bk->nopts + 1) * sizeof(*t))
		    : NULL;
	if (!t) {
		opt_free(n);
		return;
	}
	bk->opts = t;
	bk->opts[bk->nopts++] = *n;
}

/* A setsockopt() that succeeded on a fresh socket: kept for a rebind. */
static void record(const struct fdent *ent, int level, int name,
		   const void *val, socklen_t len)
{
	struct broker_sock *bk = ent->bk;
	struct bkopt n = { .level = level, .name = name, .fd = -1 };

	if (!bk || !replayable(level, name, len))
		return;
	lock_take(LOCK_BROKER);
	if (filter_opt(level, name))
		forget_filters(bk);
	if (!(level == SOL_SOCKET && name == SO_DETACH_FILTER)) {
		if (opt_keep(&n, val, len) == 0)
			opt_put(bk, &n);
		else
			opt_free(&n);
	}
	lock_give(LOCK_BROKER);
}

static int replay_one(const struct bkopt *o, int nfd)
{
	if (o->level == SOL_SOCKET && o->name == SO_ATTACH_FILTER) {
		struct sock_fprog fp = {
			.len = (unsigned short)(o->len /
						sizeof(struct sock_filter)),
			.filter = (struct sock_filter *)o->val,
		};

		return sys_setsockopt(nfd, SOL_SOCKET, SO_ATTACH_FILTER, &fp,
				      sizeof(fp));
	}
	if (o->fd >= 0)
		return sys_setsockopt(nfd, o->level, o->name, &o->fd,
				      sizeof(o->fd));
	return sys_setsockopt(nfd, o->level, o->name, o->val, o->len);
}

/* The options set so far, in their order, onto nfd. */
static int replay(struct broker_sock *bk, int nfd)
{
	int rc = 0;

	lock_take(LOCK_BROKER);
	for (size_t i = 0; i < bk->nopts && !rc; i++)
		if (replay_one(&bk->opts[i], nfd) != 0)
			rc = -errno;
	lock_give(LOCK_BROKER);
	return rc;
}

void broker_release(struct fdent *e)
{
	struct broker_sock *bk = e->bk;

	if (!bk)
		return;
	if (bk->livefd >= 0)
		sys_close(bk->livefd);
	lock_take(LOCK_BROKER);
	for (size_t i = 0; i < bk->nopts; i++)
		opt_free(&bk->opts[i]);
	lock_give(LOCK_BROKER);
	free(bk->opts);
	free(bk);
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
	req.u.addr.len = len;
	if (!ucopy_in(req.u.addr.bytes, addr, len))
		return -EFAULT;
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
		fdcheck_discard(fds[i]);
	return rc < 0 ? rc : 0;
}

/*
 * nfd in the place of fd, and of every copy of it in this process, so
 * that the replacement does not show (swap.h).  The copies the library
 * knows of are found even without /proc.
 */
static int swap_in(int fd, const struct broker_sock *bk, int nfd)
{
	int known[64];
	size_t n = fdtab_broker_fds(bk, known, 64);

	return swap_socket(fd, nfd, known, n < 64 ? n : 64);
}

/* A daemon's bind for fd: -errno, or 0 with fd now the new socket. */
static int rebind(int fd, struct broker_sock *bk, const struct sockaddr *addr,
		  socklen_t len, uint32_t flags)
{
	int nfd, rc = broker_bind_request(fd, bk->handle, bk->livefd,
					  bk->family, addr, len, flags, &nfd);
	struct stat st;

	if (rc >= 0)
		rc = replay(bk, nfd);
	if (rc >= 0 && fstat(nfd, &st) != 0)
		rc = -errno;
	if (rc >= 0)
		rc = swap_in(fd, bk, nfd);
	if (nfd >= 0)
		sys_close(nfd);
	if (rc >= 0) {
		atomic_store(bk->used, 1);
		fdtab_broker_swapped(bk, &st);
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

/*
 * Would the kernel's call get as far as the socket, where an unbound one
 * is bound?  Not when the system call layer refuses it first: a name,
 * message, iovec array or control data the program does not have
 * (ucopy.h) among others.  Asked of a fresh socket's calls only: what
 * it reads costs a system call or two.
 */
static bool send_reaches(const struct sockaddr *dst, socklen_t dstlen)
{
	/* move_addr_to_kernel() */
	return !dst || (dstlen <= WIRE_ADDR_MAX && ucopy_readable(dst, dstlen));
}

static bool connect_reaches(const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_storage sa;

	return addr && len >= sizeof(sa_family_t) && len <= WIRE_ADDR_MAX &&
	       ucopy_in(&sa, addr, len) && sa.ss_family != AF_UNSPEC;
}

/* copy_msghdr_from_user(), import_iovec() and the control data's copy
 * (m: the program's msghdr, copied). */
static bool msg_reaches(const struct msghdr *m)
{
	return (int)m->msg_namelen >= 0 &&
	       (!m->msg_name ||
		ucopy_readable(m->msg_name, m->msg_namelen > WIRE_ADDR_MAX
						    ? WIRE_ADDR_MAX
						    : m->msg_namelen)) &&
	       m->msg_iovlen <= IOV_MAX &&
	       ucopy_readable(m->msg_iov,
			      m->msg_iovlen * sizeof(struct iovec)) &&
	       m->msg_controllen <= UMSG_OPTMEM_MAX &&
	       ucopy_readable(m->msg_control, m->msg_controllen);
}

void broker_use_send(int fd, const struct fdent *e, const void *buf,
		     size_t len, const struct sockaddr *dst, socklen_t dstlen)
{
	struct iovec iov = { .iov_base = (void *)(uintptr_t)buf, // NOLINT(performance-no-int-to-ptr)
			     .iov_len = len };

	if (fresh(e) && send_reaches(dst, dstlen))
		broker_use(fd, e, &iov, 1);
}

void broker_use_msg(int fd, const struct fdent *e, const struct msghdr *msg)
{
	struct msghdr m;
	struct iovec iov[8];	/* an Echo Request's header is in these */
	size_t n;

	if (!fresh(e) || !ucopy_in(&m, msg, sizeof(m)) || !msg_reaches(&m))
		return;
	n = m.msg_iovlen < 8 ? m.msg_iovlen : 8;
	if (ucopy_in(iov, m.msg_iov, n * sizeof(iov[0])))
		broker_use(fd, e, iov, n);
}

void broker_use_connect(int fd, const struct fdent *e,
			const struct sockaddr *addr, socklen_t len)
{
	if (fresh(e) && connect_reaches(addr, len))
		broker_use(fd, e, NULL, 0);
}

int broker_connect(int fd, struct fdent *e, const struct sockaddr *addr,
		   socklen_t len)
{
	broker_use_connect(fd, e, addr, len);
	return sys_connect(fd, addr, len);
}

ssize_t broker_sendto(int fd, struct fdent *e, const void *buf, size_t len,
		      int flags, const struct sockaddr *dst, socklen_t dstlen)
{
	broker_use_send(fd, e, buf, len, dst, dstlen);
	return sys_sendto(fd, buf, len, flags, dst, dstlen);
}

ssize_t broker_sendmsg(int fd, struct fdent *e, const struct msghdr *msg,
		       int flags)
{
	broker_use_msg(fd, e, msg);
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
	if (!ucopy_in(&v, val, sizeof(v))) {
		*rc = -EFAULT;
		return 1;
	}
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
	socklen_t cap = 0;
	int rc;

	if (peer || !fresh(e))
		return peer ? sys_getpeername(fd, addr, len)
			    : sys_getsockname(fd, addr, len);
	/* If *len is not there, the call says so. */
	(void)ucopy_in(&cap, len, sizeof(cap));
	rc = sys_getsockname(fd, addr, len);
	/* The port is the third and fourth byte in both families (the
	 * kernel has just written them). */
	if (rc == 0 && addr && cap >= 4)
		memset((char *)addr + 2, 0, 2);
	return rc;
}
