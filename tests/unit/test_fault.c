// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fault path's level choice, function by function (src/mmu/mmu.c):
 * kvm_mmu_hugepage_adjust() for each host mapping, guest slot and
 * lpage_info case, and disallowed_hugepage_adjust() for each kind of
 * SPTE it can meet, with and without the flag check of 76901e56fb51.
 * The end-to-end fault scenarios are in tests/integration/test_nx_faults.c.
 */
#include "mmu_unit.h"

struct adjust_case {
	const char *name;
	bool no_gbpages; /* the CPU has no 1 GiB pages */
	uint64_t slot_gpa, slot_size, hva_off;
	int host_level;
	uint32_t flags;
	bool mitigation; /* nx_huge_pages on */
	uint64_t gpa;
	bool exec;
	int max_level;
	int req_level, goal_level;
	bool huge_page_disallowed;
	uint64_t pfn_off; /* expected pfn - HVA_BASE >> 12 */
};

static void run_adjust(const struct adjust_case *c)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.cpu.no_gbpages = c->no_gbpages,
		.profile = "6.6",
	};
	struct nxsim__kvm_page_fault f;
	struct nx_env e = nx_env_config(&cfg);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);

	print_message("# %s\n", c->name);
	if (!c->mitigation)
		assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	nx_slot(e.vm, 0, c->slot_gpa, c->slot_size, HVA_BASE + c->hva_off,
		c->host_level, c->flags);
	f = unit_fault(mmu, c->gpa, c->exec);
	f.max_level = c->max_level;
	nxsim__kvm_mmu_hugepage_adjust(mmu, &f);
	assert_int_equal(f.req_level, c->req_level);
	assert_int_equal(f.goal_level, c->goal_level);
	assert_int_equal(f.huge_page_disallowed, c->huge_page_disallowed);
	assert_int_equal(f.pfn, (HVA_BASE >> 12) + c->pfn_off);
	nx_env_destroy(&e);
}

