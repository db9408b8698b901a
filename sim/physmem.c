// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated physical memory: the RAM map, the memmap (struct sim_page per
 * RAM pfn) and page data.
 *
 * Address map (SIM_LOW_RAM_END = 3 GiB, SIM_HIGH_RAM_START = 4 GiB):
 *
 *   0 ............ min(ram, 3G)   RAM, zone DMA32
 *   3G ........... 4G             hole (32-bit MMIO: BARs go here)
 *   4G ........... 4G + ram - 3G  RAM, zone Normal (only if ram > 3 GiB)
 *   above ........                free for 64-bit BARs
 *
 * Costs: the memmap is one MAP_NORESERVE anonymous mapping indexed by
 * absolute pfn (vmemmap-style), so a struct page costs host memory only once
 * it is written: 64 bytes per page, in units of 2 MiB of memmap (128 MiB of
 * RAM with 4 KiB pages) where the host gives transparent huge pages.  Page data lives in one memfd as large as the physical map,
 * sparse (ftruncate), mapped once at direct_map (the direct map: virtual =
 * direct_map + physical); the hole is PROT_NONE.  vmap() maps the same file
 * pages again at consecutive addresses (MAP_SHARED|MAP_FIXED), so aliases
 * share data as the kernel's do.
 *
 * Zeroing: a page's data can be nonzero only once its address was handed
 * out (sim_page_address, sim_phys_to_virt, sim_vmap set SIM_PG_TOUCHED).
 * __GFP_ZERO clears only touched pages and clears the flag; in a run of 16
 * pages or more, a quarter of them touched, only the parts the file holds
 * data for (a vmap of a whole
 * buffer touches every page, but the host backs only the pages written):
 * hole punching for large extents, memset for small ones.  Every page is
 * still counted as zeroed, because the kernel clears every page.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem_internal.h"

struct sim_page *sim_vmemmap;
unsigned long sim_max_pfn;

static struct sim_ram_range ram_ranges[2];
static unsigned int nr_ram_ranges;
static unsigned long long ram_bytes;

static int data_fd = -1;
static unsigned char *direct_map;
static unsigned long long phys_span;	/* bytes covered by direct_map */
static size_t memmap_bytes;

/* Live vmap areas, so vunmap knows the length and leaks can be counted. */
struct vmap_area {
	struct vmap_area *next;
	void *addr;
	unsigned long nr;
};
static struct vmap_area *vmap_areas;
static unsigned long nr_vmap_areas;
static pthread_mutex_t vmap_lock = PTHREAD_MUTEX_INITIALIZER;

int sim_pfn_valid(unsigned long pfn)
{
	if (sim_likely(pfn < ram_ranges[0].end_pfn))
		return 1;
	return nr_ram_ranges > 1 && pfn >= ram_ranges[1].start_pfn &&
	       pfn < ram_ranges[1].end_pfn;
}

unsigned int sim_ram_ranges(const struct sim_ram_range **ranges)
{
	if (ranges)
		*ranges = ram_ranges;
	return nr_ram_ranges;
}

unsigned long long sim_ram_bytes(void)
{
	return ram_bytes;
}

void *sim_page_address(struct sim_page *page)
{
	unsigned long pfn = sim_page_to_pfn(page);

	if (sim_unlikely(!sim_pfn_valid(pfn)))
		return NULL;
	if (!sim_page_test(page, SIM_PG_TOUCHED))
		sim_page_set(page, SIM_PG_TOUCHED);
	return direct_map + ((unsigned long long)pfn << SIM_PAGE_SHIFT);
}

void *sim_phys_to_virt(sim_phys_t paddr)
{
	unsigned long pfn = (unsigned long)(paddr >> SIM_PAGE_SHIFT);

	if (!sim_pfn_valid(pfn))
		return NULL;
	sim_page_address(sim_pfn_to_page(pfn));
	return direct_map + paddr;
}

struct sim_page *sim_virt_to_page(const void *addr)
{
	const unsigned char *p = addr;
	unsigned long pfn;

	if (!direct_map || p < direct_map || p >= direct_map + phys_span)
		return NULL;
	pfn = (unsigned long)((unsigned long long)(p - direct_map) >> SIM_PAGE_SHIFT);
	return sim_pfn_valid(pfn) ? sim_pfn_to_page(pfn) : NULL;
}

sim_phys_t sim_virt_to_phys(const void *addr)
{
	const unsigned char *p = addr;

	if (!direct_map || p < direct_map || p >= direct_map + phys_span)
		return ~0ULL;
	return (sim_phys_t)(p - direct_map);
}

/*
 * Zero [off, off + len) of the file, where it may hold data: a touched
 * page whose data the host never backed (a vmap that was not written, a
 * page already punched) is a hole and reads zero already.  The file says
 * where its data is (SEEK_DATA/SEEK_HOLE: shmem counts swapped-out pages
 * as data, so this never skips a nonzero page); each data extent of 16
 * pages or more goes back to the host in one hole punch, smaller ones are
 * written over.  Returns 0, or -1 when the file cannot say (the caller
 * clears every touched page).
 */
