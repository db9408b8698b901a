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
 * The simulated CPUs are coroutines on the calling thread, each on a stack
 * of its own, and the baton is handed over by a switch of stacks: on
 * x86-64 the callee-saved registers, the SSE and x87 control words and the
 * stack pointer (dmasim_cpu_switch below, a few instructions); elsewhere
 * ucontext's swapcontext().  Host threads, as before, cost two host context
 * switches per handover (a futex wake and a wait through the kernel's
 * scheduler, about 4 us each on a 2-core VM), and the heap's allocator
 * hands over at nearly every call (`dmasim threads --size 256M` made
 * 228,136 host context switches).  On x86-64 the switch is not glibc's
 * swapcontext(), which also calls sigprocmask, and which AddressSanitizer
 * intercepts to warn on stderr that it does not fully support it; each
 * switch tells the sanitizers (ASan's and TSan's fiber interfaces) which
 * stack it goes to, and valgrind knows each stack (registered).
 *
 * What a host thread keeps per thread, the simulator and the shims keep in
 * thread-locals (the held locks, the current task, the allocator's call
 * depth and CPU, ...); each registers them (sim_thread_local_register),
 * and a handover saves the outgoing CPU's copies and loads the incoming
 * one's, so each simulated CPU sees its own, from their initial values as a
 * new thread's, and the caller gets its own back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__has_include) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif

#include "mem_internal.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPUS_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define CPUS_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CPUS_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define CPUS_TSAN 1
#endif
#ifdef CPUS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef CPUS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* -DDMASIM_CPUS_UCONTEXT: the portable switch on x86-64 too (to test it). */
#if defined(__x86_64__) && !defined(DMASIM_CPUS_UCONTEXT)
#define CPU_SWITCH_X86_64 1
#else
#include <ucontext.h>
#endif

/* A simulated CPU's stack: the default of a host thread's; a guard below. */
#define CPU_STACK_SIZE	(8UL << 20)
#define GUARD_SIZE	(64UL << 10)	/* a page, whatever the host's page size */

enum cpu_state { CPU_WAITING, CPU_RUNNING, CPU_DONE };

/* Where a CPU, or the caller of sim_cpus_run, is while another one runs. */
struct context {
#ifdef CPU_SWITCH_X86_64
	void *sp;			/* its stack pointer, its registers on top */
#else
	ucontext_t uc;
#endif
	unsigned char *locals;		/* its thread-locals while it waits */
	const void *stack_bottom;	/* its stack, for ASan */
	size_t stack_size;
	void *asan_fake_stack;		/* ASan's, saved across a switch */
	void *tsan_fiber;
};

struct cpu {
	struct context ctx;
	void *stack;			/* CPU_STACK_SIZE, a guard page below */
	unsigned int stack_id;		/* valgrind's name for it */
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
	struct context caller;
	struct context *switched_from;	/* by the last switch */
} run;

/* The calling thread's CPU: -1 outside a run and for other threads. */
static _Thread_local int this_cpu = -1;

/* ---- thread-locals, swapped at each handover ---- */

#define MAX_THREAD_LOCALS	24
#define SLOT_ALIGN		((size_t)16)

static struct {
	void *(*addr)(void);
	size_t size;
	void (*move)(void *to, void *from, unsigned long size);
	void (*exit)(void *at);
	unsigned char *initial;		/* its value when registered */
	size_t offset;			/* in a CPU's slots, each aligned as malloc's */
} thread_locals[MAX_THREAD_LOCALS];
static unsigned int nr_thread_locals;
static size_t thread_locals_size;
/* Their addresses on the thread that runs the CPUs, during a run. */
static void *thread_local_at[MAX_THREAD_LOCALS];

void sim_thread_local_register(void *(*addr)(void), unsigned long size,
			       void (*move)(void *to, void *from, unsigned long size),
			       void (*exit)(void *at))
{
	unsigned char *initial = malloc(size);

	/*
	 * A fixed table, filled as the program loads: no room is a build
	 * error in all but name.
	 */
	if (nr_thread_locals == MAX_THREAD_LOCALS || !initial)
		abort();
	memcpy(initial, addr(), size);
	thread_locals[nr_thread_locals].addr = addr;
	thread_locals[nr_thread_locals].size = size;
	thread_locals[nr_thread_locals].move = move;
	thread_locals[nr_thread_locals].exit = exit;
	thread_locals[nr_thread_locals].initial = initial;
	thread_locals[nr_thread_locals].offset = thread_locals_size;
	nr_thread_locals++;
	thread_locals_size += (size + SLOT_ALIGN - 1) & ~(SLOT_ALIGN - 1);
}

