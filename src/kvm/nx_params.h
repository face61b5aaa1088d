/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm.ko's NX-huge-page parameters: their setters and getters (the storage,
 * struct nxsim__nx_params, is the MMU's: mmu/mmu.h).  They reach VMs only
 * through the host's two loops (zap-and-wake all, wake all), never through
 * MMU internals.
 */
#ifndef NXSIM_KVM_NX_PARAMS_H
#define NXSIM_KVM_NX_PARAMS_H

#include <stdbool.h>

#include "mmu/mmu.h"

struct nxsim_host;

/* Load-time defaults, before any command-line value. */
void nxsim__nx_params_init(struct nxsim_host *host);
/* kvm_mmu_x86_module_init(): resolve -1 (auto). */
void nxsim__kvm_mmu_x86_module_init(struct nxsim_host *host);

/*
 * Find the parameter called @name (exactly, or with parameq() for the
 * command line) and run its setter under the param lock.
 * Return: the setter's result, or -ENOENT.
 */
int nxsim__nx_param_store(struct nxsim_host *host, const char *name,
			  const char *val, bool cmdline);

/* calc_nx_huge_pages_recovery_period(): true if recovery is enabled. */
bool nxsim__calc_nx_huge_pages_recovery_period(struct nxsim_host *host,
					       unsigned int *period);

/* is the mitigation on for the host (READ_ONCE(nx_huge_pages))? */
bool nxsim__nx_huge_pages(struct nxsim_host *host);
bool nxsim__nx_hard_disabled(struct nxsim_host *host);

#endif /* NXSIM_KVM_NX_PARAMS_H */
