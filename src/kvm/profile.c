// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile table.  Each row is a kernel tree as released (mainline tags,
 * except 6.1, which is the 6.1.y stable tree Debian bookworm ships as
 * linux-source-6.1: it carries the "never" backport but none of the 6.2 MMU
 * changes).  Historical bugs are not part of a profile; they are separate
 * switches (enum nxsim_bug).
 */

#include <nxsim/profile.h>

#include "core/compiler.h"
#include "core/names.h"
#include "kvm/profile.h"

/*
 * What each era adds, cumulatively; a row names its era and its worker
 * model.  The commits are in the field comments of struct nxsim__profile.
 */
#define SINCE_6_1                                                           \
	.kstrtox.kstrtobool_tf = true, .never = true, .period_param = true, \
	.disable_nx_cap = true, .eager_split_param = true,                  \
	.cr0_wp_keeps_root = true, .mmu.tdp_mmu = true,                     \
	.mmu.tdp_mmu_default = true, .mmu.fault_read_lock = true,           \
	.mmu.dirty_log_read_lock = true
#define SINCE_6_2                                   \
	SINCE_6_1, .mmu.tdp_split_on_fault = true,  \
		   .mmu.recovery_skip_dirty = true, \
		   .mmu.nx_tag_untracked = true,    \
		   .mmu.nx_adjust_checks_flag = true, .tdp_mmu_param_ro = true
#define SINCE_6_8 SINCE_6_2, .mmu.clear_dirty_log_end_inclusive = true
#define SINCE_6_13                                    \
	SINCE_6_8, .mmu.recover_huge_in_place = true, \
		   .mmu.spte_update_wp_flush_only = true
#define SINCE_6_16 SINCE_6_13, .kstrtox.kstrtobool_ed = true

static const struct nxsim__profile profiles[] = {
	{
		.name = "5.4",
		.tree = "v5.4: the original mitigation and kthread recovery",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		.mmu.nx_account_any_level = true,
		.mmu.rmap_collapse_4k_only = true,
	},
	{
		.name = "5.10",
		.tree = "v5.10: the TDP MMU arrives (off by default)",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		.mmu.notifier_zaps_tables = true,
		.mmu.tdp_collapse_tests_table_pfn = true,
		.mmu.rmap_collapse_4k_only = true,
		.mmu.tdp_mmu = true,
	},
	{
		.name = "6.1",
		.tree = "v6.1.y stable (Debian linux-source-6.1): never backported",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		SINCE_6_1,
	},
	{
		.name = "6.6",
		.tree = "v6.6: split on fault, dirty-logged SPs not recovered",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		SINCE_6_2,
	},
	{
		.name = "6.12",
		.tree = "v6.12: last kthread worker",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		SINCE_6_8,
	},
	{
		.name = "6.13",
		.tree = "v6.13: vhost-task worker made at VM creation",
		.worker = NXSIM__WORKER_VHOST_AT_CREATE,
		SINCE_6_13,
	},
	{
		.name = "6.14",
		.tree = "v6.14: worker made at the first KVM_RUN, with retry",
		.worker = NXSIM__WORKER_VHOST_AT_FIRST_RUN,
		SINCE_6_13,
	},
	{
		.name = "6.16",
		.tree = "v6.16: kstrtobool takes enabled/disabled",
		.worker = NXSIM__WORKER_VHOST_AT_FIRST_RUN,
		SINCE_6_16,
	},
	{
		.name = "6.18",
		.tree = "v6.18: per-MMU-type recovery lists (newest)",
		.worker = NXSIM__WORKER_VHOST_AT_FIRST_RUN,
		SINCE_6_16,
		.mmu.per_type_lists = true,
		.mmu.recovery_read_lock = true,
	},
};

const char *nxsim_profile_name(unsigned int i)
{
	return i < ARRAY_SIZE(profiles) ? profiles[i].name : NULL;
}

const struct nxsim__profile *nxsim__profile_find(const char *name)
{
	int i;

	if (!name)
		return &profiles[ARRAY_SIZE(profiles) - 1];
	i = nxsim__name_index(nxsim_profile_name, name);
	return i < 0 ? NULL : &profiles[i];
}
