/* SPDX-License-Identifier: ISC */
/*
 * decode - the client's checks of what the daemon sends: datagrams and
 * records on a socket's descriptors, and answers on the control channel
 * (by their request type's row, types.c).
 */
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
	if (dg->pad || dg->ee_pad || dg->pad2)
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
		if (dg->family == AF_INET && dg->req_typecode)
			return -1;
		return dg->offender_family == 0 && !dg->ee_type &&
		       !dg->ee_code &&
		       all_zero(dg->offender, sizeof(dg->offender)) ? 0 : -1;
	case SO_EE_ORIGIN_ICMP:
		return dg->family == AF_INET && dg->offender_family == AF_INET &&
		       !dg->req_typecode ? 0 : -1;
	case SO_EE_ORIGIN_ICMP6:
		return dg->family == AF_INET6 &&
		       dg->offender_family == AF_INET6 && !dg->req_typecode ? 0 : -1;
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
		/* "Look at the state slot", and nothing else. */
		return chan == WIRE_CHAN_DATA && data == 0 &&
		       all_zero((const uint8_t *)msg + 1, WIRE_DGRAM_HDR - 1)
			       ? 0 : -1;
	default:
		return -1;
	}
}

/* ---- answers on the control channel ---- */

/* A result the request's row allows (a non-negative one is checked with
 * the body). */
static bool result_ok(const struct wire_req_type *t, int32_t r)
{
	if (r >= 0)
		return true;
	if (r == t->also && r != 0)
		return true;
	return r >= -WIRE_ERRNO_MAX;
}

/* A success's result, as the row says. */
static bool ok_result(const struct wire_req_type *t,
		      const struct wire_req *req, const struct wire_answer *ans)
{
	switch (t->ok) {
	case WIRE_OK_ZERO:
		return ans->result == 0;
	case WIRE_OK_LEN:	/* "result = len" (wire.h) or 0 */
		return ans->result == 0 || (size_t)ans->result == ans->len;
	case WIRE_OK_SENT:	/* at most what was handed over */
		return req->u.send.len <= WIRE_DATA_MAX &&
		       (uint32_t)ans->result <= req->u.send.len;
	default:
		return false;
	}
}

/* A successful answer: its result, body and descriptors, by the row. */
static int check_ok(const struct wire_req_type *t, const struct wire_req *req,
		    struct wire_answer *ans)
{
	if (!ok_result(t, req, ans))
		return -1;
	if (t->body != WIRE_BODY_CHECKED && ans->len != t->body)
		return -1;
	for (unsigned i = 0; i < WIRE_ANS_FDS && t->fds[i]; i++)
		ans->fd_kind[ans->nfds++] = t->fds[i];
	return t->check ? t->check(req, ans) : 0;
}

int wire_check_answer(const struct wire_req *req, const uint8_t *msg,
		      size_t len, struct wire_answer *ans)
{
	const struct wire_req_type *t = wire_req_type(req->type);
	uint16_t type, flags;

	memset(ans, 0, sizeof(*ans));
	if (len < WIRE_RESP_HDR || !t)
		return -1;
	memcpy(&type, msg, 2);
	memcpy(&flags, msg + 2, 2);
	memcpy(&ans->result, msg + 4, 4);
	ans->body = msg + WIRE_RESP_HDR;
	ans->len = len - WIRE_RESP_HDR;
	/* WIRE_R_ASKED depends on the request's flags, not on its row. */
	if (type != req->type || flags != 0 ||
	    !(result_ok(t, ans->result) ||
	      (ans->result == WIRE_R_ASKED && req->type == WIRE_SEND &&
	       (req->rqflags & WIRE_RQ_ASK))))
		return -1;
	/* A failure carries nothing but its errno. */
	if (ans->result < 0)
		return ans->len == 0 ? 0 : -1;
	if (check_ok(t, req, ans) || ans->nfds > WIRE_ANS_FDS) {
		ans->nfds = 0;
		return -1;
	}
	return 0;
}
