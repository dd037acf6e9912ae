/* SPDX-License-Identifier: ISC */
/*
 * test_psflow - IPv6 flow label leases (src/engine/psflow.c) in time: a
 * lease outlives its last holder for its linger time, as the kernel's
 * ip6_flowlabel.c keeps it (fl_release(), ip6_fl_gc(), fl_intern()).
 * The table's clock is a variable here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/psflow.h"
#include "engine/psock.h"
#include "engine/psock_int.h"
#include "wire/in6ext.h"
#include "check.h"

static uint64_t now_ms;
/* Only its flowlabel_state_ranges is read here. */
static struct ps_env env;
static const char *dst = "::1";

static uint64_t fake_clock(void *ctx)
{
	(void)ctx;
	return now_ms;
}

static struct pstab *table(void)
{
	struct pstab *tab = pstab_new(1);

	pstab_set_clock(tab, fake_clock, NULL);
	now_ms = 1000000;
	return tab;
}

static struct psock *open6(struct pstab *tab, uint32_t uid, int32_t pid)
{
	struct psock *sk = NULL;

	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, uid,
			    &sk), 0);
	ps_set_pid(sk, pid);
	return sk;
}

/* IPV6_FLOWLABEL_MGR with these fields (label in host order). */
static int mgr(struct psock *sk, uint8_t action, uint32_t label,
	       uint8_t share, uint16_t flags, uint16_t linger,
	       uint16_t expires)
{
	struct in6ext_flreq q;
	uint8_t b[sizeof(q)];
	uint32_t got;

	memset(&q, 0, sizeof(q));
	CHECK_EQ(inet_pton(AF_INET6, dst, &q.dst), 1);
	q.label = htonl(label);
	q.action = action;
	q.share = share;
	q.flags = flags;
	q.linger = linger;
	q.expires = expires;
	memcpy(b, &q, sizeof(q));
	return ps_flowlabel_opt(sk, &env, b, sizeof(b), &got);
}

