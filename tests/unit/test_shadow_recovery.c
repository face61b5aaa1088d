// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_recover_nx_huge_pages() (src/mmu/mmu.c) on the shadow MMU's pages
 * (the legacy direct map, no_tdp_mmu), one pass at a time: the list left
 * after each pass when clean and dirty-logged pages alternate in FIFO
 * order (ceil(n / ratio) taken oldest first), zapped or only unaccounted
 * by profile, prepared and committed with one flush per pass; and the
 * commit after the loop (e89505698c9f): when another thread empties the
 * list while the pass has dropped mmu_lock, the pages prepared since are
 * still committed, and with NXSIM_BUG_RECOVER_NO_COMMIT they are not,
 * which the checker reports.
 */
#include "mmu_unit.h"

#define SLOT_SIZE (8 * MIB2)
/* Six NX splits, alternating between slot A (clean) and B (dirty-logged). */
#define SP_GPA(n) (GIB + ((n) % 2) * SLOT_SIZE + ((n) / 2) * MIB2)
#define NR_SPS 6

static struct nx_env legacy_env(const char *profile, uint64_t bugs)
{
	struct nxsim_host_config cfg = {
		.cpu = { .itlb_multihit = true, .no_tdp_mmu = true },
		.profile = profile,
		.bugs = bugs,
	};
	struct nx_env e = nx_env_config(&cfg);

	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	return e;
}

struct pass {
	int left[NR_SPS]; /* SPs left on the list, oldest first; -1 ends */
	uint64_t zapped, unaccounted, passes, flushes, pages_4k;
};

struct recovery_case {
	const char *profile;
	struct pass pass[2];
};

/* The gfn of each SP on the shadow list, oldest first. */
static void check_list(struct nxsim__vm_mmu *mmu, const int *left)
{
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, NXSIM__SHADOW_MMU);
	struct nxsim__mmu_page *sp;
	unsigned int i = 0;

	TAILQ_FOREACH(sp, &l->pages, possible_nx_huge_page_link) {
		assert_true(i < NR_SPS && left[i] >= 0);
		assert_false(sp->tdp_mmu_page);
		assert_int_equal(sp->gfn, SP_GPA(left[i]) >> 12);
		i++;
	}
	assert_true(i == NR_SPS || left[i] < 0);
	assert_int_equal(l->len, i);
	assert_int_equal(mmu->nx_lpage_splits, i);
}

/*
 * Each exec fault maps its 4K page and prefetches 7 more: 48 pages, and
 * the flush of turning dirty logging on.  With ratio 2, the first pass
 * takes 0, 1, 2 and the second 3 and 4; 1 and 3 are in slot B.
 */
static const struct recovery_case fifo_cases[] = {
	/* 6.1: every SP zapped; one flush per pass */
	{ "6.1",
	  { { { 3, 4, 5, -1 }, 3, 0, 1, 2, 24 },
	    { { 5, -1 }, 5, 0, 2, 3, 8 } } },
	/* 6.6: dirty-logged SPs only unaccounted (eb298605705a) */
	{ "6.6",
	  { { { 3, 4, 5, -1 }, 2, 1, 1, 2, 32 },
	    { { 5, -1 }, 3, 2, 2, 3, 24 } } },
	/* 6.18: the shadow list is recovered in its own pass */
	{ "6.18",
	  { { { 3, 4, 5, -1 }, 2, 1, 2, 2, 32 },
	    { { 5, -1 }, 3, 2, 4, 3, 24 } } },
};

static void run_case(const struct recovery_case *c)
{
	struct nx_env e = legacy_env(c->profile, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_mmu_counters *n = &mmu->counters;
	struct nxsim__mmu_page *b1;
	int i, p;

	print_message("# %s\n", c->profile);
	nx_slot(e.vm, 0, GIB, SLOT_SIZE, HVA_BASE, 2, 0);
	nx_slot(e.vm, 1, GIB + SLOT_SIZE, SLOT_SIZE, HVA_BASE + SLOT_SIZE, 2,
		0);
	for (i = 0; i < NR_SPS; i++)
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, SP_GPA(i) + 0x1000);
	assert_int_equal(nx_stat(e.vm, "pages_4k"), 8 * NR_SPS);
	nx_slot(e.vm, 1, GIB + SLOT_SIZE, SLOT_SIZE, HVA_BASE + SLOT_SIZE, 2,
		NXSIM_MEM_LOG_DIRTY_PAGES);
	assert_int_equal(n->tlb_flushes, 1);
	b1 = spte_to_child_sp(mmu, *unit_sptep(mmu, SP_GPA(1), 2));
	check_list(mmu, (const int[]){ 0, 1, 2, 3, 4, 5 });
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages_recovery_ratio", "2"),
		  0);

	for (p = 0; p < 2; p++) {
		const struct pass *want = &c->pass[p];

		nxsim__mmu_recover_nx_huge_pages(mmu);
		check_list(mmu, want->left);
		assert_int_equal(n->recovery_zapped, want->zapped);
		assert_int_equal(n->recovery_unaccounted, want->unaccounted);
		assert_int_equal(n->recovery_passes, want->passes);
		assert_int_equal(n->tlb_flushes, want->flushes);
		assert_int_equal(nx_stat(e.vm, "pages_4k"), want->pages_4k);
		assert_true(TAILQ_EMPTY(&mmu->invalid_list));
		nx_check_ok(e.vm);
	}
	/* SP 1 (dirty-logged) was only unaccounted: still linked */
	if (c->pass[0].unaccounted) {
		assert_ptr_equal(
			spte_to_child_sp(mmu, *unit_sptep(mmu, SP_GPA(1), 2)),
			b1);
		assert_false(b1->nx_huge_page_disallowed || b1->nx_tracked);
	}
	nx_env_destroy(&e);
}

