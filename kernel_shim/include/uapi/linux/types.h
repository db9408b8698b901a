/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's uapi <linux/types.h> (x86-64). */
#ifndef _DMASIM_UAPI_LINUX_TYPES_H
#define _DMASIM_UAPI_LINUX_TYPES_H

typedef unsigned char		__u8;
typedef signed char		__s8;
typedef unsigned short		__u16;
typedef signed short		__s16;
typedef unsigned int		__u32;
typedef signed int		__s32;
typedef unsigned long long	__u64;
typedef signed long long	__s64;
typedef long			__kernel_long_t;
typedef unsigned long		__kernel_ulong_t;

typedef __u16 __le16;
typedef __u16 __be16;
typedef __u32 __le32;
typedef __u32 __be32;
typedef __u64 __le64;
typedef __u64 __be64;
typedef __u64 __aligned_u64 __attribute__((aligned(8)));

#endif
