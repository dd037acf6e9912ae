/* SPDX-License-Identifier: ISC */
/*
 * efault: pointers to memory the program does not have, or cannot
 * write, in every call on a ping socket: the kernel's system call layer
 * copies the caller's structures in and out and answers EFAULT, with
 * its side effects (a send that fails sends nothing; a receive that
 * fails after the datagram was taken has taken it).  Each call runs in
 * a child of its own, so that a crash is one line ("killed by SIGSEGV")
 * rather than the end of the case.
 */
#include "conf.h"

#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>

/* An address no program has (the first page): set at run time, so that
 * the compiler sees no two arguments alike. */
static void *bad_ptr;
#define BAD bad_ptr
#define PAGE 4096

/* The sanitizers' getsockname() and getpeername() read *len before the
 * call, and report a wild one as a crash: those cases only without. */
#ifdef __SANITIZE_ADDRESS__
#define WILD_NAMELEN 0
#else
#define WILD_NAMELEN 1
#endif

/* page RW (its end is before the hole) | hole PROT_NONE | page RO */
static uint8_t *rw, *hole, *ro;

/* The last len bytes of the writable page: an object that runs from
 * them into the hole has only those bytes. */
static void *edge(size_t len)
{
	return rw + PAGE - len;
}

static void ro_set(bool writable)
{
	mprotect(ro, PAGE, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

static void child_end(const char *what, pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) < 0)
		out("%s: waitpid: %s", what, conf_errname(errno));
	else if (WIFSIGNALED(st))
		out("%s: killed by %s", what, strsignal(WTERMSIG(st)));
	else if (WEXITSTATUS(st) != 0)
		out("%s: child exit %d", what, WEXITSTATUS(st));
}

/* Run the statement in a child; its own lines, or how it died. */
#define CHILD(what, stmt)                                 \
	do {                                              \
		pid_t p_;                                 \
		fflush(stdout);                           \
		p_ = fork();                              \
		if (p_ == 0) {                            \
			stmt;                             \
			fflush(stdout);                   \
			_exit(0);                         \
		}                                         \
		child_end((what), p_);                    \
	} while (0)

/* A socket with one reply to 127.0.0.1 queued on it. */
static int with_reply(uint16_t seq)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	int fd = conf_socket();

	conf_echo(conf_big, 64, seq);
	if (pingsock_sendto(fd, conf_big, 64, 0, SA(&a), sizeof(a)) != 64)
		out("with_reply: sendto: %s", conf_errname(errno));
	if (!conf_wait_in(fd, CONF_WAIT_MS))
		out("with_reply: no reply");
	return fd;
}

/* What is queued now: the next datagram's length, or why none. */
static void then(const char *what, int fd)
{
	TRY(L("  %s: then recv", what),
	    pingsock_recv(fd, conf_rbuf, sizeof(conf_rbuf), MSG_DONTWAIT));
	pingsock_close(fd);
}

/* ------------------------------------------------------------------ */
/* sendmsg, sendto */

#define MAXSENT 32
static int sent_fd[MAXSENT];
static const char *sent_what[MAXSENT];
static int nsent;

/* A fresh socket for one send; whether it sent anything is looked at
 * once, at the end (sends_seen). */
static int send_sock(const char *what)
{
	int fd = conf_socket();

	if (nsent < MAXSENT) {
		sent_fd[nsent] = fd;
		sent_what[nsent++] = what;
	}
	return fd;
}

static void sends_seen(void)
{
	out("## what those sends sent, and whether they bound the socket");
	usleep(1000000);	/* the replies in, on a busy machine too */
	for (int i = 0; i < nsent; i++) {
		long n = pingsock_recv(sent_fd[i], conf_rbuf,
				       sizeof(conf_rbuf), MSG_DONTWAIT);
		const char *b = conf_ident(sent_fd[i]) ? "bound" : "unbound";

		if (n < 0 && errno == EAGAIN)
			out("%s: nothing, %s", sent_what[i], b);
		else
			conf_res_(L("%s: %s, recv", sent_what[i], b), n,
				  errno, false);
		pingsock_close(sent_fd[i]);
	}
}

/* A msghdr of one piece, buf, and the name a. */
static struct msghdr msg_of(struct iovec *iov, void *buf, size_t len,
			    struct sockaddr_in *a)
{
	struct msghdr m;