static void test_hugepage_adjust(void **state)
{
	static const struct adjust_case cases[] = {
		{ "1G host page, read", false, GIB, 2 * GIB, 0, 3, 0, true,
		  GIB + 0x5000, false, 3, 3, 3, false, 0 },
		{ "2M host page, read", false, GIB, 2 * GIB, 0, 2, 0, true,
		  GIB + 3 * MIB2 + 0x7000, false, 3, 2, 2, false, 3 * 512 },
		{ "4K host page, read", false, GIB, 2 * GIB, 0, 1, 0, true,
		  GIB + 0x7000, false, 3, 1, 1, false, 7 },
		{ "exec, mitigation on", false, GIB, 2 * GIB, 0, 3, 0, true,
		  GIB + 0x5000, true, 3, 3, 1, true, 5 },
		{ "exec, mitigation off", false, GIB, 2 * GIB, 0, 3, 0, false,
		  GIB + 0x5000, true, 3, 3, 3, false, 0 },
		{ "dirty-logged slot, read", false, GIB, 2 * GIB, 0, 3,
		  NXSIM_MEM_LOG_DIRTY_PAGES, true, GIB + 0x5000, false, 3, 1, 1,
		  false, 5 },
		{ "dirty-logged slot, exec", false, GIB, 2 * GIB, 0, 3,
		  NXSIM_MEM_LOG_DIRTY_PAGES, true, GIB + 0x5000, true, 3, 1, 1,
		  true, 5 },
		{ "gfn and hva not congruent", false, GIB, 2 * GIB, 0x1000, 3,
		  0, true, GIB + 0x5000, false, 3, 1, 1, false, 6 },
		{ "first 2M region partly in the slot", false, GIB + 0x1000,
		  2 * MIB2, 0x1000, 2, 0, true, GIB + 0x3000, false, 3, 1, 1,
		  false, 3 },
		{ "2M region wholly in the slot", false, GIB + 0x1000, 2 * MIB2,
		  0x1000, 2, 0, true, GIB + MIB2 + 0x3000, false, 3, 2, 2,
		  false, 0x200 },
		{ "fault asks for 2M at most", false, GIB, 2 * GIB, 0, 3, 0,
		  true, GIB + 0x5000, false, 2, 2, 2, false, 0 },
		{ "CPU without 1G pages", true, GIB, 2 * GIB, 0, 3, 0, true,
		  GIB + 0x5000, false, 3, 2, 2, false, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_adjust(&cases[i]);
}

/* gpa of a 2M region in the 1G slot at GIB, host level 2M. */
#define REGION(n) (GIB + (n)*MIB2)

struct step_env {
	struct nx_env e;
	struct nxsim__vm_mmu *mmu;
	uint64_t split;	 /* L2 SPTE of an NX split table (region 5) */
	uint64_t huge;	 /* L2 huge leaf (region 6) */
	uint64_t absent; /* L2 non-present SPTE (region 7) */
	struct nxsim__mmu_page *table; /* the table under @split */
};

static struct step_env step_env(const char *profile, uint64_t bugs)
{
	struct step_env s = { .e = nx_env(profile, bugs) };

	s.mmu = unit_mmu(&s.e);
	nx_slot(s.e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
	nx_access(s.e.vcpu, NXSIM_ACCESS_EXEC, REGION(5) + 0x3000);
	nx_access(s.e.vcpu, NXSIM_ACCESS_READ, REGION(6));
	s.split = *unit_sptep(s.mmu, REGION(5), 2);
	s.huge = *unit_sptep(s.mmu, REGION(6), 2);
	s.absent = *unit_sptep(s.mmu, REGION(7), 2);
	s.table = spte_to_child_sp(s.mmu, s.split);
	assert_true(is_large_pte(s.huge));
	assert_false(is_shadow_present_pte(s.absent));
	return s;
}

/*
 * One disallowed_hugepage_adjust() call for a read fault at
 * REGION(5) + 0x9000 whose goal is 2M: Return the goal it leaves, and
 * check the pfn moved with it.
 */
static int adjust_at(struct step_env *s, uint64_t spte, int cur_level)
{
	struct nxsim__kvm_page_fault f =
		unit_fault(s->mmu, REGION(5) + 0x9000, false);
	uint64_t exact = f.pfn;

	nxsim__kvm_mmu_hugepage_adjust(s->mmu, &f);
	assert_int_equal(f.goal_level, 2);
	nxsim__disallowed_hugepage_adjust(s->mmu, &f, spte, cur_level);
	assert_int_equal(f.pfn, f.goal_level == 1 ? exact : exact & ~511ull);
	return f.goal_level;
}

static void test_disallowed_hugepage_adjust_flag_check(void **state)
{
	struct step_env s = step_env("6.6", 0);

	(void)state;
	assert_true(s.table->nx_huge_page_disallowed);
	/* A flagged table at the goal level: step down to 4K. */
	assert_int_equal(adjust_at(&s, s.split, 2), 1);
	/* Only at the goal level. */
	assert_int_equal(adjust_at(&s, s.split, 3), 2);
	/* A huge leaf or nothing: no step. */
	assert_int_equal(adjust_at(&s, s.huge, 2), 2);
	assert_int_equal(adjust_at(&s, s.absent, 2), 2);
	/* A table no longer flagged (recovery unaccounted it): no step. */
	s.table->nx_huge_page_disallowed = false;
	assert_int_equal(adjust_at(&s, s.split, 2), 2);
	s.table->nx_huge_page_disallowed = true;
	nx_env_destroy(&s.e);
}

static void test_disallowed_hugepage_adjust_any_table(void **state)
{
	static const struct {
		const char *profile;
		uint64_t bugs;
	} cases[] = {
		{ "6.1", 0 }, /* before 76901e56fb51 */
		{ "6.6", NXSIM_BUG_ADJUST_ANY_NONLEAF },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct step_env s = step_env(cases[i].profile, cases[i].bugs);
		bool flag = s.table->nx_huge_page_disallowed;

		/* Any present table at the goal level makes it step down. */
		s.table->nx_huge_page_disallowed = false;
		assert_int_equal(adjust_at(&s, s.split, 2), 1);
		assert_int_equal(adjust_at(&s, s.huge, 2), 2);
		assert_int_equal(adjust_at(&s, s.absent, 2), 2);
		s.table->nx_huge_page_disallowed = flag;
		nx_env_destroy(&s.e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hugepage_adjust),
		cmocka_unit_test(test_disallowed_hugepage_adjust_flag_check),
		cmocka_unit_test(test_disallowed_hugepage_adjust_any_table),
	};

	return cmocka_run_group_tests_name("fault", tests, NULL, NULL);
}
