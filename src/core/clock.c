// SPDX-License-Identifier: GPL-2.0-only
/*
 * The clock.  A virtual clock holds a time in ns and timers ordered by
 * (deadline, arming order); nxsim_clock_advance() walks time
 * forward, running each due timer at its own deadline, so runs are
 * deterministic.  Timer callbacks run without the clock lock, in the
 * advancing thread, one at a time; nxsim__timer_del_sync() waits for a
 * running callback like del_timer_sync().  A real clock reads
 * CLOCK_MONOTONIC and has no timers: its users sleep in real threads.
 *
 * The clock keeps the earliest armed deadline beside its timers (updated
 * under its lock whenever they change), so nxsim_clock_next_event()
 * is one atomic load, and an advance takes the clock lock once when it
 * runs at most one timer; both are called once per event by an event
 * loop.
 *
 * Most timers are armed in deadline order: periodic timers of one period
 * (the recovery workers re-arm a period after each pass, VMs are made at
 * one time), so each new deadline is at or after every armed one.  Those
 * go on a queue in O(1), at its tail (or at its head when earlier than
 * every queued one); only a timer that lands between queued deadlines goes
 * on the tree.  Queue and tree are each in (deadline, arming order), and
 * the first timer is the earlier of their heads, so the order in which
 * timers run is the one a single tree gives.
 *
 * Time ends at NXSIM_CLOCK_MAX: an advance past it is refused (-ERANGE)
 * rather than wrapped or cut short, and a deadline past it (NXSIM_NEVER)
 * is never reached.  A timer armed for a time another thread's advance
 * has just passed runs at the next advance, at the clock's time: time
 * never goes back for it.
 *
 * Left out: timer slack and HZ-granular timer wheels; a virtual timer
 * fires exactly at its deadline.
 */
#include <errno.h>
#include <stdatomic.h>

#include <nxsim/clock.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/compiler.h"

RB_HEAD(nxsim__timer_tree, nxsim__timer);
TAILQ_HEAD(nxsim__timer_fifo, nxsim__timer);

struct nxsim_clock {
	enum nxsim_clock_mode mode;	 /* virtual or real */
	pthread_mutex_t lock;		 /* timers, seq, busy, waiters */
	pthread_cond_t idle;		 /* a callback or an advance finished */
	_Atomic uint64_t now;		 /* virtual time, ns */
	struct timespec base;		 /* real: CLOCK_MONOTONIC at creation */
	struct nxsim__timer_tree timers; /* armed timers out of order */
	struct nxsim__timer_fifo fifo;	 /* armed timers in deadline order */
	_Atomic uint64_t next;		 /* earliest deadline, or NXSIM_NEVER */
	uint64_t seq;			 /* arming counter */
	struct nxsim__timer *_Atomic busy; /* running callback, or ADVANCING */
	_Atomic unsigned int waiters;	   /* threads waiting on idle */
	_Atomic unsigned int refs; /* hosts and machines on this clock */
};

/*
 * c->busy while an advance runs and none of its callbacks does; NULL when
 * no advance runs.
 */
static struct nxsim__timer advancing_mark;
#define ADVANCING (&advancing_mark)