static void thread_locals_init(unsigned char *slots)
{
	for (unsigned int i = 0; i < nr_thread_locals; i++)
		memcpy(slots + thread_locals[i].offset, thread_locals[i].initial,
		       thread_locals[i].size);
}

/* Thread-local i copied from one place to another (by its move, if any). */
static void thread_local_copy(unsigned int i, void *to, void *from)
{
	if (thread_locals[i].move)
		thread_locals[i].move(to, from, thread_locals[i].size);
	else
		memcpy(to, from, thread_locals[i].size);
}

static void thread_locals_save(unsigned char *slots)
{
	for (unsigned int i = 0; i < nr_thread_locals; i++)
		thread_local_copy(i, slots + thread_locals[i].offset, thread_local_at[i]);
}

static void thread_locals_load(unsigned char *slots)
{
	for (unsigned int i = 0; i < nr_thread_locals; i++)
		thread_local_copy(i, thread_local_at[i], slots + thread_locals[i].offset);
}

/* The CPU's fn returned: what a thread's exit would do to its thread-locals. */
static void thread_locals_exit(void)
{
	for (unsigned int i = 0; i < nr_thread_locals; i++)
		if (thread_locals[i].exit)
			thread_locals[i].exit(thread_local_at[i]);
}

/* ---- switching stacks ---- */

#ifdef CPU_SWITCH_X86_64
/*
 * dmasim_cpu_switch(&from->sp, to->sp): push what the ABI says a callee
 * keeps (rbp, rbx, r12-r15, MXCSR's and the x87 control word), save the
 * stack pointer, take the other's, pop the same from it and return where
 * it called dmasim_cpu_switch (the first time: to cpu_main, cpu_setup).
 */
void dmasim_cpu_switch(void **save_sp, void *next_sp);
__asm__(".text\n"
	".globl dmasim_cpu_switch\n"
	".hidden dmasim_cpu_switch\n"
	".type dmasim_cpu_switch, @function\n"
	".p2align 4\n"
	"dmasim_cpu_switch:\n"
#ifdef __CET__
	"	endbr64\n"
#endif
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	subq $8, %rsp\n"
	"	stmxcsr (%rsp)\n"
	"	fnstcw 4(%rsp)\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	ldmxcsr (%rsp)\n"
	"	fldcw 4(%rsp)\n"
	"	addq $8, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size dmasim_cpu_switch, .-dmasim_cpu_switch\n");
#endif

/*
 * Leave from for to (from is done for good when it will never be resumed);
 * returns when from is switched to again.
 */
static void context_switch(struct context *from, struct context *to, int done)
{
#ifdef CPUS_ASAN
	__sanitizer_start_switch_fiber(done ? NULL : &from->asan_fake_stack,
				       to->stack_bottom, to->stack_size);
#endif
#ifdef CPUS_TSAN
	__tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
	(void)done;
	run.switched_from = from;
#ifdef CPU_SWITCH_X86_64
	dmasim_cpu_switch(&from->sp, to->sp);
#else
	swapcontext(&from->uc, &to->uc);
#endif
#ifdef CPUS_ASAN
	__sanitizer_finish_switch_fiber(from->asan_fake_stack,
					&run.switched_from->stack_bottom,
					&run.switched_from->stack_size);
#endif
}

/* The first thing on a CPU's own stack: what context_switch() does on return. */
static void context_entered(void)
{
#ifdef CPUS_ASAN
	__sanitizer_finish_switch_fiber(NULL, &run.switched_from->stack_bottom,
					&run.switched_from->stack_size);
#endif
}

static struct context *context_of(int cpu)
{
	return cpu < 0 ? &run.caller : &run.cpus[cpu].ctx;
}

/*
 * Run CPU next (-1: the caller of sim_cpus_run) from here, with its
 * thread-locals; this CPU (or the caller) resumes here when it gets the
 * baton back.  A CPU that is done leaves its thread-locals as a thread
 * that exits would.
 */
