// SPDX-License-Identifier: GPL-2.0-only
/*
 * kvm_tdp_mmu_map() and what it builds (src/mmu/tdp_mmu.c), called
 * directly on a VM's MMU with the cache topped up as
 * mmu_topup_memory_caches() leaves it: the huge leaf of a read, the
 * in-place split of 6.2 on (tdp_mmu_split_huge_page(): every child SPTE),
 * the zap-and-rebuild of 6.1, the NX flag and tracking of the new table,
 * and kvm_tdp_mmu_zap_sp() undoing it; stat.pages[] summed over its
 * per-thread shards when leaves come and go on different threads; a root made
 * from a page a lost race gave back.
 */
#include <pthread.h>

#include "mmu_unit.h"

#define REGION(n) (GIB + (n)*MIB2)

/* The vCPU page cache the calls below use. */
static struct nxsim__mmu_memory_cache cache;

/* The MMU with a root and a cache enough for one walk. */
static void topup(struct nxsim__vm_mmu *mmu)
{
	while (cache.nobjs < (unsigned int)mmu->root_level + !mmu->root[0]) {
		struct nxsim__mmu_page *sp = nxsim__tdp_mmu_alloc_sp(mmu);

		assert_non_null(sp);
		cache.objs[cache.nobjs++] = sp;
	}
	if (!mmu->root[0])
		nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(
			mmu, nxsim__mmu_cache_pop(mmu, &cache), 0);
}

/* The cache's pages back, then the VM destroyed. */
static void destroy(struct nx_env *e)
{
	nxsim__kvm_mmu_free_memory_caches(unit_mmu(e), &cache);
	nx_env_destroy(e);
}

static struct nxsim_access_info map(struct nxsim__vm_mmu *mmu, uint64_t gpa,
				    bool exec)
{
	struct nxsim_access_info info = { 0 };
	struct nxsim__kvm_page_fault f;

	nxsim__write_lock(&mmu->mmu_lock);
	topup(mmu);
	f = unit_fault(mmu, gpa, exec);
	nxsim__kvm_tdp_mmu_map(mmu, &cache, &f, &info);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return info;
}

/* The SPTE make_spte() gives a 4K..1G leaf of this test's slots. */
static uint64_t leaf(struct nxsim__vm_mmu *mmu, int level, uint64_t pfn)
{
	return nxsim__make_spte(mmu->fmt, level, pfn, ACC_ALL, true,
				nxsim__is_nx_huge_page_enabled(mmu));
}

static void test_map_huge_leaf(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_access_info info;

	(void)state;
	nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 3, 0);
	info = map(mmu, GIB + 0x5000, false);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, 3);
	assert_int_equal(info.splits + info.zapped_huge, 0);
	assert_int_equal(*unit_sptep(mmu, GIB, 3),
			 leaf(mmu, 3, HVA_BASE >> 12));
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K) +
				 nxsim__page_stat(mmu, NXSIM_PG_LEVEL_2M),
			 0);
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_1G), 1);
	/* The root and the L3 table under it. */
	assert_int_equal(nxsim__mmu_nr_pages(mmu), 2);
	/* The same fault again installs the same SPTE. */
	info = map(mmu, GIB + 0x7000, false);
	assert_int_equal(info.outcome, NXSIM_ACCESS_SPURIOUS);
	destroy(&e);
}

/*
 * A huge 2M leaf at REGION(3), then an exec fault at REGION(3) + 0x7000:
 * Return the table that replaced the leaf, after checking what both
 * profiles agree on.
 */
static struct nxsim__mmu_page *exec_over_huge(struct nx_env *e, uint64_t *huge,
					      struct nxsim_access_info *info)
{
	struct nxsim__vm_mmu *mmu = unit_mmu(e);
	struct nxsim__mmu_page *child;
	uint64_t l2;

	nx_slot(e->vm, 0, GIB, GIB, HVA_BASE, 2, 0);
	assert_int_equal(map(mmu, REGION(3), false).level, 2);
	*huge = *unit_sptep(mmu, REGION(3), 2);
	assert_int_equal(*huge, leaf(mmu, 2, (HVA_BASE >> 12) + 3 * 512));

	*info = map(mmu, REGION(3) + 0x7000, true);
	assert_int_equal(info->level, 1);
	l2 = *unit_sptep(mmu, REGION(3), 2);
	assert_true(is_shadow_present_pte(l2) && !is_large_pte(l2));
	child = spte_to_child_sp(mmu, l2);
	assert_int_equal(child->level, 1);
	assert_int_equal(child->gfn, REGION(3) >> 12);
	assert_ptr_equal(child->ptep, unit_sptep(mmu, REGION(3), 2));
	/* Made for an exec fault that wanted 2M: flagged and tracked. */
	assert_true(child->nx_huge_page_disallowed);
	assert_true(child->nx_tracked);
	assert_int_equal(nxsim__nx_list(mmu, NXSIM__TDP_MMU)->len, 1);
	assert_ptr_equal(
		TAILQ_FIRST(&nxsim__nx_list(mmu, NXSIM__TDP_MMU)->pages),
		child);
	assert_int_equal(mmu->nx_lpage_splits, 1);
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_2M), 0);
	return child;
}

