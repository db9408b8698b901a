/* SPDX-License-Identifier: GPL-2.0-only */
/* The alloc + close table of `dmasim threads` and of the report's section 4. */
#ifndef DMASIM_CLI_THREADS_TABLE_H
#define DMASIM_CLI_THREADS_TABLE_H

#include "json.h"
#include "scenario_threads.h"

/* One CPU count: [after][zeroing] (after: orders 9,8,4,0; zeroing: costed). */
struct threads_row {
	unsigned int cpus;
	int err;
	struct threads_result r[2][2];
};

/* "1,2,4" into cpus[] (at most 8, as --cpus allows); the count. */
unsigned int threads_parse_cpus(const char *list, unsigned int cpus[8]);
void threads_run_row(unsigned long long size, unsigned int cpus, unsigned int rounds,
		     unsigned long long ram, struct threads_row *row);
double threads_ratio(const struct threads_row *row, int zeroing);
void threads_rows_text(unsigned long long size, unsigned int rounds,
		       unsigned long long ram, const struct threads_row *rows,
		       unsigned int n);
void threads_rows_json(struct json *j, unsigned long long size, unsigned int rounds,
		       unsigned long long ram, const struct threads_row *rows,
		       unsigned int n);

/* The report's sizes and CPU counts, and its rows ([size][cpus]). */
#define REPORT_THREADS_SIZES	3
#define REPORT_THREADS_CPUS	5
extern const unsigned long long report_threads_sizes[REPORT_THREADS_SIZES];
extern const unsigned int report_threads_cpus[REPORT_THREADS_CPUS];
const struct threads_row *report_threads_rows(unsigned int size_index);
/* Section 4's notes: the numbers behind the ratio. */
void report_threads_notes(void);

#endif
