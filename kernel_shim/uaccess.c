// SPDX-License-Identifier: GPL-2.0-only
/*
 * User copies that land in a simulated address space (<linux/uaccess.h>).
 *
 * The kernel's copy_{to,from}_user() access current->mm, faulting pages
 * in as the CPU would.  Here a user pointer is either the test's own
 * memory (ioctl argument structs, bitmaps: the uaccess header copies those
 * with memcpy) or an address inside a VMA of the calling task's simulated
 * address space (what a VMM mapped with kapi_mm_mmap(), reached for example
 * by vfio_dma_rw() under kthread_use_mm()).  The second kind is copied
 * here, page by page, through the sim's page tables: a missing entry, or a
 * read-only one for a write, is faulted in first (the zero page for a read
 * of untouched anonymous memory, a new page for a write).
 *
 * Any other pointer is the test's own memory when the host maps it
 * (sim_host_mapped()), and faults otherwise, as an unmapped user address
 * does: a caller's bad pointer is -EFAULT, not a crash of the test.
 *
 * Simplified: MMIO behind a user mapping (a BAR) has no data in the sim,
 * so a copy that reaches it stops there, as would a fault; the dirty and
 * accessed bits of the entries are not updated.
 */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <dmasim/sim.h>

/* The bytes of the page mapped at addr, faulting it in; NULL if none. */
static u8 *user_page_data(struct sim_mm *smm, unsigned long addr, bool write)
{
	struct sim_walk w;

	if (sim_mm_walk(smm, addr, &w) ||
	    (write && !(w.entry & SIM_PTE_WRITE))) {
		if (sim_mm_fault(smm, addr, write) || sim_mm_walk(smm, addr, &w))
			return NULL;
	}
	return sim_phys_to_virt((sim_phys_t)w.pfn << PAGE_SHIFT);
}

static _Thread_local struct {
	unsigned long start, len;
} host_ranges[2];
SIM_THREAD_LOCAL_PER_CPU(host_ranges)

void dmasim_uaccess_host_ranges(const void *a, unsigned long a_len,
				const void *b, unsigned long b_len)
{
	host_ranges[0].start = (unsigned long)a;
	host_ranges[0].len = a ? a_len : 0;
	host_ranges[1].start = (unsigned long)b;
	host_ranges[1].len = b ? b_len : 0;
}

static bool in_host_range(unsigned long uaddr, unsigned long n)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(host_ranges); i++)
		if (uaddr - host_ranges[i].start < host_ranges[i].len &&
		    n <= host_ranges[i].len - (uaddr - host_ranges[i].start))
			return true;
	return false;
}

long dmasim_copy_user_sim(void *kbuf, unsigned long uaddr, unsigned long n,
			  bool to_user)
{
	struct mm_struct *mm = current->mm;
	unsigned long done = 0;

	if (in_host_range(uaddr, n))
		return -1;	/* the test's own memory, declared */
	if (!mm || !mm->dmasim_mm || uaddr < SIM_USER_BASE ||
	    uaddr >= SIM_TASK_SIZE)
		goto host;

	/* As the page fault handler: the VMA is looked up under the lock. */
	mmap_read_lock(mm);
	if (!sim_mm_find_vma(mm->dmasim_mm, uaddr)) {
		mmap_read_unlock(mm);
		goto host;
	}
	while (done < n) {
		unsigned long addr = uaddr + done;
		unsigned long off = addr & ~PAGE_MASK;
		unsigned long chunk = min(n - done, PAGE_SIZE - off);
		u8 *page = user_page_data(mm->dmasim_mm, addr & PAGE_MASK,
					  to_user);

		if (!page)
			break;
		if (to_user)
			memcpy(page + off, (u8 *)kbuf + done, chunk);
		else
			memcpy((u8 *)kbuf + done, page + off, chunk);
		done += chunk;
	}
	mmap_read_unlock(mm);
	return n - done;

host:
	/* The test's own memory if the host maps it; a fault otherwise. */
	return sim_host_mapped(uaddr, n) ? -1 : (long)n;
}

char *strndup_user(const char __user *s, long n)
{
	char *buf;
	long len;

	buf = kmalloc(n, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	/* As strnlen_user(): a byte at a time, stopping at the NUL. */
	for (len = 0; len < n; len++) {
		if (copy_from_user(&buf[len], s + len, 1)) {
			kfree(buf);
			return ERR_PTR(-EFAULT);
		}
		if (!buf[len])
			return buf;
	}
	kfree(buf);
	return ERR_PTR(-EINVAL);
}
