// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated CPUs running concurrently, interleaved deterministically in
 * modelled time (sim.h: sim_cpus_run says what is modelled).
 *
 * Why real threads with a baton rather than a hand-written interleaving:
 * the code under test is the kernel's, a whole ioctl deep (the heap's
 * allocate loop, dma-buf export, fd install, release), so each simulated
 * CPU needs its own stack to stop in the middle of it.  Host threads give
 * that; passing one baton between them (only the holder runs) makes the
 * order of events a function of modelled time alone, so counts and
 * modelled times are the same on every run and on any host, which real
 * concurrency on a 2-core host would not give.
 *
 * The zone lock: one per machine (the simulated machines have one node and
 * every CPU allocates from the same zone), free from time lock_free_at.
 * A call into the allocator starts at its CPU's clock t.  If it takes the
 * zone lock it waits max(0, lock_free_at - t), then holds the lock for the
 * modelled cost of its locked part; lock_free_at moves to the end of that.
 * Calls happen in the order of t, so this is a FIFO lock in modelled time.
 *
 * The baton is handed over directly: each CPU sleeps on a semaphore of its
 * own, and the holder posts the next CPU's, then waits on its own, with
 * run.lock released in between.  (A condition variable under run.lock, as
 * before, woke the next thread only for it to sleep again on run.lock
 * until the holder was asleep: two host context switches per handoff,
 * and the heap's allocator hands over at nearly every call.  Measured on
 * a 2-core VM, `dmasim threads --size 256M --cpus 16`: about 130,000
 * handoffs.)  Only the CPU holding the baton runs, so run.lock is taken
 * uncontended but for the moment of a handoff.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

enum cpu_state { CPU_WAITING, CPU_RUNNING, CPU_DONE };

struct cpu {
	pthread_t thread;
	sem_t baton;			/* posted when this CPU gets the baton */
	enum cpu_state state;
	double clock, wait, entry;
	unsigned long long lock_sections;
	struct sim_counters snap;	/* counters when this CPU last got the baton */
};

static struct {
	pthread_mutex_t lock;
	struct cpu *cpus;
	unsigned int n;
	int running;			/* the CPU holding the baton, -1: none */
	double lock_free_at;
	unsigned long long exclude;
	void (*fn)(unsigned int cpu, void *arg);
	void *arg;
} run = { .lock = PTHREAD_MUTEX_INITIALIZER, .running = -1 };

static _Thread_local int this_cpu = -1;

static double cost_ns(const struct sim_counters *d, unsigned long long leave_out)
{
	struct sim_counters c = *d;

	for (int i = 0; i < SIM_NR_COUNTERS; i++)
		if (leave_out & (1ULL << i))
			c.c[i] = 0;
	return sim_cost_ns(&c);
}

/* Add what this CPU did since its snapshot to its clock. */
static void account(struct cpu *c, struct sim_counters *delta)
{
	struct sim_counters now;

	sim_counters_snapshot(&now);
	sim_counters_delta(&c->snap, &now, delta);
	c->clock += cost_ns(delta, run.exclude);
	c->snap = now;
}

/* The waiting CPU with the lowest clock (ties: lowest number), or -1. */
static int next_cpu(void)
{
	int best = -1;

	for (unsigned int i = 0; i < run.n; i++)
		if (run.cpus[i].state == CPU_WAITING &&
		    (best < 0 || run.cpus[i].clock < run.cpus[best].clock))
			best = (int)i;
	return best;
}

/* Wait for the baton (run.lock not held); EINTR is no handover. */
static void wait_for_baton(struct cpu *me)
{
	while (sem_wait(&me->baton))
		;
}

/*
 * Give the baton to the next CPU and, unless this one is done, wait for it
 * back; run.lock is held on entry and on return, released while waiting.
 */
static void pass_baton(struct cpu *me)
{
	int next = next_cpu();

	run.running = next;
	if (next == this_cpu)
		return;
	pthread_mutex_unlock(&run.lock);
	if (next >= 0)
		sem_post(&run.cpus[next].baton);
	if (me->state != CPU_DONE)
		wait_for_baton(me);
	pthread_mutex_lock(&run.lock);
}

/*
 * The calling thread's CPU with run.lock taken and what it did since its
 * snapshot added to its clock (in *delta); NULL for a thread that is none.
 */
static struct cpu *this_cpu_accounted(struct sim_counters *delta)
{
	struct cpu *me;

	if (this_cpu < 0)
		return NULL;
	me = &run.cpus[this_cpu];
	pthread_mutex_lock(&run.lock);
	account(me, delta);
	return me;
}

