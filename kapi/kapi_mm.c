// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plain-C entry points for memory management (include/dmasim/kapi_mm.h):
 * simulated processes, their mappings, and calls into the kernel API the
 * code under test uses (GUP, fixup_user_fault, account_locked_vm,
 * follow_pfnmap), each taken with the locks the kernel's callers hold.
 */
#include <linux/array_size.h>
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>

#include "kapi_door.h"
#include "kapi_impl.h"
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

#include <shim/mm_internal.h>

void dmasim_set_current(struct task_struct *task);

static pid_t next_pid = 100;

static struct task_struct *proc_task(const struct kapi_proc *p)
{
	return (struct task_struct *)p;
}

/* A new, empty address space owned by t; NULL without memory. */
static struct mm_struct *proc_mm_create(struct task_struct *t)
{
	struct mm_struct *mm = sim_kmalloc(sizeof(*mm), 1);

	if (!mm)
		return NULL;
	mm->dmasim_mm = sim_mm_create(mm);
	if (!mm->dmasim_mm) {
		sim_kfree(mm);
		return NULL;
	}
	mm->pgd = (pgd_t *)sim_mm_pgd(mm->dmasim_mm);
	atomic_set(&mm->mm_users, 1);
	atomic_set(&mm->mm_count, 1);
	mm->task_size = TASK_SIZE;
	init_rwsem(&mm->mmap_lock);
	spin_lock_init(&mm->page_table_lock);
	mm->owner = t;
	return mm;
}

struct kapi_proc *kapi_proc_create(void)
{
	struct task_struct *t = sim_kmalloc(sizeof(*t), 1);
	struct signal_struct *sig = sim_kmalloc(sizeof(*sig), 1);
	struct mm_struct *mm = NULL;
	int i;

	if (!t || !sig)
		goto fail;
	mm = proc_mm_create(t);
	if (!mm)
		goto fail;

	for (i = 0; i < RLIM_NLIMITS; i++) {
		sig->rlim[i].rlim_cur = RLIM_INFINITY;
		sig->rlim[i].rlim_max = RLIM_INFINITY;
	}
	/* the usual distribution default since Linux 5.16 */
	sig->rlim[RLIMIT_MEMLOCK].rlim_cur = 8UL << 20;
	sig->rlim[RLIMIT_MEMLOCK].rlim_max = 8UL << 20;

	t->pid = t->tgid = next_pid++;
	strscpy(t->comm, "simproc", sizeof(t->comm));
	t->mm = mm;
	t->group_leader = t;
	t->signal = sig;
	atomic_set(&t->usage, 1);
	t->dmasim_cap_effective = 0;
	t->dmasim_ext = DMASIM_TASK_ALLOCATED;
	dmasim_set_current(t);
	return (struct kapi_proc *)t;

fail:
	sim_kfree(t);
	sim_kfree(sig);
	sim_kfree(mm);
	return NULL;
}

void kapi_proc_destroy(struct kapi_proc *p)
{
	struct task_struct *t = proc_task(p);
	struct mm_struct *mm;

	if (!p)
		return;
	mm = t->mm;
	t->mm = NULL;
	if (mm)
		mmput(mm);
	shim_task_work_run();	/* exit_task_work(): the mappings' files */
	if (current == t)
		dmasim_set_current(NULL);
	put_task_struct(t);
}

int kapi_proc_exec(struct kapi_proc *p)
{
	struct task_struct *t = proc_task(p);
	struct mm_struct *old = t->mm, *mm = proc_mm_create(t);

	if (!mm)
		return -ENOMEM;
	/* exec_mmap(): the task switches, then lets the old mm go. */
	t->mm = mm;
	if (old)
		mmput(old);
	return kapi_return(0);
}

void kapi_proc_set_current(struct kapi_proc *p)
{
	dmasim_set_current(proc_task(p));
}

struct kapi_proc *kapi_proc_current(void)
{
	struct task_struct *t = current;

	return t->dmasim_ext == DMASIM_TASK_ALLOCATED ? (struct kapi_proc *)t :
						      NULL;
}

int kapi_proc_pid(const struct kapi_proc *p)
{
	return proc_task(p)->pid;
}

void kapi_mm_set_rlimit_memlock(unsigned long long bytes)
{
	struct task_struct *t = current;

	if (WARN_ON(!t->signal))
		return;
	t->signal->rlim[RLIMIT_MEMLOCK].rlim_cur = bytes;
	t->signal->rlim[RLIMIT_MEMLOCK].rlim_max = bytes;
}

