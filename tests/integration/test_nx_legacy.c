// SPDX-License-Identifier: GPL-2.0-only
/*
 * The legacy direct MMU (no_tdp_mmu) through the public API:
 *   - a kvm.nx_huge_pages flip zaps every shadow page (the generation
 *     flip of kvm_mmu_zap_all_fast()), stats and lists back to 0;
 *   - dirty logging: a write in a dirty-logged slot maps 4K with no
 *     prefetch; turning logging off zaps the collapsible 4K leaves and
 *     leaves their table, which 6.1 (any table blocks a huge page under
 *     the mitigation) refaults at 4K and 6.6 (only a flagged table,
 *     76901e56fb51) replaces by a 2M leaf;
 *     the dump shows the shadow root and, on 6.6, the parentless table;
 *   - a host remap zaps the leaves of the range through the rmaps;
 *   - prefetch stops at the slot's end and skips read-only slots;
 *   - allocation failures of slot creation (rmaps, write tracking) and of
 *     the first fault (pages, rmap descriptors) leave everything as it
 *     was.
 */
#include "nx_test.h"

static struct nx_env legacy_env(const char *profile)
{
	struct nxsim_host_config cfg = {
		.cpu = { .itlb_multihit = true, .no_tdp_mmu = true },
		.profile = profile,
	};

	return nx_env_config(&cfg);
}

static uint64_t flushes(struct nxsim_vm *vm)
{
	struct nxsim_mmu_counters n;

	assert_rc(nxsim_vm_mmu_counters(vm, &n), 0);
	return n.tlb_flushes;
}

static void test_flip_zaps_all(void **state)
{
	static const char *const profiles[] = { "5.10", "6.1", "6.18" };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(profiles); i++) {
		struct nx_env e = legacy_env(profiles[i]);
		struct nxsim_access_info info;

		nx_slot(e.vm, 0, GIB, 8 * MIB2, HVA_BASE, 2, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + MIB2);
		nx_expect(e.vm, 8, 1, 0, 1);
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 4);
		assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
		nx_expect(e.vm, 0, 0, 0, 0);
		/*
		 * kvm_zap_obsolete_pages() commits the tables with one flush;
		 * the root the vCPU holds stays, invalid, until its next
		 * entry: kvm_mmu_free_obsolete_roots() -> kvm_mmu_free_roots()
		 * frees it with a second flush.
		 */
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 1);
		assert_int_equal(flushes(e.vm), 1);
		/* Mitigation off: the exec fault maps 2M, executable. */
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + MIB2);
		assert_int_equal(info.level, 2);
		assert_int_equal(flushes(e.vm), 2);
		nx_expect(e.vm, 0, 1, 0, 0);
		assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "on"), 0);
		nx_expect(e.vm, 0, 0, 0, 0);
		assert_int_equal(flushes(e.vm), 3);
		nx_env_destroy(&e);
	}
}

struct dirty_case {
	const char *profile;
	/* after the read that follows dirty logging off */
	uint64_t pages_4k, pages_2m, flushes;
	long mmu_pages;
	bool parentless; /* the dump shows a page no SPTE points at */
};

static void test_dirty_logging(void **state)
{
	static const struct dirty_case cases[] = {
		/* the empty table blocks the huge page: 4K + 7 prefetched */
		{ "6.1", 8, 1, 3, 4, false },
		/* unflagged: a 2M leaf replaces it (a flush), the table stays
		 * parentless */
		{ "6.6", 0, 2, 4, 4, true },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct dirty_case *c = &cases[i];
		struct nx_env e = legacy_env(c->profile);
		char dump[4096];
		struct nxsim_access_info info;

		printf("# %s\n", c->profile);
		nx_slot(e.vm, 0, GIB, 2 * MIB2, HVA_BASE, 2, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + MIB2);
		nx_expect(e.vm, 0, 2, 0, 0);
		nx_slot(e.vm, 0, GIB, 2 * MIB2, HVA_BASE, 2,
			NXSIM_MEM_LOG_DIRTY_PAGES);
		assert_int_equal(flushes(e.vm), 1);
		/* 2M leaves lost W: the write faults and maps 4K */
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, GIB + 0x5000);
		assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(info.level, 1);
		assert_int_equal(info.zapped_huge, 1);
		/* no prefetch into a dirty-logged slot */
		nx_expect(e.vm, 1, 1, 0, 0);
		assert_int_equal(flushes(e.vm), 2);
		nx_slot(e.vm, 0, GIB, 2 * MIB2, HVA_BASE, 2, 0);
		nx_expect(e.vm, 0, 1, 0, 0);
		assert_int_equal(flushes(e.vm), 3);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
		nx_expect(e.vm, c->pages_4k, c->pages_2m, 0, 0);
		assert_int_equal(flushes(e.vm), c->flushes);
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), c->mmu_pages);
		assert_true(nxsim_vm_dump_buf(e.vm, dump, sizeof(dump)) <
			    (int64_t)sizeof(dump));
		assert_non_null(strstr(dump, "  root L4 gfn 0x0-"));
		assert_int_equal(strstr(dump, "parentless:\n    table L1 gfn "
					      "0x40000-0x401ff") != NULL,
				 c->parentless);
		nx_env_destroy(&e);
	}
}

