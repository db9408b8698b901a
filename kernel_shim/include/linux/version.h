/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The version of the kernel whose code a translation unit is.
 *
 * Definitions that must match the kernel: KERNEL_VERSION() (the sublevel
 * saturates at 255, as in the kernel's generated header) and
 * LINUX_VERSION_CODE.
 *
 * Upstream mode (-Dkernel_src=DIR) passes the tree's VERSION, PATCHLEVEL and
 * SUBLEVEL, read from DIR/Makefile, to that tree's files only, as
 * -DDMASIM_LINUX_VERSION/_PATCHLEVEL/_SUBLEVEL (upstream/meson.build).
 * Every other kernel translation unit (kernel_shim's .c files, core/) is code
 * written to the Linux 6.12 API, and sees 6.12.0.
 *
 * Rule for shim headers: a version test may select a declaration, a macro or
 * an inline helper that the tree's file uses, never the layout of a struct
 * that kernel_shim's .c files also use: kernel_shim is compiled once, with
 * 6.12.0, and linked into every implementation.  A struct that grew a field in a
 * later kernel carries the field for every version (a 6.12 file never reads
 * it).
 */
#ifndef _DMASIM_LINUX_VERSION_H
#define _DMASIM_LINUX_VERSION_H

#define KERNEL_VERSION(a, b, c) \
	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))

#ifdef DMASIM_LINUX_VERSION
#define LINUX_VERSION_MAJOR	DMASIM_LINUX_VERSION
#define LINUX_VERSION_PATCHLEVEL DMASIM_LINUX_PATCHLEVEL
#define LINUX_VERSION_SUBLEVEL	DMASIM_LINUX_SUBLEVEL
#else
#define LINUX_VERSION_MAJOR	6
#define LINUX_VERSION_PATCHLEVEL 12
#define LINUX_VERSION_SUBLEVEL	0
#endif

#define LINUX_VERSION_CODE \
	KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, \
		       LINUX_VERSION_SUBLEVEL)

#endif
