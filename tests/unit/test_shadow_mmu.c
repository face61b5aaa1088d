// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shadow MMU's infrastructure (src/mmu/shadow_mmu.c, rmap.c,
 * page_track.c), called directly on the MMU of a VM that uses it (5.10:
 * no TDP MMU): the rmap list shapes of pte_list_add()/pte_list_remove()
 * (one SPTE inline, then chained descriptors of 14), shadow pages found
 * by gfn and role in the hash and made anew after a generation flip,
 * parent links, prepare and commit with one flush, and the hooks of
 * indirect pages: account_shadowed() write-protects the gfn and raises
 * lpage_info (4K pages) or the write-track count (higher levels), and
 * unaccount_shadowed() undoes it; the checker catches a shadowed gfn
 * mapped writable and pages left prepared but not committed, and the
 * unsync rules (parents' bits, 4K only, writable only while unsync); dirty
 * logging's write protection of the rmaps with and without PML.
 */
#include "mmu_unit.h"

/* The vCPU's page cache, which faults top up. */
#define MC(e) (&(e)->vcpu->mmu.mmu_cache)

/* Pages for @n shadow pages, as mmu_topup_memory_caches() leaves them. */
static void fill_cache(struct nxsim__vm_mmu *mmu,
		       struct nxsim__mmu_memory_cache *mc, unsigned int n)
{
	while (mc->nobjs < n) {
		struct nxsim__mmu_page *sp = nxsim__tdp_mmu_alloc_sp(mmu);

		assert_non_null(sp);
		mc->objs[mc->nobjs++] = sp;
	}
	assert_rc(nxsim__mmu_topup_desc_cache(mmu), 0);
	assert_rc(nxsim__mmu_topup_shadowed_info_cache(mmu), 0);
}

static void test_pte_list_shapes(void **state)
{
	struct nx_env e = nx_env("5.10", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim__kvm_rmap_head head = { 0 };
	struct nxsim__rmap_iterator iter;
	struct nxsim__mmu_page *sp;
	/* entries before each add: inline, 1 -> desc, then 14 per desc */
	static const int order[] = { 0, 29, 14, 1, 15, 28, 2 };
	uintptr_t ref;
	unsigned int i, n;

	(void)state;
	nx_slot(e.vm, 0, GIB, MIB2, HVA_BASE, 2, 0);
	nxsim__write_lock(&mmu->mmu_lock);
	fill_cache(mmu, MC(&e), 1);
	sp = MC(&e)->objs[0];
	for (i = 0; i < 30; i++) {
		if (mmu->nr_desc_cache < 2)
			assert_rc(nxsim__mmu_topup_desc_cache(mmu), 0);
		assert_int_equal(
			nxsim__pte_list_add(mmu, sptep_ref(sp, i), &head), i);
		assert_int_equal(head.val & 1, i > 0);
	}
	assert_int_equal(nxsim__pte_list_count(&head), 30);
	/* 30 entries: 14 + 14 + 2, three descriptors */
	assert_int_equal(mmu->nr_descs, 3);
	n = 0;
	for_each_rmap_spte(&head, &iter, ref)
	{
		assert_ptr_equal(ref_to_sp(mmu, ref), sp);
		assert_true(ref_index(ref) < 30);
		n++;
	}
	assert_int_equal(n, 30);
	for (i = 0; i < ARRAY_SIZE(order); i++)
		nxsim__pte_list_remove(mmu, sptep_ref(sp, order[i]), &head);
	assert_int_equal(nxsim__pte_list_count(&head), 30 - ARRAY_SIZE(order));
	for (i = 0; i < 30; i++) {
		bool gone = false;
		unsigned int j;

		for (j = 0; j < ARRAY_SIZE(order); j++)
			gone |= order[j] == (int)i;
		if (!gone)
			nxsim__pte_list_remove(mmu, sptep_ref(sp, i), &head);
	}
	assert_int_equal(head.val, 0);
	assert_int_equal(mmu->nr_descs, 0);
	nxsim__rw_unlock(&mmu->mmu_lock);
	nx_env_destroy(&e);
}

static union nxsim__kvm_mmu_page_role role(int level, bool direct,
					   unsigned int access)
{
	return (union nxsim__kvm_mmu_page_role){
		.level = (unsigned int)level,
		.direct = direct,
		.access = access,
		.efer_nx = 1,
		.cr0_wp = 1,
	};
}

/* The hash: one page per gfn and role; a new one after a fast zap. */
static void test_hash_and_generation(void **state)
{
	struct nx_env e = nx_env("5.10", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim__mmu_page *a, *b, *c;
	uint64_t gfn = GIB >> 12;

	(void)state;
	nx_slot(e.vm, 0, GIB, MIB2, HVA_BASE, 2, 0);
	nxsim__write_lock(&mmu->mmu_lock);
	fill_cache(mmu, MC(&e), 3);
	a = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn,
					   role(1, true, ACC_ALL));
	b = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn,
					   role(1, true, ACC_ALL));
	assert_ptr_equal(a, b);
	c = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn,
					   role(1, true, 5));
	assert_ptr_not_equal(a, c);
	assert_int_equal(mmu->n_used_mmu_pages, 2);
	assert_ptr_equal(TAILQ_FIRST(&mmu->active_mmu_pages), c);
	assert_false(nxsim__is_obsolete_sp(mmu, a));
	nxsim__rw_unlock(&mmu->mmu_lock);
	nx_check_ok(e.vm);

	nxsim__kvm_mmu_zap_all_fast(mmu);
	assert_int_equal(mmu->n_used_mmu_pages, 0);
	assert_int_equal(mmu->counters.tlb_flushes, 1);
	nxsim__write_lock(&mmu->mmu_lock);
	fill_cache(mmu, MC(&e), 1);
	b = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn,
					   role(1, true, ACC_ALL));
	assert_int_equal(b->mmu_valid_gen, mmu->mmu_valid_gen);
	assert_int_equal(mmu->n_used_mmu_pages, 1);
	nxsim__rw_unlock(&mmu->mmu_lock);
	nx_env_destroy(&e);
}

