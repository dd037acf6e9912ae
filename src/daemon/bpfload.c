/* SPDX-License-Identifier: ISC */
#include "daemon/bpfload.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "daemon/log.h"

static int reused_fd(const struct bpf_map *m, const struct bpfload_reuse *r,
		     size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(bpf_map__name(m), r[i].map) == 0)
			return r[i].fd;
	return -1;
}

/* Every map pinned as dir/NAME (reused if there), or another object's. */
static int set_pins(struct bpf_object *obj, const char *dir,
		    const struct bpfload_reuse *r, size_t n)
{
	struct bpf_map *m;
	char path[PATH_MAX];

	bpf_object__for_each_map(m, obj) {
		int fd = reused_fd(m, r, n), rc;

		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(m));
		rc = fd >= 0 ? bpf_map__reuse_fd(m, fd)
			     : bpf_map__set_pin_path(m, path);
		if (rc)
			return rc;
	}
	return 0;
}

static void unpin_all(struct bpf_object *obj)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj)
		if (bpf_map__pin_path(m))
			unlink(bpf_map__pin_path(m));
}

static void set_types(struct bpf_object *obj, int prog_type, int attach_type)
{
	struct bpf_program *p;

	if (!prog_type)
		return;
	bpf_object__for_each_program(p, obj) {
		bpf_program__set_type(p, (enum bpf_prog_type)prog_type);
		bpf_program__set_expected_attach_type(
			p, (enum bpf_attach_type)attach_type);
	}
}

struct bpf_object *bpfload_open(const void *elf, size_t len, const char *name,
				const char *dir, int prog_type, int attach_type,
				const struct bpfload_reuse *reuse,
				size_t nreuse, char *err, size_t errlen)
{
	struct bpf_object_open_opts opts = { .sz = sizeof(opts),
					     .object_name = name };

	for (int attempt = 0; attempt < 2; attempt++) {
		struct bpf_object *obj = bpf_object__open_mem(elf, len, &opts);
		int rc;

		if (!obj) {
			snprintf(err, errlen, "BPF object %s: %s", name,
				 strerror(errno));
			return NULL;
		}
		set_types(obj, prog_type, attach_type);
		rc = set_pins(obj, dir, reuse, nreuse);
		if (rc == 0)
			rc = bpf_object__load(obj);
		if (rc == 0)
			return obj;
		snprintf(err, errlen, "loading the BPF object %s: %s", name,
			 strerror(rc < -1 ? -rc : errno));
		if (attempt == 0) {
			log_warn("broker: %s; its pinned maps in %s are "
				 "replaced", err, dir);
			unpin_all(obj);
		}
		bpf_object__close(obj);
	}
	return NULL;
}