static void call_enter(void)
{
	struct sim_counters delta;
	struct cpu *me = this_cpu_accounted(&delta);

	if (!me)
		return;
	if (!sim_mutexes_held()) {
		me->state = CPU_WAITING;
		pass_baton(me);
		me->state = CPU_RUNNING;
		sim_counters_snapshot(&me->snap);
	}
	me->entry = me->clock;
	pthread_mutex_unlock(&run.lock);
}

static void call_exit(void)
{
	struct sim_counters delta;
	struct cpu *me = this_cpu_accounted(&delta);

	if (!me)
		return;
	if (delta.c[SIM_CNT_ZONE_LOCK]) {
		unsigned long long outside = run.exclude | (1ULL << SIM_CNT_PAGE_ZEROED) |
			(1ULL << SIM_CNT_PCP_HIT) | (1ULL << SIM_CNT_PCP_FREE);
		double hold = cost_ns(&delta, outside);
		double wait = run.lock_free_at > me->entry ? run.lock_free_at - me->entry : 0;
		unsigned long long wait_ns = (unsigned long long)(wait + 0.5);

		run.lock_free_at = me->entry + wait + hold;
		me->lock_sections++;
		me->wait += (double)wait_ns;
		sim_count(SIM_CNT_ZONE_LOCK_WAIT, wait_ns);
		me->clock += (double)wait_ns * sim_counter_cost_ns(SIM_CNT_ZONE_LOCK_WAIT);
		sim_counters_snapshot(&me->snap);
	}
	pthread_mutex_unlock(&run.lock);
}

static void *cpu_thread(void *p)
{
	unsigned int cpu = (unsigned int)(unsigned long)p;
	struct cpu *me = &run.cpus[cpu];
	struct sim_counters delta;

	this_cpu = (int)cpu;
	sim_set_cpu(cpu);
	wait_for_baton(me);
	pthread_mutex_lock(&run.lock);
	me->state = CPU_RUNNING;
	sim_counters_snapshot(&me->snap);
	pthread_mutex_unlock(&run.lock);

	run.fn(cpu, run.arg);

	pthread_mutex_lock(&run.lock);
	account(me, &delta);
	me->state = CPU_DONE;
	pass_baton(me);
	pthread_mutex_unlock(&run.lock);
	this_cpu = -1;
	return NULL;
}

int sim_cpus_run(unsigned int n, void (*fn)(unsigned int cpu, void *arg), void *arg,
		 unsigned long long exclude, struct sim_cpu_stats *stats)
{
	const struct sim_config *cfg = sim_machine_config();
	unsigned int i, started = 0;
	int ret = 0, first;

	if (!n || !cfg || n > (cfg->nr_cpus ? cfg->nr_cpus : 1) || run.cpus)
		return -EINVAL;
	run.cpus = calloc(n, sizeof(*run.cpus));
	if (!run.cpus)
		return -ENOMEM;
	run.n = n;
	run.fn = fn;
	run.arg = arg;
	run.exclude = exclude;
	run.lock_free_at = 0;
	run.running = -1;
	for (i = 0; i < n; i++) {
		if (sem_init(&run.cpus[i].baton, 0, 0)) {
			while (i--)
				sem_destroy(&run.cpus[i].baton);
			free(run.cpus);
			run.cpus = NULL;
			return -errno;
		}
		run.cpus[i].state = CPU_WAITING;
	}
	sim_buddy_set_call_hooks(call_enter, call_exit);
	for (i = 0; i < n; i++) {
		if (pthread_create(&run.cpus[i].thread, NULL, cpu_thread,
				   (void *)(unsigned long)i)) {
			ret = -EAGAIN;
			break;
		}
		started++;
	}
	/* CPUs never started are done before they begin. */
	pthread_mutex_lock(&run.lock);
	for (i = started; i < n; i++)
		run.cpus[i].state = CPU_DONE;
	first = run.running = next_cpu();
	pthread_mutex_unlock(&run.lock);
	if (first >= 0)
		sem_post(&run.cpus[first].baton);
	for (i = 0; i < started; i++)
		pthread_join(run.cpus[i].thread, NULL);
	sim_buddy_set_call_hooks(NULL, NULL);
	for (i = 0; i < n; i++) {
		if (stats) {
			stats[i].clock_ns = run.cpus[i].clock;
			stats[i].wait_ns = run.cpus[i].wait;
			stats[i].lock_sections = run.cpus[i].lock_sections;
		}
		sem_destroy(&run.cpus[i].baton);
	}
	free(run.cpus);
	run.cpus = NULL;
	run.n = 0;
	sim_set_cpu(0);
	return ret;
}
