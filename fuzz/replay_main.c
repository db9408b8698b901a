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
	/* An exact-size heap copy, so ASan sees reads past the input. */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		fprintf(stderr, "replay: %s: read failed\n", path);
		return -1;
	}
	fclose(f);
	if (getenv("DMASIM_FUZZ_VERBOSE") && *getenv("DMASIM_FUZZ_VERBOSE") &&
	    *getenv("DMASIM_FUZZ_VERBOSE") != '0')
		fprintf(stderr, "replay: %s (%ld bytes)\n", path, len);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every regular file of dir; returns the number run, or -1. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	long ran = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				abort();
		}
		if (asprintf(&names[n], "%s/%s", dir, e->d_name) < 0)
			abort();
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!stat(names[i], &st) && S_ISREG(st.st_mode)) {
			if (run_file(names[i]))
				ran = -1;
			else if (ran >= 0)
				ran++;
		}
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char **argv)
{
	long total = 0;

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
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR|FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		long ran;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode))
			ran = run_dir(argv[i]);
		else
			ran = run_file(argv[i]) ? -1 : 1;
		if (ran < 0)
			return 1;
		total += ran;
	}
	printf("replayed %ld inputs\n", total);
	if (!total) {
		fprintf(stderr, "replay: no input found\n");
		return 1;
	}
	return 0;
}
