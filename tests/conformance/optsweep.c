/* SPDX-License-Identifier: ISC */
/*
 * optsweep: every socket option number at SOL_SOCKET, SOL_IP, SOL_IPV6
 * and SOL_ICMPV6, on a fresh ping socket of each family, read and written
 * with the lengths and values that tell the kernel's option code paths
 * apart: getsockopt with optlen 0, 1, 4 and 64; setsockopt of the ints
 * 0, 1 and -1, of nothing (optlen 0), of one byte, and of 64 bytes of
 * zeros and of ones, each successful one read back.
 *
 * The numbers are 0 to 99 at each level (every option the kernel headers
 * define there is below 100, save the multicast routing ones), and the
 * ranges that other kernel code claims at SOL_IP and SOL_IPV6:
 * netfilter's 64-71, 96-99 and 128-131 (ip_tables, arp_tables, ebtables),
 * multicast routing's 200-213 and IPVS' 1152-1160.  What such a range
 * answers (EPERM, ENOPROTOOPT) depends on the modules the host has
 * loaded, and is the same for both runs of a case.
 *
 * What differs between two sockets by nature is not printed: the socket
 * cookie and the namespace cookie (SO_COOKIE, SO_NETNS_COOKIE) are
 * printed as "cookie", and SO_MEMINFO's words that depend on the
 * allocator as "meminfo".
 */
// needs: peer
#include "conf.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
#ifndef SO_MEMINFO
#define SO_MEMINFO 55
#endif

#define SW_BUF 64

struct sw_range {
	int lo, hi;
};

struct sw_level {
	int level;
	const char *name;
	const struct sw_range *ranges;
	size_t nranges;
};

static const struct sw_range sw_all[] = {
	{ 0, 99 }, { 128, 131 }, { 200, 213 }, { 1152, 1160 }, { 9999, 9999 },
};

static const struct sw_range sw_icmpv6[] = { { 0, 9 } };

static const struct sw_level sw_levels[] = {
	{ SOL_SOCKET, "SOL_SOCKET", sw_all, 1 },
	{ SOL_IP, "SOL_IP", sw_all, sizeof(sw_all) / sizeof(sw_all[0]) },
	{ SOL_IPV6, "SOL_IPV6", sw_all, sizeof(sw_all) / sizeof(sw_all[0]) },
	{ SOL_ICMPV6, "SOL_ICMPV6", sw_icmpv6, 1 },
};

/* The bytes of a successful getsockopt, with what varies by nature
 * replaced. */
static void sw_show(const char *what, int level, int name, const uint8_t *b,
		    socklen_t len)
{
	char hex[2 * SW_BUF + 4];

	if (level == SOL_SOCKET &&
	    (name == SO_COOKIE || name == SO_NETNS_COOKIE)) {
		out("%s: 0 optlen=%u cookie", what, (unsigned)len);
		return;
	}
	if (level == SOL_SOCKET && name == SO_MEMINFO) {
		out("%s: 0 optlen=%u meminfo", what, (unsigned)len);
		return;
	}
	conf_hex(hex, sizeof(hex), b, len <= SW_BUF ? len : 0);
	out("%s: 0 optlen=%u bytes=%s", what, (unsigned)len, hex);
}

static void sw_get(int fd, int level, int name, const char *lname,
		   socklen_t len)
{
	uint8_t buf[SW_BUF];
	socklen_t l = len;
	const char *what = L("%s %d get %u", lname, name, (unsigned)len);

	memset(buf, 0xaa, sizeof(buf));
	if (pingsock_getsockopt(fd, level, name, buf, &l) < 0) {
		out("%s: -1 %s", what, conf_errname(errno));
		return;
	}
	sw_show(what, level, name, buf, l);
}

/* One setsockopt, and the option read back if it was taken. */
static void sw_set(int fd, int level, int name, const char *lname,
		   const char *vname, const void *val, socklen_t len)
{
	const char *what = L("%s %d set %s", lname, name, vname);

	if (TRY(what, pingsock_setsockopt(fd, level, name, val, len)) == 0)
		sw_get(fd, level, name, lname, SW_BUF);
}

static void sw_sets(int fd, int level, int name, const char *lname)
{
	static const int ints[] = { 0, 1, -1 };
	uint8_t bytes[SW_BUF];
	unsigned char one = 1;

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		sw_set(fd, level, name, lname, L("int %d", ints[i]), &ints[i],
		       sizeof(int));
	sw_set(fd, level, name, lname, "optlen 0", NULL, 0);
	sw_set(fd, level, name, lname, "byte 1", &one, 1);
	memset(bytes, 0, sizeof(bytes));
	sw_set(fd, level, name, lname, "64 zeros", bytes, sizeof(bytes));
	memset(bytes, 1, sizeof(bytes));
	sw_set(fd, level, name, lname, "64 ones", bytes, sizeof(bytes));
}

/* One option number on a fresh socket: its reads, then its writes. */
static void sw_one(const struct conf_fam *f, const struct sw_level *lv,
		   int name)
{
	static const socklen_t lens[] = { 0, 1, 4, SW_BUF };
	int fd = pingsock_socket(f->af, SOCK_DGRAM, f->proto);

	if (fd < 0) {
		out("%s %s %d socket: -1 %s", f->af_name, lv->name, name,
		    conf_errname(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		sw_get(fd, lv->level, name, lv->name, lens[i]);
	sw_sets(fd, lv->level, name, lv->name);
	pingsock_close(fd);
}

static void sw_family(const struct conf_fam *f)
{
	for (size_t l = 0; l < sizeof(sw_levels) / sizeof(sw_levels[0]);
	     l++) {
		const struct sw_level *lv = &sw_levels[l];

		out("## %s %s", f->af_name, lv->name);
		for (size_t r = 0; r < lv->nranges; r++)
			for (int n = lv->ranges[r].lo; n <= lv->ranges[r].hi;
			     n++)
				sw_one(f, lv, n);
	}
}

int main(void)
{
	conf_begin("optsweep");
	sw_family(&conf_v4);
	sw_family(&conf_v6);
	return 0;
}
