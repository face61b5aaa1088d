// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dirty log under real threads: two vCPUs write random pages of a
 * dirty-logged slot (each write is recorded once it returned) while the
 * main thread takes the log, with KVM_GET_DIRTY_LOG alone (no manual
 * protection: the ioctl clears and re-protects) or with manual protection
 * and KVM_CLEAR_DIRTY_LOG of what GET returned.  No write may be lost: a
 * write that began once n logs were taken is in log n + 1 or a later one
 * (the last one, taken once the vCPUs stopped, included).  On EPT (PML:
 * D cleared, the write sets it and logs) and NPT (W cleared, the fast
 * path logs), on the TDP MMU (faults and PML under mmu_lock for read, the
 * ioctls under the write lock) and the legacy MMU.  Run under TSan in CI.
 */
#include <inttypes.h>
#include <pthread.h>

#include <nxsim/rng.h>

#include "../integration/nx_test.h"

#define ROUNDS 3000
#define PAGES 1024ull
#define WORDS (PAGES / 64)

struct shared {
	uint64_t written[WORDS]; /* set after a write returned */
	uint64_t need[PAGES];	 /* the first log a write must be in */
	uint64_t logs;		 /* logs taken */
	int done;		 /* vCPU threads finished */
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
		uint64_t page = nxsim_rng_below(&rng, PAGES), need, old;

		need = __atomic_load_n(&a->s->logs, __ATOMIC_ACQUIRE) + 1;
		if (nxsim_vcpu_access(a->vcpu, NXSIM_ACCESS_WRITE, page << 12,
				      NULL))
			return (void *)1;
		__atomic_fetch_or(&a->s->written[page / 64],
				  1ull << (page % 64), __ATOMIC_RELEASE);
		old = __atomic_load_n(&a->s->need[page], __ATOMIC_RELAXED);
		while (old < need &&
		       !__atomic_compare_exchange_n(
			       &a->s->need[page], &old, need, false,
			       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	__atomic_fetch_add(&a->s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * One log: GET, then (manual) CLEAR of what it returned; @last gets the
 * log's number for each page in it.
 */
static void take_log(struct nxsim_vm *vm, bool manual, struct shared *s,
		     uint64_t *last)
{
	uint64_t bm[WORDS], n = s->logs + 1, p;

	assert_rc(nxsim_vm_get_dirty_log(vm, 1, bm), 0);
	if (manual)
		assert_rc(nxsim_vm_clear_dirty_log(vm, 1, 0, PAGES, bm), 0);
	for (p = 0; p < PAGES; p++)
		if (bm[p / 64] & (1ull << (p % 64)))
			last[p] = n;
	__atomic_store_n(&s->logs, n, __ATOMIC_RELEASE);
}

static void test_dirty_log_race(void **state)
{
	static const struct {
		bool amd, legacy, manual;
	} cases[] = {
		{ false, false, false }, { false, false, true },
		{ true, false, false },	 { true, false, true },
		{ false, true, false },	 { false, true, true },
	};
	unsigned int c, i, logs;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct nxsim_host_config cfg = {
			.profile = "6.1",
			.cpu = { .amd = cases[c].amd,
				 .no_tdp_mmu = cases[c].legacy },
		};
		struct nx_env e = nx_env_config(&cfg);
		static struct shared s;
		static uint64_t last[PAGES];
		uint64_t arg0 = cases[c].manual;
		struct vcpu_arg a[2];
		struct nxsim_vcpu *vcpu2;
		pthread_t t[2];
		void *ret;

		memset(&s, 0, sizeof(s));
		memset(last, 0, sizeof(last));
		printf("# case %u seed %" PRIu64 "\n", c, test_seed());
		assert_rc(nxsim_vcpu_create(e.vm, 1, &vcpu2), 0);
		assert_rc(nxsim_vm_enable_cap(
				  e.vm, NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2, 0,
				  &arg0, false),
			  0);
		nx_slot(e.vm, 1, 0, PAGES << 12, HVA_BASE, NXSIM_PG_LEVEL_2M,
			NXSIM_MEM_LOG_DIRTY_PAGES);
		a[0] = (struct vcpu_arg){ &s, e.vcpu, test_seed() + c };
		a[1] = (struct vcpu_arg){ &s, vcpu2, test_seed() + c + 100 };
		assert_int_equal(
			pthread_create(&t[0], NULL, vcpu_thread, &a[0]), 0);
		assert_int_equal(
			pthread_create(&t[1], NULL, vcpu_thread, &a[1]), 0);
		/* logs taken all the time the vCPUs write */
		for (logs = 0; __atomic_load_n(&s.done, __ATOMIC_ACQUIRE) < 2;
		     logs++)
			take_log(e.vm, cases[c].manual, &s, last);
		printf("# %u logs\n", logs);
		for (i = 0; i < 2; i++) {
			assert_int_equal(pthread_join(t[i], &ret), 0);
			assert_null(ret);
		}
		take_log(e.vm, cases[c].manual, &s, last);
		for (i = 0; i < PAGES; i++) {
			bool written = s.written[i / 64] & (1ull << (i % 64));

			/* lost: written after the last log it is in */
			assert_true(last[i] >= s.need[i]);
			/* nothing logged that was never written */
			assert_true(written || !last[i]);
		}
		nx_env_destroy(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirty_log_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
