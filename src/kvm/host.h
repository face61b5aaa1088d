/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host: one loaded kvm.ko.  Holds the CPU description, the profile,
 * the module parameters, the global kvm_lock and vm_list.
 */
#ifndef NXSIM_KVM_HOST_H
#define NXSIM_KVM_HOST_H

#include <pthread.h>
#include <stdint.h>

#include <bsd/sys/queue.h>

#include <nxsim/host.h>

#include "core/compiler.h"
#include "core/gate.h"
#include "core/lockdep.h"
#include "kvm/nx_params.h"

struct nxsim_vm;

/*
 * Steps of a VM's life that cost kernel time, reported to a bring-up cost
 * model when one is attached to the host (the bring-up lab).
 */
enum nxsim__bringup_event {
	NXSIM__BRINGUP_CREATE_VM,      /* kvm_create_vm() */
	NXSIM__BRINGUP_CREATE_VCPU,    /* kvm_vm_ioctl_create_vcpu() */
	NXSIM__BRINGUP_VCPU_RUN,       /* one KVM_RUN */
	NXSIM__BRINGUP_DESTROY_VM,     /* kvm_destroy_vm() */
	NXSIM__BRINGUP_KTHREAD_WORKER, /* kvm_vm_create_worker_thread() */
	NXSIM__BRINGUP_VHOST_WORKER,   /* vhost_task_create() + start */
	NXSIM__BRINGUP_KTHREAD_STOP,   /* kthread_stop() of the worker */
	NXSIM__BRINGUP_VHOST_STOP,     /* vhost_task_stop() */
	/* kvm_mmu_uninit_tdp_mmu(): rcu_barrier() */
	NXSIM__BRINGUP_TDP_MMU_UNINIT,
};

/* A bring-up cost model: @ev happened, with result @rc. */
typedef void (*nxsim__bringup_charge_fn)(void *model,
					 enum nxsim__bringup_event ev, int rc);

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
 * @mmio_caching: kvm.mmio_caching (allow_mmio_caching), from the command
 *	line; on by default
 * @cpu_hotplug_lock: cpu_hotplug_lock; the model only takes it for read
 *	(cpus_read_lock())
 * @nx_walk: the VMs set_nx_huge_pages() is zapping, each held by a
 *	reference on its gate; under @param_lock, which serialises setters
 * @vm_list: live VMs, under @kvm_lock
 * @dead_vms: handles of destroyed VMs, freed at unload, under @kvm_lock
 * @unloading: set under @kvm_lock by nxsim_host_destroy()
 * @gate: API calls inside the host
 * @counters: statistics, updated atomically
 * @create_window: test hook, NULL unless a test sets it (see
 *	nxsim__host_set_create_window())
 * @create_window_ctx: its argument
 * @bringup_charge: the bring-up cost model's hook, or NULL; set before the
 *	first VM and never changed while VMs exist
 * @bringup_model: its argument
 * @nx_recovery: the NX recovery rule VMs get (NULL: the profile's)
 * @tdp_mmu_param: kvm.tdp_mmu (tdp_mmu_enabled), from the CPU flags
 *	no_tdp_mmu/tdp_mmu and the command line; the TDP MMU needs TDP too
 */
struct nxsim_host {
	uint32_t magic;
	const struct nxsim__profile *prof;
	struct nxsim_cpu cpu;
	uint64_t bugs;
	const struct nxsim_nx_recovery_ops *nx_recovery;
	struct nxsim_clock *clock;
	bool own_clock;
	struct nxsim__nx_params nx;
	bool mmio_caching;
	bool tdp_mmu_param;
	pthread_mutex_t param_lock;
	pthread_mutex_t kvm_lock;
	pthread_rwlock_t cpu_hotplug_lock;
	TAILQ_HEAD(, nxsim_vm) nx_walk;
	TAILQ_HEAD(, nxsim_vm) vm_list;
	TAILQ_HEAD(, nxsim_vm) dead_vms;
	bool unloading;
	struct nxsim__gate gate;
	struct nxsim_host_counters counters;
	void (*create_window)(struct nxsim_host *host, void *ctx);
	void *create_window_ctx;
	nxsim__bringup_charge_fn bringup_charge;
	void *bringup_model;
};

#define NXSIM_HOST_MAGIC 0x6b766d6bu /* "kvmk" */

static inline bool nxsim__host_has_bug(const struct nxsim_host *host,
				       enum nxsim_bug bug)
{
	return (host->bugs & bug) != 0;
}

/* Report a bring-up step to the attached cost model, if any. */
static inline void nxsim__host_charge(struct nxsim_host *host,
				      enum nxsim__bringup_event ev, int rc)
{
	if (unlikely(host->bringup_charge))
		host->bringup_charge(host->bringup_model, ev, rc);
}

/* list_empty(&vm_list), called with kvm_lock held. */
bool nxsim__host_no_vms_locked(struct nxsim_host *host);

/*
 * The loop of set_nx_huge_pages() after a change: for each VM take
 * slots_lock, kvm_mmu_zap_all_fast(), drop slots_lock, wake its worker.
 * The walk holds a reference on each VM instead of kvm_lock across
 * slots_lock (the vm_list_srcu walk proposed in Jan 2025); with
 * NXSIM_BUG_SETTER_LOCK_ORDER it holds kvm_lock throughout, as every
 * released tree does.  Called with param_lock held.
 */
void nxsim__host_zap_all_and_wake(struct nxsim_host *host);
/* The loop of set_nx_huge_pages_recovery_param(): wake every VM's worker. */
void nxsim__host_wake_all(struct nxsim_host *host);

/*
 * Test hook: nxsim_vm_create() on a profile that makes the worker at
 * creation calls @fn(@host, @ctx) between kvm_arch_post_init_vm() (which
 * reads the "never" flag and makes the worker) and the insertion of the VM
 * on vm_list under kvm_lock, in whichever order the host runs them (the
 * kernel's order up to 6.13 with NXSIM_BUG_NEVER_CREATE_RACE, the closed
 * one without).  NULL @fn removes it.  Set it while no VM is being made.
 */
void nxsim__host_set_create_window(struct nxsim_host *host,
				   void (*fn)(struct nxsim_host *host,
					      void *ctx),
				   void *ctx);

/* Run the create-window hook, if a test set one. */
static inline void nxsim__host_create_window(struct nxsim_host *host)
{
	if (host->create_window)
		host->create_window(host, host->create_window_ctx);
}

/* Count a simulated oops (a re-enabled bug hit a NULL or freed pointer). */
void nxsim__host_oops(struct nxsim_host *host, const char *what);

#endif /* NXSIM_KVM_HOST_H */
