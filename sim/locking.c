// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real locks behind the shim's struct mutex, so threaded scenarios run
 * under ThreadSanitizer and helgrind with true semantics.  The storage
 * lives inside the kernel struct as zeroed words: glibc's static
 * initialiser is all-zero, which sim_locking_selfcheck (run at machine
 * init) verifies.  rw_semaphore and spinlock_t are atomics in their
 * headers; they wait through sim_cpu_relax_yield().
 *
 * Below them, the lock checker (<dmasim/sim.h> lists its reports): a
 * per-thread stack of held locks and a global graph of lock-class order
 * edges ("A was held when B was taken").  The common paths are inline in
 * <dmasim/sim.h>: an acquire already checked on the same held stack (a
 * memo of its depth names both) costs three compares, a release of the
 * lock on top a compare; the rest comes here, which checks everything and
 * remembers an acquire that passed.  Forgetting the order empties the
 * memos of every thread that has any (a list of them: a thread joins it
 * with its first memo and leaves it as it exits), so the inline path
 * asks no generation number.  An edge not yet known is one hash
 * probe; the graph is searched for a cycle only when a new edge appears,
 * which happens a few dozen times per process.
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dmasim/sim.h>

_Static_assert(sizeof(pthread_mutex_t) <= SIM_MUTEX_WORDS * sizeof(unsigned long),
	       "struct mutex storage too small");

static _Thread_local int mutexes_held;
SIM_THREAD_LOCAL_PER_CPU(mutexes_held)

void sim_mutex_lock(unsigned long *raw)
{
	pthread_mutex_lock((pthread_mutex_t *)raw);
	mutexes_held++;
}

int sim_mutex_trylock(unsigned long *raw)
{
	int taken = pthread_mutex_trylock((pthread_mutex_t *)raw) == 0;

	mutexes_held += taken;
	return taken;
}

void sim_mutex_unlock(unsigned long *raw)
{
	mutexes_held--;
	pthread_mutex_unlock((pthread_mutex_t *)raw);
}

int sim_mutexes_held(void)
{
	return mutexes_held;
}

void sim_cpu_relax_yield(unsigned int *spins)
{
	if (++*spins < 64)
		__asm__ __volatile__("" ::: "memory");
	else
		sched_yield();
}

_Thread_local unsigned long sim_thread_self_id;
SIM_THREAD_LOCAL_PER_CPU(sim_thread_self_id)

/* The thread's first sim_thread_id(): the next number. */
unsigned long sim_thread_id_assign(void)
{
	static unsigned long next_id;

	sim_thread_self_id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	return sim_thread_self_id;
}

/* Called once at machine init: the zero-storage assumption must hold. */
int sim_locking_selfcheck(void);
int sim_locking_selfcheck(void)
{
	static const pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static const unsigned char zero[sizeof(pthread_mutex_t)];

	return memcmp(&m, zero, sizeof(m)) ? -1 : 0;
}

/* ---- the lock checker ---- */

/*
 * The thread's stack of held locks (held[1..nr_held]), its acquire memos
 * and its RCU read depth (struct sim_lockdep_thread, <dmasim/sim.h>: the
 * inline fast paths there use them too).
 */
_Thread_local struct sim_lockdep_thread sim_lockdep_self;
/* Every thread's stack until its first lock operation (see sim.h). */
static const struct sim_lockdep_thread empty_stack;
_Thread_local struct sim_held_lock *sim_lockdep_top =
	(struct sim_held_lock *)&empty_stack.held[0];
SIM_THREAD_LOCAL_PER_CPU(sim_lockdep_top)
static const struct sim_held_lock *const empty_top = &empty_stack.held[0];
#define held		(sim_lockdep_self.held)

/* The depth of the stack (the thread's own from now on). */
static unsigned int held_depth(void)
{
	if (sim_lockdep_top == empty_top)
		sim_lockdep_top = &held[0];
	return (unsigned int)(sim_lockdep_top - held);
}
#define nr_held		held_depth()
#define rcu_read_depth	(sim_lockdep_self.rcu_read_depth)
static unsigned long long lockdep_reports[SIM_LOCKDEP_NR_REPORTS];
/* Acquires no memo settled (sim_lockdep_full_checks()). */
static unsigned long long full_checks;

/* An order edge: class a was held when class b was taken. */
struct order_edge {
	uintptr_t a, b;		/* b is written last: 0 while being filled */
	const char *a_name, *b_name;
};

