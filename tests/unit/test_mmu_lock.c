// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmu_lock prefers writers, as the kernel's qrwlock does: once a writer
 * waits, a new reader queues behind it instead of joining the readers
 * that hold the lock.  Without that, vCPU faults that keep retrying under
 * the read lock would starve an MMU-notifier invalidation or a zap that
 * needs the write lock.  The VM's lock is checked as nxsim__kvm_mmu_init_vm()
 * leaves it, so a second, plain initialisation would fail this test.
 */
#include <pthread.h>
#include <sched.h>

#include "mmu_unit.h"

/* Spins a thread may make before the test calls the writer lost. */
#define WAIT_SPINS 1000000UL

static void *writer(void *arg)
{
	pthread_rwlock_t *lock = arg;

	pthread_rwlock_wrlock(lock);
	pthread_rwlock_unlock(lock);
	return NULL;
}

static void test_reader_queues_behind_waiting_writer(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	pthread_rwlock_t *lock = &unit_mmu(&e)->mmu_lock;
	unsigned long spins = 0;
	pthread_t t;
	int rc;

	(void)state;
	/* A second reader joins while no writer waits. */
	assert_int_equal(pthread_rwlock_rdlock(lock), 0);
	assert_int_equal(pthread_rwlock_tryrdlock(lock), 0);
	pthread_rwlock_unlock(lock);

	assert_int_equal(pthread_create(&t, NULL, writer, lock), 0);
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
	pthread_rwlock_unlock(lock);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* The writer is gone: readers join again. */
	assert_int_equal(pthread_rwlock_tryrdlock(lock), 0);
	pthread_rwlock_unlock(lock);
	nx_env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_queues_behind_waiting_writer),
	};

	return cmocka_run_group_tests_name("mmu_lock", tests, NULL, NULL);
}