static void test_map_splits_huge_page(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	const struct nxsim__spte_masks *m = nxsim__spte_masks(mmu->fmt);
	struct nxsim_access_info info;
	struct nxsim__mmu_page *child;
	uint64_t huge, first;
	unsigned int i;

	(void)state;
	child = exec_over_huge(&e, &huge, &info);
	assert_int_equal(info.splits, 1);
	assert_int_equal(info.zapped_huge, 0);
	assert_int_equal(mmu->counters.splits, 1);
	assert_int_equal(mmu->counters.huge_zaps, 0);
	/*
	 * make_huge_page_split_spte(): the huge SPTE without its size bit,
	 * made executable (the mitigation is on), one 4K frame per entry.
	 */
	first = ((huge & ~PT_PAGE_SIZE_MASK) & ~m->nx) | m->x;
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
		if (child->spt[i] != first + ((uint64_t)i << 12))
			fail_msg("child %u is 0x%llx, want 0x%llx", i,
				 (unsigned long long)child->spt[i],
				 (unsigned long long)(first + (i << 12)));
	/* So the faulting entry already allows exec: nothing to install. */
	assert_int_equal(child->spt[7],
			 leaf(mmu, 1, (HVA_BASE >> 12) + 3 * 512 + 7));
	assert_int_equal(info.outcome, NXSIM_ACCESS_SPURIOUS);
	assert_int_equal(child->nr_leaves, SPTE_ENT_PER_PAGE);
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K),
			 SPTE_ENT_PER_PAGE);

	/* kvm_tdp_mmu_zap_sp() takes the table and its 512 leaves away. */
	nxsim__write_lock(&mmu->mmu_lock);
	assert_true(nxsim__kvm_tdp_mmu_zap_sp(mmu, child, false));
	nxsim__rw_unlock(&mmu->mmu_lock);
	assert_int_equal(*unit_sptep(mmu, REGION(3), 2),
			 SHADOW_NONPRESENT_VALUE);
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K), 0);
	assert_int_equal(mmu->nx_lpage_splits, 0);
	assert_int_equal(nxsim__nx_list(mmu, NXSIM__TDP_MMU)->len, 0);
	destroy(&e);
}

static void test_map_zaps_huge_page_before_6_2(void **state)
{
	struct nx_env e = nx_env("6.1", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_access_info info;
	struct nxsim__mmu_page *child;
	uint64_t huge;
	unsigned int i;

	(void)state;
	child = exec_over_huge(&e, &huge, &info);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.splits, 0);
	assert_int_equal(info.zapped_huge, 1);
	assert_int_equal(mmu->counters.splits, 0);
	assert_int_equal(mmu->counters.huge_zaps, 1);
	/* An empty table but for the one 4K leaf of the fault. */
	for (i = 0; i < SPTE_ENT_PER_PAGE; i++)
		assert_int_equal(child->spt[i],
				 i == 7 ? leaf(mmu, 1,
					       (HVA_BASE >> 12) + 3 * 512 + 7) :
					  SHADOW_NONPRESENT_VALUE);
	/* a table a fault filled keeps no count (only a split's does) */
	assert_int_equal(child->nr_leaves, 0);
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K), 1);
	destroy(&e);
}

/* The zap of a split table, on a thread of its own. */
struct zap_job {
	struct nxsim__vm_mmu *mmu;
	struct nxsim__mmu_page *sp;
	unsigned int shard;
	bool zapped;
};

static void *zap_thread(void *arg)
{
	struct zap_job *j = arg;

	nxsim__write_lock(&j->mmu->mmu_lock);
	j->zapped = nxsim__kvm_tdp_mmu_zap_sp(j->mmu, j->sp, false);
	nxsim__rw_unlock(&j->mmu->mmu_lock);
	j->shard = nxsim__page_stat_shard();
	return NULL;
}

/* Updates of stat.pages[] from a thread: +1 then -1, @n times each level. */
struct stat_job {
	struct nxsim__vm_mmu *mmu;
	unsigned int n;
};

static void *stat_thread(void *arg)
{
	struct stat_job *j = arg;
	unsigned int i;
	int level;

	for (i = 0; i < j->n; i++)
		for (level = NXSIM_PG_LEVEL_4K; level <= NXSIM_PG_LEVEL_1G;
		     level++)
			nxsim__kvm_update_page_stats(j->mmu, level,
						     i % 2 ? -1 : 2);
	return NULL;
}