/* Parent links, and a prepared zap that waits for its commit. */
static void test_link_prepare_commit(void **state)
{
	struct nx_env e = nx_env("5.10", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim__mmu_page *l2, *l1;
	uint64_t gfn = GIB >> 12, flushes;

	(void)state;
	nx_slot(e.vm, 0, GIB, MIB2, HVA_BASE, 2, 0);
	nxsim__write_lock(&mmu->mmu_lock);
	fill_cache(mmu, MC(&e), 2);
	l2 = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn,
					    role(2, true, ACC_ALL));
	l1 = nxsim__kvm_mmu_get_child_sp(mmu, MC(&e), NULL, l2, 0, gfn, true,
					 ACC_ALL);
	assert_non_null(l1);
	assert_int_equal(l1->level, 1);
	nxsim__link_shadow_page(mmu, l2, 0, l1);
	assert_int_equal(nxsim__pte_list_count(&l1->parent_ptes), 1);
	assert_ptr_equal(spte_to_child_sp(mmu, l2->spt[0]), l1);
	/* The same child again: -EEXIST */
	assert_null(nxsim__kvm_mmu_get_child_sp(mmu, MC(&e), NULL, l2, 0, gfn,
						true, ACC_ALL));
	flushes = mmu->counters.tlb_flushes;
	assert_int_equal(nxsim__kvm_mmu_prepare_zap_page(mmu, l1,
							 &mmu->invalid_list),
			 1);
	assert_false(is_shadow_present_pte(l2->spt[0]));
	assert_true(l1->role.invalid);
	nxsim__rw_unlock(&mmu->mmu_lock);
	/* Not committed: the checker says so. */
	assert_int_equal(nx_caught(e.vm, "e89505698c9f"), 1);
	nxsim__write_lock(&mmu->mmu_lock);
	nxsim__kvm_mmu_commit_zap_page(mmu, &mmu->invalid_list);
	assert_int_equal(mmu->counters.tlb_flushes, flushes + 1);
	assert_true(TAILQ_EMPTY(&mmu->invalid_list));
	/* l2 stays, parentless: a root-less page of the hash */
	assert_int_equal(mmu->n_used_mmu_pages, 1);
	nxsim__kvm_mmu_prepare_zap_page(mmu, l2, &mmu->invalid_list);
	nxsim__kvm_mmu_commit_zap_page(mmu, &mmu->invalid_list);
	nxsim__rw_unlock(&mmu->mmu_lock);
	nx_env_destroy(&e);
}

struct shadowed_case {
	int level;	/* of the indirect page */
	int track;	/* write-track count while shadowed */
	uint64_t flush; /* flushes from account_shadowed() */
};

/*
 * account_shadowed() over a gfn mapped by a writable 2M leaf: the leaf
 * loses W (a flush), huge mappings of the gfn are refused; the page is
 * then zapped and the counts return.
 */
