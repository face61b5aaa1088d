// SPDX-License-Identifier: GPL-2.0-only
/*
 * MMIO SPTEs (arch/x86/kvm/mmu/spte.c make_mmio_spte(), mmu.c
 * handle_mmio_page_fault()): the SPTE bits per host CPU (EPT or NPT,
 * MAXPHYADDR, kvm.mmio_caching), the generation's split layout, and the
 * caching scenario step by step: the first access outside every slot
 * installs an MMIO SPTE, the next is emulated from it without a fault, a
 * memslot change makes it stale and it is refaulted, a new slot over it
 * maps memory, a wrap of the MMIO generation zaps everything, a table
 * zapped between the hardware's walk and the kernel's own is run again
 * (RET_PF_RETRY), not faulted, both with the handler called by hand and
 * through the access with a zap at NXSIM__SCHED_MMIO; the legacy MMU, the
 * nonpaging MMU and shadow paging cache MMIO through mmu_set_spte() the
 * same way; hosts without caching emulate every time and build no tables;
 * allocation failures of the MMIO fault leave everything as it was.
 */
#include <pthread.h>
#include <stdio.h>

#include "common/test_util.h"
#include "core/compiler.h"
#include "mmu_unit.h"

#define MMIO_GPA 0xF0000000ull

struct mmio_row {
	enum nxsim_spte_format fmt;
	unsigned int phys_bits;
	bool allow;
	uint64_t gen;
	uint64_t gfn;
	bool enabled;
	uint64_t spte;	   /* make_mmio_spte(), when enabled */
	uint64_t gen_back; /* get_mmio_spte_generation() */
};

static const struct mmio_row rows[] = {
	/* EPT: W|X (misconfiguration) | gpa */
	{ NXSIM_SPTE_EPT, 46, true, 0, 0xF0000, true, 0x00000000F0000006ull,
	  0 },
	/* generation bits 0-7 in SPTE bits 3-10, 8-18 in 52-62 */
	{ NXSIM_SPTE_EPT, 46, true, 0x7ffff, 0xF0000, true,
	  0x7ff00000F00007feull, 0x7ffff },
	{ NXSIM_SPTE_EPT, 46, true, 0x100, 0xF0000, true, 0x00100000F0000006ull,
	  0x100 },
	/* bit 19 up (and the in-progress bit 63) are not stored */
	{ NXSIM_SPTE_EPT, 46, true, (1ull << 63) | (1ull << 19) | 2, 0xF0000,
	  true, 0x00000000F0000016ull, 2 },
	/* EPT keeps caching at MAXPHYADDR 52: the value needs no PA bit */
	{ NXSIM_SPTE_EPT, 52, true, 4, 0xFFFFFFFFFFull, true,
	  0x000FFFFFFFFFF026ull, 4 },
	/* kvm.mmio_caching=0 */
	{ NXSIM_SPTE_EPT, 46, false, 0, 0xF0000, false, 0, 0 },
	/* NPT: reserved bit 51 + present, W|U kept from ACC_ALL */
	{ NXSIM_SPTE_LEGACY, 46, true, 2, 0xF0000, true, 0x00080000F0000017ull,
	  2 },
	{ NXSIM_SPTE_LEGACY, 51, true, 0x1ff, 0x7FFFFFFFFFull, true,
	  0x001FFFFFFFFFF7ffull, 0x1ff },
	/* NPT at MAXPHYADDR 52: no reserved bit, no caching */
	{ NXSIM_SPTE_LEGACY, 52, true, 2, 0xF0000, false, 0, 0 },
	{ NXSIM_SPTE_LEGACY, 46, false, 2, 0xF0000, false, 0, 0 },
};

