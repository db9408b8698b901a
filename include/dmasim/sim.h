/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dmasim: the simulated machine, plain-C interface.
 *
 * This header (and every header under include/dmasim/) is included both by
 * plain C (sim/, tests/, fuzz/, the CLI; libc available) and by kernel
 * translation units (kernel_shim/, core/; -nostdinc, kernel headers).  So it
 * includes nothing, uses only the C language's own types (no bool, no
 * stdint, no size_t), and defines no name a kernel header also defines.
 *
 * The machine is one global instance, as the kernel's state is global:
 * sim_machine_init() builds it, sim_machine_destroy() tears it down, and a
 * test builds a fresh one per scenario.
 */
#ifndef DMASIM_SIM_H
#define DMASIM_SIM_H

#ifndef DMASIM_PAGE_SHIFT
#define DMASIM_PAGE_SHIFT 12
#endif
#define SIM_PAGE_SHIFT	DMASIM_PAGE_SHIFT
#define SIM_PAGE_SIZE	(1UL << SIM_PAGE_SHIFT)

typedef unsigned long long sim_phys_t;

#if defined(__GNUC__)
#define sim_likely(x)	__builtin_expect(!!(x), 1)
#define sim_unlikely(x)	__builtin_expect(!!(x), 0)
/* Hot-path helpers the compiler must not outline (it did, per call site). */
#define sim_always_inline	inline __attribute__((__always_inline__))
#else
#define sim_likely(x)	(x)
#define sim_unlikely(x)	(x)
#define sim_always_inline	inline
#endif

/* ------------------------------------------------------------------------
 * Counters and the cost model (sim/counters.c, include/dmasim/counters.def)
 */
enum sim_counter {
#define SIM_COUNTER(id, name, cost_ns, what) SIM_CNT_##id,
#include <dmasim/counters.def>
#undef SIM_COUNTER
	SIM_NR_COUNTERS
};

struct sim_counters {
	unsigned long long c[SIM_NR_COUNTERS];
};

/* The live counters.  Plain (non-atomic) on purpose: they sit on hot paths. */
extern struct sim_counters sim_counters;

/*
 * One add to memory per count on x86-64.  In C, gcc keeps a counter's value
 * in a register across a page walk and still stores it after every count,
 * as any page-table read might alias it (-fno-strict-aliasing): two
 * instructions a count (and a saved register) where the add is one.  The
 * asm reads and writes the counter ("+m"), so its value is exact at every
 * point, as before; it is not atomic, as before (tools/tsan.supp).
 */
static inline void sim_count(enum sim_counter id, unsigned long long n)
{
#if defined(__x86_64__)
	__asm__("addq %1, %0" : "+m"(sim_counters.c[id]) : "er"(n) : "cc");
#else
	sim_counters.c[id] += n;
#endif
}

const char *sim_counter_name(enum sim_counter id);
const char *sim_counter_what(enum sim_counter id);
double sim_counter_cost_ns(enum sim_counter id);
void sim_counters_reset(void);
/* Copy the live counters into *snap. */
void sim_counters_snapshot(struct sim_counters *snap);
/* after - before, counter by counter, into *delta. */
void sim_counters_delta(const struct sim_counters *before,
			const struct sim_counters *after,
			struct sim_counters *delta);
/* Modelled time, in nanoseconds, of the operations counted in *delta. */
double sim_cost_ns(const struct sim_counters *delta);

/* ------------------------------------------------------------------------
 * What is armed that takes the shims off their common path: fault points,
 * choice points, the mm shim's test hooks.  One byte per kind in one word,
 * so that a fast path that any of them would change asks them all with one
 * load and one test (sim_armed.any); each kind is still set and read by
 * its own name.  Only the code named at each byte writes it.  The yield
 * meter's byte follows, outside any (a meter changes no fast path): with
 * the choice points' it makes resched, which cond_resched() asks with one
 * load and one test.
 */
union sim_armed {
	struct {
		unsigned char faults;	/* sim_faults_armed (sim/fault.c) */
		unsigned char gup_hook;	/* a GUP hook's mode (kernel_shim/gup.c) */
		unsigned char pt_race;	/* sim_pt_lock_race_hook set (sim/mm.c) */
		unsigned char choices;	/* sim_choices_armed (sim/choice.c) */
		unsigned char yield;	/* sim_yield_metering (sim/yield.c) */
	} by;
	unsigned int any;		/* faults .. choices */
	struct {
		unsigned char any[3];
		unsigned short resched;	/* choices and yield */
	} __attribute__((__packed__)) at;
};
extern union sim_armed sim_armed;
_Static_assert(__builtin_offsetof(union sim_armed, at.resched) ==
	       __builtin_offsetof(union sim_armed, by.choices) &&
	       __builtin_offsetof(union sim_armed, by.yield) ==
	       __builtin_offsetof(union sim_armed, by.choices) + 1 &&
	       __builtin_offsetof(union sim_armed, by.choices) <
	       sizeof(unsigned int),
	       "sim_armed.at.resched: the choices' byte, then the yield's");