static int timer_cmp(const struct nxsim__timer *a, const struct nxsim__timer *b)
{
	if (a->expires != b->expires)
		return a->expires < b->expires ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

RB_PROTOTYPE(nxsim__timer_tree, nxsim__timer, node, timer_cmp);
RB_GENERATE(nxsim__timer_tree, nxsim__timer, node, timer_cmp);

/* The armed timer that runs first, or NULL; c->lock held. */
static struct nxsim__timer *timer_first(struct nxsim_clock *c)
{
	struct nxsim__timer *q = TAILQ_FIRST(&c->fifo);
	struct nxsim__timer *t = RB_MIN(nxsim__timer_tree, &c->timers);

	if (!t || (q && timer_cmp(q, t) < 0))
		return q;
	return t;
}

/* Arm @t, whose expires and seq are set; c->lock held. */
static void timer_link(struct nxsim_clock *c, struct nxsim__timer *t)
{
	struct nxsim__timer *tail = TAILQ_LAST(&c->fifo, nxsim__timer_fifo);
	struct nxsim__timer *head = TAILQ_FIRST(&c->fifo);

	/* @t is the newest: it goes after an equal deadline, before a later */
	t->queued = true;
	if (!tail || t->expires >= tail->expires) {
		TAILQ_INSERT_TAIL(&c->fifo, t, fifo);
	} else if (t->expires < head->expires) {
		TAILQ_INSERT_HEAD(&c->fifo, t, fifo);
	} else {
		t->queued = false;
		RB_INSERT(nxsim__timer_tree, &c->timers, t);
	}
	t->armed = true;
}

/* Take armed @t off the tree or the queue, keeping c->next; c->lock held. */
static void timer_unlink(struct nxsim_clock *c, struct nxsim__timer *t)
{
	bool at_next = t->expires ==
		       atomic_load_explicit(&c->next, memory_order_relaxed);
	struct nxsim__timer *first;

	if (t->queued)
		TAILQ_REMOVE(&c->fifo, t, fifo);
	else
		RB_REMOVE(nxsim__timer_tree, &c->timers, t);
	t->armed = false;
	if (at_next) {
		first = timer_first(c);
		atomic_store_explicit(&c->next,
				      first ? first->expires : NXSIM_NEVER,
				      memory_order_relaxed);
	}
}

int nxsim_clock_create(enum nxsim_clock_mode mode, struct nxsim_clock **clockp)
{
	struct nxsim_clock *c;

	if (!clockp ||
	    (mode != NXSIM_CLOCK_VIRTUAL && mode != NXSIM_CLOCK_REAL))
		return -EINVAL;
	c = nxsim__zalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->mode = mode;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->idle, NULL);
	RB_INIT(&c->timers);
	TAILQ_INIT(&c->fifo);
	atomic_init(&c->next, NXSIM_NEVER);
	clock_gettime(CLOCK_MONOTONIC, &c->base);
	*clockp = c;
	return 0;
}

int nxsim_clock_destroy(struct nxsim_clock *c)
{
	if (!c)
		return -EINVAL;
	if (atomic_load(&c->refs))
		return -EBUSY;
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->idle);
	nxsim__free(c, sizeof(*c));
	return 0;
}

void nxsim__clock_get(struct nxsim_clock *c)
{
	atomic_fetch_add(&c->refs, 1);
}

void nxsim__clock_put(struct nxsim_clock *c)
{
	atomic_fetch_sub(&c->refs, 1);
}

enum nxsim_clock_mode nxsim_clock_mode(const struct nxsim_clock *c)
{
	return c ? c->mode : NXSIM_CLOCK_VIRTUAL;
}

uint64_t nxsim_clock_now(const struct nxsim_clock *c)
{
	struct timespec ts;
	int64_t ns;

	if (!c)
		return 0;
	if (c->mode == NXSIM_CLOCK_VIRTUAL)
		return atomic_load(&c->now);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (int64_t)(ts.tv_sec - c->base.tv_sec) * (int64_t)NSEC_PER_SEC +
	     (ts.tv_nsec - c->base.tv_nsec);
	return ns > 0 ? (uint64_t)ns : 0;
}

struct timespec nxsim__clock_real_deadline(const struct nxsim_clock *c,
					   uint64_t ns)
{
	struct timespec ts = c->base;
	uint64_t nsec = (uint64_t)ts.tv_nsec + ns % NSEC_PER_SEC;

	ts.tv_sec += ns / NSEC_PER_SEC + nsec / NSEC_PER_SEC;
	ts.tv_nsec = nsec % NSEC_PER_SEC;
	return ts;
}

void nxsim__timer_init(struct nxsim__timer *t,
		       void (*fn)(struct nxsim__timer *t))
{
	t->armed = false;
	t->fn = fn;
}

void nxsim__timer_mod(struct nxsim_clock *c, struct nxsim__timer *t,
		      uint64_t expires)
{
	assert(c->mode == NXSIM_CLOCK_VIRTUAL);
	pthread_mutex_lock(&c->lock);
	if (t->armed)
		timer_unlink(c, t);
	t->expires = expires;
	t->seq = c->seq++;
	timer_link(c, t);
	if (expires < atomic_load_explicit(&c->next, memory_order_relaxed))
		atomic_store_explicit(&c->next, expires, memory_order_relaxed);
	pthread_mutex_unlock(&c->lock);
}

