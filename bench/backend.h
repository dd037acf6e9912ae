/* SPDX-License-Identifier: ISC */
/*
 * backend.h - the name the bench programs print for a socket's backend
 * ("backend=..."), which bench/run checks against the one it asked for.
 */
#ifndef PS_BENCH_BACKEND_H
#define PS_BENCH_BACKEND_H

#include "pingsock.h"

static inline const char *backend_name(int fd)
{
	switch (pingsock_backend(fd)) {
	case PINGSOCK_BACKEND_KERNEL:
		return "kernel";
	case PINGSOCK_BACKEND_DAEMON:
		return "daemon";
	case PINGSOCK_BACKEND_BROKER:
		return "broker";
	default:
		return "none";
	}
}

#endif
