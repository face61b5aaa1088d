// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shadow paging of PAE guests (pae_root) and 32-bit guests (4-byte gptes
 * shadowed by quadrant), step by step with the VM stats and the checker
 * after every step (docs/shadow-paging.md): leaf levels, roots, stores to
 * their tables, unsync, the allocation failures of their first fault, and
 * FNAME(pte_prefetch) on 8-byte and 4-byte tables.  64-bit guests:
 * test_shadow_paging.c.
 */
#include "shadow_guest.h"

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
		cmocka_unit_test(test_pae_guest_levels),
		cmocka_unit_test(test_pae_roots),
		cmocka_unit_test(test_alloc_failures_pae),
		cmocka_unit_test(test_32bit_guest_levels),
		cmocka_unit_test(test_32bit_pte_write),
		cmocka_unit_test(test_alloc_failures_32bit),
		cmocka_unit_test(test_32bit_unsync),
		cmocka_unit_test(test_indirect_prefetch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
