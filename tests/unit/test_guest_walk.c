// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest page-table walk (FNAME(walk_addr_generic) of
 * arch/x86/kvm/mmu/paging_tmpl.h, src/mmu/guest_walk.c) case by case,
 * one table per paging mode: 4-level 64-bit, PAE and 2-level 32-bit.
 * Each case writes the guest tables, loads the control registers, walks
 * one address with one access, and checks what the walk gives (the gpa,
 * the mapping level, the effective access) or the page fault the guest
 * gets (its error code and the level that failed), then the A/D bits the
 * walk left in guest memory.  Edge cases: every reserved-bit mask of
 * reset_guest_rsvds_bits_mask(), U/S, W with and without CR0.WP, NX with
 * and without EFER.NXE, PS at every level, tables outside guest memory,
 * tables that point at themselves or at each other, A/D bits of a
 * read-only slot, and the PAE PDPTRs loaded with CR3.
 */
#include "../integration/nx_test.h"

/* Entry bits. */
#define P NXSIM_GPTE_P
#define W NXSIM_GPTE_W
#define U NXSIM_GPTE_U
#define A NXSIM_GPTE_A
#define D NXSIM_GPTE_D
#define PS NXSIM_GPTE_PS
#define NX NXSIM_GPTE_NX
#define PWU (P | W | U)

/* Error codes. */
#define EC_P NXSIM_PFERR_PRESENT
#define EC_W NXSIM_PFERR_WRITE
#define EC_U NXSIM_PFERR_USER
#define EC_R NXSIM_PFERR_RSVD
#define EC_F NXSIM_PFERR_FETCH

/* Accesses. */
#define RD 0
#define WR NXSIM_PFERR_WRITE
#define EX NXSIM_PFERR_FETCH
#define US NXSIM_PFERR_USER

/* Effective access. */
#define AX NXSIM_ACC_EXEC
#define AW NXSIM_ACC_WRITE
#define AU NXSIM_ACC_USER

#define RO_SLOT (64ull << 20) /* a read-only slot of 4 MiB here */
#define OUTSIDE (1ull << 40)  /* in no slot */

/* The address every case walks: indexes 0/1/1/1 (64-bit), 1/1/1 (PAE),
 * 0x100/0x201 (32-bit). */
#define GVA 0x40201abcull

/* 64-bit tables: PML4 0x1000, PDPT 0x2000, PD 0x3000, PT 0x4000 */
#define L4E 0x1000
#define L3E 0x2008
#define L2E 0x3008
#define L1E 0x4008
/* PAE: PDPT at CR3 0x5020, entry 1; PD 0x3000 and PT 0x4000 as above */
#define PAE_CR3 0x5020
#define PDPTE1 0x5028
/* 32-bit: PD 0x6000 entry 0x100, PT 0x7000 entry 0x201 */
#define PDE32 0x6400
#define PTE32 0x7804

struct pte_w {
	uint64_t gpa, val;
};

struct walk_case {
	const char *name;
	/* set-up */
	bool amd, no_gbpages;
	bool wp, nxe, pse, user;
	struct pte_w ptes[6];
	uint64_t gva;
	uint32_t pfec;
	/* result */
	bool fault;
	uint32_t ec;
	int level;
	unsigned int access; /* when no fault */
	uint64_t gpa;	     /* when no fault */
	/* an entry as the walk left it (A/D), if gpa is not 0 */
	struct pte_w after;
};

/* The standard 4K walk of each mode, then the case's own entries. */
static const struct pte_w walk64[] = {
	{ L4E, 0x2000 | PWU },
	{ L3E, 0x3000 | PWU },
	{ L2E, 0x4000 | PWU },
	{ L1E, 0x100000 | PWU },
};
static const struct pte_w walk_pae[] = {
	{ PDPTE1, 0x3000 | P },
	{ L2E, 0x4000 | PWU },
	{ L1E, 0x100000 | PWU },
};
static const struct pte_w walk32[] = {
	{ PDE32, 0x7000 | PWU },
	{ PTE32, 0x100000 | PWU },
};

static void print_violation(void *ctx, const char *text)
{
	(void)ctx;
	printf("# violation: %s\n", text);
}

