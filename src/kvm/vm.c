// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM and vCPU lifecycle: kvm_create_vm(), kvm_destroy_vm(),
 * kvm_vm_ioctl_create_vcpu(), the first KVM_RUN, and the VM capability
 * KVM_CAP_VM_DISABLE_NX_HUGE_PAGES (kvm_vm_ioctl_enable_cap()).
 *
 * Where the recovery worker is made (kvm_mmu_post_init_vm()):
 *   - up to 6.13, during KVM_CREATE_VM; a failure fails the creation;
 *   - from 6.14, at the first KVM_RUN of any vCPU, through call_once(), so
 *     a failure is returned to KVM_RUN and the next KVM_RUN retries
 *     (916b7f42b3b3; NXSIM_BUG_WORKER_ONCE_FAIL restores the first version,
 *     where a failure completed the once-call and every KVM_RUN returned
 *     -ENOMEM);
 *   - never while nx_huge_pages=never (6.5 on).
 *
 * One deliberate difference: kvm_create_vm() up to 6.13 makes the worker
 * before it puts the VM on vm_list, so a "never" written between the two
 * succeeds and leaves a VM with a worker.  Here the VM joins vm_list first,
 * which closes that window; NXSIM_BUG_NEVER_CREATE_RACE restores the
 * kernel's order.  Between the two steps, in either order, a test hook can
 * run (nxsim__host_set_create_window()), which makes the window of the
 * kernel's order reachable on purpose.
 *
 * Left out: vCPU state, memory slots and the rest of struct kvm.
 */
#include <errno.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "kvm/profile.h"
#include "kvm/host.h"
#include "mmu/mmu.h"
#include "kvm/vcpu_tlb.h"
#include "kvm/vm.h"
#include "kvm/worker.h"

int nxsim__vm_enter(struct nxsim_vm *vm)
{
	if (!vm)
		return -EINVAL;
	assert(vm->magic == NXSIM_VM_MAGIC);
	return nxsim__gate_enter(&vm->gate);
}

void nxsim__vm_exit(struct nxsim_vm *vm)
{
	nxsim__gate_exit(&vm->gate);
}

/*
 * kvm_vcpu_ioctl() reads kvm->vm_dead before it takes vcpu->mutex; here
 * the flag is read under the mutex, which destruction takes after setting
 * it, so a call either finishes before the VM goes or sees the flag.
 */
int nxsim__vcpu_enter(struct nxsim_vcpu *vcpu)
{
	if (!vcpu)
		return -EINVAL;
	assert(vcpu->vm->magic == NXSIM_VM_MAGIC);
	pthread_mutex_lock(&vcpu->mutex);
	if (__atomic_load_n(&vcpu->vm->vm_dead, __ATOMIC_RELAXED)) {
		pthread_mutex_unlock(&vcpu->mutex);
		return -EBADF;
	}
	return 0;
}

void nxsim__vcpu_exit(struct nxsim_vcpu *vcpu)
{
	pthread_mutex_unlock(&vcpu->mutex);
}

static bool worker_at_create(const struct nxsim_host *host)
{
	return host->prof->worker != NXSIM__WORKER_VHOST_AT_FIRST_RUN;
}

/* kvm_mmu_post_init_vm() of 6.13 and before. */
static int kvm_mmu_post_init_vm_at_create(struct nxsim_vm *vm)
{
	int rc;

	if (nxsim__nx_hard_disabled(vm->host))
		return 0;
	rc = nxsim__worker_create(vm);
	if (rc)
		ATOMIC_INC(vm->counters.worker_create_failures);
	return rc;
}

/* kvm_mmu_start_lpage_recovery(), the call_once() callback (6.14). */
static int kvm_mmu_start_lpage_recovery(struct nxsim_vm *vm)
{
	int rc = nxsim__worker_create(vm);

	if (rc)
		ATOMIC_INC(vm->counters.worker_create_failures);
	return rc;
}