	iov->iov_base = buf;
	iov->iov_len = len;
	memset(&m, 0, sizeof(m));
	m.msg_name = a;
	m.msg_namelen = sizeof(*a);
	m.msg_iov = iov;
	m.msg_iovlen = 1;
	return m;
}

static struct msghdr echo_msg(struct iovec *iov, struct sockaddr_in *a)
{
	*a = conf_sin("127.0.0.1", 0);
	conf_echo(conf_big, 64, 1);
	return msg_of(iov, conf_big, 64, a);
}

#define SENDMSG(what, m)                                                 \
	do {                                                             \
		int fd_ = send_sock(what);                               \
		CHILD(what, TRY(what, pingsock_sendmsg(fd_, (m), 0)));   \
	} while (0)

static void sendmsg_cases(void)
{
	struct sockaddr_in a;
	struct iovec iov, v16[16];
	struct msghdr m = echo_msg(&iov, &a), k;
	struct msghdr *mm = edge(sizeof(m) - 8);

	out("## sendmsg");
	SENDMSG("sendmsg msg=8", BAD);
	SENDMSG("sendmsg msg in the hole", (struct msghdr *)hole);
	memcpy(mm, &m, sizeof(m) - 8);
	SENDMSG("sendmsg msg's last 8 bytes in the hole", mm);
	k = m, k.msg_iov = BAD;
	SENDMSG("sendmsg msg_iov=8", &k);
	k = m, k.msg_iov = BAD, k.msg_iovlen = 0;
	SENDMSG("sendmsg msg_iov=8 iovlen 0", &k);
	k = m, k.msg_iov = edge(sizeof(iov)), k.msg_iovlen = 2;
	memcpy(k.msg_iov, &iov, sizeof(iov));
	SENDMSG("sendmsg 2 iovecs, the second in the hole", &k);
	k = m, k.msg_iov = BAD, k.msg_iovlen = 2000;
	SENDMSG("sendmsg msg_iov=8 iovlen 2000", &k);
	iov.iov_base = BAD;
	SENDMSG("sendmsg iov_base=8 len 64", &m);
	iov.iov_len = 4;
	SENDMSG("sendmsg iov_base=8 len 4", &m);
	iov.iov_base = edge(8), iov.iov_len = 64;
	memcpy(edge(8), conf_big, 8);
	SENDMSG("sendmsg iov_base: the header, then the hole", &m);
	iov.iov_base = conf_big;
	for (int i = 0; i < 16; i++)
		v16[i] = (struct iovec){ conf_big + 4 * i, 4 };
	v16[15].iov_base = BAD;
	k = m, k.msg_iov = v16, k.msg_iovlen = 16;
	SENDMSG("sendmsg 16 iovecs, the last iov_base=8", &k);
	k = m, k.msg_name = BAD;
	SENDMSG("sendmsg msg_name=8", &k);
	k = m, k.msg_name = BAD, k.msg_namelen = 0;
	SENDMSG("sendmsg msg_name=8 namelen 0", &k);
	k = m, k.msg_name = edge(8);
	memcpy(edge(8), &a, 8);
	SENDMSG("sendmsg msg_name's last 8 bytes in the hole", &k);
	k = m, k.msg_control = BAD, k.msg_controllen = 32;
	SENDMSG("sendmsg msg_control=8 len 32", &k);
	k = m, k.msg_control = BAD, k.msg_controllen = 8;
	SENDMSG("sendmsg msg_control=8 len 8", &k);
	k = m, k.msg_control = BAD, k.msg_controllen = 0;
	SENDMSG("sendmsg msg_control=8 len 0", &k);
	k = m, k.msg_control = hole, k.msg_controllen = 5000;
	SENDMSG("sendmsg msg_control in the hole, len 5000", &k);
}

#define SENDTO(what, buf, len, dst, dlen)                                 \
	do {                                                              \
		int fd_ = send_sock(what);                                \
		CHILD(what, TRY(what, pingsock_sendto(fd_, (buf), (len),  \
						      0, (dst), (dlen)))); \
	} while (0)

static void sendto_cases(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);

	out("## sendto");
	conf_echo(conf_big, 64, 2);
	SENDTO("sendto dst=8", conf_big, 64, BAD, sizeof(a));
	SENDTO("sendto dst=8 len 0", conf_big, 64, BAD, 0);
	memcpy(edge(8), &a, 8);
	SENDTO("sendto dst's last 8 bytes in the hole", conf_big, 64,
	       (struct sockaddr *)edge(8), sizeof(a));
	SENDTO("sendto buf=8", BAD, 64, SA(&a), sizeof(a));
	SENDTO("sendto buf=8 len 4", BAD, 4, SA(&a), sizeof(a));
	SENDTO("sendto buf=8 len 70000", BAD, 70000, SA(&a), sizeof(a));
}

