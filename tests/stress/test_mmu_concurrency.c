// SPDX-License-Identifier: GPL-2.0-only
/*
 * Concurrent use of one VM's MMU from real threads: two vCPUs making
 * random reads, writes and fetches, a thread driving the recovery worker
 * through the virtual clock, a thread switching dirty logging on and off,
 * and the checker run meanwhile.  Every lock-protected step keeps the
 * invariants, so the checker must never see a violation; at the end a
 * parameter flip must leave nothing mapped.  Run on the TDP MMU (faults
 * under mmu_lock for read) and on the legacy direct MMU (6.1 with
 * no_tdp_mmu: direct_map(), rmaps and prepare/commit zaps under the write
 * lock; recovery ratio 1).  Run under TSan in CI.
 */
#include <pthread.h>

#include <nxsim/rng.h>

#include "../integration/nx_test.h"

#define ROUNDS 1500
#define REGIONS 16

struct shared {
	struct nx_env e;
	struct nxsim_vcpu *vcpu2;
	uint64_t seed;
	int stop;
};

struct vcpu_arg {
	struct shared *s;
	struct nxsim_vcpu *vcpu;
	uint64_t seed;
};

static void *vcpu_thread(void *p)
{
	struct vcpu_arg *a = p;
	struct nxsim_rng rng;
	unsigned int i;

	nxsim_rng_seed(&rng, a->seed);
	for (i = 0; i < ROUNDS; i++) {
		uint64_t gpa = 4 * GIB + nxsim_rng_below(&rng, REGIONS * MIB2);
		int kind = (int)nxsim_rng_below(&rng, 3);

		if (nxsim_vcpu_access(a->vcpu, kind, gpa & ~4095ull, NULL))
			return (void *)1;
	}
	return NULL;
}

static void *clock_thread(void *p)
{
	struct shared *s = p;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		nxsim_clock_advance(nxsim_host_clock(s->e.host),
				    10 * 1000000ull);
	return NULL;
}

static void *dirty_thread(void *p)
{
	struct shared *s = p;
	struct nxsim_memory_region mr = {
		.slot = 1,
		.guest_phys_addr = 4 * GIB,
		.memory_size = REGIONS * MIB2,
		.userspace_addr = HVA_BASE,
	};
	unsigned int i;

	for (i = 0; !__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE); i++) {
		mr.flags = i & 1 ? NXSIM_MEM_LOG_DIRTY_PAGES : 0;
		if (nxsim_vm_set_memory_region(s->e.vm, &mr))
			return (void *)1;
	}
	return NULL;
}

static struct nx_env legacy_env(void)
{
	struct nxsim_host_config cfg = {
		.cpu = { .itlb_multihit = true, .no_tdp_mmu = true },
		.profile = "6.1",
	};
	struct nx_env e = nx_env_config(&cfg);

	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	return e;
}

/*
 * @held_roots: pages left after the last zap: the shadow MMU's root a
 * vCPU holds stays, invalid, until its next entry (6.1
 * __kvm_mmu_prepare_zap_page() with root_count > 0).
 */
static void run_concurrent(struct nx_env env, int64_t held_roots)
{
	struct shared s = { .e = env };
	struct vcpu_arg a[2];
	pthread_t t[4];
	void *rc;
	int i, checks = 0;

	s.seed = test_seed();
	assert_rc(nxsim_vcpu_create(s.e.vm, 1, &s.vcpu2), 0);
	assert_rc(nxsim_param_set(s.e.host, "nx_huge_pages_recovery_period_ms",
				  "20"),
		  0);
	nx_slot(s.e.vm, 1, 4 * GIB, REGIONS * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
		0);
	assert_rc(nxsim_vcpu_run(s.e.vcpu), 0);
	a[0] = (struct vcpu_arg){ &s, s.e.vcpu, s.seed };
	a[1] = (struct vcpu_arg){ &s, s.vcpu2, s.seed + 1 };
	assert_int_equal(pthread_create(&t[0], NULL, vcpu_thread, &a[0]), 0);
	assert_int_equal(pthread_create(&t[1], NULL, vcpu_thread, &a[1]), 0);
	assert_int_equal(pthread_create(&t[2], NULL, clock_thread, &s), 0);
	assert_int_equal(pthread_create(&t[3], NULL, dirty_thread, &s), 0);
	for (i = 0; i < 2; i++) {
		while (pthread_tryjoin_np(t[i], &rc)) {
			nx_check_ok(s.e.vm);
			checks++;
		}
		assert_null(rc);
	}
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	for (i = 2; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], &rc), 0);
		assert_null(rc);
	}
	printf("# %d checks while running\n", checks);
	nx_check_ok(s.e.vm);
	assert_rc(nxsim_param_set(s.e.host, "nx_huge_pages", "off"), 0);
	nx_expect(s.e.vm, 0, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(s.e.vm), held_roots);
	nx_env_destroy(&s.e);
}

static void test_concurrent(void **state)
{
	(void)state;
	run_concurrent(nx_env(NULL, 0), 0);
}

static void test_concurrent_legacy(void **state)
{
	(void)state;
	run_concurrent(legacy_env(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_concurrent_legacy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
