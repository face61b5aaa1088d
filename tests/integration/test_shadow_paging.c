// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shadow paging (TDP off: a host with no_tdp), step by step with the VM
 * stats and the checker after every step (docs/shadow-paging.md):
 *   - the shadow mapping is never larger than the guest's: a guest 4K
 *     mapping over a slot backed by 2M host pages stays 4K, and a guest 2M
 *     mapping over 4K host pages becomes a direct shadow page of 4K leaves
 *     under the indirect page of the guest's PD;
 *   - a guest page table inside a 2M region keeps that region from being
 *     mapped 2M until its shadow page is gone;
 *   - write protection: the guest's stores to its shadowed tables are
 *     trapped and emulated, zapping the SPTE that shadowed the entry
 *     (kvm_mmu_pte_write()); a write through the guest's mapping of its
 *     own table is emulated too (RET_PF_EMULATE);
 *   - the guest's own page faults are the access's outcome;
 *   - tools/testing/selftests/kvm/x86/nx_huge_pages_test.c in its TDP-off
 *     form (the guest maps the huge pages 2M itself) on 6.18, 6.1, 5.10
 *     and 5.4;
 *   - the nonpaging MMU (guest paging off) and the bug switch
 *     nonpaging_untracked (b5b0977f4aa2): the fetch/write livelock,
 *     bounded here by an iteration cap;
 *   - the allocation failures of a shadow fault;
 *   - unsync pages: made by a write through the guest's mapping of its
 *     PT, stale until INVLPG or a CR3 load, never above 4K, and the
 *     allocation failures of the fault that makes them;
 *   - PAE guests (pae_root) and 32-bit guests (4-byte gptes shadowed by
 *     quadrant): leaf levels, roots, stores to their tables, unsync, and
 *     the allocation failures of their first fault.
 */
#include "nx_test.h"

#define PWU (NXSIM_GPTE_P | NXSIM_GPTE_W | NXSIM_GPTE_U)
#define PS NXSIM_GPTE_PS
#define TABLES_SIZE (2ull << 20) /* slot 0: the guest's tables */
#define DATA_GPA (4ull << 30)	 /* slot 10: the guest's data */
#define PML4 0x1000ull
#define ALLOC_SITES_UNSYNC 10 /* the caches topped up again */

struct guest {
	struct nx_env e;
	uint64_t next; /* next free table page in slot 0 */
};

/* A host with TDP off, the tables slot and a data slot, paging on. */
static struct guest guest_make(const char *profile, int data_host_level,
			       uint64_t data_size, uint64_t bugs)
{
	struct guest g = { .next = PML4 + 4096 };
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.cpu.no_tdp = true,
		.profile = profile,
		.bugs = bugs,
	};
	struct nxsim_guest_paging p = { .cr0_pg = true,
					.cr0_wp = true,
					.cr4_pae = true,
					.efer_lma = true,
					.efer_nxe = true,
					.cr3 = PML4 };

	g.e = nx_env_config(&cfg);
	assert_rc(nxsim_param_set(g.e.host, "nx_huge_pages_recovery_ratio",
				  "1"),
		  0);
	nx_slot(g.e.vm, 0, 0, TABLES_SIZE, HVA_BASE + 64 * GIB, 1, 0);
	nx_slot(g.e.vm, 10, DATA_GPA, data_size, HVA_BASE, data_host_level, 0);
	assert_rc(nxsim_guest_set_paging(g.e.vcpu, &p), 0);
	assert_rc(nxsim_vcpu_run(g.e.vcpu), 0);
	return g;
}

/*
 * The guest maps @gva to @gpa at @level, making tables from slot 0 as it
 * needs them (or at @pt for the 4K table, if not 0); its own stores.
 */
static void guest_map_at(struct guest *g, uint64_t gva, uint64_t gpa, int level,
			 uint64_t pt)
{
	uint64_t table = PML4, e;
	int l;

	for (l = 4; l > level; l--) {
		uint64_t ea = table + 8 * ((gva >> (12 + 9 * (l - 1))) & 511);

		assert_rc(nxsim_guest_read(g->e.vm, ea, &e, 8), 0);
		if (!(e & NXSIM_GPTE_P)) {
			if (l == 2 && pt) {
				e = pt | PWU;
			} else {
				e = g->next | PWU;
				g->next += 4096;
				assert_true(g->next <= TABLES_SIZE);
			}
			assert_rc(nxsim_guest_write_pte(g->e.vcpu, ea, e, 8),
				  0);
		}
		table = e & ~0xfffull & ((1ull << 52) - 1);
	}
	e = gpa | PWU | (level > 1 ? PS : 0);
	assert_rc(nxsim_guest_write_pte(
			  g->e.vcpu,
			  table + 8 * ((gva >> (12 + 9 * (level - 1))) & 511),
			  e, 8),
		  0);
}

static void guest_map(struct guest *g, uint64_t gva, uint64_t gpa, int level)
{
	guest_map_at(g, gva, gpa, level, 0);
}

static struct nxsim_access_info
access(struct guest *g, enum nxsim_access_kind kind, uint64_t gva)
{
	return nx_access(g->e.vcpu, kind, gva);
}

static uint64_t counter(struct guest *g, const char *name)
{
	struct nxsim_mmu_counters c;

	assert_rc(nxsim_vm_mmu_counters(g->e.vm, &c), 0);
	return nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_MMU, name), &c);
}

/* A guest 4K mapping over 2M host pages stays 4K. */
static void test_guest_4k_over_host_2m(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_2M, 4 * MIB2, 0);
	struct nxsim_access_info ai;

	(void)state;
	guest_map(&g, GIB, DATA_GPA + MIB2, NXSIM_PG_LEVEL_4K);
	ai = access(&g, NXSIM_ACCESS_READ, GIB + 0x123);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(ai.level, 1);
	/* max_level is the guest's level: the slot would allow 2M */
	assert_int_equal(ai.req_level, 1);
	assert_int_equal(ai.goal_level, 1);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	/* root, PDPT, PD, PT: all indirect */
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	ai = access(&g, NXSIM_ACCESS_READ, GIB + 0x456);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_HIT);
	nx_env_destroy(&g.e);
}

/*
 * A guest 2M mapping over 4K host pages: a direct shadow page of 4K
 * leaves (the fault's leaf and 7 prefetched) under the guest PD's page.
 */
