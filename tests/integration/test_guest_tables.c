// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest page tables under the vCPU TLBs (NXSIM_GUEST_LEVEL_WALK) and in
 * the workloads (nxsim_workload_config.guest_tables): the tables
 * nxsim_workload_map_guest() builds, as the guest's walk reads them; the
 * entry size the TLB caches for each guest / host level pair, with TDP
 * (min of the guest's level and the SPTE's, a two-dimensional walk) and
 * with shadow paging (the shadow leaf, a one-dimensional walk); the
 * dirty bit the guest's walk sets; a ranged flush of gva-tagged entries;
 * the guest's own INVLPG and CR3 loads, and its changes of MMU role bits;
 * workload runs with exact counts, TDP against the gpa = gva mode and
 * shadow paging under each policy; determinism; bad configurations; and
 * allocation failures.
 */
#include <stdio.h>
#include <string.h>

#include <nxsim/nxsim.h>

#include "common/test_util.h"

#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define GVA NXSIM_WORKLOAD_GVA_BASE
#define TABLES 0x1000ull /* the tables' gpa: the PML4, CR3 */
#define DATA GIB	 /* the mapped gpas: [1 GiB, 2 GiB) */
#define HVA 0x100000000000ull

struct rig {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
};

/*
 * A host (TDP off with @no_tdp) with nx_huge_pages=@nx, a VM with vCPU
 * TLBs (@range_flush), a 2 GiB slot backed at @host_level, and 1 GiB at
 * GVA mapped by the guest onto DATA with pages of @guest_level.
 */
static struct rig rig_make(bool no_tdp, const char *profile, const char *nx,
			   int guest_level, int host_level, bool range_flush)
{
	struct nxsim_host_config hc = {
		.cpu.itlb_multihit = true,
		.cpu.no_tdp = no_tdp,
		.profile = profile,
	};
	struct nxsim_memory_region mr = {
		.memory_size = 2 * GIB,
		.userspace_addr = HVA,
		.host_level = host_level,
	};
	struct nxsim_guest_paging p = { .cr0_pg = true,
					.cr0_wp = true,
					.cr4_pae = true,
					.efer_lma = true,
					.efer_nxe = true,
					.cr3 = TABLES };
	struct nxsim_vcpu_tlb_config tc;
	uint64_t bytes;
	struct rig r;

	nxsim_vcpu_tlb_config_default(&tc);
	tc.range_flush = range_flush;
	assert_rc(nxsim_host_create(&hc, &r.host), 0);
	assert_rc(nxsim_param_set(r.host, "nx_huge_pages", nx), 0);
	assert_rc(nxsim_vm_create(r.host, &r.vm), 0);
	assert_rc(nxsim_vm_set_vcpu_tlb(r.vm, &tc), 0);
	assert_rc(nxsim_vcpu_create(r.vm, 0, &r.vcpu), 0);
	assert_rc(nxsim_vcpu_run(r.vcpu), 0);
	assert_rc(nxsim_vm_set_memory_region(r.vm, &mr), 0);
	assert_rc(nxsim_workload_map_guest(r.vm, GVA, DATA, GIB, guest_level,
					   TABLES, &bytes),
		  0);
	assert_rc(nxsim_guest_set_paging(r.vcpu, &p), 0);
	return r;
}

static void rig_destroy(struct rig *r)
{
	assert_rc(nxsim_vm_check(r->vm, NULL, NULL), 0);
	assert_rc(nxsim_vm_destroy(r->vm), 0);
	assert_rc(nxsim_host_destroy(r->host), 0);
}

static struct nxsim_access_info
walk_access(struct rig *r, enum nxsim_access_kind kind, uint64_t gva)
{
	struct nxsim_access_info info;

	assert_rc(nxsim_vcpu_access_guest(r->vcpu, kind, gva,
					  NXSIM_GUEST_LEVEL_WALK, &info),
		  0);
	return info;
}

static struct nxsim_vcpu_stats vstats(struct rig *r)
{
	struct nxsim_vcpu_stats st;