/* ------------------------------------------------------------------ */
/* recvmsg, recvfrom */

static struct msghdr rx_msg(struct iovec *iov, struct sockaddr_in *a)
{
	return msg_of(iov, conf_rbuf, sizeof(conf_rbuf), a);
}

static void show_msg(const char *what, long r, int e, const struct msghdr *m)
{
	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %ld namelen=%u controllen=%zu flags=%s", what, r,
		    (unsigned)m->msg_namelen, (size_t)m->msg_controllen,
		    conf_msgflags(m->msg_flags));
}

#define RECVMSG(what, seq, m, flags)                                     \
	do {                                                             \
		int fd_ = with_reply(seq);                               \
		CHILD(what, {                                            \
			long r_ = pingsock_recvmsg(fd_, (m), (flags));   \
			show_msg(what, r_, errno, (m));                  \
		});                                                      \
		then(what, fd_);                                         \
	} while (0)

static void recvmsg_cases(void)
{
	struct sockaddr_in a;
	struct iovec iov;
	struct msghdr m = rx_msg(&iov, &a), k;
	struct msghdr *rom = (struct msghdr *)ro;

	out("## recvmsg");
	RECVMSG("recvmsg msg=8", 10, (struct msghdr *)BAD, 0);
	k = m, k.msg_iov = BAD;
	RECVMSG("recvmsg msg_iov=8", 11, &k, 0);
	k = m, k.msg_iov = BAD, k.msg_iovlen = 0;
	RECVMSG("recvmsg msg_iov=8 iovlen 0", 12, &k, 0);
	iov.iov_base = BAD;
	RECVMSG("recvmsg iov_base=8", 13, &m, 0);
	iov.iov_base = conf_rbuf;
	k = m, k.msg_name = BAD;
	RECVMSG("recvmsg msg_name=8", 14, &k, 0);
	k = m, k.msg_name = BAD, k.msg_namelen = 0;
	RECVMSG("recvmsg msg_name=8 namelen 0", 15, &k, 0);
	k = m, k.msg_name = edge(8);
	RECVMSG("recvmsg msg_name's last 8 bytes in the hole", 16, &k, 0);
	k = m, k.msg_name = ro;
	RECVMSG("recvmsg msg_name read-only", 17, &k, 0);
	k = m, k.msg_control = BAD, k.msg_controllen = 64;
	RECVMSG("recvmsg msg_control=8, no option", 18, &k, 0);
	ro_set(true);
	*rom = m;
	ro_set(false);
	RECVMSG("recvmsg msg read-only", 19, rom, 0);
	ro_set(true);
	*rom = m, rom->msg_name = NULL;
	ro_set(false);
	RECVMSG("recvmsg msg read-only, no name", 20, rom, 0);
	RECVMSG("recvmsg MSG_ERRQUEUE msg=8", 21, (struct msghdr *)BAD,
		MSG_ERRQUEUE);
	k = m, k.msg_iov = BAD;
	RECVMSG("recvmsg MSG_ERRQUEUE msg_iov=8", 22, &k, MSG_ERRQUEUE);
}

/* With SO_TIMESTAMP and IP_PKTINFO: control messages to write. */
static void recvmsg_control(void)
{
	struct sockaddr_in a;
	struct iovec iov;
	struct msghdr m = rx_msg(&iov, &a), k;
	int fd;

	out("## recvmsg control buffer");
	for (int i = 0; i < 4; i++) {
		const char *what[] = {
			"recvmsg msg_control=8",
			"recvmsg msg_control read-only",
			"recvmsg msg_control in the hole",
			"recvmsg msg_control: room for the first message only",
		};
		void *ctl[] = { BAD, ro, hole, edge(CMSG_SPACE(16)) };

		fd = with_reply((uint16_t)(30 + i));
		conf_setint(fd, SOL_SOCKET, SO_TIMESTAMP, 1);
		conf_setint(fd, SOL_IP, IP_PKTINFO, 1);
		k = m, k.msg_control = ctl[i], k.msg_controllen = 256;
		CHILD(what[i], {
			long r_ = pingsock_recvmsg(fd, &k, 0);
			show_msg(what[i], r_, errno, &k);
		});
		then(what[i], fd);
	}
}

