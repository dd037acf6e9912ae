/* SPDX-License-Identifier: ISC */
/*
 * filter - the seccomp filter the daemon runs under after its privilege
 * drop: only the system calls of the event loop, checked by their
 * arguments where they matter (new sockets of four harmless kinds, the
 * ping socket kinds only in broker mode, setsockopt() of the options the
 * loop sets, files only through the kept directory handles, memory never
 * executable).  Any other call is said (trap.h) and kills the daemon with
 * SIGSYS.  Checked: Seccomp: 2 or start-up fails.
 */
#ifndef PSD_FILTER_H
#define PSD_FILTER_H

#include <stdbool.h>
#include <stddef.h>

struct filter_plan {
	bool ping_sockets;	/* broker mode: makes kernel ping sockets */
	bool bpf_maps;		/* guard.h: its maps read and written */
	bool threads;		/* the filter goes on every thread (TSYNC) */
	int config_dir;		/* read only through it (-1: none) */
	int socket_dir;		/* remove only through it (-1: none) */
};

/* After privdrop_apply() (no_new_privs).  0, or -1 with err filled. */
int filter_apply(const struct filter_plan *plan, char *err, size_t errlen);

#endif