static void test_mmio_spte_table(void **state)
{
	struct nxsim__mmio_masks m;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct mmio_row *r = &rows[i];
		uint64_t spte, leaf;

		nxsim__kvm_mmu_set_mmio_spte_mask(r->fmt, r->phys_bits,
						  r->allow, &m);
		printf("# row %u: enabled %d\n", i, m.enabled);
		assert_int_equal(m.enabled, r->enabled);
		leaf = nxsim__make_spte(r->fmt, 1, r->gfn, ACC_ALL, true, true);
		assert_false(is_mmio_spte(&m, leaf));
		assert_false(is_mmio_spte(&m, SHADOW_NONPRESENT_VALUE));
		if (!r->enabled) {
			/* Nothing is MMIO when caching is off. */
			assert_false(is_mmio_spte(&m, 0));
			assert_false(is_mmio_spte(&m, 0x6));
			assert_false(is_mmio_spte(&m, (1ull << 51) | 1));
			continue;
		}
		spte = nxsim__make_mmio_spte(&m, r->gen, r->gfn, ACC_ALL);
		printf("# row %u: 0x%016llx\n", i, (unsigned long long)spte);
		assert_int_equal(spte, r->spte);
		assert_true(is_mmio_spte(&m, spte));
		/* MMIO SPTEs are not MMU-present: no stats, no teardown */
		assert_false(is_shadow_present_pte(spte));
		assert_int_equal(nxsim__get_mmio_spte_generation(spte),
				 r->gen_back);
		assert_int_equal(get_mmio_spte_gfn(&m, spte), r->gfn);
		assert_int_equal(get_mmio_spte_access(&m, spte),
				 r->fmt == NXSIM_SPTE_EPT ?
					 0 :
					 ACC_WRITE_MASK | ACC_USER_MASK);
		/* a present leaf or table is never MMIO */
		assert_false(is_mmio_spte(
			&m, nxsim__make_nonleaf_spte(r->fmt, r->gfn)));
	}
}

static struct nxsim_mmu_counters counters(struct nxsim_vm *vm)
{
	struct nxsim_mmu_counters c;

	assert_rc(nxsim_vm_mmu_counters(vm, &c), 0);
	return c;
}

/* faults, emulated, mmio_spte_created, mmio_exits, mmio_stale, zap_all */
static void expect_counters(struct nxsim_vm *vm, uint64_t faults,
			    uint64_t emulated, uint64_t created, uint64_t exits,
			    uint64_t stale, uint64_t zap_all)
{
	struct nxsim_mmu_counters c = counters(vm);

	assert_int_equal(c.faults, faults);
	assert_int_equal(c.emulated, emulated);
	assert_int_equal(c.mmio_spte_created, created);
	assert_int_equal(c.mmio_exits, exits);
	assert_int_equal(c.mmio_stale, stale);
	assert_int_equal(c.zap_all, zap_all);
}

static void expect_emulate(struct nxsim_vcpu *vcpu, enum nxsim_access_kind k)
{
	struct nxsim_access_info info = nx_access(vcpu, k, MMIO_GPA);

	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	assert_int_equal(info.level, 0);
}