#define RECVFROM(what, seq, buf, src, lenp, flags)                        \
	do {                                                              \
		int fd_ = with_reply(seq);                                \
		CHILD(what, TRY(what, pingsock_recvfrom(fd_, (buf), 100,  \
							(flags), (src),   \
							(lenp))));        \
		then(what, fd_);                                          \
	} while (0)

static void recvfrom_cases(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a), neg = (socklen_t)-1;
	int fd;

	out("## recvfrom");
	RECVFROM("recvfrom src=8", 40, conf_rbuf, BAD, &len, 0);
	RECVFROM("recvfrom src=8 len 0", 41, conf_rbuf, BAD,
		 (len = 0, &len), 0);
	len = sizeof(a);
	RECVFROM("recvfrom srclen=8", 42, conf_rbuf, SA(&a), BAD, 0);
	RECVFROM("recvfrom srclen NULL", 43, conf_rbuf, SA(&a), NULL, 0);
	RECVFROM("recvfrom src NULL srclen=8", 44, conf_rbuf, NULL, BAD, 0);
	ro_set(true);
	memcpy(ro, &len, sizeof(len));
	ro_set(false);
	RECVFROM("recvfrom srclen read-only", 45, conf_rbuf, SA(&a),
		 (socklen_t *)ro, 0);
	RECVFROM("recvfrom srclen -1", 46, conf_rbuf, SA(&a), &neg, 0);
	RECVFROM("recvfrom src in the hole", 47, conf_rbuf, SA(hole), &len,
		 0);
	RECVFROM("recvfrom buf=8", 48, BAD, SA(&a), &len, 0);
	fd = conf_socket();
	CHILD("recvfrom srclen=8, nothing queued",
	      TRY("recvfrom srclen=8, nothing queued",
		  pingsock_recvfrom(fd, conf_rbuf, 100, MSG_DONTWAIT, SA(&a),
				    BAD)));
	pingsock_close(fd);
}

/* The name's length is written before the name (move_addr_to_user()
 * since the kernel's user-access rework): a name that cannot be written
 * leaves the full length behind, seen in the child that made the call
 * (which: 's' getsockname, 'f' recvfrom, 'm' recvmsg; a ping socket's
 * getpeername is ENOTCONN, its port being 0). */
static void len_first(const char *what, int fd, char which)
{
	struct iovec iov = { conf_rbuf, sizeof(conf_rbuf) };
	struct msghdr m = { .msg_name = edge(8), .msg_namelen = 100,
			    .msg_iov = &iov, .msg_iovlen = 1 };
	socklen_t l = 100;
	long r;

	if (which == 's')
		r = pingsock_getsockname(fd, SA(edge(8)), &l);
	else if (which == 'f')
		r = pingsock_recvfrom(fd, conf_rbuf, sizeof(conf_rbuf), 0,
				      SA(edge(8)), &l);
	else
		r = pingsock_recvmsg(fd, &m, 0), l = m.msg_namelen;
	conf_res_(what, r, errno, false);
	out("  len %u", (unsigned)l);
}

static void len_first_cases(void)
{
	int fd = with_reply(82);

	out("## the length before the name");
	CHILD("getsockname len 100, addr's last 8 bytes in the hole",
	      len_first("getsockname len 100, addr's last 8 bytes in the hole",
			fd, 's'));
	CHILD("recvfrom len 100, src's last 8 bytes in the hole",
	      len_first("recvfrom len 100, src's last 8 bytes in the hole",
			fd, 'f'));
	then("recvfrom len 100", fd);
	fd = with_reply(83);
	CHILD("recvmsg namelen 100, name's last 8 bytes in the hole",
	      len_first("recvmsg namelen 100, name's last 8 bytes in the hole",
			fd, 'm'));
	then("recvmsg namelen 100", fd);
}

/* ------------------------------------------------------------------ */
/* names, options, ioctls */