#define ORDER_SLOTS	8192	/* a power of two; a run uses a few dozen */
static struct order_edge order[ORDER_SLOTS];
static unsigned int nr_order;
/* Guards the edges' writers and the list of threads with memos. */
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
/* The threads that have memos (sim_lockdep_forget_order() empties them). */
static struct sim_lockdep_thread *memo_threads;
static pthread_key_t memo_thread_key;
/* Whether this thread is on the list (its own: next and pprev are not). */
static _Thread_local int memo_listed;
SIM_THREAD_LOCAL_PER_CPU(memo_listed)
static pthread_once_t memo_thread_key_once = PTHREAD_ONCE_INIT;

static const char *const report_title[SIM_LOCKDEP_NR_REPORTS] = {
	[SIM_LOCKDEP_BAD_UNLOCK] = "bad unlock balance",
	[SIM_LOCKDEP_RECURSION] = "possible recursive locking",
	[SIM_LOCKDEP_ORDER] = "possible circular locking dependency",
	[SIM_LOCKDEP_NOT_HELD] = "lock held assertion failed",
	[SIM_LOCKDEP_HELD_AT_RETURN] = "lock held when returning to user space",
};

static void lockdep_report(enum sim_lockdep_report kind, const char *file,
			   int line, const char *fmt, ...)
{
	char detail[256], msg[384];
	va_list args;

	__atomic_add_fetch(&lockdep_reports[kind], 1, __ATOMIC_RELAXED);
	va_start(args, fmt);
	vsnprintf(detail, sizeof(detail), fmt, args);
	va_end(args);
	snprintf(msg, sizeof(msg), "lockdep: %s: %s", report_title[kind],
		 detail);
	sim_kernel_warn(file, line, msg);
}

static unsigned int order_hash(uintptr_t a, uintptr_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b * 0xc2b2ae3d27d4eb4full);

	return (h >> 32) & (ORDER_SLOTS - 1);
}

/* Whether the edge a -> b is known (lock-free: slots are filled once). */
static int order_known(uintptr_t a, uintptr_t b)
{
	unsigned int i = order_hash(a, b);

	for (;; i = (i + 1) & (ORDER_SLOTS - 1)) {
		uintptr_t sb = __atomic_load_n(&order[i].b, __ATOMIC_ACQUIRE);

		if (!sb)
			return 0;
		if (sb == b && order[i].a == a)
			return 1;
	}
}

/*
 * Whether class to is reachable from class from (order_lock held).  Never
 * inlined: its 64 KiB queue would become part of the frame of every
 * sim_lock_acquire_slow(), and ASan poisons (and unpoisons) a frame's red
 * zones on each call, 8 KiB of shadow memset twice for every acquire the
 * memo does not settle (2-3% of a fuzz_type1 run), though the queue is
 * only needed when a new order edge is learnt.
 */
static __attribute__((noinline)) int order_reaches(uintptr_t from, uintptr_t to)
{
	uintptr_t queue[ORDER_SLOTS];
	unsigned int head = 0, tail = 0, i, j;

	queue[tail++] = from;
	while (head < tail) {
		uintptr_t x = queue[head++];

		if (x == to)
			return 1;
		for (i = 0; i < ORDER_SLOTS; i++) {
			uintptr_t b = order[i].b;

			if (!b || order[i].a != x)
				continue;
			for (j = 0; j < tail && queue[j] != b; j++)
				;
			if (j == tail && tail < ORDER_SLOTS)
				queue[tail++] = b;
		}
	}
	return 0;
}

struct known_inversion {
	const char *bug, *a, *b;
};

static struct known_inversion known_inversions[8];
static unsigned int nr_known_inversions;
static unsigned long long known_inversions_seen;

void sim_lockdep_expect_inversion(const char *bug, const char *a,
				  const char *b)
{
	if (nr_known_inversions < 8)
		known_inversions[nr_known_inversions++] =
			(struct known_inversion){ bug, a, b };
}

unsigned long long sim_lockdep_known_inversions(void)
{
	return __atomic_load_n(&known_inversions_seen, __ATOMIC_RELAXED);
}

