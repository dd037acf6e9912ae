/* SPDX-License-Identifier: ISC */
/*
 * The daemon's event loop groups (loop.h) and users' shares (share.h):
 * a group of one is watched as a plain descriptor, the second member
 * moves both into the group's own epoll, a turn serves at most a quantum
 * of a group's ready members, so another group's member is served in the
 * same turn however many the first has ready, and a group freed by one
 * of its own handlers goes once they are done.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "daemon/loop.h"
#include "daemon/share.h"

#define MEMBERS 40
#define QUANTUM 16		/* loop.c's LOOP_GROUP_QUANTUM */

static unsigned serial;	/* members served, in all */

struct member {
	struct loop_handler h;
	int fd, peer;
	unsigned served;
	unsigned order;		/* when it was last served (serial) */
	unsigned spin_us;	/* the handler takes that long */
	struct loop_group *g;	/* freed by this member's handler if set */
	struct loop_group **gfree;
};

static void on_member(void *data, uint32_t events)
{
	struct member *m = data;
	char b[8];

	(void)events;
	m->served++;
	m->order = ++serial;
	if (m->spin_us) {
		uint64_t end = loop_now_ns() + m->spin_us * 1000u;

		while (loop_now_ns() < end)
			;
	}
	if (read(m->fd, b, sizeof(b)) < 0)
		return;
	if (m->gfree) {
		loop_group_forget(*m->gfree, m->fd, &m->h);
		loop_group_free(*m->gfree);
		*m->gfree = NULL;
	}
}

static int member_open(struct member *m)
{
	int p[2];

	memset(m, 0, sizeof(*m));
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, p))
		return -1;
	m->fd = p[0];
	m->peer = p[1];
	m->h.proc = on_member;
	m->h.data = m;
	return 0;
}

static void member_close(struct member *m)
{
	close(m->fd);
	close(m->peer);
}

static void poke(struct member *m)
{
	(void)!write(m->peer, "x", 1);
}

/* Descriptors open now: the group's own epoll shows up as one more. */
static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static void solo_then_split(void)
{
	struct loop *l = loop_new();
	struct loop_group *g = loop_group_new(l);
	struct member a, b;
	int base;

	CHECK(l && g);
	CHECK_EQ(member_open(&a), 0);
	CHECK_EQ(member_open(&b), 0);
	base = open_fds();
	CHECK_EQ(loop_group_watch(g, a.fd, EPOLLIN, &a.h), 0);
	CHECK_EQ(open_fds(), base);		/* solo: no epoll of its own */
	poke(&a);
	CHECK_EQ(loop_turn(l, 100), 0);
	CHECK_EQ(a.served, 1);
	/* Not watched for anything while parked (client.c does so). */
	CHECK_EQ(loop_group_change(g, a.fd, 0, &a.h), 0);
	poke(&a);
	CHECK_EQ(loop_group_watch(g, b.fd, EPOLLIN, &b.h), 0);
	CHECK_EQ(open_fds(), base + 1);		/* split: its epoll */
	poke(&b);
	CHECK_EQ(loop_turn(l, 100), 0);
	CHECK_EQ(a.served, 1);			/* still parked after the move */
	CHECK_EQ(b.served, 1);
	CHECK_EQ(loop_group_change(g, a.fd, EPOLLIN, &a.h), 0);
	CHECK_EQ(loop_turn(l, 100), 0);
	CHECK_EQ(a.served, 2);
	loop_group_forget(g, a.fd, &a.h);
	loop_group_forget(g, b.fd, &b.h);
	loop_group_free(g);
	CHECK_EQ(open_fds(), base);
	member_close(&a);
	member_close(&b);
	loop_free(l);
}

/* Two groups: gb with MEMBERS members, each handler taking spin_us and
 * ready (poked) if poke_busy, and gl with one, light, not yet ready. */
struct two_groups {
	struct loop *l;
	struct loop_group *gb, *gl;
	struct member busy[MEMBERS];
	struct member light;
};

static void two_groups_open(struct two_groups *t, unsigned spin_us)
{
	t->l = loop_new();
	t->gb = loop_group_new(t->l);
	t->gl = loop_group_new(t->l);
	for (int i = 0; i < MEMBERS; i++) {
		CHECK_EQ(member_open(&t->busy[i]), 0);
		t->busy[i].spin_us = spin_us;
		CHECK_EQ(loop_group_watch(t->gb, t->busy[i].fd, EPOLLIN,
					  &t->busy[i].h), 0);
		poke(&t->busy[i]);
	}
	CHECK_EQ(member_open(&t->light), 0);
	CHECK_EQ(loop_group_watch(t->gl, t->light.fd, EPOLLIN, &t->light.h),
		 0);
}