static void test_account_shadowed(void **state)
{
	static const struct shadowed_case cases[] = {
		{ 1, 0, 1 },
		{ 2, 1, 1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct shadowed_case *k = &cases[i];
		struct nx_env e = nx_env("5.10", 0);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		uint64_t gpa = GIB + 0x3000, gfn = gpa >> 12, flushes;
		struct nxsim__memslot *slot;
		struct nxsim__mmu_page *sp;
		uint64_t *leaf;

		nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_WRITE, gpa);
		leaf = unit_sptep(mmu, gpa, 2);
		assert_true(is_writable_pte(*leaf));
		slot = nxsim__gfn_to_memslot(mmu, 0, gfn);
		assert_int_equal(nxsim__lpage_disallowed(slot, gfn, 2), 0);
		flushes = mmu->counters.tlb_flushes;

		nxsim__write_lock(&mmu->mmu_lock);
		fill_cache(mmu, MC(&e), 1);
		sp = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn,
						    role(k->level, false, 7));
		assert_int_equal(mmu->indirect_shadow_pages, 1);
		assert_false(is_writable_pte(*leaf));
		assert_false(nxsim__is_mmu_writable_spte(mmu->fmt, *leaf));
		assert_int_equal(nxsim__lpage_disallowed(slot, gfn, 2), 1);
		assert_int_equal(nxsim__lpage_disallowed(slot, gfn, 3), 1);
		assert_int_equal(nxsim__kvm_slot_page_track_is_active(slot,
								      gfn),
				 k->track);
		assert_int_equal(mmu->counters.tlb_flushes, flushes + k->flush);
		assert_non_null(sp->shadowed_translation);
		nxsim__rw_unlock(&mmu->mmu_lock);
		nx_check_ok(e.vm);

		/* The checker: a shadowed gfn mapped writable */
		*leaf |= PT_WRITABLE_MASK;
		assert_int_equal(nx_caught(e.vm, "is mapped writable"), 1);
		*leaf &= ~PT_WRITABLE_MASK;

		nxsim__write_lock(&mmu->mmu_lock);
		nxsim__kvm_mmu_prepare_zap_page(mmu, sp, &mmu->invalid_list);
		nxsim__kvm_mmu_commit_zap_page(mmu, &mmu->invalid_list);
		assert_int_equal(mmu->indirect_shadow_pages, 0);
		assert_int_equal(nxsim__lpage_disallowed(slot, gfn, 2), 0);
		assert_int_equal(nxsim__lpage_disallowed(slot, gfn, 3), 0);
		assert_false(nxsim__kvm_slot_page_track_is_active(slot, gfn));
		nxsim__rw_unlock(&mmu->mmu_lock);
		nx_env_destroy(&e);
	}
}

/*
 * Dirty logging on: with PML (EPT) a 4K leaf loses D and keeps W; without
 * (NPT) it loses W and keeps D.  One flush either way.
 */
static void test_wrprot_slot(void **state)
{
	static const struct {
		bool amd, writable, dirty;
	} cases[] = {
		{ false, true, false },
		{ true, false, true },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu = { .itlb_multihit = !cases[i].amd,
				 .amd = cases[i].amd },
			.profile = "5.10",
		};
		struct nx_env e = nx_env_config(&cfg);
		struct nxsim__vm_mmu *mmu = unit_mmu(&e);
		uint64_t d = nxsim__spte_masks(mmu->fmt)->dirty, *leaf;

		nx_slot(e.vm, 0, GIB, MIB2, HVA_BASE, 1, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_WRITE, GIB + 0x2000);
		leaf = unit_sptep(mmu, GIB + 0x2000, 1);
		assert_true(is_writable_pte(*leaf) && (*leaf & d));
		nx_slot(e.vm, 0, GIB, MIB2, HVA_BASE, 1,
			NXSIM_MEM_LOG_DIRTY_PAGES);
		assert_int_equal(is_writable_pte(*leaf), cases[i].writable);
		assert_int_equal((*leaf & d) != 0, cases[i].dirty);
		assert_int_equal(mmu->counters.tlb_flushes, 1);
		nx_env_destroy(&e);
	}
}

static int op_info_topup(void *ctx)
{
	return nxsim__mmu_topup_shadowed_info_cache(ctx);
}

static void undo_info_topup(void *ctx)
{
	nxsim__mmu_free_shadowed_info_cache(ctx);
}