/* kvm_mmu_post_init_vm() of 6.14 on, with call_once(). */
static int kvm_mmu_post_init_vm_first_run(struct nxsim_vm *vm)
{
	struct nxsim__once *once = &vm->nx_once;
	bool once_fail_bug =
		nxsim__host_has_bug(vm->host, NXSIM_BUG_WORKER_ONCE_FAIL);
	int rc;

	if (nxsim__nx_hard_disabled(vm->host))
		return 0;
	if (__atomic_load_n(&once->state, __ATOMIC_ACQUIRE) ==
	    NXSIM__ONCE_COMPLETED)
		goto done;

	pthread_mutex_lock(&once->lock);
	if (once->state != NXSIM__ONCE_COMPLETED) {
		once->state = NXSIM__ONCE_RUNNING;
		rc = kvm_mmu_start_lpage_recovery(vm);
		if (rc < 0 && !once_fail_bug) {
			once->state = NXSIM__ONCE_NOT_STARTED;
			pthread_mutex_unlock(&once->lock);
			return rc;
		}
		__atomic_store_n(&once->state, NXSIM__ONCE_COMPLETED,
				 __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&once->lock);
done:
	/* 931656b9e2ff: "thread ? 0 : -ENOMEM", every time. */
	if (once_fail_bug && !nxsim__worker_exists(vm))
		return -ENOMEM;
	return 0;
}

static void vm_unlist(struct nxsim_vm *vm)
{
	nxsim__mutex_lock(&vm->host->kvm_lock, NXSIM__LOCK_KVM);
	TAILQ_REMOVE(&vm->host->vm_list, vm, vm_list);
	nxsim__mutex_unlock(&vm->host->kvm_lock, NXSIM__LOCK_KVM);
}

void nxsim__vm_free(struct nxsim_vm *vm)
{
	struct nxsim_vcpu *vcpu, *tmp;

	TAILQ_FOREACH_SAFE(vcpu, &vm->vcpus, link, tmp) {
		pthread_mutex_destroy(&vcpu->mutex);
		nxsim__vcpu_tlb_free(vcpu);
		nxsim__free(vcpu, sizeof(*vcpu));
	}
	if (vm->tlb_cfg) {
		nxsim__free(vm->tlb_vcpus,
			    KVM_MAX_VCPUS * sizeof(*vm->tlb_vcpus));
		nxsim__free(vm->tlb_cfg, sizeof(*vm->tlb_cfg));
	}
	nxsim__worker_release(vm);
	nxsim__gate_destroy(&vm->gate);
	pthread_mutex_destroy(&vm->lock);
	pthread_mutex_destroy(&vm->slots_lock);
	pthread_mutex_destroy(&vm->nx_once.lock);
	vm->magic = 0;
	nxsim__free(vm, sizeof(*vm));
}

/*
 * The TDP MMU maps the VM's faults: tdp_enabled and kvm.tdp_mmu (default
 * on since 5.15; opt-in on 5.10, absent before), read as the VM is made
 * (kvm_mmu_init_tdp_mmu()); otherwise the shadow MMU.
 */
static bool uses_tdp_mmu(const struct nxsim_host *host)
{
	if (!host->prof->mmu.tdp_mmu || host->cpu.no_tdp)
		return false;
	return READ_ONCE(host->tdp_mmu_param);
}

int nxsim_vm_create(struct nxsim_host *host, struct nxsim_vm **vmp)
{
	struct nxsim__mmu_config mmu_cfg;
	struct nxsim_vm *vm;
	bool race_order;
	int rc;

	if (!host || !vmp)
		return -EINVAL;
	assert(host->magic == NXSIM_HOST_MAGIC);
	mmu_cfg = (struct nxsim__mmu_config){
		.cpu = &host->cpu,
		.prof = &host->prof->mmu,
		.bugs = host->bugs,
		.params = &host->nx,
		.tdp_mmu = uses_tdp_mmu(host),
		.mmio_caching = host->mmio_caching,
		.nx_recovery = host->nx_recovery,
		.flush_vcpus = nxsim__kvm_make_all_cpus_request,
	};
	race_order = nxsim__host_has_bug(host, NXSIM_BUG_NEVER_CREATE_RACE);
	rc = nxsim__gate_enter(&host->gate);
	if (rc)
		return rc;
	nxsim__host_charge(host, NXSIM__BRINGUP_CREATE_VM, 0);
	vm = nxsim__zalloc(sizeof(*vm));
	if (!vm) {
		rc = -ENOMEM;
		goto out;
	}
	vm->host = host;
	nxsim__gate_init(&vm->gate, -EBADF);
	vm->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	vm->slots_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	vm->nx_once.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	TAILQ_INIT(&vm->vcpus);
	vm->magic = NXSIM_VM_MAGIC;
	mmu_cfg.flush_ctx = vm;

	rc = nxsim__kvm_mmu_init_vm(&mmu_cfg, &vm->mmu);
	if (rc)
		goto free_vm;
	if (race_order && worker_at_create(host)) {
		rc = kvm_mmu_post_init_vm_at_create(vm);
		if (rc)
			goto uninit;
		nxsim__host_create_window(host);
	}

	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	if (host->unloading) {
		nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
		rc = -ENODEV;
		goto stop;
	}
	TAILQ_INSERT_HEAD(&host->vm_list, vm, vm_list);
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);

	if (!race_order && worker_at_create(host)) {
		nxsim__host_create_window(host);
		rc = kvm_mmu_post_init_vm_at_create(vm);
		if (rc) {
			vm_unlist(vm);
			goto uninit;
		}
	}
	ATOMIC_INC(host->counters.vms_created);
	*vmp = vm;
	goto out;

stop:
	nxsim__worker_stop(vm);
uninit:
	nxsim__kvm_mmu_uninit_vm(vm->mmu);
	vm->mmu = NULL;
free_vm:
	nxsim__vm_free(vm);
out:
	nxsim__gate_exit(&host->gate);
	return rc;
}

