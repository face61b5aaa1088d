/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small lockdep: debug builds record, for the kernel locks the model
 * maps to real locks, which class was held when another was taken, and
 * report an acquisition that closes a cycle (a reversal of an order seen
 * before, directly or through other classes), the way CONFIG_PROVE_LOCKING
 * reports "possible circular locking dependency".  The order the kernel
 * documents (Documentation/virt/kvm/locking.rst) and the model keeps is
 *
 *   param_lock (kernel_param_lock) -> kvm_lock -> slots_lock -> mmu_lock
 *	-> tdp_mmu_pages_lock
 *   cpu_hotplug_lock (cpus_read_lock()) -> kvm_lock
 *   slots_lock -> kvm->srcu (synchronize_srcu() in kvm_swap_active_memslots())
 *   kvm->srcu (a running vCPU) -> mmu_lock, and -> cpu_hotplug_lock when
 *	the guest disables its local APIC (static_branch_inc())
 *   vm_list_srcu (a walk of vm_list that takes locks) -> slots_lock
 *
 * SRCU is a class like the kernel's srcu lockdep map: a reader "holds" it
 * from srcu_read_lock() to srcu_read_unlock(), and synchronize_srcu() is an
 * acquisition released at once (nxsim__lockdep_sync()), so a grace-period
 * wait inside a lock that a reader takes closes a cycle.
 *
 * Left out: lock instances (all VMs' mmu_locks are one class, and taking
 * two of one class nests silently), read/write distinctions (so a reader
 * of cpu_hotplug_lock or SRCU counts as a holder), IRQ states.  Release
 * builds (NDEBUG) compile to the bare pthread calls.
 */
#ifndef NXSIM_CORE_LOCKDEP_H
#define NXSIM_CORE_LOCKDEP_H

#include <pthread.h>
#include <stdbool.h>

enum nxsim__lock_class {
	NXSIM__LOCK_PARAM,	   /* host->param_lock: kernel_param_lock() */
	NXSIM__LOCK_KVM,	   /* host->kvm_lock */
	NXSIM__LOCK_SLOTS,	   /* vm->slots_lock */
	NXSIM__LOCK_MMU,	   /* vm->mmu_lock */
	NXSIM__LOCK_TDP_MMU_PAGES, /* kvm->arch.tdp_mmu_pages_lock */
	NXSIM__LOCK_CPU_HOTPLUG,   /* host->cpu_hotplug_lock (cpus_read_lock) */
	NXSIM__LOCK_KVM_SRCU,	   /* kvm->srcu (an annotation, no lock) */
	NXSIM__LOCK_VM_LIST_SRCU,  /* vm_list_srcu (an annotation, no lock) */
	NXSIM__NR_LOCK_CLASSES,
};

#ifndef NDEBUG
/* Note that this thread takes / let go of a lock of class @c. */
void nxsim__lockdep_acquire(enum nxsim__lock_class c);
void nxsim__lockdep_release(enum nxsim__lock_class c);
/*
 * Reversals reported so far.  A report goes to stderr and aborts unless
 * nxsim__lockdep_fatal is false (tests that provoke one).
 */
unsigned int nxsim__lockdep_reports(void);
extern bool nxsim__lockdep_fatal;
#else
static inline void nxsim__lockdep_acquire(enum nxsim__lock_class c)
{
}

static inline void nxsim__lockdep_release(enum nxsim__lock_class c)
{
}
#endif

/* synchronize_srcu() on a class: wait for every reader, hold nothing. */
static inline void nxsim__lockdep_sync(enum nxsim__lock_class c)
{
	nxsim__lockdep_acquire(c);
	nxsim__lockdep_release(c);
}

static inline void nxsim__mutex_lock(pthread_mutex_t *m,
				     enum nxsim__lock_class c)
{
	nxsim__lockdep_acquire(c);
	pthread_mutex_lock(m);
}

static inline void nxsim__mutex_unlock(pthread_mutex_t *m,
				       enum nxsim__lock_class c)
{
	pthread_mutex_unlock(m);
	nxsim__lockdep_release(c);
}

#endif /* NXSIM_CORE_LOCKDEP_H */
