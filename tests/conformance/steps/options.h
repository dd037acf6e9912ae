/* SPDX-License-Identifier: ISC */
/*
 * steps/options.h - the steps of options.c and options6.c, for either
 * family: the hop limit option (IP_TTL, IPV6_UNICAST_HOPS) round trips,
 * its limits and optlen handling.
 */
#ifndef STEPS_OPTIONS_H
#define STEPS_OPTIONS_H

#include "../conf.h"

/* Values round-tripped, then 5 set with optlen 1. */
static void options_hops_head(const struct conf_fam *f, int fd)
{
	static const int v[] = { 10, 255, 1, 0, 256, -2, -1 };
	const struct conf_opt *o = &f->hops;

	out("## %s", o->label);
	conf_set_get_each(o->label, fd, o->level, o->name, v,
			  sizeof(v) / sizeof(v[0]));
	conf_set_optlen(o->label, fd, o->level, o->name, 5, 1);
}

/* The value read back, with each of n optlens, then -1 (the default). */
static void options_hops_tail(const struct conf_fam *f, int fd,
			      const int *lens, size_t n)
{
	const struct conf_opt *o = &f->hops;

	conf_getint(L("%s get", o->label), fd, o->level, o->name,
		    sizeof(int));
	conf_get_optlens(o->label, fd, o->level, o->name, lens, n);
	conf_set_get(o->label, fd, o->level, o->name, -1);
}

/* The extended-error option (IP_RECVERR, IPV6_RECVERR): 1 (and read
 * with optlen 1), 5, 0. */
static void options_recverr(const struct conf_fam *f, int fd)
{
	const struct conf_opt *o = &f->recverr;

	conf_set_get(o->label, fd, o->level, o->name, 1);
	conf_getint(L("%s get optlen 1", o->label), fd, o->level, o->name, 1);
	conf_set_get(o->label, fd, o->level, o->name, 5);
	conf_set_get(o->label, fd, o->level, o->name, 0);
}

#endif
