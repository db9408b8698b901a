// SPDX-License-Identifier: GPL-2.0-only
/*
 * main() for a harness built without libFuzzer.
 *
 * Replay (the normal build, `meson test --suite fuzz`): run the harness's
 * LLVMFuzzerTestOneInput() over every regular file of the directories (or
 * files) named on the command line, in name order, and print how many ran.
 * A harness aborts on a broken invariant, so any crash fails the test; an
 * empty corpus is an error too (a replay that runs nothing proves nothing).
 *
 * A file named *.pack holds many inputs (run_file()), for runs of
 * 100,000 generated ones; --order-check takes plain files only.
 *
 * DMASIM_FUZZ_STATS set: also print (stderr) how many inputs carried a
 * choice stream and how many choice alternatives they took.
 *
 * --order-check first: run the inputs in name order, then in reverse order
 * each twice in a row, and fail if any input's outcome digest (what it did,
 * fuzz_common.h) depends on what ran before it in the process.
 *
 * --digests: run the inputs in name order and print each one's outcome
 * digest and name, one a line: diff two builds' lists to prove a harness
 * change left every input's outcome as it was (e.g. at PAGE_SHIFT 12).
 *
 * AFL++ (built by afl-clang-fast, which defines __AFL_FUZZ_TESTCASE_LEN):
 * with no argument, persistent mode: test cases arrive in shared memory and
 * up to 10,000 run in one process between forks (__AFL_LOOP).  With
 * arguments it replays them as above (to reproduce a saved crash).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#ifdef __AFL_FUZZ_TESTCASE_LEN
__AFL_FUZZ_INIT();
#endif

extern int fuzz_digesting;
extern unsigned long long fuzz_digest;
/* fuzz_common.h's choice counts (weak: a harness without choices has none). */
extern unsigned long long fuzz_choice_inputs __attribute__((weak));
extern unsigned long long fuzz_choices_taken __attribute__((weak));

/* Run one input through the harness. */
static void run_input(const char *name, const uint8_t *data, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);

	/* An exact-size heap copy, so ASan sees reads past the input. */
	if (!buf)
		abort();
	memcpy(buf, data, len);
	if (getenv("DMASIM_FUZZ_VERBOSE") && *getenv("DMASIM_FUZZ_VERBOSE") &&
	    *getenv("DMASIM_FUZZ_VERBOSE") != '0')
		fprintf(stderr, "replay: %s (%zu bytes)\n", name, len);
	fuzz_digest = 0xcbf29ce484222325ULL;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
}

/* A path ending in ".pack": many inputs in one file (below). */
static int is_pack(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && !strcmp(path + n - 5, ".pack");
}

static size_t inputs_run;

/*
 * Run one file through the harness; 0, or -1 if it cannot be read.  A
 * pack (tools/fuzz-differential.sh writes its generated inputs so: one
 * file, not 100,000) is a sequence of records, a 4-byte little-endian
 * length and that many bytes, each an input named "FILE#INDEX".
 */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		fprintf(stderr, "replay: %s: cannot size\n", path);
		return -1;
	}
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		fprintf(stderr, "replay: %s: read failed\n", path);
		return -1;
	}
	fclose(f);
	if (!is_pack(path)) {
		run_input(path, buf, (size_t)len);
		inputs_run++;
	} else {
		size_t off = 0, i = 0;

		while (off + 4 <= (size_t)len) {
			size_t n = buf[off] | buf[off + 1] << 8 |
				   buf[off + 2] << 16 |
				   (size_t)buf[off + 3] << 24;
			char *name;

			off += 4;
			if (n > (size_t)len - off) {
				fprintf(stderr, "replay: %s: record %zu cut short\n",
					path, i);
				free(buf);
				return -1;
			}
			if (asprintf(&name, "%s#%zu", path, i) < 0)
				abort();
			run_input(name, buf + off, n);
			free(name);
			off += n;
			i++;
			inputs_run++;
		}
	}
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct paths {
	char **v;
	size_t n, cap;
};