	assert_rc(nxsim_vcpu_stats(r->vcpu, &st), 0);
	return st;
}

/* The tables as the guest's walk reads them, and their size per level. */
static void test_map_guest(void **state)
{
	static const struct {
		int level;
		uint64_t table_bytes; /* for 1 GiB + 4 MiB at GVA */
	} cases[] = {
		/* PML4, PDPT, 2 PDs, 512 + 2 PTs */
		{ NXSIM_PG_LEVEL_4K, (1 + 1 + 2 + 514) * 4096 },
		{ NXSIM_PG_LEVEL_2M, (1 + 1 + 2) * 4096 },
	};
	struct nxsim_guest_walk w;
	uint64_t bytes;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct rig r =
			rig_make(false, "6.6", "off", cases[i].level, 1, false);

		/* the rig's 1 GiB: one PD (2M) or 512 PTs (4K) fewer */
		assert_rc(nxsim_workload_map_guest(
				  NULL, GVA, DATA, GIB + 4 * MIB,
				  cases[i].level, TABLES, &bytes),
			  0);
		assert_int_equal(bytes, cases[i].table_bytes);
		assert_rc(nxsim_guest_translate(r.vcpu, GVA + 0x3456789, 0, &w),
			  0);
		assert_false(w.fault);
		assert_int_equal(w.level, cases[i].level);
		assert_int_equal(w.gpa, DATA + 0x3456789);
		assert_int_equal(w.table_gfn[3], TABLES >> 12);
		/* A set by the walk, D only by a write */
		assert_true(w.pte[w.level - 1] & NXSIM_GPTE_A);
		assert_false(w.pte[w.level - 1] & NXSIM_GPTE_D);
		/* beyond the mapping: not present at the PDPT */
		assert_rc(nxsim_guest_translate(r.vcpu, GVA + GIB, 0, &w), 0);
		assert_true(w.fault);
		assert_int_equal(w.level, 3);
		rig_destroy(&r);
	}
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, GIB,
					   NXSIM_PG_LEVEL_1G, TABLES, &bytes),
		  0);
	assert_int_equal(bytes, 2 * 4096);
	/* bad ranges and levels */
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, 4096, 0, TABLES,
					   &bytes),
		  -EINVAL);
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, 4096, 4, TABLES,
					   &bytes),
		  -EINVAL);
	assert_rc(nxsim_workload_map_guest(NULL, GVA + 4096, DATA, 2 * MIB,
					   NXSIM_PG_LEVEL_2M, TABLES, &bytes),
		  -EINVAL);
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, 0,
					   NXSIM_PG_LEVEL_4K, TABLES, &bytes),
		  -EINVAL);
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, 4096,
					   NXSIM_PG_LEVEL_4K, TABLES + 8,
					   &bytes),
		  -EINVAL);
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, 4096,
					   NXSIM_PG_LEVEL_4K, TABLES, NULL),
		  -EINVAL);
	assert_rc(nxsim_workload_map_guest(NULL, GVA, DATA, 2 * 1024 * GIB,
					   NXSIM_PG_LEVEL_1G, TABLES, &bytes),
		  -ERANGE);
	/* 64 TiB of 4K pages: 128 GiB of PTs */
	assert_rc(nxsim_workload_map_guest(NULL, 0, 0, 1ull << 46,
					   NXSIM_PG_LEVEL_4K, TABLES, &bytes),
		  -E2BIG);
}

/*
 * One read per guest / host level pair through the guest's tables: the
 * entry the TLB fills and the references of the walk.  With TDP the
 * SPTE is the host's level and the entry the smaller of the two, the
 * walk (g + 1)(h + 1) - 1 with the guest's real level; with shadow
 * paging the shadow leaf is the smaller of the two and the walk is the
 * shadow tables' alone, root level + 1 - leaf level.
 */
