/* SPDX-License-Identifier: ISC */
/*
 * bpfload - a BPF object of the daemon's own (embedded bytes, guardelf.c)
 * opened and loaded with its maps pinned in a directory of a BPF file
 * system: maps already pinned there (by the last daemon, or by another
 * object of this one) are reused, so that two objects and two daemons
 * share them.  Used by guard.c and guardnf.c.
 */
#ifndef PSD_BPFLOAD_H
#define PSD_BPFLOAD_H

#include <stddef.h>

struct bpf_object;

/*
 * Open elf (len bytes) as the object name, pin its maps as dir/MAP and
 * load it; prog_type, if not 0, is given to every program first (a type
 * this libbpf may not know by section name), with attach_type.  The maps
 * named in reuse are those descriptors instead, never pinned (nor
 * unpinned) here.  Pinned maps that no longer fit (another build's
 * layout) are replaced, once, with a log line.  NULL with err filled.
 */
/* A map of the object that is another object's, by descriptor. */
struct bpfload_reuse {
	const char *map;
	int fd;
};

struct bpf_object *bpfload_open(const void *elf, size_t len, const char *name,
				const char *dir, int prog_type, int attach_type,
				const struct bpfload_reuse *reuse,
				size_t nreuse, char *err, size_t errlen);

#endif
