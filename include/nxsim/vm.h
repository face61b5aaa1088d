/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * VMs and vCPUs of a host, and each VM's NX-huge-page recovery worker.
 *
 * A VM is created and destroyed under the host's kvm_lock on its vm_list.
 * Its recovery worker is made when the profile says: at VM creation (a
 * kthread up to 6.12, a vhost task in 6.13) or at the first KVM_RUN
 * (6.14 on), never while nx_huge_pages=never.  On a virtual clock the
 * worker's passes happen as virtual time crosses its deadline; on a real
 * clock it is a thread that sleeps and wakes like the kernel's.
 *
 * A destroyed VM's handle stays valid, answering -EBADF like a closed VM fd,
 * until nxsim_vm_release() or the destruction of its host frees it.
 */
#ifndef NXSIM_VM_H
#define NXSIM_VM_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/common.h>

struct nxsim_host;
struct nxsim_vm;
struct nxsim_vcpu;

/* include/uapi/linux/kvm.h */
#define NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES 220

enum nxsim_worker_state {
	NXSIM_WORKER_NONE,    /* not created (yet, or ever) */
	NXSIM_WORKER_RUNNING, /* alive: sleeping or recovering */
	NXSIM_WORKER_KILLED,  /* its vhost task exited on SIGKILL */
	NXSIM_WORKER_STOPPED, /* stopped at VM destruction */
};

/**
 * struct nxsim_worker_info - a VM's recovery worker
 * @state: see enum nxsim_worker_state
 * @wakes: wake-ups delivered to a live worker
 * @passes: recovery passes run (kvm_recover_nx_huge_pages() calls)
 * @created_ns: clock time of creation (0 if none)
 * @deadline_ns: when it will next wake by itself; NXSIM_NEVER when it
 *	sleeps until woken (recovery disabled) or does not exist
 * @last_jiffies: nx_huge_page_last, in jiffies
 */
struct nxsim_worker_info {
	enum nxsim_worker_state state;
	uint64_t wakes;
	uint64_t passes;
	uint64_t created_ns;
	uint64_t deadline_ns;
	uint64_t last_jiffies;
};

/**
 * struct nxsim_vm_counters - parameter side effects seen by one VM
 * @zap_all: kvm_mmu_zap_all_fast() calls (each nx_huge_pages change)
 * @wake_calls: wake requests, whether or not a worker existed
 * @worker_create_failures: worker creations that failed
 */
struct nxsim_vm_counters {
	uint64_t zap_all;
	uint64_t wake_calls;
	uint64_t worker_create_failures;
};

/**
 * nxsim_vm_create() - KVM_CREATE_VM
 * @host: the host
 * @vmp: receives the VM
 *
 * Return: 0; -ENOMEM; a worker-creation error (profiles that make the
 * worker here); -ENODEV while the host is being unloaded.
 */
NXSIM_API int nxsim_vm_create(struct nxsim_host *host, struct nxsim_vm **vmp);

/**
 * nxsim_vm_destroy() - close the last VM fd (kvm_destroy_vm())
 *
 * Return: 0, or -EBADF if already destroyed.
 */
NXSIM_API int nxsim_vm_destroy(struct nxsim_vm *vm);

/**
 * nxsim_vm_release() - free a destroyed VM's handle and its vCPUs' now
 * @vm: a VM whose nxsim_vm_destroy() has returned
 *
 * Without it, destroyed VMs are freed with their host; a program that
 * makes and destroys many VMs on one host releases each.  The handles
 * must not be used again, nor this be called while another thread uses
 * them.
 *
 * Return: 0; -EBUSY if @vm is not destroyed; -EINVAL.
 */
NXSIM_API int nxsim_vm_release(struct nxsim_vm *vm);

/** nxsim_vm_host() - the host a VM belongs to. */
NXSIM_API struct nxsim_host *nxsim_vm_host(struct nxsim_vm *vm);

/**
 * nxsim_vm_check_extension() - KVM_CHECK_EXTENSION on the VM
 *
 * Return: 1 for NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES where the profile has
 * it (6.0 on), 0 otherwise; -EBADF.
 */
NXSIM_API int nxsim_vm_check_extension(struct nxsim_vm *vm, unsigned int cap);

/**
 * nxsim_vm_enable_cap() - KVM_ENABLE_CAP on the VM
 * @vm: the VM
 * @cap: capability number
 * @flags: cap->flags, must be 0
 * @args: cap->args[4]; NULL means all zero
 * @cap_sys_boot: the caller holds CAP_SYS_BOOT in the initial namespace
 *
 * For NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES: -EINVAL for non-zero flags,
 * -EPERM without @cap_sys_boot, -EINVAL for non-zero args[0] or once a vCPU
 * exists; there is no way back.
 *
 * Return: 0 or a negative errno; -EINVAL for an unknown @cap.
 */
NXSIM_API int nxsim_vm_enable_cap(struct nxsim_vm *vm, unsigned int cap,
				  uint32_t flags, const uint64_t *args,
				  bool cap_sys_boot);

/**
 * nxsim_vm_nx_huge_pages_enabled() - is_nx_huge_page_enabled(kvm)
 *
 * Return: 1 if the mitigation applies to this VM, 0 if not; -EBADF.
 */
NXSIM_API int nxsim_vm_nx_huge_pages_enabled(struct nxsim_vm *vm);

/** nxsim_vm_worker_info() - read the recovery worker's state. */
NXSIM_API int nxsim_vm_worker_info(struct nxsim_vm *vm,
				   struct nxsim_worker_info *info);

/** nxsim_vm_counters() - read the VM's parameter side-effect counters. */
NXSIM_API int nxsim_vm_counters(struct nxsim_vm *vm,
				struct nxsim_vm_counters *c);

/**
 * nxsim_vm_worker_kill() - SIGKILL the VM's vhost-task worker
 *
 * The VM stays on vm_list; the worker is gone for good.
 *
 * Return: 0; -ESRCH without a live worker; -EOPNOTSUPP for kthread
 * workers (profiles up to 6.12), which ignore signals; -EBADF.
 */
NXSIM_API int nxsim_vm_worker_kill(struct nxsim_vm *vm);

/**
 * nxsim_vm_inject_worker_error() - make the next worker creation fail
 * @vm: the VM
 * @err: the negative errno copy_process() returns, e.g.
 *	-NXSIM_ERESTARTNOINTR for a signal pending during creation
 *
 * Return: 0, -EINVAL for a non-negative @err, -EBADF.
 */
NXSIM_API int nxsim_vm_inject_worker_error(struct nxsim_vm *vm, int err);

/**
 * nxsim_vcpu_create() - KVM_CREATE_VCPU
 * @vm: the VM
 * @id: vCPU id
 * @vcpup: receives the vCPU
 *
 * Return: 0; -EEXIST for a used id; -EINVAL for an id >= 4096; -ENOMEM;
 * -EBADF.
 */
NXSIM_API int nxsim_vcpu_create(struct nxsim_vm *vm, unsigned int id,
				struct nxsim_vcpu **vcpup);

/**
 * nxsim_vcpu_run() - enter KVM_RUN
 *
 * On 6.14 and later the first KVM_RUN of any vCPU makes the VM's worker;
 * if that fails the error is returned and the next KVM_RUN tries again.
 *
 * Return: 0 or a negative errno.
 */
NXSIM_API int nxsim_vcpu_run(struct nxsim_vcpu *vcpu);

/** nxsim_vcpu_vm() - the VM a vCPU belongs to. */
NXSIM_API struct nxsim_vm *nxsim_vcpu_vm(struct nxsim_vcpu *vcpu);

#endif /* NXSIM_VM_H */
