#include "wire/decode.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/errqueue.h>

#define NSEC_PER_SEC 1000000000LL
#define IPV4_HDR 20
#define IPV4_MAX 0xFFFFu	/* tot_len */
#define ICMP_HDR 8
#define FLOWLABEL_MGR 32	/* IPV6_FLOWLABEL_MGR, <linux/in6.h> */

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* What replies and records share: the family's fields, lengths, time. */
static int check_common(const struct wire_dgram *dg, size_t data, int family)
{
	if ((family != AF_INET && family != AF_INET6) || dg->family != family)
		return -1;
	if (dg->pad || dg->ee_pad || !all_zero(dg->pad2, sizeof(dg->pad2)))
		return -1;
	if (dg->ts_nsec < 0 || dg->ts_nsec >= NSEC_PER_SEC ||
	    dg->ifindex > INT32_MAX)
		return -1;
	if (dg->offender_family != AF_INET6 && dg->offender_scope)
		return -1;
	if (family == AF_INET6)
		return dg->optlen == 0 && data <= WIRE_DATA_MAX ? 0 : -1;
	/* IPv4: options as a header has them (whole words, at most 40),
	 * and header, options and message within one datagram. */
	if (dg->optlen > sizeof(dg->opts) || dg->optlen % 4 ||
	    dg->src_scope || dg->flowinfo)
		return -1;
	return IPV4_HDR + dg->optlen + data <= IPV4_MAX ? 0 : -1;
}

/* A received ICMP message (a reply, or an error to a raw socket). */
static int check_reply(const struct wire_dgram *dg, size_t data)
{
	if (data < ICMP_HDR || dg->port)
		return -1;
	if (dg->ee_errno || dg->ee_origin || dg->ee_type || dg->ee_code)
		return -1;
	return dg->offender_family == 0 &&
	       all_zero(dg->offender, sizeof(dg->offender)) ? 0 : -1;
}

/* An error-queue record: struct sock_extended_err as the kernel makes
 * them for a ping socket (ICMP of the socket's family, or local). */
static int check_record(const struct wire_dgram *dg)
{
	if (!wire_is_errno(dg->ee_errno))
		return -1;
	switch (dg->ee_origin) {
	case SO_EE_ORIGIN_LOCAL:
		/* ipv6_local_error(): the request's type and code where
		 * the port goes; IPv4 has none. */
		if (dg->family == AF_INET && dg->port)
			return -1;
		return dg->offender_family == 0 && !dg->ee_type &&
		       !dg->ee_code &&
		       all_zero(dg->offender, sizeof(dg->offender)) ? 0 : -1;
	case SO_EE_ORIGIN_ICMP:
		return dg->family == AF_INET && dg->offender_family == AF_INET &&
		       !dg->port ? 0 : -1;
	case SO_EE_ORIGIN_ICMP6:
		return dg->family == AF_INET6 &&
		       dg->offender_family == AF_INET6 && !dg->port ? 0 : -1;
	default:
		return -1;
	}
}

int wire_decode_dgram(const void *msg, size_t got, size_t full, int chan,
		      int family, struct wire_dgram *dg)
{
	size_t data;

	memset(dg, 0, sizeof(*dg));
	if (got < WIRE_DGRAM_HDR || full < got)
		return -1;
	memcpy(dg, msg, WIRE_DGRAM_HDR);
	data = full - WIRE_DGRAM_HDR;
	switch (dg->kind) {
	case WIRE_DG_REPLY:
		if (chan != WIRE_CHAN_DATA || check_common(dg, data, family))
			return -1;
		return check_reply(dg, data);
	case WIRE_DG_ERROR:
		if (chan != WIRE_CHAN_ERR || check_common(dg, data, family))
			return -1;
		return check_record(dg);
	case WIRE_DG_WAKE:
		/* "Look at the shared page", and nothing else. */
		return chan == WIRE_CHAN_ERR && data == 0 &&
		       all_zero((const uint8_t *)msg + 1, WIRE_DGRAM_HDR - 1)
			       ? 0 : -1;
	default:
		return -1;
	}
}

/* ---- answers on the control channel ---- */

/* Requests that name a socket by handle (the daemon may not know it). */
static bool names_socket(uint16_t type)
{
	switch (type) {
	case WIRE_DETACH: case WIRE_BIND: case WIRE_CONNECT: case WIRE_SEND:
	case WIRE_SETOPT: case WIRE_GETOPT: case WIRE_GETNAME:
	case WIRE_GETPEER: case WIRE_SHUTDOWN: case WIRE_KEEPID:
		return true;
	default:
		return false;
	}
}

/* A result the request allows (a non-negative one is checked with the
 * body, by the answer's type). */
static bool result_ok(const struct wire_req *req, int32_t r)
{
	if (r >= 0)
		return true;
	if (r == WIRE_R_UNATTACHED)
		return names_socket(req->type);
	if (r == WIRE_R_FOREIGN_NS)	/* another network namespace */
		return req->type == WIRE_HELLO;
	return r >= -WIRE_ERRNO_MAX;
}

static void want_fd(struct wire_answer *ans, uint8_t kind)
{
	if (ans->nfds < WIRE_ANS_FDS)
		ans->fd_kind[ans->nfds] = kind;
	ans->nfds++;
}

