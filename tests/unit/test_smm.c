// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address space 1 (SMM): slots set with (1 << 16) | id, ids and overlaps
 * per space, a vCPU in SMM (KVM_SET_VCPU_EVENTS) faulting through its own
 * root (role.smm) and slots, each space's memslots generation, the
 * dirty-logging and MMU-notifier walks confined to the slot's space, and
 * NX recovery's memslot lookup by sp->role.smm (817fa998362d) with the
 * bug switch that undoes it; the legacy direct MMU's SMM root
 * (kvm.tdp_mmu=0), and SMM refused with TDP off.
 */
#include <stdio.h>
#include <string.h>

#include "common/test_util.h"
#include "mmu_unit.h"

#define AS1 (1u << 16)

/* nxsim_vcpu_set_smm(): the previous state. */
static bool set_smm(struct nxsim_vcpu *vcpu, bool smm)
{
	bool was;

	assert_rc(nxsim_vcpu_set_smm(vcpu, smm, &was), 0);
	return was;
}
#define SMRAM 0x40000000ull /* an SMM-only gpa: 1 GiB */

static void region(struct nxsim_vm *vm, uint32_t slot, uint64_t gpa,
		   uint64_t hva, uint32_t flags, int expect)
{
	struct nxsim_memory_region mr = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = MIB2,
		.userspace_addr = hva,
		.host_level = NXSIM_PG_LEVEL_2M,
	};

	assert_rc(nxsim_vm_set_memory_region(vm, &mr), expect);
}

/* The 2M leaf of the current root of @as_id at @gpa. */
static uint64_t leaf_2m(struct nxsim__vm_mmu *mmu, int as_id, uint64_t gpa)
{
	struct nxsim__mmu_page *sp = mmu->root[as_id];
	int l;

	assert_non_null(sp);
	for (l = mmu->root_level; l > NXSIM_PG_LEVEL_2M; l--)
		sp = spte_to_child_sp(mmu, sp->spt[spte_index(gpa >> 12, l)]);
	return sp->spt[spte_index(gpa >> 12, NXSIM_PG_LEVEL_2M)];
}