static void test_guest_2m_over_host_4k(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	struct nxsim_access_info ai;
	uint64_t pde, v;
	char dump[8192];

	(void)state;
	guest_map(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_2M);
	ai = access(&g, NXSIM_ACCESS_READ, GIB + 0x3000);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(ai.level, 1);
	assert_int_equal(ai.req_level, 1);
	nx_expect(g.e.vm, 8, 0, 0, 0);
	/* root, PDPT, PD indirect; one direct page for the 2M guest page */
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x7000).outcome,
			 NXSIM_ACCESS_HIT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x8000).outcome,
			 NXSIM_ACCESS_FAULT);
	nx_expect(g.e.vm, 16, 0, 0, 0);
	/* the same with 2M host pages: one 2M leaf */
	guest_map(&g, GIB + MIB2, DATA_GPA + MIB2, NXSIM_PG_LEVEL_2M);
	assert_rc(nxsim_vm_set_host_level(g.e.vm, 10, MIB2, MIB2,
					  NXSIM_PG_LEVEL_2M),
		  0);
	ai = access(&g, NXSIM_ACCESS_READ, GIB + MIB2);
	assert_int_equal(ai.level, 2);
	nx_expect(g.e.vm, 16, 1, 0, 0);
	/* the dump names the guest tables shadowed and the guest's gfns */
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_non_null(strstr(dump, "root L4 shadows guest table gfn 0x1 "));
	assert_non_null(strstr(dump, "table L2 shadows guest table gfn 0x3 "));
	assert_non_null(
		strstr(dump, "[1-1] 1 x 2M leaf gfn 0x100200-0x1003ff "));
	/*
	 * The VMM rewrites the guest's PDE as a table pointer behind KVM's
	 * back (no write tracking): the 2M shadow leaf now maps more than the
	 * guest does, and the checker says so until the entry is restored.
	 */
	pde = 0x3000 + 8 * 1;
	assert_rc(nxsim_guest_read(g.e.vm, pde, &v, 8), 0);
	assert_true(v & PS);
	v &= ~PS;
	assert_rc(nxsim_guest_write(g.e.vm, pde, &v, 8), 0);
	assert_int_equal(nx_caught(g.e.vm, "maps more than the guest entry"),
			 1);
	v |= PS;
	assert_rc(nxsim_guest_write(g.e.vm, pde, &v, 8), 0);
	nx_env_destroy(&g.e);
}

/*
 * A guest page table in a 2M region: shadowing it disallows a huge page
 * there (account_shadowed()), so the guest's 2M mapping of the region is
 * mapped 4K, until the shadow page is zapped.
 */
static void test_table_in_2m_region(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_2M, 4 * MIB2, 0);
	struct nxsim_memory_region gone = { .slot = 20 };
	struct nxsim_access_info ai;

	(void)state;
	/* gva 1G: a 4K page through a PT at DATA_GPA + 0x5000 (region 0) */
	guest_map_at(&g, GIB, DATA_GPA + MIB2, NXSIM_PG_LEVEL_4K,
		     DATA_GPA + 0x5000);
	/* gva 1G + 2M: region 0 itself, mapped 2M by the guest */
	guest_map(&g, GIB + MIB2, DATA_GPA, NXSIM_PG_LEVEL_2M);
	ai = access(&g, NXSIM_ACCESS_READ, GIB);
	assert_int_equal(ai.level, 1);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	/* region 0 holds a shadowed table: 4K (and 7 prefetched) */
	ai = access(&g, NXSIM_ACCESS_READ, GIB + MIB2);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(ai.req_level, 1);
	assert_int_equal(ai.level, 1);
	nx_expect(g.e.vm, 9, 0, 0, 0);
	/*
	 * The guest's table is read-only through the guest's 2M mapping
	 * until the guest writes it through gva 1G + 2M + 0x5000: its only
	 * shadow page is a 4K one, which goes unsync
	 * (mmu_try_to_unsync_pages()), and the SPTE is made writable, not
	 * emulated.  The write sets D in the guest PDE, so the direct page
	 * is made again with W in its access: the old one is unlinked
	 * (validate_direct_spte()) and keeps its 8 leaves while it lives, as
	 * in the kernel; the new one has the fault's 8.
	 */
	ai = access(&g, NXSIM_ACCESS_WRITE, GIB + MIB2 + 0x5000);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(counter(&g, "emulated"), 0);
	assert_int_equal(counter(&g, "unsync"), 1);
	assert_int_equal(counter(&g, "unsync_pages"), 1);
	nx_expect(g.e.vm, 17, 0, 0, 0);
	/* the guest moves its PT out of region 0: the old one stays
	 * shadowed (parentless) and region 0 stays 4K */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, 0x3000 + 8 * 0, 0, 8), 0);
	guest_map(&g, GIB, DATA_GPA + MIB2, NXSIM_PG_LEVEL_4K);
	ai = access(&g, NXSIM_ACCESS_READ, GIB + MIB2 + 0x40000);
	assert_int_equal(ai.level, 1);
	/* a zap of everything (a slot deleted) unshadows it: 2M */
	nx_slot(g.e.vm, 20, 8 * GIB, MIB2, HVA_BASE + 8 * GIB, 1, 0);
	assert_rc(nxsim_vm_set_memory_region(g.e.vm, &gone), 0);
	nx_expect(g.e.vm, 0, 0, 0, 0);
	ai = access(&g, NXSIM_ACCESS_READ, GIB + MIB2 + 0x40000);
	assert_int_equal(ai.level, 2);
	assert_int_equal(ai.req_level, 2);
	nx_expect(g.e.vm, 0, 1, 0, 0);
	nx_env_destroy(&g.e);
}

/*
 * Write protection of guest tables: a store to a shadowed entry is
 * trapped and emulated, and zaps the SPTE the entry was shadowed by; the
 * next access sees the new entry.  Guest faults are the outcome.
 */
static void test_write_protection(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	struct nxsim_access_info ai;
	struct nxsim_guest_walk w;
	uint64_t pt;

	(void)state;
	guest_map(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_4K);
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB).outcome,
			 NXSIM_ACCESS_FAULT);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	assert_int_equal(counter(&g, "emulated"), 0);
	/* the PT is at the last table page made: 0x4000 */
	pt = g.next - 4096;
	assert_int_equal(pt, 0x4000);
	/* the guest makes the page not present: trapped, SPTE zapped */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt, DATA_GPA | 6, 8), 0);
	assert_int_equal(counter(&g, "emulated"), 1);
	nx_expect(g.e.vm, 0, 0, 0, 0);
	ai = access(&g, NXSIM_ACCESS_READ, GIB);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_GUEST_FAULT);
	assert_rc(nxsim_guest_translate(g.e.vcpu, GIB, 0, &w), 0);
	assert_true(w.fault);
	assert_int_equal(w.error_code, 0);
	/* read-only for the guest: a write is a guest #PF (P|W) */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt, DATA_GPA | 5, 8), 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB).outcome,
			 NXSIM_ACCESS_GUEST_FAULT);
	assert_rc(nxsim_guest_translate(g.e.vcpu, GIB, NXSIM_PFERR_WRITE, &w),
		  0);
	assert_int_equal(w.error_code, NXSIM_PFERR_PRESENT | NXSIM_PFERR_WRITE);
	/* a store to an unshadowed page is not trapped */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, 0x100000, 1, 8), 0);
	assert_int_equal(counter(&g, "emulated"), 2);
	/* the upper tables are write-tracked: a write is emulated, and the
	 * PML4E rewritten as it was zaps the PDPT's link */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, PML4, 0x2000 | PWU | 0x20, 8),
		  0);
	assert_int_equal(counter(&g, "emulated"), 3);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	/* the PDPT's page is found in the hash and linked again; the leaf
	 * below is as it was */
	ai = access(&g, NXSIM_ACCESS_READ, GIB);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_SPURIOUS);
	nx_env_destroy(&g.e);
}