static void test_entry_size_pairs(void **state)
{
	static const struct {
		int guest, host;
		int entry;
		uint64_t tdp_refs, shadow_refs;
	} cases[] = {
		{ 1, 1, 1, 24, 4 }, { 1, 2, 1, 19, 4 }, { 1, 3, 1, 14, 4 },
		{ 2, 1, 1, 19, 4 }, { 2, 2, 2, 15, 3 }, { 2, 3, 2, 11, 3 },
		{ 3, 1, 1, 14, 4 }, { 3, 2, 2, 11, 3 }, { 3, 3, 3, 8, 2 },
	};
	size_t i;
	int shadow;

	(void)state;
	for (shadow = 0; shadow < 2; shadow++) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			struct rig r = rig_make(shadow, "6.6", "off",
						cases[i].guest, cases[i].host,
						false);
			uint64_t span = 1ull << (12 + 9 * (cases[i].entry - 1));
			uint64_t gva = GVA + 5 * GIB / 8 + 0x1234;
			struct nxsim_access_info info;
			struct nxsim_vcpu_stats st;

			printf("# %s guest %d host %d\n",
			       shadow ? "shadow" : "tdp", cases[i].guest,
			       cases[i].host);
			info = walk_access(&r, NXSIM_ACCESS_READ, gva);
			assert_int_equal(info.outcome, NXSIM_ACCESS_FAULT);
			assert_int_equal(info.level, shadow ? cases[i].entry :
							      cases[i].host);
			st = vstats(&r);
			assert_int_equal(st.walks, 1);
			assert_int_equal(st.faults, 1);
			assert_int_equal((&st.fills_4k)[cases[i].entry - 1], 1);
			assert_int_equal(
				st.fills_4k + st.fills_2m + st.fills_1g, 1);
			assert_int_equal(st.walk_refs,
					 shadow ? cases[i].shadow_refs :
						  cases[i].tdp_refs);
			/* the entry's last byte hits; the next page walks */
			info = walk_access(&r, NXSIM_ACCESS_READ,
					   (gva & ~(span - 1)) + span - 1);
			assert_int_equal(info.outcome, NXSIM_ACCESS_HIT);
			info = walk_access(&r, NXSIM_ACCESS_READ,
					   (gva & ~(span - 1)) + span);
			st = vstats(&r);
			assert_int_equal(st.walks, 2);
			rig_destroy(&r);
		}
	}
}

/*
 * The guest's dirty bit: a read of a clean page caches it without write
 * (the walk drops W, protect_clean_gpte()), so the first write walks
 * again and sets D; then writes hit.  With TDP the SPTE needs no fault
 * (the slot's huge SPTE is writable); shadow paging faults again.
 */
static void test_dirty_bit(void **state)
{
	struct nxsim_guest_walk w;
	struct nxsim_vcpu_stats st;
	int shadow;

	(void)state;
	for (shadow = 0; shadow < 2; shadow++) {
		struct rig r = rig_make(shadow, "6.6", "off", 1, 2, false);

		walk_access(&r, NXSIM_ACCESS_READ, GVA + 8192);
		walk_access(&r, NXSIM_ACCESS_WRITE, GVA + 8192);
		walk_access(&r, NXSIM_ACCESS_WRITE, GVA + 8200);
		st = vstats(&r);
		assert_int_equal(st.walks, 2);
		assert_int_equal(st.perm_misses, 1);
		assert_int_equal(st.faults, shadow ? 2 : 1);
		assert_rc(nxsim_guest_translate(r.vcpu, GVA + 8192, 0, &w), 0);
		assert_true(w.pte[0] & NXSIM_GPTE_D);
		rig_destroy(&r);
	}
}

/*
 * A ranged flush names gfns; entries tagged by gva are all flushed.  On
 * 6.1 under force, a fetch from a 2 MiB page mapped huge by a read zaps
 * the huge SPTE, a ranged flush; with range_flush the vCPU flushes a
 * range, yet an unrelated data entry must go too.
 */
