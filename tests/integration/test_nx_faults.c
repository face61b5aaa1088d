// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fault path with the NX-huge-page mitigation (docs/mmu.md):
 * 1G mappings split over two levels, host-4K backing (flagged, not
 * tracked), misaligned and incongruent slots, dirty logging on and off
 * per profile and the W/D bits it leaves per format, MMIO and read-only
 * slots, the parameter flip that zaps everything, and 5-level / NPT hosts.
 * Stats and the checker after every step.
 */
#include <string.h>

#include "nx_test.h"

struct grep {
	const char *what;
	int count;
};

static void grep_line(void *ctx, const char *line)
{
	struct grep *g = ctx;

	if (strstr(line, g->what))
		g->count++;
}

/* Lines of the dump that contain @what. */
static int dump_count(struct nxsim_vm *vm, const char *what)
{
	struct grep g = { .what = what };

	assert_true(nxsim_vm_dump(vm, grep_line, &g) > 0);
	return g.count;
}

static void test_1g_exec(void **state)
{
	static const struct {
		const char *profile;
		uint64_t p4k, p2m; /* after the exec in a 1G mapping */
	} cases[] = {
		{ "6.18", 512, 511 }, /* 1G -> 512 x 2M, one -> 512 x 4K */
		{ "6.6", 512, 511 },
		{ "6.1", 1, 0 }, /* 1G zapped, one 4K page mapped */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = nx_env(cases[i].profile, 0);
		struct nxsim_access_info info;

		nx_slot(e.vm, 1, GIB, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G, 0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + 12345);
		assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_1G);
		nx_expect(e.vm, 0, 0, 1, 0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC,
				 GIB + 5 * MIB2 + 3 * 4096);
		assert_int_equal(info.req_level, NXSIM_PG_LEVEL_1G);
		assert_int_equal(info.goal_level, NXSIM_PG_LEVEL_4K);
		assert_true(info.huge_page_disallowed);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		/* PD (instead of 1G) and PT (instead of 2M): both tracked */
		nx_expect(e.vm, cases[i].p4k, cases[i].p2m, 0, 2);
		assert_int_equal(dump_count(e.vm, "nx_huge_page_disallowed "
						  "tracked"),
				 2);
		/* The executed page now executes without a fault. */
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC,
				 GIB + 5 * MIB2 + 3 * 4096);
		assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
		/* Exec in another 2M of the same 1G: one more tracked PT. */
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + 9 * MIB2);
		assert_int_equal(nx_stat(e.vm, "nx_lpage_splits"), 3);
		nx_check_ok(e.vm);
		nx_env_destroy(&e);
	}
}

static void test_1g_fresh_exec(void **state)
{
	struct nx_env e = nx_env(NULL, 0);

	(void)state;
	nx_slot(e.vm, 1, GIB, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB);
	/* req 1G: new PD and new PT tracked; PDPT made on the way is not */
	nx_expect(e.vm, 1, 0, 0, 2);
	/* A read elsewhere in the 1G region: the PD is flagged, so 2M. */
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + 7 * MIB2);
	nx_expect(e.vm, 1, 1, 0, 2);
	/* A read in the executed 2M region: its PT is flagged, so 4K. */
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + 8192);
	nx_expect(e.vm, 2, 1, 0, 2);
	nx_env_destroy(&e);
}

static void test_host_4k(void **state)
{
	static const char *const profiles[] = { "6.18", "6.1" };
	unsigned int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct nx_env e = nx_env(profiles[i], 0);
		struct nxsim_access_info info;
		bool tags = i == 0;

		nx_slot(e.vm, 1, 4 * GIB, 4 * MIB2, HVA_BASE, NXSIM_PG_LEVEL_4K,
			0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 4 * GIB);
		assert_int_equal(info.req_level, NXSIM_PG_LEVEL_4K);
		/* flagged (6.2 on) but never tracked: nothing to recover */
		nx_expect(e.vm, 1, 0, 0, 0);
		assert_int_equal(dump_count(e.vm, "nx_huge_page_disallowed"),
				 tags ? 3 : 0);
		assert_int_equal(dump_count(e.vm, "tracked"), 0);
		/* THP collapses the region: the notifier zaps the leaf. */
		assert_rc(nxsim_vm_set_host_level(e.vm, 1, 0, MIB2,
						  NXSIM_PG_LEVEL_2M),
			  0);
		nx_expect(e.vm, 0, 0, 0, 0);
		/* The PT stays, so the read maps 4K (3.4), on both. */
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + 4096);
		assert_int_equal(info.req_level, NXSIM_PG_LEVEL_2M);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		nx_expect(e.vm, 1, 0, 0, 0);
		/* The next 2M region was not touched: huge. */
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + MIB2);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		assert_rc(nxsim_vm_set_host_level(e.vm, 1, MIB2, MIB2,
						  NXSIM_PG_LEVEL_2M),
			  0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + MIB2);
		/* Its PT came from a read fault: unflagged, replaced (6.2)
		 * or kept (6.1, any non-leaf steps down). */
		assert_int_equal(info.level, tags ? 2 : 1);
		nx_check_ok(e.vm);
		nx_env_destroy(&e);
	}
}

