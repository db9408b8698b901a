// SPDX-License-Identifier: GPL-2.0-only
/*
 * dmasim report --plots DIR: every figure as CSV (always), a gnuplot
 * script beside it, and the SVG gnuplot renders from the CSV (svg
 * terminal) when gnuplot is on PATH; from a report just run, or from one
 * saved as JSON (--from-json).  docs/plots.md lists the files and their
 * columns; tests/cli_report_check.py checks them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "threads_table.h"

struct figure {
	const char *name;		/* DIR/name.csv, .gp, .svg */
	int (*csv)(FILE *f, const struct report_figures *fig);
	const char *gp;			/* the plot commands after the common header */
};

static int csv_order9(FILE *f, const struct report_figures *fig)
{
	fprintf(f, "level,free_pct,seeds");
	for (int pol = 0; pol < O9_NR_POLICIES; pol++)
		fprintf(f, ",%s", order9_policies[pol].name);
	fprintf(f, "\n");
	for (unsigned int l = 0; l < REPORT_NR_LEVELS; l++) {
		const struct level_stats *ls = &fig->levels[l];

		fprintf(f, "%.2f,%.2f,%u", report_levels[l], ls->free_pct, fig->seeds);
		for (int pol = 0; pol < O9_NR_POLICIES; pol++)
			fprintf(f, ",%.4f", ls->o9_tried[pol] ?
				(double)ls->o9_ok[pol] / ls->o9_tried[pol] : 0.0);
		fprintf(f, "\n");
	}
	return 0;
}

static int csv_share(FILE *f, const struct report_figures *fig)
{
	fprintf(f, "level,free_pct,seeds,share_2m_pct,first_o9_failed_pct\n");
	for (unsigned int l = 0; l < REPORT_NR_LEVELS; l++) {
		const struct level_stats *ls = &fig->levels[l];

		fprintf(f, "%.2f,%.2f,%u,%.2f,%.2f\n", report_levels[l], ls->free_pct,
			ls->seeds, 100 * ls->after_2m_share,
			ls->seeds ? 100.0 * ls->o9_first_failed / ls->seeds : 0.0);
	}
	return 0;
}

static int csv_threads(FILE *f, const struct report_figures *fig)
{
	char sz[16];

	fprintf(f, "cpus");
	for (unsigned int s = 0; s < REPORT_THREADS_SIZES; s++) {
		cli_size_name(report_threads_sizes[s], sz, sizeof(sz));
		fprintf(f, ",us_8_4_0_%s,us_9_8_4_0_%s,ratio_%s,ratio_zeroed_pages_%s",
			sz, sz, sz, sz);
	}
	fprintf(f, "\n");
	for (unsigned int c = 0; c < REPORT_THREADS_CPUS; c++) {
		fprintf(f, "%u", report_threads_cpus[c]);
		for (unsigned int s = 0; s < REPORT_THREADS_SIZES; s++) {
			const struct threads_row *w = fig->threads[s] ? &fig->threads[s][c] : NULL;

			if (!w || w->err)
				fprintf(f, ",NaN,NaN,NaN,NaN");
			else
				fprintf(f, ",%.2f,%.2f,%.4f,%.4f", w->r[0][1].us_per_buffer,
					w->r[1][1].us_per_buffer, threads_ratio(w, 1),
					threads_ratio(w, 0));
		}
		fprintf(f, "\n");
	}
	return 0;
}