static void test_range_flush_gva(void **state)
{
	struct rig r = rig_make(false, "6.1", "force", 2, 2, true);
	struct nxsim_vcpu_stats st;

	(void)state;
	walk_access(&r, NXSIM_ACCESS_READ, GVA + 64 * MIB); /* data */
	walk_access(&r, NXSIM_ACCESS_READ, GVA);	    /* code, huge */
	walk_access(&r, NXSIM_ACCESS_EXEC, GVA);	    /* zap, flush */
	walk_access(&r, NXSIM_ACCESS_READ, GVA + 64 * MIB);
	st = vstats(&r);
	assert_int_equal(st.tlb_flush_range, 1);
	assert_int_equal(st.tlb_flush, 0);
	/* the data page walked again: its entry went with the flush */
	assert_int_equal(st.walks, 4);
	rig_destroy(&r);
}

/*
 * The guest's own flushes: INVLPG drops the entries of its page (of any
 * size) and nothing else, a CR3 load flushes them all, and a change of
 * CPL alone loads nothing.  With shadow paging KVM intercepts INVLPG
 * (kvm_mmu_invlpg()) and the CR3 load (kvm_set_cr3():
 * KVM_REQ_TLB_FLUSH_CURRENT, counted in tlb_flush); with TDP the CPU
 * does both.  The rig's own set-up load, before the first access, counts
 * nothing.
 */
static void test_guest_flushes(void **state)
{
	struct nxsim_guest_paging p;
	struct nxsim_vcpu_stats st;
	struct rig r;
	int shadow;

	(void)state;
	for (shadow = 0; shadow < 2; shadow++) {
		r = rig_make(shadow, "6.6", "off", 1, 1, false);
		assert_int_equal(vstats(&r).cr3_flushes, 0);
		walk_access(&r, NXSIM_ACCESS_READ, GVA);
		walk_access(&r, NXSIM_ACCESS_READ, GVA + 4096);
		walk_access(&r, NXSIM_ACCESS_READ, GVA + 8);
		assert_int_equal(vstats(&r).walks, 2);
		assert_rc(nxsim_guest_invlpg(r.vcpu, GVA + 100), 0);
		walk_access(&r, NXSIM_ACCESS_READ, GVA + 4096); /* kept */
		walk_access(&r, NXSIM_ACCESS_READ, GVA);	/* dropped */
		st = vstats(&r);
		assert_int_equal(st.walks, 3);
		assert_int_equal(st.invlpg, 1);

		/* CR3 reloaded with the same value: a flush */
		assert_rc(nxsim_guest_get_paging(r.vcpu, &p, NULL), 0);
		assert_rc(nxsim_guest_set_paging(r.vcpu, &p), 0);
		walk_access(&r, NXSIM_ACCESS_READ, GVA);
		walk_access(&r, NXSIM_ACCESS_READ, GVA + 4096);
		st = vstats(&r);
		assert_int_equal(st.walks, 5);
		assert_int_equal(st.cr3_flushes, 1);
		assert_int_equal(st.tlb_flush, shadow);
		assert_int_equal(st.root_reloads, 0);

		/* CPL 3 and back: no register loaded, the entries stay */
		p.user = true;
		assert_rc(nxsim_guest_set_paging(r.vcpu, &p), 0);
		p.user = false;
		assert_rc(nxsim_guest_set_paging(r.vcpu, &p), 0);
		walk_access(&r, NXSIM_ACCESS_READ, GVA);
		st = vstats(&r);
		assert_int_equal(st.walks, 5);
		assert_int_equal(st.cr3_flushes, 1);
		rig_destroy(&r);
	}

	/* a 2 MiB entry goes with an INVLPG of any address in it */
	r = rig_make(false, "6.6", "off", 2, 2, false);
	walk_access(&r, NXSIM_ACCESS_READ, GVA);
	walk_access(&r, NXSIM_ACCESS_READ, GVA + MIB);
	assert_int_equal(vstats(&r).walks, 1);
	assert_rc(nxsim_guest_invlpg(r.vcpu, GVA + MIB + 4096), 0);
	walk_access(&r, NXSIM_ACCESS_READ, GVA);
	st = vstats(&r);
	assert_int_equal(st.walks, 2);
	assert_int_equal(st.fills_2m, 2);
	rig_destroy(&r);
}

