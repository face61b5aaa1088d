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
 *   - write flooding (detect_write_flooding()).
 * PAE and 32-bit guests: test_shadow_legacy.c.
 */
#include "shadow_guest.h"

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
	 * the checker sees the unflagged table, the page table below the
	 * PAE root (428e921611bc)
	 */
	assert_int_equal(fetch_write_loop("6.6", NXSIM_BUG_NONPAGING_UNTRACKED,
					  &splits, &violations),
			 2 * LIVELOCK_CAP);
	assert_int_equal(violations, 1);
	/* 6.1: untracked, but bounded, and legitimately unflagged */
	assert_int_equal(fetch_write_loop("6.1", 0, &splits, &violations), 2);
	assert_int_equal(splits, 0);
	assert_int_equal(violations, 0);
}

static int op_fault(void *ctx)
{
	struct fault_walk *w = ctx;

	return nxsim_vcpu_access(w->g->e.vcpu, NXSIM_ACCESS_READ, GIB, NULL);
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
		cmocka_unit_test(test_write_flooding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
