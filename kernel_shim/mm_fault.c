// SPDX-License-Identifier: GPL-2.0-only
/*
 * Faults of driver mappings: what mm/memory.c's __handle_mm_fault() does
 * for a VMA whose vm_ops has a fault handler, over sim/mm.c.  See the
 * "driver faults" part of <shim/mm_vma.h> for what is kept.
 *
 * The order choice, as 6.12 makes it for a VM_PFNMAP VMA with huge_fault:
 * if nothing maps the PUD, huge_fault(PUD_ORDER); on VM_FAULT_FALLBACK,
 * if nothing maps the PMD, huge_fault(PMD_ORDER); on fallback again,
 * ->fault (the PTE path).  The leaves are installed by the handler with
 * vmf_insert_pfn*().  Before huge pfnmap faults (6.1:
 * shim_pfnmap_huge_faults false) the mm never calls huge_fault for a
 * VM_PFNMAP VMA: ->fault alone, PTEs alone.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <shim/fs.h>
#include <shim/mm_internal.h>

#include <dmasim/sim.h>

static vm_fault_t insert(struct vm_area_struct *vma, unsigned long addr,
			 unsigned long pfn, enum sim_pt_level level,
			 bool write)
{
	int ret;

	ret = sim_mm_insert_leaf(vma->vm_mm->dmasim_mm, addr, pfn, level,
				 write || (vma->vm_flags & VM_WRITE));
	/* Someone else's leaf there already is the kernel's NOPAGE too. */
	if (!ret || ret == -EEXIST)
		return VM_FAULT_NOPAGE;
	if (ret == -ENOMEM)
		return VM_FAULT_OOM;
	return VM_FAULT_SIGBUS;
}

vm_fault_t vmf_insert_pfn(struct vm_area_struct *vma, unsigned long addr,
			  unsigned long pfn)
{
	if (WARN_ON(!(vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP))))
		return VM_FAULT_SIGBUS;
	if (addr < vma->vm_start || addr >= vma->vm_end)
		return VM_FAULT_SIGBUS;
	return insert(vma, addr & PAGE_MASK, pfn, SIM_PT_PTE, false);
}

vm_fault_t vmf_insert_pfn_pmd(struct vm_fault *vmf, pfn_t pfn, bool write)
{
	unsigned long addr = vmf->address & PMD_MASK;

	if (addr < vmf->vma->vm_start || addr + PMD_SIZE > vmf->vma->vm_end)
		return VM_FAULT_SIGBUS;
	return insert(vmf->vma, addr, pfn_t_to_pfn(pfn), SIM_PT_PMD, write);
}

vm_fault_t vmf_insert_pfn_pud(struct vm_fault *vmf, pfn_t pfn, bool write)
{
	unsigned long addr = vmf->address & PUD_MASK;

	if (addr < vmf->vma->vm_start || addr + PUD_SIZE > vmf->vma->vm_end)
		return VM_FAULT_SIGBUS;
	return insert(vmf->vma, addr, pfn_t_to_pfn(pfn), SIM_PT_PUD, write);
}

void zap_vma_ptes(struct vm_area_struct *vma, unsigned long address,
		  unsigned long size)
{
	if (!vma->vm_mm->dmasim_mm || address < vma->vm_start ||
	    address + size > vma->vm_end)
		return;
	sim_mm_zap_range(vma->vm_mm->dmasim_mm, address, address + size);
}

bool shim_pfnmap_huge_faults = true;

static vm_fault_t fault_at_order(struct vm_area_struct *vma,
				 struct vm_fault *vmf, unsigned int order)
{
	if (!order)
		return vma->vm_ops->fault ? vma->vm_ops->fault(vmf) :
					    vma->vm_ops->huge_fault(vmf, 0);
	return vma->vm_ops->huge_fault(vmf, order);
}

static int shim_vma_fault(void *owner, unsigned long addr, int write)
{
	struct vm_area_struct *vma = owner;
	struct sim_mm *smm = vma->vm_mm->dmasim_mm;
	struct vm_fault vmf = {
		.vma = vma,
		.address = addr & PAGE_MASK,
		.real_address = addr,
		.pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT),
		.flags = (write ? FAULT_FLAG_WRITE : 0) | FAULT_FLAG_REMOTE,
	};
	vm_fault_t ret = VM_FAULT_FALLBACK;
	bool huge = shim_pfnmap_huge_faults && vma->vm_ops->huge_fault &&
		    !(vma->vm_flags & VM_NOHUGEPAGE);

	if (huge && sim_mm_level_none(smm, addr, SIM_PT_PUD))
		ret = fault_at_order(vma, &vmf, PUD_ORDER);
	if ((ret & VM_FAULT_FALLBACK) && huge &&
	    sim_mm_level_none(smm, addr, SIM_PT_PMD))
		ret = fault_at_order(vma, &vmf, PMD_ORDER);
	if (ret & VM_FAULT_FALLBACK)
		ret = fault_at_order(vma, &vmf, 0);

	if (ret & VM_FAULT_OOM)
		return -ENOMEM;
	if (ret & (VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV | VM_FAULT_HWPOISON |
		   VM_FAULT_FALLBACK))
		return -EFAULT;
	return 0;
}

int shim_vma_use_vm_ops(struct vm_area_struct *vma)
{
	if (!vma->vm_ops || (!vma->vm_ops->fault && !vma->vm_ops->huge_fault))
		return -EINVAL;
	return sim_vma_set_fault(vma->dmasim_vma, shim_vma_fault);
}

void shim_vma_free(struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->close)
		vma->vm_ops->close(vma);
	/* As remove_vma(): the release runs after mmap_lock is dropped. */
	if (vma->vm_file)
		shim_fput_deferred(vma->vm_file);
	sim_kfree(vma);
}
