// SPDX-License-Identifier: GPL-2.0-only
/*
 * Threads against one simulated kernel, with the shim's mutexes, rwsems
 * and page-table locks real (pthread-based): two threads map and unmap
 * disjoint ranges of one IOMMU domain, two vCPU-like threads MAP_DMA and
 * UNMAP_DMA disjoint ranges of one VFIO container, and one thread
 * allocates dma-buf heap buffers while another closes them.  Every result
 * must be what a single thread would get, and nothing may be left.  Built
 * with -fsanitize=thread (tools/ci-variants.sh) these are the race tests;
 * in the plain build they still check results and leaks.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <dmasim/kapi.h>
#include <dmasim/kapi_heap.h>
#include <dmasim/kapi_iommu.h>
#include <dmasim/kapi_mm.h>
#include <dmasim/kapi_vfio.h>
#include <dmasim/sim.h>

#include "shared.h"

#define NR_THREADS	2
#define ROUNDS		200

/* A booted 1 GiB machine with two CPUs. */
static void machine_with_two_cpus(void)
{
	given_a_booted_machine(&(struct sim_config){
		.ram_bytes = 1 * GiB, .nr_cpus = 2,
	});
	grow_the_fd_table();
}

static void run_threads(void *(*fn)(void *), void *args, size_t arg_size,
			int n)
{
	pthread_t t[NR_THREADS];

	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_create(&t[i], NULL, fn,
						(char *)args + i * arg_size), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
}

/* ---- one IOMMU domain, two threads ------------------------------------ */

/*
 *  IOVA   0 ... R ......... 2R ........ 3R      R = 64 slots of 4 PMDs
 *             | thread 0  | thread 1  |   each maps PMD + PAGE pieces of
 *                                         its own region (a gigabyte at
 *                                         4 KiB pages; wider at 16/64 KiB,
 *                                         where a PMD is 32/512 MiB) and
 *                                         unmaps them again; the two share
 *                                         the top-level tables.
 */
#define SLOTS		64
#define REGION		(SLOTS * 4 * PMD)
struct iommu_worker {
	struct kapi_iommu_domain *domain;
	unsigned long long base;
	unsigned int cpu;
	int errors;
};

static void *map_and_unmap_own_gigabyte(void *arg)
{
	struct iommu_worker *w = arg;
	const int rw = KAPI_IOMMU_READ | KAPI_IOMMU_WRITE;

	sim_set_cpu(w->cpu);
	for (int r = 0; r < ROUNDS; r++) {
		unsigned long long iova = w->base + (r % SLOTS) * 4 * PMD;

		if (kapi_iommu_map(w->domain, iova, iova, PMD + PAGE, rw))
			w->errors++;
		if (kapi_iommu_iova_to_phys(w->domain, iova + PMD) != iova + PMD)
			w->errors++;
		if (kapi_iommu_unmap(w->domain, iova, PMD + PAGE) != PMD + PAGE)
			w->errors++;
	}
	return NULL;
}

/* Disjoint ranges of one domain map and unmap concurrently, exactly. */
static void test_two_threads_map_disjoint_ranges_of_one_domain(void **state)
{
	struct iommu_worker w[NR_THREADS];
	struct kapi_iommu_dev *dev;
	struct kapi_iommu_domain *domain;

	machine_with_two_cpus();
	assert_int_equal(kapi_iommu_dev_create("dev0", SIM_IOMMU_INTEL_SL, NULL,
					       &dev), 0);
	assert_int_equal(kapi_iommu_domain_alloc(dev, &domain), 0);
	for (int i = 0; i < NR_THREADS; i++)
		w[i] = (struct iommu_worker){ .domain = domain,
					      .base = (i + 1) * REGION, .cpu = i };
	run_threads(map_and_unmap_own_gigabyte, w, sizeof(w[0]), NR_THREADS);
	for (int i = 0; i < NR_THREADS; i++)
		assert_int_equal(w[i].errors, 0);
	assert_int_equal(sim_iommu_nr_leaves_total(kapi_iommu_sim_domain(domain)), 0);
	kapi_iommu_domain_free(domain);
	kapi_iommu_dev_destroy(dev);
	assert_int_equal(sim_iommu_leaves_dropped(), 0);
	check_and_destroy();
}

/* ---- one VFIO container, two vCPU threads ----------------------------- */

/*
 *  vaddr  [ anon 2M, thread 0 ][ anon 2M, thread 1 ]   one process
 *  IOVA   [ 0 ...            ][ 1G ...            ]   one container
 * Each thread maps its half page by 64K piece and unmaps it, over and
 * over, as two vCPU threads of a VMM might hot-plug memory.
 */
struct vfio_worker {
	struct kapi_vfio *c;
	struct kapi_proc *proc;
	unsigned long va;
	unsigned long long iova;
	unsigned int cpu;
	int errors;
};

static void *map_dma_and_unmap_own_half(void *arg)
{
	struct vfio_worker *w = arg;
	const unsigned long piece = 16 * PAGE;

	kapi_proc_set_current(w->proc);
	sim_set_cpu(w->cpu);
	for (int r = 0; r < ROUNDS / 4; r++) {
		unsigned long off = (r % (2 * MiB / piece)) * piece;
		unsigned long long unmapped = 0;

		if (kapi_vfio_map_dma(w->c, w->va + off, w->iova + off, piece,
				      KAPI_VFIO_DMA_MAP_RW))
			w->errors++;
		if (kapi_vfio_unmap_dma(w->c, w->iova + off, piece, 0,
					&unmapped) || unmapped != piece)
			w->errors++;
	}
	kapi_proc_set_current(NULL);
	return NULL;
}

