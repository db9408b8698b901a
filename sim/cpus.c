// SPDX-License-Identifier: GPL-2.0-only
/*
 * Simulated CPUs running concurrently, interleaved deterministically in
 * modelled time (sim.h: sim_cpus_run says what is modelled).
 *
 * Why coroutines with a baton rather than a hand-written interleaving:
 * the code under test is the kernel's, a whole ioctl deep (the heap's
 * allocate loop, dma-buf export, fd install, release), so each simulated
 * CPU needs its own stack to stop in the middle of it.  Coroutines give
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
 * The simulated CPUs are coroutines on the calling thread (ucontext: a
 * stack of their own each), and the baton is handed over by swapcontext():
 * only the holder runs, and a handover is a switch of registers and
 * stacks with one sigprocmask call, where host threads cost two host
 * context switches through the kernel's scheduler (a futex wake and a
 * wait: about 4 us each on a 2-core VM, and the heap's allocator hands
 * over at nearly every call: `dmasim threads --size 256M` made 228,136
 * host context switches).  What a host thread keeps per thread, the
 * simulator and the shims keep in thread-locals (the held locks, the
 * current task, the allocator's call depth and CPU, ...); each registers
 * them (sim_thread_local_register), and a handover saves the outgoing
 * CPU's copies and loads the incoming one's, so each simulated CPU sees
 * its own, from zero as a new thread's, and the caller gets its own back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#if defined(__has_include) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include "mem_internal.h"

/* A simulated CPU's stack: the default of a host thread's; a guard below. */
#define CPU_STACK_SIZE	(8UL << 20)
#define GUARD_SIZE	(64UL << 10)	/* a page, whatever the host's page size */

enum cpu_state { CPU_WAITING, CPU_RUNNING, CPU_DONE };

struct cpu {
	ucontext_t ctx;
	void *stack;			/* CPU_STACK_SIZE, a guard page below */
	unsigned int stack_id;		/* valgrind's name for it */
	unsigned char *locals;		/* its thread-locals while it waits */
	enum cpu_state state;
	double clock, wait, entry;
	unsigned long long lock_sections;
	struct sim_counters snap;	/* counters when this CPU last got the baton */
};

static struct {
	struct cpu *cpus;
	unsigned int n;
	double lock_free_at;
	unsigned long long exclude;
	void (*fn)(unsigned int cpu, void *arg);
	void *arg;
	ucontext_t caller;
	unsigned char *caller_locals;	/* the caller's thread-locals meanwhile */
} run;

/* The calling thread's CPU: -1 outside a run and for other threads. */
static _Thread_local int this_cpu = -1;

/* ---- thread-locals, swapped at each handover ---- */

#define MAX_THREAD_LOCALS	16

static struct {
	void *(*addr)(void);
	size_t size;
} thread_locals[MAX_THREAD_LOCALS];
static unsigned int nr_thread_locals;
static size_t thread_locals_size;
/* Their addresses on the thread that runs the CPUs, during a run. */
static void *thread_local_at[MAX_THREAD_LOCALS];

void sim_thread_local_register(void *(*addr)(void), unsigned long size)
{
	/* A fixed table: a registration that does not fit is a build error in all but name. */
	if (nr_thread_locals == MAX_THREAD_LOCALS)
		abort();
	thread_locals[nr_thread_locals].addr = addr;
	thread_locals[nr_thread_locals].size = size;
	nr_thread_locals++;
	thread_locals_size += size;
}

static void thread_locals_save(unsigned char *to)
{
	for (unsigned int i = 0; i < nr_thread_locals; i++) {
		memcpy(to, thread_local_at[i], thread_locals[i].size);
		to += thread_locals[i].size;
	}
}

static void thread_locals_load(const unsigned char *from)
{
	for (unsigned int i = 0; i < nr_thread_locals; i++) {
		memcpy(thread_local_at[i], from, thread_locals[i].size);
		from += thread_locals[i].size;
	}
}

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

/*
 * Run CPU next (-1: the caller of sim_cpus_run) from here, with its
 * thread-locals; this CPU (or the caller) resumes here when it gets the
 * baton back.
 */
static void switch_to(int next)
{
	int from = this_cpu;
	ucontext_t *save = from < 0 ? &run.caller : &run.cpus[from].ctx;

	thread_locals_save(from < 0 ? run.caller_locals : run.cpus[from].locals);
	thread_locals_load(next < 0 ? run.caller_locals : run.cpus[next].locals);
	this_cpu = next;
	swapcontext(save, next < 0 ? &run.caller : &run.cpus[next].ctx);
}

