// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recovery pass (kvm_recover_nx_huge_pages()) driven by the worker on the
 * virtual clock: ceil(n / ratio) for ratios 1, 7, 60 and odd counts,
 * oldest first, dirty-logged slots only unaccounted from 6.2 (zapped by
 * 6.1), TLB flushes only when something was zapped, one pass per MMU type
 * with per-type lists (6.18), none with ratio 0.
 */
#include "nx_test.h"

#define PERIOD_NS (100 * 1000000ull)
#define BASE (4 * GIB)

/* A VM whose worker runs every 100 ms, with @n 2M regions at BASE. */
static struct nx_env rec_env(const char *profile, unsigned int ratio,
			     unsigned int n, uint64_t bugs)
{
	struct nx_env e = nx_env(profile, bugs);
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", ratio);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", buf),
		  0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_period_ms",
				  "100"),
		  0);
	nx_slot(e.vm, 1, BASE, n * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	assert_rc(nxsim_vcpu_run(e.vcpu), 0);
	return e;
}

/* One worker pass: one period of virtual time. */
static void one_pass(struct nx_env *e)
{
	struct nxsim_worker_info before, after;

	assert_rc(nxsim_vm_worker_info(e->vm, &before), 0);
	nxsim_clock_advance(nxsim_host_clock(e->host), PERIOD_NS);
	assert_rc(nxsim_vm_worker_info(e->vm, &after), 0);
	assert_int_equal(after.passes, before.passes + 1);
	nx_check_ok(e->vm);
}

/*
 * Read at @off into the regions @order[@from..5]: the ones at positions
 * below @huge were recovered and map 2M again, the others stay 4K.
 */
static void read_levels(struct nx_env *e, const unsigned int order[6],
			unsigned int from, unsigned int huge, uint64_t off)
{
	for (unsigned int i = from; i < 6; i++) {
		struct nxsim_access_info info =
			nx_access(e->vcpu, NXSIM_ACCESS_READ,
				  BASE + order[i] * MIB2 + off);

		assert_int_equal(info.level, i < huge ? 2 : 1);
	}
}

static void test_ratio_arithmetic(void **state)
{
	static const struct {
		unsigned int ratio, n, left;
	} cases[] = {
		{ 1, 5, 0 },	  { 1, 1, 0 }, { 7, 15, 12 },  { 7, 7, 6 },
		{ 7, 8, 6 },	  { 7, 1, 0 }, { 60, 61, 59 }, { 60, 59, 58 },
		{ 60, 121, 118 }, { 2, 9, 4 },
	};
	static const char *const profiles[] = { "6.18", "6.12", "6.1" };
	unsigned int i, p, r;

	(void)state;
	for (p = 0; p < 3; p++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			struct nx_env e = rec_env(profiles[p], cases[i].ratio,
						  cases[i].n, 0);
			struct nxsim_mmu_counters c;

			printf("# %s ratio %u n %u\n", profiles[p],
			       cases[i].ratio, cases[i].n);
			for (r = 0; r < cases[i].n; r++)
				nx_access(e.vcpu, NXSIM_ACCESS_EXEC,
					  BASE + r * MIB2);
			nx_expect(e.vm, cases[i].n, 0, 0, cases[i].n);
			one_pass(&e);
			nx_expect(e.vm, cases[i].left, 0, 0, cases[i].left);
			assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
			assert_int_equal(c.recovery_zapped,
					 cases[i].n - cases[i].left);
			assert_int_equal(c.tlb_flushes, 1);
			assert_int_equal(c.recovery_passes, p == 0 ? 2 : 1);
			/* the next pass takes ceil(left / ratio) again */
			one_pass(&e);
			r = cases[i].left - (cases[i].left + cases[i].ratio -
					     1) / cases[i].ratio;
			nx_expect(e.vm, r, 0, 0, r);
			assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
			assert_int_equal(c.tlb_flushes, cases[i].left ? 2 : 1);
			nx_env_destroy(&e);
		}
	}
}

static void test_fifo(void **state)
{
	static const unsigned int order[] = { 3, 1, 5, 0, 2, 4 };
	/* ratio 3 over 6: the two oldest (3 and 1) go */
	struct nx_env e = rec_env(NULL, 3, 6, 0);
	unsigned int i;

	(void)state;
	for (i = 0; i < 6; i++)
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE + order[i] * MIB2);
	one_pass(&e);
	nx_expect(e.vm, 4, 0, 0, 4);
	read_levels(&e, order, 0, 2, 8192);
	/* then 5 and 0 (ceil(4 / 3) = 2) */
	one_pass(&e);
	read_levels(&e, order, 2, 4, 16384);
	nx_env_destroy(&e);
}

static void test_dirty_logged(void **state)
{
	static const struct {
		const char *profile;
		bool skips;
	} cases[] = { { "6.18", true }, { "6.6", true }, { "6.1", false } };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct nx_env e = rec_env(cases[i].profile, 1, 2, 0);
		struct nxsim_mmu_counters c;
		struct nxsim_access_info info;

		nx_slot(e.vm, 2, 8 * GIB, MIB2, HVA_BASE + GIB,
			NXSIM_PG_LEVEL_2M, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 8 * GIB);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
		nx_slot(e.vm, 2, 8 * GIB, MIB2, HVA_BASE + GIB,
			NXSIM_PG_LEVEL_2M, NXSIM_MEM_LOG_DIRTY_PAGES);
		nx_expect(e.vm, 2, 0, 0, 2);
		one_pass(&e);
		assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
		assert_int_equal(c.recovery_unaccounted, cases[i].skips);
		assert_int_equal(c.recovery_zapped, 2 - cases[i].skips);
		/* both untracked; the dirty-logged PT still maps (6.2 on) */
		nx_expect(e.vm, cases[i].skips, 0, 0, 0);
		/* its flag is gone, but logging keeps faults at 4K */
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 8 * GIB + 4096);
		assert_int_equal(info.level, 1);
		nx_env_destroy(&e);
	}
}

/* Only dirty-logged SPs: nothing zapped, no flush; logging off recovers. */
static void test_dirty_logged_only(void **state)
{
	struct nx_env e = rec_env(NULL, 1, 1, 0);
	struct nxsim_mmu_counters c;
	struct nxsim_access_info info;

	(void)state;
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
		NXSIM_MEM_LOG_DIRTY_PAGES);
	one_pass(&e);
	assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
	/* the flush of turning logging on; recovery flushes nothing */
	assert_int_equal(c.tlb_flushes, 1);
	assert_int_equal(c.recovery_unaccounted, 1);
	nx_expect(e.vm, 1, 0, 0, 0);
	/* logging off rebuilds the huge page in place, non-executable */
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	nx_expect(e.vm, 0, 1, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
	assert_int_equal(info.splits, 1);
	nx_expect(e.vm, 512, 0, 0, 1);
	nx_env_destroy(&e);
}

static void test_ratio_zero(void **state)
{
	struct nx_env e = rec_env(NULL, 1, 2, 0);
	struct nxsim_worker_info w;

	(void)state;
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "0"),
		  0);
	nxsim_clock_advance(nxsim_host_clock(e.host), 10 * PERIOD_NS);
	assert_rc(nxsim_vm_worker_info(e.vm, &w), 0);
	assert_int_equal(w.passes, 0);
	nx_expect(e.vm, 1, 0, 0, 1);
	nx_env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_arithmetic),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_dirty_logged),
		cmocka_unit_test(test_dirty_logged_only),
		cmocka_unit_test(test_ratio_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
