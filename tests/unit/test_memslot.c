// SPDX-License-Identifier: GPL-2.0-only
/*
 * Memory slots: KVM_SET_USER_MEMORY_REGION's errors (table-driven), the
 * lpage_info disallow counts from alignment and gfn/hva congruence, moves
 * and deletes zapping every mapping, flags-only changes, the host mapping
 * level API, and an allocation-failure walk of each allocating operation,
 * with page-table pages from the zap-refilled reserve or allocated.
 */
#include "../integration/nx_test.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"
#include "kvm/vm.h"

#define G4 (4 * GIB)

static struct nxsim_memory_region region(uint32_t slot, uint32_t flags,
					 uint64_t gpa, uint64_t size,
					 uint64_t hva, int host_level)
{
	return (struct nxsim_memory_region){
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = hva,
		.host_level = host_level,
	};
}

/*
 * Each bad region fails with KVM's errno and changes nothing; the checks of
 * __kvm_set_memory_region() also say which field is wrong
 * (nxsim_error_detail(); "" where the errno is the whole answer).
 */
static void test_errors(void **state)
{
	static const struct {
		struct nxsim_memory_region mr;
		int rc;
		const char *why;
	} cases[] = {
		{ { 5, 4, G4, MIB2, HVA_BASE, 2 },
		  -EINVAL,
		  "flags 0x4 has bits other than LOG_DIRTY_PAGES and READONLY" },
		{ { 5, 0, G4, 4097, HVA_BASE, 2 },
		  -EINVAL,
		  "memory_size 0x1001 is not a multiple of 4096" },
		{ { 5, 0, G4 + 1, MIB2, HVA_BASE, 2 },
		  -EINVAL,
		  "guest_phys_addr 0x100000001 is not a multiple of 4096" },
		{ { 5, 0, G4, MIB2, HVA_BASE + 8, 2 },
		  -EINVAL,
		  "userspace_addr 0x7f0000000008 is not a multiple of 4096" },
		{ { 5, 0, G4, MIB2, 1ull << 47, 2 },
		  -EINVAL,
		  "userspace_addr + memory_size ends above user space "
		  "(access_ok())" },
		{ { 5, 0, G4, 8192, (1ull << 47) - 4096, 2 },
		  -EINVAL,
		  "userspace_addr + memory_size ends above user space "
		  "(access_ok())" },
		{ { NXSIM_USER_MEM_SLOTS, 0, G4, MIB2, HVA_BASE, 2 },
		  -EINVAL,
		  "slot id 32764 is not below 32764" },
		{ { 2u << 16, 0, G4, MIB2, HVA_BASE, 2 },
		  -EINVAL,
		  "address space 2 (slot >> 16) is not 0 or 1 (SMM)" },
		{ { 5, 0, ~4095ull, 8192, HVA_BASE, 2 },
		  -EINVAL,
		  "guest_phys_addr + memory_size wraps around" },
		{ { 5, 0, 0, 1ull << 43, 4096, 2 },
		  -EINVAL,
		  "memory_size is more than KVM_MEM_MAX_NR_PAGES pages" },
		{ { 5, 0, G4, MIB2, HVA_BASE, 4 },
		  -EINVAL,
		  "host_level 4 is not a page level (0 to 3)" },
		{ { 5, 0, G4, MIB2, HVA_BASE, -1 },
		  -EINVAL,
		  "host_level -1 is not a page level (0 to 3)" },
		{ { 5, 0, G4, 0, HVA_BASE, 2 }, -EINVAL, "" }, /* delete none */
		{ { 6, 0, 0, MIB2, HVA_BASE, 2 }, -EEXIST, "" }, /* overlaps 1 */
		{ { 6, 0, MIB2 - 4096, 8192, HVA_BASE, 2 }, -EEXIST, "" },
		{ { 1, 0, 0, 2 * MIB2, HVA_BASE, 2 }, -EINVAL, "" }, /* resize */
		{ { 1, 0, 0, MIB2, HVA_BASE + MIB2, 2 }, -EINVAL, "" }, /* hva */
		{ { 1, NXSIM_MEM_READONLY, 0, MIB2, HVA_BASE, 2 }, -EINVAL, "" },
		/* beyond kvm_mmu_max_gfn() (MAXPHYADDR 46) */
		{ { 7, 0, 1ull << 46, MIB2, HVA_BASE, 2 }, -EINVAL, "" },
		{ { 7, 0, (1ull << 46) - MIB2, 2 * MIB2, HVA_BASE, 2 },
		  -EINVAL,
		  "" },
		{ { 1, 0, 0, MIB2, HVA_BASE, 2 }, 0, "" },    /* no change */
		{ { 6, 0, MIB2, MIB2, HVA_BASE, 2 }, 0, "" }, /* adjacent */
		{ { 7, 0, (1ull << 46) - MIB2, MIB2, HVA_BASE, 2 },
		  0,
		  "" }, /* top */
	};
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_memory_region base = region(1, 0, 0, MIB2, HVA_BASE, 2);
	unsigned int i;

	(void)state;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &base), 0);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		printf("# case %u\n", i);
		nxsim_error_clear();
		assert_rc(nxsim_vm_set_memory_region(e.vm, &cases[i].mr),
			  cases[i].rc);
		assert_string_equal(nxsim_error_detail(), cases[i].why);
		/* failures (and the no-op) leave the mapping alone */
		if (i < 21)
			nx_expect(e.vm, 0, 1, 0, 0);
	}
	/* like errno, a detail outlives the successful calls after it */
	assert_rc(nxsim_vm_set_memory_region(e.vm, &cases[0].mr), -EINVAL);
	assert_rc(nxsim_vm_set_memory_region(e.vm, &base), 0);
	assert_string_equal(nxsim_error_detail(), cases[0].why);
	nxsim_error_clear();
	assert_string_equal(nxsim_error_detail(), "");
	assert_rc(nxsim_vm_set_memory_region(e.vm, NULL), -EINVAL);
	nx_env_destroy(&e);
}

