/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Included first in every kernel translation unit (-include), as the kernel's
 * own kconfig.h is.  Definitions that must match the kernel: IS_ENABLED() and
 * friends.  The configuration of the simulated kernel: x86-64 (or, with
 * page_shift 14/16, an arm64-like 64-bit machine), SMP, no HIGHMEM, IOMMU
 * and VFIO type1 built in.
 */
#ifndef _DMASIM_LINUX_KCONFIG_H
#define _DMASIM_LINUX_KCONFIG_H

#define CONFIG_64BIT 1
#define CONFIG_MMU 1
#define CONFIG_SMP 1
#define CONFIG_NR_CPUS 64
#define CONFIG_IOMMU_API 1
#define CONFIG_IOMMU_DMA 1
#define CONFIG_VFIO_IOMMU_TYPE1 1
#define CONFIG_DMABUF_HEAPS 1
#define CONFIG_DMABUF_HEAPS_SYSTEM 1
#define CONFIG_TRANSPARENT_HUGEPAGE 1
#define CONFIG_ARCH_HAS_PTE_SPECIAL 1
#define CONFIG_HAVE_ARCH_TRANSPARENT_HUGEPAGE_PUD 1
#define CONFIG_PGTABLE_LEVELS 4
#define CONFIG_PAGE_SHIFT DMASIM_PAGE_SHIFT
#define CONFIG_LOCKDEP_SUPPORT 1

#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define __or(x, y)			___or(x, y)
#define ___or(x, y)			____or(__ARG_PLACEHOLDER_##x, y)
#define ____or(arg1_or_junk, y)		__take_second_arg(arg1_or_junk 1, y)

#define IS_BUILTIN(option) __is_defined(option)
#define IS_MODULE(option) __is_defined(option##_MODULE)
#define IS_REACHABLE(option) __or(IS_BUILTIN(option), IS_MODULE(option))
#define IS_ENABLED(option) __or(IS_BUILTIN(option), IS_MODULE(option))

#ifndef KBUILD_MODNAME
#define KBUILD_MODNAME "dmasim"
#endif
#ifndef KBUILD_BASENAME
#define KBUILD_BASENAME KBUILD_MODNAME
#endif

#include <linux/compiler_types.h>

#endif