/* An inversion between a and b the tree is known to have: noted, not reported. */
static int inversion_known(const char *a, const char *b)
{
	unsigned int i;

	for (i = 0; i < nr_known_inversions; i++) {
		if ((strcmp(a, known_inversions[i].a) ||
		     strcmp(b, known_inversions[i].b)) &&
		    (strcmp(a, known_inversions[i].b) ||
		     strcmp(b, known_inversions[i].a)))
			continue;
		__atomic_add_fetch(&known_inversions_seen, 1, __ATOMIC_RELAXED);
		return 1;
	}
	return 0;
}

/*
 * Adds a -> b, unless b already leads to a: then that is reported.
 * Returns whether the edge is known now (not when the table is full).
 */
static int order_add(const struct sim_held_lock *a, uintptr_t b,
		     const char *b_name, const char *file, int line)
{
	unsigned int i;
	int known = 1;

	pthread_mutex_lock(&order_lock);
	if (order_known(a->class, b))
		goto out;
	/* Reported once: the edge is then learnt like any other. */
	if (order_reaches(b, a->class) && !inversion_known(a->name, b_name))
		lockdep_report(SIM_LOCKDEP_ORDER, file, line,
			       "taking %s while holding %s; %s was taken before (directly or through other locks) while %s was held",
			       b_name, a->name, a->name, b_name);
	if (nr_order >= ORDER_SLOTS / 2) {
		known = 0;	/* full: stop learning rather than slow down */
		goto out;
	}
	for (i = order_hash(a->class, b); order[i].b;
	     i = (i + 1) & (ORDER_SLOTS - 1))
		;
	order[i].a = a->class;
	order[i].a_name = a->name;
	order[i].b_name = b_name;
	__atomic_store_n(&order[i].b, b, __ATOMIC_RELEASE);
	nr_order++;
out:
	pthread_mutex_unlock(&order_lock);
	return known;
}

static void held_set_depth(unsigned int n)
{
	sim_lockdep_top = &held[n];
}

static struct sim_held_lock *held_find(const void *lock)
{
	unsigned int i;

	for (i = nr_held; i; i--)
		if (held[i].lock == lock)
			return &held[i];
	return NULL;
}

static int held_read(const struct sim_held_lock *h)
{
	return h->ctx & 1;
}

int sim_lock_held_below(const void *lock, int how)
{
	const struct sim_held_lock *h = held_find(lock);

	return h && (how < 0 || held_read(h) == (how == SIM_LOCK_READ));
}

/* A state number never given before for a lock held so (see <dmasim/sim.h>). */
static unsigned long ctx_fresh(int read)
{
	return ++sim_lockdep_self.last_ctx << 1 | (read != 0);
}

/* The memo's lock and flags word (sim.h: a lock is 4-byte aligned). */
static unsigned long memo_lock_flags(const void *lock, int flags)
{
	return (unsigned long)lock | (unsigned int)flags;
}

static unsigned long memo_get_lock_flags(const struct sim_lock_memo *m)
{
	return __atomic_load_n(&m->lock_flags, __ATOMIC_RELAXED);
}

/* memo[w][depth] matches an acquire on the stack held[depth] names. */
static int memo_matches(const struct sim_lock_memo *m, const void *lock,
			unsigned long class, int flags, unsigned int depth)
{
	return memo_get_lock_flags(m) == memo_lock_flags(lock, flags) &&
	       m->parent == held[depth].ctx && m->class == class;
}

/*
 * Field by field: sim_lockdep_forget_order() may clear lock_flags from
 * another thread meanwhile (then the copy may stay valid, as a memo made
 * just after the forgetting would be).
 */
static void memo_copy(struct sim_lock_memo *to, const struct sim_lock_memo *from)
{
	to->parent = from->parent;
	to->class = from->class;
	to->ctx = from->ctx;
	__atomic_store_n(&to->lock_flags, memo_get_lock_flags(from),
			 __ATOMIC_RELAXED);
}

/* A thread (or simulated CPU) that is done leaves the list, if on it. */
static void memo_thread_exit(void *arg)
{
	struct sim_lockdep_thread *t = arg;

	pthread_mutex_lock(&order_lock);
	if (t->pprev) {
		*t->pprev = t->next;
		if (t->next)
			t->next->pprev = t->pprev;
		t->pprev = NULL;
	}
	pthread_mutex_unlock(&order_lock);
	memo_listed = 0;
}

/*
 * sim/cpus.c moves a simulated CPU's stack of locks and memos in and out
 * of the thread's at each handover: on the list, it stays on it at its new
 * address, so sim_lockdep_forget_order() reaches every CPU's memos.
 */
