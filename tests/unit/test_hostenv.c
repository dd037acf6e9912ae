/* SPDX-License-Identifier: ISC */
/*
 * test_hostenv - the host's addresses are read once for many questions
 * (src/daemon/hostenv.c host_addrs()): a send with 25 IPV6_PKTINFO
 * messages asks local6() 25 times, and each getifaddrs() is a netlink
 * dump of every link and address.  getifaddrs() is counted here: this
 * binary's definition comes before the C library's.
 */
#include <dlfcn.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "daemon/hostenv.h"
#include "engine/psock.h"
#include "check.h"

static unsigned reads;

int getifaddrs(struct ifaddrs **ifap)
{
	int (*real)(struct ifaddrs **) =
		(int (*)(struct ifaddrs **))dlsym(RTLD_NEXT, "getifaddrs");

	reads++;
	return real ? real(ifap) : -1;
}

static struct ps_addr loopback6(void)
{
	struct ps_addr a = { .family = AF_INET6 };

	a.a[15] = 1;
	return a;
}

/* 25 questions in a row (one send's worth): one read. */
static void one_read_for_many(void)
{
	char err[256];
	struct hostenv *h = hostenv_open(err, sizeof(err));
	const struct ps_env *env = h ? hostenv_env(h) : NULL;
	struct ps_addr a = loopback6();

	CHECK(h != NULL);
	if (!h)
		return;
	reads = 0;
	for (int i = 0; i < 25; i++) {
		(void)env->local6(env->ctx, &a, 0, true);
		(void)env->addr_dev(env->ctx, &a);
	}
	CHECK(reads >= 1 && reads <= 2);
	hostenv_close(h);
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
	TEST(read_again_later);
	return CHECK_DONE();
}
