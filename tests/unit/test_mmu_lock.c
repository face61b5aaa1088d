// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmu_lock (core/rwlock.h) prefers writers, as the kernel's qrwlock does:
 * once a writer waits, a new reader queues behind it instead of joining
 * the readers that hold the lock.  Without that, vCPU faults that keep
 * retrying under the read lock would starve an MMU-notifier invalidation
 * or a zap that needs the write lock.  The VM's lock is checked as
 * nxsim__kvm_mmu_init_vm() leaves it, so a second, plain initialisation
 * would fail this test.  The lock's slots: their count, a writer holding
 * every one, and two threads reading through different ones.
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "mmu_unit.h"

/* Spins a thread may make before the test calls the writer lost. */
#define WAIT_SPINS 1000000UL

static void *writer(void *arg)
{
	struct nxsim__rwlock *l = arg;

	nxsim__write_lock(l);
	nxsim__rw_unlock(l);
	return NULL;
}

static void test_reader_queues_behind_waiting_writer(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__rwlock *l = &unit_mmu(&e)->mmu_lock;
	/* the slot this thread reads through */
	pthread_rwlock_t *lock = &nxsim__rwlock_reader_slot(l)->lock;
	unsigned long spins = 0;
	pthread_t t;
	int rc;

	(void)state;
	/* A second reader joins while no writer waits. */
	nxsim__read_lock(l);
	assert_int_equal(pthread_rwlock_tryrdlock(lock), 0);
	pthread_rwlock_unlock(lock);

	assert_int_equal(pthread_create(&t, NULL, writer, l), 0);
	/*
	 * The writer blocks behind our read hold; from the moment it waits,
	 * a reader is refused.  With reader preference the loop would only
	 * end at WAIT_SPINS.
	 */
	while ((rc = pthread_rwlock_tryrdlock(lock)) == 0) {
		pthread_rwlock_unlock(lock);
		assert_true(++spins < WAIT_SPINS);
		sched_yield();
	}
	assert_int_equal(rc, EBUSY);
	nxsim__rw_unlock(l);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* The writer is gone: readers join again. */
	assert_int_equal(pthread_rwlock_tryrdlock(lock), 0);
	pthread_rwlock_unlock(lock);
	nx_env_destroy(&e);
}

/*
 * The slot count: a power of two, at most the online CPUs and the cap,
 * where TDP faults read (6.6); one where faults write (5.10).
 */
static void test_slots(void **state)
{
	struct nx_env old = nx_env("5.10", 0);
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__rwlock *l = &unit_mmu(&e)->mmu_lock;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int want = cpus >= 8 ? 8 : cpus >= 4 ? 4 : cpus >= 2 ? 2 : 1;

	(void)state;
	assert_int_equal(l->mask + 1, want);
	assert_int_equal(unit_mmu(&old)->mmu_lock.mask, 0);
	nx_env_destroy(&old);
	/* A writer holds every slot, and says so until it lets go. */
	nxsim__write_lock(l);
	assert_true(l->write_held);
	for (unsigned int i = 0; i <= l->mask; i++)
		assert_int_equal(pthread_rwlock_tryrdlock(&l->slot[i].lock),
				 EBUSY);
	nxsim__rw_unlock(l);
	assert_false(l->write_held);
	for (unsigned int i = 0; i <= l->mask; i++) {
		assert_int_equal(pthread_rwlock_trywrlock(&l->slot[i].lock), 0);
		pthread_rwlock_unlock(&l->slot[i].lock);
	}
	nx_env_destroy(&e);
}

struct reader {
	struct nxsim__rwlock *l;
	pthread_barrier_t *both;
	pthread_rwlock_t *slot;
};

/* Hold the read lock while the other reader holds it too. */
static void *reader(void *arg)
{
	struct reader *r = arg;

	nxsim__read_lock(r->l);
	r->slot = &nxsim__rwlock_reader_slot(r->l)->lock;
	pthread_barrier_wait(r->both);
	pthread_barrier_wait(r->both);
	nxsim__rw_unlock(r->l);
	return NULL;
}

/*
 * Two threads that start reading one after the other hold the lock at
 * once, each through a slot of its own when there are two or more.
 */
static void test_readers_apart(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__rwlock *l = &unit_mmu(&e)->mmu_lock;
	pthread_barrier_t both;
	struct reader r[2];
	pthread_t t[2];

	(void)state;
	pthread_barrier_init(&both, NULL, 3);
	for (int i = 0; i < 2; i++) {
		r[i] = (struct reader){ l, &both, NULL };
		assert_int_equal(pthread_create(&t[i], NULL, reader, &r[i]), 0);
	}
	pthread_barrier_wait(&both);
	/* both hold it now; a writer could not */
	assert_false(l->write_held);
	if (l->mask)
		assert_ptr_not_equal(r[0].slot, r[1].slot);
	pthread_barrier_wait(&both);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&both);
	nx_env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_queues_behind_waiting_writer),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_readers_apart),
	};

	return cmocka_run_group_tests_name("mmu_lock", tests, NULL, NULL);
}