/* WIRE_OPEN: u32 handle, u32 flags; a daemon socket or a broker one. */
static int ok_open(const struct wire_req *req, struct wire_answer *ans)
{
	uint32_t handle, flags;
	int base = req->u.open.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	int d = req->u.open.domain;

	if (ans->len != 8)
		return -1;
	memcpy(&handle, ans->body, 4);
	memcpy(&flags, ans->body + 4, 4);
	if (handle == 0 || (flags & ~WIRE_OPEN_BROKER))
		return -1;
	if (!(flags & WIRE_OPEN_BROKER)) {
		want_fd(ans, WIRE_FD_SEQPACKET);
		want_fd(ans, WIRE_FD_SHM);
		want_fd(ans, WIRE_FD_SEQPACKET);
		return 0;
	}
	/* Only a ping socket is brokered: a kernel one of its kind. */
	if (base != SOCK_DGRAM ||
	    !((d == AF_INET && req->u.open.protocol == IPPROTO_ICMP) ||
	      (d == AF_INET6 && req->u.open.protocol == IPPROTO_ICMPV6)))
		return -1;
	want_fd(ans, WIRE_FD_ICMP);
	ans->fd_family = d;
	want_fd(ans, WIRE_FD_SEQPACKET);
	return 0;
}

/* WIRE_ATTACH: u32 handle, u32 family; the state page, the error fd. */
static int ok_attach(struct wire_answer *ans)
{
	uint32_t handle, family;

	if (ans->len != 8)
		return -1;
	memcpy(&handle, ans->body, 4);
	memcpy(&family, ans->body + 4, 4);
	if (handle == 0 || (family != AF_INET && family != AF_INET6))
		return -1;
	want_fd(ans, WIRE_FD_SHM);
	want_fd(ans, WIRE_FD_SEQPACKET);
	return 0;
}

/* WIRE_GETNAME, WIRE_GETPEER: a whole sockaddr_in or sockaddr_in6. */
static int ok_name(const struct wire_answer *ans)
{
	sa_family_t f;

	if (ans->len < sizeof(f))
		return -1;
	memcpy(&f, ans->body, sizeof(f));
	return (f == AF_INET && ans->len == sizeof(struct sockaddr_in)) ||
	       (f == AF_INET6 && ans->len == sizeof(struct sockaddr_in6))
		       ? 0 : -1;
}

/* Values and lengths: the body cannot exceed what was asked for. */
static int ok_value(const struct wire_req *req, struct wire_answer *ans)
{
	size_t cap = req->u.opt.len < WIRE_OPTVAL_MAX ? req->u.opt.len
						      : WIRE_OPTVAL_MAX;

	switch (req->type) {
	case WIRE_SEND:
		/* The bytes sent: at most what was handed over. */
		return ans->len == 0 && req->u.send.len <= WIRE_DATA_MAX &&
		       (uint32_t)ans->result <= req->u.send.len ? 0 : -1;
	case WIRE_SETOPT:
		/* A flow label lease answers the label it chose. */
		return ans->result == 0 &&
		       ans->len == (req->u.opt.level == SOL_IPV6 &&
				    req->u.opt.name == FLOWLABEL_MGR ? 4u : 0u)
			       ? 0 : -1;
	case WIRE_GETOPT:
		return ans->len <= cap ? 0 : -1;
	default:
		return ok_name(ans);
	}
}

/* A successful answer: its body and descriptors, by type. */
static int check_ok(const struct wire_req *req, struct wire_answer *ans)
{
	struct wire_table_hdr th;
	bool sized = req->type == WIRE_GETOPT || req->type == WIRE_GETNAME ||
		     req->type == WIRE_GETPEER;

	/* "result = len" (wire.h) or 0: both say the same. */
	if (req->type != WIRE_SEND && ans->result != 0 &&
	    !(sized && (size_t)ans->result == ans->len))
		return -1;
	switch (req->type) {
	case WIRE_OPEN:
		return ok_open(req, ans);
	case WIRE_ATTACH:
		return ok_attach(ans);
	case WIRE_SEND: case WIRE_SETOPT: case WIRE_GETOPT:
	case WIRE_GETNAME: case WIRE_GETPEER:
		return ok_value(req, ans);
	case WIRE_STATS:
		return ans->len == sizeof(struct wire_stats) ? 0 : -1;
	case WIRE_TABLE:
		return wire_table_check(ans->body, ans->len, &th);
	case WIRE_BROKER_BIND:
		if (ans->len)
			return -1;
		want_fd(ans, WIRE_FD_ICMP);
		return 0;
	case WIRE_HELLO: case WIRE_DETACH: case WIRE_BIND: case WIRE_CONNECT:
	case WIRE_SHUTDOWN: case WIRE_KEEPID:
		return ans->len == 0 ? 0 : -1;
	default:
		return -1;
	}
}

int wire_check_answer(const struct wire_req *req, const uint8_t *msg,
		      size_t len, struct wire_answer *ans)
{
	uint16_t type, flags;

	memset(ans, 0, sizeof(*ans));
	if (len < WIRE_RESP_HDR)
		return -1;
	memcpy(&type, msg, 2);
	memcpy(&flags, msg + 2, 2);
	memcpy(&ans->result, msg + 4, 4);
	ans->body = msg + WIRE_RESP_HDR;
	ans->len = len - WIRE_RESP_HDR;
	if (type != req->type || flags != 0 || !result_ok(req, ans->result))
		return -1;
	/* A failure carries nothing but its errno. */
	if (ans->result < 0)
		return ans->len == 0 ? 0 : -1;
	if (check_ok(req, ans) || ans->nfds > WIRE_ANS_FDS) {
		ans->nfds = 0;
		return -1;
	}
	return 0;
}