/* ------------------------------------------------------------------------
 * The reschedule oracle (sim/yield.c): how much work kernel code does
 * between two yields.  Kernel code reports each reschedule point
 * (cond_resched(), kind SIM_YIELD_RESCHED) and each fatal-signal check
 * (fatal_signal_pending(), SIM_YIELD_SIGNAL) with the name of the function
 * that made it (the shims pass __func__).  While the meter runs, each
 * report closes a stretch: the counters' growth since the previous report
 * of that kind is that stretch's work, and each site keeps, counter by
 * counter, the largest stretch it closed.  A test closes the last stretch
 * of a system call with sim_yield_close("<label>") (the return to user
 * space: work after the last yield, e.g. a loop with none).  Off, which is
 * the default, a report costs one test.  One thread at a time.
 */
enum sim_yield_kind {
	SIM_YIELD_RESCHED,	/* cond_resched() */
	SIM_YIELD_SIGNAL,	/* fatal_signal_pending() */
	SIM_NR_YIELD_KINDS
};

/* Start (or restart) the meter: every site forgotten, every kind open now. */
void sim_yield_meter_start(void);
void sim_yield_meter_stop(void);
void sim_yield_slow(enum sim_yield_kind kind, const char *site);
#define sim_yield_metering	(sim_armed.by.yield)

static inline void sim_yield(enum sim_yield_kind kind, const char *site)
{
	if (sim_unlikely(sim_yield_metering))
		sim_yield_slow(kind, site);
}

/* Close the current stretch of every kind at label (a return to user). */
void sim_yield_close(const char *label);
/*
 * Test-only knob: reports of kind from site stop closing stretches, as if
 * the kernel lacked that yield (so a bound's test can show it would fail).
 * NULL forgets every ignored site.
 */
void sim_yield_ignore(enum sim_yield_kind kind, const char *site);
/* The largest growth of counter in a stretch site closed (0: none seen). */
unsigned long long sim_yield_max(enum sim_yield_kind kind, const char *site,
				 enum sim_counter counter);
/* The largest growth of counter in any stretch of kind, and its site. */
unsigned long long sim_yield_max_any(enum sim_yield_kind kind,
				     enum sim_counter counter,
				     const char **site);
/* Stretches site closed. */
unsigned long long sim_yield_count(enum sim_yield_kind kind, const char *site);
/* The sites of kind seen so far: site i, or NULL past the last. */
const char *sim_yield_site(enum sim_yield_kind kind, unsigned int i);


/* ------------------------------------------------------------------------
 * Fault points (sim/fault.c, include/dmasim/faults.def)
 *
 * Every fallible shim call asks sim_should_fail() with its point first.  The
 * call is counted per point (so a sweep knows how many calls could fail), and
 * only when faults are armed is libfiu asked (fiu_fail(name)); an unarmed run
 * costs one increment and one test.
 */
enum sim_fault_point {
#define SIM_FAULT(id, name, what) SIM_FP_##id,
#include <dmasim/faults.def>
#undef SIM_FAULT
	SIM_NR_FAULT_POINTS
};

#define sim_faults_armed	(sim_armed.by.faults)
extern unsigned long long sim_fault_calls[SIM_NR_FAULT_POINTS];

int sim_fault_check(enum sim_fault_point fp);

/* The count an unarmed sim_should_fail() makes, and all it does. */
static inline void sim_fault_count(enum sim_fault_point fp)
{
	sim_fault_calls[fp]++;
}

static inline int sim_should_fail(enum sim_fault_point fp)
{
	sim_fault_count(fp);
	if (sim_unlikely(sim_faults_armed))
		return sim_fault_check(fp);
	return 0;
}

const char *sim_fault_name(enum sim_fault_point fp);
const char *sim_fault_what(enum sim_fault_point fp);
/* -1 if no point has that name. */
int sim_fault_lookup(const char *name);
/* Arm or disarm the libfiu check (fiu_init() is done on first arming). */
void sim_faults_arm(int armed);
void sim_fault_calls_reset(void);

/*
 * Fail-nth mode, for sweeps (tests/sweep.h): from sim_fault_nth_start() on,
 * every sim_should_fail() call at any point is numbered 1, 2, ... and call
 * number nth fails (persist: nth and every later call); nth 0 counts only.
 * Calls the mode lets through still ask libfiu.  Arms the sim while on;
 * sim_fault_nth_stop() restores the armed state and returns the number of
 * calls seen.  One thread at a time.
 */