static int clear_file_range(unsigned long long off, unsigned long long len)
{
	unsigned long long end = off + len, pos = off;

	while (pos < end) {
		off_t data = lseek(data_fd, (off_t)pos, SEEK_DATA);
		unsigned long long hole;

		if (data < 0)
			return errno == ENXIO ? 0 : -1;	/* ENXIO: no data past pos */
		if ((unsigned long long)data >= end)
			return 0;
		hole = (unsigned long long)lseek(data_fd, data, SEEK_HOLE);
		if ((off_t)hole < 0)
			return -1;
		if (hole > end)
			hole = end;
		pos = (unsigned long long)data;
		if (hole - pos < (16ULL << SIM_PAGE_SHIFT) ||
		    fallocate(data_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      (off_t)pos, (off_t)(hole - pos)))
			memset(direct_map + pos, 0, hole - pos);
		pos = hole;
	}
	return 0;
}

void sim_mem_clear_data(struct sim_page *page, unsigned long nr)
{
	unsigned long i, touched = 0;
	unsigned long long off;

	for (i = 0; i < nr; i++)
		touched += sim_page_test(page + i, SIM_PG_TOUCHED);
	if (!touched)
		return;
	off = (unsigned long long)sim_page_to_pfn(page) << SIM_PAGE_SHIFT;
	/*
	 * A quarter of the run touched or more (a single page included):
	 * clear only where the file holds data, since a page marked touched
	 * may never have been written (a memset would fault in backing just
	 * to zero it; measured: fuzz_heap's corpus 97 -> 232 us per input
	 * with a memset for runs under 16 pages).  Fewer touched: page by
	 * page.
	 */
	if (touched * 4 >= nr &&
	    !clear_file_range(off, (unsigned long long)nr << SIM_PAGE_SHIFT)) {
		for (i = 0; i < nr; i++)
			sim_page_clear(page + i, SIM_PG_TOUCHED);
		return;
	}
	for (i = 0; i < nr; i++) {
		if (!sim_page_test(page + i, SIM_PG_TOUCHED))
			continue;
		memset(direct_map + off + (i << SIM_PAGE_SHIFT), 0, SIM_PAGE_SIZE);
		sim_page_clear(page + i, SIM_PG_TOUCHED);
	}
}

/* Map nr pages of the file from pfn at addr; 0 or -1. */
static int map_file_pages(unsigned char *addr, unsigned long pfn,
			  unsigned long nr)
{
	void *p = mmap(addr, nr << SIM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, data_fd,
		       (off_t)((unsigned long long)pfn << SIM_PAGE_SHIFT));

	return p == MAP_FAILED ? -1 : 0;
}