static void run_case(enum nxsim_guest_mode mode, const struct walk_case *c)
{
	struct nxsim_host_config cfg = {
		.cpu.amd = c->amd,
		.cpu.no_gbpages = c->no_gbpages,
		.cpu.no_tdp = true,
	};
	struct nxsim_guest_paging p = {
		.cr0_pg = true,
		.cr0_wp = c->wp,
		.efer_nxe = c->nxe,
		.cr4_pse = c->pse,
		.user = c->user,
	};
	const struct pte_w *base;
	unsigned int size = mode == NXSIM_GUEST_32BIT ? 4 : 8, i, n;
	struct nxsim_guest_walk w;
	struct nxsim_guest_paging got;
	enum nxsim_guest_mode got_mode;
	struct nx_env e = nx_env_config(&cfg);
	uint64_t v = 0;

	print_message("# %s\n", c->name);
	nx_slot(e.vm, 0, 0, 64ull << 20, HVA_BASE, 1, 0);
	nx_slot(e.vm, 1, RO_SLOT, 4ull << 20, HVA_BASE + GIB, 1,
		NXSIM_MEM_READONLY);
	switch (mode) {
	case NXSIM_GUEST_64BIT:
		base = walk64;
		n = ARRAY_SIZE(walk64);
		p.cr4_pae = p.efer_lma = true;
		p.cr3 = 0x1000;
		break;
	case NXSIM_GUEST_PAE:
		base = walk_pae;
		n = ARRAY_SIZE(walk_pae);
		p.cr4_pae = true;
		p.cr3 = PAE_CR3;
		break;
	default:
		base = walk32;
		n = ARRAY_SIZE(walk32);
		p.cr3 = 0x6000;
		break;
	}
	for (i = 0; i < n; i++)
		assert_rc(nxsim_guest_write(e.vm, base[i].gpa, &base[i].val,
					    size),
			  0);
	/* the case's entries: stores by the guest (the read-only slot's by
	 * the VMM, which may write it) */
	for (i = 0; i < ARRAY_SIZE(c->ptes) && c->ptes[i].gpa; i++) {
		if (c->ptes[i].gpa >= RO_SLOT &&
		    c->ptes[i].gpa < RO_SLOT + (4ull << 20))
			assert_rc(nxsim_guest_write(e.vm, c->ptes[i].gpa,
						    &c->ptes[i].val, size),
				  0);
		else
			assert_rc(nxsim_guest_write_pte(e.vcpu, c->ptes[i].gpa,
							c->ptes[i].val, size),
				  0);
	}
	assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
	assert_rc(nxsim_guest_get_paging(e.vcpu, &got, &got_mode), 0);
	assert_int_equal(got_mode, mode);
	assert_int_equal(got.cr3, p.cr3);
	assert_rc(nxsim_guest_translate(e.vcpu, c->gva ? c->gva : GVA,
					c->pfec | (c->user ? US : 0), &w),
		  0);
	assert_int_equal(w.mode, mode);
	assert_int_equal(w.fault, c->fault);
	assert_int_equal(w.error_code, c->ec);
	assert_int_equal(w.level, c->level);
	/* a PAE walk stopped at its PDPTR never started on a table */
	if (mode != NXSIM_GUEST_PAE || c->level != 3)
		assert_int_equal(w.max_level,
				 mode == NXSIM_GUEST_64BIT ? 4 : 2);
	if (!c->fault) {
		assert_int_equal(w.access, c->access);
		assert_int_equal(w.gpa, c->gpa);
	} else {
		assert_int_equal(w.access, 0);
		assert_int_equal(w.gpa, 0);
	}
	if (c->after.gpa) {
		assert_rc(nxsim_guest_read(e.vm, c->after.gpa, &v, size), 0);
		assert_int_equal(v, c->after.val);
	}
	assert_rc(nxsim_vm_check(e.vm, print_violation, NULL), 0);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

static void test_walk64(void **state)
{
	static const struct walk_case cases[] = {
		{ "4K read: A on every level, no D, W dropped (clean)",
		  .wp = true, .nxe = true, .pfec = RD, .level = 1,
		  .access = AX | AU, .gpa = 0x100abc,
		  .after = { L1E, 0x100000 | PWU | A } },
		{ "4K read: upper levels get A too", .wp = true, .nxe = true,
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc,
		  .after = { L4E, 0x2000 | PWU | A } },
		{ "4K write: D on the leaf, W kept", .wp = true, .nxe = true,
		  .pfec = WR, .level = 1, .access = AX | AW | AU,
		  .gpa = 0x100abc, .after = { L1E, 0x100000 | PWU | A | D } },
		{ "4K read of a dirty page keeps W", .wp = true, .nxe = true,
		  .ptes = { { L1E, 0x100000 | PWU | A | D } }, .pfec = RD,
		  .level = 1, .access = AX | AW | AU, .gpa = 0x100abc },
		{ "write to a read-only leaf, CR0.WP=1: #PF P|W", .wp = true,
		  .nxe = true, .ptes = { { L1E, 0x100000 | P | U } },
		  .pfec = WR, .fault = true, .ec = EC_P | EC_W, .level = 1,
		  .after = { L1E, 0x100000 | P | U } },
		{ "supervisor write to a read-only leaf, CR0.WP=0: allowed",
		  .nxe = true, .ptes = { { L1E, 0x100000 | P | U } },
		  .pfec = WR, .level = 1, .access = AX | AU, .gpa = 0x100abc,
		  .after = { L1E, 0x100000 | P | U | A | D } },
		{ "user write to a read-only leaf, CR0.WP=0: #PF P|W|U",
		  .user = true, .nxe = true,
		  .ptes = { { L1E, 0x100000 | P | U } }, .pfec = WR,
		  .fault = true, .ec = EC_P | EC_W | EC_U, .level = 1 },
		{ "W clear at the PDPTE makes the page read-only", .wp = true,
		  .nxe = true, .ptes = { { L3E, 0x3000 | P | U } }, .pfec = WR,
		  .fault = true, .ec = EC_P | EC_W, .level = 1 },
		{ "user read of a supervisor PDE: #PF P|U", .user = true,
		  .wp = true, .nxe = true, .ptes = { { L2E, 0x4000 | P | W } },
		  .pfec = RD, .fault = true, .ec = EC_P | EC_U, .level = 1 },
		{ "supervisor read of a user page", .wp = true, .nxe = true,
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "fetch from an NX leaf, EFER.NXE=1: #PF P|F", .wp = true,
		  .nxe = true, .ptes = { { L1E, 0x100000 | PWU | NX } },
		  .pfec = EX, .fault = true, .ec = EC_P | EC_F, .level = 1 },
		{ "NX at the PML4E covers the page", .wp = true, .nxe = true,
		  .ptes = { { L4E, 0x2000 | PWU | NX } }, .pfec = EX,
		  .fault = true, .ec = EC_P | EC_F, .level = 1 },
		{ "read of an NX page: access without X", .wp = true,
		  .nxe = true, .ptes = { { L1E, 0x100000 | PWU | NX } },
		  .pfec = RD, .level = 1, .access = AU, .gpa = 0x100abc },
		{ "fetch from an executable page", .wp = true, .nxe = true,
		  .pfec = EX, .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "NX bit with EFER.NXE=0 is reserved: #PF RSVD|P", .wp = true,
		  .ptes = { { L1E, 0x100000 | PWU | NX } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 1,
		  .after = { L4E, 0x2000 | PWU } },
		{ "fetch fault with EFER.NXE=0 has no F bit", .wp = true,
		  .ptes = { { L1E, 0x100000 | W | U } }, .pfec = EX,
		  .fault = true, .ec = 0, .level = 1 },
		{ "not-present PTE, read: #PF 0", .wp = true, .nxe = true,
		  .ptes = { { L1E, 0x100000 | W | U } }, .pfec = RD,
		  .fault = true, .ec = 0, .level = 1 },
		{ "not-present PDPTE, user fetch: #PF U|F", .wp = true,
		  .nxe = true, .user = true, .ptes = { { L3E, 0 } }, .pfec = EX,
		  .fault = true, .ec = EC_U | EC_F, .level = 3 },
		{ "not-present PML4E, write: #PF W", .wp = true, .nxe = true,
		  .ptes = { { L4E, 0x2000 | W } }, .pfec = WR, .fault = true,
		  .ec = EC_W, .level = 4, .after = { L4E, 0x2000 | W } },
		{ "2M page", .wp = true, .nxe = true,
		  .ptes = { { L2E, 0x200000 | PWU | PS } }, .pfec = RD,
		  .level = 2, .access = AX | AU, .gpa = 0x201abc,
		  .after = { L2E, 0x200000 | PWU | PS | A } },
		{ "2M page, write sets D on the PDE", .wp = true, .nxe = true,
		  .ptes = { { L2E, 0x200000 | PWU | PS } }, .pfec = WR,
		  .level = 2, .access = AX | AW | AU, .gpa = 0x201abc,
		  .after = { L2E, 0x200000 | PWU | PS | A | D } },
		{ "2M page with bit 13 set: reserved", .wp = true, .nxe = true,
		  .ptes = { { L2E, 0x202000 | PWU | PS } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 2 },
		{ "4K PDE pointer with bit 13 set is an address bit",
		  .wp = true, .nxe = true,
		  .ptes = { { L2E, 0x6000 | PWU }, { 0x6008, 0x100000 | PWU } },
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "1G page with GBPAGES", .wp = true, .nxe = true,
		  .ptes = { { L3E, 0x40000000 | PWU | PS } }, .pfec = RD,
		  .level = 3, .access = AX | AU, .gpa = 0x40201abc },
		{ "1G page with bit 29 set: reserved", .wp = true, .nxe = true,
		  .ptes = { { L3E, 0x60000000 | PWU | PS } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 3 },
		{ "1G page without GBPAGES: PS reserved", .no_gbpages = true,
		  .wp = true, .nxe = true,
		  .ptes = { { L3E, 0x40000000 | PWU | PS } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 3 },
		{ "PS in a PML4E: reserved", .wp = true, .nxe = true,
		  .ptes = { { L4E, 0x2000 | PWU | PS } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 4 },
		{ "address bit 46 (MAXPHYADDR 46): reserved", .wp = true,
		  .nxe = true, .ptes = { { L1E, (1ull << 46) | PWU } },
		  .pfec = WR, .fault = true, .ec = EC_R | EC_P | EC_W,
		  .level = 1 },
		{ "address bit 45: a gpa outside every slot, walk succeeds",
		  .wp = true, .nxe = true,
		  .ptes = { { L1E, (1ull << 45) | PWU } }, .pfec = RD,
		  .level = 1, .access = AX | AU, .gpa = (1ull << 45) | 0xabc },
		{ "bit 52 (ignored, available) in a PTE", .wp = true,
		  .nxe = true,
		  .ptes = { { L1E, (1ull << 52) | 0x100000 | PWU } },
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "bit 8 of a PML4E on Intel: ignored", .wp = true, .nxe = true,
		  .ptes = { { L4E, 0x2000 | PWU | (1ull << 8) } }, .pfec = RD,
		  .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "bit 8 of a PML4E on AMD: reserved", .amd = true, .wp = true,
		  .nxe = true, .ptes = { { L4E, 0x2000 | PWU | (1ull << 8) } },
		  .pfec = RD, .fault = true, .ec = EC_R | EC_P, .level = 4 },
		{ "PDPT outside guest memory: #PF 0 at the PDPT level",
		  .wp = true, .nxe = true, .ptes = { { L4E, OUTSIDE | PWU } },
		  .pfec = RD, .fault = true, .ec = 0, .level = 3 },
		{ "a PML4 that maps itself at every level: gpa of the PML4",
		  .wp = true, .nxe = true, .ptes = { { L4E, 0x1000 | PWU } },
		  .gva = 0xabc, .pfec = RD, .level = 1, .access = AX | AU,
		  .gpa = 0x1abc, .after = { L4E, 0x1000 | PWU | A } },
		{ "two tables pointing at each other: four reads, then a leaf",
		  .wp = true, .nxe = true,
		  .ptes = { { L4E, 0x8000 | PWU }, { 0x8000, 0x1000 | PWU } },
		  .gva = 0x123, .pfec = RD, .level = 1, .access = AX | AU,
		  .gpa = 0x1123 },
		{ "a loop through a huge-page bit: PS in the PML4 is reserved",
		  .wp = true, .nxe = true,
		  .ptes = { { L4E, 0x1000 | PWU | PS } }, .gva = 0x123,
		  .pfec = RD, .fault = true, .ec = EC_R | EC_P, .level = 4 },
		{ "tables in a read-only slot: walk works, A not written",
		  .wp = true, .nxe = true,
		  .ptes = { { L2E, RO_SLOT | PWU },
			    { RO_SLOT + 8, 0x100000 | PWU } },
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc,
		  .after = { RO_SLOT + 8, 0x100000 | PWU } },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(NXSIM_GUEST_64BIT, &cases[i]);
}

static void test_walk_pae(void **state)
{
	static const struct walk_case cases[] = {
		{ "4K read through PDPTR 1 (CR3 at 0x5020)", .wp = true,
		  .nxe = true, .pfec = RD, .level = 1, .access = AX | AU,
		  .gpa = 0x100abc, .after = { L2E, 0x4000 | PWU | A } },
		{ "PDPTE A bit is not set: PDPTRs are registers", .wp = true,
		  .nxe = true, .pfec = WR, .level = 1, .access = AX | AW | AU,
		  .gpa = 0x100abc, .after = { PDPTE1, 0x3000 | P } },
		{ "not-present PDPTE: #PF 0 at level 3", .wp = true,
		  .nxe = true, .ptes = { { PDPTE1, 0x3000 } }, .pfec = RD,
		  .fault = true, .ec = 0, .level = 3 },
		{ "not-present PDPTE, fetch with NXE: #PF F", .wp = true,
		  .nxe = true, .ptes = { { PDPTE1, 0 } }, .pfec = EX,
		  .fault = true, .ec = EC_F, .level = 3 },
		{ "2M page", .wp = true, .nxe = true,
		  .ptes = { { L2E, 0x200000 | PWU | PS } }, .pfec = RD,
		  .level = 2, .access = AX | AU, .gpa = 0x201abc },
		{ "2M page with bit 20 set: reserved", .wp = true, .nxe = true,
		  .ptes = { { L2E, 0x300000 | PWU | PS } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 2 },
		{ "NX leaf, NXE=1: fetch faults", .wp = true, .nxe = true,
		  .ptes = { { L1E, 0x100000 | PWU | NX } }, .pfec = EX,
		  .fault = true, .ec = EC_P | EC_F, .level = 1 },
		{ "NX leaf, NXE=0: reserved", .wp = true,
		  .ptes = { { L1E, 0x100000 | PWU | NX } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 1 },
		{ "bit 62 of a PTE (above MAXPHYADDR): reserved in PAE",
		  .wp = true, .nxe = true,
		  .ptes = { { L1E, (1ull << 62) | 0x100000 | PWU } },
		  .pfec = RD, .fault = true, .ec = EC_R | EC_P, .level = 1 },
		{ "user write to a supervisor page", .user = true, .wp = true,
		  .nxe = true, .ptes = { { L1E, 0x100000 | P | W } },
		  .pfec = WR, .fault = true, .ec = EC_P | EC_W | EC_U,
		  .level = 1 },
		{ "PD outside guest memory: #PF 0", .wp = true, .nxe = true,
		  .ptes = { { L2E, OUTSIDE | PWU } }, .pfec = RD, .fault = true,
		  .ec = 0, .level = 1 },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(NXSIM_GUEST_PAE, &cases[i]);
}

static void test_walk32(void **state)
{
	static const struct walk_case cases[] = {
		{ "4K read", .wp = true, .pfec = RD, .level = 1,
		  .access = AX | AU, .gpa = 0x100abc,
		  .after = { PTE32, 0x100000 | PWU | A } },
		{ "4K write: 4-byte D and A, the next entry untouched",
		  .wp = true, .ptes = { { PTE32 + 4, 0x55555001 } }, .pfec = WR,
		  .level = 1, .access = AX | AW | AU, .gpa = 0x100abc,
		  .after = { PTE32 + 4, 0x55555001 } },
		{ "4K write sets D", .wp = true, .pfec = WR, .level = 1,
		  .access = AX | AW | AU, .gpa = 0x100abc,
		  .after = { PTE32, 0x100000 | PWU | A | D } },
		{ "4M page with CR4.PSE", .wp = true, .pse = true,
		  .ptes = { { PDE32, 0x400000 | PWU | PS } }, .pfec = RD,
		  .level = 2, .access = AX | AU, .gpa = 0x601abc },
		{ "PS without CR4.PSE is ignored: the PDE is a table",
		  .wp = true, .ptes = { { PDE32, 0x7000 | PWU | PS } },
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "PSE-36: PDE bits 13-16 are address bits 32-35", .wp = true,
		  .pse = true,
		  .ptes = { { PDE32, 0x400000 | 0x2000 | PWU | PS } },
		  .pfec = RD, .level = 2, .access = AX | AU,
		  .gpa = 0x100601abcull },
		{ "4M page with bit 17 set: reserved", .wp = true, .pse = true,
		  .ptes = { { PDE32, 0x420000 | PWU | PS } }, .pfec = RD,
		  .fault = true, .ec = EC_R | EC_P, .level = 2 },
		{ "bit 17 in a 4K PDE is an address bit", .wp = true,
		  .ptes = { { PDE32, 0x20000 | PWU },
			    { 0x20804, 0x100000 | PWU } },
		  .pfec = RD, .level = 1, .access = AX | AU, .gpa = 0x100abc },
		{ "no NX in 32-bit paging: every page executes", .wp = true,
		  .nxe = true, .pfec = EX, .level = 1, .access = AX | AU,
		  .gpa = 0x100abc },
		{ "not present, fetch with NXE: #PF F", .wp = true, .nxe = true,
		  .ptes = { { PTE32, 0x100000 } }, .pfec = EX, .fault = true,
		  .ec = EC_F, .level = 1 },
		{ "not-present PDE: #PF at level 2", .wp = true,
		  .ptes = { { PDE32, 0x7000 | W | U } }, .pfec = WR,
		  .fault = true, .ec = EC_W, .level = 2 },
		{ "user read of a supervisor PTE", .user = true, .wp = true,
		  .ptes = { { PTE32, 0x100000 | P | W } }, .pfec = RD,
		  .fault = true, .ec = EC_P | EC_U, .level = 1 },
		{ "supervisor write, CR0.WP=0, read-only PDE: allowed",
		  .ptes = { { PDE32, 0x7000 | P | U } }, .pfec = WR, .level = 1,
		  .access = AX | AU, .gpa = 0x100abc },
		{ "a page directory that maps itself (indexes 0x100, 0x100)",
		  .wp = true, .ptes = { { PDE32, 0x6000 | PWU } },
		  .gva = 0x40100abc, .pfec = RD, .level = 1, .access = AX | AU,
		  .gpa = 0x6abc },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(NXSIM_GUEST_32BIT, &cases[i]);
}

/* Paging off: the address is the gpa, every access allowed, no walk. */
static void test_nonpaging(void **state)
{
	struct nxsim_host_config cfg = { .cpu.no_tdp = true };
	struct nx_env e = nx_env_config(&cfg);
	struct nxsim_guest_walk w;
	enum nxsim_guest_mode mode = NXSIM_GUEST_64BIT;
	struct nxsim_guest_paging p;

	(void)state;
	assert_rc(nxsim_guest_get_paging(e.vcpu, &p, &mode), 0);
	assert_int_equal(mode, NXSIM_GUEST_NONPAGING);
	assert_false(p.cr0_pg);
	assert_rc(nxsim_guest_translate(e.vcpu, 0x12345678, WR | US, &w), 0);
	assert_int_equal(w.mode, NXSIM_GUEST_NONPAGING);
	assert_false(w.fault);
	assert_int_equal(w.gpa, 0x12345678);
	assert_int_equal(w.access, AX | AW | AU);
	assert_int_equal(w.level, 0);
	/* linear addresses have 32 bits */
	assert_rc(nxsim_guest_translate(e.vcpu, 1ull << 32, RD, &w), -EINVAL);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

/*
 * kvm_set_cr*() checks: what would #GP fails with -EINVAL and changes
 * nothing; PAE loads the PDPTRs with CR3 and keeps them until the next
 * load, whatever the guest writes to the PDPT meanwhile.
 */
static void test_set_paging(void **state)
{
	struct nxsim_host_config cfg = { .cpu.no_tdp = true };
	struct nx_env e = nx_env_config(&cfg);
	struct nxsim_guest_paging p = {
		.cr0_pg = true, .cr4_pae = true, .cr0_wp = true, .cr3 = PAE_CR3
	};
	struct nxsim_guest_paging bad, got;
	enum nxsim_guest_mode mode;
	struct nxsim_guest_walk w;
	unsigned int i;
	static const struct {
		const char *name;
		struct nxsim_guest_paging p;
		uint64_t pdpte; /* written at PDPTE1 first */
	} gp[] = {
		{ "long mode without PAE",
		  { .cr0_pg = true, .efer_lma = true, .cr3 = 0x1000 } },
		{ "long mode without paging",
		  { .cr4_pae = true, .efer_lma = true, .cr3 = 0x1000 } },
		{ "CR3 beyond MAXPHYADDR",
		  { .cr0_pg = true,
		    .cr4_pae = true,
		    .efer_lma = true,
		    .cr3 = 1ull << 46 } },
		{ "CR3 above 4 GiB outside long mode",
		  { .cr0_pg = true, .cr3 = 1ull << 32 } },
		{ "PAE: PDPT outside guest memory",
		  { .cr0_pg = true, .cr4_pae = true, .cr3 = OUTSIDE } },
		{ "PAE: present PDPTE with bit 1 (reserved)",
		  { .cr0_pg = true, .cr4_pae = true, .cr3 = PAE_CR3 },
		  0x3000 | P | W },
		{ "PAE: present PDPTE with bit 63 (reserved)",
		  { .cr0_pg = true, .cr4_pae = true, .cr3 = PAE_CR3 },
		  0x3000 | P | NX },
		{ "PAE: present PDPTE with bit 46 (MAXPHYADDR)",
		  { .cr0_pg = true, .cr4_pae = true, .cr3 = PAE_CR3 },
		  (1ull << 46) | P },
	};

	(void)state;
	nx_slot(e.vm, 0, 0, 64ull << 20, HVA_BASE, 1, 0);
	for (i = 0; i < ARRAY_SIZE(walk_pae); i++)
		assert_rc(nxsim_guest_write_pte(e.vcpu, walk_pae[i].gpa,
						walk_pae[i].val, 8),
			  0);
	assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
	for (i = 0; i < ARRAY_SIZE(gp); i++) {
		print_message("# %s\n", gp[i].name);
		if (gp[i].pdpte)
			assert_rc(nxsim_guest_write_pte(e.vcpu, PDPTE1,
							gp[i].pdpte, 8),
				  0);
		bad = gp[i].p;
		assert_rc(nxsim_guest_set_paging(e.vcpu, &bad), -EINVAL);
		assert_rc(nxsim_guest_get_paging(e.vcpu, &got, &mode), 0);
		assert_int_equal(mode, NXSIM_GUEST_PAE);
		assert_int_equal(got.cr3, PAE_CR3);
		/* the PDPTRs loaded first are still in use */
		assert_rc(nxsim_guest_translate(e.vcpu, GVA, RD, &w), 0);
		assert_false(w.fault);
		assert_int_equal(w.gpa, 0x100abc);
	}
	/* a reserved bit in a PDPTE that is not present is fine */
	assert_rc(nxsim_guest_write_pte(e.vcpu, PDPTE1, 0x3000 | W, 8), 0);
	assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
	assert_rc(nxsim_guest_translate(e.vcpu, GVA, RD, &w), 0);
	assert_true(w.fault);
	assert_int_equal(w.level, 3);
	/* bad arguments */
	assert_rc(nxsim_guest_set_paging(e.vcpu, NULL), -EINVAL);
	assert_rc(nxsim_guest_set_paging(NULL, &p), -EINVAL);
	assert_rc(nxsim_guest_get_paging(e.vcpu, NULL, NULL), -EINVAL);
	assert_rc(nxsim_guest_translate(e.vcpu, GVA, RD, NULL), -EINVAL);
	assert_rc(nxsim_guest_translate(e.vcpu, GVA, WR | EX, &w), -EINVAL);
	assert_rc(nxsim_guest_translate(e.vcpu, GVA, EC_R, &w), -EINVAL);
	assert_rc(nxsim_guest_translate(e.vcpu, GVA, EC_P, &w), -EINVAL);
	assert_rc(nxsim_guest_translate(e.vcpu, 1ull << 32, RD, &w), -EINVAL);
	/* 64-bit: non-canonical addresses */
	p = (struct nxsim_guest_paging){
		.cr0_pg = true, .cr4_pae = true, .efer_lma = true, .cr3 = 0x1000
	};
	assert_rc(nxsim_guest_set_paging(e.vcpu, &p), 0);
	assert_rc(nxsim_guest_translate(e.vcpu, 1ull << 47, RD, &w), -EINVAL);
	assert_rc(nxsim_guest_translate(e.vcpu, 0xffff800000000000ull, RD, &w),
		  0);
	assert_rc(nxsim_guest_translate(e.vcpu, (1ull << 47) - 1, RD, &w), 0);
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_rc(nxsim_guest_translate(e.vcpu, GVA, RD, &w), -EBADF);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk64),
		cmocka_unit_test(test_walk_pae),
		cmocka_unit_test(test_walk32),
		cmocka_unit_test(test_nonpaging),
		cmocka_unit_test(test_set_paging),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