void sim_fault_nth_start(unsigned long long nth, int persist);
unsigned long long sim_fault_nth_stop(void);
/* Calls numbered and failures injected since sim_fault_nth_start(). */
unsigned long long sim_fault_nth_calls(void);
unsigned long long sim_fault_nth_injected(void);
/* The point of the first failure injected (-1: none yet). */
int sim_fault_nth_first_point(void);
/* Failures fail-nth mode injected per point, since the process started. */
extern unsigned long long sim_fault_injected[SIM_NR_FAULT_POINTS];

/* ------------------------------------------------------------------------
 * Choice points (sim/choice.c, include/dmasim/choices.def)
 *
 * A shim call whose kernel contract allows more than one outcome asks
 * sim_choose(point, nalt) which to take: 0, the common path, or one of the
 * alternatives 1..nalt-1 (nalt at most the point's count in choices.def; a
 * call site may offer fewer where the contract allows fewer here).  While
 * nothing is armed this is one predictable branch and returns 0.  Armed
 * modes: choose-nth (every hit at any point numbered 1, 2, ...; hit nth
 * takes alternative alt), fuzz (a callback picks), and forced alternatives
 * per point (unit tests).  One thread at a time, like fail-nth.
 */
enum sim_choice_point {
#define SIM_CHOICE(id, name, nalt, what) SIM_CH_##id,
#include <dmasim/choices.def>
#undef SIM_CHOICE
	SIM_NR_CHOICE_POINTS
};

#define sim_choices_armed	(sim_armed.by.choices)

unsigned int sim_choose_armed(enum sim_choice_point cp, unsigned int nalt);

static inline unsigned int sim_choose(enum sim_choice_point cp,
				      unsigned int nalt)
{
	if (sim_likely(!sim_choices_armed))
		return 0;
	return sim_choose_armed(cp, nalt);
}

const char *sim_choice_name(enum sim_choice_point cp);
const char *sim_choice_what(enum sim_choice_point cp);
/* The point's alternatives in choices.def, the default included. */
unsigned int sim_choice_nalt(enum sim_choice_point cp);
/* -1 if no point has that name. */
int sim_choice_lookup(const char *name);

/*
 * Choose-nth mode: from sim_choice_nth_start() on, every hit is numbered
 * and hit nth takes alternative alt (if the call offers it; nth 0 takes
 * none).  Each hit's point and offered alternatives are logged, so a sweep
 * can take every alternative of every hit of a clean run.
 * sim_choice_nth_stop() returns the hits seen.
 */
struct sim_choice_hit {
	unsigned short point;		/* enum sim_choice_point */
	unsigned short nalt;		/* alternatives the call offered */
};
void sim_choice_nth_start(unsigned long long nth, unsigned int alt);
unsigned long long sim_choice_nth_stop(void);
/* The hits logged since the last start (valid until the next start). */
const struct sim_choice_hit *sim_choice_nth_log(unsigned long long *nr);
/* Alternatives taken since the last start, and the point of the first. */
unsigned long long sim_choice_nth_taken(void);
int sim_choice_nth_first_point(void);

/*
 * Fuzz mode: every hit asks pick(ctx, point, nalt); its answer modulo nalt
 * is taken.  NULL pick ends the mode.
 */
typedef unsigned int (*sim_choice_pick_fn)(void *ctx,
					   enum sim_choice_point cp,
					   unsigned int nalt);
void sim_choice_fuzz(sim_choice_pick_fn pick, void *ctx);

/*
 * Forced: every hit of cp takes alternative alt (capped to what the call
 * offers) until forced back to 0.  A unit test's way to take one point's
 * alternative.  Other modes win over it.
 */
void sim_choice_force(enum sim_choice_point cp, unsigned int alt);

/* No point has more alternatives than this (the default included). */
#define SIM_CHOICE_MAX_ALT	8
/*
 * Since the process started: hits per point while armed, alternatives taken
 * per point, and how often each alternative was taken.
 */
extern unsigned long long sim_choice_hits[SIM_NR_CHOICE_POINTS];
extern unsigned long long sim_choice_taken[SIM_NR_CHOICE_POINTS];
extern unsigned long long sim_choice_taken_alt[SIM_NR_CHOICE_POINTS][SIM_CHOICE_MAX_ALT];

/* ------------------------------------------------------------------------
 * Kernel heap objects (sim/slab.c): the backing of kmalloc/vmalloc, with an
 * outstanding-object count so every scenario can prove it freed everything.
 */
void *sim_kmalloc(unsigned long size, int zero);
void *sim_krealloc(void *p, unsigned long size);
void sim_kfree(const void *p);
unsigned long long sim_kmalloc_outstanding(void);
/*
 * Bytes of red zone behind every kmalloc'd object (sim/slab.c): a write
 * into it is reported as a WARN when the object is freed, and counted.
 */
