// SPDX-License-Identifier: GPL-2.0-only
/*
 * slab_asan_check: in an AddressSanitizer build, the kernel's heap objects
 * (sim_kmalloc(), behind kmalloc/kzalloc/kvmalloc) are still checked as
 * ASan checks malloc'd memory, whatever backs them (sim/slab.c).  Each
 * case runs in a child process that makes one bad access to a kmalloc'd
 * object; the case passes when ASan stops the child with its report (and,
 * for the accesses that are not errors, when the child runs to its end):
 *
 * - a write one byte past the SLUB red zone behind an object, a read of
 *   the byte before it (its header), or a memset running past its end;
 * - a read and a write after kfree, also after hundreds of other objects
 *   were allocated and freed, and after a fuzzing input freed 2 MiB more
 *   (an input's frees stay quarantined until it ends:
 *   sim_slab_quarantine_input());
 * - a double kfree, and a krealloc'd object's old address;
 * - not errors: a write into the SLUB red zone (a WARN at kfree, counted
 *   by sim_slab_redzone_hits(), as slub_debug=Z reports it) and every
 *   byte of an object used, freed and allocated again.
 *
 * Built only where ASan is (-Dfuzzing=true, -Db_sanitize=address...): the
 * asan+ubsan variant of tools/ci-variants.sh runs it, and
 * `meson test -C build-fuzz slab_asan_check` by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dmasim/sim.h>

static volatile unsigned char sink;

static unsigned char *obj(unsigned long size)
{
	unsigned char *p = sim_kmalloc(size, 1);

	if (!p) {
		fprintf(stderr, "kmalloc(%lu) failed\n", size);
		_exit(3);
	}
	return p;
}

/* Allocate and free n objects of size bytes (quarantine traffic). */
static void churn(unsigned int n, unsigned long size)
{
	for (unsigned int i = 0; i < n; i++)
		sim_kfree(obj(size));
}

static void overflow_write(void)
{
	volatile unsigned char *p = obj(40);

	p[40 + SIM_SLAB_REDZONE] = 1;
}

static void overflow_write_large(void)
{
	volatile unsigned char *p = obj(5000);

	p[5000 + SIM_SLAB_REDZONE] = 1;
}

static void underflow_read(void)
{
	volatile unsigned char *p = obj(100);

	sink = p[-1];
}

static void memset_past_end(void)
{
	unsigned char *p = obj(24);

	memset(p, 0, 24 + SIM_SLAB_REDZONE + 8);
}

static void use_after_free_read(void)
{
	volatile unsigned char *p = obj(64);

	sim_kfree((void *)p);
	sink = p[8];
}

static void use_after_free_write_after_churn(void)
{
	volatile unsigned char *p = obj(64);

	sim_kfree((void *)p);
	churn(500, 64);
	p[0] = 1;
}

static void use_after_free_within_input(void)
{
	static void *others[8192], *again[8193];
	volatile unsigned char *p;
	unsigned int i;

	/* An input begins; nothing of the inputs before it is kept. */
	sim_slab_quarantine_input(0);
	for (i = 0; i < 8192; i++)
		others[i] = obj(200);
	p = obj(200);
	sim_kfree((void *)p);
	/* 2 MiB more of its size freed since, then more allocated again */
	for (i = 0; i < 8192; i++)
		sim_kfree(others[i]);
	for (i = 0; i < 8193; i++)
		again[i] = obj(200);
	sink = p[100];
}

static void double_free(void)
{
	void *p = obj(32);

	sim_kfree(p);
	sim_kfree(p);
}

static void after_krealloc(void)
{
	volatile unsigned char *p = obj(16), *q;

	q = sim_krealloc((void *)p, 4000);
	if (q == p)	/* grown in place: nothing to check here */
		_exit(4);
	sink = p[0];
}

/* Not errors: these must run to their end. */
static void redzone_write_warns(void)
{
	unsigned long long hits = sim_slab_redzone_hits();
	unsigned char *p = obj(40);

	p[40] = 0;	/* SLUB's zone: slub_debug=Z reports it at kfree */
	sim_kfree(p);
	if (sim_slab_redzone_hits() != hits + 1)
		_exit(5);
}

static void every_byte_usable(void)
{
	unsigned long long before = sim_kmalloc_outstanding();

	for (unsigned long size = 1; size < 40000; size = size * 3 / 2 + 1) {
		unsigned char *p = obj(size);

		for (unsigned long i = 0; i < size; i++)
			if (p[i])
				_exit(6);	/* kzalloc: zeroed */
		memset(p, 0xa5, size);
		p = sim_krealloc(p, size + 7);
		if (!p || p[size - 1] != 0xa5)
			_exit(7);
		sim_kfree(p);
		churn(300, size);
	}
	if (sim_kmalloc_outstanding() != before)
		_exit(8);
}

static const struct {
	const char *name;
	void (*run)(void);
	int caught;	/* ASan must report it */
} cases[] = {
	{ "overflow past the red zone", overflow_write, 1 },
	{ "overflow of a large object", overflow_write_large, 1 },
	{ "underflow into the header", underflow_read, 1 },
	{ "memset past the end", memset_past_end, 1 },
	{ "use after free", use_after_free_read, 1 },
	{ "use after free, 500 frees later", use_after_free_write_after_churn, 1 },
	{ "use after free, 2 MiB later in one input", use_after_free_within_input, 1 },
	{ "double free", double_free, 1 },
	{ "old address after krealloc", after_krealloc, 1 },
	{ "write into the SLUB red zone: a WARN", redzone_write_warns, 0 },
	{ "every byte usable, zeroed, kept by krealloc", every_byte_usable, 0 },
};

/* Run one case in a child; 0 if it ended as it should. */
static int check(unsigned int i)
{
	char buf[4096], log[16384];
	size_t len = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(fds[1], 2);
		close(fds[0]);
		cases[i].run();
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0) {
		size_t take = (size_t)n < sizeof(log) - 1 - len ?
			      (size_t)n : sizeof(log) - 1 - len;

		memcpy(log + len, buf, take);
		len += take;
	}
	log[len] = 0;
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (cases[i].caught) {
		if (strstr(log, "ERROR: AddressSanitizer") &&
		    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			return 0;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		   !strstr(log, "ERROR: AddressSanitizer")) {
		return 0;
	}
	fprintf(stderr, "--- %s: child status 0x%x, its stderr:\n%s\n",
		cases[i].name, status, log);
	return 1;
}

int main(void)
{
	int failed = 0;

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int bad = check(i);

		printf("%s: %s\n", bad ? "FAIL" : "ok", cases[i].name);
		failed |= bad != 0;
	}
	return failed;
}
