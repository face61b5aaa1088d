// SPDX-License-Identifier: GPL-2.0-only
/*
 * The clock.  A virtual clock holds a time in ns and a tree of timers
 * ordered by (deadline, arming order); nxsim_clock_advance() walks time
 * forward, running each due timer at its own deadline, so runs are
 * deterministic.  Timer callbacks run without the clock lock, in the
 * advancing thread, one at a time; nxsim__timer_del_sync() waits for a
 * running callback like del_timer_sync().  A real clock reads
 * CLOCK_MONOTONIC and has no timers: its users sleep in real threads.
 *
 * The clock keeps the earliest armed deadline beside the tree (updated
 * under its lock whenever the tree changes), so nxsim_clock_next_event()
 * is one atomic load and an advance that reaches no deadline takes only
 * the advance lock; both are called once per event by an event loop.
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

struct nxsim_clock {
	enum nxsim_clock_mode mode;	 /* virtual or real */
	pthread_mutex_t lock;		 /* timers, seq, running */
	pthread_mutex_t advance_lock;	 /* one advance at a time */
	pthread_cond_t idle;		 /* a callback finished */
	_Atomic uint64_t now;		 /* virtual time, ns */
	struct timespec base;		 /* real: CLOCK_MONOTONIC at creation */
	struct nxsim__timer_tree timers; /* armed timers */
	_Atomic uint64_t next;		 /* earliest deadline, or NXSIM_NEVER */
	uint64_t seq;			 /* arming counter */
	struct nxsim__timer *running;	 /* callback in progress */
	_Atomic unsigned int refs;	 /* hosts and machines on this clock */
};

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

/* Take armed @t off the tree, keeping c->next; c->lock held. */
static void timer_unlink(struct nxsim_clock *c, struct nxsim__timer *t)
{
	bool at_next = t->expires ==
		       atomic_load_explicit(&c->next, memory_order_relaxed);
	struct nxsim__timer *first;

	RB_REMOVE(nxsim__timer_tree, &c->timers, t);
	t->armed = false;
	if (at_next) {
		first = RB_MIN(nxsim__timer_tree, &c->timers);
		atomic_store(&c->next, first ? first->expires : NXSIM_NEVER);
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
	pthread_mutex_init(&c->advance_lock, NULL);
	pthread_cond_init(&c->idle, NULL);
	RB_INIT(&c->timers);
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
	pthread_mutex_destroy(&c->advance_lock);
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
	RB_INSERT(nxsim__timer_tree, &c->timers, t);
	t->armed = true;
	if (expires < atomic_load_explicit(&c->next, memory_order_relaxed))
		atomic_store(&c->next, expires);
	pthread_mutex_unlock(&c->lock);
}

void nxsim__timer_del_sync(struct nxsim_clock *c, struct nxsim__timer *t)
{
	pthread_mutex_lock(&c->lock);
	while (c->running == t)
		pthread_cond_wait(&c->idle, &c->lock);
	if (t->armed)
		timer_unlink(c, t);
	pthread_mutex_unlock(&c->lock);
}

int64_t nxsim_clock_advance(struct nxsim_clock *c, uint64_t ns)
{
	struct nxsim__timer *t;
	uint64_t target;
	int64_t ran = 0;

	if (!c || c->mode != NXSIM_CLOCK_VIRTUAL)
		return -EINVAL;
	pthread_mutex_lock(&c->advance_lock);
	/* only advances, one at a time, move the time */
	target = atomic_load(&c->now);
	if (ns > NXSIM_CLOCK_MAX - target) {
		pthread_mutex_unlock(&c->advance_lock);
		return -ERANGE;
	}
	target += ns;
	if (atomic_load(&c->next) > target) {
		/* no deadline reached: a timer armed meanwhile for a time
		 * this passes runs at the next advance, as it would if armed
		 * just after the lock below */
		atomic_store(&c->now, target);
		pthread_mutex_unlock(&c->advance_lock);
		return 0;
	}
	pthread_mutex_lock(&c->lock);
	while ((t = RB_MIN(nxsim__timer_tree, &c->timers)) &&
	       t->expires <= target) {
		timer_unlink(c, t);
		if (t->expires > atomic_load(&c->now))
			atomic_store(&c->now, t->expires);
		c->running = t;
		pthread_mutex_unlock(&c->lock);
		t->fn(t);
		ran++;
		pthread_mutex_lock(&c->lock);
		c->running = NULL;
		pthread_cond_broadcast(&c->idle);
	}
	atomic_store(&c->now, target);
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_unlock(&c->advance_lock);
	return ran;
}

uint64_t nxsim_clock_next_event(struct nxsim_clock *c)
{
	if (!c || c->mode != NXSIM_CLOCK_VIRTUAL)
		return NXSIM_NEVER;
	return atomic_load(&c->next);
}