#define SIM_SLAB_REDZONE 64
unsigned long long sim_slab_redzone_hits(void);
/*
 * In ASan builds, freed objects stay poisoned in a quarantine before they
 * are used again (sim/slab.c): by default 256 MiB of them, as ASan's own.
 * A fuzzing harness calls this as each input begins: from then on the
 * quarantine keeps everything the current input frees (a use after free
 * within an input is always caught) and at least `floor` bytes of what
 * the inputs before it freed.  No-op without ASan.
 */
void sim_slab_quarantine_input(unsigned long floor);

/* ------------------------------------------------------------------------
 * Kernel log (sim/klog.c): printk, WARN and BUG land here.  Messages are
 * counted per level and the last one kept, so a test can assert that a
 * path warned; they are echoed to stderr only when DMASIM_KLOG is set in the
 * environment (or sim_klog_echo is nonzero).
 */
enum {
	SIM_KLOG_EMERG, SIM_KLOG_ALERT, SIM_KLOG_CRIT, SIM_KLOG_ERR,
	SIM_KLOG_WARNING, SIM_KLOG_NOTICE, SIM_KLOG_INFO, SIM_KLOG_DEBUG,
	SIM_KLOG_NR_LEVELS
};

extern int sim_klog_echo;
void sim_klog(int level, const char *msg);
unsigned long long sim_klog_count(int level);
const char *sim_klog_last(void);
/* WARN()/WARN_ON() that fired, and where the last one was. */
unsigned long long sim_kernel_warnings(void);
void sim_kernel_warn(const char *file, int line, const char *what);
/* BUG()/BUG_ON(): logs and aborts. */
void sim_kernel_bug(const char *file, int line, const char *what)
	__attribute__((__noreturn__));
void sim_klog_reset(void);
/*
 * The kernel command line's module parameters: DMASIM_PARAMS from the
 * environment ("module.name=value" settings separated by blanks, e.g.
 * "vfio_iommu_type1.unmap_stride=1"), or "" when unset.  kapi_boot()
 * applies them before the initcalls, as the kernel does its command line,
 * so a whole test suite can run with a parameter set.
 */
const char *sim_boot_params(void);

/* ------------------------------------------------------------------------
 * Locks (sim/locking.c).  struct mutex is a real pthread mutex in
 * caller-provided storage that is valid when zeroed, so DEFINE_MUTEX() and
 * kzalloc'd structs need no init call; rw_semaphore and spinlock_t are
 * atomics in their own headers and wait with sim_cpu_relax_yield().
 */
#define SIM_MUTEX_WORDS		5	/* >= sizeof(pthread_mutex_t) / 8 */
void sim_mutex_lock(unsigned long *raw);
int sim_mutex_trylock(unsigned long *raw);	/* 1 if taken */
void sim_mutex_unlock(unsigned long *raw);
/* One wait step of a lock that is held: spin a while, then yield the CPU. */
void sim_cpu_relax_yield(unsigned int *spins);
/*
 * A small number naming the calling thread (1, 2, ...), for lock owners:
 * read from a thread-local once the thread has one (inline, no call).
 */
extern _Thread_local unsigned long sim_thread_self_id;
unsigned long sim_thread_id_assign(void);

static inline unsigned long sim_thread_id(void)
{
	unsigned long id = sim_thread_self_id;

	return sim_likely(id) ? id : sim_thread_id_assign();
}
/* Mutexes the calling thread holds now (sim/cpus.c yields only at none). */
int sim_mutexes_held(void);

/* ------------------------------------------------------------------------
 * The machine's clock (sim/clock.c), in jiffies, SIM_HZ a second (the
 * shim's <linux/jiffies.h> HZ): the kernel's jiffies reads it.  It
 * starts, at each sim_machine_init(), where the kernel's starts
 * (INITIAL_JIFFIES: five minutes before the 32-bit count wraps) and
 * stands still until a host thread (a test) advances it, so a timeout of
 * ten seconds passes in no host time, and never when nothing advances
 * the clock.
 */
#define SIM_HZ			250
#define SIM_INITIAL_JIFFIES	((unsigned long)(unsigned int)(-300 * SIM_HZ))
extern unsigned long sim_clock_now;

static inline unsigned long sim_clock_jiffies(void)
{
	return __atomic_load_n(&sim_clock_now, __ATOMIC_ACQUIRE);
}

/*
 * The clock moves ticks jiffies ahead, and this returns once every task waiting
 * on it (sim_wait_for_word()) has seen the new time: one whose deadline
 * it reached has timed out; any other is still waiting.
 */
void sim_clock_advance(unsigned long ticks);
/*
 * Waits on the clock (sim_wait_for_word() calls) begun since the machine
 * booted, and those that timed out: a waiter counts its wait before it
 * looks at the clock, and its timeout before sim_clock_advance() returns.
 */