static void test_smm_address_spaces(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_access_info info;
	struct nxsim_vcpu *smm;
	int64_t pages;

	(void)state;
	/* the same id and gpa in both spaces; overlaps count per space */
	region(e.vm, 1, 0, HVA_BASE, 0, 0);
	region(e.vm, AS1 | 1, 0, HVA_BASE + GIB, 0, 0);
	region(e.vm, AS1 | 2, 0, HVA_BASE + 2 * GIB, 0, -EEXIST);
	region(e.vm, AS1 | 2, SMRAM, HVA_BASE + 2 * GIB, 0, 0);
	region(e.vm, 2u << 16 | 3, SMRAM, HVA_BASE, 0, -EINVAL);
	/* space 0 stepped once (0 -> 2), space 1 twice (1 -> 5) */
	assert_int_equal(mmu->memslots_gen[0], 2);
	assert_int_equal(mmu->memslots_gen[1], 5);

	assert_rc(nxsim_vcpu_create(e.vm, 1, &smm), 0);
	assert_int_equal(set_smm(smm, true), 0);
	assert_int_equal(set_smm(smm, true), 1);

	/* outside SMM: space 0's slot, the normal root */
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	assert_null(mmu->root[1]);
	pages = nxsim_vm_nr_mmu_pages(e.vm);
	/* in SMM: space 1's slot at the same gpa, a root of its own */
	info = nx_access(smm, NXSIM_ACCESS_READ, 0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(kvm_mmu_page_as_id(mmu->root[1]), 1);
	assert_int_equal(kvm_mmu_page_as_id(mmu->root[0]), 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), pages + 3);
	assert_int_equal(spte_to_pfn(leaf_2m(mmu, 0, 0)), HVA_BASE >> 12);
	assert_int_equal(spte_to_pfn(leaf_2m(mmu, 1, 0)),
			 (HVA_BASE + GIB) >> 12);
	/* the kernel's stats count a gfn mapped in both roots twice */
	nx_expect(e.vm, 0, 2, 0, 0);

	/* SMRAM exists only in SMM: MMIO outside */
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, SMRAM);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	info = nx_access(smm, NXSIM_ACCESS_READ, SMRAM);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	nx_expect(e.vm, 0, 3, 0, 0);
	/* the MMIO SPTE of space 0 carries space 0's generation */
	assert_int_equal(nxsim__get_mmio_spte_generation(
				 *unit_sptep(mmu, SMRAM, NXSIM_PG_LEVEL_4K)),
			 2);

	/*
	 * dirty logging on space 1's slot 1: the eager split (default on)
	 * and the write protection walk the SMM root only
	 */
	region(e.vm, AS1 | 1, 0, HVA_BASE + GIB, NXSIM_MEM_LOG_DIRTY_PAGES, 0);
	nx_expect(e.vm, 512, 2, 0, 0);
	assert_true(is_large_pte(leaf_2m(mmu, 0, 0)));
	assert_true(is_writable_pte(leaf_2m(mmu, 0, 0)));
	info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	/* (EPT with PML: the 4K leaves lost D, not W) */
	info = nx_access(smm, NXSIM_ACCESS_WRITE, 0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	nx_expect(e.vm, 512, 2, 0, 0);
	/* the host splits space 1's SMRAM: only the SMM root loses a leaf */
	assert_rc(nxsim_vm_set_host_level(e.vm, AS1 | 2, 0, MIB2, 1), 0);
	nx_expect(e.vm, 512, 1, 0, 0);
	assert_int_equal(spte_to_pfn(leaf_2m(mmu, 0, 0)), HVA_BASE >> 12);

	/* a flip of nx_huge_pages zaps the roots of both spaces */
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	assert_null(mmu->root[0]);
	assert_null(mmu->root[1]);
	nx_expect(e.vm, 0, 0, 0, 0);
	assert_int_equal(set_smm(smm, false), 1);
	assert_rc(nxsim_vcpu_set_smm(NULL, true, NULL), -EINVAL);
	assert_rc(nxsim_vcpu_set_smm(smm, false, NULL), 0);
	info = nx_access(smm, NXSIM_ACCESS_READ, SMRAM);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	nx_env_destroy(&e);
}

/*
 * The legacy direct MMU (kvm.tdp_mmu=0): the SMM root is a shadow page of
 * its own role (role.smm), found apart from space 0's in the gfn hash,
 * its leaves on the rmaps of space 1's slot.
 */
static void test_smm_legacy_direct_mmu(void **state)
{
	struct nxsim_host_config cfg = { .cpu.no_tdp_mmu = true };
	struct nx_env e = nx_env_config(&cfg);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_access_info info;

	(void)state;
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "on"), 0);
	region(e.vm, 1, 0, HVA_BASE, 0, 0);
	region(e.vm, AS1 | 1, 0, HVA_BASE + GIB, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	assert_int_equal(set_smm(e.vcpu, true), 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	assert_false(mmu->root[1]->tdp_mmu_page);
	assert_int_equal(mmu->root[1]->role.smm, 1);
	assert_int_equal(mmu->root[0]->role.smm, 0);
	assert_int_equal(spte_to_pfn(leaf_2m(mmu, 1, 0)),
			 (HVA_BASE + GIB) >> 12);
	/* 2 roots + 2 tables each down to the 2M level */
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm),
			 2 * (mmu->root_level - 1));
	nx_expect(e.vm, 0, 2, 0, 0);
	/* a host remap of space 1's slot zaps through its rmaps only */
	assert_rc(nxsim_vm_set_host_level(e.vm, AS1 | 1, 0, MIB2, 1), 0);
	nx_expect(e.vm, 0, 1, 0, 0);
	assert_int_equal(spte_to_pfn(leaf_2m(mmu, 0, 0)), HVA_BASE >> 12);
	/*
	 * The fast zap leaves both held roots invalid and counted
	 * (__kvm_mmu_prepare_zap_page() with root_count > 0); the next
	 * access frees them (kvm_mmu_free_obsolete_roots()) and loads a new
	 * root of its space.
	 */
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	assert_true(mmu->root[0]->role.invalid);
	assert_true(mmu->root[1]->role.invalid);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 2);
	nx_expect(e.vm, 0, 0, 0, 0);
	/* in SMM: space 1, whose host mapping is 4K since the remap */
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	assert_null(mmu->root[0]);
	assert_false(mmu->root[1]->role.invalid);
	nx_expect(e.vm, 8, 0, 0, 0);
	nx_env_destroy(&e);
}

