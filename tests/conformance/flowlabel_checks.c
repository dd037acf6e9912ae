/* SPDX-License-Identifier: ISC */
/*
 * flowlabel_checks: three checks of ip6_flowlabel.c on IPV6_FLOWLABEL_MGR
 * that pingsock missed (issue 21, item 2).
 *  - Every IPV6_FL_A_GET (create, join or lookup) builds a lease first
 *    (fl_create()), which refuses a flr_dst of :: or a v4-mapped address
 *    with EINVAL: after the linger check (EPERM), before the share mode's
 *    and before any lookup (ENOENT, EEXIST).  A put or renew does not
 *    look at flr_dst.
 *  - With net.ipv6.flowlabel_state_ranges on, a get of a label with bit
 *    0x80000 set is ERANGE (after EINVAL for bits past 20); a put or
 *    renew is not checked.  The setting is printed: off (the kernel's
 *    default, and what run.sh's namespaces have) those labels are leased;
 *    flowlabel_ranges runs with it on.
 *  - Joining a shared lease is not limited per socket (only creating
 *    one is, by mem_check(): FL_MAX_PER_SOCK once 32 labels exist).
 */
// needs: peer (fd00:201::1 on veth0, the peer fd00:201::2)
#include "conf.h"
#include "flowlabel.h"

#define NJOIN 40	/* shared leases one socket joins: past 32 */
#define JBASE 0x21000

static int mgr_rc(int fd, const char *dst, uint8_t action, uint32_t label,
		  uint8_t share, uint16_t flags, uint16_t linger)
{
	struct flreq q;

	memset(&q, 0, sizeof(q));
	inet_pton(AF_INET6, dst, &q.dst);
	q.label = htonl(label);
	q.action = action;
	q.share = share;
	q.flags = flags;
	q.linger = linger;
	return pingsock_setsockopt(fd, SOL_IPV6, IPV6_FLOWLABEL_MGR, &q,
				   sizeof(q)) == 0 ? 0 : errno;
}

static void mgr(const char *what, int fd, const char *dst, uint8_t action,
		uint32_t label, uint8_t share, uint16_t flags,
		uint16_t linger)
{
	int e = mgr_rc(fd, dst, action, label, share, flags, linger);

	out("%s dst %s label %#x: %s", what, dst, (unsigned)label,
	    e ? conf_errname(e) : "0");
}

static void destinations(int a, int b)
{
	static const char *const bad[] = {
		"::", "::ffff:10.201.0.2", "::ffff:0.0.0.0",
	};
	static const char *const good[] = {
		"::1", "::10.201.0.2", "fe80::2", "ff02::1", CONF6_PEER,
	};

	out("## flr_dst: :: and v4-mapped refused, in every get");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mgr("a get create", a, bad[i], A_GET, 0x11000, S_ANY, CX, 0);
		mgr("a get any", a, bad[i], A_GET, 0, S_ANY, F_CREATE, 0);
		mgr("a get lookup", a, bad[i], A_GET, 0x11001, S_ANY, 0, 0);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		mgr("a get create", a, good[i], A_GET, 0x11010 + i, S_ANY,
		    CX, 0);
		mgr("a put", a, "::", A_PUT, 0x11010 + i, 0, 0, 0);
	}
	out("## order: linger, then dst, then share mode, then lookups");
	mgr("a get linger 151", a, "::", A_GET, 0x11020, S_ANY, CX, 151);
	mgr("a get share 7", a, "::", A_GET, 0x11020, 7, CX, 0);
	mgr("a get share 7", a, CONF6_PEER, A_GET, 0x11020, 7, CX, 0);
	mgr("a get", a, CONF6_PEER, A_GET, 0x11020, S_ANY, CX, 0);
	mgr("a get excl again", a, "::", A_GET, 0x11020, S_ANY, CX, 0);
	mgr("b join", b, "::ffff:1.2.3.4", A_GET, 0x11020, S_ANY, 0, 0);
	mgr("b join", b, CONF6_PEER, A_GET, 0x11020, S_ANY, 0, 0);
	out("## put and renew do not look at flr_dst");
	mgr("a renew", a, "::", A_RENEW, 0x11020, 0, 0, 10);
	mgr("a renew", a, "::ffff:10.201.0.2", A_RENEW, 0x11020, 0, 0, 10);
	mgr("b put", b, "::ffff:10.201.0.2", A_PUT, 0x11020, 0, 0, 0);
	mgr("a put", a, "::", A_PUT, 0x11020, 0, 0, 0);
}

static int state_ranges(void)
{
	FILE *f = fopen("/proc/sys/net/ipv6/flowlabel_state_ranges", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void stateless(int a)
{
	out("## labels 0x80000 and up (flowlabel_state_ranges=%d)",
	    state_ranges());
	mgr("a get", a, CONF6_PEER, A_GET, 0x180000, S_ANY, CX, 0);
	mgr("a get", a, "::", A_GET, 0x80000, S_ANY, CX, 0);
	mgr("a get", a, CONF6_PEER, A_GET, 0x7ffff, S_ANY, CX, 0);
	mgr("a get", a, CONF6_PEER, A_GET, 0x80000, S_ANY, CX, 0);
	mgr("a get", a, CONF6_PEER, A_GET, 0xfffff, S_ANY, 0, 0);
	mgr("a renew", a, CONF6_PEER, A_RENEW, 0x80000, 0, 0, 10);
	mgr("a renew", a, CONF6_PEER, A_RENEW, 0x80001, 0, 0, 10);
	mgr("a put", a, CONF6_PEER, A_PUT, 0x80000, 0, 0, 0);
	mgr("a put", a, CONF6_PEER, A_PUT, 0x80001, 0, 0, 0);
	mgr("a put", a, CONF6_PEER, A_PUT, 0x7ffff, 0, 0, 0);
}

/* Leases created by c (the first half) and d; a joins them all. */
static void joins(int a, int c, int d)
{
	int created = 0, joined = 0, again = 0, put = 0, first = 0;

	out("## one socket joins %d shared leases", NJOIN);
	for (int i = 0; i < NJOIN; i++)
		created += mgr_rc(i < NJOIN / 2 ? c : d, CONF6_PEER, A_GET,
				  JBASE + i, S_ANY, CX, 0) == 0;
	for (int i = 0; i < NJOIN; i++) {
		int e = mgr_rc(a, CONF6_PEER, A_GET, JBASE + i, S_ANY, 0, 0);

		joined += e == 0;
		if (e && !first) {
			first = 1;
			out("a join %d: %s", i + 1, conf_errname(e));
		}
	}
	out("created %d, a joined %d", created, joined);
	for (int i = 0; i < NJOIN; i++)
		again += mgr_rc(a, CONF6_PEER, A_GET, JBASE + i, S_ANY, 0,
				0) == 0;
	out("a joined each again: %d", again);
	mgr("a create more", a, CONF6_PEER, A_GET, JBASE + NJOIN, S_ANY, CX, 0);
	for (int i = 0; i < NJOIN; i++)
		for (int k = 0; k < 3; k++)
			put += mgr_rc(a, CONF6_PEER, A_PUT, JBASE + i, 0, 0,
				      0) == 0;
	out("a put %d", put);
	mgr("a put once more", a, CONF6_PEER, A_PUT, JBASE, 0, 0, 0);
}

int main(void)
{
	int a = conf_socket6(), b = conf_socket6();
	int c = conf_socket6(), d = conf_socket6();

	destinations(a, b);
	stateless(a);
	joins(a, c, d);
	pingsock_close(a);
	pingsock_close(b);
	pingsock_close(c);
	pingsock_close(d);
	return 0;
}
