// SPDX-License-Identifier: GPL-2.0-only
/* The one simulated machine: build it, tear it down, small shared helpers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sim_internal.h"

static struct sim_config machine_cfg;
static int machine_up;

int sim_machine_init(const struct sim_config *cfg)
{
	int ret;

	if (machine_up)
		sim_machine_destroy();
	memset(&machine_cfg, 0, sizeof(machine_cfg));
	if (cfg)
		machine_cfg = *cfg;
	if (!machine_cfg.ram_bytes)
		machine_cfg.ram_bytes = 16ULL << 30;
	if (!machine_cfg.nr_cpus)
		machine_cfg.nr_cpus = 1;

	if (sim_locking_selfcheck())
		return -ENOTSUP;
	sim_counters_reset();
	sim_clock_reset();
	sim_fault_calls_reset();
	sim_buddy_reset_order_stats();
	ret = sim_mem_init(&machine_cfg);
	if (ret)
		return ret;
	ret = sim_iommu_init();
	if (ret)
		goto err_mem;
	ret = sim_mm_init(&machine_cfg);
	if (ret)
		goto err_iommu;
	machine_up = 1;
	return 0;

err_iommu:
	sim_iommu_destroy();
err_mem:
	sim_mem_destroy();
	return ret;
}

void sim_machine_destroy(void)
{
	if (!machine_up)
		return;
	sim_mm_destroy();
	sim_iommu_destroy();
	sim_mem_destroy();
	machine_up = 0;
}

void sim_machine_release_host_memory(void)
{
	sim_mem_release_kept();
	sim_mm_release_kept();
}

const struct sim_config *sim_machine_config(void)
{
	return &machine_cfg;
}

/*
 * One byte of each page read through process_vm_readv() on ourselves:
 * the kernel answers EFAULT where a load would crash, 64 pages a call.
 */
int sim_host_mapped(unsigned long addr, unsigned long len)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	unsigned long first = addr & ~(page - 1), last, at;
	struct iovec local, remote[64];
	unsigned int nr = 0;
	char sink[64];

	if (!len)
		return 1;
	/* The host's user space ends at 2^47 (x86-64, 4-level paging). */
	if (addr >= 1UL << 47 || len > (1UL << 47) - addr)
		return 0;
	last = (addr + len - 1) & ~(page - 1);
	local.iov_base = sink;
	for (at = first; ; at += page) {
		remote[nr].iov_base = (void *)(at == first ? addr : at);
		remote[nr].iov_len = 1;
		if (++nr == sizeof(remote) / sizeof(remote[0]) || at == last) {
			local.iov_len = nr;
			if (process_vm_readv(getpid(), &local, 1, remote, nr, 0) !=
			    (ssize_t)nr)
				return 0;
			nr = 0;
		}
		if (at == last)
			return 1;
	}
}

/* splitmix64: small, fast, and the same sequence on every machine. */
unsigned long long sim_rand_next(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int sim_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end == 'i' && shift)
		end++;
	if ((*end == 'B' || *end == 'b') && shift)
		end++;
	if (*end)
		return -1;
	if (shift && v > (~0ULL >> shift))
		return -1;
	*out = v << shift;
	return 0;
}
