// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader-sharded rwlock of core/rwlock.h: setting up its slots, and
 * numbering the threads that read.  Readers are numbered in the order of
 * their first read_lock(), so two threads that start reading one after
 * the other read through different slots.
 */
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
	l->write_held = false;
	/*
	 * The qrwlock makes new readers wait behind a waiting writer;
	 * glibc's default would let faults retrying under the read lock
	 * starve an MMU-notifier invalidation's write lock.  (The
	 * initializer is pthread_rwlock_init() with that kind, without an
	 * attribute object to make and destroy at each VM.)
	 */
	for (i = 0; i <= l->mask; i++)
		l->slot[i].lock = (pthread_rwlock_t)
			PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
}

void nxsim__rwlock_destroy(struct nxsim__rwlock *l)
{
	unsigned int i;

	for (i = 0; i <= l->mask; i++)
		pthread_rwlock_destroy(&l->slot[i].lock);
}
