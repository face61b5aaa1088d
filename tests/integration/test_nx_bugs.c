// SPDX-License-Identifier: GPL-2.0-only
/*
 * Historical MMU bugs (docs/bugs.md), switched back on one at a time on
 * the newest profile: each is caught by the invariant checker or by the
 * scenario's outcome when on, and everything holds when off.
 *   track_any_level     5bcaf3e1715f  tracking where no huge page was
 *                                     possible
 *   untagged_nx         428e921611bc  untracked exec-made tables left
 *                                     unflagged
 *   adjust_any_nonleaf  76901e56fb51  any non-leaf SPTE blocks huge pages
 *   recover_dirty       eb298605705a  recovery zaps SPs of dirty-logged
 *                                     slots
 *   untrack_wrong_type  (6.18)        recovery untracks TDP SPs as shadow
 *                                     ones
 */
#include <string.h>

#include "nx_test.h"

#define BASE (4 * GIB)
#define PERIOD_NS (100 * 1000000ull)

/* Tear down without the final check (a bug left violations). */
static void env_free(struct nx_env *e)
{
	assert_rc(nxsim_vm_destroy(e->vm), 0);
	assert_rc(nxsim_host_destroy(e->host), 0);
}

static void worker_env(struct nx_env *e, const char *ratio)
{
	assert_rc(nxsim_param_set(e->host, "nx_huge_pages_recovery_ratio",
				  ratio),
		  0);
	assert_rc(nxsim_param_set(e->host, "nx_huge_pages_recovery_period_ms",
				  "100"),
		  0);
	assert_rc(nxsim_vcpu_run(e->vcpu), 0);
}

static void test_bug2_track_any_level(void **state)
{
	int on;

	(void)state;
	for (on = 0; on < 2; on++) {
		struct nx_env e =
			nx_env(NULL, on ? NXSIM_BUG_TRACK_ANY_LEVEL : 0);

		nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_4K, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
		/* PDPT, PD and PT made on the way: tracked only with the bug */
		assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), on ? 3 : 0);
		assert_int_equal(nx_caught(e.vm, "invariant 3:"), on ? 3 : 0);
		env_free(&e);
	}
}

static void test_bug3_untagged(void **state)
{
	struct nxsim_access_info info;
	int on;

	(void)state;
	for (on = 0; on < 2; on++) {
		struct nx_env e = nx_env(NULL, on ? NXSIM_BUG_UNTAGGED_NX : 0);

		nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_4K, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
		assert_int_equal(nx_caught(e.vm, "428e921611bc"), on ? 3 : 0);
		/* The host now maps 2M; a read must not go huge. */
		assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2,
						  NXSIM_PG_LEVEL_2M),
			  0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, BASE + 4096);
		assert_int_equal(info.level, on ? 2 : 1);
		/*
		 * The replaced table was never flagged, so invariant 5 does
		 * not see it; the untagged-SP check above catches the bug.
		 */
		assert_int_equal(nx_caught(e.vm, "invariant 5:"), 0);
		/* the next fetch splits it again: the ping-pong */
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
		assert_int_equal(info.splits, on);
		if (on)
			/* PDPT and PD still unflagged; the new PT is tracked */
			assert_int_equal(nx_caught(e.vm, "428e921611bc"), 2);
		else
			nx_check_ok(e.vm);
		env_free(&e);
	}
}

static void test_bug6_any_nonleaf(void **state)
{
	struct nxsim_access_info info;
	int on;

	(void)state;
	for (on = 0; on < 2; on++) {
		struct nx_env e =
			nx_env(NULL, on ? NXSIM_BUG_ADJUST_ANY_NONLEAF : 0);

		/* 4K tables from reads while the host maps 4K */
		nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_4K, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, BASE);
		nx_expect(e.vm, 1, 0, 0, 0);
		/* khugepaged collapses; the notifier zaps the leaves only */
		assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2,
						  NXSIM_PG_LEVEL_2M),
			  0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, BASE);
		/* the PT is not flagged: huge again, unless the bug is on */
		assert_int_equal(info.level, on ? 1 : 2);
		nx_expect(e.vm, on, !on, 0, 0);
		nx_env_destroy(&e);
	}
}

static void test_bug9_recover_dirty(void **state)
{
	struct nxsim_mmu_counters c;
	int on;

	(void)state;
	for (on = 0; on < 2; on++) {
		struct nx_env e =
			nx_env(NULL, on ? NXSIM_BUG_RECOVER_DIRTY : 0);

		worker_env(&e, "1");
		nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
		nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
			NXSIM_MEM_LOG_DIRTY_PAGES);
		nxsim_clock_advance(nxsim_host_clock(e.host), PERIOD_NS);
		assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
		assert_int_equal(c.recovery_zapped, on);
		assert_int_equal(c.recovery_unaccounted, !on);
		assert_int_equal(nx_caught(e.vm, "invariant 9:"), on);
		env_free(&e);
	}
}

static void test_bug15_wrong_type(void **state)
{
	int on;

	(void)state;
	for (on = 0; on < 2; on++) {
		struct nx_env e =
			nx_env("6.18", on ? NXSIM_BUG_UNTRACK_WRONG_TYPE : 0);
		struct nxsim_mmu_counters c;
		unsigned int i;

		worker_env(&e, "2");
		nx_slot(e.vm, 1, BASE, 4 * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
			0);
		for (i = 0; i < 4; i++)
			nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE + i * MIB2);
		nxsim_clock_advance(nxsim_host_clock(e.host), PERIOD_NS);
		/* nx_lpage_splits stays right; the per-type counts do not */
		assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 2);
		assert_int_equal(nx_caught(e.vm, "invariant 1:"), on ? 2 : 0);
		/* the stale count makes the next pass take 2, not 1 */
		nxsim_clock_advance(nxsim_host_clock(e.host), PERIOD_NS);
		assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
		assert_int_equal(c.recovery_zapped, on ? 4 : 3);
		assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), on ? 0 : 1);
		if (on)
			assert_int_equal(nx_caught(e.vm, "ceil(2 / 2)"), 1);
		else
			nx_check_ok(e.vm);
		env_free(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bug2_track_any_level),
		cmocka_unit_test(test_bug3_untagged),
		cmocka_unit_test(test_bug6_any_nonleaf),
		cmocka_unit_test(test_bug9_recover_dirty),
		cmocka_unit_test(test_bug15_wrong_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