static void name_cases(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	socklen_t len = sizeof(a);
	int fd = with_reply(50), c = conf_socket();

	out("## getsockname, getpeername");
	TRY("connect", pingsock_connect(c, SA(&a), sizeof(a)));
	CHILD("getsockname addr=8",
	      TRY("getsockname addr=8", pingsock_getsockname(fd, BAD, &len)));
	if (WILD_NAMELEN)
		CHILD("getsockname len=8",
		      TRY("getsockname len=8",
			  pingsock_getsockname(fd, SA(&a), BAD)));
	ro_set(true);
	memcpy(ro, &len, sizeof(len));
	ro_set(false);
	CHILD("getsockname len read-only",
	      TRY("getsockname len read-only",
		  pingsock_getsockname(fd, SA(&a), (socklen_t *)ro)));
	CHILD("getsockname addr in the hole",
	      TRY("getsockname addr in the hole",
		  pingsock_getsockname(fd, SA(edge(8)), &len)));
	out("  len %u", (unsigned)len);
	CHILD("getpeername addr=8",
	      TRY("getpeername addr=8", pingsock_getpeername(c, BAD, &len)));
	if (WILD_NAMELEN) {
		CHILD("getpeername len=8",
		      TRY("getpeername len=8",
			  pingsock_getpeername(c, SA(&a), BAD)));
		CHILD("getpeername len=8, not connected",
		      TRY("getpeername len=8, not connected",
			  pingsock_getpeername(fd, SA(&a), BAD)));
	}
	pingsock_close(c);

	out("## connect, bind");
	c = conf_socket();
	CHILD("connect addr=8",
	      TRY("connect addr=8", pingsock_connect(c, BAD, sizeof(a))));
	memcpy(edge(8), &a, 8);
	CHILD("connect addr's last 8 bytes in the hole",
	      TRY("connect addr's last 8 bytes in the hole",
		  pingsock_connect(c, SA(edge(8)), sizeof(a))));
	CHILD("bind addr=8",
	      TRY("bind addr=8", pingsock_bind(c, BAD, sizeof(a))));
	conf_fname(&conf_v4, "  getsockname", c, false, PORT_MASK);
	conf_fname(&conf_v4, "  getpeername", c, true, PORT_MASK);
	pingsock_close(c);
	pingsock_close(fd);
}

/* setsockopt() with a value at address 8: each option the library reads
 * itself. */
static const struct bad_set {
	const char *name;
	int level, name_id;
	socklen_t len;
} bad_sets[] = {
	{ "IP_TTL", SOL_IP, IP_TTL, 4 },
	{ "IP_RECVERR", SOL_IP, IP_RECVERR, 4 },
	{ "SO_RCVBUF", SOL_SOCKET, SO_RCVBUF, 4 },
	{ "SO_TIMESTAMP", SOL_SOCKET, SO_TIMESTAMP, 4 },
	{ "IP_MULTICAST_IF", SOL_IP, IP_MULTICAST_IF, 8 },
	{ "SO_BINDTODEVICE", SOL_SOCKET, SO_BINDTODEVICE, 4 },
	{ "IP_OPTIONS", SOL_IP, IP_OPTIONS, 8 },
};

static void opt_cases(void)
{
	int fd = conf_socket(), v = 4;
	socklen_t len = sizeof(v);

	out("## setsockopt, getsockopt");
	for (size_t i = 0; i < sizeof(bad_sets) / sizeof(bad_sets[0]); i++) {
		const struct bad_set *b = &bad_sets[i];
		const char *what = L("setsockopt %s val=8", b->name);

		CHILD(what, TRY(what, pingsock_setsockopt(fd, b->level,
							  b->name_id, BAD,
							  b->len)));
	}
	/* ip_getsockopt() writes the length first, sk_getsockopt() the
	 * value first. */
	len = 8;
	CHILD("getsockopt IP_TTL val=8",
	      { TRY("getsockopt IP_TTL val=8",
		    pingsock_getsockopt(fd, SOL_IP, IP_TTL, BAD, &len));
		out("  len %u", (unsigned)len); });
	len = 8;
	CHILD("getsockopt SO_TYPE val=8",
	      { TRY("getsockopt SO_TYPE val=8",
		    pingsock_getsockopt(fd, SOL_SOCKET, SO_TYPE, BAD, &len));
		out("  len %u", (unsigned)len); });
	len = sizeof(v);
	CHILD("getsockopt IP_TTL len=8",
	      TRY("getsockopt IP_TTL len=8",
		  pingsock_getsockopt(fd, SOL_IP, IP_TTL, &v, BAD)));
	ro_set(true);
	memcpy(ro, &len, sizeof(len));
	ro_set(false);
	CHILD("getsockopt IP_TTL len read-only",
	      TRY("getsockopt IP_TTL len read-only",
		  pingsock_getsockopt(fd, SOL_IP, IP_TTL, &v,
				      (socklen_t *)ro)));
	CHILD("getsockopt SO_ERROR val=8",
	      TRY("getsockopt SO_ERROR val=8",
		  pingsock_getsockopt(fd, SOL_SOCKET, SO_ERROR, BAD, &len)));
	CHILD("getsockopt SO_RCVBUF val=8",
	      TRY("getsockopt SO_RCVBUF val=8",
		  pingsock_getsockopt(fd, SOL_SOCKET, SO_RCVBUF, BAD, &len)));
	CHILD("getsockopt IP_PKTOPTIONS val=8",
	      TRY("getsockopt IP_PKTOPTIONS val=8",
		  pingsock_getsockopt(fd, SOL_IP, IP_PKTOPTIONS, BAD, &len)));
	CHILD("getsockopt IP_MULTICAST_IF val=8",
	      TRY("getsockopt IP_MULTICAST_IF val=8",
		  pingsock_getsockopt(fd, SOL_IP, IP_MULTICAST_IF, BAD,
				      &len)));
	pingsock_close(fd);
}

