/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel profiles: which kernel tree a host models.  Upstream changed the
 * behaviour libnxsim models several times; a profile names a tree and lists
 * the changes it carries, each with the commit that made it.  Code asks the
 * profile ("does kstrtobool take 't'?"), never a version number.  Each
 * layer defines the part it reads (params/kstrtox.h, mmu/mmu.h); kvm.ko's
 * own behaviours are here.
 */
#ifndef NXSIM_KVM_PROFILE_H
#define NXSIM_KVM_PROFILE_H

#include <stdbool.h>

#include "mmu/mmu.h"
#include "params/kstrtox.h"

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
 * @kstrtox: what lib/kstrtox.c accepts (struct nxsim__kstrtox_profile)
 * @mmu: the MMU's behaviours (struct nxsim__mmu_profile)
 * @never: nx_huge_pages=never exists (0b210faf3373, 6.5; 6.1.y backport)
 * @period_param: nx_huge_pages_recovery_period_ms exists (4dfe4f40d845,
 *	5.16); before it the period is a fixed 60 s
 * @worker: when and how the recovery worker is made
 * @disable_nx_cap: KVM_CAP_VM_DISABLE_NX_HUGE_PAGES (084cc29f8bbb, 6.0)
 * @eager_split_param: kvm.eager_page_split exists, default on
 *	(a3fe5dbda0a4, eager page splitting of the TDP MMU when dirty
 *	logging is turned on; after 5.10, before 6.1)
 * @cr0_wp_keeps_root: with TDP, a change of CR0.WP alone refreshes the
 *	MMU without kvm_mmu_reset_context() (01b31714bd90, 6.4; 6.1.y
 *	backport)
 * @tdp_mmu_param_ro: kvm.tdp_mmu is read-only (0444) and reads
 *	tdp_mmu_enabled as kvm_configure_mmu() left it, N without TDP
 *	(3af15ff47c4d, 6.3); before it (5.10 to 6.2) the parameter is 0644
 *	in tdp_mmu.c and each VM reads it at creation
 *	(kvm_mmu_init_tdp_mmu())
 */
struct nxsim__profile {
	const char *name;
	const char *tree;
	struct nxsim__kstrtox_profile kstrtox;
	struct nxsim__mmu_profile mmu;
	bool never;
	bool period_param;
	enum nxsim__worker_model worker;
	bool disable_nx_cap;
	bool eager_split_param;
	bool cr0_wp_keeps_root;
	bool tdp_mmu_param_ro;
};

const struct nxsim__profile *nxsim__profile_find(const char *name);

#endif /* NXSIM_KVM_PROFILE_H */