static int csv_map(FILE *f, const struct report_figures *fig)
{
	fprintf(f, "iommu,map_us_before,map_us_after,unmap_us_before,unmap_us_after\n");
	for (int fmt = 0; fmt < SIM_NR_IOMMU_FORMATS; fmt++) {
		const struct heap_result *b = &fig->formats_busy[fmt][0];
		const struct heap_result *a = &fig->formats_busy[fmt][1];

		fprintf(f, "%s", sim_iommu_format(fmt)->name);
		/* Failed, or left out on this build (its granule > PAGE_SIZE). */
		if (cli_format_not_for_dma_api(fmt) || b->err || a->err)
			fprintf(f, ",NaN,NaN,NaN,NaN\n");
		else
			fprintf(f, ",%.2f,%.2f,%.2f,%.2f\n", b->sim_ns[HEAP_MAP] / 1e3,
				a->sim_ns[HEAP_MAP] / 1e3, b->sim_ns[HEAP_UNMAP] / 1e3,
				a->sim_ns[HEAP_UNMAP] / 1e3);
	}
	return 0;
}

static const struct figure figures[] = {
	{ "order9_success", csv_order9,
	  "set title 'One order-9 (2 MiB) attempt per allocation policy\\n"
	  "(curves shifted by 0.01 each so that equal ones stay visible)'\n"
	  "set xlabel 'fragmentation level (sim_age)'\n"
	  "set ylabel 'share of machines where it succeeded'\n"
	  "set yrange [-0.05:1.1]\n"
	  "set key bottom left\n"
	  "plot for [c=4:9] 'order9_success.csv' using 1:(column(c) + 0.01 * (c - 6)) "
	  "with linespoints lw 2 dt c-3 pt c-3 title columnheader(c)\n" },
	{ "share_2m", csv_share,
	  "set title 'Orders 9,8,4,0, 1 GiB buffer: share of it in 2 MiB chunks'\n"
	  "set xlabel 'fragmentation level (sim_age)'\n"
	  "set ylabel '% of the buffer'\n"
	  "set yrange [-2:105]\n"
	  "set key top right\n"
	  "plot 'share_2m.csv' using 1:4 with linespoints lw 2 title '2 MiB chunks', \\\n"
	  "     '' using 1:5 with linespoints lw 2 dt 2 title 'first order-9 attempt failed "
	  "(% of machines)'\n" },
	{ "threads", csv_threads,
	  "set title 'Alloc + close on N CPUs: time per buffer, orders 8,4,0 / 9,8,4,0'\n"
	  "set xlabel 'simulated CPUs'\n"
	  "set ylabel 'ratio (above 1: 9,8,4,0 faster; log scale)'\n"
	  "set logscale x 2\n"
	  "set logscale y 2\n"
	  "set yrange [0.8:*]\n"
	  "set object 1 rect from graph 0, first 3 to graph 1, first 7 fc rgb '#dff0df' "
	  "fs solid noborder behind\n"
	  "set label 1 'published 3-7x' at graph 0.02, first 5.5\n"
	  "set key top left\n"
	  "plot for [s=0:2] 'threads.csv' using 1:(column(4+4*s)) with linespoints lw 2 "
	  "title columnheader(4+4*s), \\\n"
	  "     for [s=0:2] '' using 1:(column(5+4*s)) with linespoints lw 2 dt 2 "
	  "title columnheader(5+4*s)\n" },
	{ "map_cost", csv_map,
	  "set title 'Map a 1 GiB dma-buf (fragmentation level 0.3), per IOMMU format'\n"
	  "set ylabel 'modelled us (log scale)'\n"
	  "set logscale y\n"
	  "set style data histogram\n"
	  "set style histogram clustered gap 1\n"
	  "set style fill solid 0.8 border -1\n"
	  "set key top right\n"
	  "set xtics rotate by -20\n"
	  "plot 'map_cost.csv' using 2:xtic(1) title 'map, 8,4,0', '' using 3 title "
	  "'map, 9,8,4,0', \\\n"
	  "     '' using 4 title 'unmap, 8,4,0', '' using 5 title 'unmap, 9,8,4,0'\n" },
};
#define NR_FIGURES	(sizeof(figures) / sizeof(figures[0]))

int report_plots_prepare(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "dmasim report: --plots %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
		fprintf(stderr, "dmasim report: --plots %s: not a writable directory\n", dir);
		return 1;
	}
	return 0;
}