void kapi_mm_set_cap_ipc_lock(int on)
{
	struct task_struct *t = current;

	if (on)
		t->dmasim_cap_effective |= 1ULL << CAP_IPC_LOCK;
	else
		t->dmasim_cap_effective &= ~(1ULL << CAP_IPC_LOCK);
}

unsigned long kapi_mm_locked_vm(void)
{
	return current->mm ? current->mm->locked_vm : 0;
}

/* The VM_* flags and protection of a new mapping of this kind. */
static void vma_setup(struct vm_area_struct *vma, const struct kapi_mm_map *m)
{
	vm_flags_t flags = VM_READ | VM_MAYREAD;

	if (m->prot_none)
		flags = VM_MAYREAD;
	else if (m->writable)
		flags |= VM_WRITE | VM_MAYWRITE;
	switch (m->kind) {
	case KAPI_MM_THP:
		flags |= VM_HUGEPAGE;
		break;
	case KAPI_MM_PFNMAP:
	case KAPI_MM_IO:
		flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
			 VM_SHARED | VM_MAYSHARE;
		break;
	case KAPI_MM_HUGETLB_1G:
		flags |= VM_HUGETLB | VM_DONTEXPAND;
		break;
	case KAPI_MM_ANON:
		break;
	}
	vm_flags_init(vma, flags);
	vma->vm_page_prot = m->prot_none ? PAGE_NONE :
			    m->writable ? PAGE_SHARED : PAGE_READONLY;
	vma->vm_pgoff = m->kind == KAPI_MM_ANON || m->kind == KAPI_MM_THP ||
			m->kind == KAPI_MM_HUGETLB_1G ?
			vma->vm_start >> PAGE_SHIFT : m->pgoff;
}

static void kapi_mm_race(struct mm_struct *mm, unsigned long addr,
			 enum sim_mm_race what);

static bool exact_pfnmap_leaves;

void kapi_mm_set_exact_pfnmap_leaves(int on)
{
	exact_pfnmap_leaves = on;
}

/* mmap() into mm, which the caller does not hold locked. */
static int mm_mmap(struct mm_struct *mm, const struct kapi_mm_map *m,
		   unsigned long *addr_out)
{
	unsigned int max_leaf = m->max_leaf ? m->max_leaf : KAPI_MM_LEAF_PUD;
	struct sim_vma_info info = { 0 };
	struct vm_area_struct *vma;
	struct sim_vma *svma;
	unsigned long addr = m->addr;
	int ret;

	if (!mm)
		return -EINVAL;
	if (m->kind > KAPI_MM_HUGETLB_1G || !m->len || (m->len & ~PAGE_MASK) ||
	    (m->kind == KAPI_MM_HUGETLB_1G &&
	     ((m->len | m->addr) & (PUD_SIZE - 1))) ||
	    max_leaf > KAPI_MM_LEAF_PUD)
		return -EINVAL;
	/* A tree without huge pfnmap faults (6.1) installs PTEs only. */
	if (!exact_pfnmap_leaves && max_leaf > kapi_impl_pfnmap_max_leaf)
		max_leaf = kapi_impl_pfnmap_max_leaf;
	vma = sim_kmalloc(sizeof(*vma), 1);
	if (!vma)
		return -ENOMEM;

	shim_mm_race = kapi_mm_race;
	/* And driver faults (BAR mmaps): ->huge_fault only where it exists. */
	shim_pfnmap_huge_faults = kapi_impl_pfnmap_max_leaf > KAPI_MM_LEAF_PTE;
	mmap_write_lock(mm);
	if (!addr) {
		unsigned long align = m->align ? m->align : PAGE_SIZE;
		unsigned long misalign = m->misalign;

		if (!m->align && m->kind == KAPI_MM_THP)
			align = PMD_SIZE;
		if (m->kind == KAPI_MM_HUGETLB_1G)
			align = max(align, PUD_SIZE);
		if (!m->align && m->kind == KAPI_MM_PFNMAP) {
			/* co-align with the pfns so the largest leaves fit */
			align = max_leaf == KAPI_MM_LEAF_PUD ? PUD_SIZE :
				max_leaf == KAPI_MM_LEAF_PMD ? PMD_SIZE :
				PAGE_SIZE;
			misalign = (m->pfn << PAGE_SHIFT) & (align - 1);
		}
		addr = sim_mm_get_unmapped_area(mm->dmasim_mm, 0, m->len,
						align, misalign);
		if (!addr) {
			ret = -ENOMEM;
			goto out;
		}
	}
	vma->vm_start = addr;
	vma->vm_end = addr + m->len;
	vma->vm_mm = mm;
	vma_setup(vma, m);

	info.start = vma->vm_start;
	info.end = vma->vm_end;
	info.kind = m->kind == KAPI_MM_ANON ? SIM_VMA_ANON :
		    m->kind == KAPI_MM_THP ? SIM_VMA_THP :
		    m->kind == KAPI_MM_PFNMAP ? SIM_VMA_PFNMAP :
		    m->kind == KAPI_MM_HUGETLB_1G ? SIM_VMA_HUGETLB : SIM_VMA_IO;
	info.flags = SIM_VMA_READ | (m->writable ? SIM_VMA_WRITE : 0) |
		     (m->populate ? SIM_VMA_POPULATE : 0);
	if (m->prot_none)
		info.flags = 0;	/* nothing to populate: no access */
	info.pfn = m->pfn;
	info.max_leaf = max_leaf;
	info.owner = vma;
	ret = sim_mm_map(mm->dmasim_mm, &info, &svma);
	if (!ret) {
		vma->dmasim_vma = svma;
		mm->total_vm += vma_pages(vma);
		if (addr_out)
			*addr_out = addr;
	}
out:
	mmap_write_unlock(mm);
	if (ret)
		sim_kfree(vma);
	return ret;
}