/*
 * A vCPU with a TLB: what it cached from space 0's root is not used in
 * SMM (kvm_mmu_reset_context(), a root reload), and the access walks the
 * SMM root.
 */
static void test_smm_vcpu_tlb(void **state)
{
	struct nx_env e = { .host = test_host(NULL, true, NULL, 0) };
	struct nxsim_vcpu_tlb_config cfg;
	struct nxsim_access_info info;
	struct nxsim_vcpu_stats st;

	(void)state;
	nxsim_vcpu_tlb_config_default(&cfg);
	assert_rc(nxsim_vm_create(e.host, &e.vm), 0);
	assert_rc(nxsim_vm_set_vcpu_tlb(e.vm, &cfg), 0);
	assert_rc(nxsim_vcpu_create(e.vm, 0, &e.vcpu), 0);
	region(e.vm, 1, 0, HVA_BASE, 0, 0);
	region(e.vm, AS1 | 1, 0, HVA_BASE + GIB, 0, 0);
	assert_rc(nxsim_vcpu_access_guest(e.vcpu, NXSIM_ACCESS_READ, 0, 2,
					  &info),
		  0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_rc(nxsim_vcpu_access_guest(e.vcpu, NXSIM_ACCESS_READ, 0, 2,
					  &info),
		  0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	assert_int_equal(set_smm(e.vcpu, true), 0);
	/* the same state again changes nothing: no reload */
	assert_int_equal(set_smm(e.vcpu, true), 1);
	assert_rc(nxsim_vcpu_stats(e.vcpu, &st), 0);
	assert_int_equal(st.root_reloads, 1);
	assert_rc(nxsim_vcpu_access_guest(e.vcpu, NXSIM_ACCESS_READ, 0, 2,
					  &info),
		  0);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	nx_expect(e.vm, 0, 2, 0, 0);
	nx_env_destroy(&e);
}

/* TDP off: shadow paging is modelled in space 0 only. */
static void test_smm_no_tdp(void **state)
{
	struct nxsim_host_config cfg = { .cpu.no_tdp = true };
	struct nx_env e = nx_env_config(&cfg);
	bool was = true;

	(void)state;
	assert_rc(nxsim_vcpu_set_smm(e.vcpu, true, &was), -EOPNOTSUPP);
	assert_true(was);
	assert_false(e.vcpu->mmu.smm);
	nx_env_destroy(&e);
}

static void print_event(void *ctx, const char *text)
{
	unsigned int *n = ctx;

	printf("# violation: %s\n", text);
	assert_non_null(strstr(text, "WARN_ON_ONCE(!slot)"));
	assert_non_null(strstr(text, "gfn 0x40000 level 1 (SMM)"));
	(*n)++;
}

/*
 * An SMM-only gfn split by an exec fault while some slot (in space 0) is
 * dirty-logged; one recovery pass.  Return: the WARNs the checker saw.
 */
static unsigned int smm_recovery(const char *profile, uint64_t bugs)
{
	struct nx_env e = nx_env(profile, bugs);
	struct nxsim_mmu_counters c;
	struct nxsim_access_info info;
	unsigned int warns = 0;
	int64_t rc;

	region(e.vm, 1, 0, HVA_BASE, NXSIM_MEM_LOG_DIRTY_PAGES, 0);
	region(e.vm, AS1 | 2, SMRAM, HVA_BASE + GIB, 0, 0);
	assert_int_equal(set_smm(e.vcpu, true), 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, SMRAM);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	assert_int_equal(info.req_level, NXSIM_PG_LEVEL_2M);
	nx_expect(e.vm, 1, 0, 0, 1);

	nxsim__mmu_recover_nx_huge_pages(unit_mmu(&e));
	/* not dirty-logged in its own space: zapped either way */
	assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
	assert_int_equal(c.recovery_zapped, 1);
	assert_int_equal(c.recovery_unaccounted, 0);
	assert_int_equal(nx_stat(e.vm, "pages_4k"), 0);
	assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 0);
	rc = nxsim_vm_check(e.vm, print_event, &warns);
	assert_int_equal(rc, warns);
	nx_env_destroy(&e);
	return warns;
}

static void test_smm_recovery_slot_lookup(void **state)
{
	(void)state;
	/* fixed (6.4 on): looked up in space 1, found, no WARN */
	assert_int_equal(smm_recovery(NULL, 0), 0);
	assert_int_equal(smm_recovery("6.6", 0), 0);
	/* bug 817fa998362d undone: space 0 has no slot there */
	assert_int_equal(smm_recovery(NULL, NXSIM_BUG_SMM_SLOT_LOOKUP), 1);
	assert_int_equal(smm_recovery("6.6", NXSIM_BUG_SMM_SLOT_LOOKUP), 1);
	/* 6.1 looks no slot up in recovery (before eb298605705a) */
	assert_int_equal(smm_recovery("6.1", NXSIM_BUG_SMM_SLOT_LOOKUP), 0);
}

/* Slot changes in space 1 fail cleanly when allocations fail. */
struct walk {
	struct nx_env e;
	struct nxsim_memory_region mr;
	int64_t pages;
	uint64_t gen;
};

static int op_region(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vm_set_memory_region(w->e.vm, &w->mr);
}

static int op_access(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vcpu_access(w->e.vcpu, NXSIM_ACCESS_EXEC, SMRAM, NULL);
}

static void same(void *ctx)
{
	struct walk *w = ctx;
	struct nxsim__vm_mmu *mmu = unit_mmu(&w->e);

	assert_int_equal(nxsim_vm_nr_mmu_pages(w->e.vm), w->pages);
	assert_int_equal(mmu->memslots_gen[1], w->gen);
	nx_check_ok(w->e.vm);
}

static void test_smm_alloc_failures(void **state)
{
	struct walk w = { .e = nx_env(NULL, 0) };

	(void)state;
	w.mr = (struct nxsim_memory_region){
		.slot = AS1 | 2,
		.guest_phys_addr = SMRAM,
		.memory_size = MIB2,
		.userspace_addr = HVA_BASE,
		.host_level = NXSIM_PG_LEVEL_2M,
	};
	w.pages = nxsim_vm_nr_mmu_pages(w.e.vm);
	w.gen = 1;
	/* the slot, its host levels, two lpage_info arrays */
	assert_int_equal(test_alloc_failures(op_region, NULL, same, &w), 4);
	assert_non_null(nxsim__gfn_to_memslot(unit_mmu(&w.e), 1, SMRAM >> 12));
	/* the SMM root and its tables */
	w.gen = 3;
	assert_int_equal(set_smm(w.e.vcpu, true), 0);
	assert_true(test_alloc_failures(op_access, NULL, same, &w) >= 5);
	nx_expect(w.e.vm, 1, 0, 0, 1);
	nx_env_destroy(&w.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smm_address_spaces),
		cmocka_unit_test(test_smm_recovery_slot_lookup),
		cmocka_unit_test(test_smm_alloc_failures),
		cmocka_unit_test(test_smm_legacy_direct_mmu),
		cmocka_unit_test(test_smm_vcpu_tlb),
		cmocka_unit_test(test_smm_no_tdp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