unsigned long sim_clock_waits(void);
unsigned long sim_clock_timeouts(void);
/*
 * Wait until *word (written by another thread with an atomic store) is
 * not 0 or the clock reaches deadline (jiffies, compared as the kernel's
 * time_after_eq(): wrap-safe up to LONG_MAX ahead): the jiffies left
 * (at least 1) if it was seen, 0 on timeout.  The host-side wait polls
 * (spins a little, then sleeps a millisecond at a time).
 */
unsigned long sim_wait_for_word(const unsigned int *word,
				unsigned long deadline);

/* ------------------------------------------------------------------------
 * Simulated CPUs running concurrently (sim/cpus.c).
 *
 * sim_cpus_run() runs fn(cpu, arg) for cpu 0..n-1, each as a coroutine
 * on the calling thread bound to that simulated CPU (sim_set_cpu: its
 * per-cpu lists) with a stack and thread-locals of its own (see below),
 * and interleaves them deterministically in modelled time: every CPU has a
 * clock that advances by the modelled cost (sim_cost_ns) of what it did;
 * only one CPU runs at a time, and at each call into the page
 * allocator the CPU whose clock is lowest goes next (ties: the lower CPU
 * number).  So allocator calls happen in the order of their modelled start
 * times, the same order on every run, and the zone lock can be modelled
 * as a contended resource: a call that takes it holds it for the modelled
 * cost of its locked part (everything but zeroing and the per-cpu list
 * operations, which the kernel does outside the zone lock); a call that
 * starts while another CPU holds it waits until it is free.  Waiting is
 * counted (SIM_CNT_ZONE_LOCK_WAIT, in ns) and costed like any count.
 * Work between allocator calls is the CPU's own and is not ordered.
 * A CPU holding a shim mutex is not switched away at an allocator call
 * (another CPU could block on the mutex), so its call runs at once.
 * A CPU is switched away only there: never inside a lock word's
 * read-modify-write or any other code between two allocator calls.
 *
 * exclude: counters (bit SIM_CNT_x) left out of the clocks, e.g.
 * 1ULL << SIM_CNT_PAGE_ZEROED for pages that came zeroed.  The machine
 * needs nr_cpus >= n.  Returns 0, -EINVAL (n is 0 or above the machine's
 * CPUs, or a run is under way), -ENOMEM (no memory for the CPUs' stacks).
 *
 * Thread-locals that code run on a simulated CPU keeps (the held locks,
 * the current task, ...) are each CPU's own: each is registered once, by
 * SIM_THREAD_LOCAL_PER_CPU(var) beside its definition, and sim_cpus_run
 * swaps them at every handover.  Each CPU starts with the value the
 * variable had when it was registered (its initializer: registration runs
 * first as the program loads), as a new thread would; the caller finds its
 * own again afterwards.  SIM_THREAD_LOCAL_PER_CPU_HOOKS(var, move, exit)
 * is for a thread-local that others know the address of: move(to, from,
 * size) copies it in or out of its slot instead of memcpy (and tells
 * whoever points at it), exit(at) runs on a CPU's copy when its fn has
 * returned, as a pthread key's destructor would at thread exit.  A
 * thread-local left unregistered is shared by the CPUs of a run.
 */
struct sim_cpu_stats {
	double clock_ns;		/* modelled time when fn returned */
	double wait_ns;			/* of it, spent waiting for the zone lock */
	unsigned long long lock_sections;	/* allocator calls that took the zone lock */
};
int sim_cpus_run(unsigned int n, void (*fn)(unsigned int cpu, void *arg), void *arg,
		 unsigned long long exclude, struct sim_cpu_stats *stats);
void sim_thread_local_register(void *(*addr)(void), unsigned long size,
			       void (*move)(void *to, void *from, unsigned long size),
			       void (*exit)(void *at));
#define SIM_THREAD_LOCAL_PER_CPU_HOOKS(var, move, exit)			\
	static void *var##_per_cpu_addr(void)				\
	{								\
		return (void *)&(var);					\
	}								\
	__attribute__((constructor(101))) static void var##_per_cpu(void) \
	{								\
		sim_thread_local_register(var##_per_cpu_addr, sizeof(var), \
					  move, exit);			\
	}
#define SIM_THREAD_LOCAL_PER_CPU(var)					\
	SIM_THREAD_LOCAL_PER_CPU_HOOKS(var, 0, 0)

