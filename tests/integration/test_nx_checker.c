// SPDX-License-Identifier: GPL-2.0-only
/*
 * The consistency checker's edges, found in review: a huge page that
 * lawfully replaces a table whose flag recovery cleared is no violation,
 * and a table made where a huge page was possible, flagged but not
 * tracked, is one.
 */
#include "common/test_util.h"
#include "mmu/mmu_internal.h"
#include "kvm/vm.h"
#include "integration/nx_test.h"

#define BASE 0x40000000ull

/*
 * 6.6, ratio 1: an exec fault splits 2M; with dirty logging on, recovery
 * only unaccounts the table (eb298605705a) and clears its flag.  Once the
 * host maps the range 4K the collapse on dirty-log-off skips it; when the
 * host maps 2M again a read may build a huge page over the table
 * (76901e56fb51 checks the flag).  Expect level 2 and no violation.
 */
static void test_nx_checker_unaccounted_table_may_go_huge(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim_access_info info;
	struct nxsim_mmu_counters mc;

	(void)state;
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_period_ms",
				  "100"),
		  0);
	assert_rc(nxsim_vcpu_run(e.vcpu), 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
		NXSIM_MEM_LOG_DIRTY_PAGES);
	assert_true(nxsim_clock_advance(nxsim_host_clock(e.host), 150000000) >
		    0);
	assert_rc(nxsim_vm_mmu_counters(e.vm, &mc), 0);
	assert_int_equal(mc.recovery_unaccounted, 1);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2, NXSIM_PG_LEVEL_4K),
		  0);
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2, NXSIM_PG_LEVEL_2M),
		  0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, BASE + 4096);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	nx_check_ok(e.vm);
	nx_env_destroy(&e);
}

/*
 * A table made by an exec fault where a 2M page was possible must be on
 * the possible-NX list.  Untrack it behind the model's back (as a lost
 * track_possible_nx_huge_page() would): the stat and the list still
 * agree, and only the checker's reverse check sees it.
 */
static void test_nx_checker_flagged_untracked(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__possible_nx *l;
	struct nxsim__mmu_page *sp;

	(void)state;
	nx_slot(e.vm, 1, BASE, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, BASE);
	assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 1);
	nx_check_ok(e.vm);

	l = nxsim__nx_list(e.vm->mmu, NXSIM__TDP_MMU);
	sp = TAILQ_FIRST(&l->pages);
	assert_non_null(sp);
	nxsim__write_lock(&e.vm->mmu->mmu_lock);
	nxsim__untrack_possible_nx_huge_page(e.vm->mmu, sp, NXSIM__TDP_MMU);
	nxsim__rw_unlock(&e.vm->mmu->mmu_lock);
	assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 0);
	assert_int_equal(nx_caught(e.vm, "invariant 1:"), 1);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nx_checker_unaccounted_table_may_go_huge),
		cmocka_unit_test(test_nx_checker_flagged_untracked),
	};

	return cmocka_run_group_tests_name("nx_checker", tests, NULL, NULL);
}