static void test_misaligned(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_access_info info;
	uint64_t base = 4 * GIB + 4096;

	(void)state;
	/* base gfn not 2M aligned, hva congruent: only whole regions huge */
	nx_slot(e.vm, 1, base, 2 * MIB2, HVA_BASE + 4096, NXSIM_PG_LEVEL_2M, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, base);
	assert_int_equal(info.req_level, NXSIM_PG_LEVEL_4K);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + MIB2);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, base + 2 * MIB2 - 4096);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	/* exec in a misaligned head: req 4K, flagged only */
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, base + 8192);
	nx_expect(e.vm, 3, 1, 0, 0);
	/* exec in the huge middle region: split and tracked */
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 4 * GIB + MIB2);
	nx_expect(e.vm, 3 + 512, 0, 0, 1);
	nx_env_destroy(&e);

	/* gfn and hva not congruent: no huge page anywhere in the slot */
	e = nx_env(NULL, 0);
	nx_slot(e.vm, 1, 4 * GIB, 4 * MIB2, HVA_BASE + 4096, NXSIM_PG_LEVEL_2M,
		0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + MIB2);
	assert_int_equal(info.req_level, NXSIM_PG_LEVEL_4K);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	/* a 4K leaf allows exec: no fault */
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 4 * GIB + MIB2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 4 * GIB + MIB2 + 4096);
	nx_expect(e.vm, 2, 0, 0, 0);
	nx_env_destroy(&e);
}

static void test_dirty_logging(void **state)
{
	static const struct {
		const char *profile;
		bool amd;
		/* pages_4k after the write; pages_2m after logging off */
		uint64_t p4k_write, p2m_off;
	} cases[] = {
		{ "6.18", false, 512, 1 }, /* split; rebuilt in place */
		{ "6.18", true, 512, 1 },
		{ "6.12", false, 512, 0 }, /* split; zapped */
		{ "6.1", false, 1, 0 },	   /* zapped; zapped */
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu.amd = cases[i].amd,
			.profile = cases[i].profile,
			/* the huge leaves stay huge, write-protected */
			.cmdline = "kvm.nx_huge_pages=force "
				   "kvm.eager_page_split=0",
		};
		struct nx_env e = nx_env_config(&cfg);
		struct nxsim_access_info info;

		nx_slot(e.vm, 1, 4 * GIB, 2 * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
			0);
		nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 4 * GIB);
		nx_expect(e.vm, 0, 1, 0, 0);
		nx_slot(e.vm, 1, 4 * GIB, 2 * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
			NXSIM_MEM_LOG_DIRTY_PAGES);
		/* write-protected, still mapped: reads hit */
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB);
		assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 4 * GIB + 4096);
		assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		nx_expect(e.vm, cases[i].p4k_write, 0, 0, 0);
		/* untouched region under logging: 4K even for reads */
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + MIB2);
		assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
		nx_slot(e.vm, 1, 4 * GIB, 2 * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
			0);
		assert_int_equal(nx_stat(e.vm, "pages_2m"),
				 cases[i].p2m_off * 2);
		nx_check_ok(e.vm);
		/* huge again on the next fault either way */
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + 8192);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB + MIB2);
		nx_expect(e.vm, 0, 2, 0, 0);
		/* writes after logging: the fast path restores W */
		info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 4 * GIB);
		assert_int_equal(info.outcome, cases[i].p2m_off ?
						       NXSIM_ACCESS_FAST :
						       NXSIM_ACCESS_HIT);
		nx_env_destroy(&e);
	}
}

struct leaf_find {
	uint64_t gfn;
	uint64_t spte;
	int found;
};

static void find_leaf(void *ctx, const char *line)
{
	struct leaf_find *f = ctx;
	const char *p = strstr(line, " leaf gfn ");
	unsigned long long lo, hi, pfn, spte;

	if (!p || sscanf(p, " leaf gfn 0x%llx-0x%llx pfn 0x%llx 0x%llx", &lo,
			 &hi, &pfn, &spte) != 4)
		return;
	if (f->gfn >= lo && f->gfn <= hi) {
		f->spte = spte;
		f->found++;
	}
}

