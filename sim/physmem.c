// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated physical memory: the RAM map, the memmap (struct sim_page per
 * RAM pfn) and page data.
 *
 * Address map: the RAM ranges of sim_config.ram[] anywhere below
 * 2^phys_bits, or the default layout (SIM_LOW_RAM_END = 3 GiB,
 * SIM_HIGH_RAM_START = 4 GiB):
 *
 *   0 ............ min(ram, 3G)   RAM, zone DMA32
 *   3G ........... 4G             hole (32-bit MMIO: BARs go here)
 *   4G ........... 4G + ram - 3G  RAM, zone Normal (only if ram > 3 GiB)
 *   above ........                free for 64-bit BARs
 *
 * Sections (SPARSEMEM): the physical space is cut in 128 MiB sections; a
 * section that holds RAM is present and gets a slice of the memmap and of
 * the page data, both in section order, so a RAM range's struct pages and
 * data are contiguous and far-apart ranges cost nothing in between.
 * sim_sections[] (one entry per section of the physical width: 2^25 of 16
 * bytes for 52 bits, MAP_NORESERVE, read-only zero pages where nothing is
 * present) gives a pfn's struct page in one load, as the kernel's
 * __pfn_to_page() with SPARSEMEM; sim_memmap_section_pfn[] gives the pfn
 * back from a struct page's place in the memmap.
 *
 * Costs: the memmap is one MAP_NORESERVE anonymous mapping, so a struct
 * page costs host memory only once it is written: 64 bytes per page (in
 * units of the host's 4 KiB pages: no transparent huge pages, see
 * keep_for_next_machine()'s notes).  Host memory is kept from one
 * machine for the next (keep_for_next_machine()).  Page data lives in one
 * memfd, a section's worth per present
 * section, sparse (ftruncate), mapped once at direct_map (the direct map:
 * page i of the memmap has its data at direct_map + i pages).  vmap() maps
 * the same file pages again at consecutive addresses
 * (MAP_SHARED|MAP_FIXED), so aliases share data as the kernel's do.
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem_internal.h"

struct sim_mem_section *sim_sections;
unsigned long sim_nr_sections;
struct sim_page *sim_memmap;
unsigned long *sim_memmap_section_pfn;
unsigned long sim_max_pfn;

static struct sim_ram_range ram_ranges[SIM_MAX_RAM_RANGES];
static unsigned int nr_ram_ranges;
static unsigned long long ram_bytes;
static unsigned int phys_bits = SIM_PHYS_BITS_MAX;

static int data_fd = -1;
static unsigned char *direct_map;
static unsigned long nr_present;	/* present sections */
static size_t memmap_bytes, sections_bytes;
/* The memmap's and the direct map's mappings: at least what is in use. */
static size_t memmap_map_bytes, direct_map_bytes;
/*
 * Per host page of the memmap: how many teardowns in a row found it
 * resident and zero (zero_resident()); NULL until the first.  It goes
 * wherever the memmap goes.
 */
static unsigned char *memmap_idle;

/*
 * Host memory one machine leaves to the next (sim_mem_destroy() keeps it,
 * sim_mem_init() takes what fits): the section table, a memmap, and the
 * page-data file with its direct map, each given back as a fresh mapping
 * would be: the table's present entries cleared, the memmap's resident
 * pages (the ones ever touched) zeroed, the file's data punched out.  A
 * harness boots again whenever an input places RAM elsewhere
 * (fuzz/README.md), the suites boot one machine per case, the report and
 * the ageing presets dozens of 4-16 GiB machines; mapping, faulting and
 * unmapping all of it again was most of a boot.  Zeroing what was touched
 * costs what the host's fault would (a memset at memory speed), minus
 * the fault: measured on a 2-core VM, a first touch of fresh anonymous
 * memory ran at 0.5 GB/s (4 KiB pages) and 2 GB/s (huge pages), a memset
 * of resident memory at 8-15 GB/s, and an munmap of 256 MiB of 4 KiB
 * pages took 70-120 ms.  Only [0, memmap_bytes) of a kept memmap can
 * have been written by the machine that used it, so only that is zeroed
 * when it goes: the rest is still zero from before.
 *
 * Two memmaps are kept, one per kind, so that a process alternating
 * small and large machines keeps both:
 *  - small (up to KEEP_MEMMAP_MAX, RAM up to 1 GiB of 4 KiB pages): what
 *    is touched stays resident for the next machine.
 *  - large (up to KEEP_MEMMAP_LARGE_MAX: RAM up to 64 GiB of 4 KiB pages):
 *    what it holds resident stays with the process until a larger
 *    machine, or sim_machine_release_host_memory().
 * A memmap above that (a 1 TiB machine's 16 GiB, sparse) goes with its
 * machine.
 *
 * No memmap asks for transparent huge pages (MADV_HUGEPAGE; the large
 * kind once did).  On a VM whose balloon reports free
 * pages to the hypervisor (virtio-balloon free page reporting, as on the
 * project's 2-core VM), a free 2 MiB block is given back to the host, so
 * a huge-page fault mostly lands on memory the host must back again:
 * measured there, a first touch of 256 MiB took 25-35 ms with huge pages
 * when the host still backed them and 0.4-2.7 s when not (2 of 6 runs,
 * more under load), and 110-135 ms with 4 KiB pages every time (they come
 * from blocks split recently, still backed).  So 4 KiB pages: test
 * age_presets (twenty 16 GiB machines aged in full) 0.88-0.95 s of CPU
 * against 0.72-2.15 s, `dmasim heap --frag aged` (16 GiB) 0.29-0.32 s
 * against 0.40-1.70 s, and the 4-GPU replay's unmap_stride=1 run
 * 0.28-0.31 s against 1.6 s; `dmasim report --seeds 1 --ram 4G` is the
 * same within the noise.
 */
#define KEEP_MEMMAP_MAX		(16UL << 20)
#define KEEP_MEMMAP_LARGE_MAX	(1UL << 30)

enum { KEEP_SMALL, KEEP_LARGE, NR_KEEP };

/* Which kept memmap a memmap of this many bytes goes to (NR_KEEP: none). */
static unsigned int keep_kind(size_t bytes)
{
	if (bytes <= KEEP_MEMMAP_MAX)
		return KEEP_SMALL;
	return bytes <= KEEP_MEMMAP_LARGE_MAX ? KEEP_LARGE : NR_KEEP;
}

static struct {
	struct sim_mem_section *sections;
	size_t sections_bytes;
	struct sim_page *memmap[NR_KEEP];
	size_t memmap_map_bytes[NR_KEEP];
	unsigned char *memmap_idle[NR_KEEP];
	int data_fd;
	unsigned char *direct_map;
	size_t direct_map_bytes;
} kept = { .data_fd = -1 };

#define SECTION_BYTES	(1ULL << SIM_SECTION_SHIFT)

/* Index of a struct page in the memmap (and of its data in the file). */
static inline unsigned long memmap_index(const struct sim_page *page)
{
	return (unsigned long)(page - sim_memmap);
}

/* Live vmap areas, so vunmap knows the length and leaks can be counted. */
struct vmap_area {
	struct vmap_area *next;
	void *addr;
	unsigned long nr;
};
static struct vmap_area *vmap_areas;
static unsigned long nr_vmap_areas;
static pthread_mutex_t vmap_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned int sim_phys_bits(void)
{
	return phys_bits;
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
	unsigned long idx = memmap_index(page);

	if (sim_unlikely(idx >= nr_present << SIM_PFN_SECTION_SHIFT ||
			 !sim_pfn_valid(sim_page_to_pfn(page))))
		return NULL;
	if (!sim_page_test(page, SIM_PG_TOUCHED))
		sim_page_set(page, SIM_PG_TOUCHED);
	return direct_map + ((unsigned long long)idx << SIM_PAGE_SHIFT);
}

void *sim_phys_to_virt(sim_phys_t paddr)
{
	unsigned long long pfn = paddr >> SIM_PAGE_SHIFT;
	unsigned char *va;

	if (pfn > ~0UL || !sim_pfn_valid((unsigned long)pfn))
		return NULL;
	va = sim_page_address(sim_pfn_to_page((unsigned long)pfn));
	return va + (paddr & (SIM_PAGE_SIZE - 1));
}

/* The pfn whose data sits at p in the direct map, or ~0UL. */
static unsigned long direct_map_pfn(const unsigned char *p)
{
	unsigned long long off;
	unsigned long pfn;

	if (!direct_map || p < direct_map ||
	    p >= direct_map + nr_present * SECTION_BYTES)
		return ~0UL;
	off = (unsigned long long)(p - direct_map);
	pfn = sim_memmap_section_pfn[off >> SIM_SECTION_SHIFT] +
	      (unsigned long)((off >> SIM_PAGE_SHIFT) & (SIM_PAGES_PER_SECTION - 1));
	return sim_pfn_valid(pfn) ? pfn : ~0UL;
}

struct sim_page *sim_virt_to_page(const void *addr)
{
	unsigned long pfn = direct_map_pfn(addr);

	return pfn == ~0UL ? NULL : sim_pfn_to_page(pfn);
}

sim_phys_t sim_virt_to_phys(const void *addr)
{
	unsigned long pfn = direct_map_pfn(addr);

	if (pfn == ~0UL)
		return ~0ULL;
	return ((sim_phys_t)pfn << SIM_PAGE_SHIFT) |
	       ((unsigned long)addr & (SIM_PAGE_SIZE - 1));
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
	off = (unsigned long long)memmap_index(page) << SIM_PAGE_SHIFT;
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

/* Map the data of nr pages from memmap index idx at addr; 0 or -1. */
static int map_file_pages(unsigned char *addr, unsigned long idx,
			  unsigned long nr)
{
	void *p = mmap(addr, nr << SIM_PAGE_SHIFT, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, data_fd,
		       (off_t)((unsigned long long)idx << SIM_PAGE_SHIFT));

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
	/* One mapping per run of consecutive struct pages (and file pages). */
	for (i = 0; i < nr; i += run) {
		unsigned long idx = memmap_index(pages[i]);

		for (run = 1; i + run < nr; run++)
			if (memmap_index(pages[i + run]) != idx + run)
				break;
		if (map_file_pages(addr + (i << SIM_PAGE_SHIFT), idx, run)) {
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

static unsigned long long vmap_maintenance_calls;

void sim_vmap_maintain(const void *addr, unsigned long len)
{
	uintptr_t start = (uintptr_t)addr;
	struct vmap_area *area;
	int covered = 0;

	pthread_mutex_lock(&vmap_lock);
	for (area = vmap_areas; area && !covered; area = area->next)
		covered = start >= (uintptr_t)area->addr &&
			  start + len <= (uintptr_t)area->addr +
					 (area->nr << SIM_PAGE_SHIFT);
	pthread_mutex_unlock(&vmap_lock);
	__atomic_add_fetch(&vmap_maintenance_calls, 1, __ATOMIC_RELAXED);
	if (!covered)
		sim_kernel_warn(__FILE__, __LINE__,
				"cache maintenance of a range no live vmap covers");
}

unsigned long long sim_vmap_maintenance_calls(void)
{
	return __atomic_load_n(&vmap_maintenance_calls, __ATOMIC_RELAXED);
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

	if (sim_memmap)
		total += sim_mem_resident_bytes(sim_memmap, memmap_bytes);
	if (sim_sections)
		total += sim_mem_resident_bytes(sim_sections, sections_bytes);
	if (data_fd >= 0 && !fstat(data_fd, &st))
		total += (unsigned long long)st.st_blocks * 512;
	return total + sim_buddy_host_bytes();
}

/* The default layout of ram_bytes (see the top of the file). */
static void layout_default(unsigned long long bytes)
{
	unsigned long long low = bytes < SIM_LOW_RAM_END ? bytes : SIM_LOW_RAM_END;

	nr_ram_ranges = 1;
	ram_ranges[0].start_pfn = 0;
	ram_ranges[0].end_pfn = (unsigned long)(low >> SIM_PAGE_SHIFT);
	if (bytes > low) {
		nr_ram_ranges = 2;
		ram_ranges[1].start_pfn = (unsigned long)(SIM_HIGH_RAM_START >> SIM_PAGE_SHIFT);
		ram_ranges[1].end_pfn = ram_ranges[1].start_pfn +
			(unsigned long)((bytes - low) >> SIM_PAGE_SHIFT);
	}
}

/* The placed ranges of cfg->ram[]; -EINVAL unless page aligned, ascending, disjoint, inside the width. */
static int layout_placed(const struct sim_config *cfg)
{
	unsigned long long prev_end = 0, limit = 1ULL << phys_bits;
	unsigned int i;

	nr_ram_ranges = 0;
	for (i = 0; i < SIM_MAX_RAM_RANGES && cfg->ram[i].size; i++) {
		const struct sim_phys_range *r = &cfg->ram[i];

		if (((r->start | r->size) & (SIM_PAGE_SIZE - 1)) ||
		    r->start >= limit || r->size > limit - r->start ||
		    (i && r->start < prev_end))
			return -EINVAL;
		ram_ranges[i].start_pfn = (unsigned long)(r->start >> SIM_PAGE_SHIFT);
		ram_ranges[i].end_pfn = (unsigned long)((r->start + r->size) >> SIM_PAGE_SHIFT);
		prev_end = r->start + r->size;
		nr_ram_ranges++;
	}
	return 0;
}

/* The machine's host memory, unmapped, and its state forgotten. */
static void unmap_all(void)
{
	if (sim_memmap)
		munmap(sim_memmap, memmap_map_bytes);
	free(memmap_idle);
	memmap_idle = NULL;
	if (direct_map)
		munmap(direct_map, direct_map_bytes);
	if (sim_sections)
		munmap(sim_sections, sections_bytes);
	if (data_fd >= 0)
		close(data_fd);
	free(sim_memmap_section_pfn);
	sim_memmap = NULL;
	sim_sections = NULL;
	sim_memmap_section_pfn = NULL;
	sim_nr_sections = 0;
	nr_present = 0;
	memmap_map_bytes = direct_map_bytes = 0;
	direct_map = NULL;
	data_fd = -1;
	sim_max_pfn = 0;
	nr_ram_ranges = 0;
	ram_bytes = 0;
}

/* Kept memmap k, unmapped. */
static void release_kept_memmap(unsigned int k)
{
	if (kept.memmap[k])
		munmap(kept.memmap[k], kept.memmap_map_bytes[k]);
	free(kept.memmap_idle[k]);
	kept.memmap[k] = NULL;
	kept.memmap_map_bytes[k] = 0;
	kept.memmap_idle[k] = NULL;
}

/*
 * What kept holds, unmapped (it no longer fits, or the process is done
 * with it); the memmap of kind keep_other stays (NR_KEEP: none stays).
 */
static void release_kept(unsigned int keep_other)
{
	unsigned int k;

	if (kept.sections)
		munmap(kept.sections, kept.sections_bytes);
	kept.sections = NULL;
	kept.sections_bytes = 0;
	for (k = 0; k < NR_KEEP; k++)
		if (k != keep_other)
			release_kept_memmap(k);
	if (kept.direct_map)
		munmap(kept.direct_map, kept.direct_map_bytes);
	if (kept.data_fd >= 0)
		close(kept.data_fd);
	kept.direct_map = NULL;
	kept.direct_map_bytes = 0;
	kept.data_fd = -1;
}

void sim_mem_release_kept(void)
{
	release_kept(NR_KEEP);
	sim_buddy_release_kept();
}

/*
 * What is kept goes back when the process exits, before valgrind's leak
 * check: its scan of the client's memory would otherwise read the kept
 * direct map (a 16 GiB machine's: 16 GB of shmem faulted in, an OOM kill
 * in test_sim_iommu) and see the kept idle counts as reachable blocks.
 */
__attribute__((destructor)) static void release_kept_at_exit(void)
{
	sim_mem_release_kept();
}

/*
 * Whether the len bytes at p (a multiple of 64, aligned) are all zero.
 * Called on whole resident host pages of the memmap only, the simulator's
 * own mmap (which ASan does not track: its shadow says addressable
 * throughout), so ASan's check of each 8-byte load is left out: in the
 * fuzzers' build it made this loop most of a teardown's reading.
 */
__attribute__((no_sanitize_address))
static int all_zero(const unsigned char *p, size_t len)
{
	const unsigned long *w = (const unsigned long *)p;
	size_t i, n = len / sizeof(*w);

	for (i = 0; i < n; i += 8)
		if (w[i] | w[i + 1] | w[i + 2] | w[i + 3] |
		    w[i + 4] | w[i + 5] | w[i + 6] | w[i + 7])
			return 0;
	return 1;
}

/* Give [from, to) back to the host (it reads zero after); nothing if empty. */
static void drop_pages(unsigned char *from, unsigned char *to)
{
	/* a failure leaves them resident, and zero: no harm */
	if (to > from)
		madvise(from, (size_t)(to - from), MADV_DONTNEED);
}

/*
 * Teardowns in a row that must find a memmap page resident and zero before
 * it goes back to the host.  Measured on the 2-core VM: giving back every
 * such page at once made test_age_presets (ten machines aged alike, each
 * writing much of what the one before did not) 0.9 s of system time
 * slower, with the pages faulted in again; after four idle teardowns a
 * page is one that a series of machines does not write.
 */
#define IDLE_TEARDOWNS	4

/*
 * Whether the host may have swapped out a page of ours: mincore() says
 * "not resident" of an anonymous page in swap, which then still holds what
 * the machine wrote, so zero_resident() cannot tell it from a page never
 * written.  Any active swap area (a line of /proc/swaps past its header),
 * or no /proc/swaps to ask, and the memmap is not kept.  Asked at each
 * teardown: swapon may run while a process lives.
 */
static int host_may_swap(void)
{
	char buf[256];
	ssize_t n;
	int fd = open("/proc/swaps", O_RDONLY | O_CLOEXEC);
	const char *nl;

	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	nl = strchr(buf, '\n');
	return !nl || nl[1] != 0;
}

/*
 * Zero the resident host pages of the memmap's [0, len) (page aligned):
 * the only ones a private anonymous mapping can hold nonzero data in.
 * Every resident page reads zero when the previous machine left, so one
 * that does not was written by this machine: it is cleared and stays
 * resident for the next machine, which is likely to write it again.  A
 * resident page that reads zero was not written (or is the host's shared
 * zero page, mapped by a read, as pfn_valid() walks do: a write would give
 * it a page of its own); after IDLE_TEARDOWNS such teardowns in a row it
 * goes back to the host (MADV_DONTNEED, in runs from one such page to
 * the next, never over pages that are only not resident: a run over the
 * whole memmap at every teardown made valgrind's memcheck re-shadow all of
 * it each time, 15 GB and an OOM kill in test_sim_iommu), so that
 * teardowns stop reading it.  Reading every resident page was most of a teardown: one
 * machine that wrote the whole memmap (ageing, a large allocation) made
 * each later teardown read all of it, in test_sweep_type1 --slow a
 * quarter of the CPU (a 512 MiB machine per case, 8 MiB of memmap).
 * Returns 0, or -1 when the host cannot say which pages are resident.
 */
static int zero_resident(size_t len)
{
	unsigned char *addr = (unsigned char *)sim_memmap;
	size_t host_page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = len / host_page, done, i;
	unsigned char vec[4096];
	/* [run, run_end): from the first page going back to the last one */
	unsigned char *run = NULL, *run_end = NULL;

	if (host_may_swap())
		return -1;
	if (!memmap_idle)
		memmap_idle = calloc(memmap_map_bytes / host_page, 1);
	for (done = 0; done < pages; done += sizeof(vec)) {
		size_t n = pages - done < sizeof(vec) ? pages - done : sizeof(vec);

		if (mincore(addr + done * host_page, n * host_page, vec))
			return -1;
		for (i = 0; i < n; i++) {
			unsigned char *page = addr + (done + i) * host_page;
			unsigned char *idle = memmap_idle ? &memmap_idle[done + i] : NULL;

			if (!(vec[i] & 1))
				continue;	/* not resident: zero, may lie in a run */
			if (!all_zero(page, host_page)) {
				memset(page, 0, host_page);
				if (idle)
					*idle = 0;
			} else if (idle && ++*idle >= IDLE_TEARDOWNS) {
				*idle = 0;
				if (!run)
					run = page;
				run_end = page + host_page;
				continue;	/* goes back with the run */
			}
			if (run)
				drop_pages(run, run_end);
			run = NULL;
		}
	}
	if (run)
		drop_pages(run, run_end);
	return 0;
}

static void place_sections_clear(void);

/*
 * sim_mem_destroy(): the machine's host memory to kept, as fresh (see
 * above), what cannot be kept unmapped; then its state forgotten.
 */
static void keep_for_next_machine(void)
{
	unsigned int k = keep_kind(memmap_map_bytes);

	if (!sim_sections) {	/* no machine: what is kept stays */
		unmap_all();
		return;
	}
	/* What is kept now is what init found too small: replaced. */
	release_kept(k == KEEP_SMALL ? KEEP_LARGE : KEEP_SMALL);
	place_sections_clear();
	kept.sections = sim_sections;
	kept.sections_bytes = sections_bytes;
	sim_sections = NULL;
	if (sim_memmap && k < NR_KEEP &&
	    !zero_resident(memmap_bytes)) {
		kept.memmap[k] = sim_memmap;
		kept.memmap_map_bytes[k] = memmap_map_bytes;
		kept.memmap_idle[k] = memmap_idle;
		sim_memmap = NULL;
		memmap_idle = NULL;
	}
	if (direct_map &&
	    !fallocate(data_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		       (off_t)(nr_present * SECTION_BYTES))) {
		kept.direct_map = direct_map;
		kept.direct_map_bytes = direct_map_bytes;
		kept.data_fd = data_fd;
		direct_map = NULL;
		data_fd = -1;
	}
	unmap_all();
}

/*
 * Fill the section table: every section a RAM range touches is present,
 * in pfn order; its valid span runs from its first to its last RAM pfn.
 * Returns the number of present sections, counting only (table NULL) or
 * writing.
 */
static unsigned long place_sections(struct sim_mem_section *table,
				    unsigned long *first_pfn)
{
	unsigned long n = 0, last = ~0UL;
	unsigned int i;

	for (i = 0; i < nr_ram_ranges; i++) {
		unsigned long s = ram_ranges[i].start_pfn >> SIM_PFN_SECTION_SHIFT;
		unsigned long e = (ram_ranges[i].end_pfn - 1) >> SIM_PFN_SECTION_SHIFT;

		for (; s <= e; s++) {
			unsigned long base = s << SIM_PFN_SECTION_SHIFT;
			unsigned long lo = ram_ranges[i].start_pfn > base ?
					   ram_ranges[i].start_pfn - base : 0;
			unsigned long hi = ram_ranges[i].end_pfn - base;

			if (hi > SIM_PAGES_PER_SECTION)
				hi = SIM_PAGES_PER_SECTION;
			if (s != last) {
				if (table) {
					first_pfn[n] = base;
					table[s].map_base =
						(unsigned long)(sim_memmap +
							(n << SIM_PFN_SECTION_SHIFT)) -
						base * sizeof(struct sim_page);
					table[s].lo = (unsigned int)lo;
				}
				n++;
				last = s;
			}
			if (table)
				table[s].hi = (unsigned int)hi;
		}
	}
	return n;
}

/* bytes of zero memory, backed by the host only once written; NULL if not. */
static void *anon_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The present sections' table entries back to zero, as mapped fresh. */
static void place_sections_clear(void)
{
	unsigned int i;

	for (i = 0; i < nr_ram_ranges; i++) {
		unsigned long s = ram_ranges[i].start_pfn >> SIM_PFN_SECTION_SHIFT;
		unsigned long e = (ram_ranges[i].end_pfn - 1) >> SIM_PFN_SECTION_SHIFT;

		memset(&sim_sections[s], 0, (e - s + 1) * sizeof(sim_sections[0]));
	}
}

/* Pages between two RAM ranges that share a section: reserved, as holes. */
static void reserve_section_holes(void)
{
	unsigned int i;
	unsigned long pfn;

	for (i = 1; i < nr_ram_ranges; i++) {
		unsigned long from = ram_ranges[i - 1].end_pfn;
		unsigned long to = ram_ranges[i].start_pfn;

		if ((from - 1) >> SIM_PFN_SECTION_SHIFT != to >> SIM_PFN_SECTION_SHIFT)
			continue;
		for (pfn = from; pfn < to; pfn++)
			sim_page_set(sim_pfn_to_page(pfn), SIM_PG_RESERVED);
	}
}

int sim_mem_init(const struct sim_config *cfg)
{
	unsigned long long bytes = cfg->ram_bytes & ~(SIM_PAGE_SIZE - 1);
	unsigned int i, k;
	void *p;
	int ret;

	sim_mem_destroy();
	phys_bits = cfg->phys_bits ? cfg->phys_bits : SIM_PHYS_BITS_MAX;
	if (phys_bits < 32 || phys_bits > SIM_PHYS_BITS_MAX)
		return -EINVAL;
	if (cfg->ram[0].size) {
		if (layout_placed(cfg))
			return -EINVAL;
	} else {
		if (!bytes)
			return -EINVAL;
		layout_default(bytes);
	}
	for (i = 0; i < nr_ram_ranges; i++)
		ram_bytes += (unsigned long long)(ram_ranges[i].end_pfn -
			ram_ranges[i].start_pfn) << SIM_PAGE_SHIFT;
	sim_max_pfn = ram_ranges[nr_ram_ranges - 1].end_pfn;

	sim_nr_sections = 1UL << (phys_bits - SIM_SECTION_SHIFT);
	sections_bytes = sim_nr_sections * sizeof(struct sim_mem_section);
	nr_present = place_sections(NULL, NULL);
	memmap_bytes = (size_t)nr_present * SIM_PAGES_PER_SECTION *
		       sizeof(struct sim_page);

	if (kept.sections && kept.sections_bytes == sections_bytes) {
		sim_sections = kept.sections;
		kept.sections = NULL;
	} else if (!(sim_sections = anon_map(sections_bytes))) {
		goto err_nomem;
	}
	k = keep_kind(memmap_bytes);
	if (k < NR_KEEP && kept.memmap[k] && kept.memmap_map_bytes[k] >= memmap_bytes) {
		sim_memmap = kept.memmap[k];
		memmap_map_bytes = kept.memmap_map_bytes[k];
		memmap_idle = kept.memmap_idle[k];
		kept.memmap[k] = NULL;
		kept.memmap_map_bytes[k] = 0;
		kept.memmap_idle[k] = NULL;
	} else {
		sim_memmap = anon_map(memmap_bytes);
		if (!sim_memmap)
			goto err_nomem;
		memmap_map_bytes = memmap_bytes;
	}
	sim_memmap_section_pfn = malloc(nr_present * sizeof(unsigned long));
	if (!sim_memmap_section_pfn)
		goto err_nomem;
	place_sections(sim_sections, sim_memmap_section_pfn);
	reserve_section_holes();

	if (kept.direct_map &&
	    kept.direct_map_bytes >= nr_present * SECTION_BYTES) {
		direct_map = kept.direct_map;
		direct_map_bytes = kept.direct_map_bytes;
		data_fd = kept.data_fd;
		kept.direct_map = NULL;
		kept.data_fd = -1;
	} else {
		data_fd = memfd_create("dmasim-ram", MFD_CLOEXEC);
		if (data_fd < 0 ||
		    ftruncate(data_fd, (off_t)(nr_present * SECTION_BYTES)))
			goto err_nomem;
		p = mmap(NULL, nr_present * SECTION_BYTES, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_NORESERVE, data_fd, 0);
		if (p == MAP_FAILED)
			goto err_nomem;
		direct_map = p;
		direct_map_bytes = nr_present * SECTION_BYTES;
	}
	/*
	 * What did not fit this machine goes, what fitted was taken; the
	 * memmap of the other kind stays for a machine of that kind.
	 */
	release_kept(k == KEEP_SMALL ? KEEP_LARGE : KEEP_SMALL);

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
	keep_for_next_machine();
}
