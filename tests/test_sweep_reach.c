// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every fault point in include/dmasim/faults.def is made to fail, and every
 * choice point in include/dmasim/choices.def takes an alternative, in at
 * least one sweep of the default suite.
 *
 * Each sweep executable writes the points it injected a failure at beside
 * itself ("<exe>.reached", see sweep_write_reached_beside_exe()).  This
 * test gets the sweep executables of one implementation as arguments
 * (tests/meson.build), runs after them (lowest priority, not parallel),
 * reads their files, and runs an executable itself when its file is
 * missing or older than the executable (the sweep was not run since the
 * last build, e.g. `meson test sweep_reach_core` alone).  A sweep meson
 * runs in parts is given once per part, as "<exe>#K/N": that part's file
 * is "<exe>.part-K-of-N.reached", and "<exe> --part K/N" writes it.  The
 * union must be every point the implementation under test can call.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <dmasim/impl.h>
#include <dmasim/sim.h>

static int nr_exes;
static char **exes;

/*
 * Points the implementation under test has no caller for.  type1
 * allocates its dirty bitmaps with kvzalloc() (Linux 6.12) or kvcalloc()
 * (the project's core: up to 256 MiB, more than kmalloc() gives), which
 * ask "shim/slab/kmalloc", not bitmap_zalloc(): no kernel code of either
 * calls it.
 */
static const char *const no_caller_in_impl[] = {
	"shim/bitmap/alloc",
	NULL
};

static int has_no_caller_in_impl(const char *name)
{
	for (int i = 0; no_caller_in_impl[i]; i++)
		if (!strcmp(no_caller_in_impl[i], name))
			return 1;
	return 0;
}

/*
 * Alternatives this build's geometry never offers.  GUP stops inside a
 * huge leaf (gup_folio_partial, offered only for a step of more than one
 * page) only where anonymous memory has huge leaves: PMD folios, which
 * the buddy allocator has no order for with 16 and 64 KiB pages (PMD
 * order 11, 13 above SIM_MAX_ORDER, sim_mem.h).
 */
static const struct {
	const char *point;
	unsigned int alt;
} not_offered_here[] = {
#if SIM_PMD_ORDER > SIM_MAX_ORDER
	{ "choice/mm/gup_folio_partial", 1 },
	{ "choice/mm/gup_folio_partial", 2 },
#endif
	{ NULL, 0 }
};

static int is_not_offered_here(const char *point, unsigned int alt)
{
	for (int i = 0; not_offered_here[i].point; i++)
		if (!strcmp(not_offered_here[i].point, point) &&
		    not_offered_here[i].alt == alt)
			return 1;
	return 0;
}

static int reached_file_is_current(const char *exe, const char *reached)
{
	struct stat e, r;

	if (stat(exe, &e) || stat(reached, &r))
		return 0;
	return r.st_mtim.tv_sec > e.st_mtim.tv_sec ||
	       (r.st_mtim.tv_sec == e.st_mtim.tv_sec &&
		r.st_mtim.tv_nsec >= e.st_mtim.tv_nsec);
}

static void run_sweep(const char *exe, const char *part)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		/* Its output is the sweep's, not this test's. */
		if (!freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		if (part)
			execl(exe, exe, "--part", part, (char *)NULL);
		else
			execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		print_message("%s failed; its points count as reached only if it wrote them\n",
			      exe);
}

/*
 * Add the points listed in exe's file to reached[], and the alternatives
 * ("name:k") to chosen[point][k].
 */