/* nx_huge_pages_test, TDP off: the guest maps the three huge pages 2M. */
enum step_kind { READ, EXEC, SLEEP };
struct step {
	enum step_kind kind;
	int hp;
};
static const struct step steps[] = {
	{ READ, 1 }, { READ, 2 },  { EXEC, 1 }, { EXEC, 3 },
	{ READ, 1 }, { SLEEP, 0 }, { READ, 3 },
};
struct expect {
	uint64_t pages_2m, splits, pages_4k;
};
/*
 * The shadow MMU zaps the huge SPTE on an exec fault (no in-place split)
 * and maps the fetched page 4K with its 7 prefetched neighbours.
 */
static const struct expect shadow_expect[1 + ARRAY_SIZE(steps)] = {
	{ 0, 0, 0 },  { 1, 0, 0 },  { 2, 0, 0 }, { 1, 1, 8 },
	{ 1, 2, 16 }, { 1, 2, 16 }, { 1, 0, 0 }, { 2, 0, 0 },
};

static void selftest(const char *profile)
{
	struct guest g = guest_make(profile, NXSIM_PG_LEVEL_2M, 3 * MIB2, 0);
	struct nxsim_clock *clock = nxsim_host_clock(g.e.host);
	uint64_t sleep_ns = 500 * 1000000ull;
	unsigned int i;
	int hp;

	print_message("# %s\n", profile);
	/* 5.4 and 5.10 have no period parameter: the worker wakes every 60 s */
	if (nxsim_param_set(g.e.host, "nx_huge_pages_recovery_period_ms",
			    "100"))
		sleep_ns = 61000 * 1000000ull;
	for (hp = 0; hp < 3; hp++)
		guest_map(&g, DATA_GPA + hp * MIB2, DATA_GPA + hp * MIB2,
			  NXSIM_PG_LEVEL_2M);
	nx_expect(g.e.vm, 0, 0, 0, 0);
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		const struct step *s = &steps[i];
		const struct expect *x = &shadow_expect[i + 1];

		if (s->kind == SLEEP) {
			nxsim_clock_advance(clock, sleep_ns);
		} else {
			assert_rc(nxsim_vcpu_run(g.e.vcpu), 0);
			access(&g,
			       s->kind == EXEC ? NXSIM_ACCESS_EXEC :
						 NXSIM_ACCESS_READ,
			       DATA_GPA + (s->hp - 1) * MIB2);
		}
		print_message("# step %u\n", i + 1);
		nx_expect(g.e.vm, x->pages_4k, x->pages_2m, 0, x->splits);
	}
	nx_env_destroy(&g.e);
}

static void test_nx_huge_pages_selftest(void **state)
{
	(void)state;
	selftest("6.18");
	selftest("6.1");
	selftest("5.10");
	selftest("5.4");
}

/*
 * The nonpaging MMU (guest paging off, TDP off): an instruction fetch and
 * a data write in one huge page, repeated.  With b5b0977f4aa2 the exec
 * fault's page is flagged and tracked, the write stays 4K beside it and
 * both then hit: two faults.  Without it (6.6 with the bug switch) the
 * write maps the region huge over the unflagged table (disallowed_
 * hugepage_adjust() of 76901e56fb51 looks at the flag), the fetch splits
 * it again, and so on: every access faults, up to the cap.  6.1 has
 * neither fix: untracked, but it steps down at any table, so bounded.
 */
#define LIVELOCK_CAP 8

/*
 * *@violations: what the checker finds after the loop: with
 * nonpaging_untracked on a profile with 428e921611bc, the three tables
 * the exec fault made are not flagged.
 */
static uint64_t fetch_write_loop(const char *profile, uint64_t bugs,
				 uint64_t *splits, int64_t *violations)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.cpu.no_tdp = true,
		.profile = profile,
		.bugs = bugs,
	};
	struct nx_env e = nx_env_config(&cfg);
	struct nxsim_mmu_counters c;
	enum nxsim_guest_mode mode;
	struct nxsim_guest_paging p;
	unsigned int i;

	assert_rc(nxsim_guest_get_paging(e.vcpu, &p, &mode), 0);
	assert_int_equal(mode, NXSIM_GUEST_NONPAGING);
	nx_slot(e.vm, 1, GIB, 2 * MIB2, HVA_BASE, 2, 0);
	for (i = 0; i < LIVELOCK_CAP; i++) {
		assert_rc(nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_EXEC,
					    GIB + 0x1000, NULL),
			  0);
		assert_rc(nxsim_vcpu_access(e.vcpu, NXSIM_ACCESS_WRITE,
					    GIB + 0x100000, NULL),
			  0);
	}
	assert_rc(nxsim_vm_mmu_counters(e.vm, &c), 0);
	*splits = nx_stat(e.vm, "nx_lpage_splits");
	*violations = nxsim_vm_check(e.vm, NULL, NULL);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_host_destroy(e.host), 0);
	return c.faults;
}

static void test_nonpaging_livelock(void **state)
{
	uint64_t splits;
	int64_t violations;

	(void)state;
	/* fixed: two faults, the exec-made page tracked */
	assert_int_equal(fetch_write_loop("6.6", 0, &splits, &violations), 2);
	assert_int_equal(splits, 1);
	assert_int_equal(violations, 0);
	/*
	 * the bug: every access of every round faults (the cap ends it), and
	 * the checker sees the unflagged tables (428e921611bc)
	 */
	assert_int_equal(fetch_write_loop("6.6", NXSIM_BUG_NONPAGING_UNTRACKED,
					  &splits, &violations),
			 2 * LIVELOCK_CAP);
	assert_int_equal(violations, 3);
	/* 6.1: untracked, but bounded, and legitimately unflagged */
	assert_int_equal(fetch_write_loop("6.1", 0, &splits, &violations), 2);
	assert_int_equal(splits, 0);
	assert_int_equal(violations, 0);
}

struct fault_walk {
	struct guest *g;
};

static int op_fault(void *ctx)
{
	struct fault_walk *w = ctx;

	return nxsim_vcpu_access(w->g->e.vcpu, NXSIM_ACCESS_READ, GIB, NULL);
}

