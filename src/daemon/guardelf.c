/* SPDX-License-Identifier: ISC */
/*
 * guardelf - the BPF object of src/bpf/guard.bpf.c, as the Makefile
 * embeds it (bpftool gen skeleton), and of guard_nf.bpf.c.  Only its bytes are taken: guard.c
 * opens them with libbpf and finds maps and programs by name.
 */
#include "daemon/guard.h"

#include "guard.skel.h"
#include "guard_nf.skel.h"

const void *guard_elf(size_t *len)
{
	return guard_bpf__elf_bytes(len);
}

const void *guard_nf_elf(size_t *len)
{
	return guard_nf_bpf__elf_bytes(len);
}
