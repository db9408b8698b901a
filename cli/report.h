/* SPDX-License-Identifier: GPL-2.0-only */
/* Sections of `dmasim report` that live beside their scenario, and what they share. */
#ifndef DMASIM_CLI_REPORT_H
#define DMASIM_CLI_REPORT_H

#include "json.h"
#include "scenario_heap.h"
#include "scenario_order9.h"
#include "threads_table.h"

/* Tables and notes of the report are at most this wide (tests check it). */
#define REPORT_WIDTH		100

/* The heap's orders before and after the change; the busy machine state. */
#define BEFORE_ORDERS		"8,4,0"
#define AFTER_ORDERS		"9,8,4,0"
#define REPORT_BUSY_STATE	"0.3"

#define REPORT_NR_LEVELS	8
#define REPORT_MAX_SEEDS	20
/* Fragmentation levels of sections 2 and 3. */
extern const double report_levels[REPORT_NR_LEVELS];

/* Figures of one fragmentation level over the seeds (sections 2, 3, plots). */
struct level_stats {
	double free_pct;
	unsigned int seeds, o9_first_failed, o9_any_failed;
	unsigned int before_all_order8, after_all_order9;
	double after_2m_share;		/* of the buffer, in 2 MiB chunks */
	double win_before, win_after;	/* mean windows superpage-mapped */
	double map_ratio_avg, map_ratio_worst;
	double unmap_before_us, unmap_after_us;
	double allocfree_ratio;
	/* one order-9 attempt per policy: machines tried, succeeded; means */
	unsigned int o9_tried[O9_NR_POLICIES], o9_ok[O9_NR_POLICIES];
	double o9_migrated[O9_NR_POLICIES], o9_reclaimed[O9_NR_POLICIES];
	double o9_us[O9_NR_POLICIES];
};

/* VFIO type1: the 32 GiB BAR seed table (report_bar.c). */
void report_bar_text(void);
void report_bar_json(struct json *j);

/* Section 4: alloc + close on N simulated CPUs (report_threads.c). */
struct threads_summary {
	int valid;
	double ratio_min, ratio_max;	/* time per buffer, 8,4,0 / 9,8,4,0 */
	double zeroed_min, zeroed_max;	/* the same, pages that came zeroed */
	unsigned int max_cpus;
	char size_name[16];
};
void report_threads_run(unsigned long long ram, struct threads_summary *ts);
void report_threads_text(void);
void report_threads_json(struct json *j);

/* What --plots draws (report_plots.c). */
struct report_figures {
	const struct level_stats *levels;	/* [REPORT_NR_LEVELS] */
	unsigned int seeds;
	const struct heap_result (*formats_busy)[2]; /* level 0.3 [format][after] */
	/* section 4: [REPORT_THREADS_CPUS] rows per size; NULL: not run */
	const struct threads_row *threads[REPORT_THREADS_SIZES];
};
/* Create DIR if needed; 0, or 1 after a message. */
int report_plots_prepare(const char *dir);
/*
 * Write DIR/<figure>.csv for every figure and, when gnuplot is installed,
 * DIR/<figure>.svg rendered from the CSV; say on stdout (when text) what
 * was written and, without gnuplot, how to get it.  0, or 1 after a message.
 */
int report_plots_write(const char *dir, const struct report_figures *fig, int text);
/*
 * The same from a report saved as JSON (`dmasim report --json`, or the
 * report.json that --plots keeps): no simulation runs.  0, 1 after a
 * message (file unreadable, not a report of this build's page size).
 */
int report_plots_from_json(const char *file, const char *dir, int text);

#endif
