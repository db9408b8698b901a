/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared helpers of the fuzzing harnesses (plain C, no kernel header):
 * reading typed values from the fuzzer's input, and FUZZ_CHECK(), which
 * reports a violated invariant and aborts so that every engine (libFuzzer,
 * AFL++, the replay driver under `meson test`) records a crash.
 *
 * Reading past the end of the input yields zeros: every input decodes to
 * some scenario, so the fuzzer never wastes runs on rejected inputs.
 *
 * Every input must behave the same whichever inputs ran before it in the
 * process: a harness builds the machine once (fuzz_boot_machine()), takes
 * a checkpoint, and puts the machine back to it after each input
 * (sim_buddy_rewind()); the replay driver's --order-check proves it over a
 * corpus.
 *
 * Each harness names the operations an input can ask for with an enum
 * (and, where some are drawn more often than others, a table from the
 * operation byte to the enum): the decoding of the corpora in
 * fuzz/corpus must stay what it is, byte for byte.
 */
#ifndef DMASIM_FUZZ_COMMON_H
#define DMASIM_FUZZ_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/sim.h>

/* The simulated CPU's page and leaf sizes (the build's DMASIM_PAGE_SHIFT). */
#define PAGE		SIM_PAGE_SIZE
#define PMD		SIM_PMD_SIZE
#define PUD		SIM_PUD_SIZE

/*
 * RAM is FUZZ_RAM_BYTES wherever it goes: 65,536 pages, as many at every
 * page size as fuzz_boot_machine() gives (256 MiB of 4 KiB pages, 1 GiB
 * of 16 KiB, 4 GiB of 64 KiB), so an input that populates some pages
 * finds as much room at every page size.
 */
#define FUZZ_RAM_BYTES		(65536ULL * PAGE)
/* RAM ending at 4 GiB: half the space below it at most, BARs get the rest. */
#define FUZZ_RAM_BELOW_4G_BYTES						\
	(FUZZ_RAM_BYTES < (2ULL << 30) ? FUZZ_RAM_BYTES : 2ULL << 30)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_input {
	const uint8_t *p;
	size_t left;
};

static inline struct fuzz_input fuzz_input(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };

	return in;
}

static inline int fuzz_empty(const struct fuzz_input *in)
{
	return in->left == 0;
}

static inline uint64_t fuzz_bytes(struct fuzz_input *in, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++) {
		v <<= 8;
		if (in->left) {
			v |= *in->p++;
			in->left--;
		}
	}
	return v;
}

static inline uint8_t fuzz_u8(struct fuzz_input *in)
{
	return (uint8_t)fuzz_bytes(in, 1);
}

static inline uint16_t fuzz_u16(struct fuzz_input *in)
{
	return (uint16_t)fuzz_bytes(in, 2);
}

static inline uint32_t fuzz_u32(struct fuzz_input *in)
{
	return (uint32_t)fuzz_bytes(in, 4);
}

static inline uint64_t fuzz_u64(struct fuzz_input *in)
{
	return fuzz_bytes(in, 8);
}

/* A value in [0, n) (n > 0), from one byte when n fits in one. */
static inline unsigned int fuzz_below(struct fuzz_input *in, unsigned int n)
{
	return (n <= 256 ? fuzz_u8(in) : fuzz_u16(in)) % n;
}

/*
 * ASan's quarantine (freed memory held back so that a use after free is
 * caught) is 256 MiB by default: every allocation then lands on memory
 * last touched hundreds of inputs ago, cold in every cache.  4 MiB holds
 * more than a whole input frees, so a use after free within an input is
 * still caught: over the corpora an input allocates at most 75 KB
 * (fuzz_type1) and 592 KB (fuzz_heap; 4 buffers of 4,096 pages and 6
 * attachments, each with a 4,096-entry scatterlist, would be 1.3 MB).
 * Measured, replaying with ASan+UBSan: a 2-byte fuzz_type1 input costs
 * 27 us with the default, 12 us with 4 MiB; fuzz_type1's corpus 97 us per
 * input with 16 MiB, 77 us with 4 MiB.  ASAN_OPTIONS in the environment
 * still wins (OSS-Fuzz sets its own).  Since 2026-12-02 the kernel code's
 * objects (kmalloc) no longer come from ASan's allocator but from
 * sim/slab.c's poisoned caches, with their own quarantine
 * (FUZZ_SLAB_QUARANTINE_FLOOR below); this one holds what the simulator
 * and libFuzzer free.
 */
#ifdef __has_feature
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(FUZZ_ASAN)
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=4";
}
#endif