static void memo_thread_move(void *to, void *from, unsigned long size)
{
	struct sim_lockdep_thread *t = to;

	pthread_mutex_lock(&order_lock);
	memcpy(to, from, size);
	if (t->pprev) {
		*t->pprev = t;
		if (t->next)
			t->next->pprev = &t->next;
	}
	pthread_mutex_unlock(&order_lock);
}
SIM_THREAD_LOCAL_PER_CPU_HOOKS(sim_lockdep_self, memo_thread_move,
			       memo_thread_exit)

static void memo_thread_key_create(void)
{
	if (pthread_key_create(&memo_thread_key, memo_thread_exit))
		sim_kernel_bug(__FILE__, __LINE__,
			       "lockdep: no thread key for the memo list");
}

/* The thread's first memo: it joins the list, and leaves it as it exits. */
static void memo_thread_join(struct sim_lockdep_thread *t)
{
	pthread_once(&memo_thread_key_once, memo_thread_key_create);
	pthread_mutex_lock(&order_lock);
	t->next = memo_threads;
	if (t->next)
		t->next->pprev = &t->next;
	t->pprev = &memo_threads;
	memo_threads = t;
	pthread_mutex_unlock(&order_lock);
	pthread_setspecific(memo_thread_key, t);
	memo_listed = 1;
}

/*
 * The acquire that made h passed every check: the next one like it on the
 * same stack can skip them (the memo it displaces moves to way 1).  A lock
 * not 4-byte aligned is not remembered (its flags would not fit).
 */
static void memo_remember(const struct sim_held_lock *h, int flags)
{
	unsigned int depth = (unsigned int)(h - held) - 1, w;
	struct sim_lockdep_thread *t = &sim_lockdep_self;
	struct sim_lock_memo *m = &t->memo[0][depth];

	if ((unsigned long)h->lock & 3)
		return;
	if (!memo_listed)
		memo_thread_join(t);
	for (w = SIM_LOCKDEP_MEMO_WAYS - 1; w; w--)
		memo_copy(&t->memo[w][depth], &t->memo[w - 1][depth]);
	m->parent = h[-1].ctx;
	m->class = h->class;
	m->ctx = h->ctx;
	__atomic_store_n(&m->lock_flags, memo_lock_flags(h->lock, flags),
			 __ATOMIC_RELAXED);
}

/*
 * Everything the inline sim_lock_acquire() does not settle: first the
 * depth's other memos (one that matches becomes way 0), then every check:
 * reports, edges to look up or learn, a full stack.  An acquire with
 * nothing to report and every edge known is remembered.
 */
int sim_lock_acquire_slow(const void *lock, const void *key,
			  unsigned int subclass, int flags, const char *name,
			  const char *file, int line)
{
	struct sim_lockdep_thread *t = &sim_lockdep_self;
	uintptr_t class = key ? (uintptr_t)key + subclass : 0;
	int read = flags & SIM_LOCK_READ;
	struct sim_held_lock *h;
	int clean = 1;
	unsigned int i, w;

	for (w = 1; w < SIM_LOCKDEP_MEMO_WAYS; w++) {
		struct sim_lock_memo hit;

		if (!memo_matches(&t->memo[w][nr_held], lock, class, flags,
				  nr_held))
			continue;
		memo_copy(&hit, &t->memo[w][nr_held]);
		for (; w; w--)
			memo_copy(&t->memo[w][nr_held],
				  &t->memo[w - 1][nr_held]);
		memo_copy(&t->memo[0][nr_held], &hit);
		held_set_depth(nr_held + 1);
		held[nr_held] = (struct sim_held_lock){
			.lock = lock, .class = class, .name = name,
			.ctx = hit.ctx,
		};
		return 0;
	}
	__atomic_add_fetch(&full_checks, 1, __ATOMIC_RELAXED);
	h = held_find(lock);
	if (h) {
		lockdep_report(SIM_LOCKDEP_RECURSION, file, line,
			       "%s taken again by the thread that holds it",
			       name);
		/* Two readers of one rwsem do not block each other here. */
		if (!(read && held_read(h)))
			return -1;
		clean = 0;
	}
	for (i = 1; i <= nr_held && class; i++) {
		if (held[i].class == class) {
			clean = 0;
			if (!h)
				lockdep_report(SIM_LOCKDEP_RECURSION, file, line,
					       "%s taken while holding %s, of the same class",
					       name, held[i].name);
		} else if (held[i].class && !(flags & SIM_LOCK_TRY) &&
			   !order_known(held[i].class, class) &&
			   !order_add(&held[i], class, name, file, line)) {
			clean = 0;
		}
	}
	if (nr_held == SIM_LOCKDEP_DEPTH) {
		sim_kernel_warn(file, line, "lockdep: too many locks held");
		return 0;
	}
	held_set_depth(nr_held + 1);
	h = &held[nr_held];
	*h = (struct sim_held_lock){
		.lock = lock, .class = class, .name = name,
		.ctx = ctx_fresh(read),
	};
	if (clean)
		memo_remember(h, flags);
	return 0;
}