void *sim_vmap(struct sim_page **pages, unsigned long nr)
{
	struct vmap_area *area;
	unsigned char *addr;
	unsigned long i, run;

	if (!nr || data_fd < 0)
		return NULL;
	for (i = 0; i < nr; i++)
		if (!pages[i] || !sim_pfn_valid(sim_page_to_pfn(pages[i])))
			return NULL;
	area = malloc(sizeof(*area));
	if (!area)
		return NULL;
	addr = mmap(NULL, nr << SIM_PAGE_SHIFT, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (addr == MAP_FAILED) {
		free(area);
		return NULL;
	}
	/* One mapping per physically contiguous run. */
	for (i = 0; i < nr; i += run) {
		unsigned long pfn = sim_page_to_pfn(pages[i]);

		for (run = 1; i + run < nr; run++)
			if (sim_page_to_pfn(pages[i + run]) != pfn + run)
				break;
		if (map_file_pages(addr + (i << SIM_PAGE_SHIFT), pfn, run)) {
			munmap(addr, nr << SIM_PAGE_SHIFT);
			free(area);
			return NULL;
		}
	}
	for (i = 0; i < nr; i++)
		if (!sim_page_test(pages[i], SIM_PG_TOUCHED))
			sim_page_set(pages[i], SIM_PG_TOUCHED);
	sim_count(SIM_CNT_VMAP_PAGE, nr);
	area->addr = addr;
	area->nr = nr;
	pthread_mutex_lock(&vmap_lock);
	area->next = vmap_areas;
	vmap_areas = area;
	nr_vmap_areas++;
	pthread_mutex_unlock(&vmap_lock);
	return addr;
}

void sim_vunmap(void *addr)
{
	struct vmap_area **pp, *area = NULL;

	if (!addr)
		return;
	pthread_mutex_lock(&vmap_lock);
	for (pp = &vmap_areas; *pp; pp = &(*pp)->next) {
		if ((*pp)->addr == addr) {
			area = *pp;
			*pp = area->next;
			nr_vmap_areas--;
			break;
		}
	}
	pthread_mutex_unlock(&vmap_lock);
	if (!area) {
		sim_kernel_warn(__FILE__, __LINE__, "vunmap of an address vmap did not return");
		return;
	}
	munmap(area->addr, area->nr << SIM_PAGE_SHIFT);
	free(area);
}

unsigned long sim_vmap_outstanding(void)
{
	return nr_vmap_areas;
}

unsigned long long sim_mem_resident_bytes(void *addr, unsigned long len)
{
	size_t host_page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (len + host_page - 1) / host_page, done, i;
	unsigned long long total = 0;
	unsigned char vec[4096];

	for (done = 0; done < pages; done += sizeof(vec)) {
		size_t n = pages - done < sizeof(vec) ? pages - done : sizeof(vec);

		if (mincore((unsigned char *)addr + done * host_page,
			    n * host_page, vec))
			return total;
		for (i = 0; i < n; i++)
			total += vec[i] & 1;
	}
	return total * host_page;
}

unsigned long long sim_mem_host_bytes(void)
{
	unsigned long long total = 0;
	struct stat st;

	if (sim_vmemmap)
		total += sim_mem_resident_bytes(sim_vmemmap, memmap_bytes);
	if (data_fd >= 0 && !fstat(data_fd, &st))
		total += (unsigned long long)st.st_blocks * 512;
	return total + sim_buddy_host_bytes();
}

static void layout_ram(unsigned long long bytes)
{
	unsigned long long low = bytes < SIM_LOW_RAM_END ? bytes : SIM_LOW_RAM_END;

	ram_bytes = bytes;
	nr_ram_ranges = 1;
	ram_ranges[0].start_pfn = 0;
	ram_ranges[0].end_pfn = (unsigned long)(low >> SIM_PAGE_SHIFT);
	ram_ranges[1].start_pfn = ram_ranges[1].end_pfn = 0;
	sim_max_pfn = ram_ranges[0].end_pfn;
	if (bytes > low) {
		nr_ram_ranges = 2;
		ram_ranges[1].start_pfn = (unsigned long)(SIM_HIGH_RAM_START >> SIM_PAGE_SHIFT);
		ram_ranges[1].end_pfn = ram_ranges[1].start_pfn +
			(unsigned long)((bytes - low) >> SIM_PAGE_SHIFT);
		sim_max_pfn = ram_ranges[1].end_pfn;
	}
}

static void unmap_all(void)
{
	if (sim_vmemmap)
		munmap(sim_vmemmap, memmap_bytes);
	if (direct_map)
		munmap(direct_map, phys_span);
	if (data_fd >= 0)
		close(data_fd);
	sim_vmemmap = NULL;
	direct_map = NULL;
	data_fd = -1;
	sim_max_pfn = 0;
	nr_ram_ranges = 0;
	ram_ranges[0].end_pfn = 0;
}

int sim_mem_init(const struct sim_config *cfg)
{
	unsigned long long bytes = cfg->ram_bytes & ~(SIM_PAGE_SIZE - 1);
	void *p;
	int ret;

	sim_mem_destroy();
	if (!bytes)
		return -EINVAL;
	layout_ram(bytes);
	phys_span = (unsigned long long)sim_max_pfn << SIM_PAGE_SHIFT;
	memmap_bytes = (size_t)sim_max_pfn * sizeof(struct sim_page);

	p = mmap(NULL, memmap_bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		goto err_nomem;
	sim_vmemmap = p;
	/*
	 * The memmap is written densely where it is written at all (blocks are
	 * carved in address order; ageing writes all of it): transparent huge
	 * pages make that one host fault per 2 MiB of memmap (128 MiB of RAM)
	 * instead of 512.  Untouched parts still cost nothing.
	 */
	madvise(sim_vmemmap, memmap_bytes, MADV_HUGEPAGE);

	data_fd = memfd_create("dmasim-ram", MFD_CLOEXEC);
	if (data_fd < 0 || ftruncate(data_fd, (off_t)phys_span))
		goto err_nomem;
	p = mmap(NULL, phys_span, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_NORESERVE, data_fd, 0);
	if (p == MAP_FAILED)
		goto err_nomem;
	direct_map = p;
	if (nr_ram_ranges > 1)
		mprotect(direct_map + SIM_LOW_RAM_END,
			 SIM_HIGH_RAM_START - SIM_LOW_RAM_END, PROT_NONE);

	ret = sim_buddy_init(cfg);
	if (ret) {
		unmap_all();
		return ret;
	}
	return 0;

err_nomem:
	unmap_all();
	return -ENOMEM;
}

void sim_mem_destroy(void)
{
	struct vmap_area *area;

	sim_age_forget();
	sim_buddy_destroy();
	pthread_mutex_lock(&vmap_lock);
	while ((area = vmap_areas)) {
		vmap_areas = area->next;
		munmap(area->addr, area->nr << SIM_PAGE_SHIFT);
		free(area);
	}
	nr_vmap_areas = 0;
	pthread_mutex_unlock(&vmap_lock);
	unmap_all();
}