static void test_mmio_caching_steps(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_access_info info;
	struct nxsim_vcpu *v1;
	uint64_t spte;

	(void)state;
	/* one slot: the memslots generation goes 0 -> 2 */
	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	assert_int_equal(mmu->memslots_gen[0], 2);
	assert_int_equal(mmu->memslots_gen[1], 1);

	/* 1: a fault walks to 4K and installs the MMIO SPTE */
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, MMIO_GPA);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	assert_int_equal(info.req_level, NXSIM_PG_LEVEL_4K);
	assert_int_equal(info.goal_level, NXSIM_PG_LEVEL_4K);
	expect_counters(e.vm, 1, 1, 1, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), mmu->root_level);
	spte = *unit_sptep(mmu, MMIO_GPA, NXSIM_PG_LEVEL_4K);
	assert_int_equal(spte, 0x00000000F0000016ull); /* W|X, gen 2 */
	nx_expect(e.vm, 0, 0, 0, 0);

	/* 2: the same vCPU, from its MMIO cache: no fault */
	expect_emulate(e.vcpu, NXSIM_ACCESS_WRITE);
	expect_counters(e.vm, 1, 1, 1, 1, 0, 0);
	/* 3: another vCPU, from the SPTE: no fault either */
	assert_rc(nxsim_vcpu_create(e.vm, 1, &v1), 0);
	expect_emulate(v1, NXSIM_ACCESS_EXEC);
	expect_counters(e.vm, 1, 1, 1, 2, 0, 0);

	/* a slot elsewhere: generation 4, the SPTE is stale */
	nx_slot(e.vm, 2, 4 * MIB2, MIB2, HVA_BASE + 4 * MIB2, NXSIM_PG_LEVEL_4K,
		0);
	assert_int_equal(mmu->memslots_gen[0], 4);
	/* 4: refaulted: a new MMIO SPTE with generation 4 */
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 2, 2, 2, 2, 1, 0);
	spte = *unit_sptep(mmu, MMIO_GPA, NXSIM_PG_LEVEL_4K);
	assert_int_equal(nxsim__get_mmio_spte_generation(spte), 4);
	/* 5: and answered from it again */
	expect_emulate(v1, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 2, 2, 2, 3, 1, 0);

	/* a deleted slot steps twice (invalid, then gone) and zaps all */
	nx_slot(e.vm, 2, 4 * MIB2, 0, HVA_BASE + 4 * MIB2, 0, 0);
	assert_int_equal(mmu->memslots_gen[0], 8);
	expect_counters(e.vm, 2, 2, 2, 3, 1, 1);
	/* 6: the zap took the SPTE: an EPT violation, a fault */
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 3, 3, 3, 3, 1, 1);

	/* memory appears at the gpa: the stale SPTE gives way to a leaf */
	nx_slot(e.vm, 3, MMIO_GPA, MIB2, HVA_BASE + 8 * MIB2, NXSIM_PG_LEVEL_4K,
		0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, MMIO_GPA);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	expect_counters(e.vm, 4, 3, 3, 3, 2, 1);
	nx_expect(e.vm, 1, 0, 0, 0);
	/* the fault-path counts are each vCPU's own (vcpu->stat), summed */
	assert_int_equal(e.vcpu->mmu.stat.faults, 4);
	assert_int_equal(e.vcpu->mmu.stat.emulated, 3);
	assert_int_equal(e.vcpu->mmu.stat.mmio_exits, 1);
	assert_int_equal(e.vcpu->mmu.stat.mmio_stale, 2);
	assert_int_equal(v1->mmu.stat.faults, 0);
	assert_int_equal(v1->mmu.stat.mmio_exits, 2);
	assert_int_equal(mmu->counters.mmio_exits, 0);
	/* pf_mmio_spte_created is the faulting vCPU's too */
	assert_int_equal(mmu->counters.mmio_spte_created, 0);
	assert_int_equal(e.vcpu->mmu.stat.mmio_spte_created, 3);
	nx_env_destroy(&e);
}

/*
 * A stale MMIO SPTE met by an access that then fails (-ENOMEM: a new
 * vCPU's empty page cache cannot be filled) counts nothing; the retry
 * counts the stale SPTE once.
 */
static void test_mmio_stale_enomem(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_access_info info;
	struct nxsim_vcpu *v1;

	(void)state;
	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	nx_slot(e.vm, 2, 4 * MIB2, MIB2, HVA_BASE + 4 * MIB2, NXSIM_PG_LEVEL_4K,
		0);
	assert_rc(nxsim_vcpu_create(e.vm, 1, &v1), 0);
	expect_counters(e.vm, 1, 1, 1, 0, 0, 0);
	nxsim_alloc_fail_nth(1);
	assert_rc(nxsim_vcpu_access(v1, NXSIM_ACCESS_READ, MMIO_GPA, &info),
		  -ENOMEM);
	nxsim_alloc_fail_nth(0);
	expect_counters(e.vm, 1, 1, 1, 0, 0, 0);
	expect_emulate(v1, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 2, 2, 2, 0, 1, 0);
	nx_env_destroy(&e);
}

