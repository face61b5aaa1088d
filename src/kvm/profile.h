/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel profiles: which kernel tree a host models.  Upstream changed the
 * behaviour libnxsim models several times; a profile names a tree and lists
 * the changes it carries, each with the commit that made it.  Code asks the
 * profile ("does kstrtobool take 't'?"), never a version number.
 */
#ifndef NXSIM_KVM_PROFILE_H
#define NXSIM_KVM_PROFILE_H

#include <stdbool.h>

enum nxsim__worker_model {
	/* 1aa9b9572b10 (5.4) to 6.12: kthread made by KVM_CREATE_VM */
	NXSIM__WORKER_KTHREAD_AT_CREATE,
	/* d96c77bd4eeb (6.13): vhost task made by KVM_CREATE_VM */
	NXSIM__WORKER_VHOST_AT_CREATE,
	/* 931656b9e2ff (6.14): vhost task made by the first KVM_RUN */
	NXSIM__WORKER_VHOST_AT_FIRST_RUN,
};

/**
 * struct nxsim__profile - one kernel tree's behaviour
 * @name: short name users pass ("6.1")
 * @tree: the tree it models
 * @kstrtobool_tf: kstrtobool takes t/T/f/F (0d6ea3ac94ca, 5.19)
 * @kstrtobool_ed: kstrtobool takes e/E/d/D (ae5b3500856f, about 6.16)
 * @never: nx_huge_pages=never exists (0b210faf3373, 6.5; 6.1.y backport)
 * @period_param: nx_huge_pages_recovery_period_ms exists (4dfe4f40d845,
 *	5.16); before it the period is a fixed 60 s
 * @worker: when and how the recovery worker is made
 * @disable_nx_cap: KVM_CAP_VM_DISABLE_NX_HUGE_PAGES (084cc29f8bbb, 6.0)
 * @tdp_mmu: the TDP MMU exists (5.10)
 * @tdp_split_on_fault: exec faults split huge TDP SPTEs in place
 *	(c4b33d28ea51, 6.2) instead of zapping them
 * @recovery_skip_dirty: recovery only unaccounts SPs in dirty-logged slots
 *	(eb298605705a, 6.2)
 * @recover_huge_in_place: disabling dirty logging rebuilds huge SPTEs in
 *	place on the TDP MMU (6.13) instead of zapping collapsible SPTEs
 * @per_type_lists: one possible_nx_huge_pages list per MMU type (6.18)
 * @nx_tag_untracked: SPs made by an exec fault are flagged
 *	nx_huge_page_disallowed even when not tracked, and the TDP MMU sets
 *	the flag before linking (428e921611bc, 61f94478547b, 6.2)
 * @nx_adjust_checks_flag: disallowed_hugepage_adjust() steps down only at
 *	a flagged child (76901e56fb51, 6.2; not in 6.1.y)
 * @tdp_mmu_default: kvm.tdp_mmu defaults to on (5.15); before, the TDP
 *	MMU of 5.10 is opt-in and VMs use the shadow MMU's direct map
 */
struct nxsim__profile {
	const char *name;
	const char *tree;
	bool kstrtobool_tf;
	bool kstrtobool_ed;
	bool never;
	bool period_param;
	enum nxsim__worker_model worker;
	bool disable_nx_cap;
	bool tdp_mmu;
	bool tdp_split_on_fault;
	bool recovery_skip_dirty;
	bool recover_huge_in_place;
	bool per_type_lists;
	bool nx_tag_untracked;
	bool nx_adjust_checks_flag;
	bool tdp_mmu_default;
};

/* The profile called @name; NULL @name is the newest.  NULL if unknown. */
const struct nxsim__profile *nxsim__profile_find(const char *name);

#endif /* NXSIM_KVM_PROFILE_H */