static void read_reached(const char *arg, int *reached,
			 int (*chosen)[SIM_CHOICE_MAX_ALT])
{
	char exe[4096], path[4200], line[256];
	const char *part = strchr(arg, '#');
	unsigned int k, n;
	FILE *f;

	snprintf(exe, sizeof(exe), "%.*s",
		 part ? (int)(part - arg) : (int)strlen(arg), arg);
	if (part) {
		part++;
		assert_int_equal(sscanf(part, "%u/%u", &k, &n), 2);
		snprintf(path, sizeof(path), "%s.part-%u-of-%u.reached", exe, k, n);
	} else {
		snprintf(path, sizeof(path), "%s.reached", exe);
	}
	if (!reached_file_is_current(exe, path))
		run_sweep(exe, part);
	f = fopen(path, "r");
	if (!f) {
		print_message("%s wrote no %s\n", exe, path);
		fail();
	}
	while (fgets(line, sizeof(line), f)) {
		char *colon;
		int fp, cp = -1;
		unsigned int k = 0;

		line[strcspn(line, "\n")] = 0;
		colon = strrchr(line, ':');
		if (colon) {
			*colon = 0;
			k = strtoul(colon + 1, NULL, 10);
			cp = sim_choice_lookup(line);
			if (cp >= 0 && (!k || k >= sim_choice_nalt(cp)))
				cp = -1;
		}
		fp = colon ? -1 : sim_fault_lookup(line);
		if (fp < 0 && cp < 0) {
			print_message("%s: unknown point %s\n", path, line);
			fail();
		}
		if (fp >= 0)
			reached[fp] = 1;
		if (cp >= 0)
			chosen[cp][k] = 1;
	}
	fclose(f);
}

/* Every point is failed by some sweep. */
static void test_every_fault_point_is_reached_by_a_sweep(void **state)
{
	int reached[SIM_NR_FAULT_POINTS] = { 0 }, missing = 0, no_caller = 0;
	int chosen[SIM_NR_CHOICE_POINTS][SIM_CHOICE_MAX_ALT] = { { 0 } };

	assert_true(nr_exes > 0);
	for (int i = 0; i < nr_exes; i++)
		read_reached(exes[i], reached, chosen);
	for (int fp = 0; fp < SIM_NR_FAULT_POINTS; fp++) {
		if (has_no_caller_in_impl(sim_fault_name(fp))) {
			if (reached[fp]) {
				print_message("fault point %s is reached: drop it from no_caller_in_impl[]\n",
					      sim_fault_name(fp));
				missing++;
			}
			no_caller++;
			continue;
		}
		if (!reached[fp]) {
			print_message("fault point %s is reached by no sweep\n",
				      sim_fault_name(fp));
			missing++;
		}
	}
	print_message("%d fault points, %d reached by sweeps, %d not called by this implementation\n",
		      SIM_NR_FAULT_POINTS,
		      SIM_NR_FAULT_POINTS - missing - no_caller, no_caller);
	assert_int_equal(missing, 0);
}

/* Every alternative of every choice point is taken in some sweep. */
static void test_every_choice_alternative_is_taken_by_a_sweep(void **state)
{
	int chosen[SIM_NR_CHOICE_POINTS][SIM_CHOICE_MAX_ALT] = { { 0 } };
	int reached[SIM_NR_FAULT_POINTS] = { 0 };
	int missing = 0, alternatives = 0, not_offered = 0;

	assert_true(nr_exes > 0);
	for (int i = 0; i < nr_exes; i++)
		read_reached(exes[i], reached, chosen);
	for (int cp = 0; cp < SIM_NR_CHOICE_POINTS; cp++) {
		for (unsigned int k = 1; k < sim_choice_nalt(cp); k++) {
			alternatives++;
			if (is_not_offered_here(sim_choice_name(cp), k)) {
				if (chosen[cp][k]) {
					print_message("choice point %s: alternative %u is taken: drop it from not_offered_here[]\n",
						      sim_choice_name(cp), k);
					missing++;
				}
				not_offered++;
				continue;
			}
			if (chosen[cp][k])
				continue;
			print_message("choice point %s: alternative %u is taken by no sweep\n",
				      sim_choice_name(cp), k);
			missing++;
		}
	}
	print_message("%d choice points, %d alternatives, %d taken by sweeps, %d not offered at this page size\n",
		      SIM_NR_CHOICE_POINTS, alternatives,
		      alternatives - missing - not_offered, not_offered);
	assert_int_equal(missing, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fault_point_is_reached_by_a_sweep),
		cmocka_unit_test(test_every_choice_alternative_is_taken_by_a_sweep),
	};

	nr_exes = argc - 1;
	exes = argv + 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