/*
 * A slot below MMIO_GPA and MMIO SPTEs at MMIO_GPA and the page after it,
 * the second in the vCPU's cache, so that an access to the first goes
 * through handle_mmio_page_fault()'s own walk.
 */
static void two_mmio_sptes(struct nx_env *e)
{
	struct nxsim_access_info info;

	nx_slot(e->vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	expect_emulate(e->vcpu, NXSIM_ACCESS_READ);
	info = nx_access(e->vcpu, NXSIM_ACCESS_READ, MMIO_GPA + 4096);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	expect_counters(e->vm, 2, 2, 2, 0, 0, 0);
	assert_int_equal(e->vcpu->mmu.mmio_gfn, (MMIO_GPA >> 12) + 1);
}

/*
 * The table the hardware walk found an MMIO SPTE in is zapped by another
 * CPU before handle_mmio_page_fault()'s own walk (the test calls that
 * half itself, after the zap): the walk meets no MMIO SPTE, and the
 * answer is RET_PF_RETRY, the guest running the access again, with no
 * fault, nothing counted and nothing cached.  The vCPU's cache is read
 * before the walk, and a stale SPTE is RET_PF_INVALID.
 */
static void test_mmio_zapped_between_walks(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim__vcpu_mmu *v = &e.vcpu->mmu;
	uint64_t gfn = MMIO_GPA >> 12, other = gfn + 1;
	struct nxsim_mmu_counters before, after;
	struct nxsim_access_info info;

	(void)state;
	two_mmio_sptes(&e);
	/* the SPTE is current: emulated from it, which the vCPU caches */
	assert_int_equal(nxsim__handle_mmio_page_fault(mmu, v, 0, gfn),
			 RET_PF_EMULATE);
	assert_int_equal(v->mmio_gfn, gfn);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, MMIO_GPA + 4096);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	expect_counters(e.vm, 2, 2, 2, 1, 0, 0);
	assert_int_equal(v->mmio_gfn, other);

	/* another CPU: set_nx_huge_pages() -> kvm_mmu_zap_all_fast() */
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	before = counters(e.vm);
	assert_int_equal(nxsim__handle_mmio_page_fault(mmu, v, 0, gfn),
			 RET_PF_RETRY);
	after = counters(e.vm);
	assert_memory_equal(&after, &before, sizeof(after));
	assert_int_equal(v->mmio_gfn, other);
	/* mmio_info_in_cache() comes first: no walk for the cached gfn */
	assert_int_equal(nxsim__handle_mmio_page_fault(mmu, v, 0, other),
			 RET_PF_EMULATE);
	/* run again, the access is an EPT violation: a fault */
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 3, 3, 3, 1, 0, 1);

	/* a slot elsewhere: the SPTE is stale, the full fault follows */
	nx_slot(e.vm, 2, 4 * MIB2, MIB2, HVA_BASE + 4 * MIB2, NXSIM_PG_LEVEL_4K,
		0);
	assert_int_equal(nxsim__handle_mmio_page_fault(mmu, v, 0, gfn),
			 RET_PF_INVALID);
	nx_env_destroy(&e);
}

struct between {
	struct nx_env *e;
	uint64_t gfn;
	int mmio_points;
	int level; /* where the hardware walk met the SPTE */
	int rc;
};

/* Another CPU: set_nx_huge_pages() -> kvm_mmu_zap_all_fast() */
static void *zap_all(void *ctx)
{
	struct between *b = ctx;

	b->rc = nxsim_param_set(b->e->host, "nx_huge_pages", "off");
	return NULL;
}

/*
 * At the first NXSIM__SCHED_MMIO, zap_all() runs on a thread of its own
 * (this one holds kvm->srcu) to its end.
 */
