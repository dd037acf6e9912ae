/* SPDX-License-Identifier: ISC */
/*
 * flowlabel_linger: an IPv6 flow label lease (IPV6_FLOWLABEL_MGR) outlives
 * its last holder, as ip6_flowlabel.c keeps it: released by
 * IPV6_FL_A_PUT or by close(), it lingers for its linger time (at least
 * 6 s) and until its expiry.  Meanwhile a get without IPV6_FL_F_CREATE
 * does not find it (ENOENT); one with it does: EEXIST with
 * IPV6_FL_F_EXCL, EPERM where the lease is exclusive or of another share
 * mode, else the lease is taken up again.  A refused create releases it
 * again, which starts its linger anew.  Linger or expiry past 150 s is
 * refused (EPERM) without CAP_NET_ADMIN.  Issue 21, item 3: pingsock gave
 * the label up at once.  Takes about 8 s (one wait of 7.5 s).
 */
// needs: peer (fd00:201::1 on veth0, the peer fd00:201::2)
#include "conf.h"
#include "flowlabel.h"

/* Below 0x80000: net.ipv6.flowlabel_state_ranges keeps the rest for
 * stateless labels. */
#define LA 0x12345
#define LB 0x23456
#define LC 0x34567
#define LD 0x45678

/* One IPV6_FLOWLABEL_MGR request on socket sock (a name for it). */
static void mgr(const char *sock, int fd, const char *what, uint8_t action,
		uint32_t label, uint8_t share, uint16_t flags,
		uint16_t linger, uint16_t expires)
{
	struct flreq q;
	int rc, e;

	memset(&q, 0, sizeof(q));
	inet_pton(AF_INET6, CONF6_PEER, &q.dst);
	q.label = htonl(label);
	q.action = action;
	q.share = share;
	q.flags = flags;
	q.linger = linger;
	q.expires = expires;
	rc = pingsock_setsockopt(fd, SOL_IPV6, IPV6_FLOWLABEL_MGR, &q,
				 sizeof(q));
	e = errno;
	out("%s %s label %#x: %s", sock, what, (unsigned)label,
	    rc == 0 ? "0" : conf_errname(e));
}

#define GET(s, fd, l, sh, fl) \
	mgr(s, fd, "get " #sh " " #fl, A_GET, l, S_##sh, fl, 0, 0)
#define PUT(s, fd, l) mgr(s, fd, "put", A_PUT, l, 0, 0, 0, 0)
#define CX (F_CREATE | F_EXCL)

int main(void)
{
	int a = conf_socket6(), b = conf_socket6(), c = conf_socket6();

	out("## limits: linger and expiry at most 150 s");
	mgr("a", a, "get linger 151", A_GET, LA, S_ANY, CX, 151, 0);
	mgr("a", a, "get expires 151", A_GET, LA, S_ANY, CX, 0, 151);
	mgr("a", a, "get linger 150", A_GET, LD, S_ANY, CX, 150, 0);
	mgr("a", a, "renew linger 151", A_RENEW, LD, 0, 0, 151, 0);
	PUT("a", a, LD);

	out("## released by a put: lingers (6 s by default)");
	GET("a", a, LA, EXCL, CX);
	PUT("a", a, LA);
	PUT("a", a, LA);
	GET("b", b, LA, EXCL, 0);
	GET("b", b, LA, EXCL, CX);
	GET("b", b, LA, ANY, F_CREATE);
	GET("a", a, LA, EXCL, CX);

	out("## shared, released, taken up again by another socket");
	GET("b", b, LB, ANY, CX);
	PUT("b", b, LB);
	GET("c", c, LB, ANY, 0);
	GET("c", c, LB, ANY, F_CREATE);
	GET("a", a, LB, ANY, F_CREATE);

	out("## renewed to linger 20 s, then released");
	GET("c", c, LC, USER, CX);
	mgr("c", c, "renew linger 20", A_RENEW, LC, 0, 0, 20, 0);
	PUT("c", c, LC);
	GET("b", b, LC, USER, 0);

	out("## released by close");
	pingsock_close(c);
	GET("b", b, LB, ANY, CX);
	GET("b", b, LB, ANY, F_CREATE);

	out("## 7.5 s later");
	usleep(7500 * 1000);
	GET("b", b, LA, EXCL, CX);	/* lingered 6 s: gone */
	GET("b", b, LC, USER, CX);	/* lingers 20 s */
	GET("b", b, LB, ANY, 0);	/* a and b still hold it */
	PUT("a", a, LB);
	PUT("b", b, LB);
	PUT("b", b, LB);
	GET("b", b, LB, ANY, CX);	/* just released */
	pingsock_close(a);
	pingsock_close(b);
	return 0;
}