/*
 * Wait on c->idle until @busy(c, arg) is false; c->lock held.  The
 * advancing thread ends an advance without the lock, with a sequentially
 * consistent store to c->busy and then a look at c->waiters; this counts
 * itself in c->waiters, sequentially consistent, before its own look at
 * c->busy, so either it sees the store or the advance sees it waiting
 * (and broadcasts under the lock, after the wait began).
 */
static void clock_wait(struct nxsim_clock *c,
		       bool (*busy)(struct nxsim_clock *c, const void *arg),
		       const void *arg)
{
	while (busy(c, arg)) {
		atomic_fetch_add(&c->waiters, 1);
		if (busy(c, arg))
			pthread_cond_wait(&c->idle, &c->lock);
		atomic_fetch_sub(&c->waiters, 1);
	}
}

static bool timer_running(struct nxsim_clock *c, const void *t)
{
	return atomic_load(&c->busy) == t;
}

static bool clock_advancing(struct nxsim_clock *c, const void *unused)
{
	return atomic_load(&c->busy) != NULL;
}

void nxsim__timer_del_sync(struct nxsim_clock *c, struct nxsim__timer *t)
{
	pthread_mutex_lock(&c->lock);
	clock_wait(c, timer_running, t);
	if (t->armed)
		timer_unlink(c, t);
	pthread_mutex_unlock(&c->lock);
}

/*
 * One advance at a time moves the time (c->busy, set under c->lock).  Each
 * due timer is taken off under c->lock and run without it; after the
 * callback the advance looks at the earliest deadline without the lock
 * and ends there when none is due, so a tick that runs one timer takes
 * the lock once.
 */
int64_t nxsim_clock_advance(struct nxsim_clock *c, uint64_t ns)
{
	struct nxsim__timer *t;
	uint64_t target;
	int64_t ran = 0;

	if (!c || c->mode != NXSIM_CLOCK_VIRTUAL)
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	clock_wait(c, clock_advancing, NULL);
	target = atomic_load(&c->now);
	if (ns > NXSIM_CLOCK_MAX - target) {
		pthread_mutex_unlock(&c->lock);
		return -ERANGE;
	}
	target += ns;
	atomic_store_explicit(&c->busy, ADVANCING, memory_order_relaxed);
	/*
	 * A timer armed by another thread for a time this passes, after the
	 * last look at the earliest deadline, runs at the next advance, at
	 * the clock's time.
	 */
	while ((t = timer_first(c)) && t->expires <= target) {
		timer_unlink(c, t);
		if (t->expires > atomic_load(&c->now))
			atomic_store_explicit(&c->now, t->expires,
					      memory_order_release);
		atomic_store_explicit(&c->busy, t, memory_order_relaxed);
		pthread_mutex_unlock(&c->lock);
		t->fn(t);
		ran++;
		if (atomic_load_explicit(&c->next, memory_order_relaxed) >
		    target)
			goto done;
		pthread_mutex_lock(&c->lock);
		atomic_store_explicit(&c->busy, ADVANCING,
				      memory_order_release);
		if (atomic_load_explicit(&c->waiters, memory_order_relaxed))
			pthread_cond_broadcast(&c->idle);
	}
	pthread_mutex_unlock(&c->lock);
done:
	atomic_store_explicit(&c->now, target, memory_order_release);
	/* clock_wait() has the other half of this */
	atomic_store(&c->busy, NULL);
	if (atomic_load(&c->waiters)) {
		pthread_mutex_lock(&c->lock);
		pthread_cond_broadcast(&c->idle);
		pthread_mutex_unlock(&c->lock);
	}
	return ran;
}

uint64_t nxsim_clock_next_event(struct nxsim_clock *c)
{
	if (!c || c->mode != NXSIM_CLOCK_VIRTUAL)
		return NXSIM_NEVER;
	return atomic_load(&c->next);
}
