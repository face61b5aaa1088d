/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm->mmu_lock: the kernel's rwlock_t, a queued rwlock on x86
 * (kernel/locking/qrwlock.c), as a reader-sharded lock.  It has up to
 * NXSIM__RWLOCK_MAX_SLOTS slots, each on a cache line of its own.  A reader
 * takes one slot, the same one every time its thread reads; a writer takes
 * every slot, in order.  So readers share the lock, a writer excludes
 * readers and writers, and a new reader waits behind a waiting writer, as
 * with the qrwlock.
 *
 * A slot is a count and a pthread rwlock (writer-preferring), as the
 * qrwlock's fast paths are one atomic on its count: a reader adds one to
 * the count and is in unless a writer's bit is set there, and leaves by
 * taking one off.  A writer takes the slot's pthread lock for write (so
 * writers queue there), sets the bit and sleeps (futex) until the readers
 * already in have left.  A reader that finds the bit takes itself off
 * again and waits on the pthread lock for read, behind the writer, as the
 * qrwlock's queue_read_lock_slowpath() does.  A lock set up unsharded
 * (one mostly taken for write) has no count: its one slot is a plain
 * pthread rwlock, and its writers pay no atomics beside it.
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
 * has none).  A writer pays one pthread lock and two atomics per slot.
 */
#ifndef NXSIM_CORE_RWLOCK_H
#define NXSIM_CORE_RWLOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/compiler.h"
#include "core/lockdep.h"

#define NXSIM__RWLOCK_MAX_SLOTS 8

/* A slot's count: a writer holds the slot, or waits there for readers. */
#define NXSIM__RWLOCK_WRITER (1u << 31)

/**
 * struct nxsim__rwlock_slot - one slot of a reader-sharded rwlock
 * @count: the readers in, plus NXSIM__RWLOCK_WRITER while a writer holds
 *	the slot or waits for those readers (a futex word)
 * @lock: the pthread rwlock, writer-preferring: writers queue on it for
 *	write, readers that found a writer wait on it for read
 */
struct nxsim__rwlock_slot {
	unsigned int count;
	pthread_rwlock_t lock;
} ____cacheline_aligned;

/**
 * struct nxsim__rwlock - a reader-sharded rwlock
 * @mask: slots - 1; the slot count is a power of two, at most the number
 *	of online CPUs and NXSIM__RWLOCK_MAX_SLOTS, or 1
 * @counted: set up sharded: readers go through the slots' counts; else
 *	every lock and unlock is the pthread rwlock's alone
 * @write_held: a writer holds every slot (written only by that writer;
 *	read by the holder at unlock)
 * @slot: as many as there are slots (nxsim__rwlock_slots_size()), so the
 *	lock is the last member of whatever holds it
 */
struct nxsim__rwlock {
	unsigned int mask;
	bool counted;
	bool write_held;
	struct nxsim__rwlock_slot slot[];
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
static inline struct nxsim__rwlock_slot *
nxsim__rwlock_reader_slot(struct nxsim__rwlock *l)
{
	unsigned int id = nxsim__rwlock_reader;

	if (unlikely(!id))
		id = nxsim__rwlock_reader_new();
	return &l->slot[id & l->mask];
}

/*
 * The slow paths (rwlock.c): a reader that found a writer on @s takes
 * itself off and waits for it; a reader that leaves @s last while a
 * writer waits there wakes it; a writer takes or lets go of every slot.
 */
void nxsim__rwlock_read_wait(struct nxsim__rwlock_slot *s);
void nxsim__rwlock_read_wake(struct nxsim__rwlock_slot *s);
void nxsim__rwlock_write_acquire(struct nxsim__rwlock *l);
void nxsim__rwlock_write_release(struct nxsim__rwlock *l);

/*
 * A reader leaves @s: one atomic, and a wake only if it was the last
 * reader a writer waits for there.
 */
static inline void nxsim__rwlock_read_leave(struct nxsim__rwlock_slot *s)
{
	if (unlikely(__atomic_sub_fetch(&s->count, 1, __ATOMIC_RELEASE) ==
		     NXSIM__RWLOCK_WRITER))
		nxsim__rwlock_read_wake(s);
}

/* write_lock() */
static inline void nxsim__write_lock(struct nxsim__rwlock *l)
{
	nxsim__lockdep_acquire(NXSIM__LOCK_MMU);
	nxsim__rwlock_write_acquire(l);
}

/* read_lock(): queued_read_lock(), one atomic unless a writer is there */
static inline void nxsim__read_lock(struct nxsim__rwlock *l)
{
	struct nxsim__rwlock_slot *s;

	nxsim__lockdep_acquire(NXSIM__LOCK_MMU);
	s = nxsim__rwlock_reader_slot(l);
	if (!l->counted)
		pthread_rwlock_rdlock(&s->lock);
	else if (unlikely(__atomic_add_fetch(&s->count, 1, __ATOMIC_ACQUIRE) &
			  NXSIM__RWLOCK_WRITER))
		nxsim__rwlock_read_wait(s);
}

/*
 * read_unlock() or write_unlock(), whichever this thread holds: a reader
 * sees write_held false, as no writer can hold the lock beside it.
 */
static inline void nxsim__rw_unlock(struct nxsim__rwlock *l)
{
	if (l->write_held)
		nxsim__rwlock_write_release(l);
	else if (!l->counted)
		pthread_rwlock_unlock(&nxsim__rwlock_reader_slot(l)->lock);
	else
		nxsim__rwlock_read_leave(nxsim__rwlock_reader_slot(l));
	nxsim__lockdep_release(NXSIM__LOCK_MMU);
}

#endif /* NXSIM_CORE_RWLOCK_H */