/*
 * A page count in [1, max] from two bytes, small most of the time.  What a
 * run costs is per-page work (pinning, IOMMU leaves, unmapping, zeroing),
 * and most paths need only a few pages; the counts that matter beyond
 * that are the ones around `edge` (a PMD's worth of pages: a huge leaf,
 * a GUP batch of struct page pointers) and the largest.  The top four
 * bits pick the class: 10 in 16 give 1..16 pages, 3 in 16 give 1..256,
 * 2 in 16 give edge - 8 .. edge + 8, and 1 in 16 gives 1..max.
 */
static inline unsigned long fuzz_pages(struct fuzz_input *in,
				       unsigned long max, unsigned long edge)
{
	unsigned int v = fuzz_u16(in), low = v & 0xfff, cls = v >> 12;
	unsigned long n;

	if (cls < 10)
		n = low % 16 + 1;
	else if (cls < 13)
		n = low % 256 + 1;
	else if (cls < 15)
		n = edge - 8 + low % 17;
	else
		n = low % max + 1;
	return n < max ? n : max;
}


/*
 * DMASIM_FUZZ_VERBOSE=1 in the environment: FUZZ_LOG() prints each
 * operation as it is decoded (to read what a saved crash does).
 */
static inline int fuzz_verbose(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("DMASIM_FUZZ_VERBOSE");

		v = e && *e && *e != '0';
	}
	return v;
}

/*
 * The outcome of an input, for the replay driver's order check
 * (replay_main.c --order-check): while fuzz_digesting is set, every
 * FUZZ_LOG() line and every FUZZ_NOTE() value (pfns, addresses the log does
 * not print) is hashed into fuzz_digest (FNV-1a).  Two runs of one input
 * with the same digest did the same thing.  Defined here: each harness is
 * one translation unit.
 */
int fuzz_digesting;
unsigned long long fuzz_digest;

static inline void fuzz_digest_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		fuzz_digest = (fuzz_digest ^ b[i]) * 0x100000001b3ULL;
}

#define FUZZ_NOTE(v)							\
	do {								\
		if (fuzz_digesting) {					\
			unsigned long long fuzz_note_v_ = (v);		\
									\
			fuzz_digest_bytes(&fuzz_note_v_,		\
					  sizeof(fuzz_note_v_));	\
		}							\
	} while (0)

__attribute__((format(printf, 1, 2)))
static inline void fuzz_log_line(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	if (fuzz_verbose())
		fprintf(stderr, "%s\n", line);
	if (fuzz_digesting)
		fuzz_digest_bytes(line, (size_t)n + 1);
}

#define FUZZ_LOG(...)							\
	do {								\
		if (fuzz_verbose() || fuzz_digesting)			\
			fuzz_log_line(__VA_ARGS__);			\
	} while (0)

/*
 * Choice points (include/dmasim/choices.def) answered by the input: bytes
 * after the last FUZZ_CHOICE_MARK are the choice stream, one byte per hit
 * (high bit clear: the default; set: alternative 1 + (low bits % (nalt -
 * 1))), and the operations end before the mark.  An input without the
 * mark decodes as it always did and takes every default; so does every
 * hit after the stream runs out.  fuzz_choice_deny[point] has bit k set
 * for an alternative k the harness cannot follow (its model would not
 * survive another task's munmap, say): that one is taken as the default.
 */
#define FUZZ_CHOICE_MARK	"\xd3" "choice"
#define FUZZ_CHOICE_MARK_LEN	(sizeof(FUZZ_CHOICE_MARK) - 1)

static struct fuzz_input fuzz_choice_stream;
static unsigned int fuzz_choice_deny[SIM_NR_CHOICE_POINTS];
/*
 * Inputs that carried a choice stream, and the alternatives they took:
 * replay_main.c prints both under DMASIM_FUZZ_STATS (so a differential run
 * can show its inputs reach the choice points).  Defined here: each
 * harness is one translation unit.
 */
unsigned long long fuzz_choice_inputs;
unsigned long long fuzz_choices_taken;
static unsigned long long fuzz_choice_hits;	/* this input's, so far */

static unsigned int fuzz_choice_pick(void *ctx, enum sim_choice_point cp,
				     unsigned int nalt)
{
	struct fuzz_input *in = ctx;
	unsigned int b, alt;

	if (fuzz_empty(in))
		return 0;
	fuzz_choice_hits++;
	b = fuzz_u8(in);
	if (!(b & 0x80))
		return 0;
	alt = 1 + (b & 0x7f) % (nalt - 1);
	if (fuzz_choice_deny[cp] & (1u << alt))
		return 0;
	fuzz_choices_taken++;
	/*
	 * Logged where it happens: two implementations whose hits differ
	 * (tools/fuzz-differential.sh) show it here.
	 */
	FUZZ_LOG("choice %s: alternative %u at hit %llu", sim_choice_name(cp),
		 alt, fuzz_choice_hits);
	return alt;
}