static void ioctl_cases(void)
{
	int fd = conf_socket();

	out("## ioctl");
	CHILD("SIOCGSTAMP arg=8, nothing read",
	      TRY("SIOCGSTAMP arg=8, nothing read",
		  pingsock_ioctl(fd, SIOCGSTAMP, BAD)));
	pingsock_close(fd);
	fd = with_reply(60);
	pingsock_recv(fd, conf_rbuf, sizeof(conf_rbuf), 0);
	CHILD("SIOCGSTAMP arg=8",
	      TRY("SIOCGSTAMP arg=8", pingsock_ioctl(fd, SIOCGSTAMP, BAD)));
	CHILD("SIOCGSTAMPNS arg=8",
	      TRY("SIOCGSTAMPNS arg=8",
		  pingsock_ioctl(fd, SIOCGSTAMPNS, BAD)));
	CHILD("SIOCGSTAMP arg read-only",
	      TRY("SIOCGSTAMP arg read-only",
		  pingsock_ioctl(fd, SIOCGSTAMP, ro)));
	CHILD("SIOCGSTAMP arg in the hole",
	      TRY("SIOCGSTAMP arg in the hole",
		  pingsock_ioctl(fd, SIOCGSTAMP, edge(8))));
	CHILD("FIONREAD arg=8",
	      TRY("FIONREAD arg=8", pingsock_ioctl(fd, FIONREAD, BAD)));
	CHILD("SIOCOUTQ arg=8",
	      TRY("SIOCOUTQ arg=8", pingsock_ioctl(fd, SIOCOUTQ, BAD)));
	CHILD("FIONBIO arg=8",
	      TRY("FIONBIO arg=8", pingsock_ioctl(fd, FIONBIO, BAD)));
	CHILD("SIOCGIFINDEX arg=8",
	      TRY("SIOCGIFINDEX arg=8", pingsock_ioctl(fd, SIOCGIFINDEX, BAD)));
	pingsock_close(fd);
}

/* ------------------------------------------------------------------ */
/* poll, ppoll, select, pselect, epoll: the program's arrays, sets and
 * timeouts are the kernel's to copy (through the shim too).  Not here:
 * a bad timeout of select, pselect and ppoll, which glibc's own
 * wrappers read (and select's write back) before the kernel does. */

/* A pollfd array of n in the read-only page: fd, POLLIN, each. */
static struct pollfd *ro_fds(int fd, int n)
{
	struct pollfd *p = (struct pollfd *)(void *)ro;

	ro_set(true);
	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){ .fd = fd, .events = POLLIN };
	ro_set(false);
	return p;
}

