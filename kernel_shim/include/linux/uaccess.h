/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User copies.  Test double: "user" memory is the test's own memory (a
 * user pointer is a plain pointer); each copy asks its fault point first
 * ("shim/uaccess/copy_from_user", "shim/uaccess/copy_to_user") and a failed
 * copy reports every byte uncopied, as a fault on the first byte would.
 * A NULL user pointer faults too.  A pointer into a VMA of the calling
 * task's simulated address space is copied through its page tables
 * instead, faulting pages in (kernel_shim/uaccess.c), unless the caller
 * declared it the test's own memory (dmasim_uaccess_host_ranges()); any
 * other pointer is the test's memory if the host maps it, and faults if
 * not.
 * access_ok() is the kernel's range check against the x86-64 user address
 * limit (47 bits less a page), so a range that wraps or reaches the
 * kernel half is refused, as on the real machine.
 */
#ifndef _DMASIM_LINUX_UACCESS_H
#define _DMASIM_LINUX_UACCESS_H

#include <dmasim/sim.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/string.h>
#include <linux/types.h>

/*
 * Copy n bytes between kbuf and uaddr when uaddr lies in a VMA of
 * current's simulated address space: the bytes left uncopied.  -1 when it
 * does not and the host maps it (the test's own memory); n when neither
 * maps it (a fault).
 */
long dmasim_copy_user_sim(void *kbuf, unsigned long uaddr, unsigned long n,
			  bool to_user);
/*
 * Test double: the test's own memory handed to a call as user pointers
 * (an ioctl's argument struct and the bitmap it points to), up to two
 * ranges, for the calling thread; NULL clears.  A copy inside one of them
 * is a plain memcpy even where a simulated VMA covers the same address
 * (the simulated user space spans the host's stack and heap, and a test
 * may place VMAs anywhere in it).
 */
void dmasim_uaccess_host_ranges(const void *a, unsigned long a_len,
				const void *b, unsigned long b_len);

static inline unsigned long __must_check
copy_from_user(void *to, const void __user *from, unsigned long n)
{
	long left;

	if (sim_should_fail(SIM_FP_COPY_FROM_USER) || (!from && n))
		return n;
	left = dmasim_copy_user_sim(to, (unsigned long)from, n, false);
	if (left >= 0)
		return left;
	memcpy(to, (const void __force *)from, n);
	return 0;
}

static inline unsigned long __must_check
copy_to_user(void __user *to, const void *from, unsigned long n)
{
	long left;

	if (sim_should_fail(SIM_FP_COPY_TO_USER) || (!to && n))
		return n;
	left = dmasim_copy_user_sim((void *)from, (unsigned long)to, n, true);
	if (left >= 0)
		return left;
	memcpy((void __force *)to, from, n);
	return 0;
}

static inline unsigned long __must_check
clear_user(void __user *to, unsigned long n)
{
	if (sim_should_fail(SIM_FP_COPY_TO_USER) || (!to && n))
		return n;
	memset((void __force *)to, 0, n);
	return 0;
}

#define get_user(x, ptr) \
	(copy_from_user(&(x), (ptr), sizeof(*(ptr))) ? -EFAULT : 0)
#define put_user(x, ptr) ({						\
	typeof(*(ptr)) __pu_val = (x);					\
	copy_to_user((ptr), &__pu_val, sizeof(*(ptr))) ? -EFAULT : 0;	\
})

static inline bool access_ok(const void __user *addr, unsigned long size)
{
	unsigned long limit = (1UL << 47) - SIM_PAGE_SIZE;

	return size <= limit && (unsigned long)addr <= limit - size;
}

/*
 * A NUL-terminated user string of at most n bytes (the NUL counted), in
 * kmalloc'd memory: ERR_PTR(-EFAULT) on a fault, -EINVAL if no NUL comes
 * within n bytes, -ENOMEM (kernel_shim/uaccess.c).
 */
char *strndup_user(const char __user *s, long n);

#define u64_to_user_ptr(x) ((void __user *)(uintptr_t)(x))

#endif