/*
 * Split *in at the last occurrence of mark: *in keeps what is before it,
 * the result is what follows (empty, *in unchanged, without the mark).
 * memrchr() finds the candidates (the mark's first byte, 0xd3, is rare in
 * an input) and memcmp() looks only there: a memcmp() at every position
 * went through libFuzzer's memcmp hook each time, a fifth of a
 * fuzz_iommu_pgsize run.  The hook still sees the mark wherever an input
 * holds its first byte, and the dictionaries name the marks.
 */
static inline struct fuzz_input fuzz_split_at_mark(struct fuzz_input *in,
						   const char *mark,
						   size_t mark_len)
{
	size_t end = in->left;	/* a match ends at most here */

	while (end >= mark_len) {
		const uint8_t *c = memrchr(in->p, (unsigned char)mark[0],
					   end - mark_len + 1);
		size_t i;

		if (!c)
			break;
		i = (size_t)(c - in->p) + mark_len;
		if (!memcmp(c, mark, mark_len)) {
			struct fuzz_input tail = fuzz_input(in->p + i,
							    in->left - i);

			in->left = i - mark_len;
			return tail;
		}
		end = i - 1;	/* the next candidate starts before c */
	}
	return fuzz_input(NULL, 0);
}

/*
 * Kernel objects (kmalloc) freed before the current input that the slab
 * quarantine still keeps poisoned, at least, in ASan builds (sim/slab.c):
 * everything an input frees stays poisoned until the input ends, so a use
 * after free within an input is always caught; this much of what the
 * inputs before it freed too (an input frees 20 KB of slots on average
 * over the type1 and heap corpora: the last dozen inputs).  A smaller
 * quarantine reuses memory sooner, in cache: a 4 MiB one made every
 * kmalloc and kfree miss it (fuzz/README.md, "Throughput").
 */
#define FUZZ_SLAB_QUARANTINE_FLOOR	(256UL << 10)

/*
 * The input's operations (everything before the last mark), with the
 * choice stream after it armed for this input; end with fuzz_choices_end().
 */
static inline struct fuzz_input fuzz_input_choosing(const uint8_t *data,
						    size_t size)
{
	struct fuzz_input ops = fuzz_input(data, size);

	sim_slab_quarantine_input(FUZZ_SLAB_QUARANTINE_FLOOR);

	fuzz_choice_hits = 0;
	fuzz_choice_stream = fuzz_split_at_mark(&ops, FUZZ_CHOICE_MARK,
						FUZZ_CHOICE_MARK_LEN);
	if (!fuzz_empty(&fuzz_choice_stream)) {
		fuzz_choice_inputs++;
		sim_choice_fuzz(fuzz_choice_pick, &fuzz_choice_stream);
	}
	return ops;
}

/* Disarm the input's choices; a SIGKILL one sent dies with the input. */
static inline void fuzz_choices_end(void)
{
	if (!fuzz_empty(&fuzz_choice_stream) || sim_choices_armed) {
		sim_choice_fuzz(NULL, NULL);
		kapi_task_set_fatal_signal(0);
	}
}

/*
 * Report and abort.  The message names the invariant; the engine saves the
 * input that broke it.
 */
#define FUZZ_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n  ", \
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

/*
 * The machine every harness fuzzes on, built once per process: 65,536 pages
 * of RAM (256 MiB of 4 KiB pages), the sim seeded with seed, the kernel booted (kapi_boot()).
 */
static inline void fuzz_boot_machine(unsigned long long seed)
{
	/* 65,536 pages: 256 MiB of 4 KiB pages, as many at every page size */
	struct sim_config cfg = { .ram_bytes = FUZZ_RAM_BYTES, .seed = seed };

	FUZZ_CHECK(sim_machine_init(&cfg) == 0, "machine");
	FUZZ_CHECK(kapi_boot() == 0, "boot");
}

/*
 * Where an input puts things (optional): the bytes after the last
 * FUZZ_PLACE_MARK in the operations, one byte per field below, each
 * modulo its choices; missing bytes are 0, today's placement, so an input
 * without the mark decodes as it always did.  Layout:
 *   [operations][FUZZ_PLACE_MARK ram bar vma iova][FUZZ_CHOICE_MARK ...]
 */