static void same_info_cache(void *ctx)
{
	struct nxsim__vm_mmu *mmu = ctx;

	assert_int_equal(mmu->nr_info_cache, 0);
}

static int op_desc_topup(void *ctx)
{
	return nxsim__mmu_topup_desc_cache(ctx);
}

static void undo_desc_topup(void *ctx)
{
	nxsim__mmu_free_desc_cache(ctx);
}

static void same_desc_cache(void *ctx)
{
	struct nxsim__vm_mmu *mmu = ctx;

	assert_int_equal(mmu->nr_desc_cache, 0);
}

/*
 * The caches an indirect fault tops up (5 shadowed_translation arrays)
 * and every fault of the shadow MMU (14 rmap descriptors): a failure at
 * any of their allocations gives back what the topup took.
 */
static void test_topup_alloc_failures(void **state)
{
	struct nx_env e = nx_env("5.10", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);

	(void)state;
	assert_int_equal(test_alloc_failures(op_info_topup, undo_info_topup,
					     same_info_cache, mmu),
			 5);
	assert_int_equal(test_alloc_failures(op_desc_topup, undo_desc_topup,
					     same_desc_cache, mmu),
			 NXSIM__DESC_CACHE_MIN);
	nx_env_destroy(&e);
}

/*
 * The checker's unsync rules (check_unsync()): the parent SPTE of an
 * unsync page has its unsync_child_bitmap bit, unsync_children counts the
 * bits, only a 4K page is unsync, the unsync pages match the stat, and a
 * shadowed gfn's leaf may be writable only while all its pages are unsync.
 */
static void test_unsync_checker(void **state)
{
	struct nx_env e = nx_env("5.10", 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	uint64_t gpa = GIB + 0x3000, gfn = gpa >> 12;
	struct nxsim__mmu_page *p, *c;
	uint64_t *leaf;

	(void)state;
	nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_WRITE, gpa);
	leaf = unit_sptep(mmu, gpa, 2);
	nxsim__write_lock(&mmu->mmu_lock);
	fill_cache(mmu, MC(&e), 2);
	/* the parent's gfn is outside the 2M leaf, which maps only c's */
	p = nxsim__kvm_mmu_get_shadow_page(mmu, MC(&e), NULL, gfn + 512,
					   role(2, false, 7));
	c = nxsim__kvm_mmu_get_child_sp(mmu, MC(&e), NULL, p, 0, gfn, false, 7);
	nxsim__link_shadow_page(mmu, p, 0, c);
	c->unsync = true;
	mmu->nr_unsync = 1;
	nxsim__rw_unlock(&mmu->mmu_lock);
	assert_int_equal(nx_caught(e.vm, "parent entry 0 not marked"), 1);
	nxsim__write_lock(&mmu->mmu_lock);
	nxsim__kvm_mmu_mark_parents_unsync(mmu, c);
	assert_int_equal(p->unsync_children, 1);
	assert_int_equal(p->unsync_child_bitmap[0], 1);
	nxsim__rw_unlock(&mmu->mmu_lock);
	nx_check_ok(e.vm);
	/* all the gfn's pages unsync: its leaf may be writable */
	*leaf |= PT_WRITABLE_MASK;
	nx_check_ok(e.vm);
	c->unsync = false;
	mmu->nr_unsync = 0;
	assert_int_equal(nx_caught(e.vm, "is mapped writable"), 1);
	*leaf &= ~PT_WRITABLE_MASK;
	c->unsync = true;
	mmu->nr_unsync = 0;
	assert_int_equal(nx_caught(e.vm, "stat mmu_unsync says 0"), 1);
	mmu->nr_unsync = 1;
	p->unsync_children = 2;
	assert_int_equal(nx_caught(e.vm, "unsync_children 2, 1 bits set"), 1);
	p->unsync_children = 1;
	p->unsync = true;
	mmu->nr_unsync = 2;
	assert_int_equal(nx_caught(e.vm, "level 2 is not a 4K table"), 1);
	p->unsync = false;
	c->unsync = false;
	mmu->nr_unsync = 0;
	nx_check_ok(e.vm);
	nx_env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pte_list_shapes),
		cmocka_unit_test(test_hash_and_generation),
		cmocka_unit_test(test_link_prepare_commit),
		cmocka_unit_test(test_account_shadowed),
		cmocka_unit_test(test_unsync_checker),
		cmocka_unit_test(test_wrprot_slot),
		cmocka_unit_test(test_topup_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