static struct nxsim__memslot *slot_of(struct nxsim_vm *vm, uint64_t gfn)
{
	return nxsim__gfn_to_memslot(vm->mmu, 0, gfn);
}

static void test_lpage_info(void **state)
{
	static const struct {
		uint64_t gpa, size, hva;
		int l2[4];  /* disallow of the first 2M regions */
		int l1g[2]; /* of the 1G regions */
	} cases[] = {
		/* aligned 4M: all allowed; 1G partial at both ends */
		{ G4, 2 * MIB2, HVA_BASE, { 0, 0 }, { 1 } },
		/* base gfn +4K: first and last 2M partial */
		{ G4 + 4096, 2 * MIB2, HVA_BASE + 4096, { 1, 0, 1 }, { 1 } },
		/* end unaligned only */
		{ G4, 2 * MIB2 + 4096, HVA_BASE, { 0, 0, 1 }, { 1 } },
		/* gfn/hva not congruent for 2M: everything disallowed */
		{ G4, 3 * MIB2, HVA_BASE + 4096, { 1, 1, 1 }, { 1 } },
		/* congruent for 2M, not for 1G */
		{ G4, GIB, HVA_BASE + MIB2, { 0, 0, 0, 0 }, { 1 } },
		/* a whole aligned 1G */
		{ G4, GIB, HVA_BASE, { 0, 0, 0, 0 }, { 0 } },
	};
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = nx_env(NULL, 0);
		struct nxsim__memslot *s;

		nx_slot(e.vm, 1, cases[i].gpa, cases[i].size, cases[i].hva, 2,
			0);
		s = slot_of(e.vm, cases[i].gpa >> 12);
		assert_non_null(s);
		for (j = 0; j < 4 && j < s->lpages[0]; j++)
			assert_int_equal(s->lpage_info[0][j], cases[i].l2[j]);
		assert_int_equal(s->lpage_info[1][0], cases[i].l1g[0]);
		nx_env_destroy(&e);
	}
}

static void test_move_delete_flags(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_memory_region mr = region(1, 0, G4, MIB2, HVA_BASE, 2);
	struct nxsim_access_info info;

	(void)state;
	nx_slot(e.vm, 2, 8 * GIB, MIB2, HVA_BASE + GIB, 2, 0);
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, G4);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 8 * GIB);
	nx_expect(e.vm, 1, 1, 0, 1);
	/* move slot 1: every mapping is zapped (KVM_X86_QUIRK_SLOT_ZAP_ALL) */
	mr.guest_phys_addr = 6 * GIB;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, G4);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 6 * GIB);
	assert_int_equal(info.level, 2);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, 8 * GIB);
	nx_expect(e.vm, 0, 2, 0, 0);
	/* read-only slot with dirty logging: apply_flags does nothing */
	nx_slot(e.vm, 3, 10 * GIB, MIB2, HVA_BASE + 2 * GIB, 2,
		NXSIM_MEM_READONLY);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, 10 * GIB);
	nx_slot(e.vm, 3, 10 * GIB, MIB2, HVA_BASE + 2 * GIB, 2,
		NXSIM_MEM_READONLY | NXSIM_MEM_LOG_DIRTY_PAGES);
	nx_expect(e.vm, 0, 3, 0, 0);
	/* delete slot 2: all gone */
	mr = region(2, 0, 8 * GIB, 0, 0, 0);
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 8 * GIB);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), -EINVAL);
	nx_env_destroy(&e);
}