/* munmap() of the VMA starting at addr, with mm's write lock held. */
static int mm_munmap_locked(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	int ret = -EINVAL;

	if (vma && vma->vm_start == addr) {
		mm->total_vm -= vma_pages(vma);
		ret = sim_mm_unmap(mm->dmasim_mm, addr);
		if (!ret)
			shim_vma_free(vma);
	}
	return ret;
}

int kapi_mm_munmap(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (!mm)
		return kapi_return(-EINVAL);
	mmap_write_lock(mm);
	ret = mm_munmap_locked(mm, addr);
	mmap_write_unlock(mm);
	return kapi_return(ret);
}

/*
 * Another thread of mm's process acts on the VMA containing addr while
 * the caller has the mmap lock dropped (see enum sim_mm_race).
 * The new mappings keep the old VMA's protection; a pfnmap split keeps
 * both halves' pfns.  An action that does not apply changes nothing.
 */
static void kapi_mm_race(struct mm_struct *mm, unsigned long addr,
			 enum sim_mm_race what)
{
	struct kapi_mm_map m = { .kind = KAPI_MM_PFNMAP };
	struct sim_vma_info old;
	struct vm_area_struct *vma;
	unsigned long split;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		mmap_write_unlock(mm);
		return;
	}
	old = *sim_vma_info(vma->dmasim_vma);
	m.writable = !!(vma->vm_flags & VM_WRITE);
	m.max_leaf = old.max_leaf;
	m.pgoff = vma->vm_pgoff;
	if (what == SIM_MM_RACE_FAULT_IN)
		sim_mm_fault(mm->dmasim_mm, addr, 0);
	if (old.kind != SIM_VMA_PFNMAP && what != SIM_MM_RACE_MUNMAP &&
	    what != SIM_MM_RACE_REPLACE)
		what = SIM_MM_RACE_NOTHING;
	if (what == SIM_MM_RACE_ZAP)
		sim_mm_zap_range(mm->dmasim_mm, old.start, old.end);
	if (what == SIM_MM_RACE_MOVE_PFNS) {
		m.pfn = sim_bar_create(old.end - old.start, 0, 0, 0);
		if (!m.pfn)
			what = SIM_MM_RACE_NOTHING;
	}
	if (what == SIM_MM_RACE_MUNMAP || what == SIM_MM_RACE_REPLACE ||
	    what == SIM_MM_RACE_SPLIT || what == SIM_MM_RACE_MOVE_PFNS)
		mm_munmap_locked(mm, old.start);
	mmap_write_unlock(mm);

	switch (what) {
	case SIM_MM_RACE_REPLACE:
		m.kind = KAPI_MM_ANON;
		fallthrough;
	case SIM_MM_RACE_MOVE_PFNS:
		m.addr = old.start;
		m.len = old.end - old.start;
		mm_mmap(mm, &m, NULL);
		break;
	case SIM_MM_RACE_SPLIT:
		split = max(addr & PAGE_MASK, old.start + PAGE_SIZE);
		m.addr = old.start;
		m.len = split - old.start;
		m.pfn = old.pfn;
		mm_mmap(mm, &m, NULL);
		if (split >= old.end)
			break;
		m.addr = split;
		m.len = old.end - split;
		m.pfn = old.pfn + ((split - old.start) >> PAGE_SHIFT);
		m.pgoff += (split - old.start) >> PAGE_SHIFT;
		mm_mmap(mm, &m, NULL);
		break;
	default:
		break;
	}
}

