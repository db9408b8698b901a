// SPDX-License-Identifier: GPL-2.0-only
/* The kernel log of the simulated machine: printk, WARN and BUG end here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dmasim/sim.h>

int sim_klog_echo = -1;
static unsigned long long klog_counts[SIM_KLOG_NR_LEVELS];
static unsigned long long warnings;
static char klog_last[512];

static int echo_enabled(void)
{
	if (sim_klog_echo < 0)
		sim_klog_echo = getenv("DMASIM_KLOG") != NULL;
	return sim_klog_echo;
}

void sim_klog(int level, const char *msg)
{
	size_t n;

	if (level < 0 || level >= SIM_KLOG_NR_LEVELS)
		level = SIM_KLOG_WARNING;
	klog_counts[level]++;
	/* A copy, not a second formatting (printk already formatted it). */
	n = strnlen(msg, sizeof(klog_last) - 1);
	memmove(klog_last, msg, n);
	klog_last[n] = '\0';
	if (echo_enabled())
		fprintf(stderr, "[kernel <%d>] %s%s", level, msg,
			msg[0] && msg[strlen(msg) - 1] == '\n' ? "" : "\n");
}

unsigned long long sim_klog_count(int level)
{
	if (level < 0 || level >= SIM_KLOG_NR_LEVELS)
		return 0;
	return klog_counts[level];
}

const char *sim_klog_last(void)
{
	return klog_last;
}

unsigned long long sim_kernel_warnings(void)
{
	return warnings;
}

void sim_kernel_warn(const char *file, int line, const char *what)
{
	char msg[512];

	warnings++;
	snprintf(msg, sizeof(msg), "WARNING: %s:%d: %s", file, line, what);
	sim_klog(SIM_KLOG_WARNING, msg);
}

void sim_kernel_bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "kernel BUG at %s:%d: %s\n", file, line, what);
	abort();
}

void sim_klog_reset(void)
{
	memset(klog_counts, 0, sizeof(klog_counts));
	warnings = 0;
	klog_last[0] = '\0';
}

const char *sim_boot_params(void)
{
	const char *s = getenv("DMASIM_PARAMS");

	return s ? s : "";
}