/*
 * Each bit of the MMU role, changed alone from the rig's 64-bit state (or
 * from paging off for PAE and PSE): kvm_mmu_reset_context(), a root
 * reload, except CR0.WP with TDP on a tree with 01b31714bd90 (6.4, and
 * the 6.6 profile; not 5.10).  tlb_flush adds KVM_REQ_TLB_FLUSH_GUEST for
 * clearing CR0.PG and KVM_REQ_TLB_FLUSH_CURRENT for toggling CR4.PAE (both
 * modes: those writes always exit) to the shadow MMU's CR3 load.
 */
static void test_guest_role_bits(void **state)
{
	static const struct {
		const char *profile;
		bool shadow;
		bool pg_off; /* first go to paging off, with PAE */
		int bit;     /* 0 WP, 1 NXE, 2 PG (and LMA), 3 PAE, 4 PSE */
		uint64_t reloads, tlb_flush;
	} cases[] = {
		{ "6.6", false, false, 0, 0, 0 },
		{ "6.6", true, false, 0, 1, 1 },
		{ "5.10", false, false, 0, 1, 0 },
		{ "6.6", false, false, 1, 1, 0 },
		{ "6.6", true, false, 1, 1, 1 },
		{ "6.6", false, false, 2, 1, 1 },
		{ "6.6", true, false, 2, 1, 2 },
		{ "6.6", false, true, 3, 1, 1 },
		{ "6.6", true, true, 3, 1, 2 },
		{ "6.6", false, true, 4, 1, 0 },
		{ "6.6", true, true, 4, 1, 1 },
	};
	struct nxsim_guest_paging p;
	struct nxsim_vcpu_stats st0, st;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct rig r = rig_make(cases[k].shadow, cases[k].profile,
					"off", 1, 1, false);

		walk_access(&r, NXSIM_ACCESS_READ, GVA);
		assert_rc(nxsim_guest_get_paging(r.vcpu, &p, NULL), 0);
		if (cases[k].pg_off) {
			p.cr0_pg = p.efer_lma = false;
			assert_rc(nxsim_guest_set_paging(r.vcpu, &p), 0);
		}
		st0 = vstats(&r);
		switch (cases[k].bit) {
		case 0:
			p.cr0_wp = false;
			break;
		case 1:
			p.efer_nxe = false;
			break;
		case 2:
			p.cr0_pg = p.efer_lma = false;
			break;
		case 3:
			p.cr4_pae = false;
			break;
		case 4:
			p.cr4_pse = true;
			break;
		}
		assert_rc(nxsim_guest_set_paging(r.vcpu, &p), 0);
		st = vstats(&r);
		assert_int_equal(st.root_reloads - st0.root_reloads,
				 cases[k].reloads);
		assert_int_equal(st.tlb_flush - st0.tlb_flush,
				 cases[k].tlb_flush);
		assert_int_equal(st.cr3_flushes - st0.cr3_flushes, 1);
		rig_destroy(&r);
	}
}