static void same(void *ctx)
{
	struct fault_walk *w = ctx;

	nx_expect(w->g->e.vm, 0, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(w->g->e.vm), 0);
}

/* Every allocation of a first shadow fault fails in turn. */
static void test_alloc_failures_shadow(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	struct fault_walk w = { &g };

	(void)state;
	guest_map(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_4K);
	assert_true(test_alloc_failures(op_fault, NULL, same, &w) >= 5);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	nx_env_destroy(&g.e);
}

/* The guest loads CR3 again with the value it has (a TLB flush). */
static void reload_cr3(struct guest *g)
{
	struct nxsim_guest_paging p;

	assert_rc(nxsim_guest_get_paging(g->e.vcpu, &p, NULL), 0);
	assert_rc(nxsim_guest_set_paging(g->e.vcpu, &p), 0);
}

/* faults, emulated, unsync, synced and unsync_pages at once */
static void unsync_expect(struct guest *g, uint64_t faults, uint64_t emulated,
			  uint64_t unsync, uint64_t synced, uint64_t pages)
{
	assert_int_equal(counter(g, "faults"), faults);
	assert_int_equal(counter(g, "emulated"), emulated);
	assert_int_equal(counter(g, "unsync"), unsync);
	assert_int_equal(counter(g, "synced"), synced);
	assert_int_equal(counter(g, "unsync_pages"), pages);
}

/*
 * Unsync pages: the guest maps its own PT (0x4000) at gva 1G + 0x1000 and
 * writes it through that mapping.  The PT's only shadow page is a 4K one:
 * it goes unsync and the SPTE is made writable (no emulation); from then
 * on the guest's stores to the PT land without a trap and the shadow
 * entries are stale until the guest flushes: INVLPG remakes one entry
 * from the guest's (FNAME(invlpg)), a CR3 load syncs the whole page
 * (FNAME(sync_page)), which is write-protected again.
 */
static void test_unsync_until_flush(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	const uint64_t pt = 0x4000;
	struct nxsim_access_info ai;
	char dump[8192];

	(void)state;
	guest_map(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_4K);
	assert_int_equal(g.next - 4096, pt);
	guest_map(&g, GIB + 0x1000, pt, NXSIM_PG_LEVEL_4K);
	guest_map(&g, GIB + 0x2000, DATA_GPA + 0x2000, NXSIM_PG_LEVEL_4K);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 2, 0, 0, 0, 0);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	/* a sync PT: the guest's store is trapped and emulated */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt + 8 * 3, 0, 8), 0);
	unsync_expect(&g, 3, 1, 0, 0, 0);
	/* the write through the guest's mapping of its PT: unsync */
	ai = access(&g, NXSIM_ACCESS_WRITE, GIB + 0x1000);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
	assert_int_equal(ai.level, 1);
	unsync_expect(&g, 4, 1, 1, 0, 1);
	nx_expect(g.e.vm, 3, 0, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x1000).outcome,
			 NXSIM_ACCESS_HIT);
	/* stores land without a trap; the old translation stays */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt, 0, 8), 0);
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt + 8 * 2, 0, 8), 0);
	unsync_expect(&g, 4, 1, 1, 0, 1);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_HIT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_HIT);
	nx_expect(g.e.vm, 3, 0, 0, 0);
	/* INVLPG of gva 1G: its entry is remade from the guest's: gone */
	assert_rc(nxsim_guest_invlpg(g.e.vcpu, GIB), 0);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	unsync_expect(&g, 4, 1, 1, 0, 1);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_GUEST_FAULT);
	/* gva 1G + 0x2000 is still stale; a non-canonical INVLPG fails */
	assert_rc(nxsim_guest_invlpg(g.e.vcpu, 1ull << 47), -ERANGE);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_HIT);
	/* a CR3 load syncs the PT: the entry goes, the self-map is
	 * read-only again, and the next store traps */
	reload_cr3(&g);
	unsync_expect(&g, 4, 1, 1, 1, 0);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_GUEST_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x1000).outcome,
			 NXSIM_ACCESS_HIT);
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt, DATA_GPA | PWU, 8), 0);
	unsync_expect(&g, 5, 2, 1, 1, 0);
	/* and the next write through the self-map makes it unsync again */
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x1000).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 6, 2, 2, 1, 1);
	/* a CR3 load with nothing changed in the PT keeps its entries */
	reload_cr3(&g);
	unsync_expect(&g, 6, 2, 2, 2, 0);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	/* unsync again; INVLPG makes gva 1G's entry from the guest's new,
	 * accessed entry (FNAME(prefetch_gpte)): no fault, the new gfn */
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x1000).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 7, 2, 3, 2, 1);
	assert_rc(nxsim_guest_write_pte(
			  g.e.vcpu, pt,
			  (DATA_GPA + 0x5000) | PWU | NXSIM_GPTE_A, 8),
		  0);
	assert_rc(nxsim_guest_invlpg(g.e.vcpu, GIB), 0);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_HIT);
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_non_null(strstr(dump, "gfn 0x100005"));
	unsync_expect(&g, 7, 2, 3, 2, 1);
	nx_env_destroy(&g.e);
}

/*
 * A guest table also used as a PD (a PDPTE points at it) is write-tracked:
 * never unsync.  An unsync PT that becomes a PD is zapped
 * (kvm_mmu_find_shadow_page()), and the next write to it is emulated.
 */
static void test_unsync_not_above_4k(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	const uint64_t x = 0x100000; /* the PT, later also a PD */

	(void)state;
	guest_map_at(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_4K, x);
	/* entry 1: a 4K page for the PT, a 2M page for the PD */
	guest_map(&g, GIB + 0x1000, DATA_GPA | PS, NXSIM_PG_LEVEL_4K);
	guest_map(&g, GIB + 0x2000, x, NXSIM_PG_LEVEL_4K);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 2, 0, 1, 0, 1);
	/* the PDPT (0x2000) entry 2: x as the PD of gva 2G */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, 0x2000 + 8 * 2, x | PWU, 8),
		  0);
	unsync_expect(&g, 3, 1, 1, 0, 1);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 2 * GIB + MIB2).outcome,
			 NXSIM_ACCESS_FAULT);
	/* the unsync PT was zapped for the PD */
	unsync_expect(&g, 4, 1, 1, 0, 0);
	/* its SPTEs went with it: the writes fault, are made again under a
	 * new PT shadow page, and the gfn is write-tracked: emulated */
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_EMULATE);
	unsync_expect(&g, 5, 2, 1, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_EMULATE);
	unsync_expect(&g, 6, 3, 1, 0, 0);
	nx_env_destroy(&g.e);
}

static int op_unsync(void *ctx)
{
	struct fault_walk *w = ctx;

	return nxsim_vcpu_access(w->g->e.vcpu, NXSIM_ACCESS_WRITE, GIB + 0x1000,
				 NULL);
}

