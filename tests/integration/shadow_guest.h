/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest of the shadow paging tests (test_shadow_*.c): a host with TDP
 * off (no_tdp), one VM and vCPU, slot 0 holding the guest's page tables
 * and slot 10 its data, paging on; the guest's own table stores, its
 * accesses, the MMU counters, a CR3 reload and the allocation-failure walk
 * of a fault (docs/shadow-paging.md).
 */
#ifndef NXSIM_TEST_SHADOW_GUEST_H
#define NXSIM_TEST_SHADOW_GUEST_H

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
static inline struct guest guest_make(const char *profile, int data_host_level,
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
static inline void guest_map_at(struct guest *g, uint64_t gva, uint64_t gpa,
				int level, uint64_t pt)
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

static inline void guest_map(struct guest *g, uint64_t gva, uint64_t gpa,
			     int level)
{
	guest_map_at(g, gva, gpa, level, 0);
}

static inline struct nxsim_access_info
access(struct guest *g, enum nxsim_access_kind kind, uint64_t gva)
{
	return nx_access(g->e.vcpu, kind, gva);
}

static inline uint64_t counter(struct guest *g, const char *name)
{
	struct nxsim_mmu_counters c;

	assert_rc(nxsim_vm_mmu_counters(g->e.vm, &c), 0);
	return nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_MMU, name), &c);
}

struct fault_walk {
	struct guest *g;
};

static inline void same(void *ctx)
{
	struct fault_walk *w = ctx;

	nx_expect(w->g->e.vm, 0, 0, 0, 0);
	assert_int_equal(nxsim_vm_nr_mmu_pages(w->g->e.vm), 0);
}

/* The guest loads CR3 again with the value it has (a TLB flush). */
static inline void reload_cr3(struct guest *g)
{
	struct nxsim_guest_paging p;

	assert_rc(nxsim_guest_get_paging(g->e.vcpu, &p, NULL), 0);
	assert_rc(nxsim_guest_set_paging(g->e.vcpu, &p), 0);
}

/* faults, emulated, unsync, synced and unsync_pages at once */
static inline void unsync_expect(struct guest *g, uint64_t faults,
				 uint64_t emulated, uint64_t unsync,
				 uint64_t synced, uint64_t pages)
{
	assert_int_equal(counter(g, "faults"), faults);
	assert_int_equal(counter(g, "emulated"), emulated);
	assert_int_equal(counter(g, "unsync"), unsync);
	assert_int_equal(counter(g, "synced"), synced);
	assert_int_equal(counter(g, "unsync_pages"), pages);
}

#endif