static void test_shadow_recovery_fifo(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(fifo_cases); i++)
		run_case(&fifo_cases[i]);
}

struct yield_ctx {
	struct nxsim__vm_mmu *mmu;
	int calls;
};

/* The other thread: zaps the newest tracked SP while the pass yields. */
static void zap_newest(void *ctx, enum nxsim__sched_point p, uint64_t gfn,
		       int level)
{
	struct yield_ctx *y = ctx;
	struct nxsim__vm_mmu *mmu = y->mmu;
	struct nxsim__possible_nx *l = nxsim__nx_list(mmu, NXSIM__SHADOW_MMU);
	struct nxsim__sp_list invalid_list =
		TAILQ_HEAD_INITIALIZER(invalid_list);

	(void)gfn;
	(void)level;
	if (p != NXSIM__SCHED_RESCHED)
		return;
	y->calls++;
	nxsim__write_lock(&mmu->mmu_lock);
	nxsim__kvm_mmu_prepare_zap_page(
		mmu, TAILQ_LAST(&l->pages, nxsim__sp_list), &invalid_list);
	nxsim__kvm_mmu_commit_zap_page(mmu, &invalid_list);
	nxsim__rw_unlock(&mmu->mmu_lock);
}

struct no_commit_case {
	uint64_t bugs;
	uint64_t flushes;  /* after the pass */
	uint64_t pending;  /* pages left prepared */
	uint64_t pages_4k; /* left mapped: none either way */
	int caught;	   /* checker reports of e89505698c9f */
};

/*
 * Three tracked SPs, ratio 1: to_zap 3.  The pass prepares SP 0, breaks
 * the lock (commit: a flush) while another thread zaps SP 2 (a flush),
 * prepares SP 1 and finds the list empty with to_zap still 1.  Fixed,
 * the commit after the loop frees SP 1 with a third flush; with the bug,
 * SP 1 stays prepared, its TLB flush skipped.
 */
static void test_recover_no_commit(void **state)
{
	static const struct no_commit_case cases[] = {
		{ 0, 3, 0, 0, 0 },
		{ NXSIM_BUG_RECOVER_NO_COMMIT, 2, 1, 0, 1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct no_commit_case *k = &cases[i];
		struct nx_env e = legacy_env("6.1", k->bugs);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		struct nxsim__mmu_page *sp;
		struct yield_ctx y = { .mmu = mmu };
		uint64_t pending = 0;
		int j;

		nx_slot(e.vm, 0, GIB, SLOT_SIZE, HVA_BASE, 2, 0);
		for (j = 0; j < 3; j++)
			nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + j * MIB2);
		nx_expect(e.vm, 24, 0, 0, 3);
		nxsim__mmu_set_sched_hook(mmu, zap_newest, &y);
		mmu->resched_pending = true;
		nxsim__mmu_recover_nx_huge_pages(mmu);
		nxsim__mmu_set_sched_hook(mmu, NULL, NULL);
		assert_int_equal(y.calls, 1);
		assert_int_equal(mmu->counters.recovery_zapped, 2);
		assert_int_equal(mmu->counters.tlb_flushes, k->flushes);
		TAILQ_FOREACH(sp, &mmu->invalid_list, link)
			pending++;
		assert_int_equal(pending, k->pending);
		assert_int_equal(nx_stat(e.vm, "pages_4k"), k->pages_4k);
		assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 0);
		assert_int_equal(nx_caught(e.vm, "e89505698c9f"), k->caught);
		/* Destruction frees what the buggy pass left. */
		assert_rc(nxsim_vm_destroy(e.vm), 0);
		assert_rc(nxsim_host_destroy(e.host), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shadow_recovery_fifo),
		cmocka_unit_test(test_recover_no_commit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