int kapi_mm_mmap(const struct kapi_mm_map *m, unsigned long *addr_out)
{
	return kapi_return(mm_mmap(current->mm, m, addr_out));
}

int kapi_mm_zap(unsigned long addr, unsigned long len)
{
	struct mm_struct *mm = current->mm;

	if (!mm || (addr | len) & ~PAGE_MASK || addr + len < addr)
		return -EINVAL;
	/* As unmap_mapping_range(): under the mapping's lock, not mmap_lock. */
	sim_mm_zap_range(mm->dmasim_mm, addr, addr + len);
	return 0;
}

int kapi_mm_touch(unsigned long addr, unsigned long len, int write)
{
	struct mm_struct *mm = current->mm;
	unsigned long end = addr + len;
	int ret = 0;

	if (!mm)
		return kapi_return(-EFAULT);
	mmap_read_lock(mm);
	for (addr &= PAGE_MASK; addr < end && !ret; addr += PAGE_SIZE) {
		struct sim_walk w;

		if (!sim_mm_walk(mm->dmasim_mm, addr, &w) &&
		    (!write || (w.entry & SIM_PTE_WRITE)))
			continue;
		ret = sim_mm_fault(mm->dmasim_mm, addr, write);
	}
	mmap_read_unlock(mm);
	return kapi_return(ret);
}

int kapi_mm_cpu_pfn(unsigned long addr, unsigned long *pfn, int *level)
{
	struct mm_struct *mm = current->mm;
	struct sim_walk w;
	int ret;

	if (!mm)
		return -ENOENT;
	ret = sim_mm_walk(mm->dmasim_mm, addr, &w);
	if (ret)
		return ret;
	if (pfn)
		*pfn = w.pfn;
	if (level)
		*level = w.level;
	return 0;
}

int kapi_mm_set_entry(unsigned long addr, int level,
		      enum sim_pt_entry_kind kind)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (!mm)
		return kapi_return(-ENOENT);
	mmap_write_lock(mm);
	ret = sim_mm_set_entry(mm->dmasim_mm, addr, level, kind);
	mmap_write_unlock(mm);
	return kapi_return(ret);
}

unsigned long kapi_mm_nr_tables(void)
{
	return current->mm ? sim_mm_nr_tables(current->mm->dmasim_mm) : 0;
}

long kapi_mm_pin(unsigned long addr, unsigned long npages, int write,
		 int longterm, unsigned long *pfns)
{
	struct mm_struct *mm = current->mm;
	unsigned int flags = (write ? FOLL_WRITE : 0) |
			     (longterm ? FOLL_LONGTERM : 0);
	struct page **pages;
	long ret, i;

	if (!mm)
		return kapi_return(-EFAULT);
	pages = sim_kmalloc((npages ? npages : 1) * sizeof(*pages), 0);
	if (!pages)
		return kapi_return(-ENOMEM);
	mmap_read_lock(mm);
	ret = pin_user_pages_remote(mm, addr, npages, flags, pages, NULL);
	mmap_read_unlock(mm);
	for (i = 0; i < ret; i++)
		pfns[i] = sim_page_to_pfn((struct sim_page *)pages[i]);
	sim_kfree(pages);
	return kapi_return(ret);
}

long kapi_mm_pin_without_mmap_lock(unsigned long addr, unsigned long npages,
				   int write)
{
	struct mm_struct *mm = current->mm;
	struct page **pages;
	long ret;

	if (!mm)
		return kapi_return(-EFAULT);
	pages = sim_kmalloc((npages ? npages : 1) * sizeof(*pages), 0);
	if (!pages)
		return kapi_return(-ENOMEM);
	ret = pin_user_pages_remote(mm, addr, npages,
				    (write ? FOLL_WRITE : 0) | FOLL_LONGTERM,
				    pages, NULL);
	if (ret > 0)
		unpin_user_pages(pages, ret);
	sim_kfree(pages);
	return kapi_return(ret);
}

void kapi_mm_unpin(const unsigned long *pfns, unsigned long n, int dirty)
{
	struct page *batch[64];
	unsigned long i, k;

	/* unpin_user_pages_dirty_lock() on 64 pages at a time. */
	for (i = 0; i < n; i += k) {
		for (k = 0; k < ARRAY_SIZE(batch) && i + k < n; k++)
			batch[k] = (struct page *)sim_pfn_to_page(pfns[i + k]);
		unpin_user_pages_dirty_lock(batch, k, dirty);
	}
	kapi_user_return();
}