int nxsim_vm_destroy(struct nxsim_vm *vm)
{
	struct nxsim_host *host;
	struct nxsim_vcpu *vcpu;

	if (!vm)
		return -EINVAL;
	assert(vm->magic == NXSIM_VM_MAGIC);
	/*
	 * Waits for every call inside, a vm_list walk's reference too:
	 * kvm_destroy_vm()'s synchronize_srcu(&vm_list_srcu).
	 */
	nxsim__lockdep_sync(NXSIM__LOCK_VM_LIST_SRCU);
	if (!nxsim__gate_close(&vm->gate))
		return -EBADF;
	/* as kvm_vm_dead() marks a VM: no vCPU access enters from here on */
	__atomic_store_n(&vm->vm_dead, true, __ATOMIC_RELAXED);
	host = vm->host;
	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	TAILQ_REMOVE(&host->vm_list, vm, vm_list);
	TAILQ_INSERT_TAIL(&host->dead_vms, vm, vm_list);
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
	/* kvm_arch_pre_destroy_vm(), then the MMU teardown. */
	nxsim__worker_stop(vm);
	nxsim__host_charge(host, NXSIM__BRINGUP_DESTROY_VM, 0);
	/*
	 * kvm_destroy_vcpus() -> kvm_mmu_destroy(): the vCPUs' caches, each
	 * once an access inside the vCPU has left it.
	 */
	TAILQ_FOREACH(vcpu, &vm->vcpus, link) {
		pthread_mutex_lock(&vcpu->mutex);
		nxsim__kvm_mmu_free_memory_caches(vm->mmu,
						  &vcpu->mmu.mmu_cache);
		pthread_mutex_unlock(&vcpu->mutex);
	}
	/*
	 * kvm_arch_destroy_vm() -> kvm_mmu_uninit_vm(): the TDP MMU frees its
	 * tables through RCU from 5.12 (fault_read_lock), and
	 * kvm_mmu_uninit_tdp_mmu() waits for them with rcu_barrier().
	 */
	if (uses_tdp_mmu(host) && host->prof->mmu.fault_read_lock)
		nxsim__host_charge(host, NXSIM__BRINGUP_TDP_MMU_UNINIT, 0);
	nxsim__kvm_mmu_uninit_vm(vm->mmu);
	vm->mmu = NULL;
	ATOMIC_INC(host->counters.vms_destroyed);
	return 0;
}

int nxsim_vm_release(struct nxsim_vm *vm)
{
	struct nxsim_host *host;

	if (!vm)
		return -EINVAL;
	assert(vm->magic == NXSIM_VM_MAGIC);
	if (!nxsim__gate_is_closed(&vm->gate))
		return -EBUSY;
	host = vm->host;
	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	TAILQ_REMOVE(&host->dead_vms, vm, vm_list);
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
	nxsim__vm_free(vm);
	return 0;
}

