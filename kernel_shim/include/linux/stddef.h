/* SPDX-License-Identifier: GPL-2.0-only */
/* Definitions matching the kernel's <linux/stddef.h>. */
#ifndef _DMASIM_LINUX_STDDEF_H
#define _DMASIM_LINUX_STDDEF_H

#undef NULL
#define NULL ((void *)0)

enum {
	false	= 0,
	true	= 1
};

#undef offsetof
#define offsetof(TYPE, MEMBER)	__builtin_offsetof(TYPE, MEMBER)
#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#define offsetofend(TYPE, MEMBER) \
	(offsetof(TYPE, MEMBER) + sizeof_field(TYPE, MEMBER))

#define struct_group(NAME, MEMBERS...) \
	union { struct { MEMBERS }; struct { MEMBERS } NAME; }
#define DECLARE_FLEX_ARRAY(TYPE, NAME) \
	struct { struct { } __empty_##NAME; TYPE NAME[]; }

#endif