static void unsync_undo(void *ctx)
{
	struct fault_walk *w = ctx;

	reload_cr3(w->g);
	assert_int_equal(counter(w->g, "unsync_pages"), 0);
}

static void unsync_same(void *ctx)
{
	struct fault_walk *w = ctx;

	assert_int_equal(counter(w->g, "unsync_pages"), 0);
	nx_expect(w->g->e.vm, 1, 0, 0, 0);
}

/*
 * Every allocation of the fault that makes a PT unsync fails in turn:
 * the PT stays sync; each success is undone by the CR3 load's sync.
 */
static void test_alloc_failures_unsync(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	struct fault_walk w = { &g };

	(void)state;
	guest_map(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_4K);
	guest_map(&g, GIB + 0x1000, 0x4000, NXSIM_PG_LEVEL_4K);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(test_alloc_failures(op_unsync, unsync_undo,
					     unsync_same, &w),
			 ALLOC_SITES_UNSYNC);
	nx_env_destroy(&g.e);
}

/* ---- PAE guests: pae_root ---------------------------------------------- */

#define PDPT 0x1000ull /* the PAE guest's CR3 */

/*
 * A PAE guest: PDPTEs 0 and 1 present (directories at 0x2000, 0x3000),
 * 2 and 3 not; tables from 0x4000.
 */
static struct guest pae_make(int data_host_level, bool nxe)
{
	struct guest g = guest_make("6.18", data_host_level, 4 * MIB2, 0);
	struct nxsim_guest_paging p = { .cr0_pg = true,
					.cr0_wp = true,
					.cr4_pae = true,
					.efer_nxe = nxe,
					.cr3 = PDPT };
	uint64_t pdpte[4] = { 0x2000 | NXSIM_GPTE_P, 0x3000 | NXSIM_GPTE_P };

	assert_rc(nxsim_guest_write(g.e.vm, PDPT, pdpte, sizeof(pdpte)), 0);
	assert_rc(nxsim_guest_set_paging(g.e.vcpu, &p), 0);
	g.next = 0x4000;
	return g;
}

/* The PAE guest maps @gva to @gpa at @level (1 or 2); its own stores. */
static void pae_map(struct guest *g, uint64_t gva, uint64_t gpa, int level)
{
	uint64_t pd = 0x2000 + ((gva >> 30) & 1) * 0x1000, e, ea;

	ea = pd + 8 * ((gva >> 21) & 511);
	if (level == 2) {
		e = gpa | PWU | PS;
	} else {
		assert_rc(nxsim_guest_read(g->e.vm, ea, &e, 8), 0);
		if (!(e & NXSIM_GPTE_P)) {
			e = g->next | PWU;
			g->next += 4096;
			assert_rc(nxsim_guest_write_pte(g->e.vcpu, ea, e, 8),
				  0);
		}
		ea = (e & ~0xfffull) + 8 * ((gva >> 12) & 511);
		e = gpa | PWU;
	}
	assert_rc(nxsim_guest_write_pte(g->e.vcpu, ea, e, 8), 0);
}

/*
 * PAE guests are shadowed from pae_root (mmu_alloc_shadow_roots()): one
 * level-2 root per present PDPTE, made at the first fault, and the leaf
 * is never larger than the guest's mapping; an exec fault on a guest 2M
 * page mapped 2M by the host is split by the mitigation.  Per case:
 * guest level, host level, access, NXE; the leaf level, shadow pages
 * (two roots, then the PT or direct page), 4K and 2M leaves and
 * nx_lpage_splits.
 */
static void test_pae_guest_levels(void **state)
{
	static const struct {
		int guest, host;
		enum nxsim_access_kind kind;
		bool nxe;
		int leaf;
		uint64_t sps, p4k, p2m, splits;
	} cases[] = {
		{ 1, 2, NXSIM_ACCESS_READ, true, 1, 3, 1, 0, 0 },
		{ 1, 1, NXSIM_ACCESS_EXEC, true, 1, 3, 1, 0, 0 },
		{ 2, 1, NXSIM_ACCESS_READ, true, 1, 3, 8, 0, 0 },
		{ 2, 2, NXSIM_ACCESS_READ, true, 2, 2, 0, 1, 0 },
		{ 2, 2, NXSIM_ACCESS_WRITE, true, 2, 2, 0, 1, 0 },
		{ 2, 2, NXSIM_ACCESS_EXEC, true, 1, 3, 8, 0, 1 },
		/* no NXE: the guest cannot forbid exec; the split is KVM's */
		{ 2, 2, NXSIM_ACCESS_EXEC, false, 1, 3, 8, 0, 1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct guest g = pae_make(cases[i].host, cases[i].nxe);
		struct nxsim_access_info ai;
		uint64_t gva = GIB + 0x5000;

		pae_map(&g, gva & ~(MIB2 - 1) * (cases[i].guest == 2), DATA_GPA,
			cases[i].guest);
		if (cases[i].guest == 1)
			pae_map(&g, gva, DATA_GPA + 0x5000, 1);
		ai = access(&g, cases[i].kind, gva);
		print_message("case %u\n", i);
		assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(ai.level, cases[i].leaf);
		assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), cases[i].sps);
		nx_expect(g.e.vm, cases[i].p4k, cases[i].p2m, 0,
			  cases[i].splits);
		assert_int_equal(access(&g, cases[i].kind, gva).outcome,
				 NXSIM_ACCESS_HIT);
		nx_env_destroy(&g.e);
	}
}

/*
 * pae_root step by step: a gva under a PDPTE that is not present is the
 * guest's fault at level 3 and makes nothing; the roots are put at a CR3
 * load (the cached pages stay) and taken again at the next fault; two
 * PDPTEs naming one directory share its root page; the dump shows each
 * pae_root entry.
 */
