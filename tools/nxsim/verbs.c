// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verb tables of the driver, in the order --help lists them.  A new
 * API area (memslots, accesses, XPFO) brings a file of handlers with its
 * own table and one line here.  Counters are printed from their
 * descriptors (include/nxsim/stats.h), in struct order.
 */
#include "driver.h"

void nxsim__drv_add_stats(struct nxsim__drv_reply *r, enum nxsim_stats_set set,
			  const void *st, const char *const *only)
{
	const struct nxsim_stat_desc *d;
	unsigned int i;
	char val[32];

	for (i = 0; (d = only ? nxsim_stats_find(set, only[i]) :
				nxsim_stats_desc(set, i));
	     i++) {
		nxsim_stat_format(d, st, val, sizeof(val));
		nxsim__drv_add(r, " %s=%s", d->name, val);
	}
}

const struct nxsim__drv_verb *const nxsim__drv_tables[] = {
	nxsim__drv_host_verbs,	   nxsim__drv_vm_verbs,
	nxsim__drv_mmu_verbs,	   nxsim__drv_guest_verbs,
	nxsim__drv_xpfo_verbs,	   nxsim__drv_bringup_verbs,
	nxsim__drv_workload_verbs, nxsim__drv_plugin_verbs,
	nxsim__drv_misc_verbs,	   NULL,
};