static unsigned busy_served(const struct two_groups *t)
{
	unsigned total = 0;

	for (int i = 0; i < MEMBERS; i++)
		total += t->busy[i].served;
	return total;
}

static void two_groups_close(struct two_groups *t)
{
	for (int i = 0; i < MEMBERS; i++) {
		loop_group_forget(t->gb, t->busy[i].fd, &t->busy[i].h);
		member_close(&t->busy[i]);
	}
	loop_group_forget(t->gl, t->light.fd, &t->light.h);
	member_close(&t->light);
	loop_group_free(t->gb);
	loop_group_free(t->gl);
	loop_free(t->l);
}

/* One group with MEMBERS ready, another with one: both served in the
 * first turn, the first only a quantum. */
static void quantum_per_turn(void)
{
	static struct two_groups t;

	two_groups_open(&t, 0);
	poke(&t.light);
	CHECK_EQ(loop_turn(t.l, 100), 0);
	/* A quantum, or fewer if the machine made them take 200 us. */
	CHECK(busy_served(&t) >= 1 && busy_served(&t) <= QUANTUM);
	CHECK_EQ(t.light.served, 1);
	for (int n = 0; n < MEMBERS && busy_served(&t) < MEMBERS; n++)
		CHECK_EQ(loop_turn(t.l, 100), 0);
	CHECK_EQ(busy_served(&t), MEMBERS);	/* the rest on later turns */
	two_groups_close(&t);
}

/*
 * Members whose requests take 100 us each: once the loop has seen what
 * they cost, a turn serves the group for about 200 us (loop.c's
 * LOOP_GROUP_BUDGET_NS), not a quantum of them, and the other group in
 * the same turn.  (With a count alone one user's costly requests, a
 * quantum of them, held everyone's turn for ms.)
 */
static void budget_per_turn(void)
{
	static struct two_groups t;
	unsigned total = 0;

	two_groups_open(&t, 100);
	/* Two turns to learn the cost (16, then 4 or fewer), then one. */
	for (int n = 0; n < 3; n++) {
		unsigned before = total;

		poke(&t.light);
		CHECK_EQ(loop_turn(t.l, 100), 0);
		total = busy_served(&t);
		CHECK_EQ(t.light.served, (unsigned)n + 1);
		if (n == 2)
			CHECK(total - before >= 1 && total - before <= 3);
	}
	two_groups_close(&t);
}

/*
 * Members that were cheap and turn dear (100 us each): the turn still
 * ends at about 200 us, not at what their past cost forecast (a quantum
 * of them, 1.6 ms: a user whose last requests were cheap had 16 dear
 * ones served in one turn, 1 ms measured against the daemon).
 */
static void budget_not_forecast(void)
{
	static struct two_groups t;
	unsigned before;

	two_groups_open(&t, 0);
	CHECK_EQ(loop_turn(t.l, 100), 0);	/* 16 cheap ones (or fewer) */
	CHECK(busy_served(&t) >= 1 && busy_served(&t) <= QUANTUM);
	for (int i = 0; i < MEMBERS; i++)
		t.busy[i].spin_us = 100;
	before = busy_served(&t);
	poke(&t.light);
	CHECK_EQ(loop_turn(t.l, 100), 0);
	CHECK(busy_served(&t) - before >= 1 && busy_served(&t) - before <= 3);
	CHECK_EQ(t.light.served, 1);
	two_groups_close(&t);
}

/*
 * Members taken from the group's epoll but left for the budget are
 * served first on the next turns, in the order they were taken (before
 * the members ready behind them); one forgotten meanwhile never is (its
 * handler may be gone).
 */
static void left_served_first_forgotten_never(void)
{
	static struct two_groups t;
	struct member *x = &t.busy[QUANTUM / 2];
	unsigned first_max = 0, rest_min = UINT32_MAX;

	two_groups_open(&t, 100);
	CHECK_EQ(loop_turn(t.l, 100), 0);
	CHECK(busy_served(&t) >= 1 && busy_served(&t) <= 3);
	CHECK_EQ(x->served, 0);			/* taken, left */
	loop_group_forget(t.gb, x->fd, &x->h);
	for (int n = 0; n < 60 && busy_served(&t) < MEMBERS - 1; n++)
		CHECK_EQ(loop_turn(t.l, 100), 0);
	CHECK_EQ(busy_served(&t), MEMBERS - 1);
	CHECK_EQ(x->served, 0);
	for (int i = 0; i < MEMBERS; i++) {
		unsigned o = t.busy[i].order;

		if (i < QUANTUM && o > first_max)
			first_max = o;
		if (i >= QUANTUM && o < rest_min)
			rest_min = o;
	}
	CHECK(first_max < rest_min);
	/* Watched again, so that closing forgets it as it does the rest. */
	CHECK_EQ(loop_group_watch(t.gb, x->fd, EPOLLIN, &x->h), 0);
	two_groups_close(&t);
}

