// SPDX-License-Identifier: GPL-2.0-only
/*
 * Choice points (include/dmasim/choices.def): where a kernel contract
 * allows more than one outcome, the shim asks sim_choose() which one.
 * Nothing armed: the inline sim_choose() returns 0 without calling here.
 * Armed, every hit is counted per point and answered by, in order: the
 * fuzz callback, choose-nth, a forced alternative, else 0.
 *
 * Choose-nth numbers hits across all points (as fail-nth numbers fallible
 * calls) and logs each hit's point and offered alternatives, so a sweep can
 * replay a clean run and take alternative k at hit n for every (n, k).
 * Process-global and meant for one thread.
 */
#include <stdlib.h>
#include <string.h>

#include <dmasim/sim.h>

unsigned long long sim_choice_hits[SIM_NR_CHOICE_POINTS];
unsigned long long sim_choice_taken[SIM_NR_CHOICE_POINTS];
unsigned long long sim_choice_taken_alt[SIM_NR_CHOICE_POINTS][SIM_CHOICE_MAX_ALT];

static const struct {
	const char *name;
	const char *what;
	unsigned int nalt;
} choice_info[SIM_NR_CHOICE_POINTS] = {
#define SIM_CHOICE(id, cname, n, descr) [SIM_CH_##id] = { cname, descr, n },
#include <dmasim/choices.def>
#undef SIM_CHOICE
};

/* choices.def stays within SIM_CHOICE_MAX_ALT. */
#define SIM_CHOICE(id, cname, n, descr) \
	_Static_assert((n) >= 2 && (n) <= SIM_CHOICE_MAX_ALT, #id ": 2..SIM_CHOICE_MAX_ALT alternatives");
#include <dmasim/choices.def>
#undef SIM_CHOICE

static struct {
	int on;
	unsigned int alt;
	int first_point;
	unsigned long long nth;
	unsigned long long hits;
	unsigned long long taken;
	struct sim_choice_hit *log;
	unsigned long long log_cap;
} nth_mode = { .first_point = -1 };

static sim_choice_pick_fn fuzz_pick;
static void *fuzz_ctx;
static unsigned int forced[SIM_NR_CHOICE_POINTS];
static unsigned int nr_forced;

static void update_armed(void)
{
	sim_choices_armed = nth_mode.on || fuzz_pick || nr_forced;
}

static void log_hit(enum sim_choice_point cp, unsigned int nalt)
{
	unsigned long long i = nth_mode.hits - 1;

	if (i > nth_mode.log_cap)
		return;		/* the log could not grow: hits past it are not logged */
	if (i == nth_mode.log_cap) {
		unsigned long long cap = nth_mode.log_cap ? nth_mode.log_cap * 2 : 256;
		struct sim_choice_hit *log = realloc(nth_mode.log, cap * sizeof(*log));

		if (!log)
			return;
		nth_mode.log = log;
		nth_mode.log_cap = cap;
	}
	nth_mode.log[i] = (struct sim_choice_hit){ .point = cp, .nalt = nalt };
}

unsigned int sim_choose_armed(enum sim_choice_point cp, unsigned int nalt)
{
	unsigned int alt = 0;

	if (nalt > choice_info[cp].nalt)
		nalt = choice_info[cp].nalt;
	sim_choice_hits[cp]++;
	if (nalt <= 1)
		return 0;
	if (fuzz_pick) {
		alt = fuzz_pick(fuzz_ctx, cp, nalt) % nalt;
	} else if (nth_mode.on) {
		unsigned long long n = ++nth_mode.hits;

		log_hit(cp, nalt);
		if (n == nth_mode.nth && nth_mode.alt < nalt)
			alt = nth_mode.alt;
	}
	if (!alt && forced[cp])
		alt = forced[cp] < nalt ? forced[cp] : nalt - 1;
	if (alt) {
		sim_choice_taken[cp]++;
		sim_choice_taken_alt[cp][alt]++;
		if (nth_mode.on && !nth_mode.taken++)
			nth_mode.first_point = cp;
	}
	return alt;
}

void sim_choice_nth_start(unsigned long long nth, unsigned int alt)
{
	nth_mode.nth = nth;
	nth_mode.alt = alt;
	nth_mode.hits = 0;
	nth_mode.taken = 0;
	nth_mode.first_point = -1;
	nth_mode.on = 1;
	update_armed();
}

unsigned long long sim_choice_nth_stop(void)
{
	nth_mode.on = 0;
	update_armed();
	return nth_mode.hits;
}

const struct sim_choice_hit *sim_choice_nth_log(unsigned long long *nr)
{
	*nr = nth_mode.hits < nth_mode.log_cap ? nth_mode.hits : nth_mode.log_cap;
	return nth_mode.log;
}

unsigned long long sim_choice_nth_taken(void)
{
	return nth_mode.taken;
}

int sim_choice_nth_first_point(void)
{
	return nth_mode.first_point;
}

void sim_choice_fuzz(sim_choice_pick_fn pick, void *ctx)
{
	fuzz_pick = pick;
	fuzz_ctx = ctx;
	update_armed();
}

void sim_choice_force(enum sim_choice_point cp, unsigned int alt)
{
	nr_forced += !forced[cp] - !alt;
	forced[cp] = alt;
	update_armed();
}

const char *sim_choice_name(enum sim_choice_point cp)
{
	return choice_info[cp].name;
}

const char *sim_choice_what(enum sim_choice_point cp)
{
	return choice_info[cp].what;
}

unsigned int sim_choice_nalt(enum sim_choice_point cp)
{
	return choice_info[cp].nalt;
}

int sim_choice_lookup(const char *name)
{
	for (int i = 0; i < SIM_NR_CHOICE_POINTS; i++)
		if (!strcmp(choice_info[i].name, name))
			return i;
	return -1;
}