struct nxsim_host *nxsim_vm_host(const struct nxsim_vm *vm)
{
	return vm ? vm->host : NULL;
}

int nxsim_vm_nx_huge_pages_enabled(struct nxsim_vm *vm, bool *enabled)
{
	int rc;

	if (!enabled)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	*enabled = nxsim__is_nx_huge_page_enabled(vm->mmu);
	nxsim__vm_exit(vm);
	return 0;
}

int nxsim_vm_check_extension(struct nxsim_vm *vm, unsigned int cap)
{
	int rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	if (cap == NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2)
		rc = NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE |
		     NXSIM_DIRTY_LOG_INITIALLY_SET;
	else
		rc = cap == NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES &&
		     vm->host->prof->disable_nx_cap;
	nxsim__vm_exit(vm);
	return rc;
}

/*
 * kvm_vm_ioctl_enable_cap(), case KVM_CAP_VM_DISABLE_NX_HUGE_PAGES, and
 * kvm_vm_ioctl_enable_cap_generic(), case KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2
 */
int nxsim_vm_enable_cap(struct nxsim_vm *vm, unsigned int cap, uint32_t flags,
			const uint64_t *args, bool cap_sys_boot)
{
	int rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	if (cap == NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2)
		rc = nxsim__mmu_enable_manual_dirty_log_protect(
			vm->mmu, flags, args ? args[0] : 0);
	else if (flags || cap != NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES ||
		 !vm->host->prof->disable_nx_cap) {
		rc = -EINVAL;
	} else if (!cap_sys_boot) {
		/* capable(), not ns_capable(): a container is no limit. */
		rc = -EPERM;
	} else if (args && args[0]) {
		rc = -EINVAL;
	} else {
		pthread_mutex_lock(&vm->lock);
		if (vm->created_vcpus) {
			rc = -EINVAL;
		} else {
			nxsim__mmu_disable_nx_huge_pages(vm->mmu);
			rc = 0;
		}
		pthread_mutex_unlock(&vm->lock);
	}
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim_vm_worker_info(struct nxsim_vm *vm, struct nxsim_worker_info *info)
{
	if (!vm || !info)
		return -EINVAL;
	assert(vm->magic == NXSIM_VM_MAGIC);
	/* Readable after destruction too: the handle keeps the numbers. */
	nxsim__worker_info(vm, info);
	return 0;
}

int nxsim_vm_counters(struct nxsim_vm *vm, struct nxsim_vm_counters *c)
{
	if (!vm || !c)
		return -EINVAL;
	assert(vm->magic == NXSIM_VM_MAGIC);
	c->zap_all = READ_ONCE(vm->counters.zap_all);
	c->wake_calls = READ_ONCE(vm->counters.wake_calls);
	c->worker_create_failures =
		READ_ONCE(vm->counters.worker_create_failures);
	return 0;
}

int nxsim_vm_worker_kill(struct nxsim_vm *vm)
{
	int rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	rc = nxsim__worker_kill(vm);
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim_vm_inject_worker_error(struct nxsim_vm *vm, int err)
{
	int rc;

	if (err >= 0)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	WRITE_ONCE(vm->inject_worker_err, err);
	nxsim__vm_exit(vm);
	return 0;
}

/* kvm_vm_ioctl_create_vcpu() */
int nxsim_vcpu_create(struct nxsim_vm *vm, unsigned int id,
		      struct nxsim_vcpu **vcpup)
{
	struct nxsim_vcpu *vcpu, *v;
	int rc;

	if (!vcpup)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	if (id >= NXSIM_MAX_VCPU_ID) {
		rc = -EINVAL;
		goto out;
	}
	nxsim__host_charge(vm->host, NXSIM__BRINGUP_CREATE_VCPU, 0);
	pthread_mutex_lock(&vm->lock);
	if (vm->created_vcpus >= KVM_MAX_VCPUS) {
		rc = -EINVAL;
		goto unlock;
	}
	TAILQ_FOREACH(v, &vm->vcpus, link) {
		if (v->id == id) {
			rc = -EEXIST;
			goto unlock;
		}
	}
	vcpu = nxsim__zalloc(sizeof(*vcpu));
	if (!vcpu) {
		rc = -ENOMEM;
		goto unlock;
	}
	vcpu->vm = vm;
	vcpu->id = id;
	rc = nxsim__vcpu_tlb_create(vm, vcpu);
	if (rc) {
		nxsim__free(vcpu, sizeof(*vcpu));
		goto unlock;
	}
	vcpu->mutex = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	nxsim__kvm_mmu_create(vm->mmu, &vcpu->mmu);
	if (vcpu->tlb) {
		vm->tlb_vcpus[vm->nr_tlb_vcpus] = vcpu;
		__atomic_store_n(&vm->nr_tlb_vcpus, vm->nr_tlb_vcpus + 1,
				 __ATOMIC_RELEASE);
	}
	TAILQ_INSERT_TAIL(&vm->vcpus, vcpu, link);
	__atomic_store_n(&vm->created_vcpus, vm->created_vcpus + 1,
			 __ATOMIC_RELEASE);
	*vcpup = vcpu;
unlock:
	pthread_mutex_unlock(&vm->lock);
out:
	nxsim__vm_exit(vm);
	return rc;
}

/* The start of kvm_arch_vcpu_ioctl_run(). */
int nxsim_vcpu_run(struct nxsim_vcpu *vcpu)
{
	struct nxsim_vm *vm;
	int rc;

	if (!vcpu)
		return -EINVAL;
	vm = vcpu->vm;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__host_charge(vm->host, NXSIM__BRINGUP_VCPU_RUN, 0);
	if (!worker_at_create(vm->host))
		rc = kvm_mmu_post_init_vm_first_run(vm);
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim_vcpu_set_smm(struct nxsim_vcpu *vcpu, bool smm, bool *was)
{
	bool old;
	int rc;

	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	/* Shadow paging and the nonpaging MMU keep to address space 0. */
	if (!nxsim__vm_tdp_enabled(vcpu->vm)) {
		nxsim__vcpu_exit(vcpu);
		return -EOPNOTSUPP;
	}
	/*
	 * kvm_smm_changed(): the vCPU's memslots become those of address
	 * space 1 (kvm_arch_vcpu_memslots_id()), and kvm_mmu_reset_context()
	 * makes it load a root with role.smm at its next access.
	 */
	old = vcpu->mmu.smm;
	if (old != smm) {
		WRITE_ONCE(vcpu->mmu.smm, smm);
		nxsim__vcpu_tlb_reset_context(vcpu);
	}
	nxsim__vcpu_exit(vcpu);
	if (was)
		*was = old;
	return 0;
}

int nxsim_vcpu_set_apic_hw_enabled(struct nxsim_vcpu *vcpu, bool enable,
				   bool *was)
{
	struct nxsim_host *host;
	bool was_enabled;
	int rc;

	if (!vcpu)
		return -EINVAL;
	rc = nxsim__vm_enter(vcpu->vm);
	if (rc)
		return rc;
	host = vcpu->vm->host;
	was_enabled = !vcpu->apic_hw_disabled;
	/* The guest's WRMSR runs inside KVM_RUN, under kvm->srcu. */
	nxsim__lockdep_acquire(NXSIM__LOCK_KVM_SRCU);
	if (was_enabled && !enable) {
		/*
		 * kvm_lapic_set_base(): static_branch_inc(&apic_hw_disabled)
		 * patches code under cpus_read_lock().  Enabling decrements
		 * the key from deferred work, outside this path.
		 */
		nxsim__lockdep_acquire(NXSIM__LOCK_CPU_HOTPLUG);
		pthread_rwlock_rdlock(&host->cpu_hotplug_lock);
		pthread_rwlock_unlock(&host->cpu_hotplug_lock);
		nxsim__lockdep_release(NXSIM__LOCK_CPU_HOTPLUG);
	}
	vcpu->apic_hw_disabled = !enable;
	nxsim__lockdep_release(NXSIM__LOCK_KVM_SRCU);
	nxsim__vm_exit(vcpu->vm);
	if (was)
		*was = was_enabled;
	return 0;
}

struct nxsim_vm *nxsim_vcpu_vm(const struct nxsim_vcpu *vcpu)
{
	return vcpu ? vcpu->vm : NULL;
}
