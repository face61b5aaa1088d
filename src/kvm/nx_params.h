/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm.ko's NX-huge-page parameters: their storage, setters and getters.
 * They reach VMs only through the host's two loops (zap-and-wake all,
 * wake all), never through MMU internals.
 */
#ifndef NXSIM_KVM_NX_PARAMS_H
#define NXSIM_KVM_NX_PARAMS_H

#include <stdbool.h>

struct nxsim_host;

/**
 * struct nxsim__nx_params - module parameter storage (arch/x86/kvm/mmu/mmu.c)
 * @nx_huge_pages: -1 (auto) until kvm.ko init resolves it, then 0 or 1
 * @hard_disabled: nx_hugepage_mitigation_hard_disabled ("never")
 * @itlb_multihit_kvm_mitigation: arch/x86/kernel/cpu/bugs.c's mirror
 * @recovery_ratio: nx_huge_pages_recovery_ratio
 * @recovery_period_ms: nx_huge_pages_recovery_period_ms
 *
 * Written by the setters under the host's param_lock (and, for
 * @hard_disabled, kvm_lock); read locklessly with READ_ONCE().
 */
struct nxsim__nx_params {
	int nx_huge_pages;
	bool hard_disabled;
	bool itlb_multihit_kvm_mitigation;
	unsigned int recovery_ratio;
	unsigned int recovery_period_ms;
};

/* Load-time defaults, before any command-line value. */
void nxsim__nx_params_init(struct nxsim_host *host);
/* kvm_mmu_x86_module_init(): resolve -1 (auto). */
void nxsim__nx_params_module_init(struct nxsim_host *host);

/*
 * Find the parameter called @name (exactly, or with parameq() for the
 * command line) and run its setter under the param lock.
 * Return: the setter's result, or -ENOENT.
 */
int nxsim__nx_param_store(struct nxsim_host *host, const char *name,
			  const char *val, bool cmdline);

/* calc_nx_huge_pages_recovery_period(): true if recovery is enabled. */
bool nxsim__nx_recovery_period(struct nxsim_host *host, unsigned int *period);

/* is the mitigation on for the host (READ_ONCE(nx_huge_pages))? */
bool nxsim__nx_huge_pages(struct nxsim_host *host);
bool nxsim__nx_hard_disabled(struct nxsim_host *host);

#endif /* NXSIM_KVM_NX_PARAMS_H */