/* Members left for the budget and then forgotten, all of them: the
 * next turn takes the group's ready members at once, not an empty turn
 * first. */
static void cleared_left_cost_no_turn(void)
{
	static struct two_groups t;
	unsigned before;

	two_groups_open(&t, 100);
	CHECK_EQ(loop_turn(t.l, 100), 0);
	before = busy_served(&t);
	CHECK(before >= 1 && before <= 3);
	for (int i = 0; i < QUANTUM; i++)
		if (!t.busy[i].served)
			loop_group_forget(t.gb, t.busy[i].fd, &t.busy[i].h);
	CHECK_EQ(loop_turn(t.l, 100), 0);
	CHECK(busy_served(&t) > before);
	CHECK(t.busy[QUANTUM].served == 1);
	for (int i = 0; i < QUANTUM; i++)
		if (!t.busy[i].served)
			CHECK_EQ(loop_group_watch(t.gb, t.busy[i].fd, EPOLLIN,
						  &t.busy[i].h), 0);
	two_groups_close(&t);
}

static unsigned fired;

static void on_timer(void *data)
{
	uint64_t end = loop_now_ns() + 10000;	/* 10 us */

	(void)data;
	fired++;
	while (loop_now_ns() < end)
		;
}

/* 100 timers due at once, 10 us each: a turn fires about 200 us of
 * them (loop.c's LOOP_TIMERS_BUDGET_NS), the next turns the rest, in
 * their order.  (All 100 in one turn before: a user's 4,096 waiting
 * sends due together held the loop 10 ms.) */
static void timers_budgeted(void)
{
	static struct loop_timer t[100];
	struct loop *l = loop_new();
	uint64_t now = loop_now_ns();

	fired = 0;
	for (int i = 0; i < 100; i++) {
		t[i].proc = on_timer;
		CHECK_EQ(loop_at(l, &t[i], now + (uint64_t)i), 0);
	}
	CHECK_EQ(loop_turn(l, 100), 0);
	CHECK(fired >= 1 && fired <= 21);
	for (int n = 0; n < 100 && fired < 100; n++)
		CHECK_EQ(loop_turn(l, 100), 0);
	CHECK_EQ(fired, 100);
	for (int i = 0; i < 100; i++)
		CHECK(!loop_pending(&t[i]));
	loop_free(l);
}

/* A member's handler frees its own (split) group: the group goes after
 * the turn, and the other ready member of the batch is still served. */
static void freed_by_its_handler(void)
{
	struct loop *l = loop_new();
	struct loop_group *g = loop_group_new(l);
	struct member a, b;

	CHECK_EQ(member_open(&a), 0);
	CHECK_EQ(member_open(&b), 0);
	CHECK_EQ(loop_group_watch(g, a.fd, EPOLLIN, &a.h), 0);
	CHECK_EQ(loop_group_watch(g, b.fd, EPOLLIN, &b.h), 0);
	loop_group_forget(g, b.fd, &b.h);
	a.gfree = &g;
	poke(&a);
	poke(&b);			/* forgotten: not served */
	CHECK_EQ(loop_turn(l, 100), 0);
	CHECK_EQ(a.served, 1);
	CHECK_EQ(b.served, 0);
	CHECK(g == NULL);
	member_close(&a);
	member_close(&b);
	loop_free(l);
}

/* share.h: one group a user, made on the first get, gone on the last
 * put. */
static void shares_by_uid(void)
{
	struct loop *l = loop_new();
	struct shares *t = shares_new(l);
	bool made;
	struct loop_group *a1 = share_get(t, 1000, &made);

	CHECK(a1 && made);
	CHECK(share_get(t, 1000, &made) == a1 && !made);
	CHECK(share_get(t, 1256, &made) != a1 && made);	/* same bucket */
	CHECK(!share_put(t, 1000));
	CHECK(share_put(t, 1000));
	CHECK(share_put(t, 1256));
	CHECK(!share_put(t, 1000));		/* none left: nothing */
	CHECK(share_get(t, 1000, &made) && made);
	shares_free(t);				/* frees what is left */
	loop_free(l);
}

int main(void)
{
	TEST(solo_then_split);
	TEST(quantum_per_turn);
	TEST(budget_per_turn);
	TEST(budget_not_forecast);
	TEST(left_served_first_forgotten_never);
	TEST(cleared_left_cost_no_turn);
	TEST(timers_budgeted);
	TEST(freed_by_its_handler);
	TEST(shares_by_uid);
	return check_failed_total != 0;
}