static void poll_cases(int fd)
{
	struct pollfd *two = (struct pollfd *)edge(sizeof(struct pollfd));
	struct timespec zero = { 0, 0 };
	struct pollfd ok = { .fd = fd, .events = POLLIN };

	two[0] = ok;
	CHILD("poll fds=8", TRY("poll fds=8", pingsock_poll(BAD, 1, 0)));
	CHILD("poll fds=8 nfds=0", TRY("poll fds=8 nfds=0",
					pingsock_poll(BAD, 0, 0)));
	CHILD("poll 2 fds, the second in the hole",
	      TRY("poll 2 fds, the second in the hole",
		  pingsock_poll(two, 2, 0)));
	CHILD("poll fds read-only, ready",
	      TRY("poll fds read-only, ready",
		  pingsock_poll(ro_fds(fd, 1), 1, 0)));
	CHILD("poll fds read-only, 3",
	      TRY("poll fds read-only, 3",
		  pingsock_poll(ro_fds(fd, 3), 3, 0)));
	CHILD("ppoll mask=8", TRY("ppoll mask=8", ppoll(&ok, 1, &zero, BAD)));
	CHILD("ppoll fds=8", TRY("ppoll fds=8", ppoll(BAD, 1, &zero, NULL)));
	CHILD("ppoll ts read-only",
	      TRY("ppoll ts read-only", ppoll(&ok, 1, (void *)ro, NULL)));
}

static void select_cases(int fd)
{
	struct timeval tv0 = { 0, 0 };
	struct timespec zero = { 0, 0 };
	fd_set r;

	FD_ZERO(&r);
	FD_SET(fd, &r);
	CHILD("select readfds=8",
	      TRY("select readfds=8", select(fd + 1, BAD, NULL, NULL, &tv0)));
	CHILD("select writefds=8",
	      TRY("select writefds=8", select(fd + 1, &r, BAD, NULL, &tv0)));
	ro_set(true);
	memcpy(ro, &r, sizeof(r));
	ro_set(false);
	CHILD("select readfds read-only",
	      TRY("select readfds read-only",
		  select(fd + 1, (fd_set *)(void *)ro, NULL, NULL, &tv0)));
	CHILD("pselect readfds=8",
	      TRY("pselect readfds=8",
		  pselect(fd + 1, BAD, NULL, NULL, &zero, NULL)));
}

