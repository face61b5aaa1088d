/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RCU for the model (include/linux/rcupdate.h: rcu_read_lock(),
 * rcu_read_unlock(), call_rcu(), rcu_barrier()), on liburcu's bulletproof
 * flavour, which registers a thread on its first read-side section: a
 * library cannot ask its callers to register their threads.
 *
 * ThreadSanitizer does not see the ordering a grace period gives (liburcu
 * 0.13 orders readers and updaters with its own barriers and membarrier),
 * so each read-side section ends, and each call_rcu() starts, with a
 * release on the domain, and each callback starts with an acquire of it:
 * every reader that ended before the callback ran, and the code that
 * queued it, happen before it, which is what the grace period guarantees.
 * Outside TSan builds the calls are liburcu's.  The read side is its
 * inlined one (_LGPL_SOURCE: a load and a store to this thread's reader
 * record, no call and no TLS lookup), as rcu_read_lock() is inline in the
 * kernel, except in sanitized builds (NXSIM_SANITIZED), which call it:
 * liburcu places reader records at less than the alignment their type
 * declares (UBSan stops there), and inlined, the record's accesses are
 * instrumented while liburcu's own are not, so TSan reports a record
 * passing from an exited thread to a new one.
 *
 * Left out: the kernel's flavours (SRCU, tasks RCU), callback batching
 * and its overload handling (the MMU bounds its own backlog).
 */
#ifndef NXSIM_CORE_RCU_H
#define NXSIM_CORE_RCU_H

#ifndef NXSIM_SANITIZED
#define _LGPL_SOURCE
#endif
#include <urcu-bp.h>

#if defined(__SANITIZE_THREAD__)
#define NXSIM__RCU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NXSIM__RCU_TSAN 1
#endif
#endif

#ifdef NXSIM__RCU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
/* The object readers release and callbacks acquire. */
extern char nxsim__rcu_domain;
#endif

static inline void nxsim__rcu_read_lock(void)
{
	rcu_read_lock();
}

static inline void nxsim__rcu_read_unlock(void)
{
#ifdef NXSIM__RCU_TSAN
	__tsan_release(&nxsim__rcu_domain);
#endif
	rcu_read_unlock();
}

/* The first statement of every RCU callback. */
static inline void nxsim__rcu_callback_enter(void)
{
#ifdef NXSIM__RCU_TSAN
	__tsan_acquire(&nxsim__rcu_domain);
#endif
}

/*
 * call_rcu(): @fn(@head) runs after every current reader has finished,
 * and after what the caller did before (a release for TSan too).
 */
static inline void nxsim__call_rcu(struct rcu_head *head,
				   void (*fn)(struct rcu_head *head))
{
#ifdef NXSIM__RCU_TSAN
	__tsan_release(&nxsim__rcu_domain);
#endif
	call_rcu(head, fn);
}

/* rcu_barrier(): every callback queued so far has run. */
static inline void nxsim__rcu_barrier(void)
{
	rcu_barrier();
#ifdef NXSIM__RCU_TSAN
	__tsan_acquire(&nxsim__rcu_domain);
#endif
}

#endif /* NXSIM_CORE_RCU_H */
