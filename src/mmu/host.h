/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host: one loaded kvm.ko.  Holds the CPU description, the profile,
 * the module parameters, the global kvm_lock and vm_list.
 */
#ifndef NXSIM_MMU_HOST_H
#define NXSIM_MMU_HOST_H

#include <pthread.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include <nxsim/host.h>

#include "core/gate.h"
#include "core/lockdep.h"
#include "params/nx_params.h"

struct nxsim_vm;

/**
 * struct nxsim_host - kvm.ko
 * @magic: NXSIM_HOST_MAGIC while alive (debug checks of use-after-destroy)
 * @prof: the kernel profile
 * @cpu: CPU description, @cpu.hz resolved, mitigations= applied
 * @bugs: NXSIM_BUG_* switches
 * @clock: the clock it runs on
 * @own_clock: @clock was made for this host
 * @nx: NX-huge-page module parameters
 * @param_lock: kernel_param_lock(THIS_MODULE): serialises parameter access
 * @kvm_lock: the global kvm_lock
 * @vm_list: live VMs, under @kvm_lock
 * @dead_vms: handles of destroyed VMs, freed at unload, under @kvm_lock
 * @unloading: set under @kvm_lock by nxsim_host_destroy()
 * @gate: API calls inside the host
 * @counters: statistics, updated atomically
 */
struct nxsim_host {
	uint32_t magic;
	const struct nxsim__profile *prof;
	struct nxsim_cpu cpu;
	uint64_t bugs;
	struct nxsim_clock *clock;
	bool own_clock;
	struct nxsim__nx_params nx;
	pthread_mutex_t param_lock;
	pthread_mutex_t kvm_lock;
	TAILQ_HEAD(, nxsim_vm) vm_list;
	TAILQ_HEAD(, nxsim_vm) dead_vms;
	bool unloading;
	struct nxsim__gate gate;
	struct nxsim_host_counters counters;
};

#define NXSIM_HOST_MAGIC 0x6b766d6bu /* "kvmk" */

static inline bool nxsim__host_has_bug(const struct nxsim_host *host,
				       enum nxsim_bug bug)
{
	return (host->bugs & bug) != 0;
}

/* list_empty(&vm_list), called with kvm_lock held. */
bool nxsim__host_no_vms_locked(struct nxsim_host *host);

/*
 * The loop of set_nx_huge_pages() after a change: for each VM, under
 * kvm_lock, take slots_lock, kvm_mmu_zap_all_fast(), drop slots_lock, wake
 * its worker.
 */
void nxsim__host_zap_all_and_wake(struct nxsim_host *host);
/* The loop of set_nx_huge_pages_recovery_param(): wake every VM's worker. */
void nxsim__host_wake_all(struct nxsim_host *host);

/* Count a simulated oops (a re-enabled bug hit a NULL or freed pointer). */
void nxsim__host_oops(struct nxsim_host *host, const char *what);

#endif /* NXSIM_MMU_HOST_H */
