/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's: attributes and address-space markers. */
#ifndef _DMASIM_LINUX_COMPILER_TYPES_H
#define _DMASIM_LINUX_COMPILER_TYPES_H

#define __user
#define __kernel
#define __iomem
#define __force
#define __rcu
#define __percpu
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __acquire(x)	(void)0
#define __release(x)	(void)0
#define __cond_lock(x, c) (c)
#define __bitwise
#define __private
#define ACCESS_PRIVATE(p, member) ((p)->member)

#define inline		inline __attribute__((__gnu_inline__, __unused__))
#define __inline__	inline
#define __always_inline	inline __attribute__((__always_inline__))
#define noinline	__attribute__((__noinline__))
#define __noreturn	__attribute__((__noreturn__))
#define __packed	__attribute__((__packed__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#define __maybe_unused	__attribute__((__unused__))
#define __always_unused	__attribute__((__unused__))
#define __used		__attribute__((__used__))
#define __must_check	__attribute__((__warn_unused_result__))
#define __cold		__attribute__((__cold__))
#define __weak		__attribute__((__weak__))
#define __section(s)	__attribute__((__section__(s)))
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#define __scanf(a, b)	__attribute__((__format__(scanf, a, b)))
#define __malloc	__attribute__((__malloc__))
#define __pure		__attribute__((__pure__))
#define __counted_by(m)
#define __nonstring
#define __randomize_layout
#define __no_randomize_layout
#define __init
#define __exit
#define __initdata
#define __ro_after_init
#define __read_mostly
#define __cacheline_aligned
#define ____cacheline_aligned
#define __cacheline_aligned_in_smp
#define ____cacheline_aligned_in_smp
#define fallthrough	__attribute__((__fallthrough__))
#define notrace
#define __visible
#define __latent_entropy

#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))
#define __compiletime_error(msg)
#define __native_word(t) \
	(sizeof(t) == sizeof(char) || sizeof(t) == sizeof(short) || \
	 sizeof(t) == sizeof(int) || sizeof(t) == sizeof(long))

#endif
