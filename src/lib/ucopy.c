/* SPDX-License-Identifier: ISC */
#include "lib/ucopy.h"

#include <errno.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/*
 * The main thread's stack, from the current frame up to where the
 * program's frames begin (__libc_stack_end): memory the program has, and
 * can write, while the thread runs on it, so a structure a caller keeps
 * there (where a msghdr, its iovecs, a name and a control buffer usually
 * are: iputils ping's, for one) is copied directly, without the system
 * calls.  Running on it means: the current frame less than STACK_NEAR
 * below that start.  Nothing else is mapped that close below the main
 * stack (the kernel keeps the mmap area max(RLIMIT_STACK, 128 MiB) and
 * the stack's randomisation below it), so another thread's stack, a
 * signal stack or a coroutine's is never taken for it: there every copy
 * is the system call.  (Linux stacks grow down, but on PA-RISC.)
 */
extern void *__libc_stack_end __attribute__((weak));
#define STACK_NEAR ((uintptr_t)64 << 20)

static bool on_main_stack(const void *user, size_t len)
{
	uintptr_t top = &__libc_stack_end ? (uintptr_t)__libc_stack_end : 0;
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	uintptr_t a = (uintptr_t)user;

#if defined(__hppa__)
	return false;
#endif
	return top && here < top && top - here < STACK_NEAR && a >= here &&
	       a < top && len <= top - a;
}

/*
 * Another thread's stack: glibc (and musl) keep a thread's descriptor,
 * which pthread_self() gives, at the top of the memory its stack grows
 * down from (a stack the program gave pthread_create() too), so all
 * from the current frame up to it is that stack and the thread's static
 * TLS: there, and writable.  Only when the frame is close below it
 * (THREAD_NEAR, past any default thread stack); the main thread's
 * descriptor is not on its stack.  A thread made without pthread_create()
 * whose thread pointer is a little above its stack, with memory that is
 * not there in between, would crash on a bad pointer there, as before
 * this module; a signal stack or a coroutine's stack far from it takes
 * the system call.
 */
#define THREAD_NEAR ((uintptr_t)16 << 20)

static bool on_thread_stack(const void *user, size_t len)
{
	uintptr_t top = (uintptr_t)pthread_self();
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	uintptr_t a = (uintptr_t)user;

	return here < top && top - here < THREAD_NEAR && a >= here &&
	       a < top && len <= top - a;
}

static bool direct(const void *user, size_t len)
{
	return on_main_stack(user, len) || on_thread_stack(user, len);
}

/* What process_vm_readv()/writev() on the process did last: 1 worked,
 * -1 refused, 0 not tried yet. */
static _Atomic int vm_state;

/* Refused by a seccomp filter (or an old kernel): copy directly. */
static bool refused(ssize_t n)
{
	bool no = n < 0 && (errno == EPERM || errno == ENOSYS);
	int now = no ? -1 : 1;

	/* Written only when it changes: a store on every copy would take
	 * the cache line from every other thread's reads. */
	if (atomic_load_explicit(&vm_state, memory_order_relaxed) != now)
		atomic_store(&vm_state, now);
	return no;
}

bool ucopy_checked(void)
{
	return vm_state > 0;
}

/* The pieces' bytes in all. */
static size_t total(const struct iovec *v, int n)
{
	size_t t = 0;

	for (int i = 0; i < n; i++)
		t += v[i].iov_len;
	return t;
}

static bool all_direct(const struct iovec *user, int n)
{
	for (int i = 0; i < n; i++)
		if (user[i].iov_len && !direct(user[i].iov_base, user[i].iov_len))
			return false;
	return true;
}

bool ucopy_in(void *ours, const void *user, size_t len)
{
	struct iovec l = { .iov_base = ours, .iov_len = len };
	struct iovec r = { .iov_base = (void *)(uintptr_t)user, // NOLINT(performance-no-int-to-ptr)
			   .iov_len = len };
	int saved = errno;
	ssize_t n;

	if (len == 0)
		return true;
	if (!user)
		return false;
	if (direct(user, len)) {
		memcpy(ours, user, len);
		return true;
	}
	/* The pid each time: a child made without fork()'s handlers
	 * (vfork(), clone()) is another process, and a cached one would
	 * name its parent's memory. */
	n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	if (refused(n)) {
		memcpy(ours, user, len);
		n = (ssize_t)len;
	}
	errno = saved;
	return n == (ssize_t)len;
}

bool ucopy_direct(const void *user, size_t len)
{
	return direct(user, len);
}

int ucopy_inv(const struct iovec *ours, const struct iovec *user, int n)
{
	int saved = errno, whole = 0;
	ssize_t got = process_vm_readv(getpid(), ours, (unsigned long)n, user,
				       (unsigned long)n, 0);
	size_t left;

	if (refused(got)) {
		/* The first piece only, directly: the later ones may be a
		 * guess (umsg.c), memory the program no longer has. */
		errno = saved;
		if (n < 1 || (!user[0].iov_base && user[0].iov_len))
			return 0;
		if (user[0].iov_len)
			memcpy(ours[0].iov_base, user[0].iov_base,
			       user[0].iov_len);
		return 1;
	}
	errno = saved;
	for (left = got > 0 ? (size_t)got : 0;
	     whole < n && ours[whole].iov_len <= left; whole++)
		left -= ours[whole].iov_len;
	return whole;
}

bool ucopy_readable(const void *user, size_t len)
{
	char scratch[4096];

	while (len) {
		size_t n = len < sizeof(scratch) ? len : sizeof(scratch);

		if (!ucopy_in(scratch, user, n))
			return false;
		user = (const char *)user + n;
		len -= n;
	}
	return true;
}

bool ucopy_outv(const struct iovec *ours, const struct iovec *user, int n)
{
	size_t want = total(ours, n);
	int saved = errno;
	ssize_t got;

	if (want == 0)
		return true;
	if (all_direct(user, n)) {
		for (int i = 0; i < n; i++)
			if (user[i].iov_len)
				memcpy(user[i].iov_base, ours[i].iov_base,
				       user[i].iov_len);
		return true;
	}
	got = process_vm_writev(getpid(), ours, (unsigned long)n, user,
				(unsigned long)n, 0);
	if (refused(got)) {
		got = 0;
		for (int i = 0; i < n && (user[i].iov_base || !user[i].iov_len);
		     i++) {
			if (user[i].iov_len)
				memcpy(user[i].iov_base, ours[i].iov_base,
				       user[i].iov_len);
			got += (ssize_t)user[i].iov_len;
		}
	}
	errno = saved;
	return got == (ssize_t)want;
}

bool ucopy_out(void *user, const void *ours, size_t len)
{
	struct iovec l = { .iov_base = (void *)(uintptr_t)ours, // NOLINT(performance-no-int-to-ptr)
			   .iov_len = len };
	struct iovec r = { .iov_base = user, .iov_len = len };

	if (len && !user)
		return false;
	return ucopy_outv(&l, &r, 1);
}