static void test_host_level(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_access_info info;

	(void)state;
	nx_slot(e.vm, 1, GIB, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G, 0);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2, 0), -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2, 4), -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 2, 0, MIB2, 2), -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1 | 2u << 16, 0, MIB2, 2),
		  -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, 0, 2), -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, GIB, MIB2, 2), -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, GIB - 4096, 8192, 2),
		  -EINVAL);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, MIB2, GIB, 3), -EINVAL);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
	nx_expect(e.vm, 0, 0, 1, 0);
	/* the host splits one 2M of the 1G: leaves zapped, 2M elsewhere */
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, MIB2, 4096, 1), 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
	assert_int_equal(info.level, 2);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + MIB2);
	assert_int_equal(info.level, 1);
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, GIB, 3), 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	/* the PD (not flagged) is replaced by a 1G leaf */
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
	assert_int_equal(info.level, 3);
	nx_expect(e.vm, 0, 0, 1, 0);
	nx_env_destroy(&e);
}

/*
 * gfn and hva not congruent: the hva lies 1 MiB into its 2 MiB chunk, so
 * the chunks cover slot pages [0, 256), [256, 768) and [768, 1024).  A
 * change zaps the pages of its hva chunk (hva_to_gfn_memslot()), not a
 * 2 MiB-aligned run of gfns.
 */
static void test_host_level_incongruent(void **state)
{
	struct nx_env e = nx_env("6.6", 0);
	struct nxsim_access_info info;
	uint64_t gpa = GIB, off[3] = { 0, 300 * 4096, 768 * 4096 };
	unsigned int i;

	(void)state;
	nx_slot(e.vm, 1, gpa, 2 * MIB2, HVA_BASE + MIB2 / 2, NXSIM_PG_LEVEL_4K,
		0);
	for (i = 0; i < 3; i++)
		nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[i]);
	nx_expect(e.vm, 3, 0, 0, 0);
	/* chunk 0: page 0 only; page 300 stays mapped */
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, 4096, NXSIM_PG_LEVEL_2M),
		  0);
	nx_expect(e.vm, 2, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[1]);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[0]);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	nx_expect(e.vm, 3, 0, 0, 0);
	/* chunk 1, from a page of its first half: page 300 only */
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 256 * 4096, 4096,
					  NXSIM_PG_LEVEL_4K),
		  0);
	nx_expect(e.vm, 2, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[0]);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[2]);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	/* chunk 2, cut at the slot's end: page 768 only */
	assert_rc(nxsim_vm_set_host_level(e.vm, 1, 1023 * 4096, 4096,
					  NXSIM_PG_LEVEL_2M),
		  0);
	nx_expect(e.vm, 1, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[0]);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, gpa + off[2]);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	nx_expect(e.vm, 2, 0, 0, 0);
	nx_env_destroy(&e);
}

/* ---- allocation failure walks ---- */

struct walk {
	struct nx_env e;
	struct nxsim_memory_region mr;
	enum nxsim_access_kind kind;
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