static void test_pae_roots(void **state)
{
	struct guest g = pae_make(NXSIM_PG_LEVEL_4K, true);
	struct nxsim_guest_paging p;
	struct nxsim_access_info ai;
	uint64_t pdpte = 0x2000 | NXSIM_GPTE_P;
	char dump[4096];

	(void)state;
	pae_map(&g, 0x5000, DATA_GPA, 1);
	ai = access(&g, NXSIM_ACCESS_READ, 2 * GIB);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_GUEST_FAULT);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x5000).outcome,
			 NXSIM_ACCESS_FAULT);
	/* the roots of PDPTEs 0 and 1, the PT */
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_non_null(strstr(dump, "pae_root[0]:"));
	assert_non_null(strstr(dump, "root L2 shadows guest table gfn 0x2 "));
	assert_non_null(strstr(dump, "root L2 shadows guest table gfn 0x3 "));
	assert_null(strstr(dump, "pae_root[2]:"));
	/*
	 * CR3 again: the roots are put, the pages stay cached; the next
	 * access loads them again (the model loads roots at a fault) and
	 * finds the leaf in place (spurious): no new page or leaf
	 */
	reload_cr3(&g);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_null(strstr(dump, "pae_root[0]:"));
	assert_non_null(strstr(dump, "parentless:"));
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x5000).outcome,
			 NXSIM_ACCESS_SPURIOUS);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x5000).outcome,
			 NXSIM_ACCESS_HIT);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	/*
	 * PDPTE 3 names PDPTE 0's directory: one page, held twice, and the
	 * leaf made through PDPTE 0 serves 3 GiB up
	 */
	assert_rc(nxsim_guest_write(g.e.vm, PDPT + 24, &pdpte, 8), 0);
	nxsim_guest_get_paging(g.e.vcpu, &p, NULL);
	assert_rc(nxsim_guest_set_paging(g.e.vcpu, &p), 0);
	ai = access(&g, NXSIM_ACCESS_READ, 3 * GIB + 0x5000);
	assert_int_equal(ai.outcome, NXSIM_ACCESS_SPURIOUS);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_non_null(strstr(dump, "pae_root[3]:"));
	nx_check_ok(g.e.vm);
	/*
	 * A CR3 load whose PDPTE 1 has a reserved bit (W) would #GP:
	 * -EINVAL, and the roots and mappings stay as they were
	 */
	pdpte = 0x3000 | NXSIM_GPTE_P | NXSIM_GPTE_W;
	assert_rc(nxsim_guest_write(g.e.vm, PDPT + 8, &pdpte, 8), 0);
	assert_rc(nxsim_guest_set_paging(g.e.vcpu, &p), -EINVAL);
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_non_null(strstr(dump, "pae_root[3]:"));
	assert_int_equal(
		access(&g, NXSIM_ACCESS_READ, 3 * GIB + 0x5000).outcome,
		NXSIM_ACCESS_HIT);
	nx_env_destroy(&g.e);
}

static int op_pae_fault(void *ctx)
{
	struct fault_walk *w = ctx;

	return nxsim_vcpu_access(w->g->e.vcpu, NXSIM_ACCESS_READ, GIB + 0x5000,
				 NULL);
}

/* Every allocation of a PAE guest's first fault fails in turn. */
static void test_alloc_failures_pae(void **state)
{
	struct guest g = pae_make(NXSIM_PG_LEVEL_4K, true);
	struct fault_walk w = { &g };

	(void)state;
	pae_map(&g, GIB + 0x5000, DATA_GPA, 1);
	assert_true(test_alloc_failures(op_pae_fault, NULL, same, &w) >= 5);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	nx_env_destroy(&g.e);
}

/* ---- 32-bit guests: 4-byte gptes, quadrants ------------------------------ */

#define PD32 0x1000ull /* the 32-bit guest's CR3 */
#define LOW_GPA GIB    /* slot 11: data below 4 GiB */

/*
 * A 32-bit guest with CR4.PSE: its directory at PD32, tables from 0x2000;
 * slot 10 (4 GiB, PSE-36 only) backed at @high_host, slot 11 (1 GiB, 16
 * MiB) at @low_host.
 */
static struct guest g32_make(int high_host, int low_host)
{
	struct guest g = guest_make("6.18", high_host, 4 * MIB2, 0);
	struct nxsim_guest_paging p = {
		.cr0_pg = true, .cr0_wp = true, .cr4_pse = true, .cr3 = PD32
	};

	nx_slot(g.e.vm, 11, LOW_GPA, 8 * MIB2, HVA_BASE + 32 * GIB, low_host,
		0);
	assert_rc(nxsim_guest_set_paging(g.e.vcpu, &p), 0);
	g.next = 0x2000;
	return g;
}

/* The 32-bit guest's PDE of @gva (its address) and PTE (if @level 1). */
static uint64_t g32_map(struct guest *g, uint64_t gva, uint64_t gpa, int level)
{
	uint64_t ea = PD32 + 4 * (gva >> 22), e = 0;

	if (level == 2) {
		/* PSE-36: address bits 32-35 in PDE bits 13-16 */
		e = (gpa & 0xffc00000) | ((gpa >> 32) & 0xf) << 13 | PWU | PS;
	} else {
		assert_rc(nxsim_guest_read(g->e.vm, ea, &e, 4), 0);
		if (!(e & NXSIM_GPTE_P)) {
			e = g->next | PWU;
			g->next += 4096;
			assert_rc(nxsim_guest_write_pte(g->e.vcpu, ea, e, 4),
				  0);
		}
		ea = (e & 0xfffff000) + 4 * ((gva >> 12) & 1023);
		e = gpa | PWU;
	}
	assert_rc(nxsim_guest_write_pte(g->e.vcpu, ea, e, 4), 0);
	return ea;
}

/*
 * 32-bit guests are shadowed with PAE pages (kvm_mmu_get_child_sp(),
 * mmu_alloc_shadow_roots()): four level-2 roots of CR3's directory,
 * quadrant = the gigabyte; a guest PT by the level-1 page of the half its
 * 2 MiB shadow PDE covers (quadrant = PDE index & 1); a 4 MiB guest page
 * by 2 MiB leaves or a direct page of that half (PSE-36 gives its gfn).
 * Per case: the gva, guest and host levels, the access; the leaf level,
 * shadow pages (the four roots and one below), 4K and 2M leaves,
 * nx_lpage_splits, and the page the dump shows below the roots.
 */
static void test_32bit_guest_levels(void **state)
{
	static const struct {
		uint64_t gva;
		int guest, host;
		enum nxsim_access_kind kind;
		int leaf;
		uint64_t sps, p4k, p2m, splits;
		const char *page;
	} cases[] = {
		{ 0x00c05000, 1, 2, NXSIM_ACCESS_READ, 1, 5, 1, 0, 0,
		  "table L1 shadows guest table gfn 0x2 quadrant 0 " },
		{ 0x40e05000, 1, 1, NXSIM_ACCESS_WRITE, 1, 5, 1, 0, 0,
		  "table L1 shadows guest table gfn 0x2 quadrant 1 " },
		{ 0x80000000, 2, 2, NXSIM_ACCESS_READ, 2, 4, 0, 1, 0,
		  "[0-0] 1 x 2M leaf gfn 0x100000-0x1001ff " },
		{ 0x80300000, 2, 2, NXSIM_ACCESS_READ, 2, 4, 0, 1, 0,
		  "[1-1] 1 x 2M leaf gfn 0x100200-0x1003ff " },
		{ 0x80300000, 2, 2, NXSIM_ACCESS_EXEC, 1, 5, 8, 0, 1,
		  "table L1 gfn 0x100200-0x1003ff quadrant 1 " },
		{ 0xc0000000, 2, 1, NXSIM_ACCESS_READ, 1, 5, 8, 0, 0,
		  "table L1 gfn 0x100000-0x1001ff quadrant 0 " },
	};
	char dump[8192];
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct guest g = g32_make(cases[i].host, cases[i].host);
		struct nxsim_access_info ai;

		print_message("case %u\n", i);
		if (cases[i].guest == 2)
			g32_map(&g, cases[i].gva, DATA_GPA, 2);
		else
			g32_map(&g, cases[i].gva, LOW_GPA + 0x5000, 1);
		ai = access(&g, cases[i].kind, cases[i].gva);
		assert_int_equal(ai.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(ai.level, cases[i].leaf);
		assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), cases[i].sps);
		nx_expect(g.e.vm, cases[i].p4k, cases[i].p2m, 0,
			  cases[i].splits);
		assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
		assert_non_null(strstr(dump, "pae_root[3]:\n    root L2 "
					     "shadows guest table gfn 0x1 "
					     "quadrant 3 "));
		assert_non_null(strstr(dump, cases[i].page));
		assert_int_equal(
			access(&g, cases[i].kind, cases[i].gva).outcome,
			NXSIM_ACCESS_HIT);
		nx_env_destroy(&g.e);
	}
}