/* gnuplot's path when it is on PATH, else NULL. */
static const char *find_gnuplot(char *buf, size_t len)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);

		if (n && (size_t)snprintf(buf, len, "%.*s/gnuplot", (int)n, path) < len &&
		    !access(buf, X_OK))
			return buf;
		path = end ? end + 1 : NULL;
	}
	return NULL;
}

static FILE *open_in(const char *dir, const char *name, const char *ext)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	return fopen(path, "w");
}

/* gnuplot script.gp in dir; its exit status (0 ok), -1 if it did not run. */
static int run_gnuplot(const char *gnuplot, const char *dir, const char *script)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (chdir(dir))
			_exit(127);
		if (!freopen("gnuplot.log", "a", stderr))
			_exit(127);
		execl(gnuplot, "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int report_plots_write(const char *dir, const struct report_figures *fig, int text)
{
	FILE *say = text ? stdout : stderr;
	char buf[4096], script[256];
	const char *gnuplot = find_gnuplot(buf, sizeof(buf));
	int rc = 0;

	fprintf(say, "== Plots in %s\n\n", dir);
	for (unsigned int i = 0; i < NR_FIGURES; i++) {
		const struct figure *fg = &figures[i];
		FILE *csv = open_in(dir, fg->name, "csv"), *gp = open_in(dir, fg->name, "gp");
		int ok = csv && gp && !fg->csv(csv, fig);

		if (gp && ok)
			fprintf(gp, "# Renders %s.svg from %s.csv (docs/plots.md): gnuplot %s.gp\n"
				"set terminal svg size 860,500 dynamic noenhanced font 'sans,13'\n"
				"set output '%s.svg'\n"
				"set datafile separator ','\n"
				"set datafile missing 'NaN'\n"
				"set key autotitle columnhead\n"
				"set grid\n%s", fg->name, fg->name, fg->name, fg->name, fg->gp);
		if (csv && fclose(csv))
			ok = 0;
		if (gp && fclose(gp))
			ok = 0;
		if (!ok) {
			fprintf(stderr, "dmasim report: cannot write %s/%s.csv or .gp: %s\n",
				dir, fg->name, strerror(errno));
			return 1;
		}
		snprintf(script, sizeof(script), "%s.gp", fg->name);
		if (gnuplot) {
			int st = run_gnuplot(gnuplot, dir, script);

			if (st) {
				fprintf(stderr, "dmasim report: gnuplot failed on %s/%s (see %s/"
					"gnuplot.log)\n", dir, script, dir);
				rc = 1;
				continue;
			}
			fprintf(say, "   %s.csv, %s.svg\n", fg->name, fg->name);
		} else {
			fprintf(say, "   %s.csv (and %s.gp)\n", fg->name, fg->name);
		}
	}
	if (!gnuplot)
		fprintf(say, "\n   gnuplot is not installed, so no SVG was drawn.  To get them:\n"
			"   apt-get install gnuplot-nox (tools/install-deps.sh installs it), then\n"
			"   run `gnuplot NAME.gp` in %s, or this report again.\n", dir);
	fprintf(say, "\n");
	return rc;
}

/* ---- from a saved report ---- */

/* The file's text, NUL-terminated (free it), or NULL after a message. */
static char *read_text(const char *file)
{
	FILE *f = fopen(file, "r");
	size_t len = 0, cap = 1 << 16, got;
	char *buf = NULL, *more;

	if (!f) {
		fprintf(stderr, "dmasim report: --from-json %s: %s\n", file, strerror(errno));
		return NULL;
	}
	do {
		more = len + 1 >= cap || !buf ? realloc(buf, cap *= 2) : buf;
		if (!more) {
			free(buf);
			fclose(f);
			fprintf(stderr, "dmasim report: --from-json %s: out of memory\n", file);
			return NULL;
		}
		buf = more;
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		fprintf(stderr, "dmasim report: --from-json %s: %s\n", file, strerror(errno));
		free(buf);
		buf = NULL;
	} else {
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/* The number at obj.key (obj.key.sub when sub), or -1 with *bad = the key. */
static int num_at(const struct json_value *obj, const char *key, const char *sub,
		  double *out, const char **bad)
{
	const struct json_value *v = json_get(obj, key);

	if (sub)
		v = json_get(v, sub);
	if (json_number(v, out)) {
		*bad = sub ? sub : key;
		return -1;
	}
	return 0;
}

static int levels_from_json(const struct json_value *doc, struct level_stats *ls,
			    const char **bad)
{
	const struct json_value *arr = json_get(doc, "heap_levels");
	double v;

	*bad = "heap_levels";
	if (!arr || arr->n != REPORT_NR_LEVELS)
		return -1;
	for (unsigned int l = 0; l < REPORT_NR_LEVELS; l++) {
		const struct json_value *lv = json_item(arr, l);
		const struct json_value *pols = json_get(lv, "order9_policies");

		if (num_at(lv, "level", NULL, &v, bad) ||
		    fabs(v - report_levels[l]) > 1e-9) {
			*bad = "heap_levels[].level (not this build's levels)";
			return -1;
		}
		if (num_at(lv, "free_pct", NULL, &ls[l].free_pct, bad) ||
		    num_at(lv, "after_2m_share", NULL, &ls[l].after_2m_share, bad) ||
		    num_at(lv, "seeds", NULL, &v, bad))
			return -1;
		ls[l].seeds = (unsigned int)v;
		if (num_at(lv, "order9_first_attempt_failed", NULL, &v, bad))
			return -1;
		ls[l].o9_first_failed = (unsigned int)v;
		for (int pol = 0; pol < O9_NR_POLICIES; pol++) {
			const char *name = order9_policies[pol].name;

			if (num_at(pols, name, "tried", &v, bad))
				return -1;
			ls[l].o9_tried[pol] = (unsigned int)v;
			if (num_at(pols, name, "succeeded", &v, bad))
				return -1;
			ls[l].o9_ok[pol] = (unsigned int)v;
		}
	}
	return 0;
}

/* heap[] of the busy state: map and unmap cost per format, before and after. */
static int formats_from_json(const struct json_value *doc, struct heap_result (*busy)[2],
			     const char **bad)
{
	const struct json_value *arr = json_get(doc, "heap");
	double v;

	*bad = "heap";
	if (!arr || arr->type != JSON_ARRAY)
		return -1;
	for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++)
		for (int after = 0; after < 2; after++)
			busy[f][after].err = -ENOENT;	/* NaN unless found */
	for (size_t i = 0; i < arr->n; i++) {
		const struct json_value *h = json_item(arr, i);
		const char *iommu = json_str(json_get(h, "iommu"));
		const char *orders = json_str(json_get(h, "orders"));
		const char *frag = json_str(json_get(h, "frag"));
		int after;

		if (!iommu || !orders || !frag) {
			*bad = "heap[].iommu, orders or frag";
			return -1;
		}
		if (strcmp(frag, REPORT_BUSY_STATE))
			continue;
		after = !strcmp(orders, AFTER_ORDERS);
		if (!after && strcmp(orders, BEFORE_ORDERS))
			continue;
		for (int f = 0; f < SIM_NR_IOMMU_FORMATS; f++) {
			struct heap_result *r = &busy[f][after];

			if (strcmp(iommu, sim_iommu_format(f)->name))
				continue;
			memset(r, 0, sizeof(*r));
			if (!num_at(h, "error", NULL, &v, bad)) {
				r->err = (int)v;
				continue;
			}
			if (num_at(h, "sim_us", "map", &v, bad))
				return -1;
			r->sim_ns[HEAP_MAP] = v * 1e3;
			if (num_at(h, "sim_us", "unmap", &v, bad))
				return -1;
			r->sim_ns[HEAP_UNMAP] = v * 1e3;
		}
	}
	return 0;
}

/* threads[size].cpus[]: the four times per row (the ratios follow from them). */
static int threads_from_json(const struct json_value *doc,
			     struct threads_row (*rows)[REPORT_THREADS_CPUS], const char **bad)
{
	static const char *const keys[2][2] = {
		{ "orders_8_4_0_zeroed_pages", "orders_8_4_0" },
		{ "orders_9_8_4_0_zeroed_pages", "orders_9_8_4_0" },
	};
	const struct json_value *arr = json_get(doc, "threads");
	double v;

	*bad = "threads";
	if (!arr || arr->n != REPORT_THREADS_SIZES)
		return -1;
	for (unsigned int s = 0; s < REPORT_THREADS_SIZES; s++) {
		const struct json_value *cpus = json_get(json_item(arr, s), "cpus");

		if (num_at(json_item(arr, s), "size", NULL, &v, bad) ||
		    v != (double)report_threads_sizes[s] || !cpus ||
		    cpus->n != REPORT_THREADS_CPUS) {
			*bad = "threads[] (not this build's sizes and CPU counts)";
			return -1;
		}
		for (unsigned int c = 0; c < REPORT_THREADS_CPUS; c++) {
			const struct json_value *row = json_item(cpus, c);
			struct threads_row *w = &rows[s][c];

			memset(w, 0, sizeof(*w));
			w->cpus = report_threads_cpus[c];
			if (!num_at(row, "error", NULL, &v, bad)) {
				w->err = (int)v;
				continue;
			}
			for (int after = 0; after < 2; after++)
				for (int zeroing = 0; zeroing < 2; zeroing++)
					if (num_at(row, keys[after][zeroing], "us_per_buffer",
						   &w->r[after][zeroing].us_per_buffer, bad))
						return -1;
		}
	}
	return 0;
}

int report_plots_from_json(const char *file, const char *dir, int text)
{
	struct level_stats ls[REPORT_NR_LEVELS] = { 0 };
	struct heap_result (*busy)[2] = calloc(SIM_NR_IOMMU_FORMATS, sizeof(*busy));
	struct threads_row (*rows)[REPORT_THREADS_CPUS] =
		calloc(REPORT_THREADS_SIZES, sizeof(*rows));
	struct report_figures fig = { .levels = ls, .formats_busy = busy };
	struct json_value doc;
	const char *err, *bad = NULL;
	char *json = busy && rows ? read_text(file) : NULL;
	double v = 0;
	size_t at;
	int rc = 1;

	if (!json)
		goto out;
	if (json_parse(json, &doc, &err, &at)) {
		fprintf(stderr, "dmasim report: --from-json %s: not JSON: %s at byte %zu\n",
			file, err, at);
		goto out;
	}
	if (num_at(json_get(&doc, "parameters"), "page_shift", NULL, &v, &bad)) {
		fprintf(stderr, "dmasim report: --from-json %s: no usable '%s' in it\n",
			file, bad);
	} else if (v != SIM_PAGE_SHIFT) {
		fprintf(stderr, "dmasim report: --from-json %s: not a report of this build "
			"(parameters.page_shift %g, PAGE_SHIFT here %d)\n", file, v,
			SIM_PAGE_SHIFT);
	} else if (num_at(json_get(&doc, "parameters"), "seeds", NULL, &v, &bad) ||
		   levels_from_json(&doc, ls, &bad) || formats_from_json(&doc, busy, &bad) ||
		   threads_from_json(&doc, rows, &bad)) {
		fprintf(stderr, "dmasim report: --from-json %s: no usable '%s' in it\n",
			file, bad);
	} else {
		fig.seeds = (unsigned int)v;
		for (unsigned int s = 0; s < REPORT_THREADS_SIZES; s++)
			fig.threads[s] = rows[s];
		rc = report_plots_write(dir, &fig, text);
	}
	json_value_free(&doc);
out:
	free(json);
	free(rows);
	free(busy);
	return rc;
}
