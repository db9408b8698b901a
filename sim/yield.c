// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reschedule oracle (include/dmasim/sim.h): the largest work, counter
 * by counter, between two yields of a kind, per site that closed the
 * stretch.  Sites are few (a dozen functions): a linear table, matched by
 * name so the same function of two builds of a file is one site.
 */
#include <string.h>

#include <dmasim/sim.h>

#define YIELD_SITES	48
#define YIELD_IGNORED	8

struct yield_site {
	const char *name;
	unsigned long long stretches;
	unsigned long long max[SIM_NR_COUNTERS];
};

struct yield_meter {
	struct sim_counters last;	/* the counters when the stretch opened */
	struct yield_site sites[YIELD_SITES];
	unsigned int nsites;
	const char *ignored[YIELD_IGNORED];
};

static struct yield_meter meters[SIM_NR_YIELD_KINDS];

void sim_yield_meter_start(void)
{
	unsigned int k;

	for (k = 0; k < SIM_NR_YIELD_KINDS; k++) {
		memset(meters[k].sites, 0, sizeof(meters[k].sites));
		meters[k].nsites = 0;
		sim_counters_snapshot(&meters[k].last);
	}
	sim_yield_metering = 1;
}

void sim_yield_meter_stop(void)
{
	sim_yield_metering = 0;
}

static struct yield_site *site_named(struct yield_meter *m, const char *name,
				     int add)
{
	unsigned int i;

	for (i = 0; i < m->nsites; i++)
		if (m->sites[i].name == name || !strcmp(m->sites[i].name, name))
			return &m->sites[i];
	if (!add)
		return NULL;
	if (m->nsites == YIELD_SITES)	/* full: the last slot takes the rest */
		return &m->sites[YIELD_SITES - 1];
	m->sites[m->nsites].name = name;
	return &m->sites[m->nsites++];
}

static int site_ignored(const struct yield_meter *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < YIELD_IGNORED && m->ignored[i]; i++)
		if (!strcmp(m->ignored[i], name))
			return 1;
	return 0;
}

static void close_stretch(struct yield_meter *m, const char *name)
{
	struct yield_site *s = site_named(m, name, 1);
	unsigned int i;

	for (i = 0; i < SIM_NR_COUNTERS; i++) {
		unsigned long long d = sim_counters.c[i] - m->last.c[i];

		if (d > s->max[i])
			s->max[i] = d;
	}
	s->stretches++;
	m->last = sim_counters;
}

void sim_yield_slow(enum sim_yield_kind kind, const char *site)
{
	struct yield_meter *m = &meters[kind];

	if (!site_ignored(m, site))
		close_stretch(m, site);
}

void sim_yield_close(const char *label)
{
	unsigned int k;

	if (!sim_yield_metering)
		return;
	for (k = 0; k < SIM_NR_YIELD_KINDS; k++)
		close_stretch(&meters[k], label);
}

void sim_yield_ignore(enum sim_yield_kind kind, const char *site)
{
	struct yield_meter *m = &meters[kind];
	unsigned int i;

	if (!site) {
		memset(m->ignored, 0, sizeof(m->ignored));
		return;
	}
	for (i = 0; i < YIELD_IGNORED; i++) {
		if (!m->ignored[i]) {
			m->ignored[i] = site;
			return;
		}
	}
}

unsigned long long sim_yield_max(enum sim_yield_kind kind, const char *site,
				 enum sim_counter counter)
{
	struct yield_site *s = site_named(&meters[kind], site, 0);

	return s ? s->max[counter] : 0;
}

unsigned long long sim_yield_max_any(enum sim_yield_kind kind,
				     enum sim_counter counter,
				     const char **site)
{
	const struct yield_meter *m = &meters[kind];
	unsigned long long best = 0;
	unsigned int i;

	if (site)
		*site = NULL;
	for (i = 0; i < m->nsites; i++) {
		if (m->sites[i].max[counter] > best) {
			best = m->sites[i].max[counter];
			if (site)
				*site = m->sites[i].name;
		}
	}
	return best;
}

unsigned long long sim_yield_count(enum sim_yield_kind kind, const char *site)
{
	struct yield_site *s = site_named(&meters[kind], site, 0);

	return s ? s->stretches : 0;
}

const char *sim_yield_site(enum sim_yield_kind kind, unsigned int i)
{
	return i < meters[kind].nsites ? meters[kind].sites[i].name : NULL;
}