	return nxsim_vcpu_access(w->e.vcpu, w->kind, w->gpa, NULL);
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

static void test_alloc_failures_walk(void **state)
{
	struct walk w = { .e = nx_env(NULL, 0) };
	unsigned int n;

	(void)state;
	/* create a slot: struct, host levels, two lpage_info arrays */
	w.mr = region(1, 0, GIB, GIB, HVA_BASE, 3);
	walk_start(&w);
	n = test_alloc_failures(op_region, NULL, same, &w);
	assert_int_equal(n, 4);
	/* first fault: root, PDPT, PD, PT and the frame table */
	w.kind = NXSIM_ACCESS_EXEC;
	w.gpa = GIB + 4096;
	walk_start(&w);
	n = test_alloc_failures(op_access, NULL, same, &w);
	assert_true(n >= 5);
	nx_expect(w.e.vm, 1, 0, 0, 2);
	/* exec split of an existing 2M leaf: the page comes from the cache
	 * the read topped up (mmu_topup_memory_caches()), so no allocation */
	w.gpa = GIB + 7 * MIB2;
	nx_access(w.e.vcpu, NXSIM_ACCESS_READ, w.gpa);
	walk_start(&w);
	n = test_alloc_failures(op_access, NULL, same, &w);
	assert_int_equal(n, 0);
	nx_expect(w.e.vm, 513, 0, 0, 3);
	/* move the slot */
	w.mr.guest_phys_addr = 2 * GIB;
	walk_start(&w);
	n = test_alloc_failures(op_region, NULL, same, &w);
	assert_int_equal(n, 4);
	nx_expect(w.e.vm, 0, 0, 0, 0);
	/* an access that hits allocates nothing */
	w.kind = NXSIM_ACCESS_READ;
	w.gpa = 2 * GIB;
	assert_rc(op_access(&w), 0);
	walk_start(&w);
	assert_int_equal(test_alloc_failures(op_access, NULL, same, &w), 0);
	nx_env_destroy(&w.e);
}

/*
 * Page-table pages freed by zaps are reserved for the VM's next topups
 * once their RCU grace period is over (nxsim__mmu_rcu_barrier() waits for
 * it): a topup of the vCPU's cache takes them before it allocates, a
 * failed one puts back what it took, and the reserve keeps at most
 * NXSIM__SP_RESERVE_MAX pages.
 */
static void test_alloc_failures_reserve(void **state)
{
	struct walk w = { .e = nx_env(NULL, 0) };
	struct nxsim__vm_mmu *mmu = w.e.vm->mmu;
	uint64_t live;
	unsigned int i;

	(void)state;
	nx_slot(w.e.vm, 1, GIB, GIB, HVA_BASE, 2, 0);
	nx_slot(w.e.vm, 2, 512 * GIB, 64 * GIB, HVA_BASE + 64 * GIB, 2, 0);
	/* root, PDPT, PD, PT from five topped-up pages; the PT is tracked */
	nx_access(w.e.vcpu, NXSIM_ACCESS_EXEC, 512 * GIB);
	nx_expect(w.e.vm, 1, 0, 0, 1);
	assert_int_equal(w.e.vcpu->mmu.mmu_cache.nobjs, 1);
	/* recovery zaps the PT: its page is reserved after a grace period */
	nxsim__mmu_recover_nx_huge_pages(w.e.vm->mmu);
	nx_expect(w.e.vm, 0, 0, 0, 0);
	nxsim__mmu_rcu_barrier();
	assert_int_equal(mmu->nr_reserve, 1);
	/* topup to 4: the reserved page, then two allocated (table, header) */
	w.kind = NXSIM_ACCESS_READ;
	w.gpa = GIB;
	walk_start(&w);
	assert_int_equal(test_alloc_failures(op_access, NULL, same, &w), 4);
	nx_expect(w.e.vm, 0, 1, 0, 0);
	assert_int_equal(mmu->nr_reserve, 0);
	assert_int_equal(w.e.vcpu->mmu.mmu_cache.nobjs, 2);
	/* zap all: root and both PDPTs and PDs reserved; the new root and
	 * walk need none allocated */
	assert_rc(nxsim_param_set(w.e.host, "nx_huge_pages", "N"), 0);
	nxsim__mmu_rcu_barrier();
	assert_int_equal(mmu->nr_reserve, 5);
	walk_start(&w);
	assert_int_equal(test_alloc_failures(op_access, NULL, same, &w), 0);
	assert_int_equal(mmu->nr_reserve, 2);
	/* root, 2 PDPTs, 65 PDs: the zap keeps 40, frees 28 (2 blocks each) */
	for (i = 0; i < 64; i++)
		nx_access(w.e.vcpu, NXSIM_ACCESS_READ, 512 * GIB + i * GIB);
	nx_expect(w.e.vm, 0, 65, 0, 0);
	live = test_live_allocs();
	assert_int_equal(nxsim_vm_nr_mmu_pages(w.e.vm), 68);
	assert_rc(nxsim_param_set(w.e.host, "nx_huge_pages", "Y"), 0);
	nxsim__mmu_rcu_barrier();
	assert_int_equal(mmu->nr_reserve, NXSIM__SP_RESERVE_MAX);
	assert_int_equal(live - test_live_allocs(),
			 2 * (68 - NXSIM__SP_RESERVE_MAX));
	nx_env_destroy(&w.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_lpage_info),
		cmocka_unit_test(test_move_delete_flags),
		cmocka_unit_test(test_host_level),
		cmocka_unit_test(test_host_level_incongruent),
		cmocka_unit_test(test_alloc_failures_walk),
		cmocka_unit_test(test_alloc_failures_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
