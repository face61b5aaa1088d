// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's stats by their names (nxsim_vm_kstats(),
 * nxsim_vcpu_kstats()): 6.1's kvm_vm_stats_desc / kvm_vcpu_stats_desc
 * order, the unmodelled ones marked, and the counts the kernel makes in
 * kvm_mmu_do_page_fault() (pf_taken, pf_fixed, pf_emulate),
 * kvm_inject_page_fault() (pf_guest), kvm_mmu_invlpg() (invlpg, only
 * where INVLPG is intercepted: TDP off), __kvm_mmu_prepare_zap_page()
 * (mmu_shadow_zapped), kvm_mmu_find_shadow_page() (mmu_cache_miss) and
 * kvm_mmu_pte_write() (mmu_pte_write, mmu_pde_zapped).  The values were
 * checked against a 6.1 kernel (tests/kernel/, tools/kcheck).
 */
#include <errno.h>
#include <string.h>

#include "common/test_util.h"

static struct nxsim_kstat st[64];

static uint64_t kstat(int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(st[i].name, name)) {
			assert_true(st[i].modelled);
			return st[i].value;
		}
	fail_msg("no kstat %s", name);
	return 0;
}

static bool modelled(int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(st[i].name, name))
			return st[i].modelled;
	fail_msg("no kstat %s", name);
	return false;
}

struct env {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
};

static struct env env(bool no_tdp)
{
	struct nxsim_host_config cfg = {
		.cpu = { .amd = true, .no_tdp = no_tdp },
		.profile = "6.1",
		.cmdline = "kvm.nx_huge_pages=force",
	};
	struct nxsim_memory_region mr = {
		.slot = 1,
		.guest_phys_addr = 0x40000000,
		.memory_size = 0x400000,
		.userspace_addr = 2ull << 32,
		.host_level = NXSIM_PG_LEVEL_2M,
	};
	struct env e;

	assert_rc(nxsim_host_create(&cfg, &e.host), 0);
	assert_rc(nxsim_vm_create(e.host, &e.vm), 0);
	assert_rc(nxsim_vcpu_create(e.vm, 0, &e.vcpu), 0);
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	return e;
}

static void access_ok(struct env *e, enum nxsim_access_kind kind, uint64_t addr)
{
	assert_rc(nxsim_vcpu_access(e->vcpu, kind, addr, NULL), 0);
}

static void put(struct nxsim_vm *vm, uint64_t gpa, uint64_t v)
{
	assert_rc(nxsim_guest_write(vm, gpa, &v, sizeof(v)), 0);
}

static void test_kstats_names(void **state)
{
	struct env e = env(false);
	int n;

	(void)state;
	n = nxsim_vm_kstats(e.vm, NULL, 0);
	assert_int_equal(n, 15);
	assert_int_equal(nxsim_vm_kstats(e.vm, st, 2), 15);
	assert_string_equal(st[0].name, "remote_tlb_flush");
	assert_string_equal(st[1].name, "remote_tlb_flush_requests");
	assert_rc(nxsim_vm_kstats(e.vm, NULL, 1), -EINVAL);
	assert_rc(nxsim_vm_kstats(NULL, st, 64), -EINVAL);
	n = nxsim_vm_kstats(e.vm, st, 64);
	assert_string_equal(st[9].name, "pages_4k");
	assert_string_equal(st[14].name, "max_mmu_page_hash_collisions");
	assert_false(modelled(n, "mmu_recycled"));
	assert_false(modelled(n, "max_mmu_rmap_size"));
	assert_int_equal(kstat(n, "remote_tlb_flush"), 0);

	n = nxsim_vcpu_kstats(e.vcpu, st, 64);
	assert_int_equal(n, 42);
	assert_string_equal(st[0].name, "halt_successful_poll");
	assert_string_equal(st[8].name, "pf_taken");
	assert_string_equal(st[n - 1].name, "notify_window_exits");
	assert_false(modelled(n, "exits"));
	assert_false(modelled(n, "tlb_flush"));
	assert_int_equal(kstat(n, "guest_mode"), 0);
	assert_rc(nxsim_vcpu_kstats(NULL, st, 64), -EINVAL);
	assert_rc(nxsim_vcpu_kstats(e.vcpu, NULL, 3), -EINVAL);
	assert_rc(nxsim_host_destroy(e.host), -EBUSY);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_vm_kstats(e.vm, st, 64), -EBADF);
	assert_rc(nxsim_vcpu_kstats(e.vcpu, st, 64), -EBADF);
	nxsim_vm_release(e.vm);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