#define FUZZ_PLACE_MARK		"\xd3" "place"
#define FUZZ_PLACE_MARK_LEN	(sizeof(FUZZ_PLACE_MARK) - 1)

enum fuzz_ram_place {
	FUZZ_RAM_DEFAULT,	/* the sim's default layout */
	FUZZ_RAM_AT_PFN0,	/* from physical page 0 */
	FUZZ_RAM_BELOW_4G,	/* ending at 4 GiB (2 GiB at most: a hole stays) */
	FUZZ_RAM_AT_TOP,	/* ending at 2^52 */
	FUZZ_RAM_RAGGED,	/* two ranges sharing a section, not PMD aligned */
	FUZZ_RAM_NR
};
enum fuzz_bar_place {
	FUZZ_BAR_DEFAULT,	/* sim_bar_create() above RAM */
	FUZZ_BAR_BELOW_4G,	/* in the hole below 4 GiB */
	FUZZ_BAR_AT_TOP,	/* down from the top of the physical width */
	FUZZ_BAR_AT_PFN0,	/* up from physical page 0 */
	FUZZ_BAR_NR
};
enum fuzz_vma_place {
	FUZZ_VMA_DEFAULT,	/* the sim picks (from 4 GiB up) */
	FUZZ_VMA_BOTTOM,	/* up from the first page of user space */
	FUZZ_VMA_TOP,		/* down from the top of user space */
	FUZZ_VMA_NR
};
enum fuzz_iova_place {
	FUZZ_IOVA_DEFAULT,	/* as the operation's bytes say */
	FUZZ_IOVA_TOP_HALF,	/* the same with bit 63 flipped */
	FUZZ_IOVA_END,		/* in the last PUD of the 64-bit space */
	FUZZ_IOVA_NR
};

struct fuzz_placement {
	enum fuzz_ram_place ram;
	enum fuzz_bar_place bar;
	enum fuzz_vma_place vma;
	enum fuzz_iova_place iova;
};

/* Cut the placement off the end of *ops and decode it. */
static inline struct fuzz_placement fuzz_placement_of(struct fuzz_input *ops)
{
	struct fuzz_input p = fuzz_split_at_mark(ops, FUZZ_PLACE_MARK,
						 FUZZ_PLACE_MARK_LEN);
	struct fuzz_placement pl;

	pl.ram = (enum fuzz_ram_place)(fuzz_u8(&p) % FUZZ_RAM_NR);
	pl.bar = (enum fuzz_bar_place)(fuzz_u8(&p) % FUZZ_BAR_NR);
	pl.vma = (enum fuzz_vma_place)(fuzz_u8(&p) % FUZZ_VMA_NR);
	pl.iova = (enum fuzz_iova_place)(fuzz_u8(&p) % FUZZ_IOVA_NR);
	return pl;
}

/*
 * The machine of fuzz_boot_machine(seed 0) with its RAM where ram says
 * (the same FUZZ_RAM_BYTES, placed), booted again only when the layout differs
 * from the machine's now; before the old machine goes, teardown (if not
 * NULL) gives back what the harness made on it.  Returns 1 if it booted
 * (the caller then makes its one-time state again), 0 if the machine stays.
 */
static inline int fuzz_boot_machine_for(enum fuzz_ram_place ram,
					void (*teardown)(void))
{
	static const struct sim_phys_range layouts[FUZZ_RAM_NR][2] = {
		[FUZZ_RAM_AT_PFN0] = { { 0, FUZZ_RAM_BYTES } },
		[FUZZ_RAM_BELOW_4G] = { { (4ULL << 30) - FUZZ_RAM_BELOW_4G_BYTES,
					  FUZZ_RAM_BELOW_4G_BYTES } },
		[FUZZ_RAM_AT_TOP] = { { (1ULL << 52) - FUZZ_RAM_BYTES,
					FUZZ_RAM_BYTES } },
		/* a quarter, 16 pages of gap, three quarters */
		[FUZZ_RAM_RAGGED] = {
			{ (1ULL << 30) + 3 * PAGE, FUZZ_RAM_BYTES / 4 },
			{ (1ULL << 30) + FUZZ_RAM_BYTES / 4 + 19 * PAGE,
			  FUZZ_RAM_BYTES / 4 * 3 } },
	};
	static int booted_ram = -1;
	struct sim_config cfg = { .ram_bytes = FUZZ_RAM_BYTES };

	if (booted_ram == (int)ram)
		return 0;
	if (booted_ram >= 0) {
		if (teardown)
			teardown();
		sim_machine_destroy();
	}
	if (ram != FUZZ_RAM_DEFAULT)
		memcpy(cfg.ram, layouts[ram], sizeof(layouts[ram]));
	FUZZ_CHECK(sim_machine_init(&cfg) == 0, "machine, RAM layout %d", ram);
	FUZZ_CHECK(kapi_boot() == 0, "boot");
	booted_ram = (int)ram;
	return 1;
}

