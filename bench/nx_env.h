/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the NX benchmarks (bench_nx_*.c) share: a host of a given kernel
 * profile with the mitigation on (itlb_multihit, nx_huge_pages=auto), one
 * VM with one vCPU after its first KVM_RUN, and one memory slot of guest
 * memory at NX_GPA_BASE backed by host pages of a chosen size; the
 * teardown of a burst of VMs and the resident set (bench_vm_*.c).  The
 * guest itself is the tests' fixture (tests/common/nx_env.h;
 * nx_env_close() tears it down).
 * Nothing here is timed.
 */
#ifndef NXSIM_BENCH_NX_ENV_H
#define NXSIM_BENCH_NX_ENV_H

#include <stdint.h>

#include <nxsim/clock.h>
#include <nxsim/host.h>
#include <nxsim/mmu.h>
#include <nxsim/param.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "common/nx_env.h"

#define NX_GPA_BASE (4ull << 30)
#define NX_HVA_BASE 0x7f0000000000ull /* 1 GiB aligned */
#define NX_2M (2ull << 20)
#define NX_1G (1ull << 30)

/**
 * nx_env_create() - host, VM, vCPU (after KVM_RUN) and one slot
 * @e: receives them
 * @profile: kernel profile ("6.1", "6.6", ...)
 * @ratio: nx_huge_pages_recovery_ratio, or -1 to keep the default
 * @bytes: slot size at NX_GPA_BASE
 * @host_level: NXSIM_PG_LEVEL_4K, _2M or _1G
 *
 * Return: 0 or the first error (nothing left allocated).
 */
int nx_env_create(struct nx_env *e, const char *profile, int ratio,
		  uint64_t bytes, int host_level);

/* Read every @stride bytes of the slot's first @bytes: maps them. */
int nx_env_touch(const struct nx_env *e, enum nxsim_access_kind kind,
		 uint64_t bytes, uint64_t stride);

/**
 * nx_vms_destroy() - destroy @n VMs, then their host
 * @host: the host
 * @vms: the VMs
 * @n: how many
 *
 * Return: 0, -EIO if a VM would not go, else -EBUSY if the host would not.
 */
int nx_vms_destroy(struct nxsim_host *host, struct nxsim_vm **vms,
		   unsigned int n);

/* The process's resident set (/proc/self/statm), bytes; -1 if unread. */
long nx_rss_bytes(void);

#endif /* NXSIM_BENCH_NX_ENV_H */
