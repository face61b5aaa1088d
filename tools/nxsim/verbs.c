// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verb tables of the driver, in the order --help lists them.  A new
 * API area (memslots, accesses, XPFO) brings a file of handlers with its
 * own table and one line here.
 */
#include "driver.h"

const struct nxsim__drv_verb *const nxsim__drv_tables[] = {
	nxsim__drv_host_verbs, nxsim__drv_vm_verbs,   nxsim__drv_mmu_verbs,
	nxsim__drv_xpfo_verbs, nxsim__drv_bringup_verbs, nxsim__drv_misc_verbs,
	NULL,
};