/*
 * The guest's stores to its shadowed 4-byte tables
 * (get_written_sptes()): a PTE is the SPTE at twice its offset, in the
 * page of its quadrant only; a 4 MiB PDE is two SPTEs of the root of its
 * quadrant.
 */
static void test_32bit_pte_write(void **state)
{
	struct guest g = g32_make(NXSIM_PG_LEVEL_2M, NXSIM_PG_LEVEL_4K);
	uint64_t pte, pde;

	(void)state;
	/* PT entries 517 (quadrant 1's page) and 5 (quadrant 0's) */
	pte = g32_map(&g, 0x00205000, LOW_GPA + 0x5000, 1);
	g32_map(&g, 0x00005000, LOW_GPA + 0x6000, 1);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x00205000).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x00005000).outcome,
			 NXSIM_ACCESS_FAULT);
	/* the four roots and both halves of the PT */
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 6);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	/* the store to entry 517 is trapped and zaps its SPTE only */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pte, (LOW_GPA + 0x7000) | PWU,
					4),
		  0);
	assert_int_equal(counter(&g, "emulated"), 1);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x00005000).outcome,
			 NXSIM_ACCESS_HIT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x00205000).outcome,
			 NXSIM_ACCESS_FAULT);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	/* a 4 MiB page at 2 GiB, both halves mapped 2M */
	/* (the store to the shadowed directory is emulated too) */
	pde = g32_map(&g, 0x80000000, DATA_GPA, 2);
	assert_int_equal(counter(&g, "emulated"), 2);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x80000000).level, 2);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, 0x80200000).level, 2);
	nx_expect(g.e.vm, 2, 2, 0, 0);
	/* its PDE rewritten: both SPTEs of quadrant 2's root go */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pde,
					(DATA_GPA >> 32) << 13 | PWU | PS, 4),
		  0);
	assert_int_equal(counter(&g, "emulated"), 3);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 6);
	nx_env_destroy(&g.e);
}

static int op_g32_fault(void *ctx)
{
	struct fault_walk *w = ctx;

	return nxsim_vcpu_access(w->g->e.vcpu, NXSIM_ACCESS_READ, 0x40e05000,
				 NULL);
}

/* Every allocation of a 32-bit guest's first fault fails in turn. */
static void test_alloc_failures_32bit(void **state)
{
	struct guest g = g32_make(NXSIM_PG_LEVEL_4K, NXSIM_PG_LEVEL_4K);
	struct fault_walk w = { &g };

	(void)state;
	g32_map(&g, 0x40e05000, LOW_GPA, 1);
	assert_true(test_alloc_failures(op_g32_fault, NULL, same, &w) >= 5);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 5);
	nx_env_destroy(&g.e);
}

/*
 * Unsync 4-byte tables: the guest's PT at 0x2000 is shadowed for its high
 * half (PDE 0's shadow PDE 1: quadrant 1) and written through the guest's
 * mapping of it: the quadrant-1 page goes unsync.  INVLPG remakes the
 * entry from the 4-byte gpte at entry 512 + index
 * (FNAME(get_level1_sp_gpa)); after a CR3 load the roots are loaded
 * again at the next fault and synced (FNAME(sync_page) on 4-byte gptes).
 */
static void test_32bit_unsync(void **state)
{
	struct guest g = g32_make(NXSIM_PG_LEVEL_4K, NXSIM_PG_LEVEL_4K);
	const uint64_t a = 0x00205000, b = 0x00206000, self = 0x00207000;
	char dump[8192];

	(void)state;
	g32_map(&g, a, LOW_GPA + 0x5000, 1);
	g32_map(&g, b, LOW_GPA + 0x6000, 1);
	g32_map(&g, self, 0x2000, 1);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, a).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, b).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 2, 0, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 5);
	/* the write through the self-map: the quadrant-1 page goes unsync */
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, self).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 3, 0, 1, 0, 1);
	nx_expect(g.e.vm, 3, 0, 0, 0);
	assert_true(nxsim_vm_dump_buf(g.e.vm, dump, sizeof(dump)) > 0);
	assert_non_null(strstr(dump, "table L1 shadows guest table gfn 0x2 "
				     "quadrant 1 "));
	/* stores land without a trap; a and b stay stale */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, 0x2000 + 4 * 517, 0, 4), 0);
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, 0x2000 + 4 * 518, 0, 4), 0);
	unsync_expect(&g, 3, 0, 1, 0, 1);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, a).outcome,
			 NXSIM_ACCESS_HIT);
	/* INVLPG a: remade from 4-byte entry 517: gone */
	assert_rc(nxsim_guest_invlpg(g.e.vcpu, a), 0);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, a).outcome,
			 NXSIM_ACCESS_GUEST_FAULT);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, b).outcome,
			 NXSIM_ACCESS_HIT);
	/*
	 * a CR3 load puts the roots; the next fault loads and syncs them
	 * (b's entry dropped, the self-map's made read-only and without A);
	 * the read fault then makes the self-map's SPTE writable again
	 * (the guest's entry is dirty), which unsyncs the page again
	 */
	reload_cr3(&g);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, self).outcome,
			 NXSIM_ACCESS_FAULT);
	unsync_expect(&g, 4, 0, 2, 1, 1);
	nx_expect(g.e.vm, 1, 0, 0, 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, b).outcome,
			 NXSIM_ACCESS_GUEST_FAULT);
	/* so the next store lands without a trap */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, 0x2000 + 4 * 517,
					(LOW_GPA + 0x5000) | PWU, 4),
		  0);
	unsync_expect(&g, 4, 0, 2, 1, 1);
	nx_env_destroy(&g.e);
}