/* The dumped leaf SPTE that maps @gpa, taken apart. */
static struct nxsim_spte_bits leaf_bits(struct nxsim_vm *vm, bool amd,
					uint64_t gpa)
{
	struct leaf_find f = { .gfn = gpa >> 12 };
	struct nxsim_spte_bits b;

	assert_true(nxsim_vm_dump(vm, find_leaf, &f) > 0);
	assert_int_equal(f.found, 1);
	assert_rc(nxsim_spte_decode(amd ? NXSIM_SPTE_LEGACY : NXSIM_SPTE_EPT,
				    f.spte, &b),
		  0);
	return b;
}

/*
 * Dirty logging on (kvm_mmu_slot_apply_flags()): with PML (EPT) D is
 * cleared on every leaf, 1G and 2M too (kvm_mmu_slot_leaf_clear_dirty()),
 * and W only on huge leaves; on NPT every leaf loses W and keeps D.
 * Children split from a huge leaf later inherit its bits.
 */
static void test_dirty_logging_ad_bits(void **state)
{
	static const struct {
		const char *profile;
		bool amd;
		bool split; /* a write in the 2M leaf splits it (6.2 on) */
	} cases[] = {
		{ "6.18", false, true },
		{ "6.1", false, false },
		{ "6.18", true, true },
	};
	/* 1G, 2M and 4K host mappings, one leaf each */
	static const struct {
		uint64_t gpa, size, hva;
		int level;
	} slots[] = {
		{ 8 * GIB, GIB, HVA_BASE + GIB, NXSIM_PG_LEVEL_1G },
		{ 4 * GIB, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M },
		{ 4 * GIB + MIB2, MIB2, HVA_BASE + MIB2, NXSIM_PG_LEVEL_4K },
	};
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu.amd = cases[i].amd,
			.profile = cases[i].profile,
			/* the A/D rules of the huge leaves themselves */
			.cmdline = "kvm.nx_huge_pages=force "
				   "kvm.eager_page_split=0",
		};
		struct nx_env e = nx_env_config(&cfg);
		bool ept = !cases[i].amd;
		struct nxsim_access_info info;
		struct nxsim_spte_bits b;

		for (j = 0; j < ARRAY_SIZE(slots); j++) {
			nx_slot(e.vm, j + 1, slots[j].gpa, slots[j].size,
				slots[j].hva, slots[j].level, 0);
			info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE,
					 slots[j].gpa);
			assert_int_equal(info.level, slots[j].level);
			b = leaf_bits(e.vm, cases[i].amd, slots[j].gpa);
			assert_true(b.writable && b.dirty && b.accessed);
		}
		nx_expect(e.vm, 1, 1, 1, 0);
		for (j = 0; j < ARRAY_SIZE(slots); j++)
			nx_slot(e.vm, j + 1, slots[j].gpa, slots[j].size,
				slots[j].hva, slots[j].level,
				NXSIM_MEM_LOG_DIRTY_PAGES);
		nx_expect(e.vm, 1, 1, 1, 0);
		for (j = 0; j < ARRAY_SIZE(slots); j++) {
			bool huge = slots[j].level > NXSIM_PG_LEVEL_4K;

			b = leaf_bits(e.vm, cases[i].amd, slots[j].gpa);
			assert_int_equal(b.writable, ept && !huge);
			assert_int_equal(b.dirty, !ept);
			assert_true(b.accessed && b.mmu_writable &&
				    b.host_writable && b.large == huge);
		}
		if (cases[i].split) {
			/* the split's other children copy the huge leaf */
			info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE,
					 4 * GIB + 4096);
			assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
			nx_expect(e.vm, 513, 0, 1, 0);
			b = leaf_bits(e.vm, cases[i].amd, 4 * GIB + 8192);
			assert_false(b.writable);
			assert_int_equal(b.dirty, !ept);
		}
		nx_env_destroy(&e);
	}
}

static void test_mmio_and_readonly(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_mmu_counters c;
	struct nxsim_access_info info;

	(void)state;
	nx_slot(e.vm, 1, 4 * GIB, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M,
		NXSIM_MEM_READONLY);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 8 * GIB);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	assert_int_equal(info.level, 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 4 * GIB);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	nx_expect(e.vm, 0, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 4 * GIB);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	nx_expect(e.vm, 0, 1, 0, 0);
	/* mapped read-only: the write is still emulated */
	info = nx_access(e.vcpu, NXSIM_ACCESS_WRITE, 4 * GIB);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_2M);
	assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
	assert_int_equal(c.faults, 4);
	assert_int_equal(c.emulated, 3);
	nx_env_destroy(&e);
}