static void zap_between(void *ctx, enum nxsim__sched_point p, uint64_t gfn,
			int level)
{
	struct between *b = ctx;
	pthread_t t;

	if (p != NXSIM__SCHED_MMIO)
		return;
	assert_int_equal(gfn, b->gfn);
	b->level = level;
	if (b->mmio_points++)
		return;
	assert_int_equal(pthread_create(&t, NULL, zap_all, b), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_rc(b->rc, 0);
}

/*
 * The same race through the access: at NXSIM__SCHED_MMIO another CPU
 * zaps everything, so handle_mmio_page_fault()'s walk meets no MMIO SPTE.
 * The access runs again, counting no retry, no exit and no stale SPTE;
 * its hardware walk meets nothing, and its fault installs a new MMIO SPTE
 * and is emulated.  A fall-through into the fault path would count the
 * SPTE as stale.  The next access exits from the vCPU's cache.
 */
static void test_mmio_zapped_between_walks_access(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim__vcpu_mmu *v = &e.vcpu->mmu;
	struct between b = { .e = &e, .gfn = MMIO_GPA >> 12 };
	uint64_t retries, faults;

	(void)state;
	two_mmio_sptes(&e);
	retries = mmu->fault_retries;
	faults = v->stat.faults;

	nxsim__mmu_set_sched_hook(mmu, zap_between, &b);
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	nxsim__mmu_set_sched_hook(mmu, NULL, NULL);
	/* one hardware walk met the MMIO SPTE, at 4K; the re-run's did not */
	assert_int_equal(b.mmio_points, 1);
	assert_int_equal(b.level, NXSIM_PG_LEVEL_4K);
	/* the zap-all and the re-run's fault, emulated: no exit, no stale */
	expect_counters(e.vm, 3, 3, 3, 0, 0, 1);
	assert_int_equal(mmu->fault_retries, retries);
	assert_int_equal(v->stat.faults, faults + 1);
	assert_int_equal(v->mmio_gfn, b.gfn);
	nx_check_ok(e.vm);
	/* the fault cached the gfn: the next access exits from the cache */
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 3, 3, 3, 1, 0, 1);
	nx_env_destroy(&e);
}

/* An exec fault on MMIO flags the tables it makes, as any exec fault. */
static void test_mmio_exec_fault_tables(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim_access_info info;

	(void)state;
	info = nx_access(e.vcpu, NXSIM_ACCESS_EXEC, MMIO_GPA);
	assert_int_equal(info.outcome, NXSIM_ACCESS_EMULATE);
	assert_true(info.huge_page_disallowed);
	/* req_level 4K: flagged (6.2 on), never tracked */
	nx_expect(e.vm, 0, 0, 0, 0);
	nx_env_destroy(&e);
}

/*
 * The legacy MMU (kvm.tdp_mmu=0), the nonpaging MMU and shadow paging
 * cache MMIO too (mmu_set_spte() -> mark_mmio_spte() from direct_map()
 * or FNAME(fetch)): one fault installs the MMIO SPTE below its tables,
 * outside the page stats; the next accesses are answered from it
 * (handle_mmio_page_fault(), direct or indirect) without a fault, also
 * after an INVLPG and a CR3 load; a new slot's generation makes it
 * stale; memory appearing at the gpa replaces it with a leaf.
 */
