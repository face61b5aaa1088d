// SPDX-License-Identifier: GPL-2.0-only
/*
 * Eager page splitting when dirty logging is turned on
 * (kvm_mmu_slot_apply_flags() -> kvm_mmu_slot_try_split_huge_pages() ->
 * kvm_tdp_mmu_try_split_huge_pages(), 6.1): per profile, parameter, MMU
 * and host level, the stats after the split; how it meets the NX
 * mitigation (children of a huge page executable at 4K, the new table
 * neither flagged nor tracked, nx_lpage_splits unchanged); and the
 * allocation of tdp_mmu_alloc_sp_for_split(): a failure under mmu_lock is
 * retried with the lock dropped, two in a row end the split.
 */
#include "common/test_util.h"
#include "mmu_unit.h"

static void set_region(struct nxsim_vm *vm, uint64_t size, int level,
		       uint32_t flags)
{
	nx_slot(vm, 1, 0, size, HVA_BASE, level, flags);
}

static void test_eager_split_table(void **state)
{
	static const struct {
		const char *profile;
		bool amd, tdp_mmu, no_tdp_mmu;
		const char *param; /* kvm.eager_page_split=, or NULL */
		uint64_t size;
		int level;
		uint64_t p4k, p2m, p1g;
		int64_t new_pages; /* page-table pages the split made */
		int write;	   /* a write after: outcome */
	} cases[] = {
		/* default on: one 2M leaf becomes a table of 512 */
		{ "6.1", false, false, false, NULL, MIB2, 2, 512, 0, 0, 1,
		  NXSIM_ACCESS_HIT },
		{ "6.18", false, false, false, NULL, MIB2, 2, 512, 0, 0, 1,
		  NXSIM_ACCESS_HIT },
		/* NPT (no PML): the 4K leaves lose W, the write is fast */
		{ "6.18", true, false, false, NULL, MIB2, 2, 512, 0, 0, 1,
		  NXSIM_ACCESS_FAST },
		/* off: the leaf stays huge, write-protected: a 4K fault */
		{ "6.18", false, false, false, "0", MIB2, 2, 0, 1, 0, 0,
		  NXSIM_ACCESS_FAULT },
		/* 1G: 512 2M pages, then each of them 512 4K pages */
		{ "6.6", false, false, false, NULL, GIB, 3, 512 * 512, 0, 0,
		  513, NXSIM_ACCESS_HIT },
		/* no parameter on 5.10 (its TDP MMU opt-in) */
		{ "5.10", false, true, false, NULL, MIB2, 2, 0, 1, 0, 0,
		  NXSIM_ACCESS_FAULT },
		/* the legacy MMU: is_tdp_mmu_enabled() is false */
		{ "6.18", false, false, true, NULL, MIB2, 2, 0, 1, 0, 0,
		  NXSIM_ACCESS_FAULT },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.profile = cases[i].profile,
			.cpu = { .amd = cases[i].amd,
				 .tdp_mmu = cases[i].tdp_mmu,
				 .no_tdp_mmu = cases[i].no_tdp_mmu },
		};
		struct nx_env e = nx_env_config(&cfg);
		struct nxsim_access_info info;
		char buf[8];
		int64_t pages;

		printf("# case %u: %s\n", i, cases[i].profile);
		if (cases[i].param)
			assert_rc(nxsim_param_set(e.host, "eager_page_split",
						  cases[i].param),
				  0);
		assert_rc(nxsim_param_get(e.host, "eager_page_split", buf,
					  sizeof(buf)),
			  !strcmp(cases[i].profile, "5.10") ? -ENOENT : 2);
		set_region(e.vm, cases[i].size, cases[i].level, 0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		assert_int_equal(info.level, cases[i].level);
		pages = nxsim_vm_nr_mmu_pages(e.vm);
		set_region(e.vm, cases[i].size, cases[i].level,
			   NXSIM_MEM_LOG_DIRTY_PAGES);
		nx_expect(e.vm, cases[i].p4k, cases[i].p2m, cases[i].p1g, 0);
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm),
				 pages + cases[i].new_pages);
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0x5000);
		assert_int_equal(info.outcome, cases[i].write);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		nx_env_destroy(&e);
	}
}

