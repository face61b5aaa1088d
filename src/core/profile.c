// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile table.  Each row is a kernel tree as released (mainline tags,
 * except 6.1, which is the 6.1.y stable tree Debian bookworm ships as
 * linux-source-6.1: it carries the "never" backport but none of the 6.2 MMU
 * changes).  Historical bugs are not part of a profile; they are separate
 * switches (enum nxsim_bug).
 */
#include <string.h>

#include <nxsim/host.h>

#include "core/compiler.h"
#include "core/profile.h"

static const struct nxsim__profile profiles[] = {
	{
		.name = "5.4",
		.tree = "v5.4: the original mitigation and kthread recovery",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
	},
	{
		.name = "5.10",
		.tree = "v5.10: the TDP MMU arrives",
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		.tdp_mmu = true,
	},
	{
		.name = "6.1",
		.tree = "v6.1.y stable (Debian linux-source-6.1): never backported",
		.kstrtobool_tf = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_mmu_default = true,
	},
	{
		.name = "6.6",
		.tree = "v6.6: split on fault, dirty-logged SPs not recovered",
		.kstrtobool_tf = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_split_on_fault = true,
		.recovery_skip_dirty = true,
		.nx_tag_untracked = true,
		.nx_adjust_checks_flag = true,
		.tdp_mmu_default = true,
	},
	{
		.name = "6.12",
		.tree = "v6.12: last kthread worker",
		.kstrtobool_tf = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_KTHREAD_AT_CREATE,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_split_on_fault = true,
		.recovery_skip_dirty = true,
		.nx_tag_untracked = true,
		.nx_adjust_checks_flag = true,
		.tdp_mmu_default = true,
	},
	{
		.name = "6.13",
		.tree = "v6.13: vhost-task worker made at VM creation",
		.kstrtobool_tf = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_VHOST_AT_CREATE,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_split_on_fault = true,
		.recovery_skip_dirty = true,
		.recover_huge_in_place = true,
		.nx_tag_untracked = true,
		.nx_adjust_checks_flag = true,
		.tdp_mmu_default = true,
	},
	{
		.name = "6.14",
		.tree = "v6.14: worker made at the first KVM_RUN, with retry",
		.kstrtobool_tf = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_VHOST_AT_FIRST_RUN,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_split_on_fault = true,
		.recovery_skip_dirty = true,
		.recover_huge_in_place = true,
		.nx_tag_untracked = true,
		.nx_adjust_checks_flag = true,
		.tdp_mmu_default = true,
	},
	{
		.name = "6.16",
		.tree = "v6.16: kstrtobool takes enabled/disabled",
		.kstrtobool_tf = true,
		.kstrtobool_ed = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_VHOST_AT_FIRST_RUN,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_split_on_fault = true,
		.recovery_skip_dirty = true,
		.recover_huge_in_place = true,
		.nx_tag_untracked = true,
		.nx_adjust_checks_flag = true,
		.tdp_mmu_default = true,
	},
	{
		.name = "6.18",
		.tree = "v6.18: per-MMU-type recovery lists (newest)",
		.kstrtobool_tf = true,
		.kstrtobool_ed = true,
		.never = true,
		.period_param = true,
		.worker = NXSIM__WORKER_VHOST_AT_FIRST_RUN,
		.disable_nx_cap = true,
		.tdp_mmu = true,
		.tdp_split_on_fault = true,
		.recovery_skip_dirty = true,
		.recover_huge_in_place = true,
		.per_type_lists = true,
		.nx_tag_untracked = true,
		.nx_adjust_checks_flag = true,
		.tdp_mmu_default = true,
	},
};

const struct nxsim__profile *nxsim__profile_find(const char *name)
{
	size_t i;

	if (!name)
		return &profiles[ARRAY_SIZE(profiles) - 1];
	for (i = 0; i < ARRAY_SIZE(profiles); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

const char *nxsim_profile_name(unsigned int i)
{
	return i < ARRAY_SIZE(profiles) ? profiles[i].name : NULL;
}