#define GET(sk, l, sh, fl) \
	mgr(sk, IN6EXT_FL_A_GET, l, IN6EXT_FL_S_##sh, fl, 0, 0)
#define PUT(sk, l) mgr(sk, IN6EXT_FL_A_PUT, l, 0, 0, 0, 0)
#define CX (IN6EXT_FL_F_CREATE | IN6EXT_FL_F_EXCL)
#define C IN6EXT_FL_F_CREATE

static size_t leases(struct pstab *tab)
{
	return psflow_count(pstab_flows(tab));
}

/*
 * Issue 21, item 3: released, a lease lingers FL_MIN_LINGER (6 s) by
 * default.  Meanwhile a create finds it (EEXIST with EXCL, EPERM for an
 * exclusive lease), a plain get does not (ENOENT); afterwards it is
 * gone.  Before, IPV6_FL_A_PUT released the label at once.
 */
static void put_lingers(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *b = open6(tab, 2000, 20);

	CHECK_EQ(GET(a, 0x12345, EXCL, CX), 0);
	CHECK_EQ(PUT(a, 0x12345), 0);
	CHECK_EQ(PUT(a, 0x12345), -ESRCH);	/* a holds it no more */
	CHECK(!psflow_held(a, htonl(0x12345)));
	CHECK_EQ(leases(tab), 1);
	now_ms += 1000;
	CHECK_EQ(GET(b, 0x12345, EXCL, 0), -ENOENT);
	CHECK_EQ(GET(b, 0x12345, EXCL, CX), -EEXIST);
	CHECK_EQ(GET(a, 0x12345, EXCL, CX), -EEXIST);
	CHECK_EQ(GET(b, 0x12345, ANY, C), -EPERM);
	CHECK_EQ(GET(b, 0x12345, EXCL, C), -EPERM);
	/* Each refused create released it again: 6 s from the last. */
	now_ms += 5999;
	CHECK_EQ(leases(tab), 1);
	CHECK_EQ(GET(b, 0x12345, EXCL, 0), -ENOENT);	/* no renewal */
	now_ms += 1;
	CHECK_EQ(GET(b, 0x12345, EXCL, CX), 0);
	CHECK(psflow_held(b, htonl(0x12345)));
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* The lease lasts to the later of its expiry and its linger after the
 * release; linger and expiry past 150 s are refused (EPERM). */
static void linger_and_expiry_asked(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *b = open6(tab, 2000, 20);
	uint64_t t0 = now_ms;

	CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 7, IN6EXT_FL_S_ANY, CX, 151, 0),
		 -EPERM);
	CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 7, IN6EXT_FL_S_ANY, CX, 0, 151),
		 -EPERM);
	CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 7, 9, CX, 151, 0), -EPERM);
	CHECK_EQ(leases(tab), 0);
	CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 7, IN6EXT_FL_S_ANY, CX, 20, 60),
		 0);
	now_ms = t0 + 10000;
	CHECK_EQ(PUT(a, 7), 0);		/* expires at t0 + 60 s */
	now_ms = t0 + 59999;
	CHECK_EQ(GET(b, 7, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 1);
	now_ms = t0 + 60000;
	CHECK_EQ(GET(b, 7, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 0);

	/* Linger 20 s: released at t1, there until t1 + 20 s. */
	CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 8, IN6EXT_FL_S_ANY, CX, 20, 0), 0);
	now_ms += 100000;
	CHECK_EQ(PUT(a, 8), 0);
	now_ms += 19999;
	CHECK_EQ(GET(b, 8, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 1);
	now_ms += 1;
	CHECK_EQ(GET(b, 8, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 0);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* A shared lease taken up again while it lingers keeps the longer
 * linger; IPV6_FL_A_RENEW lengthens a held one. */
static void taken_up_again_and_renewed(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *b = open6(tab, 2000, 20);

	CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 9, IN6EXT_FL_S_ANY, CX, 30, 0), 0);
	CHECK_EQ(PUT(a, 9), 0);
	now_ms += 29000;
	CHECK_EQ(GET(b, 9, ANY, C), 0);		/* lingering: taken up */
	CHECK(psflow_held(b, htonl(9)));
	now_ms += 100000;
	CHECK_EQ(PUT(b, 9), 0);			/* its linger is 30 s */
	now_ms += 29999;
	CHECK_EQ(leases(tab), 1);
	CHECK_EQ(GET(a, 9, ANY, 0), -ENOENT);
	now_ms += 1;
	CHECK_EQ(GET(a, 9, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 0);

	CHECK_EQ(GET(a, 10, ANY, CX), 0);
	CHECK_EQ(mgr(a, IN6EXT_FL_A_RENEW, 10, 0, 0, 151, 0), -EPERM);
	CHECK_EQ(mgr(b, IN6EXT_FL_A_RENEW, 10, 0, 0, 40, 0), -ESRCH);
	CHECK_EQ(mgr(a, IN6EXT_FL_A_RENEW, 10, 0, 0, 40, 0), 0);
	CHECK_EQ(PUT(a, 10), 0);
	now_ms += 39999;
	CHECK_EQ(GET(b, 10, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 1);
	now_ms += 1;
	CHECK_EQ(GET(b, 10, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 0);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* Closing a socket releases its leases, which linger likewise; a label
 * shared by two sockets lingers only once both let go. */
static void close_lingers(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *b = open6(tab, 1000, 10);
	struct psock *c = open6(tab, 3000, 30);

	CHECK_EQ(GET(a, 11, USER, CX), 0);
	CHECK_EQ(GET(b, 11, USER, 0), 0);
	pstab_close(tab, a);
	now_ms += 60000;
	CHECK_EQ(GET(c, 11, USER, CX), -EEXIST);	/* b holds it */
	pstab_close(tab, b);
	now_ms += 5999;
	CHECK_EQ(GET(c, 11, USER, C), -EPERM);	/* another user's */
	now_ms += 6000;				/* 6 s after that */
	CHECK_EQ(GET(c, 11, USER, CX), 0);
	pstab_close(tab, c);
	now_ms += 6000;
	CHECK_EQ(leases(tab), 1);	/* expired; goes at the next request */
	c = open6(tab, 3000, 30);
	CHECK_EQ(GET(c, 12, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 0);
	pstab_close(tab, c);
	pstab_free(tab);
}

/* Lingering leases count towards the table's bound (mem_check():
 * unprivileged, none created once fewer than a quarter of FL_MAX_SIZE
 * 4096 is left: 3073 at most), so that memory stays
 * bounded however fast labels are taken and given up.  (Seven users:
 * one may make 512 at most, uid_bounded.) */
static void lingering_bounded(void)
{
	struct pstab *tab = table();
	struct psock *a[7];
	uint32_t l = 1;

	for (int k = 0; k < 7; k++)
		a[k] = open6(tab, 1000 + (uint32_t)k, 10 + k);
	for (int k = 0; k < 7; k++)
		for (int i = 0; i < 512 && l <= 3073; i++, l++)
			if (GET(a[k], l, ANY, CX) != 0 || PUT(a[k], l) != 0)
				break;
	CHECK_EQ(l, 3074);
	CHECK_EQ(leases(tab), 3073);
	CHECK_EQ(GET(a[6], l, ANY, CX), -ENOBUFS);
	CHECK_EQ(GET(a[6], 0, ANY, C), -ENOBUFS);
	now_ms += 6000;
	CHECK_EQ(GET(a[0], l, ANY, CX), 0);
	CHECK_EQ(leases(tab), 1);
	for (int k = 0; k < 7; k++)
		pstab_close(tab, a[k]);
	pstab_free(tab);
}

/* One user makes 512 leases at most, held or lingering (the kernel
 * has no such bound: one user's 3,072 left everyone else ENOBUFS for up
 * to 150 s); another still makes its own, and taking up a lingering one
 * again is no new lease. */
static void uid_bounded(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *b = open6(tab, 2000, 20);
	uint32_t l;

	for (l = 1; l <= 512; l++)
		if (GET(a, l, ANY, CX) != 0 || PUT(a, l) != 0)
			break;
	CHECK_EQ(l, 513);
	CHECK_EQ(GET(a, l, ANY, CX), -ENOBUFS);
	CHECK_EQ(GET(a, 0, ANY, C), -ENOBUFS);
	CHECK_EQ(GET(a, 7, ANY, C), 0);		/* lingering: taken up */
	CHECK_EQ(GET(b, l, ANY, CX), 0);
	CHECK_EQ(leases(tab), 513);
	now_ms += 6000;				/* a's others expire */
	CHECK_EQ(GET(a, l + 1, ANY, CX), 0);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/*
 * Issue 21, item 2: every get builds a lease first (fl_create()), which
 * refuses a destination of :: or a v4-mapped one (EINVAL) after the
 * linger check and before the share mode's and any lookup.  A put or a
 * renew does not look at it.
 */
static void dst_checked(void)
{
	static const char *const bad[] = { "::", "::ffff:10.0.0.1",
					   "::ffff:0.0.0.0" };
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *b = open6(tab, 1000, 11);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dst = bad[i];
		CHECK_EQ(GET(a, 0x100, ANY, CX), -EINVAL);
		CHECK_EQ(GET(a, 0, ANY, C), -EINVAL);
		CHECK_EQ(GET(a, 0x101, ANY, 0), -EINVAL);
		CHECK_EQ(mgr(a, IN6EXT_FL_A_GET, 0x100, IN6EXT_FL_S_ANY, CX,
			     151, 0), -EPERM);
	}
	CHECK_EQ(leases(tab), 0);
	dst = "::10.0.0.1";	/* v4-compatible: a destination like any */
	CHECK_EQ(GET(a, 0x100, ANY, CX), 0);
	dst = "::";
	CHECK_EQ(GET(a, 0x100, ANY, CX), -EINVAL);	/* not EEXIST */
	CHECK_EQ(GET(b, 0x100, ANY, 0), -EINVAL);	/* nor a join */
	CHECK_EQ(mgr(a, IN6EXT_FL_A_RENEW, 0x100, 0, 0, 10, 0), 0);
	CHECK_EQ(PUT(a, 0x100), 0);
	dst = "::1";
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* With net.ipv6.flowlabel_state_ranges on, a get of a label with bit
 * 0x80000 is ERANGE (bits past 20 first EINVAL); put and renew are not
 * checked.  Off, those labels are leased as any. */
static void state_ranges(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10);

	CHECK_EQ(GET(a, 0x80000, ANY, CX), 0);
	CHECK_EQ(GET(a, 0xfffff, ANY, CX), 0);
	env.flowlabel_state_ranges = true;
	CHECK_EQ(GET(a, 0x180000, ANY, CX), -EINVAL);
	CHECK_EQ(GET(a, 0x80001, ANY, CX), -ERANGE);
	CHECK_EQ(GET(a, 0x80000, ANY, 0), -ERANGE);	/* held, even */
	dst = "::";
	CHECK_EQ(GET(a, 0xc0000, ANY, CX), -ERANGE);	/* before dst */
	dst = "::1";
	CHECK_EQ(GET(a, 0x7ffff, ANY, CX), 0);
	CHECK_EQ(mgr(a, IN6EXT_FL_A_RENEW, 0x80000, 0, 0, 10, 0), 0);
	CHECK_EQ(PUT(a, 0x80000), 0);
	CHECK_EQ(PUT(a, 0xfffff), 0);
	CHECK_EQ(PUT(a, 0x80001), -ESRCH);
	env.flowlabel_state_ranges = false;
	pstab_close(tab, a);
	pstab_free(tab);
}

/*
 * Joining shared leases is not limited per socket (only creating one,
 * by mem_check()): a joins 100 leases four others created, each twice.
 * The daemon's own bound, PS_MAX_FLOWLABELS a socket, is ENOBUFS.
 */
static void joins_unbounded(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *c[4];
	unsigned n = 0;

	for (int k = 0; k < 4; k++) {
		c[k] = open6(tab, 2000, 20 + k);
		for (uint32_t l = 0; l < 25; l++)
			CHECK_EQ(GET(c[k], 0x1000 + 25 * k + l, ANY, CX), 0);
	}
	for (int round = 0; round < 2; round++)
		for (uint32_t l = 0x1000; l < 0x1000 + 100; l++)
			n += GET(a, l, ANY, 0) == 0;
	CHECK_EQ(n, 200);
	CHECK_EQ(GET(a, 0x2000, ANY, CX), -ENOBUFS);	/* FL_MAX_PER_SOCK */
	CHECK_EQ(PUT(a, 0x1000), 0);
	CHECK_EQ(PUT(a, 0x1000), 0);
	CHECK_EQ(PUT(a, 0x1000), -ESRCH);
	for (n = 198; n < PS_MAX_FLOWLABELS; n++)
		if (GET(a, 0x1001, ANY, 0) != 0)
			break;
	CHECK_EQ(n, PS_MAX_FLOWLABELS);
	CHECK_EQ(GET(a, 0x1001, ANY, 0), -ENOBUFS);
	CHECK_EQ(leases(tab), 100);
	pstab_close(tab, a);
	for (int k = 0; k < 4; k++)
		pstab_close(tab, c[k]);
	pstab_free(tab);
}

/*
 * Review finding 11: a socket that joined thousands of leases cost its
 * close a linear lookup of each among all leases (4,000 x 2,000: about
 * four million steps, 10-15 ms of the daemon's loop).  Leases are
 * sorted by label now, and a socket keeps each label once, with a count.
 */
static void close_after_many_joins_cheap(void)
{
	struct pstab *tab = table();
	struct psock *a = open6(tab, 1000, 10), *c[100];
	unsigned made = 0, joined = 0;
	uint64_t s0;

	for (int k = 0; k < 100; k++) {
		/* five users: one makes 512 at most (uid_bounded) */
		c[k] = open6(tab, 2000 + (uint32_t)k / 20, 20 + k);
		for (uint32_t l = 0; l < 20; l++)
			made += GET(c[k], 0x10000 + 20 * k + l, ANY, CX) == 0;
	}
	CHECK_EQ(made, 2000);
	for (int round = 0; round < 2; round++)
		for (uint32_t l = 0x10000; l < 0x10000 + 2000; l++)
			joined += GET(a, l, ANY, 0) == 0;
	CHECK_EQ(joined, 4000);
	CHECK_EQ(PUT(a, 0x10000), 0);	/* one join of two given back */
	s0 = psflow_steps(pstab_flows(tab));
	pstab_close(tab, a);
	CHECK(psflow_steps(pstab_flows(tab)) - s0 < 2000 * 16);
	/* Every lease is held by its maker alone again: each goes with
	 * its last holder, not before. */
	for (int k = 0; k < 100; k++)
		pstab_close(tab, c[k]);
	CHECK_EQ(leases(tab), 2000);	/* lingering */
	now_ms += 7000;
	a = open6(tab, 1000, 10);
	CHECK_EQ(GET(a, 0x10000, ANY, 0), -ENOENT);
	CHECK_EQ(leases(tab), 0);
	pstab_close(tab, a);
	pstab_free(tab);
}

int main(void)
{
	TEST(put_lingers);
	TEST(linger_and_expiry_asked);
	TEST(taken_up_again_and_renewed);
	TEST(close_lingers);
	TEST(lingering_bounded);
	TEST(uid_bounded);
	TEST(dst_checked);
	TEST(state_ranges);
	TEST(joins_unbounded);
	TEST(close_after_many_joins_cheap);
	return CHECK_DONE();
}