static void switch_to(int next)
{
	struct context *from = context_of(this_cpu), *to = context_of(next);
	int done = this_cpu >= 0 && run.cpus[this_cpu].state == CPU_DONE;

	if (done)
		thread_locals_exit();
	else
		thread_locals_save(from->locals);
	thread_locals_load(to->locals);
	this_cpu = next;
	context_switch(from, to, done);
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
	int next;

	if (!me)
		return;
	if (!sim_mutexes_held()) {
		/* the baton to the next CPU, back when this one is next */
		me->state = CPU_WAITING;
		next = next_cpu();
		if (next != this_cpu)
			switch_to(next);
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

/*
 * A CPU's coroutine: it starts when it first gets the baton, and never
 * returns; when it is done the baton goes to the next CPU, after the last
 * one back to the caller of sim_cpus_run.
 */
static __attribute__((noreturn)) void cpu_main(void)
{
	unsigned int cpu;
	struct cpu *me;
	struct sim_counters delta;

	context_entered();
	cpu = (unsigned int)this_cpu;
	me = &run.cpus[cpu];
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
#ifdef CPUS_TSAN
		if (c->ctx.tsan_fiber)
			__tsan_destroy_fiber(c->ctx.tsan_fiber);
#endif
#ifdef CPUS_ASAN
		/* its frames' red zones, left poisoned where it stopped */
		__asan_unpoison_memory_region(c->stack, CPU_STACK_SIZE);
#endif
#ifdef VALGRIND_STACK_DEREGISTER
		VALGRIND_STACK_DEREGISTER(c->stack_id);
#endif
		munmap((char *)c->stack - GUARD_SIZE, CPU_STACK_SIZE + GUARD_SIZE);
	}
	free(run.cpus);
	run.cpus = NULL;
	run.n = 0;
}

/* A CPU's stack (a guard page below it), ready to start cpu_main. */
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
	c->ctx.stack_bottom = c->stack;
	c->ctx.stack_size = CPU_STACK_SIZE;
#ifdef CPUS_TSAN
	c->ctx.tsan_fiber = __tsan_create_fiber(0);
#endif
#ifdef CPU_SWITCH_X86_64
	{
		/*
		 * What dmasim_cpu_switch pops: the control words, six registers
		 * (zero: rbp 0 ends a backtrace), then cpu_main as the return
		 * address, above it a null one for cpu_main's own frame, so
		 * that cpu_main starts with the stack aligned as after a call.
		 */
		uintptr_t *sp = (uintptr_t *)(((uintptr_t)c->stack + CPU_STACK_SIZE) & ~(uintptr_t)15);
		unsigned int mxcsr;
		unsigned short fpcw;

		*--sp = 0;
		*--sp = (uintptr_t)cpu_main;
		for (int i = 0; i < 6; i++)
			*--sp = 0;
		__asm__ __volatile__("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fpcw));
		*--sp = (uintptr_t)mxcsr | (uintptr_t)fpcw << 32;
		c->ctx.sp = sp;
	}
#else
	if (getcontext(&c->ctx.uc))
		return -errno;
	c->ctx.uc.uc_stack.ss_sp = c->stack;
	c->ctx.uc.uc_stack.ss_size = CPU_STACK_SIZE;
	c->ctx.uc.uc_link = NULL;
	makecontext(&c->ctx.uc, cpu_main, 0);
#endif
	c->state = CPU_WAITING;
	return 0;
}

int sim_cpus_run(unsigned int n, void (*fn)(unsigned int cpu, void *arg), void *arg,
		 unsigned long long exclude, struct sim_cpu_stats *stats)
{
	const struct sim_config *cfg = sim_machine_config();
	size_t each = thread_locals_size ? thread_locals_size : 1;
	unsigned char *locals;
	unsigned int i;
	int ret = 0;

	if (!n || !cfg || n > (cfg->nr_cpus ? cfg->nr_cpus : 1) || run.cpus)
		return -EINVAL;
	run.cpus = calloc(n, sizeof(*run.cpus));
	/* the caller's, then each CPU's: as a new thread's */
	locals = malloc((n + 1) * each);
	if (!run.cpus || !locals) {
		free(run.cpus);
		run.cpus = NULL;
		free(locals);
		return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++) {
		run.cpus[i].ctx.locals = locals + (i + 1) * each;
		thread_locals_init(run.cpus[i].ctx.locals);
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
	memset(&run.caller, 0, sizeof(run.caller));
	run.caller.locals = locals;
#ifdef CPUS_TSAN
	run.caller.tsan_fiber = __tsan_get_current_fiber();
#endif
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