/*
 * h leaves the stack: the locks above it move down, and as the stack
 * below them changed, each gets a fresh state number.
 */
static void held_remove(struct sim_held_lock *h)
{
	memmove(h, h + 1, (size_t)(&held[nr_held] - h) * sizeof(*h));
	held_set_depth(nr_held - 1);
	for (; h <= &held[nr_held]; h++)
		h->ctx = ctx_fresh(held_read(h));
}

void sim_lock_acquire_failed(const void *lock)
{
	struct sim_held_lock *h = held_find(lock);

	if (h)
		held_remove(h);
}

/* A release the inline sim_lock_release() did not settle: not on top. */
int sim_lock_release_slow(const void *lock, const char *name,
			  const char *file, int line)
{
	struct sim_held_lock *h = held_find(lock);

	if (!h) {
		lockdep_report(SIM_LOCKDEP_BAD_UNLOCK, file, line,
			       "%s released by a thread that does not hold it",
			       name);
		return -1;
	}
	held_remove(h);
	return 0;
}

/* The stack from h up is another one now: fresh state numbers. */
void sim_lock_downgrade(const void *lock)
{
	struct sim_held_lock *h = held_find(lock);

	if (!h)
		return;
	h->ctx |= 1;
	for (; h <= &held[nr_held]; h++)
		h->ctx = ctx_fresh(held_read(h));
}

void sim_lockdep_assert_failed(const char *what, const char *file, int line)
{
	lockdep_report(SIM_LOCKDEP_NOT_HELD, file, line, "%s", what);
}

unsigned int sim_locks_held(void)
{
	return nr_held;
}

void sim_locks_user_return(const char *door)
{
	unsigned int i;

	for (i = 1; i <= nr_held; i++)
		lockdep_report(SIM_LOCKDEP_HELD_AT_RETURN, door, 0,
			       "%s still held", held[i].name);
	if (rcu_read_depth) {
		lockdep_report(SIM_LOCKDEP_HELD_AT_RETURN, door, 0,
			       "rcu_read_lock still held (%u deep)",
			       rcu_read_depth);
		rcu_read_depth = 0;
	}
}

void sim_rcu_read_unlock_unbalanced(const char *file, int line)
{
	lockdep_report(SIM_LOCKDEP_BAD_UNLOCK, file, line,
		       "rcu_read_unlock without rcu_read_lock");
}

unsigned long long sim_lockdep_reports(enum sim_lockdep_report kind)
{
	return __atomic_load_n(&lockdep_reports[kind], __ATOMIC_RELAXED);
}

unsigned long long sim_lockdep_full_checks(void)
{
	return __atomic_load_n(&full_checks, __ATOMIC_RELAXED);
}

unsigned long long sim_lockdep_reports_total(void)
{
	unsigned long long n = 0;
	int k;

	for (k = 0; k < SIM_LOCKDEP_NR_REPORTS; k++)
		n += sim_lockdep_reports(k);
	return n;
}

/* The edges are forgotten, and with them every thread's memos. */
void sim_lockdep_forget_order(void)
{
	struct sim_lockdep_thread *t;
	unsigned int w, d;

	pthread_mutex_lock(&order_lock);
	memset(order, 0, sizeof(order));
	nr_order = 0;
	for (t = memo_threads; t; t = t->next)
		for (w = 0; w < SIM_LOCKDEP_MEMO_WAYS; w++)
			for (d = 0; d < SIM_LOCKDEP_DEPTH; d++)
				__atomic_store_n(&t->memo[w][d].lock_flags, 0,
						 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&order_lock);
}
