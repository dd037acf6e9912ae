/* SPDX-License-Identifier: ISC */
/*
 * ucopy - the program's memory as the kernel's copy_from_user() and
 * copy_to_user() see it.
 *
 * Where the kernel copies a caller's structure across the system call
 * boundary (a struct msghdr, its iovec array, a name, an option's value,
 * a control buffer, a length to write back), memory the program does not
 * have, or cannot write, is EFAULT there, and nothing else happens.  The
 * library reads and writes those structures in the program's own address
 * space, where a plain memcpy() would crash the program instead.  So it
 * copies them with process_vm_readv() and process_vm_writev() on the
 * process itself: memory that is not there is a short count, not a
 * fault.  Where a seccomp filter refuses those calls (EPERM, ENOSYS) the
 * copy is made directly, as before there was this module.
 *
 * Such a copy is a system call (a microsecond or two), but for memory on
 * the calling thread's own stack above the current frame, which is
 * certainly there and writable (ucopy.c): that is where a structure is
 * usually kept, and there the copy is made directly.  A hot
 * path uses them only for what only the library reads: the bytes of a
 * send (data, name, control data) go to pingsockd gathered by the kernel
 * itself, which answers EFAULT for them (call.c), and a receive's data is
 * written by the kernel's recvmsg() on the data descriptor.  Measured
 * (bench/pingbench closedmsg: sendmsg() and recvmsg() as iputils ping
 * makes them, relayed): with the structures off the stack (static, on
 * the heap), three such calls an echo (umsg.c), about 30 % fewer echoes
 * a second than before there were any; on it, as many.
 */
#ifndef PS_LIB_UCOPY_H
#define PS_LIB_UCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

/* copy_from_user(): len bytes at the program's user into ours; false if
 * they are not all there (EFAULT).  errno is left as it was. */
bool ucopy_in(void *ours, const void *user, size_t len);

/* n copy_from_user() in one call, in order: user[i] into ours[i] (the
 * same lengths).  The number of pieces read whole; those after the first
 * that failed are not read, nor any after the first where the system
 * call is refused (they may be a guess). */
int ucopy_inv(const struct iovec *ours, const struct iovec *user, int n);

/* Would a copy of len bytes at the program's user be made directly (the
 * calling thread's own stack: no system call)? */
bool ucopy_direct(const void *user, size_t len);

/* Has a copy through the system calls worked (not refused by a seccomp
 * filter)?  Memory the program may not have is read only then. */
bool ucopy_checked(void);

/* Are len bytes at the program's p all there to read?  (In pieces: a
 * system call for every 4 KiB.) */
bool ucopy_readable(const void *user, size_t len);

/* copy_to_user(): false if the program's memory at user cannot take all
 * len bytes (some may have been written, as the kernel's may). */
bool ucopy_out(void *user, const void *ours, size_t len);

/* n copy_to_user() in one call, in order: ours[i] into user[i] (the same
 * lengths).  True if all were written; if not, each one before the first
 * that failed was (the kernel stops at the first fault too). */
bool ucopy_outv(const struct iovec *ours, const struct iovec *user, int n);

#endif
