/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's <linux/vmalloc.h>.
 *
 * (a) Definitions that must match the kernel: VM_* flag values, the 6.12
 *     signatures; vmap() gives a virtually contiguous alias of the pages
 *     (sharing their data: the simulator maps the same memory again,
 *     sim_vmap()), vunmap() removes it.
 * (b) Simplified: vmalloc()/vzalloc() are backed by the simulator's kernel
 *     heap (sim_kmalloc: counted while outstanding), not by pages from the
 *     buddy allocator; vfree() of a kvmalloc'd object works, as
 *     kvfree() of a vmalloc'd one does.  vmap() ignores flags and prot.
 * (c) Fault points: "shim/vmalloc/vmalloc" (vmalloc, vzalloc, vmalloc_array,
 *     vcalloc) and "shim/vmalloc/vmap" (vmap).
 */
#ifndef _DMASIM_LINUX_VMALLOC_H
#define _DMASIM_LINUX_VMALLOC_H

#include <linux/overflow.h>
#include <linux/types.h>
#include <asm/page.h>
#include <shim/page_types.h>

#define VM_IOREMAP		0x00000001
#define VM_ALLOC		0x00000002
#define VM_MAP			0x00000004
#define VM_USERMAP		0x00000008
#define VM_DMA_COHERENT		0x00000010
#define VM_UNINITIALIZED	0x00000020
#define VM_NO_GUARD		0x00000040

void *vmalloc(unsigned long size);
void *vzalloc(unsigned long size);
void vfree(const void *addr);
void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot);
void vunmap(const void *addr);

static inline void *vmalloc_array(size_t n, size_t size)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return vmalloc(bytes);
}

static inline void *vcalloc(size_t n, size_t size)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return vzalloc(bytes);
}

#endif