/*
 * detect_write_flooding(): the guest's PD (0x3000, shadowed above 4K, so
 * write-tracked) written a third time with no fault walking through its
 * shadow page in between is zapped; a fault through it (FNAME(fetch),
 * clear_sp_write_flooding_count()) starts the count again, and so does
 * the emulated write fault of shadow_page_table_clear_flood(); the PT
 * (4K) never floods.
 */
static void test_write_flooding(void **state)
{
	struct guest g = guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2, 0);
	const uint64_t pd = 0x3000, pt = 0x4000;
	int i;

	(void)state;
	guest_map(&g, GIB, DATA_GPA, NXSIM_PG_LEVEL_4K);
	guest_map(&g, GIB + 0x1000, DATA_GPA + 0x1000, NXSIM_PG_LEVEL_4K);
	assert_int_equal(g.next - 4096, pt);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_FAULT);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	/* two stores to PD entry 5, a fault through the PD, two more */
	for (i = 0; i < 2; i++)
		assert_rc(nxsim_guest_write_pte(g.e.vcpu, pd + 8 * 5, 0, 8), 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB + 0x1000).outcome,
			 NXSIM_ACCESS_FAULT);
	for (i = 0; i < 2; i++)
		assert_rc(nxsim_guest_write_pte(g.e.vcpu, pd + 8 * 5, 0, 8), 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	assert_int_equal(counter(&g, "emulated"), 4);
	/* the PT: stores 3 times, never flooded (its SPTE 7 zapped each) */
	for (i = 0; i < 3; i++)
		assert_rc(nxsim_guest_write_pte(g.e.vcpu, pt + 8 * 7, 0, 8), 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	/* the third PD store since the fault: the PD's page is zapped */
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pd + 8 * 5, 0, 8), 0);
	assert_int_equal(counter(&g, "emulated"), 8);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	/* the next fault makes it again (the PT's page, parentless, is
	 * found in the hash and linked again: its leaves are in place) */
	assert_int_equal(access(&g, NXSIM_ACCESS_READ, GIB).outcome,
			 NXSIM_ACCESS_SPURIOUS);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	nx_expect(g.e.vm, 2, 0, 0, 0);
	/*
	 * The guest maps its PD at gva 1G + 0x2000 (a store to its PT, which
	 * zaps nothing there); two PD stores; then a write through that
	 * mapping: write-tracked, so emulated, after the walk's pages are
	 * cleared; its own store (PD entry 0 as it is) counts 1, and one
	 * more store leaves the PD's page; the next one floods it.
	 */
	guest_map(&g, GIB + 0x2000, pd, NXSIM_PG_LEVEL_4K);
	for (i = 0; i < 2; i++)
		assert_rc(nxsim_guest_write_pte(g.e.vcpu, pd + 8 * 5, 0, 8), 0);
	assert_int_equal(access(&g, NXSIM_ACCESS_WRITE, GIB + 0x2000).outcome,
			 NXSIM_ACCESS_EMULATE);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pd + 8 * 5, 0, 8), 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 4);
	assert_rc(nxsim_guest_write_pte(g.e.vcpu, pd + 8 * 5, 0, 8), 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(g.e.vm), 3);
	assert_int_equal(counter(&g, "emulated"), 14);
	nx_env_destroy(&g.e);
}

/*
 * FNAME(pte_prefetch) on indirect pages: after a fault maps a guest 4K
 * entry, the other entries of its group of 8 that the guest has accessed
 * (A set) are mapped too (FNAME(prefetch_gpte)), up to the first that is
 * not; present SPTEs are skipped.  With 8-byte (64-bit guest) and 4-byte
 * (32-bit guest, the PT's quadrant-1 page: entries 512 up) tables.
 */
static void test_indirect_prefetch(void **state)
{
	const uint64_t a = NXSIM_GPTE_A;
	int mode;

	(void)state;
	for (mode = 0; mode < 2; mode++) {
		struct guest g =
			mode ? g32_make(NXSIM_PG_LEVEL_4K, NXSIM_PG_LEVEL_4K) :
			       guest_make("6.18", NXSIM_PG_LEVEL_4K, 4 * MIB2,
					  0);
		uint64_t gva = mode ? 0x00200000 : GIB, gpa, e;
		uint64_t data = mode ? LOW_GPA : DATA_GPA;
		unsigned int sz = mode ? 4 : 8, i;

		print_message("mode %d\n", mode);
		/* PTEs 0-7 of the group: A on 1, 2, 4-7; not on 3 */
		for (i = 0; i < 8; i++) {
			if (mode)
				gpa = g32_map(&g, gva + i * 4096ull,
					      data + i * 4096ull, 1);
			else
				guest_map(&g, gva + i * 4096ull,
					  data + i * 4096ull,
					  NXSIM_PG_LEVEL_4K);
			if (!mode)
				gpa = 0x4000 + 8 * i;
			e = (data + i * 4096ull) | PWU | (i && i != 3 ? a : 0);
			assert_rc(nxsim_guest_write(g.e.vm, gpa, &e, sz), 0);
		}
		assert_int_equal(access(&g, NXSIM_ACCESS_READ, gva).outcome,
				 NXSIM_ACCESS_FAULT);
		/* the fault's leaf, and 1 and 2 prefetched */
		nx_expect(g.e.vm, 3, 0, 0, 0);
		assert_int_equal(
			access(&g, NXSIM_ACCESS_READ, gva + 0x2000).outcome,
			NXSIM_ACCESS_HIT);
		assert_int_equal(
			access(&g, NXSIM_ACCESS_READ, gva + 0x3000).outcome,
			NXSIM_ACCESS_FAULT);
		/* 3's fault: 0-2 present, 4-7 accessed: all mapped */
		nx_expect(g.e.vm, 8, 0, 0, 0);
		assert_int_equal(counter(&g, "faults"), 2);
		nx_env_destroy(&g.e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guest_4k_over_host_2m),
		cmocka_unit_test(test_guest_2m_over_host_4k),
		cmocka_unit_test(test_table_in_2m_region),
		cmocka_unit_test(test_write_protection),
		cmocka_unit_test(test_nx_huge_pages_selftest),
		cmocka_unit_test(test_nonpaging_livelock),
		cmocka_unit_test(test_alloc_failures_shadow),
		cmocka_unit_test(test_unsync_until_flush),
		cmocka_unit_test(test_unsync_not_above_4k),
		cmocka_unit_test(test_alloc_failures_unsync),
		cmocka_unit_test(test_pae_guest_levels),
		cmocka_unit_test(test_pae_roots),
		cmocka_unit_test(test_alloc_failures_pae),
		cmocka_unit_test(test_32bit_guest_levels),
		cmocka_unit_test(test_32bit_pte_write),
		cmocka_unit_test(test_alloc_failures_32bit),
		cmocka_unit_test(test_32bit_unsync),
		cmocka_unit_test(test_write_flooding),
		cmocka_unit_test(test_indirect_prefetch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