/*
 * Lock checking (sim/locking.c): lockdep's checks, for the shim's mutex,
 * rw_semaphore and spinlock.  Each thread keeps the stack of locks it holds
 * (up to SIM_LOCKDEP_DEPTH); a lock's class is the key its init site gives
 * it (mutex_init(), init_rwsem(): one static key per call site, as the
 * kernel's), plus the subclass of a *_nested() call.  Reports are kernel
 * warnings (sim_kernel_warnings(), in the kernel log: DMASIM_KLOG=1 echoes
 * them), counted by kind:
 *  - an unlock by a thread that does not hold the lock (the lock is left
 *    as it was);
 *  - a lock taken again by the thread that holds it (reported, and not
 *    taken, so the run goes on instead of deadlocking), or a second lock
 *    of a class the thread holds, without a *_nested() subclass;
 *  - lock order: B taken while A is held, when A was earlier taken, directly
 *    or through other classes, while B was held (a possible deadlock);
 *  - lockdep_assert_held*() of a lock the thread does not hold (as asked);
 *  - a lock still held when a kapi door returns to its plain-C caller
 *    (sim_locks_user_return(), the kernel's return to user space).
 * Locks without a class (zeroed and never initialised, such as the page
 * table locks) are checked for everything but order.
 */
#define SIM_LOCKDEP_DEPTH	48
enum sim_lockdep_report {
	SIM_LOCKDEP_BAD_UNLOCK,
	SIM_LOCKDEP_RECURSION,
	SIM_LOCKDEP_ORDER,
	SIM_LOCKDEP_NOT_HELD,
	SIM_LOCKDEP_HELD_AT_RETURN,
	SIM_LOCKDEP_NR_REPORTS
};
enum {
	SIM_LOCK_WRITE	= 0,	/* exclusive: a mutex, a spinlock, a writer */
	SIM_LOCK_READ	= 1,	/* shared: an rwsem reader */
	SIM_LOCK_TRY	= 2,	/* a trylock that succeeded: no order edge */
};
/*
 * The checker's state of one thread, in this header so that its common
 * cases run inline, with no call: a lock taken exactly as it was taken
 * before, on top of exactly the same held locks (a memo hit, below), the
 * lock on top of the stack released, an assertion about the lock on top
 * that holds.  Anything else (a report to make, an order edge to look up
 * or learn, a release out of order) goes to sim/locking.c, which does
 * every check.
 *
 * Held stack states are named: each held lock carries ctx, a number that
 * stands for the whole stack from the bottom up to it (its lock, class
 * and read flag and everything below; held[0], always zero, is the empty
 * stack).  A state gets a fresh number the first time the slow path
 * pushes it, and a held lock whose stack below changes (a lock under it
 * released out of order, or downgraded) gets a fresh one too, so equal
 * numbers mean equal stacks.  When the slow path finds nothing to report
 * and every order edge known, it remembers that acquire for its depth
 * (struct sim_lock_memo: the state below, the lock and its flags in one
 * word, its class, the state it made).  The same acquire on the same
 * state again passes the same checks (the lock is not held, no lock of
 * its class is, every edge is still known: sim_lockdep_forget_order()
 * empties every thread's memos), so it is three compares and a push:
 * type1's mmap lock and page-table lock, taken once per 4 KiB page before
 * Linux 6.15, never take the checks again.  Each depth keeps two memos,
 * the last one hit inline and the one before in the slow path (which
 * swaps them on a hit there).
 */
struct sim_held_lock {
	const void *lock;
	unsigned long class;	/* 0: no class, no order checks */
	const char *name;
	unsigned long ctx;	/* state number << 1 | 1 if read-held */
};

/*
 * A lock is at least 4-byte aligned (every lock type holds a long or an
 * int), so its address and its SIM_LOCK_* flags share one word, which
 * sim_lockdep_forget_order() clears from another thread (a relaxed atomic:
 * a plain load or store on the inline path).
 */
struct sim_lock_memo {
	unsigned long lock_flags;	/* lock | flags; 0: empty */
	unsigned long parent;	/* ctx of the stack it was taken on */
	unsigned long class;
	unsigned long ctx;	/* the stack it made */
};

#define SIM_LOCKDEP_MEMO_WAYS	2

struct sim_lockdep_thread {
	unsigned int rcu_read_depth;
	unsigned long last_ctx;	/* the last stack-state number given */
	/* held[1..nr_held], bottom first; held[0] is the empty stack. */
	struct sim_held_lock held[SIM_LOCKDEP_DEPTH + 1];
	/*
	 * memo[w][d]: acquires at depth d, way 0 the one tried inline;
	 * memo[w][SIM_LOCKDEP_DEPTH], never filled, ends each way.
	 */
	struct sim_lock_memo memo[SIM_LOCKDEP_MEMO_WAYS][SIM_LOCKDEP_DEPTH + 1];
	/* The threads with memos, for sim_lockdep_forget_order() (locking.c). */
	struct sim_lockdep_thread *next, **pprev;
};

