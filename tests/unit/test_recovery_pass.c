// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_recover_nx_huge_pages() (src/mmu/mmu.c), one pass at a time on a
 * VM's MMU, called directly: the exact list left after each pass when
 * clean and dirty-logged SPs alternate in FIFO order (ceil(n / ratio)
 * taken oldest first), the state of an SP that was only unaccounted (its
 * table still linked, flag and tracking gone), and the passes counted per
 * MMU type.  The worker-driven scenarios (ratio arithmetic, ratio 0, TLB
 * flushes over time) are in tests/integration/test_nx_recovery.c.
 */
#include "mmu_unit.h"

#define SLOT_SIZE (8 * MIB2)
/* Six NX splits, alternating between slot A (clean) and B (dirty-logged). */
#define SP_GPA(n) (GIB + ((n) % 2) * SLOT_SIZE + ((n) / 2) * MIB2)
#define NR_SPS 6

struct pass {
	int left[NR_SPS]; /* SPs left on the list, oldest first; -1 ends */
	uint64_t zapped, unaccounted, passes, flushes;
};

struct recovery_case {
	const char *profile;
	struct pass pass[2];
};

/* The gfn of each SP on the TDP list, oldest first, as SP_GPA indices. */
static void check_list(struct nxsim__vm_mmu *mmu, const int *left)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, NXSIM__TDP_MMU);
	struct nxsim__mmu_page *sp;
	unsigned int i = 0;

	TAILQ_FOREACH(sp, &l->pages, possible_nx_huge_page_link) {
		assert_true(i < NR_SPS && left[i] >= 0);
		assert_int_equal(sp->gfn, SP_GPA(left[i]) >> 12);
		i++;
	}
	assert_true(i == NR_SPS || left[i] < 0);
	assert_int_equal(l->len, i);
	assert_int_equal(mmu->nx_lpage_splits, i);
}

static void run_case(const struct recovery_case *c)
{
	struct nx_env e = nx_env(c->profile, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_mmu_counters *n = &mmu->counters;
	struct nxsim__mmu_page *b1;
	uint64_t flushes0;
	int i, p;

	print_message("# %s\n", c->profile);
	nx_slot(e.vm, 0, GIB, SLOT_SIZE, HVA_BASE, 2, 0);
	nx_slot(e.vm, 1, GIB + SLOT_SIZE, SLOT_SIZE, HVA_BASE + SLOT_SIZE, 2,
		0);
	for (i = 0; i < NR_SPS; i++)
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, SP_GPA(i) + 0x1000);
	nx_slot(e.vm, 1, GIB + SLOT_SIZE, SLOT_SIZE, HVA_BASE + SLOT_SIZE, 2,
		NXSIM_MEM_LOG_DIRTY_PAGES);
	b1 = spte_to_child_sp(mmu, *unit_sptep(mmu, SP_GPA(1), 2));
	check_list(mmu, (const int[]){ 0, 1, 2, 3, 4, 5 });
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "2"),
		  0);
	/* turning dirty logging on flushed: count the passes' own */
	flushes0 = n->tlb_flushes;

	for (p = 0; p < 2; p++) {
		const struct pass *want = &c->pass[p];

		nxsim__mmu_recover_nx_huge_pages(mmu);
		check_list(mmu, want->left);
		assert_int_equal(n->recovery_zapped, want->zapped);
		assert_int_equal(n->recovery_unaccounted, want->unaccounted);
		assert_int_equal(n->recovery_passes, want->passes);
		assert_int_equal(n->tlb_flushes - flushes0, want->flushes);
	}
	/* SP 1 (dirty-logged) was taken in the first pass. */
	if (c->pass[0].unaccounted) {
		assert_ptr_equal(
			spte_to_child_sp(mmu, *unit_sptep(mmu, SP_GPA(1), 2)),
			b1);
		assert_false(b1->nx_huge_page_disallowed);
		assert_false(b1->nx_tracked);
		assert_true(b1->unaccounted);
	} else {
		assert_int_equal(*unit_sptep(mmu, SP_GPA(1), 2),
				 SHADOW_NONPRESENT_VALUE);
	}
	nx_env_destroy(&e);
}

static void test_recovery_passes(void **state)
{
	static const struct recovery_case cases[] = {
		/* Up to 6.1: every SP taken is zapped, dirty-logged or not. */
		{ "6.1",
		  { { { 3, 4, 5, -1 }, 3, 0, 1, 1 },
		    { { 5, -1 }, 5, 0, 2, 2 } } },
		/* 6.2 on: SPs of dirty-logged slots are only unaccounted. */
		{ "6.6",
		  { { { 3, 4, 5, -1 }, 2, 1, 1, 1 },
		    { { 5, -1 }, 3, 2, 2, 2 } } },
		/* 6.18: a pass per MMU type (the shadow list is empty). */
		{ "6.18",
		  { { { 3, 4, 5, -1 }, 2, 1, 2, 1 },
		    { { 5, -1 }, 3, 2, 4, 2 } } },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recovery_passes),
	};

	return cmocka_run_group_tests_name("recovery_pass", tests, NULL, NULL);
}