/* Two threads MAP_DMA/UNMAP_DMA disjoint ranges of one container. */
static void test_two_threads_map_dma_in_one_container(void **state)
{
	struct vfio_worker w[NR_THREADS];
	struct kapi_vfio_dev *dev;
	struct kapi_proc *proc;
	struct kapi_vfio *c;

	machine_with_two_cpus();
	proc = given_a_process();
	kapi_mm_set_rlimit_memlock(64 * MiB);
	c = open_a_v2_container();
	dev = attach_a_device_of_format(c, SIM_IOMMU_INTEL_SL);
	for (int i = 0; i < NR_THREADS; i++) {
		w[i] = (struct vfio_worker){ .c = c, .proc = proc,
					     .iova = i * GiB, .cpu = i };
		w[i].va = map_memory(&(struct kapi_mm_map){
			.len = 2 * MiB, .kind = KAPI_MM_ANON, .writable = 1,
			.populate = 1,
		});
	}
	run_threads(map_dma_and_unmap_own_half, w, sizeof(w[0]), NR_THREADS);
	for (int i = 0; i < NR_THREADS; i++)
		assert_int_equal(w[i].errors, 0);
	assert_int_equal(kapi_vfio_dev_nr_leaves(dev), 0);
	assert_int_equal(kapi_mm_locked_vm(), 0);
	kapi_vfio_close(c);
	kapi_proc_destroy(proc);
	check_and_destroy();
}

/* ---- heap: one thread allocates, another frees -------------------------- */

/* A bounded queue of dma-buf fds from the allocating thread to the closer. */
#define QUEUE_LEN 8
static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int fd[QUEUE_LEN];
	unsigned int head, tail;
	int done;
} queue = { .lock = PTHREAD_MUTEX_INITIALIZER,
	    .changed = PTHREAD_COND_INITIALIZER };

struct heap_worker {
	int heap_fd;
	unsigned int cpu;
	int errors;
};

static void *allocate_buffers(void *arg)
{
	static const unsigned long long sizes[] = {
		PAGE, 64 * 1024, MiB, 2 * MiB + 3 * PAGE, 3 * MiB,
	};
	struct heap_worker *w = arg;

	sim_set_cpu(w->cpu);
	for (int r = 0; r < ROUNDS; r++) {
		int fd = kapi_heap_alloc(w->heap_fd, sizes[r % 5],
					 KAPI_O_RDWR | KAPI_O_CLOEXEC, 0);

		if (fd < 0) {
			w->errors++;
			continue;
		}
		pthread_mutex_lock(&queue.lock);
		while (queue.tail - queue.head == QUEUE_LEN)
			pthread_cond_wait(&queue.changed, &queue.lock);
		queue.fd[queue.tail++ % QUEUE_LEN] = fd;
		pthread_cond_broadcast(&queue.changed);
		pthread_mutex_unlock(&queue.lock);
	}
	pthread_mutex_lock(&queue.lock);
	queue.done = 1;
	pthread_cond_broadcast(&queue.changed);
	pthread_mutex_unlock(&queue.lock);
	return NULL;
}

static void *close_buffers(void *arg)
{
	struct heap_worker *w = arg;

	sim_set_cpu(w->cpu);
	for (;;) {
		int fd;

		pthread_mutex_lock(&queue.lock);
		while (queue.tail == queue.head && !queue.done)
			pthread_cond_wait(&queue.changed, &queue.lock);
		if (queue.tail == queue.head) {
			pthread_mutex_unlock(&queue.lock);
			return NULL;
		}
		fd = queue.fd[queue.head++ % QUEUE_LEN];
		pthread_cond_broadcast(&queue.changed);
		pthread_mutex_unlock(&queue.lock);
		if (kapi_close(fd))
			w->errors++;
	}
}

/* Buffers allocated on one cpu and released on another all come back. */
static void test_one_thread_allocates_heap_buffers_another_frees(void **state)
{
	struct heap_worker w[NR_THREADS];
	pthread_t t[NR_THREADS];
	int heap_fd;

	machine_with_two_cpus();
	heap_fd = kapi_heap_open("system");
	assert_true(heap_fd >= 0);
	queue.head = queue.tail = 0;
	queue.done = 0;
	for (int i = 0; i < NR_THREADS; i++)
		w[i] = (struct heap_worker){ .heap_fd = heap_fd, .cpu = i };
	assert_int_equal(pthread_create(&t[0], NULL, allocate_buffers, &w[0]), 0);
	assert_int_equal(pthread_create(&t[1], NULL, close_buffers, &w[1]), 0);
	for (int i = 0; i < NR_THREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(w[0].errors + w[1].errors, 0);
	assert_int_equal(kapi_close(heap_fd), 0);
	sim_buddy_drain_pcp();
	check_and_destroy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads_map_disjoint_ranges_of_one_domain),
		cmocka_unit_test(test_two_threads_map_dma_in_one_container),
		cmocka_unit_test(test_one_thread_allocates_heap_buffers_another_frees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