static void shadow_mmio_steps(const struct nxsim_host_config *cfg, bool paging)
{
	struct nxsim_guest_paging p = {
		.cr0_pg = true,
		.cr0_wp = true,
		.cr4_pae = true,
		.efer_lma = true,
		.efer_nxe = true,
		.cr3 = 0x1000,
	};
	/* PML4 0x1000 -> PDPT 0x2000 -> PD 0x3000 -> PT 0x4000: gva = gpa */
	static const uint64_t tables[][2] = {
		{ 0x1000, 0x2007 },
		{ 0x2000 + 8 * 3, 0x3007 },
		{ 0x3000 + 8 * 0x180, 0x4007 },
		{ 0x4000, MMIO_GPA | 7 },
	};
	struct nx_env e = nx_env_config(cfg);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_access_info info;
	uint64_t spte, x = 0; /* the exits of the INVLPG and CR3 steps */
	unsigned int i;

	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_4K, 0);
	if (paging) {
		for (i = 0; i < ARRAY_SIZE(tables); i++)
			assert_rc(nxsim_guest_write(e.vm, tables[i][0],
						    &tables[i][1], 8),
				  0);
		assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
	}
	/*
	 * 1: the fault: the MMIO SPTE, gen 2, below four shadow pages (with
	 * paging off four PAE roots and a page table)
	 */
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 1, 1, 1, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm),
			 !cfg->cpu.no_tdp || paging ? 4 : 5);
	spte = *unit_sptep(mmu, MMIO_GPA, NXSIM_PG_LEVEL_4K);
	assert_true(is_mmio_spte(&mmu->mmio, spte));
	assert_int_equal(get_mmio_spte_gfn(&mmu->mmio, spte), MMIO_GPA >> 12);
	assert_int_equal(nxsim__get_mmio_spte_generation(spte), 2);
	nx_expect(e.vm, 0, 0, 0, 0);
	/* 2: answered from it, no fault */
	expect_emulate(e.vcpu, NXSIM_ACCESS_WRITE);
	expect_counters(e.vm, 1, 1, 1, 1, 0, 0);
	if (paging) {
		/* a sync page: INVLPG leaves it; a CR3 load too */
		assert_rc(nxsim_guest_invlpg(e.vcpu, MMIO_GPA), 0);
		expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
		assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
		expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
		expect_counters(e.vm, 1, 1, 1, 3, 0, 0);
		x = 2;
	}
	/* a slot elsewhere: generation 4, the SPTE is stale and refaulted */
	nx_slot(e.vm, 2, 4 * MIB2, MIB2, HVA_BASE + 4 * MIB2, NXSIM_PG_LEVEL_4K,
		0);
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 2, 2, 2, 1 + x, 1, 0);
	spte = *unit_sptep(mmu, MMIO_GPA, NXSIM_PG_LEVEL_4K);
	assert_int_equal(nxsim__get_mmio_spte_generation(spte), 4);
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 2, 2, 2, 2 + x, 1, 0);
	/* memory at the gpa: the stale SPTE gives way to a leaf */
	nx_slot(e.vm, 3, MMIO_GPA, MIB2, HVA_BASE + 8 * MIB2, NXSIM_PG_LEVEL_4K,
		0);
	info = nx_access(e.vcpu, NXSIM_ACCESS_READ, MMIO_GPA);
	assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(info.level, NXSIM_PG_LEVEL_4K);
	expect_counters(e.vm, 3, 2, 2, 2 + x, 2, 0);
	spte = *unit_sptep(mmu, MMIO_GPA, NXSIM_PG_LEVEL_4K);
	assert_true(is_shadow_present_pte(spte));
	assert_int_equal(e.vcpu->mmu.stat.mmio_spte_created, 2);
	nx_env_destroy(&e);
}

static void test_mmio_legacy_and_shadow(void **state)
{
	struct nxsim_host_config legacy = {
		.cpu = { .amd = true },
		.cmdline = "kvm.tdp_mmu=0",
	};
	struct nxsim_host_config shadow = {
		.cpu = { .amd = true, .no_tdp = true },
	};

	(void)state;
	shadow_mmio_steps(&legacy, false);
	shadow_mmio_steps(&shadow, false);
	shadow_mmio_steps(&shadow, true);
}