extern _Thread_local struct sim_lockdep_thread sim_lockdep_self;
/*
 * The top of the thread's stack, &held[nr_held]: the inline paths reach
 * it, its memos and the slot above it from this one pointer (one load
 * from the thread's block, no address arithmetic on the block itself).
 * A thread starts with it on a shared empty stack that is never written
 * (its memos empty, its held[0] no lock), so the first lock operation of
 * a thread goes to sim/locking.c, which moves it onto the thread's own.
 */
extern _Thread_local struct sim_held_lock *sim_lockdep_top;

#define SIM_LOCKDEP_MEMO_FROM_HELD					\
	(__builtin_offsetof(struct sim_lockdep_thread, memo) -			\
	 __builtin_offsetof(struct sim_lockdep_thread, held))
_Static_assert(sizeof(struct sim_held_lock) == sizeof(struct sim_lock_memo),
	       "held[n] and memo[0][n] are one stride apart");

int sim_lock_acquire_slow(const void *lock, const void *key,
			  unsigned int subclass, int flags, const char *name,
			  const char *file, int line);
int sim_lock_release_slow(const void *lock, const char *name,
			  const char *file, int line);
void sim_lockdep_assert_failed(const char *what, const char *file, int line);
void sim_rcu_read_unlock_unbalanced(const char *file, int line);

/*
 * Before taking lock (or after a trylock took it): the checks, then the
 * lock goes on the thread's stack.  Returns 0, or -1 when the thread
 * already holds this very lock (reported: the caller must not block).
 */
static sim_always_inline int
sim_lock_acquire(const void *lock, const void *key, unsigned int subclass,
		 int flags, const char *name, const char *file, int line)
{
	unsigned long class = key ? (unsigned long)key + subclass : 0;
	struct sim_held_lock *h = sim_lockdep_top;
	/* &memo[0][depth], from h: the two arrays have one stride. */
	struct sim_lock_memo *m = (struct sim_lock_memo *)
		((char *)h + SIM_LOCKDEP_MEMO_FROM_HELD);

	if (sim_likely(__atomic_load_n(&m->lock_flags, __ATOMIC_RELAXED) ==
		       ((unsigned long)lock | (unsigned int)flags) &&
		       m->parent == h->ctx && m->class == class)) {
		h[1].lock = lock;
		h[1].class = class;
		h[1].name = name;
		h[1].ctx = m->ctx;
		sim_lockdep_top = h + 1;
		return 0;
	}
	return sim_lock_acquire_slow(lock, key, subclass, flags, name, file,
				     line);
}

/* After a trylock that failed, undo sim_lock_acquire(). */
void sim_lock_acquire_failed(const void *lock);

/*
 * The release's common case: lock is on top of the stack and comes off it
 * (1); 0 leaves the rest to sim_lock_release_slow().
 */
static sim_always_inline int sim_lock_release_top(const void *lock)
{
	struct sim_held_lock *h = sim_lockdep_top;

	/* held[0], the empty stack, holds no lock. */
	if (sim_likely(h->lock == lock)) {
		sim_lockdep_top = h - 1;
		return 1;
	}
	return 0;
}

/*
 * Before releasing: 0, or -1 when the thread does not hold it (reported).
 * A caller whose name costs work to find can call sim_lock_release_top()
 * and find it only for sim_lock_release_slow().
 */
static sim_always_inline int
sim_lock_release(const void *lock, const char *name, const char *file, int line)
{
	if (sim_lock_release_top(lock))
		return 0;
	return sim_lock_release_slow(lock, name, file, line);
}

/* A write-held lock becomes read-held (downgrade_write()). */
void sim_lock_downgrade(const void *lock);

/* sim_lock_held() of a lock that is not on top of the stack. */
int sim_lock_held_below(const void *lock, int how);

/*
 * Whether the calling thread holds lock: how is SIM_LOCK_READ, _WRITE or
 * -1 (either).  The lock on top is asked inline (the lock an assertion is
 * about is most often the last one taken), the others by a call.
 */
static sim_always_inline const struct sim_held_lock *sim_lock_top(void)
{
	return sim_lockdep_top;
}

static sim_always_inline int
sim_lock_held(const void *lock, int how)
{
	const struct sim_held_lock *h = sim_lock_top();

	if (sim_likely(h->lock == lock))
		return how < 0 || (int)(h->ctx & 1) == (how == SIM_LOCK_READ);
	return sim_lock_held_below(lock, how);
}

/*
 * Whether lock is the last one the calling thread took and still holds:
 * then sim_lock_held(lock, -1) is true with no call.
 */
static sim_always_inline int sim_lock_on_top(const void *lock)
{
	return sim_lock_top()->lock == lock;
}

/* lockdep_assert_held*(): reports unless sim_lock_held(lock, how) == want. */
static sim_always_inline void
sim_lockdep_assert(const void *lock, int how, int want, const char *what,
		   const char *file, int line)
{
	if (sim_unlikely(sim_lock_held(lock, how) != want))
		sim_lockdep_assert_failed(what, file, line);
}

