/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's container_of(). */
#ifndef _DMASIM_LINUX_CONTAINER_OF_H
#define _DMASIM_LINUX_CONTAINER_OF_H

#include <linux/build_bug.h>
#include <linux/stddef.h>

#define container_of(ptr, type, member) ({				\
	void *__mptr = (void *)(ptr);					\
	_Static_assert(__same_type(*(ptr), ((type *)0)->member) ||	\
		       __same_type(*(ptr), void),			\
		       "pointer type mismatch in container_of()");	\
	((type *)(__mptr - offsetof(type, member))); })

#define container_of_const(ptr, type, member) container_of(ptr, type, member)

#endif