/* The parameter: Y by default, kstrtobool values, a bare name is Y. */
static void test_eager_split_param(void **state)
{
	struct nxsim_host_config cfg = {
		.profile = "6.1",
		.cmdline = "kvm.eager_page_split=n",
	};
	struct nxsim_host *h;
	char buf[8];

	(void)state;
	assert_rc(nxsim_host_create(&cfg, &h), 0);
	assert_rc(nxsim_param_get(h, "eager_page_split", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "N\n");
	assert_rc(nxsim_param_set(h, "eager_page_split", "maybe"), -EINVAL);
	assert_rc(nxsim_param_get(h, "eager_page_split", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "N\n");
	assert_rc(nxsim_param_set(h, "eager_page_split", "1"), 0);
	assert_rc(nxsim_param_get(h, "eager_page_split", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "Y\n");
	assert_rc(nxsim_host_destroy(h), 0);
	cfg.cmdline = "kvm.eager_page_split=0 kvm.eager_page_split";
	assert_rc(nxsim_host_create(&cfg, &h), 0);
	assert_rc(nxsim_param_get(h, "eager_page_split", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "Y\n");
	assert_rc(nxsim_host_destroy(h), 0);
}

/* The table under the 2M SPTE at @gpa. */
static struct nxsim__mmu_page *table_2m(struct nxsim__vm_mmu *mmu, uint64_t gpa)
{
	return spte_to_child_sp(mmu, *unit_sptep(mmu, gpa, NXSIM_PG_LEVEL_2M));
}

/*
 * The mitigation on: an exec fault in the first 2M page, mapped huge by a
 * read, splits it (NX), a read
 * mapped the second huge and not executable.  Dirty logging splits the
 * second into executable 4K leaves, in a table the possible-NX
 * accounting does not know.
 */
static void test_eager_split_nx(void **state)
{
	static const struct {
		const char *profile;
		uint64_t nx_4k; /* 4K leaves of the exec fault */
	} cases[] = {
		{ "6.1", 1 },	 /* the huge SPTE zapped, one 4K leaf */
		{ "6.18", 512 }, /* split in place (6.2 on) */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = nx_env(cases[i].profile, 0);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		struct nxsim_access_info info;
		struct nxsim__mmu_page *sp;

		set_region(e.vm, 2 * MIB2, NXSIM_PG_LEVEL_2M, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 0);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, MIB2);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
		nx_expect(e.vm, cases[i].nx_4k, 1, 0, 1);
		assert_true(sp_nx_disallowed(table_2m(mmu, 0)));

		set_region(e.vm, 2 * MIB2, NXSIM_PG_LEVEL_2M,
			   NXSIM_MEM_LOG_DIRTY_PAGES);
		nx_expect(e.vm, cases[i].nx_4k + 512, 0, 0, 1);
		sp = table_2m(mmu, MIB2);
		assert_false(sp_nx_disallowed(sp));
		assert_false(sp->nx_tracked);
		/* make_huge_page_split_spte(): 4K children executable */
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, MIB2 + 0x3000);
		assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		nx_expect(e.vm, cases[i].nx_4k + 512, 0, 0, 1);
		nx_env_destroy(&e);
	}
}

/*
 * A second failure armed where tdp_mmu_alloc_sp_for_split() has dropped
 * mmu_lock to allocate again: the first yield point after the first
 * failure was taken.
 */
struct fail_twice {
	bool second;
};

static void fail_again(void *ctx, enum nxsim__sched_point p, uint64_t gfn,
		       int level)
{
	struct fail_twice *f = ctx;

	(void)gfn;
	(void)level;
	if (p != NXSIM__SCHED_RESCHED || f->second ||
	    nxsim_alloc_fail_pending())
		return;
	f->second = true;
	nxsim_alloc_fail_nth(1);
}

static void test_eager_split_alloc_failures(void **state)
{
	unsigned int n;

	(void)state;
	/*
	 * one failure: retried with the lock dropped, both pages split;
	 * allocation 1 is the dirty bitmap (unit.dirty_log fails it)
	 */
	for (n = 2;; n++) {
		struct nx_env e = nx_env(NULL, 0);
		uint64_t live;
		bool covered;

		set_region(e.vm, 2 * MIB2, NXSIM_PG_LEVEL_2M, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, MIB2);
		live = test_live_allocs();
		nxsim_alloc_fail_nth(n);
		set_region(e.vm, 2 * MIB2, NXSIM_PG_LEVEL_2M,
			   NXSIM_MEM_LOG_DIRTY_PAGES);
		covered = nxsim_alloc_fail_pending();
		nxsim_alloc_fail_nth(0);
		nx_expect(e.vm, 1024, 0, 0, 0);
		/* two table pages and the bitmap, nothing else kept */
		assert_int_equal(test_live_allocs(), live + 2 * 2 + 1);
		nx_env_destroy(&e);
		if (covered)
			break;
	}
	/* the bitmap, then a header and a table per page, two pages */
	assert_int_equal(n, 6);

	/* two in a row: the split ends, both pages stay huge */
	{
		struct nx_env e = nx_env(NULL, 0);
		struct fail_twice f = { false };
		int64_t pages;

		set_region(e.vm, 2 * MIB2, NXSIM_PG_LEVEL_2M, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, MIB2);
		pages = nxsim_vm_nr_mmu_pages(e.vm);
		nxsim__mmu_set_sched_hook(unit_mmu(&e), fail_again, &f);
		/* past the bitmap: the first page of the split */
		nxsim_alloc_fail_nth(2);
		set_region(e.vm, 2 * MIB2, NXSIM_PG_LEVEL_2M,
			   NXSIM_MEM_LOG_DIRTY_PAGES);
		nxsim__mmu_set_sched_hook(unit_mmu(&e), NULL, NULL);
		assert_true(f.second);
		assert_false(nxsim_alloc_fail_pending());
		nx_expect(e.vm, 0, 2, 0, 0);
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), pages);
		nx_env_destroy(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eager_split_table),
		cmocka_unit_test(test_eager_split_param),
		cmocka_unit_test(test_eager_split_nx),
		cmocka_unit_test(test_eager_split_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
