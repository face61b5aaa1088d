/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one guest fixture of the tests and the benchmarks: a host, one VM,
 * optionally one memory slot, vCPU 0 and its first KVM_RUN, made through
 * the public API only (the benchmarks use nothing else) and torn down
 * again.  It returns errors and asserts nothing: the cmocka wrappers are
 * in tests/integration/nx_test.h, the benchmarks' in bench/nx_env.h.
 */
#ifndef NXSIM_TEST_COMMON_NX_ENV_H
#define NXSIM_TEST_COMMON_NX_ENV_H

#include <stdbool.h>

#include <nxsim/host.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

struct nx_env {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
};

/*
 * @ratio: nx_huge_pages_recovery_ratio, set before the VM is created
 * (NULL: the default); @slot: a memory region set before the vCPU is
 * created (NULL: none); @run: the vCPU's first KVM_RUN.
 */
struct nx_env_spec {
	const struct nxsim_host_config *host;
	const char *ratio;
	const struct nxsim_memory_region *slot;
	bool run;
};

/**
 * nx_env_open() - a host, one VM, its slot and vCPU 0 as @spec says
 * @e: receives them
 * @spec: the host's configuration and the optional steps
 *
 * Return: 0, or the first error with nothing left allocated.
 */
int nx_env_open(struct nx_env *e, const struct nx_env_spec *spec);

/**
 * nx_env_close() - destroy the VM (and with it the vCPU), then the host
 * @e: made by nx_env_open() (or partly: NULL members are skipped); zeroed
 *
 * Return: 0 or the first error.
 */
int nx_env_close(struct nx_env *e);

#endif /* NXSIM_TEST_COMMON_NX_ENV_H */
