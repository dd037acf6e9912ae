/* SPDX-License-Identifier: ISC */
/*
 * flowlabel_ranges: IPV6_FLOWLABEL_MGR with net.ipv6.flowlabel_state_ranges
 * set (flowlabel_checks runs with it off, the default).  A get of a label
 * with bit 0x80000 is ERANGE, after EINVAL for bits past 20 and before
 * fl_create()'s checks (linger EPERM, flr_dst EINVAL); a put or renew is
 * not checked.  pingsockd reads the setting at start, in its namespace:
 * run.sh sets it in the client namespace before the daemon starts.
 */
// needs: router (a namespace of its own, for the sysctl)
// sysctl: net.ipv6.flowlabel_state_ranges=1
#include "conf.h"
#include "flowlabel.h"

#define DST "fd00:77::1"

static void mgr(const char *what, int fd, const char *dst, uint8_t action,
		uint32_t label, uint16_t flags, uint16_t linger)
{
	struct flreq q;
	int rc;

	memset(&q, 0, sizeof(q));
	inet_pton(AF_INET6, dst, &q.dst);
	q.label = htonl(label);
	q.action = action;
	q.share = action == A_GET ? S_ANY : 0;
	q.flags = flags;
	q.linger = linger;
	rc = pingsock_setsockopt(fd, SOL_IPV6, IPV6_FLOWLABEL_MGR, &q,
				 sizeof(q));
	out("%s dst %s label %#x: %s", what, dst, (unsigned)label,
	    rc == 0 ? "0" : conf_errname(errno));
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

int main(void)
{
	int a = conf_socket6();

	out("## flowlabel_state_ranges=%d", state_ranges());
	mgr("a get", a, DST, A_GET, 0x180000, CX, 0);
	mgr("a get", a, DST, A_GET, 0x80000, CX, 0);
	mgr("a get", a, DST, A_GET, 0xfffff, CX, 0);
	mgr("a get lookup", a, DST, A_GET, 0x80001, 0, 0);
	mgr("a get linger 151", a, DST, A_GET, 0x80002, CX, 151);
	mgr("a get", a, "::", A_GET, 0x80003, CX, 0);
	mgr("a get", a, "::", A_GET, 0x7ffff, CX, 0);
	mgr("a get", a, DST, A_GET, 0x7ffff, CX, 0);
	mgr("a get any", a, DST, A_GET, 0, F_CREATE, 0);
	mgr("a renew", a, DST, A_RENEW, 0x80000, 0, 10);
	mgr("a renew", a, DST, A_RENEW, 0x7ffff, 0, 10);
	mgr("a put", a, DST, A_PUT, 0x80000, 0, 0);
	mgr("a put", a, DST, A_PUT, 0x7ffff, 0, 0);
	pingsock_close(a);
	return 0;
}