static void test_param_flip(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_access_info info;

	(void)state;
	nx_slot(e.vm, 1, GIB, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB);
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB + 3 * MIB2);
	nx_expect(e.vm, 1, 1, 0, 2);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 0);
	/* off: huge mappings are built executable, no fault on exec */
	nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
	nx_expect(e.vm, 0, 0, 1, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + 4096);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	/* same value again: nothing zapped */
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "N"), 0);
	nx_expect(e.vm, 0, 0, 1, 0);
	/* on again: the executable 1G mapping goes away */
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "force"), 0);
	nx_expect(e.vm, 0, 0, 0, 0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + 4096);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	nx_expect(e.vm, 1, 0, 0, 2);
	nx_env_destroy(&e);
}

static void test_host_shapes(void **state)
{
	static const struct nxsim_cpu cpus[] = {
		{ .la57 = true, .phys_bits = 52 },
		{ .la57 = true, .amd = true },
		{ .no_gbpages = true },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		struct nxsim_host_config cfg = {
			.cpu = cpus[i],
			.cmdline = "kvm.nx_huge_pages=force",
		};
		struct nx_env e = nx_env_config(&cfg);
		struct nxsim_access_info info;

		nx_slot(e.vm, 1, 1ull << 45, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G,
			0);
		info = nx_access(e.vcpu, NXSIM_ACCESS_READ, 1ull << 45);
		assert_int_equal(info.level, cpus[i].no_gbpages ? 2 : 3);
		assert_int_equal(dump_count(e.vm, cpus[i].la57 ? "root L5" :
								 "root L4"),
				 1);
		assert_int_equal(dump_count(e.vm, cpus[i].amd ? "NPT" : "EPT"),
				 1);
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, (1ull << 45) + 4096);
		nx_expect(e.vm, 512, cpus[i].no_gbpages ? 0 : 511, 0,
			  cpus[i].no_gbpages ? 1 : 2);
		nx_env_destroy(&e);
	}
}

/*
 * kvm_mmu_get_tdp_level(): with LA57, EPT uses a 5-level root only when
 * the guest's MAXPHYADDR exceeds 48; NPT (get_npt_level()) always does.
 */
static void test_tdp_root_level(void **state)
{
	static const struct {
		struct nxsim_cpu cpu;
		const char *root;
	} cases[] = {
		{ { .la57 = false, .phys_bits = 52 }, "root L4" },
		{ { .la57 = true }, "root L4" },
		{ { .la57 = true, .phys_bits = 48 }, "root L4" },
		{ { .la57 = true, .phys_bits = 49 }, "root L5" },
		{ { .la57 = true, .amd = true, .phys_bits = 48 }, "root L5" },
		{ { .la57 = false, .amd = true }, "root L4" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = { .cpu = cases[i].cpu };
		struct nx_env e = nx_env_config(&cfg);

		nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, 0);
		assert_int_equal(dump_count(e.vm, cases[i].root), 1);
		nx_env_destroy(&e);
	}
}

/* KVM_CAP_VM_DISABLE_NX_HUGE_PAGES: no splitting, but global flips zap. */
static void test_opt_out(void **state)
{
	struct nxsim_host *host = test_host(NULL, true, NULL, 0);
	struct nxsim_access_info info;
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;

	(void)state;
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_enable_cap(vm, NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES, 0,
				      NULL, true),
		  0);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	nx_slot(vm, 1, GIB, GIB, HVA_BASE, NXSIM_PG_LEVEL_1G, 0);
	info = nx_access(vcpu, NXSIM_ACCESS_EXEC, GIB);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_1G);
	assert_false(info.huge_page_disallowed);
	info = nx_access(vcpu, NXSIM_ACCESS_EXEC, GIB + 12 * MIB2);
	assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
	nx_expect(vm, 0, 0, 1, 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
	nx_expect(vm, 0, 0, 0, 0);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1g_exec),
		cmocka_unit_test(test_1g_fresh_exec),
		cmocka_unit_test(test_host_4k),
		cmocka_unit_test(test_misaligned),
		cmocka_unit_test(test_dirty_logging),
		cmocka_unit_test(test_dirty_logging_ad_bits),
		cmocka_unit_test(test_mmio_and_readonly),
		cmocka_unit_test(test_param_flip),
		cmocka_unit_test(test_host_shapes),
		cmocka_unit_test(test_tdp_root_level),
		cmocka_unit_test(test_opt_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
