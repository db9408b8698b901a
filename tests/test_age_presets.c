// SPDX-License-Identifier: GPL-2.0-only
/*
 * The claims docs/fragmentation.md makes about the presets, checked on the
 * machine size the table is for (16 GiB, 4 KiB pages) over ten fixed seeds.
 * Slow suite: each machine is aged in full (256 MiB of memmap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <valgrind/valgrind.h>

#include <dmasim/sim.h>

#include "shared.h"

#define SEEDS 10

struct preset_outcome {
	int order9_ok, order8_ok, order4_ok;	/* machines where it would succeed */
};

static int free_block_at_least(unsigned int order)
{
	for (unsigned int o = order; o < SIM_NR_ORDERS; o++)
		if (sim_buddy_nr_free_blocks(o))
			return 1;
	return 0;
}

static void age_ten_machines(const char *preset, struct preset_outcome *out)
{
	double level = sim_age_preset(preset);

	assert_true(level >= 0);
	*out = (struct preset_outcome){ 0, 0, 0 };
	for (int seed = 0; seed < SEEDS; seed++) {
		given_a_fresh_machine(&(struct sim_config){
			.ram_bytes = 16 * GiB, .nr_cpus = 1,
		});
		assert_int_equal(sim_age(level, 1000 + seed), 0);
		out->order9_ok += free_block_at_least(9);
		out->order8_ok += free_block_at_least(8);
		out->order4_ok += free_block_at_least(4);
		sim_machine_destroy();
	}
}

/* "aged": order 9 without reclaim mostly fails, orders 8 and 4 mostly succeed. */
static void test_aged_preset_fails_order_9_mostly_but_not_8_or_4(void **state)
{
	struct preset_outcome o;

	if (SIM_PAGE_SHIFT != 12 || RUNNING_ON_VALGRIND)
		skip();
	age_ten_machines("aged", &o);
	assert_true(o.order9_ok < SEEDS / 2);
	assert_true(o.order8_ok > SEEDS / 2);
	assert_int_equal(o.order4_ok, SEEDS);
}

/* "fragmented": never a free order-9 block; order 8 rare; order 4 always. */
static void test_fragmented_preset_has_no_order_9_at_all(void **state)
{
	struct preset_outcome o;

	if (SIM_PAGE_SHIFT != 12 || RUNNING_ON_VALGRIND)
		skip();
	age_ten_machines("fragmented", &o);
	assert_int_equal(o.order9_ok, 0);
	assert_true(o.order8_ok < SEEDS / 2);
	assert_int_equal(o.order4_ok, SEEDS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aged_preset_fails_order_9_mostly_but_not_8_or_4),
		cmocka_unit_test(test_fragmented_preset_has_no_order_9_at_all),
	};

	return cmocka_run_group_tests_name("age_presets", tests, NULL, NULL);
}
