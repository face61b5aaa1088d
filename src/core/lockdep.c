// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lock-order checker of core/lockdep.h (kernel/locking/lockdep.c in
 * miniature): a per-thread count of held classes and a process-wide set
 * of "held A while taking B" edges.  Taking B while holding A fails when
 * B already reaches A through recorded edges.
 */
#ifndef NDEBUG
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/lockdep.h"

#define N NXSIM__NR_LOCK_CLASSES

static const char *const names[N] = {
	[NXSIM__LOCK_PARAM] = "param_lock",
	[NXSIM__LOCK_KVM] = "kvm_lock",
	[NXSIM__LOCK_SLOTS] = "slots_lock",
	[NXSIM__LOCK_MMU] = "mmu_lock",
	[NXSIM__LOCK_TDP_MMU_PAGES] = "tdp_mmu_pages_lock",
	[NXSIM__LOCK_CPU_HOTPLUG] = "cpu_hotplug_lock",
	[NXSIM__LOCK_KVM_SRCU] = "kvm->srcu",
	[NXSIM__LOCK_VM_LIST_SRCU] = "vm_list_srcu",
};

static _Atomic bool edge[N][N]; /* held [a] while taking [b] */
static _Thread_local unsigned int held[N];
static _Atomic unsigned int reports;
bool nxsim__lockdep_fatal = true;

/* Whether recorded edges lead from @from to @to. */
static bool reaches(int from, int to, unsigned int seen)
{
	int next;

	if (from == to)
		return true;
	for (next = 0; next < N; next++)
		if (!(seen & 1u << next) && atomic_load(&edge[from][next]) &&
		    reaches(next, to, seen | 1u << next))
			return true;
	return false;
}

void nxsim__lockdep_acquire(enum nxsim__lock_class c)
{
	int a;

	for (a = 0; a < N; a++) {
		if (!held[a] || a == (int)c)
			continue;
		if (reaches(c, a, 1u << c)) {
			atomic_fetch_add(&reports, 1);
			fprintf(stderr,
				"nxsim: possible circular locking dependency: "
				"taking %s while holding %s, but %s -> %s was "
				"seen before\n",
				names[c], names[a], names[c], names[a]);
			if (nxsim__lockdep_fatal)
				abort();
			continue;
		}
		atomic_store(&edge[a][c], true);
	}
	held[c]++;
}

void nxsim__lockdep_release(enum nxsim__lock_class c)
{
	held[c]--;
}

unsigned int nxsim__lockdep_reports(void)
{
	return atomic_load(&reports);
}
#endif
