/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm->mmu_lock: the kernel's rwlock_t, a queued rwlock on x86
 * (kernel/locking/qrwlock.c), as a reader-sharded lock.  It has up to
 * NXSIM__RWLOCK_MAX_SLOTS slots, each a pthread rwlock on a cache line of
 * its own.  A reader takes one slot, the same one every time its thread
 * reads; a writer takes every slot, in order.  So readers share the lock,
 * a writer excludes readers and writers, and a new reader waits behind a
 * waiting writer (each slot prefers writers), as with the qrwlock.
 *
 * Why slots: one rwlock keeps its reader count on one cache line, which
 * read_lock() and read_unlock() both write.  A TDP fault of the model
 * costs about 100 ns under the read lock, less than two moves of that
 * line between cores, and two vCPU threads faulting on disjoint memory
 * ran slower than one (docs/mmu.md, "Two vCPUs faulting at once").  A
 * kernel fault costs microseconds, and there the qrwlock's line weighs
 * far less.
 *
 * Left out: the qrwlock's FIFO order among waiting writers (pthread
 * picks); its queueing of every new reader behind a waiting writer (here
 * a reader whose slot the writer has not reached yet still gets in, and
 * the writer waits for it there); readers in interrupt context (the model
 * has none).  A writer pays one pthread lock per slot.
 */
#ifndef NXSIM_CORE_RWLOCK_H
#define NXSIM_CORE_RWLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/compiler.h"
#include "core/lockdep.h"

#define NXSIM__RWLOCK_MAX_SLOTS 8

/**
 * struct nxsim__rwlock - a reader-sharded rwlock
 * @mask: slots - 1; the slot count is a power of two, at most the number
 *	of online CPUs and NXSIM__RWLOCK_MAX_SLOTS, or 1
 * @write_held: a writer holds every slot (written only by that writer;
 *	read by the holder at unlock)
 * @slot: the pthread rwlocks, writer-preferring; as many as there are
 *	slots (nxsim__rwlock_slots_size()), so the lock is the last member
 *	of whatever holds it
 */
struct nxsim__rwlock {
	unsigned int mask;
	bool write_held;
	struct {
		pthread_rwlock_t lock;
	} ____cacheline_aligned slot[];
};

/*
 * The bytes of the slots that follow a lock set up with @sharded: with
 * @sharded, as many slots as the CPUs allow (up to the cap), else one (a
 * plain rwlock, for a lock mostly taken for write, where every slot would
 * cost each writer a lock).
 */
size_t nxsim__rwlock_slots_size(bool sharded);

/* The same for @l, once set up. */
static inline size_t nxsim__rwlock_size_of(const struct nxsim__rwlock *l)
{
	return (l->mask + 1) * sizeof(l->slot[0]);
}

/*
 * Set @l up, unlocked, with the slots of nxsim__rwlock_slots_size(@sharded)
 * after it.
 */
void nxsim__rwlock_init(struct nxsim__rwlock *l, bool sharded);
void nxsim__rwlock_destroy(struct nxsim__rwlock *l);

/* This thread's reader number, from 1 (0: none yet). */
extern _Thread_local unsigned int nxsim__rwlock_reader;
unsigned int nxsim__rwlock_reader_new(void);

/* The slot this thread reads through. */
static inline pthread_rwlock_t *
nxsim__rwlock_reader_slot(struct nxsim__rwlock *l)
{
	unsigned int id = nxsim__rwlock_reader;

	if (unlikely(!id))
		id = nxsim__rwlock_reader_new();
	return &l->slot[id & l->mask].lock;
}

/* write_lock() */
static inline void nxsim__write_lock(struct nxsim__rwlock *l)
{
	unsigned int i;

	nxsim__lockdep_acquire(NXSIM__LOCK_MMU);
	for (i = 0; i <= l->mask; i++)
		pthread_rwlock_wrlock(&l->slot[i].lock);
	l->write_held = true;
}

/* read_lock() */
static inline void nxsim__read_lock(struct nxsim__rwlock *l)
{
	nxsim__lockdep_acquire(NXSIM__LOCK_MMU);
	pthread_rwlock_rdlock(nxsim__rwlock_reader_slot(l));
}

/*
 * read_unlock() or write_unlock(), whichever this thread holds: a reader
 * sees write_held false, as no writer can hold the lock beside it.
 */
static inline void nxsim__rw_unlock(struct nxsim__rwlock *l)
{
	unsigned int i;

	if (l->write_held) {
		l->write_held = false;
		for (i = l->mask + 1; i-- > 0;)
			pthread_rwlock_unlock(&l->slot[i].lock);
	} else {
		pthread_rwlock_unlock(nxsim__rwlock_reader_slot(l));
	}
	nxsim__lockdep_release(NXSIM__LOCK_MMU);
}

#endif /* NXSIM_CORE_RWLOCK_H */