static void epoll_cases(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct timespec zero = { 0, 0 };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	CHILD("epoll_ctl ADD event=8",
	      TRY("epoll_ctl ADD event=8",
		  epoll_ctl(ep, EPOLL_CTL_ADD, fd, BAD)));
	TRY("epoll_ctl ADD", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	CHILD("epoll_ctl MOD event=8",
	      TRY("epoll_ctl MOD event=8",
		  epoll_ctl(ep, EPOLL_CTL_MOD, fd, BAD)));
	CHILD("epoll_pwait2 ts=8",
	      TRY("epoll_pwait2 ts=8", epoll_pwait2(ep, &ev, 1, BAD, NULL)));
	CHILD("epoll_pwait2 ts, a ready one",
	      TRY("epoll_pwait2 ts, a ready one",
		  epoll_pwait2(ep, &ev, 1, &zero, NULL)));
	CHILD("epoll_ctl DEL event=8",
	      TRY("epoll_ctl DEL event=8",
		  epoll_ctl(ep, EPOLL_CTL_DEL, fd, BAD)));
	close(ep);
}

/* A socket readable by its state alone (shut for reading), which the
 * shim's wait reports itself: into an array the program does not have,
 * EFAULT; with a signal mask it does not have, EFAULT too, though no
 * wait inside needs it. */
static void epoll_shut_cases(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	struct epoll_event ev = { .events = EPOLLIN };
	struct timespec zero = { 0, 0 };
	int fd = conf_socket(), ep = epoll_create1(EPOLL_CLOEXEC);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	fd_set r;

	FD_ZERO(&r);
	FD_SET(fd, &r);
	TRY("connect", pingsock_connect(fd, SA(&a), sizeof(a)));
	TRY("shutdown SHUT_RD", pingsock_shutdown(fd, SHUT_RD));
	TRY("epoll_ctl ADD", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	CHILD("epoll_wait events=8, shut for reading",
	      TRY("epoll_wait events=8, shut for reading",
		  epoll_wait(ep, BAD, 1, 0)));
	CHILD("epoll_wait events in the hole, shut for reading",
	      TRY("epoll_wait events in the hole, shut for reading",
		  epoll_wait(ep, (struct epoll_event *)(void *)hole, 1, 0)));
	CHILD("epoll_wait, shut for reading",
	      TRY("epoll_wait, shut for reading", epoll_wait(ep, &ev, 1, 0)));
	CHILD("ppoll mask=8, shut for reading",
	      TRY("ppoll mask=8, shut for reading",
		  ppoll(&p, 1, &zero, BAD)));
	CHILD("pselect mask=8, shut for reading",
	      TRY("pselect mask=8, shut for reading",
		  pselect(fd + 1, &r, NULL, NULL, &zero, BAD)));
	close(ep);
	pingsock_close(fd);
}

static void wait_cases(void)
{
	int fd = with_reply(70);

	out("## poll, select, epoll: a socket with a reply queued");
	poll_cases(fd);
	select_cases(fd);
	epoll_cases(fd);
	then("poll, select, epoll", fd);
	epoll_shut_cases();
}

/* The same for IPv6, whose names are longer (a sockaddr_in6 that runs
 * into the hole after 16 of its 28 bytes). */
static void v6_cases(void)
{
	struct sockaddr_in6 a = conf_sin6("::1", 0, 0);
	socklen_t len = sizeof(a);
	struct iovec iov = { .iov_base = conf_rbuf, .iov_len = 100 };
	struct msghdr m = { .msg_name = edge(16), .msg_namelen = sizeof(a),
			    .msg_iov = &iov, .msg_iovlen = 1 };
	int fd, v = 0;

	out("## IPv6");
	for (int i = 0; i < 3; i++) {
		const char *what[] = { "recvmsg6 msg_name's last 12 bytes in the hole",
				       "recvfrom6 src's last 12 bytes in the hole",
				       "recvfrom6 src in the hole, len 0" };

		fd = conf_socket6();
		conf_echo6(conf_big, 64, (uint16_t)(80 + i));
		if (pingsock_sendto(fd, conf_big, 64, 0, SA(&a), sizeof(a)) != 64 ||
		    !conf_wait_in(fd, CONF_WAIT_MS))
			out("v6: no reply");
		len = i == 2 ? 0 : sizeof(a);
		CHILD(what[i], {
			long r_ = i == 0 ? pingsock_recvmsg(fd, &m, 0)
				: pingsock_recvfrom(fd, conf_rbuf, 100, 0,
						    SA(i == 1 ? edge(16) : hole),
						    &len);
			if (r_ < 0)
				out("%s: -1 %s", what[i], conf_errname(errno));
			else
				out("%s: %ld len %u", what[i], r_,
				    (unsigned)len);
		});
		then(what[i], fd);
	}
	fd = conf_socket6();
	len = sizeof(a);
	CHILD("getsockname6 addr's last 12 bytes in the hole",
	      TRY("getsockname6 addr's last 12 bytes in the hole",
		  pingsock_getsockname(fd, SA(edge(16)), &len)));
	len = 8;
	CHILD("getsockopt IPV6_UNICAST_HOPS val=8",
	      { TRY("getsockopt IPV6_UNICAST_HOPS val=8",
		    pingsock_getsockopt(fd, SOL_IPV6, IPV6_UNICAST_HOPS, BAD,
					&len));
		out("  len %u", (unsigned)len); });
	CHILD("setsockopt IPV6_UNICAST_HOPS val=8",
	      TRY("setsockopt IPV6_UNICAST_HOPS val=8",
		  pingsock_setsockopt(fd, SOL_IPV6, IPV6_UNICAST_HOPS, BAD,
				      sizeof(v))));
	pingsock_close(fd);
}

/* A socket that is not a ping socket, in the same program. */
static void udp_cases(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 9);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	out("## a UDP socket");
	CHILD("udp sendmsg msg=8",
	      TRY("udp sendmsg msg=8", pingsock_sendmsg(fd, BAD, 0)));
	CHILD("udp connect addr=8",
	      TRY("udp connect addr=8", pingsock_connect(fd, BAD, sizeof(a))));
	CHILD("udp recvmsg msg=8",
	      TRY("udp recvmsg msg=8",
		  pingsock_recvmsg(fd, BAD, MSG_DONTWAIT)));
	close(fd);
}

int main(void)
{
	uint8_t *p;

	conf_begin("efault");
	bad_ptr = (void *)(uintptr_t)8;
	p = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		out("mmap: %s", conf_errname(errno));
		return 1;
	}
	rw = p, hole = p + PAGE, ro = p + 2 * PAGE;
	mprotect(hole, PAGE, PROT_NONE);
	ro_set(false);
	sendmsg_cases();
	sendto_cases();
	sends_seen();
	recvmsg_cases();
	recvmsg_control();
	recvfrom_cases();
	len_first_cases();
	name_cases();
	opt_cases();
	ioctl_cases();
	wait_cases();
	v6_cases();
	udp_cases();
	return 0;
}