static void add_path(struct paths *p, char *path)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		if (!p->v)
			abort();
	}
	p->v[p->n++] = path;
}

/* Add every regular file of dir, in name order; 0 or -1. */
static int add_dir(struct paths *p, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = p->n;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *path;

		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			abort();
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		add_path(p, path);
	}
	closedir(d);
	qsort(p->v + first, p->n - first, sizeof(*p->v), by_name);
	return 0;
}

/*
 * --order-check: every input must do the same whatever ran before it in the
 * process.  Pass 1 runs the inputs in name order and records each one's
 * outcome digest (fuzz_common.h); pass 2 runs them in reverse order, each
 * twice in a row, and every run must match its pass-1 digest.  Returns the
 * number of inputs whose outcome changed.
 */
static size_t order_check(const struct paths *p)
{
	unsigned long long *first = calloc(p->n ? p->n : 1, sizeof(*first));
	size_t bad = 0;

	if (!first)
		abort();
	fuzz_digesting = 1;
	for (size_t i = 0; i < p->n; i++) {
		run_file(p->v[i]);
		first[i] = fuzz_digest;
	}
	for (size_t k = p->n; k-- > 0;) {
		for (int again = 0; again < 2; again++) {
			run_file(p->v[k]);
			if (fuzz_digest == first[k])
				continue;
			fprintf(stderr, "replay: order check: %s: outcome %016llx %s, %016llx in name order\n",
				p->v[k], fuzz_digest,
				again ? "run twice in a row" : "in reverse order",
				first[k]);
			bad++;
			break;
		}
	}
	fuzz_digesting = 0;
	free(first);
	return bad;
}

int main(int argc, char **argv)
{
	struct paths p = { 0 };
	int order = 0, digests = 0, status = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
#ifdef __AFL_FUZZ_TESTCASE_LEN
	if (argc < 2) {
		unsigned char *buf;

		__AFL_INIT();
		buf = __AFL_FUZZ_TESTCASE_BUF;
		while (__AFL_LOOP(10000))
			LLVMFuzzerTestOneInput(buf, __AFL_FUZZ_TESTCASE_LEN);
		return 0;
	}
#endif
	if (argc > 1 && !strcmp(argv[1], "--order-check")) {
		order = 1;
		argc--;
		argv++;
	} else if (argc > 1 && !strcmp(argv[1], "--digests")) {
		digests = 1;
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--order-check|--digests] CORPUS_DIR|FILE...\n",
			argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (order && is_pack(argv[i])) {
			fprintf(stderr, "replay: --order-check takes no pack (%s)\n",
				argv[i]);
			return 2;
		}
		if (S_ISDIR(st.st_mode)) {
			if (add_dir(&p, argv[i]))
				return 1;
		} else {
			add_path(&p, strdup(argv[i]));
		}
	}
	if (order) {
		size_t bad = order_check(&p);

		printf("order check: %zu inputs, %zu changed with the order\n",
		       p.n, bad);
		status = bad ? 1 : 0;
	} else {
		fuzz_digesting = digests;
		for (size_t i = 0; i < p.n; i++) {
			if (run_file(p.v[i]))
				return 1;
			if (digests)
				printf("%016llx %s\n", fuzz_digest, p.v[i]);
		}
		fuzz_digesting = 0;
		printf("replayed %zu inputs\n", inputs_run);
		/*
		 * DMASIM_FUZZ_STATS=1: how many inputs carried a choice
		 * stream and how many alternatives they took (stderr, one
		 * line, for tools/fuzz-differential.sh).
		 */
		if (getenv("DMASIM_FUZZ_STATS") && &fuzz_choices_taken)
			fprintf(stderr, "replay stats: %zu inputs, %llu with a choice stream, %llu choice alternatives taken\n",
				inputs_run, fuzz_choice_inputs,
				fuzz_choices_taken);
	}
	if (!p.n) {
		fprintf(stderr, "replay: no input found\n");
		status = 1;
	}
	for (size_t i = 0; i < p.n; i++)
		free(p.v[i]);
	free(p.v);
	return status;
}
