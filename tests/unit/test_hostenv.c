/* SPDX-License-Identifier: ISC */
/*
 * test_hostenv - the host's addresses are read once for many questions
 * (src/daemon/hostenv.c host_addrs()): a send with 25 IPV6_PKTINFO
 * messages asks local6() 25 times, and each getifaddrs() is a netlink
 * dump of every link and address.  getifaddrs() is counted here: this
 * binary's definition comes before the C library's.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "daemon/hostenv.h"
#include "engine/psock.h"
#include "check.h"

static unsigned reads;
static bool slow;	/* each read takes 1.2 ms, as on a host of many */

int getifaddrs(struct ifaddrs **ifap)
{
	int (*real)(struct ifaddrs **) =
		(int (*)(struct ifaddrs **))dlsym(RTLD_NEXT, "getifaddrs");
	struct timespec t = { 0, 1200000 };

	reads++;
	if (slow)
		nanosleep(&t, NULL);
	return real ? real(ifap) : -1;
}

static struct ps_addr loopback6(void)
{
	struct ps_addr a = { .family = AF_INET6 };

	a.a[15] = 1;
	return a;
}

/* n questions of local6() (and of addr_dev(), with both): the reads
 * they made, or -1 without a host environment. */
static int ask(int n, bool both, bool slow_reads)
{
	char err[256];
	struct hostenv *h = hostenv_open(err, sizeof(err));
	const struct ps_env *env = h ? hostenv_env(h) : NULL;
	struct ps_addr a = loopback6();
	unsigned before = reads;

	if (!h)
		return -1;
	slow = slow_reads;
	for (int i = 0; i < n; i++) {
		(void)env->local6(env->ctx, &a, 0, true);
		if (both)
			(void)env->addr_dev(env->ctx, &a);
	}
	slow = false;
	hostenv_close(h);
	return (int)(reads - before);
}

/* 25 questions of each kind in a row (a send's worth): one read (50
 * before; on a busy host 25 questions may take over 1 ms, hence 5). */
static void one_read_for_many(void)
{
	int n = ask(25, true, false);

	CHECK(n >= 1 && n <= 5);
}

/* A read that takes longer than the time a list is kept: still one
 * (its age counts from when it was read, not from when it was asked;
 * 25 before). */
static void slow_read_kept(void)
{
	int n = ask(25, false, true);

	CHECK(n >= 1 && n <= 5);
}

/* And read again once the last read is older than a millisecond. */
static void read_again_later(void)
{
	char err[256];
	struct hostenv *h = hostenv_open(err, sizeof(err));
	const struct ps_env *env = h ? hostenv_env(h) : NULL;
	struct ps_addr a = loopback6();
	struct timespec ms2 = { 0, 2000000 };
	unsigned before;

	CHECK(h != NULL);
	if (!h)
		return;
	(void)env->local6(env->ctx, &a, 0, true);
	before = reads;
	nanosleep(&ms2, NULL);
	(void)env->local6(env->ctx, &a, 0, true);
	CHECK_EQ(reads, before + 1);
	hostenv_close(h);
}

int main(void)
{
	TEST(one_read_for_many);
	TEST(slow_read_kept);
	TEST(read_again_later);
	return CHECK_DONE();
}