/* No caching: every access is a fault, emulated, and builds nothing. */
static void no_caching(const struct nxsim_host_config *cfg)
{
	struct nx_env e = nx_env_config(cfg);
	unsigned int i;

	for (i = 1; i <= 3; i++) {
		expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
		expect_counters(e.vm, i, i, 0, 0, 0, 0);
	}
	/* only the root the first fault loaded */
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 1);
	nx_env_destroy(&e);
}

static void test_mmio_caching_off(void **state)
{
	struct nxsim_host_config npt52 = {
		.cpu = { .amd = true, .phys_bits = 52, .la57 = true },
	};
	struct nxsim_host_config param = {
		.cmdline = "kvm.mmio_caching=0",
	};

	(void)state;
	no_caching(&npt52);
	no_caching(&param);
}

/* 2^18 swaps bring the 19-bit MMIO generation of space 0 back to 0. */
static void test_mmio_generation_wrap(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim__vm_mmu *mmu = unit_mmu(&e);
	struct nxsim_memory_region mr = {
		.slot = 1,
		.memory_size = 4096,
		.userspace_addr = HVA_BASE,
	};
	unsigned int swaps = 1u << 18, i;

	(void)state;
	/* the slot's creation is the first swap */
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	for (i = 2; i < swaps; i++) {
		mr.flags ^= NXSIM_MEM_LOG_DIRTY_PAGES;
		assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	}
	expect_counters(e.vm, 1, 1, 1, 0, 0, 0);
	mr.flags ^= NXSIM_MEM_LOG_DIRTY_PAGES;
	assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
	assert_int_equal(mmu->memslots_gen[0] & MMIO_SPTE_GEN_MASK, 0);
	/* the wrap zapped everything: a fault, not a false match */
	expect_counters(e.vm, 1, 1, 1, 0, 0, 1);
	expect_emulate(e.vcpu, NXSIM_ACCESS_READ);
	expect_counters(e.vm, 2, 2, 2, 0, 0, 1);
	nx_env_destroy(&e);
}

struct walk {
	struct nx_env e;
	struct nxsim_mmu_counters c;
	int64_t pages;
};

static int op_access(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vcpu_access(w->e.vcpu, NXSIM_ACCESS_READ, MMIO_GPA, NULL);
}

static void same(void *ctx)
{
	struct walk *w = ctx;
	struct nxsim_mmu_counters c = counters(w->e.vm);

	assert_memory_equal(&c, &w->c, sizeof(c));
	assert_int_equal(nxsim_vm_nr_mmu_pages(w->e.vm), w->pages);
	nx_check_ok(w->e.vm);
}

static void test_mmio_alloc_failures(void **state)
{
	struct walk w = { .e = nx_env(NULL, 0) };

	(void)state;
	w.c = counters(w.e.vm);
	w.pages = nxsim_vm_nr_mmu_pages(w.e.vm);
	/* root, three tables, the frame table */
	assert_true(test_alloc_failures(op_access, NULL, same, &w) >= 5);
	expect_counters(w.e.vm, 1, 1, 1, 0, 0, 0);
	/* the exit from the SPTE allocates nothing */
	w.c = counters(w.e.vm);
	w.c.mmio_exits++;
	w.pages = nxsim_vm_nr_mmu_pages(w.e.vm);
	assert_int_equal(test_alloc_failures(op_access, NULL, NULL, &w), 0);
	same(&w);
	nx_env_destroy(&w.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmio_spte_table),
		cmocka_unit_test(test_mmio_caching_steps),
		cmocka_unit_test(test_mmio_stale_enomem),
		cmocka_unit_test(test_mmio_zapped_between_walks),
		cmocka_unit_test(test_mmio_zapped_between_walks_access),
		cmocka_unit_test(test_mmio_exec_fault_tables),
		cmocka_unit_test(test_mmio_legacy_and_shadow),
		cmocka_unit_test(test_mmio_caching_off),
		cmocka_unit_test(test_mmio_generation_wrap),
		cmocka_unit_test(test_mmio_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
