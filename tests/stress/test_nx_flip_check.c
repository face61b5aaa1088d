// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checker while nx_huge_pages flips: a vCPU thread maps executable
 * huge pages while the mitigation is off, a thread writes off/force over
 * and over (each write zaps every root before it returns, as
 * set_nx_huge_pages() does), and the main thread runs the checker all the
 * while.  The checker reads the parameter once, under the parameter lock
 * the writes hold, so it never sees the new value beside tables the zap
 * has not reached: zero violations.  Run under TSan in CI.
 */
#include <pthread.h>
#include <stdio.h>

#include "../integration/nx_test.h"

#define FLIPS 20000
#define REGIONS 8

struct shared {
	struct nx_env e;
	int stop;
};

static void *vcpu_thread(void *p)
{
	struct shared *s = p;
	unsigned int i;

	for (i = 0; !__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE); i++) {
		uint64_t gpa = 4 * GIB + (i % REGIONS) * MIB2;

		if (nxsim_vcpu_access(s->e.vcpu, NXSIM_ACCESS_EXEC, gpa, NULL))
			return (void *)1;
	}
	return NULL;
}

static void *flip_thread(void *p)
{
	struct shared *s = p;
	unsigned int i;

	for (i = 0; i < FLIPS; i++)
		if (nxsim_param_set(s->e.host, "nx_huge_pages",
				    i & 1 ? "force" : "off"))
			return (void *)1;
	return NULL;
}

static void report(void *ctx, const char *text)
{
	(void)ctx;
	printf("# %s\n", text);
}

static void test_flip_while_checking(void **state)
{
	struct shared s = { .e = nx_env(NULL, 0) };
	pthread_t vcpu, flip;
	int checks = 0, violations = 0;
	void *rc;

	(void)state;
	nx_slot(s.e.vm, 1, 4 * GIB, REGIONS * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
		0);
	assert_int_equal(pthread_create(&vcpu, NULL, vcpu_thread, &s), 0);
	assert_int_equal(pthread_create(&flip, NULL, flip_thread, &s), 0);
	while (pthread_tryjoin_np(flip, &rc)) {
		int n = nxsim_vm_check(s.e.vm, report, NULL);

		assert_true(n >= 0);
		violations += n;
		checks++;
	}
	assert_null(rc);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(vcpu, &rc), 0);
	assert_null(rc);
	printf("# %d checks during %d flips\n", checks, FLIPS);
	assert_int_equal(violations, 0);
	nx_check_ok(s.e.vm);
	nx_env_destroy(&s.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flip_while_checking),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
