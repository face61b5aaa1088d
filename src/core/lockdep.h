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
 *
 * Left out: lock instances (all VMs' mmu_locks are one class, and taking
 * two of one class nests silently), read/write distinctions, IRQ states.
 * Release builds (NDEBUG) compile to the bare pthread calls.
 */
#ifndef NXSIM_CORE_LOCKDEP_H
#define NXSIM_CORE_LOCKDEP_H

#include <pthread.h>
#include <stdbool.h>

enum nxsim__lock_class {
	NXSIM__LOCK_PARAM, /* host->param_lock: kernel_param_lock() */
	NXSIM__LOCK_KVM,   /* host->kvm_lock */
	NXSIM__LOCK_SLOTS, /* vm->slots_lock */
	NXSIM__LOCK_MMU,   /* vm->mmu_lock */
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

static inline void nxsim__write_lock(pthread_rwlock_t *l)
{
	nxsim__lockdep_acquire(NXSIM__LOCK_MMU);
	pthread_rwlock_wrlock(l);
}

static inline void nxsim__read_lock(pthread_rwlock_t *l)
{
	nxsim__lockdep_acquire(NXSIM__LOCK_MMU);
	pthread_rwlock_rdlock(l);
}

static inline void nxsim__rw_unlock(pthread_rwlock_t *l)
{
	pthread_rwlock_unlock(l);
	nxsim__lockdep_release(NXSIM__LOCK_MMU);
}

#endif /* NXSIM_CORE_LOCKDEP_H */