/* An input's placement and the cursors of what it placed so far. */
struct fuzz_place_state {
	struct fuzz_placement place;
	unsigned long long bar_low, bar_high;	/* BARs placed up / down */
	unsigned long va_low, va_high;		/* VMAs placed up / down */
};

/*
 * A BAR of len bytes at bar_mis past a PUD boundary, where the placement
 * says; where that place is taken (RAM, another BAR, no room), where
 * sim_bar_create() puts it above RAM.  0 and *pfn its first pfn (pfn 0
 * can be one), or -1 if it cannot be placed.
 */
static inline int fuzz_place_bar(struct fuzz_place_state *ps,
				 unsigned long len, unsigned long bar_mis,
				 unsigned long *pfn)
{
	unsigned long long base = 0;
	int placed = 0;

	switch (ps->place.bar) {
	case FUZZ_BAR_BELOW_4G:
		*pfn = sim_bar_create(len, PUD, bar_mis, 1);
		placed = *pfn != 0;
		break;
	case FUZZ_BAR_AT_TOP:
		if (!ps->bar_high)
			ps->bar_high = 1ULL << sim_phys_bits();
		if (ps->bar_high < len + bar_mis + PUD)
			break;
		base = ((ps->bar_high - len - bar_mis) & ~(PUD - 1ULL)) +
		       bar_mis;
		placed = !sim_bar_place(base, len);
		if (placed)
			ps->bar_high = base;
		break;
	case FUZZ_BAR_AT_PFN0:
		/*
		 * Not physical page 0 itself: iommu_iova_to_phys() returns 0
		 * for "not mapped" too, so type1 cannot unmap a DMA of it
		 * (docs/vfio-type1.md, "Found"); tests/test_type1_dma.c
		 * covers that page.
		 */
		base = ((ps->bar_low + PUD - 1) & ~(PUD - 1ULL)) + bar_mis;
		if (!base)
			base = PUD;
		placed = !sim_bar_place(base, len);
		if (placed)
			ps->bar_low = base + len;
		break;
	default:
		break;
	}
	if (placed && ps->place.bar != FUZZ_BAR_BELOW_4G)
		*pfn = base >> SIM_PAGE_SHIFT;
	if (!placed)
		*pfn = sim_bar_create(len, PUD, bar_mis, 0);
	return placed || *pfn ? 0 : -1;
}

/*
 * kapi_mm_mmap(m) at the address the placement gives a VMA of m->len
 * bytes at m->misalign past a PUD; where that is taken or outside user
 * space, where the sim picks.  *va gets the address.
 */
static inline int fuzz_mmap_placed(struct fuzz_place_state *ps,
				   struct kapi_mm_map *m, unsigned long *va)
{
	unsigned long len = m->len, mis = m->misalign, addr = 0;
	int ret;

	switch (ps->place.vma) {
	case FUZZ_VMA_BOTTOM:
		addr = ((ps->va_low + PUD - 1) & ~(PUD - 1)) + mis;
		if (!addr)
			addr = PUD;
		ps->va_low = addr + len;
		break;
	case FUZZ_VMA_TOP:
		if (!ps->va_high)
			ps->va_high = SIM_TASK_SIZE;
		if (ps->va_high < len + mis + PUD)
			break;
		addr = ((ps->va_high - len - mis) & ~(PUD - 1)) + mis;
		ps->va_high = addr;
		break;
	default:
		break;
	}
	m->addr = addr;
	ret = kapi_mm_mmap(m, va);
	if (addr && (ret == -EEXIST || ret == -EINVAL)) {
		m->addr = 0;
		ret = kapi_mm_mmap(m, va);
	}
	return ret;
}

/* The placement applied to the iova an operation asked for. */
static inline unsigned long long fuzz_place_iova(struct fuzz_place_state *ps,
						 unsigned long long iova,
						 unsigned long long size)
{
	unsigned long long in_pud = iova & (PUD - 1);

	switch (ps->place.iova) {
	case FUZZ_IOVA_TOP_HALF:
		return iova ^ (1ULL << 63);
	case FUZZ_IOVA_END:
		return (0ULL - ((in_pud + size + PUD - 1) & ~(PUD - 1ULL))) +
		       in_pud;
	default:
		return iova;
	}
}

#endif