/* Accesses a gva walk refuses, each with its errno; state unchanged. */
static void test_walk_errors(void **state)
{
	struct rig r = rig_make(false, "6.6", "off", 1, 2, false);
	struct nxsim_guest_paging off = { 0 };
	struct nxsim_guest_access a = { .gpa = DATA,
					.kind = NXSIM_ACCESS_READ,
					.guest_level = 1 };
	struct nxsim_access_info info;
	struct rig s;

	(void)state;
	/* non-canonical */
	assert_rc(nxsim_vcpu_access_guest(r.vcpu, NXSIM_ACCESS_READ, 1ull << 47,
					  NXSIM_GUEST_LEVEL_WALK, &info),
		  -ERANGE);
	/* a gva outside the mapping: the guest's own #PF, nothing cached */
	info = walk_access(&r, NXSIM_ACCESS_READ, GVA + GIB);
	assert_int_equal(info.outcome, NXSIM_ACCESS_GUEST_FAULT);
	assert_int_equal(vstats(&r).faults, 0);
	assert_int_equal(vstats(&r).fills_4k, 0);
	/* paging off: no tables to walk */
	assert_rc(nxsim_guest_set_paging(r.vcpu, &off), 0);
	assert_rc(nxsim_vcpu_access_guest(r.vcpu, NXSIM_ACCESS_READ, GVA,
					  NXSIM_GUEST_LEVEL_WALK, &info),
		  -EOPNOTSUPP);
	assert_int_equal(vstats(&r).accesses, 2);
	rig_destroy(&r);
	/* a gva walk needs the vCPU's TLB (with TDP) */
	assert_rc(nxsim_host_create(NULL, &s.host), 0);
	assert_rc(nxsim_vm_create(s.host, &s.vm), 0);
	assert_rc(nxsim_vcpu_create(s.vm, 0, &s.vcpu), 0);
	assert_rc(nxsim_vcpu_access_guest(s.vcpu, NXSIM_ACCESS_READ, GVA,
					  NXSIM_GUEST_LEVEL_WALK, &info),
		  -EOPNOTSUPP);
	rig_destroy(&s);
	/* TDP off: a batch access at a level of its own */
	s = rig_make(true, "6.6", "off", 1, 2, false);
	assert_rc(nxsim_vcpu_access_batch(s.vcpu, &a, 1), -EOPNOTSUPP);
	a.gpa = GVA;
	a.guest_level = NXSIM_GUEST_LEVEL_WALK;
	assert_rc(nxsim_vcpu_access_batch(s.vcpu, &a, 1), 1);
	assert_int_equal(vstats(&s).accesses, 1);
	rig_destroy(&s);
}

static void exec_cfg(struct nxsim_workload_config *cfg, const char *nx,
		     bool tables, bool no_tdp)
{
	nxsim_workload_config_default(cfg);
	cfg->nx_huge_pages = nx;
	cfg->recovery_ratio = 0;
	cfg->guest_level = NXSIM_PG_LEVEL_2M;
	cfg->host_level = NXSIM_PG_LEVEL_2M;
	cfg->guest_tables = tables;
	cfg->no_tdp = no_tdp;
}

/*
 * The execute shape through real guest tables: with TDP, every counter
 * of the gpa = gva mode at the same guest level (the tables give each
 * access the level the fast mode passes); through shadow paging, each
 * policy's exact faults and zaps.
 */
static void test_execute_tables(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result fast, tdp, sh;
	const uint64_t bytes = 8 * MIB, pages = bytes / 4096;
	const uint64_t huge = bytes / (2 * MIB);
	static const char *const nx[] = { "off", "force", "never" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(nx); i++) {
		exec_cfg(&cfg, nx[i], false, false);
		assert_rc(nxsim_workload_run_execute(&cfg, bytes, &fast), 0);
		exec_cfg(&cfg, nx[i], true, false);
		assert_rc(nxsim_workload_run_execute(&cfg, bytes, &tdp), 0);
		assert_int_equal(tdp.accesses, fast.accesses);
		assert_int_equal(tdp.walks, fast.walks);
		assert_int_equal(tdp.walk_cycles, fast.walk_cycles);
		assert_int_equal(tdp.faults, fast.faults);
		assert_int_equal(tdp.splits, fast.splits);
		assert_int_equal(tdp.huge_zaps, fast.huge_zaps);
		assert_int_equal(tdp.cycles, fast.cycles);

		exec_cfg(&cfg, nx[i], true, true);
		assert_rc(nxsim_workload_run_execute(&cfg, bytes, &sh), 0);
		assert_int_equal(sh.accesses, 2 * pages);
		/* the shadow MMU splits nothing in place, on any profile */
		assert_int_equal(sh.splits, 0);
		if (i == 1) {
			/*
			 * Populate: one fault per 2M page (a huge NX leaf).
			 * Execute: each first fetch zaps the huge leaf (one
			 * remote flush each) and maps a direct page of 4K
			 * leaves, eight at a time (the fault's and
			 * direct_pte_prefetch()'s seven): pages / 8 faults.
			 * Every fetch walks (each 4K page once).
			 */
			assert_int_equal(sh.faults, huge + pages / 8);
			assert_int_equal(sh.huge_zaps, huge);
			assert_int_equal(sh.remote_flushes, huge);
			assert_int_equal(sh.walks, huge + pages);
		} else {
			/*
			 * One fault per 2M page; the first fetch of each
			 * walks again (the entry proved only the write) and
			 * hits the executable huge leaf.
			 */
			assert_int_equal(sh.faults, huge);
			assert_int_equal(sh.huge_zaps, 0);
			assert_int_equal(sh.remote_flushes, 0);
			assert_int_equal(sh.walks, 2 * huge);
		}
	}
	/* 6.6 with TDP splits in place instead: one fault and split each */
	assert_int_equal(fast.splits, 0); /* never */
	exec_cfg(&cfg, "force", true, false);
	assert_rc(nxsim_workload_run_execute(&cfg, bytes, &tdp), 0);
	assert_int_equal(tdp.splits, huge);
	assert_int_equal(tdp.faults, 2 * huge);
}

