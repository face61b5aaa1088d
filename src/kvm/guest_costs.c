// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest-side cost table (docs/guest-tlb.md): cycles per event on a
 * ~3 GHz core, each row with where it comes from.  Bracketed tags are the
 * source keys of docs/sources.md; "assumption" marks a modelling choice.
 * The access row is charged with and without the mitigation alike, so it
 * sets the baseline the overhead ratios divide by.
 *
 * Left out: cache effects on the walk (every reference costs the same)
 * and lock contention between vCPUs faulting at once.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <nxsim/vcpu.h>

#include "core/compiler.h"
#include "core/cost_table.h"

#define ROW(f, c, s)                                                      \
	{                                                                 \
		.name = #f, .off = offsetof(struct nxsim_guest_costs, f), \
		.def = c, .min = 0, .max = UINT32_MAX,                    \
		.range = "value outside [0, UINT32_MAX]", .source = s,    \
	}

static const struct nxsim__cost_row cost_rows[] = {
	ROW(access, 1,
	    "assumption: one cycle of guest work per memory access, the "
	    "baseline every ratio divides by"),
	ROW(stlb_hit, 10, "second-level TLB hit ~12 cycles on Haswell [S61]"),
	ROW(walk_ref, 5,
	    "a native 4-reference walk with cached paging structures takes "
	    "10-20 [S42b], ~20 [S61] cycles: 5 per reference"),
	ROW(fault, 3000,
	    "assumption: an EPT/NPT violation exit, the TDP fault handler "
	    "and VM entry, about 1 us"),
	ROW(split, 2500,
	    "assumption: a page-table page allocated and set up (2000, as "
	    "the XPFO split row) plus 512 SPTE writes"),
	ROW(zap, 500,
	    "assumption: a huge SPTE cleared and its stats updated, before "
	    "its flush"),
	ROW(flush_send, 2400,
	    "a remote flush's first target ~0.8 us: 1436-661 ns [S44a]"),
	ROW(flush_recv, 1000,
	    "a vCPU's exit, flush and entry for a request; a remote "
	    "acknowledgement costs >= 1000 cycles [S63]"),
};

_Static_assert(ARRAY_SIZE(cost_rows) ==
		       sizeof(struct nxsim_guest_costs) / sizeof(uint32_t),
	       "every cost has a row");

static const struct nxsim__cost_table guest_costs = {
	.rows = cost_rows,
	.nr = ARRAY_SIZE(cost_rows),
	.kind = NXSIM__COST_U32,
};

void nxsim_guest_costs_default(struct nxsim_guest_costs *c)
{
	nxsim__cost_default(&guest_costs, c);
}

int nxsim_guest_cost_info(unsigned int idx, const char **name, uint32_t *cycles,
			  const char **source)
{
	const struct nxsim__cost_row *row =
		nxsim__cost_info(&guest_costs, idx, name, source);

	if (!row)
		return -ENOENT;
	if (cycles)
		*cycles = (uint32_t)row->def;
	return 0;
}

int nxsim_guest_costs_set(struct nxsim_guest_costs *c, const char *name,
			  uint32_t cycles, const char **why)
{
	return nxsim__cost_set(&guest_costs, c, name, cycles, why);
}

const char *nxsim_guest_cost_source(const char *name)
{
	const struct nxsim__cost_row *row =
		name ? nxsim__cost_find(&guest_costs, name, strlen(name)) :
		       NULL;

	return row ? row->source : NULL;
}
