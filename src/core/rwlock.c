// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader-sharded rwlock of core/rwlock.h: setting up its slots,
 * numbering the threads that read, and the slow paths: a reader that
 * meets a writer, a writer that waits for readers (on the slot's count as
 * a futex word, as the qrwlock's writer spins on its count).  Readers are
 * numbered in the order of their first read_lock(), so two threads that
 * start reading one after the other read through different slots.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rwlock.h"

_Thread_local unsigned int nxsim__rwlock_reader;

static unsigned int readers;

unsigned int nxsim__rwlock_reader_new(void)
{
	unsigned int id;

	/* 0 means "none yet": a thread that wraps the count skips it */
	do
		id = __atomic_add_fetch(&readers, 1, __ATOMIC_RELAXED);
	while (!id);
	nxsim__rwlock_reader = id;
	return id;
}

/*
 * The slot count: a power of two, at most the online CPUs and the cap.
 * Counted once: sysconf() reads sysfs, which at every VM creation cost
 * more than the rest of the creation.  Threads that race to count store
 * the same value.
 */
static unsigned int slots(void)
{
	static unsigned int counted;
	unsigned int n = __atomic_load_n(&counted, __ATOMIC_RELAXED);
	long cpus;

	if (n)
		return n;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	n = 1;
	while (n * 2 <= NXSIM__RWLOCK_MAX_SLOTS && n * 2 <= cpus)
		n *= 2;
	__atomic_store_n(&counted, n, __ATOMIC_RELAXED);
	return n;
}

size_t nxsim__rwlock_slots_size(bool sharded)
{
	return (sharded ? slots() : 1) *
	       sizeof(((struct nxsim__rwlock *)0)->slot[0]);
}

void nxsim__rwlock_init(struct nxsim__rwlock *l, bool sharded)
{
	unsigned int i;

	l->mask = sharded ? slots() - 1 : 0;
	l->counted = sharded;
	l->write_held = false;
	/*
	 * The qrwlock makes new readers wait behind a waiting writer;
	 * glibc's default would let faults retrying under the read lock
	 * starve an MMU-notifier invalidation's write lock.  (The
	 * initializer is pthread_rwlock_init() with that kind, without an
	 * attribute object to make and destroy at each VM.)
	 */
	for (i = 0; i <= l->mask; i++) {
		l->slot[i].count = 0;
		l->slot[i].lock = (pthread_rwlock_t)
			PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	}
}

void nxsim__rwlock_destroy(struct nxsim__rwlock *l)
{
	unsigned int i;

	for (i = 0; i <= l->mask; i++)
		pthread_rwlock_destroy(&l->slot[i].lock);
}

static void futex(unsigned int *word, int op, unsigned int val)
{
	syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

void nxsim__rwlock_read_wake(struct nxsim__rwlock_slot *s)
{
	/* one writer at most waits on a slot: the others queue for @lock */
	futex(&s->count, FUTEX_WAKE_PRIVATE, 1);
}

void nxsim__rwlock_read_wait(struct nxsim__rwlock_slot *s)
{
	/* off again: the writer may be waiting for this reader alone */
	nxsim__rwlock_read_leave(s);
	/*
	 * Behind the writer (and any writer queued after it: the pthread
	 * lock prefers writers).  A writer sets its bit only while it holds
	 * the pthread lock for write, so with it held for read the bit is
	 * clear, and the reader is in once counted.
	 */
	pthread_rwlock_rdlock(&s->lock);
	__atomic_add_fetch(&s->count, 1, __ATOMIC_ACQUIRE);
	pthread_rwlock_unlock(&s->lock);
}

/*
 * queued_write_lock_slowpath(), slot by slot: the pthread lock first
 * (writers queue there, and readers that come now wait there), then the
 * bit, then the readers already in leave.
 */
void nxsim__rwlock_write_acquire(struct nxsim__rwlock *l)
{
	struct nxsim__rwlock_slot *s;
	unsigned int i, v;

	for (i = 0; i <= l->mask; i++) {
		s = &l->slot[i];
		pthread_rwlock_wrlock(&s->lock);
		if (!l->counted)
			continue;
		v = __atomic_add_fetch(&s->count, NXSIM__RWLOCK_WRITER,
				       __ATOMIC_ACQUIRE);
		while (v != NXSIM__RWLOCK_WRITER) {
			futex(&s->count, FUTEX_WAIT_PRIVATE, v);
			v = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
		}
	}
	l->write_held = true;
}

void nxsim__rwlock_write_release(struct nxsim__rwlock *l)
{
	struct nxsim__rwlock_slot *s;
	unsigned int i;

	l->write_held = false;
	for (i = l->mask + 1; i-- > 0;) {
		s = &l->slot[i];
		if (l->counted)
			__atomic_sub_fetch(&s->count, NXSIM__RWLOCK_WRITER,
					   __ATOMIC_RELEASE);
		pthread_rwlock_unlock(&s->lock);
	}
}