/* The same seeded run through guest tables twice: the same result. */
static void test_deterministic(void **state)
{
	struct nxsim_workload_synth s = {
		.seed = 7,
		.accesses = 20000,
		.code_bytes = 4 * MIB,
		.data_bytes = 8 * MIB,
		.exec_permille = 600,
		.jump_permille = 20,
		.far_permille = 50,
		.write_permille = 300,
		.jit_pages = 8,
	};
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result a, b;
	int no_tdp;

	(void)state;
	for (no_tdp = 0; no_tdp < 2; no_tdp++) {
		exec_cfg(&cfg, "force", true, no_tdp);
		cfg.nr_vcpus = 2;
		assert_rc(nxsim_workload_run_synth(&cfg, &s, &a), 0);
		assert_rc(nxsim_workload_run_synth(&cfg, &s, &b), 0);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(a.accesses, 2 * s.accesses);
	}
}

/* Configurations a run refuses before it makes anything. */
static void test_bad_configs(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;
	struct nxsim_alloc_stats before, after;

	(void)state;
	nxsim_alloc_stats(&before);
	/* shadow paging translates gvas: it needs the guest's tables */
	exec_cfg(&cfg, "force", false, true);
	assert_rc(nxsim_workload_run_execute(&cfg, 4 * MIB, &res), -EOPNOTSUPP);
	/* past the lower canonical half above NXSIM_WORKLOAD_GVA_BASE */
	exec_cfg(&cfg, "force", true, false);
	cfg.nr_vcpus = 1024;
	assert_rc(nxsim_workload_run_execute(&cfg, 2 * GIB, &res), -ERANGE);
	nxsim_alloc_stats(&after);
	assert_int_equal(after.live_bytes, before.live_bytes);
}

/* Allocation failures of runs through guest tables, TDP and shadow. */
static void test_alloc_failure_walk(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;
	unsigned long nth;
	bool done;
	int rc, no_tdp;

	(void)state;
	for (no_tdp = 0; no_tdp < 2; no_tdp++) {
		exec_cfg(&cfg, "force", true, no_tdp);
		done = false;
		for (nth = 1; !done; nth++) {
			nxsim_alloc_fail_nth(nth);
			rc = nxsim_workload_run_execute(&cfg, 4 * MIB, &res);
			done = !rc && nxsim_alloc_fail_pending();
			nxsim_alloc_fail_nth(0);
			assert_true(rc == 0 || rc == -ENOMEM);
		}
		assert_true(nth > 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_guest),
		cmocka_unit_test(test_entry_size_pairs),
		cmocka_unit_test(test_dirty_bit),
		cmocka_unit_test(test_range_flush_gva),
		cmocka_unit_test(test_walk_errors),
		cmocka_unit_test(test_guest_flushes),
		cmocka_unit_test(test_guest_role_bits),
		cmocka_unit_test(test_execute_tables),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_alloc_failure_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