static void test_host_remap(void **state)
{
	struct nx_env e = legacy_env("6.1");

	(void)state;
	nx_slot(e.vm, 0, GIB, 4 * MIB2, HVA_BASE, 2, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + MIB2);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + 2 * MIB2);
	nx_expect(e.vm, 8, 2, 0, 1);
	/* THP split under the second and third 2 MiB: their leaves go */
	assert_rc(nxsim_vm_set_host_level(e.vm, 0, MIB2, 2 * MIB2, 1), 0);
	nx_expect(e.vm, 0, 1, 0, 1);
	assert_int_equal(flushes(e.vm), 1);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 4);
	/* 4K now, and prefetched */
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + MIB2);
	nx_expect(e.vm, 8, 1, 0, 1);
	nx_env_destroy(&e);
}

struct prefetch_case {
	uint64_t offset; /* of the access in the slot */
	uint32_t flags;
	uint64_t pages_4k;
};

/*
 * A 4K slot of 12 pages (no huge page possible): the aligned block of 8
 * around the access is prefetched when the slot holds it all and is
 * writable.
 */
static void test_prefetch_bounds(void **state)
{
	static const struct prefetch_case cases[] = {
		{ 0x3000, 0, 8 },
		/* block 8..15: 8 is prefetched, 10..15 run past the slot's
		 * 12 pages and are not */
		{ 0x9000, 0, 2 },
		{ 0x3000, NXSIM_MEM_READONLY, 1 },
		{ 0x3000, NXSIM_MEM_LOG_DIRTY_PAGES, 1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = legacy_env("6.1");

		nx_slot(e.vm, 0, GIB, 12 * 4096, HVA_BASE, 1, cases[i].flags);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + cases[i].offset);
		nx_expect(e.vm, cases[i].pages_4k, 0, 0, 0);
		nx_env_destroy(&e);
	}
}

struct walk {
	struct nx_env e;
	struct nxsim_memory_region mr;
	uint64_t gpa;
	uint64_t stats[4];
	long pages;
};

static void snapshot(struct walk *w, uint64_t *stats, long *pages)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		stats[i] = nx_stat(w->e.vm, nxsim_vm_stat_name(i));
	*pages = nxsim_vm_nr_mmu_pages(w->e.vm);
}

static void same(void *ctx)
{
	struct walk *w = ctx;
	uint64_t stats[4];
	long pages;

	snapshot(w, stats, &pages);
	assert_memory_equal(stats, w->stats, sizeof(stats));
	assert_int_equal(pages, w->pages);
	nx_check_ok(w->e.vm);
}

static int op_access(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vcpu_access(w->e.vcpu, NXSIM_ACCESS_EXEC, w->gpa, NULL);
}

static int op_region(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vm_set_memory_region(w->e.vm, &w->mr);
}

static void walk_start(struct walk *w)
{
	snapshot(w, w->stats, &w->pages);
}

static void test_alloc_failures_legacy(void **state)
{
	struct walk w = { .e = legacy_env("6.1") };

	(void)state;
	/*
	 * A slot: struct, host levels, two lpage_info arrays, three rmap
	 * arrays and the write-tracking counts.
	 */
	w.mr = (struct nxsim_memory_region){
		.slot = 1,
		.guest_phys_addr = GIB,
		.memory_size = 4 * MIB2,
		.userspace_addr = HVA_BASE,
		.host_level = 2,
	};
	walk_start(&w);
	assert_int_equal(test_alloc_failures(op_region, NULL, same, &w), 8);
	/*
	 * The first fault: root, L3, L2, L1 and a spare (table and header
	 * each), the table of frame chunks and its first chunk, and 14 rmap
	 * descriptors.
	 */
	w.gpa = GIB + 0x1000;
	walk_start(&w);
	assert_int_equal(test_alloc_failures(op_access, NULL, same, &w), 26);
	nx_expect(w.e.vm, 8, 0, 0, 1);
	/*
	 * The next exec fault: the cache is topped up to 4 pages again (3
	 * tables and headers); no rmap held two SPTEs, so the 14
	 * descriptors are all still cached.
	 */
	w.gpa = GIB + MIB2;
	walk_start(&w);
	assert_int_equal(test_alloc_failures(op_access, NULL, same, &w), 6);
	nx_expect(w.e.vm, 16, 0, 0, 2);
	nx_env_destroy(&w.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flip_zaps_all),
		cmocka_unit_test(test_dirty_logging),
		cmocka_unit_test(test_host_remap),
		cmocka_unit_test(test_prefetch_bounds),
		cmocka_unit_test(test_alloc_failures_legacy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
