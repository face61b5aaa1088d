// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a VM's MMU reports to the layer above: the VM stats by their
 * kernel names (kvm->stat.pages[] of kvm_update_page_stats(), summed over
 * their shards, and nx_lpage_splits), the shadow MMU's counters of
 * struct kvm_vm_stat, the simulator's counters (the VM's plus each
 * vCPU's), the page-table pages the VM holds, and the checker's event
 * log: the violations the fault and recovery paths saw, which
 * nxsim__mmu_check() (check.c) reports.
 *
 * Left out: the binary stats fd (kvm_vm_stats_desc of arch/x86/kvm/x86.c,
 * read without a lock) and the debugfs files; kvm's nxsim_vm_kstats()
 * lays the values out by their kernel names.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/alloc.h"
#include "core/compiler.h"
#include "mmu/mmu.h"
#include "mmu/mmu_internal.h"

#define EVENTS_SIZE (NXSIM__MAX_EVENTS * NXSIM__EVENT_LEN)

/*
 * Record @i of the VM's events, whose array is made at the first event:
 * racing events publish one (the others free theirs).  NULL if there is no
 * memory for it: the event is then only counted, and the checker says
 * that it was not kept.
 */
static char *event_slot(struct nxsim__vm_mmu *mmu, unsigned int i)
{
	char(*ev)[NXSIM__EVENT_LEN] =
		__atomic_load_n(&mmu->events, __ATOMIC_ACQUIRE);
	char(*none)[NXSIM__EVENT_LEN] = NULL;

	if (!ev) {
		ev = nxsim__zalloc(EVENTS_SIZE);
		if (ev && !__atomic_compare_exchange_n(&mmu->events, &none, ev,
						       false, __ATOMIC_ACQ_REL,
						       __ATOMIC_ACQUIRE)) {
			nxsim__free(ev, EVENTS_SIZE);
			ev = none;
		}
	}
	return ev ? ev[i] : NULL;
}

void nxsim__mmu_event(struct nxsim__vm_mmu *mmu, const char *fmt, ...)
{
	unsigned int i =
		__atomic_fetch_add(&mmu->nr_events, 1, __ATOMIC_RELAXED);
	char *slot;
	va_list ap;

	if (i < NXSIM__MAX_EVENTS && (slot = event_slot(mmu, i))) {
		va_start(ap, fmt);
		vsnprintf(slot, NXSIM__EVENT_LEN, fmt, ap);
		va_end(ap);
	}
}

void nxsim__mmu_free_events(struct nxsim__vm_mmu *mmu)
{
	if (mmu->events)
		nxsim__free(mmu->events, EVENTS_SIZE);
}

/*
 * The stats and counters are read under the write lock: faults under the
 * read lock update them, so only the write lock gives one snapshot.
 */
void nxsim__mmu_stats(struct nxsim__vm_mmu *mmu, struct nxsim_vm_stats *st)
{
	nxsim__write_lock(&mmu->mmu_lock);
	*st = (struct nxsim_vm_stats){
		.pages_4k = nxsim__page_stat(mmu, NXSIM_PG_LEVEL_4K),
		.pages_2m = nxsim__page_stat(mmu, NXSIM_PG_LEVEL_2M),
		.pages_1g = nxsim__page_stat(mmu, NXSIM_PG_LEVEL_1G),
		.nx_lpage_splits = mmu->nx_lpage_splits,
	};
	nxsim__rw_unlock(&mmu->mmu_lock);
}

void nxsim__mmu_kstat(struct nxsim__vm_mmu *mmu, struct nxsim__mmu_kstat *k,
		      struct nxsim_vm_stats *st)
{
	nxsim__mmu_stats(mmu, st);
	nxsim__write_lock(&mmu->mmu_lock);
	*k = mmu->kstat;
	nxsim__rw_unlock(&mmu->mmu_lock);
}

/* The VM's counters plus each vCPU's (the fault counts). */
void nxsim__mmu_counters(struct nxsim__vm_mmu *mmu,
			 struct nxsim_mmu_counters *c)
{
	const size_t n = sizeof(*c) / sizeof(uint64_t);
	const struct nxsim__vcpu_mmu *v;
	uint64_t *sum = (uint64_t *)c;
	const uint64_t *add;
	size_t i;

	_Static_assert(sizeof(*c) % sizeof(uint64_t) == 0,
		       "struct nxsim_mmu_counters holds only uint64_t");
	nxsim__write_lock(&mmu->mmu_lock);
	*c = mmu->counters;
	for (v = mmu->vcpus; v; v = v->next) {
		add = (const uint64_t *)&v->stat;
		for (i = 0; i < n; i++)
			sum[i] += __atomic_load_n(&add[i], __ATOMIC_RELAXED);
	}
	c->unsync_pages = mmu->nr_unsync;
	nxsim__rw_unlock(&mmu->mmu_lock);
}

long nxsim__mmu_nr_pages(struct nxsim__vm_mmu *mmu)
{
	long n, pending;

	n = nxsim__mmu_nr_pages_allocated(mmu, &pending);
	return n - pending -
	       (long)__atomic_load_n(&mmu->nr_cached, __ATOMIC_RELAXED);
}

long nxsim__mmu_nr_pages_allocated(struct nxsim__vm_mmu *mmu, long *pending)
{
	long n;

	/*
	 * An RCU callback frees a page under pages_alloc_lock alone, dropping
	 * both counts: read them together under it.
	 */
	nxsim__write_lock(&mmu->mmu_lock);
	pthread_mutex_lock(&mmu->pages_alloc_lock);
	n = (long)__atomic_load_n(&mmu->nr_sps, __ATOMIC_RELAXED);
	*pending =
		(long)__atomic_load_n(&mmu->nr_rcu_pending, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(&mmu->pages_alloc_lock);
	nxsim__rw_unlock(&mmu->mmu_lock);
	return n;
}
