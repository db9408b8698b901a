// SPDX-License-Identifier: GPL-2.0-only
/*
 * vmalloc and vmap over the simulator: vmalloc memory is the simulated
 * kernel heap (sim_kmalloc, counted while outstanding); vmap() maps the
 * pages' simulated memory again at consecutive addresses (sim_vmap).  Each
 * allocating call asks its fault point first.
 */
#include <linux/kernel.h>
#include <linux/vmalloc.h>

#include <dmasim/sim.h>

static void *vmalloc_zeroed(unsigned long size, int zero)
{
	if (!size || sim_should_fail(SIM_FP_VMALLOC))
		return NULL;
	return sim_kmalloc(size, zero);
}

void *vmalloc(unsigned long size)
{
	return vmalloc_zeroed(size, 0);
}

void *vzalloc(unsigned long size)
{
	return vmalloc_zeroed(size, 1);
}

void vfree(const void *addr)
{
	if (addr)
		sim_kfree(addr);
}

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot)
{
	if (!count || sim_should_fail(SIM_FP_VMAP))
		return NULL;
	return sim_vmap((struct sim_page **)pages, count);
}

void vunmap(const void *addr)
{
	if (addr)
		sim_vunmap((void *)addr);
}
