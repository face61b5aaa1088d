// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost model's default table (docs/xpfo.md): cycles per event on a
 * ~3 GHz core, each with where it comes from.  Bracketed tags are the
 * source keys of docs/sources.md; "assumption" marks a modelling choice.
 * The workload-work rows are charged with and without XPFO alike, so they
 * set the baseline the ratios divide by; they were chosen so the "compile"
 * workload lands on the published 4-CPU point.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <nxsim/xpfo.h>

#include "core/compiler.h"
#include "core/cost_table.h"

#define ROW(f, c, s)                                                     \
	{                                                                \
		.name = #f, .off = offsetof(struct nxsim_xpfo_costs, f), \
		.def = c, .min = 0, .max = UINT32_MAX,                   \
		.range = "value outside [0, UINT32_MAX]", .source = s,   \
	}

static const struct nxsim__cost_row cost_rows[] = {
	ROW(stlb_hit, 10, "STLB hit ~12 cycles on Haswell [S61]"),
	ROW(walk, 20,
	    "page walk with cached paging structures, 10-20 "
	    "[S42b], ~20 [S61]"),
	ROW(invlpg, 250, "INVLPG 200-260 cycles [S42b][S43], ~100 ns [C4]"),
	ROW(cr3_flush, 100, "CR3-write flush, 96 cycles direct cost [S43]"),
	ROW(global_flush, 300,
	    "assumption: INVPCID-all, faster than a CR4 "
	    "pair [C13]"),
	ROW(ipi_first, 2400,
	    "first remote target ~0.8 us: 1436-661 ns "
	    "[S44a]"),
	ROW(ipi_extra, 200,
	    "each further target (1571-1436)/2 ns [S44a]; "
	    "assumption beyond 4 CPUs"),
	ROW(ipi_recv, 300,
	    "calibrated: with it the eager policy gives the "
	    "published 2.6x (4 CPUs) and 26x (96 CPUs) system "
	    "time [S10]; the weak literature figure is >= 1000 "
	    "[S63]"),
	ROW(split, 2000,
	    "assumption: page-table page allocation and set-up "
	    "of a large-page split (plus 512 pte_write and a "
	    "flush_tlb_all) [C8]"),
	ROW(pte_write, 1, "assumption: one PTE store"),
	ROW(invlpgb, 500,
	    "assumption: no latency figure in the sources "
	    "[S47]"),
	ROW(tlbsync, 1000, "assumption: TLBSYNC wait [S47]"),
	ROW(asi_transition, 100,
	    "CR3 write without NOFLUSH [S54]; "
	    "mitigations not included"),
	ROW(xpfo_lock, 20,
	    "assumption: uncontended lock RMW around each "
	    "xpfo map/unmap"),
	ROW(kernel_access, 4, "assumption: an L1-hitting load"),
	ROW(user_access, 4, "assumption: an L1-hitting load"),
	ROW(user_work, 8000,
	    "calibrated: the compile workload spends ~75% of its time in "
	    "user mode, so eager flushing costs ~40% wall time on 4 CPUs as "
	    "Stecklina measured [S30] (kernel builds: ~90% user [S31])"),
	ROW(page_alloc, 600, "assumption: buddy/pcp allocation path"),
	ROW(page_free, 400, "assumption: pcp free path"),
	ROW(page_zero, 1000, "assumption: clear_page of 4 KiB incl. misses"),
	ROW(context_switch, 3000,
	    "assumption: ~1 us schedule() and "
	    "switch_mm"),
	ROW(kernel_entry, 900,
	    "assumption: a syscall's own work, entry and "
	    "exit (calibrated with ipi_recv)"),
};

_Static_assert(ARRAY_SIZE(cost_rows) ==
		       sizeof(struct nxsim_xpfo_costs) / sizeof(uint32_t),
	       "every cost has a row");

static const struct nxsim__cost_table xpfo_costs = {
	.rows = cost_rows,
	.nr = ARRAY_SIZE(cost_rows),
	.kind = NXSIM__COST_U32,
};

void nxsim_xpfo_costs_default(struct nxsim_xpfo_costs *c)
{
	nxsim__cost_default(&xpfo_costs, c);
}

int nxsim_xpfo_cost_info(unsigned int idx, const char **name, uint32_t *cycles,
			 const char **source)
{
	const struct nxsim__cost_row *row =
		nxsim__cost_info(&xpfo_costs, idx, name, source);

	if (!row)
		return -ENOENT;
	if (cycles)
		*cycles = (uint32_t)row->def;
	return 0;
}

int nxsim_xpfo_costs_set(struct nxsim_xpfo_costs *c, const char *name,
			 uint32_t cycles, const char **why)
{
	return nxsim__cost_set(&xpfo_costs, c, name, cycles, why);
}
