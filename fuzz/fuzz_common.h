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

#include <dmasim/kapi.h>
#include <dmasim/sim.h>

#include <dmasim/kapi.h>
#include <dmasim/sim.h>

/* The simulated CPU's page and leaf sizes (the build's DMASIM_PAGE_SHIFT). */
#define PAGE		SIM_PAGE_SIZE
#define PMD		SIM_PMD_SIZE
#define PUD		SIM_PUD_SIZE

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
 * still wins (OSS-Fuzz sets its own).
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
static unsigned long long fuzz_choices_taken;

static unsigned int fuzz_choice_pick(void *ctx, enum sim_choice_point cp,
				     unsigned int nalt)
{
	struct fuzz_input *in = ctx;
	unsigned int b, alt;

	if (fuzz_empty(in))
		return 0;
	b = fuzz_u8(in);
	if (!(b & 0x80))
		return 0;
	alt = 1 + (b & 0x7f) % (nalt - 1);
	if (fuzz_choice_deny[cp] & (1u << alt))
		return 0;
	fuzz_choices_taken++;
	return alt;
}

/*
 * The input's operations (everything before the last mark), with the
 * choice stream after it armed for this input; end with fuzz_choices_end().
 */
static inline struct fuzz_input fuzz_input_choosing(const uint8_t *data,
						    size_t size)
{
	size_t ops = size;

	fuzz_choice_stream = fuzz_input(NULL, 0);
	for (size_t i = size; i >= FUZZ_CHOICE_MARK_LEN; i--) {
		if (!memcmp(data + i - FUZZ_CHOICE_MARK_LEN, FUZZ_CHOICE_MARK,
			    FUZZ_CHOICE_MARK_LEN)) {
			ops = i - FUZZ_CHOICE_MARK_LEN;
			fuzz_choice_stream = fuzz_input(data + i, size - i);
			break;
		}
	}
	if (!fuzz_empty(&fuzz_choice_stream))
		sim_choice_fuzz(fuzz_choice_pick, &fuzz_choice_stream);
	return fuzz_input(data, ops);
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
	struct sim_config cfg = { .ram_bytes = 65536ULL * PAGE, .seed = seed };

	FUZZ_CHECK(sim_machine_init(&cfg) == 0, "machine");
	FUZZ_CHECK(kapi_boot() == 0, "boot");
}

#endif