/* The number of locks the calling thread holds. */
unsigned int sim_locks_held(void);
/*
 * A door returns to user space: reports every lock the thread still holds,
 * and an RCU read-side section left open (then closes it).
 */
void sim_locks_user_return(const char *door);
/*
 * rcu_read_lock()/rcu_read_unlock() nesting of the calling thread (the
 * shim's pte_offset_map()/pte_unmap() take and drop it, as the kernel's
 * do): an unlock at depth 0 is reported as a bad unlock.
 */
static inline void sim_rcu_read_lock(void)
{
	sim_lockdep_self.rcu_read_depth++;
}

static inline void sim_rcu_read_unlock(const char *file, int line)
{
	struct sim_lockdep_thread *t = &sim_lockdep_self;

	if (sim_unlikely(!t->rcu_read_depth))
		sim_rcu_read_unlock_unbalanced(file, line);
	else
		t->rcu_read_depth--;
}

static inline unsigned int sim_rcu_read_depth(void)
{
	return sim_lockdep_self.rcu_read_depth;
}
/* Reports of one kind, and of all kinds, since the process started. */
unsigned long long sim_lockdep_reports(enum sim_lockdep_report kind);
unsigned long long sim_lockdep_reports_total(void);
/*
 * Acquires checked in full since the process started: those that no memo
 * of their depth settled (either way; a test of the memos' bookkeeping).
 */
unsigned long long sim_lockdep_full_checks(void);
/* Forget the lock order seen so far (for tests that break it on purpose). */
void sim_lockdep_forget_order(void);
/*
 * An order inversion between the classes named a and b (either way round)
 * that the kernel tree under test is known to have (bug, by name): it is
 * counted by sim_lockdep_known_inversions(), not reported.  Up to 8.
 */
void sim_lockdep_expect_inversion(const char *bug, const char *a,
				  const char *b);
unsigned long long sim_lockdep_known_inversions(void);

/* ------------------------------------------------------------------------
 * The machine (sim/machine.c)
 */
/*
 * Placement of RAM in the physical address space: [start, start + size),
 * bytes, page aligned.  A range of size 0 ends the list.
 */
struct sim_phys_range {
	unsigned long long start, size;
};
#define SIM_MAX_RAM_RANGES	8
/* x86-64's (and arm64 LPA's) 52-bit physical addresses. */
#define SIM_PHYS_BITS_MAX	52

/*
 * The machine description.  Either ram_bytes (the x86-like default layout
 * in sim_mem.h) or ram[] (RAM anywhere: ascending, disjoint, inside
 * phys_bits; ram_bytes is then ignored), e.g.
 *
 *   struct sim_config cfg = {
 *           .ram = { { .start = 0, .size = 1ULL << 30 },
 *                    { .start = (1ULL << 52) - (1ULL << 30),
 *                      .size = 1ULL << 30 } },
 *   };
 */
struct sim_config {
	unsigned long long ram_bytes;	/* 0: 16 GiB */
	unsigned int nr_cpus;		/* 0: 1 */
	unsigned long long seed;	/* seeds every random choice of the sim */
	struct sim_phys_range ram[SIM_MAX_RAM_RANGES];	/* placed RAM */
	unsigned int phys_bits;		/* 0: SIM_PHYS_BITS_MAX */
};

int sim_machine_init(const struct sim_config *cfg);
/*
 * The machine torn down.  Its host memory (section table, memmap, page
 * data, page-table chunks) is kept, zeroed, for the next
 * sim_machine_init(), which then boots exactly as on fresh memory
 * without mapping and faulting it again (sim/physmem.c, sim/mm.c);
 * sim_machine_release_host_memory() gives what is kept back to the host
 * (a process done with machines, or a test that wants the next boot on
 * fresh memory).
 */
void sim_machine_destroy(void);
void sim_machine_release_host_memory(void);
const struct sim_config *sim_machine_config(void);

/*
 * 1 if the host process maps every page of [addr, addr + len), else 0:
 * a pointer the simulated kernel may copy with memcpy without crashing
 * (the uaccess shim asks it of user pointers outside the simulated VMAs;
 * a zero len is mapped; a range that wraps or passes 2^47 is not).
 */
int sim_host_mapped(unsigned long addr, unsigned long len);

/* Deterministic PRNG (splitmix64/xorshift) for the sim's own choices. */
unsigned long long sim_rand_next(unsigned long long *state);

/* Parse "16G", "512M", "4096", "64K"; returns 0 and sets *out, or -1. */
int sim_parse_size(const char *s, unsigned long long *out);

#include <dmasim/sim_mem.h>
#include <dmasim/sim_iommu.h>
#include <dmasim/sim_mm.h>

#endif /* DMASIM_SIM_H */