/*
 * Give the baton to the next CPU and, unless this one is done, wait for it
 * back; when every CPU is done, to the caller of sim_cpus_run.
 */
static void pass_baton(void)
{
	int next = next_cpu();

	if (next == this_cpu)
		return;
	switch_to(next);
}

/* The current CPU with what it did since its snapshot added to its clock. */
static struct cpu *this_cpu_accounted(struct sim_counters *delta)
{
	struct cpu *me;

	if (this_cpu < 0)
		return NULL;
	me = &run.cpus[this_cpu];
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
		pass_baton();
		me->state = CPU_RUNNING;
		sim_counters_snapshot(&me->snap);
	}
	me->entry = me->clock;
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
}

/* A CPU's coroutine: it starts when it first gets the baton, and never returns. */
static void cpu_main(void)
{
	unsigned int cpu = (unsigned int)this_cpu;
	struct cpu *me = &run.cpus[cpu];
	struct sim_counters delta;

	sim_set_cpu(cpu);
	me->state = CPU_RUNNING;
	sim_counters_snapshot(&me->snap);

	run.fn(cpu, run.arg);

	account(me, &delta);
	me->state = CPU_DONE;
	switch_to(next_cpu());
	abort();	/* a CPU that is done never gets the baton */
}

static void cpus_free(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct cpu *c = &run.cpus[i];

		if (!c->stack)
			continue;
#ifdef VALGRIND_STACK_DEREGISTER
		VALGRIND_STACK_DEREGISTER(c->stack_id);
#endif
		munmap((char *)c->stack - GUARD_SIZE, CPU_STACK_SIZE + GUARD_SIZE);
	}
	free(run.cpus);
	run.cpus = NULL;
	run.n = 0;
}

/* CPU i's stack (a guard page below it), thread-locals and context. */
static int cpu_setup(struct cpu *c)
{
	char *map = mmap(NULL, CPU_STACK_SIZE + GUARD_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);

	if (map == MAP_FAILED)
		return -ENOMEM;
	if (mprotect(map, GUARD_SIZE, PROT_NONE)) {
		munmap(map, CPU_STACK_SIZE + GUARD_SIZE);
		return -ENOMEM;
	}
	c->stack = map + GUARD_SIZE;
#ifdef VALGRIND_STACK_REGISTER
	c->stack_id = VALGRIND_STACK_REGISTER(c->stack, (char *)c->stack + CPU_STACK_SIZE);
#endif
	if (getcontext(&c->ctx))
		return -errno;
	c->ctx.uc_stack.ss_sp = c->stack;
	c->ctx.uc_stack.ss_size = CPU_STACK_SIZE;
	c->ctx.uc_link = NULL;
	makecontext(&c->ctx, cpu_main, 0);
	c->state = CPU_WAITING;
	return 0;
}

int sim_cpus_run(unsigned int n, void (*fn)(unsigned int cpu, void *arg), void *arg,
		 unsigned long long exclude, struct sim_cpu_stats *stats)
{
	const struct sim_config *cfg = sim_machine_config();
	unsigned char *locals;
	unsigned int i;
	int ret = 0;

	if (!n || !cfg || n > (cfg->nr_cpus ? cfg->nr_cpus : 1) || run.cpus)
		return -EINVAL;
	run.cpus = calloc(n, sizeof(*run.cpus));
	/* the caller's, then each CPU's: zero, as a new thread's */
	locals = calloc(n + 1, thread_locals_size ? thread_locals_size : 1);
	if (!run.cpus || !locals) {
		free(run.cpus);
		run.cpus = NULL;
		free(locals);
		return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++) {
		run.cpus[i].locals = locals + (i + 1) * thread_locals_size;
		ret = cpu_setup(&run.cpus[i]);
	}
	if (ret) {
		cpus_free(i);
		free(locals);
		return ret;
	}
	run.n = n;
	run.fn = fn;
	run.arg = arg;
	run.exclude = exclude;
	run.lock_free_at = 0;
	run.caller_locals = locals;
	for (i = 0; i < nr_thread_locals; i++)
		thread_local_at[i] = thread_locals[i].addr();

	sim_buddy_set_call_hooks(call_enter, call_exit);
	switch_to(next_cpu());		/* back when every CPU is done */
	sim_buddy_set_call_hooks(NULL, NULL);

	if (stats)
		for (i = 0; i < n; i++) {
			stats[i].clock_ns = run.cpus[i].clock;
			stats[i].wait_ns = run.cpus[i].wait;
			stats[i].lock_sections = run.cpus[i].lock_sections;
		}
	cpus_free(n);
	free(locals);
	sim_set_cpu(0);
	return 0;
}