/*
 * kvm_update_page_stats() adds in the shard of the calling thread: 512
 * leaves a split makes on one thread and a zap takes away on another
 * leave one shard at +512 and the other at -512, and every read of
 * stat.pages[] still gives the kernel's count; the updates of many
 * threads at once sum exactly.
 */
static void test_page_stats_across_threads(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct stat_job sj = { mmu, 1000 };
	struct nxsim_access_info info;
	struct zap_job zj = { mmu };
	struct nxsim_vm_stats st;
	pthread_t t[2 * NXSIM__PAGE_STAT_SHARDS];
	unsigned int mine, i;
	uint64_t huge;

	(void)state;
	zj.sp = exec_over_huge(&e, &huge, &info);
	mine = nxsim__page_stat_shard();
	assert_int_equal(info.splits, 1);
	assert_int_equal(mmu->page_stats[mine].pages[0], SPTE_ENT_PER_PAGE);
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K),
			 SPTE_ENT_PER_PAGE);

	assert_int_equal(pthread_create(&t[0], NULL, zap_thread, &zj), 0);
	assert_int_equal(pthread_join(t[0], NULL), 0);
	assert_true(zj.zapped);
	/* shards go round-robin: the same one only after 8 other threads */
	if (zj.shard != mine) {
		assert_int_equal(mmu->page_stats[zj.shard].pages[0],
				 (uint64_t)-SPTE_ENT_PER_PAGE);
		assert_int_equal(mmu->page_stats[mine].pages[0],
				 SPTE_ENT_PER_PAGE);
	}
	assert_int_equal(nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K), 0);
	nxsim__mmu_stats(mmu, &st);
	assert_int_equal(st.pages_4k, 0);
	assert_int_equal(st.pages_2m, 0);
	/* the checker's invariant 6 reads the same sums */
	assert_int_equal(nxsim_vm_check(e.vm, NULL, NULL), 0);

	/* more threads than shards, all at once: +1000 each per level */
	for (i = 0; i < ARRAY_SIZE(t); i++)
		assert_int_equal(pthread_create(&t[i], NULL, stat_thread, &sj),
				 0);
	for (i = 0; i < ARRAY_SIZE(t); i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (i = NXSIM_PG_LEVEL_4K; i <= NXSIM_PG_LEVEL_1G; i++)
		assert_int_equal(nxsim__page_stat(mmu, (int)i),
				 ARRAY_SIZE(t) * sj.n / 2);
	for (i = NXSIM_PG_LEVEL_4K; i <= NXSIM_PG_LEVEL_1G; i++)
		nxsim__kvm_update_page_stats(
			mmu, (int)i, -(int64_t)(ARRAY_SIZE(t) * sj.n / 2));
	assert_int_equal(nxsim_vm_check(e.vm, NULL, NULL), 0);
	destroy(&e);
}

/*
 * A page a lost race gave back to the cache (a split or a link whose
 * compare-and-exchange failed, then tdp_mmu_free_sp()'s way back) is
 * reused as a root: tdp_mmu_init_sp() sets its header for that use, so
 * nothing the split wrote in it (512 leaves, the NX flag, the checker's
 * records) is left on the root, and the checker finds nothing.
 */
static void test_root_from_given_back_page(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim__mmu_page *sp = nxsim__tdp_mmu_alloc_sp(mmu);

	(void)state;
	assert_non_null(sp);
	assert_null(mmu->root[0]);
	sp->nr_leaves = SPTE_ENT_PER_PAGE;
	sp->nx_huge_page_disallowed = true;
	sp->nx_flag_pending = true;
	sp->made_hpd = true;
	sp->made_req_level = NXSIM_PG_LEVEL_4K;
	sp->unaccounted = true;
	cache.objs[cache.nobjs++] = sp;
	nxsim__write_lock(&mmu->mmu_lock);
	nxsim__kvm_tdp_mmu_get_vcpu_root_hpa(
		mmu, nxsim__mmu_cache_pop(mmu, &cache), 0);
	nxsim__rw_unlock(&mmu->mmu_lock);
	assert_ptr_equal(mmu->root[0], sp);
	assert_int_equal(sp->nr_leaves, 0);
	assert_false(sp->nx_huge_page_disallowed || sp->nx_flag_pending ||
		     sp->made_hpd || sp->unaccounted);
	assert_int_equal(nxsim_vm_check(e.vm, NULL, NULL), 0);
	destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_huge_leaf),
		cmocka_unit_test(test_map_splits_huge_page),
		cmocka_unit_test(test_map_zaps_huge_page_before_6_2),
		cmocka_unit_test(test_page_stats_across_threads),
		cmocka_unit_test(test_root_from_given_back_page),
	};

	return cmocka_run_group_tests_name("tdp_mmu", tests, NULL, NULL);
}
