/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's basic types (LP64). */
#ifndef _DMASIM_LINUX_TYPES_H
#define _DMASIM_LINUX_TYPES_H

#include <linux/compiler.h>
#include <linux/stddef.h>
#include <uapi/linux/types.h>

typedef _Bool			bool;
typedef __kernel_ulong_t	size_t;
typedef __kernel_long_t		ssize_t;
typedef long			ptrdiff_t;
typedef unsigned long		uintptr_t;
typedef long			intptr_t;
typedef long long		loff_t;
typedef int			pid_t;
typedef unsigned int		uid_t;
typedef unsigned int		gid_t;
typedef unsigned short		umode_t;
typedef unsigned int		dev_t;
typedef long			time64_t;

typedef __u8	u8;
typedef __s8	s8;
typedef __u16	u16;
typedef __s16	s16;
typedef __u32	u32;
typedef __s32	s32;
typedef __u64	u64;
typedef __s64	s64;

typedef __u8	uint8_t;
typedef __u16	uint16_t;
typedef __u32	uint32_t;
typedef __u64	uint64_t;
typedef __s8	int8_t;
typedef __s16	int16_t;
typedef __s32	int32_t;
typedef __s64	int64_t;

typedef unsigned char	u_char;
typedef unsigned short	u_short;
typedef unsigned int	u_int;
typedef unsigned long	u_long;
typedef unsigned long	ulong;
typedef unsigned int	uint;

typedef u64 phys_addr_t;
typedef u64 resource_size_t;
typedef u64 dma_addr_t;
typedef unsigned int __bitwise gfp_t;
typedef unsigned int __bitwise slab_flags_t;
typedef unsigned int __bitwise fmode_t;
typedef unsigned long pgoff_t;
typedef unsigned long vm_flags_t;
typedef unsigned long sector_t;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

typedef struct {
	s64 counter;
} atomic64_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

#define DECLARE_BITMAP(name, bits) \
	unsigned long name[((bits) + 8 * sizeof(long) - 1) / (8 * sizeof(long))]

#endif