unsigned long kapi_mm_pins_outstanding(void)
{
	return sim_pins_outstanding();
}

void kapi_mm_gup_hook(unsigned long nth, int mode, long value, int persist)
{
	shim_gup_hook_mode = mode == KAPI_GUP_SHORT ? GUP_HOOK_SHORT :
			     mode == KAPI_GUP_ZERO ? GUP_HOOK_ZERO :
			     mode == KAPI_GUP_ERRNO ? GUP_HOOK_ERRNO :
			     GUP_HOOK_NONE;
	gup_hook.nth = shim_gup_calls() + (nth ? nth : 1);
	gup_hook.value = value;
	gup_hook.persist = persist;
}

void kapi_mm_fixup_unlock_once(void)
{
	fixup_unlock_once = true;
}

void kapi_mm_hooks_reset(void)
{
	shim_gup_reset();
}

int kapi_mm_fixup_user_fault(unsigned long addr, int write, int *unlocked)
{
	struct mm_struct *mm = current->mm;
	bool was_unlocked = false;
	int ret;

	if (!mm)
		return kapi_return(-EFAULT);
	mmap_read_lock(mm);
	ret = fixup_user_fault(mm, addr,
			       FAULT_FLAG_REMOTE | (write ? FAULT_FLAG_WRITE : 0),
			       &was_unlocked);
	mmap_read_unlock(mm);
	if (unlocked)
		*unlocked = was_unlocked;
	return kapi_return(ret);
}

int kapi_mm_account_locked_vm(unsigned long pages, int inc)
{
	return account_locked_vm(current->mm, pages, inc);
}

int kapi_mm_account_locked_vm_killable(long npage, int bypass_rlim)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (!mm || !npage)
		return 0;
	ret = mmap_write_lock_killable(mm);
	if (ret)
		return ret;
	ret = __account_locked_vm(mm, npage < 0 ? -npage : npage, npage > 0,
				  current, bypass_rlim);
	mmap_write_unlock(mm);
	return ret;
}

int kapi_mm_follow_pfnmap_vma(unsigned long vma_addr, unsigned long addr,
			      struct kapi_pfnmap *out)
{
	struct mm_struct *mm = current->mm;
	struct follow_pfnmap_args args = { .address = addr };
	int ret;

	if (!mm)
		return kapi_return(-EFAULT);
	mmap_read_lock(mm);
	args.vma = vma_lookup(mm, vma_addr);
	if (!args.vma) {
		ret = -EFAULT;
		goto out;
	}
	ret = follow_pfnmap_start(&args);
	if (!ret) {
		out->pfn = args.pfn;
		out->addr_mask = args.addr_mask;
		out->pgprot = pgprot_val(args.pgprot);
		out->writable = args.writable;
		out->special = args.special;
		follow_pfnmap_end(&args);
	}
out:
	mmap_read_unlock(mm);
	return kapi_return(ret);
}

int kapi_mm_follow_pfnmap(unsigned long addr, struct kapi_pfnmap *out)
{
	return kapi_return(kapi_mm_follow_pfnmap_vma(addr, addr, out));
}

long kapi_mm_pfnmap_walk(unsigned long addr, unsigned long npages,
			 int stride_by_mask, unsigned long *pages_done,
			 unsigned long long *pfn_sum)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma = NULL;
	unsigned long done = 0;
	unsigned long long sum = 0;
	long lookups = 0;

	if (!mm)
		return kapi_return(-EFAULT);
	mmap_read_lock(mm);
	while (done < npages) {
		struct follow_pfnmap_args args = { .address = addr };
		unsigned long n = 1;
		int ret;

		if (!vma || addr >= vma->vm_end) {
			vma = vma_lookup(mm, addr);
			if (!vma) {
				lookups = -EFAULT;
				break;
			}
		}
		args.vma = vma;
		ret = follow_pfnmap_start(&args);
		if (ret) {
			lookups = ret;
			break;
		}
		lookups++;
		if (stride_by_mask) {
			unsigned long epfn = (args.pfn |
					      (~args.addr_mask >> PAGE_SHIFT)) + 1;

			n = min(npages - done, epfn - args.pfn);
		}
		follow_pfnmap_end(&args);
		sum += (unsigned long long)n * args.pfn +
		       (unsigned long long)n * (n - 1) / 2;
		done += n;
		addr += n << PAGE_SHIFT;
	}
	mmap_read_unlock(mm);
	if (pages_done)
		*pages_done = done;
	if (pfn_sum)
		*pfn_sum = sum;
	return kapi_return(lookups);
}