/* TDP: faults, an MMIO SPTE, a spurious-free emulation, no invlpg */
static void test_kstats_tdp_faults(void **state)
{
	struct env e = env(false);
	int n;

	(void)state;
	access_ok(&e, NXSIM_ACCESS_READ, 0x40000000); /* FIXED, 2M */
	access_ok(&e, NXSIM_ACCESS_EXEC, 0x40001000); /* FIXED, split */
	access_ok(&e, NXSIM_ACCESS_READ, 0x40001000); /* a hit */
	access_ok(&e, NXSIM_ACCESS_READ, 0x60000000); /* MMIO SPTE */
	access_ok(&e, NXSIM_ACCESS_READ, 0x60000000); /* MMIO exit only */
	assert_rc(nxsim_guest_invlpg(e.vcpu, 0x40000000), 0);
	n = nxsim_vcpu_kstats(e.vcpu, st, 64);
	assert_int_equal(kstat(n, "pf_taken"), 3);
	assert_int_equal(kstat(n, "pf_fixed"), 2);
	assert_int_equal(kstat(n, "pf_emulate"), 1);
	assert_int_equal(kstat(n, "pf_mmio_spte_created"), 1);
	assert_int_equal(kstat(n, "pf_spurious"), 0);
	assert_int_equal(kstat(n, "invlpg"), 0);
	n = nxsim_vm_kstats(e.vm, st, 64);
	assert_int_equal(kstat(n, "pages_4k"), 1);
	assert_int_equal(kstat(n, "nx_lpage_splits"), 1);
	/* the TDP MMU keeps no shadow pages */
	assert_int_equal(kstat(n, "mmu_cache_miss"), 0);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	nxsim_vm_release(e.vm);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

/*
 * Shadow paging, a 64-bit guest: its tables are shadowed (a cache miss a
 * page), a store to one is emulated (mmu_pte_write, and mmu_pde_zapped
 * for the PD entry it rewrites), a walk that fails is the guest's fault,
 * INVLPG is intercepted, and a flip of nx_huge_pages zaps every page.
 */
static void test_kstats_shadow(void **state)
{
	struct env e = env(true);
	struct nxsim_memory_region mr = {
		.slot = 0,
		.memory_size = 0x10000,
		.userspace_addr = 1ull << 32,
		.host_level = NXSIM_PG_LEVEL_4K,
	};
	struct nxsim_guest_paging p = {
		.cr0_pg = true,
		.cr0_wp = true,
		.cr4_pae = true,
		.efer_lma = true,
		.efer_nxe = true,
		.cr3 = 0x1000,
	};
	uint64_t zapped;
	int n;

	(void)state;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	/* PML4 0x1000 -> PDPT 0x2000 [1] -> PD 0x3000: one 2M page */
	put(e.vm, 0x1000, 0x2007);
	put(e.vm, 0x2008, 0x3007);
	put(e.vm, 0x3000, 0x40000087);
	assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
	access_ok(&e, NXSIM_ACCESS_READ, 0x40000000);
	access_ok(&e, NXSIM_ACCESS_READ, 0x40400000); /* not mapped */
	n = nxsim_vm_kstats(e.vm, st, 64);
	/* the root, the PDPT and the PD shadowed */
	assert_int_equal(kstat(n, "mmu_cache_miss"), 3);
	assert_int_equal(kstat(n, "pages_2m"), 1);
	n = nxsim_vcpu_kstats(e.vcpu, st, 64);
	assert_int_equal(kstat(n, "pf_taken"), 2);
	assert_int_equal(kstat(n, "pf_fixed"), 1);
	assert_int_equal(kstat(n, "pf_guest"), 1);

	/* the guest rewrites its PD entry: trapped, the 2M SPTE dropped */
	assert_rc(nxsim_guest_write_pte(e.vcpu, 0x3000, 0x40200087, 8), 0);
	n = nxsim_vm_kstats(e.vm, st, 64);
	assert_int_equal(kstat(n, "mmu_pte_write"), 1);
	assert_int_equal(kstat(n, "mmu_pde_zapped"), 1);
	assert_int_equal(kstat(n, "mmu_flooded"), 0);
	assert_int_equal(kstat(n, "pages_2m"), 0);
	assert_rc(nxsim_guest_invlpg(e.vcpu, 0x40000000), 0);
	n = nxsim_vcpu_kstats(e.vcpu, st, 64);
	assert_int_equal(kstat(n, "invlpg"), 1);

	n = nxsim_vm_kstats(e.vm, st, 64);
	assert_int_equal(kstat(n, "mmu_shadow_zapped"), 0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	n = nxsim_vm_kstats(e.vm, st, 64);
	zapped = kstat(n, "mmu_shadow_zapped");
	assert_int_equal(zapped, 3);
	assert_true(kstat(n, "remote_tlb_flush_requests") >= 1);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	nxsim_vm_release(e.vm);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kstats_names),
		cmocka_unit_test(test_kstats_tdp_faults),
		cmocka_unit_test(test_kstats_shadow),
	};

	return cmocka_run_group_tests_name("kstats", tests, NULL, NULL);
}
