// SPDX-License-Identifier: GPL-2.0-only
/* Shared pieces of the dmasim subcommands (see cli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>

#include "cli.h"

void cli_machine_defaults(struct cli_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->ram = 16ULL << 30;
	m->seed = 1;
	m->frag = 0;
	m->frag_name = "fresh";
	m->cpus = 1;
}

const char *const cli_frag_presets[] = { "fresh", "aged", "fragmented", NULL };

const char *cli_iommu_name(unsigned int i)
{
	return i < SIM_NR_IOMMU_FORMATS ? sim_iommu_format(i)->name : NULL;
}

const char *cli_format_not_for_dma_api(unsigned int fmt)
{
	static char why[160];
	unsigned int shift = sim_iommu_format(fmt)->granule_shift;

	if (kapi_dev_format_backs_dma_api(fmt))
		return NULL;
	snprintf(why, sizeof(why),
		 "%s: its %u KiB IOMMU granule is larger than the %u KiB page, so iommu-dma "
		 "cannot back a DMA-API domain with it (build with -Dpage_shift=%u)",
		 sim_iommu_format(fmt)->name, 1u << (shift - 10),
		 1u << (SIM_PAGE_SHIFT - 10), shift);
	return why;
}

int cli_machine_start(const struct cli_machine *m)
{
	struct sim_config cfg = {
		.ram_bytes = m->ram,
		.nr_cpus = m->cpus,
		.seed = m->seed,
	};
	int ret;

	ret = sim_machine_init(&cfg);
	if (ret) {
		fprintf(stderr, "dmasim: cannot build the machine: %s\n", strerror(-ret));
		return ret;
	}
	ret = kapi_boot();
	if (ret) {
		fprintf(stderr, "dmasim: kernel initcalls failed: %s\n", strerror(-ret));
		return ret;
	}
	if (m->frag > 0) {
		ret = sim_age(m->frag, m->seed);
		if (ret) {
			fprintf(stderr, "dmasim: ageing failed: %s\n", strerror(-ret));
			return ret;
		}
	}
	sim_counters_reset();
	return 0;
}

/* Read exactly len bytes; 0 or -1. */
static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

void cli_fork_runs(unsigned int n, void (*run)(unsigned int i, void *res, void *arg),
		  void *arg, void *res, size_t res_size, int *status)
{
	for (unsigned int i = 0; i < n; i++) {
		char *r = (char *)res + i * res_size;
		int fds[2];
		pid_t pid;

		status[i] = 0;
		fflush(NULL);
		if (pipe(fds)) {
			status[i] = -errno;
			continue;
		}
		pid = fork();
		if (pid < 0) {
			status[i] = -errno;
			close(fds[0]);
			close(fds[1]);
			continue;
		}
		if (!pid) {
			close(fds[0]);
			run(i, r, arg);
			if (write(fds[1], r, res_size) != (ssize_t)res_size)
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		if (read_full(fds[0], r, res_size))
			status[i] = -ECHILD;
		close(fds[0]);
		waitpid(pid, NULL, 0);
	}
}

int cli_machine_fork_runs(const struct cli_machine *m, unsigned int n,
			  void (*run)(unsigned int i, void *res, void *arg), void *arg,
			  void *res, size_t res_size, int *status)
{
	int ret = cli_machine_start(m);

	if (ret) {
		for (unsigned int i = 0; i < n; i++)
			status[i] = ret;
	} else {
		cli_fork_runs(n, run, arg, res, res_size, status);
	}
	sim_machine_destroy();
	return ret;
}

const char *cli_size_name(unsigned long long bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (bytes >= 1024 && !(bytes & 1023) && u < 5) {
		bytes >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", bytes);
	else
		snprintf(buf, len, "%llu%c", bytes, units[u]);
	return buf;
}

const char *cli_bytes(unsigned long long bytes, char *buf, size_t len)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (v == (unsigned long long)v)
		snprintf(buf, len, "%llu %s", (unsigned long long)v, units[u]);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

double cli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double cli_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

unsigned long long cli_peak_rss(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (unsigned long long)ru.ru_maxrss * 1024;
}

void cli_json_counters(struct json *j, const char *key, const struct sim_counters *c)
{
	json_begin_object(j, key);
	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		json_u64(j, sim_counter_name(i), c->c[i]);
	json_end_object(j);
}
