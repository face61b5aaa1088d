// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's own stats of a VM and a vCPU, by the names of their binary
 * stats fds (KVM_GET_STATS_FD; 6.1's kvm_vm_stats_desc and
 * kvm_vcpu_stats_desc in arch/x86/kvm/x86.c, with KVM_GENERIC_VM_STATS()
 * and KVM_GENERIC_VCPU_STATS() of include/linux/kvm_host.h), so that the
 * model can be read as the kernel is and compared with it (tools/kcheck).
 *
 * Each stat is the model's count of what the kernel counts, or marked
 * unmodelled: VM exits, halt polling, preemption, MMU page recycling
 * (the model has no n_max_mmu_pages), the rmap and hash peaks, the vCPU's
 * own TLB flushes.  remote_tlb_flush counts the flushes that sent an IPI
 * (kvm_make_all_cpus_request() returned true): no vCPU of the model is in
 * guest mode while a flush is requested, so none did, and it stays 0, as
 * on a kernel whose VMM runs its vCPUs one call at a time.  guest_mode is
 * 0 for the same reason.
 *
 * Left out: the halt-polling histograms (arrays) and the stats of trees
 * other than 6.1 (every profile answers 6.1's list).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <nxsim/mmu.h>
#include <nxsim/vcpu.h>
#include <nxsim/vm.h>

#include "core/compiler.h"
#include "kvm/vm.h"
#include "mmu/mmu.h"

enum kstat_src {
	KS_UNMODELLED,
	KS_ZERO,     /* modelled, and always 0 (see above) */
	KS_COUNTER,  /* struct nxsim_mmu_counters (the VM's, or the vCPU's) */
	KS_MMU,	     /* struct nxsim__mmu_kstat */
	KS_VM_STATS, /* struct nxsim_vm_stats */
	KS_VCPU,     /* struct nxsim__vcpu_stat */
};

struct kstat_desc {
	const char *name;
	enum kstat_src src;
	size_t offset;
};

#define UNMODELLED(n)                \
	{                            \
#n, KS_UNMODELLED, 0 \
	}
#define ZERO(n)                \
	{                      \
#n, KS_ZERO, 0 \
	}
#define FROM(n, src, type, field)              \
	{                                      \
#n, src, offsetof(type, field) \
	}

static const struct kstat_desc vm_kstats[] = {
	ZERO(remote_tlb_flush),
	FROM(remote_tlb_flush_requests, KS_COUNTER, struct nxsim_mmu_counters,
	     tlb_flushes),
	FROM(mmu_shadow_zapped, KS_MMU, struct nxsim__mmu_kstat,
	     mmu_shadow_zapped),
	FROM(mmu_pte_write, KS_MMU, struct nxsim__mmu_kstat, mmu_pte_write),
	FROM(mmu_pde_zapped, KS_MMU, struct nxsim__mmu_kstat, mmu_pde_zapped),
	FROM(mmu_flooded, KS_MMU, struct nxsim__mmu_kstat, mmu_flooded),
	UNMODELLED(mmu_recycled),
	FROM(mmu_cache_miss, KS_MMU, struct nxsim__mmu_kstat, mmu_cache_miss),
	FROM(mmu_unsync, KS_COUNTER, struct nxsim_mmu_counters, unsync_pages),
	FROM(pages_4k, KS_VM_STATS, struct nxsim_vm_stats, pages_4k),
	FROM(pages_2m, KS_VM_STATS, struct nxsim_vm_stats, pages_2m),
	FROM(pages_1g, KS_VM_STATS, struct nxsim_vm_stats, pages_1g),
	FROM(nx_lpage_splits, KS_VM_STATS, struct nxsim_vm_stats,
	     nx_lpage_splits),
	UNMODELLED(max_mmu_rmap_size),
	UNMODELLED(max_mmu_page_hash_collisions),
};

static const struct kstat_desc vcpu_kstats[] = {
	UNMODELLED(halt_successful_poll),
	UNMODELLED(halt_attempted_poll),
	UNMODELLED(halt_poll_invalid),
	UNMODELLED(halt_wakeup),
	UNMODELLED(halt_poll_success_ns),
	UNMODELLED(halt_poll_fail_ns),
	UNMODELLED(halt_wait_ns),
	UNMODELLED(blocking),
	FROM(pf_taken, KS_VCPU, struct nxsim__vcpu_stat, pf_taken),
	FROM(pf_fixed, KS_VCPU, struct nxsim__vcpu_stat, pf_fixed),
	FROM(pf_emulate, KS_VCPU, struct nxsim__vcpu_stat, pf_emulate),
	FROM(pf_spurious, KS_VCPU, struct nxsim__vcpu_stat, pf_spurious),
	FROM(pf_fast, KS_VCPU, struct nxsim__vcpu_stat, pf_fast),
	FROM(pf_mmio_spte_created, KS_COUNTER, struct nxsim_mmu_counters,
	     mmio_spte_created),
	FROM(pf_guest, KS_VCPU, struct nxsim__vcpu_stat, pf_guest),
	UNMODELLED(tlb_flush),
	FROM(invlpg, KS_VCPU, struct nxsim__vcpu_stat, invlpg),
	UNMODELLED(exits),
	UNMODELLED(io_exits),
	UNMODELLED(mmio_exits),
	UNMODELLED(signal_exits),
	UNMODELLED(irq_window_exits),
	UNMODELLED(nmi_window_exits),
	UNMODELLED(l1d_flush),
	UNMODELLED(halt_exits),
	UNMODELLED(request_irq_exits),
	UNMODELLED(irq_exits),
	UNMODELLED(host_state_reload),
	UNMODELLED(fpu_reload),
	UNMODELLED(insn_emulation),
	UNMODELLED(insn_emulation_fail),
	UNMODELLED(hypercalls),
	UNMODELLED(irq_injections),
	UNMODELLED(nmi_injections),
	UNMODELLED(req_event),
	UNMODELLED(nested_run),
	UNMODELLED(directed_yield_attempted),
	UNMODELLED(directed_yield_successful),
	UNMODELLED(preemption_reported),
	UNMODELLED(preemption_other),
	ZERO(guest_mode),
	UNMODELLED(notify_window_exits),
};

/* The model's structs a table reads from; NULL where a table has none. */
struct kstat_sources {
	const struct nxsim_mmu_counters *counters;
	const struct nxsim__mmu_kstat *mmu;
	const struct nxsim_vm_stats *vm_stats;
	const struct nxsim__vcpu_stat *vcpu;
};

static int fill(const struct kstat_desc *d, unsigned int nd,
		const struct kstat_sources *from, struct nxsim_kstat *st,
		unsigned int n)
{
	const void *base[] = {
		[KS_COUNTER] = from->counters,
		[KS_MMU] = from->mmu,
		[KS_VM_STATS] = from->vm_stats,
		[KS_VCPU] = from->vcpu,
	};
	unsigned int i;

	for (i = 0; i < nd && i < n; i++) {
		st[i] = (struct nxsim_kstat){
			.name = d[i].name, .modelled = d[i].src != KS_UNMODELLED
		};
		if (d[i].src > KS_ZERO)
			memcpy(&st[i].value,
			       (const char *)base[d[i].src] + d[i].offset,
			       sizeof(uint64_t));
	}
	return (int)nd;
}

void nxsim__vcpu_count_fault(struct nxsim_vcpu *vcpu,
			     enum nxsim_access_outcome outcome,
			     uint64_t mmio_exits)
{
	struct nxsim__vcpu_stat *s = &vcpu->stat;

	/* handle_mmio_page_fault() answers before kvm_mmu_do_page_fault() */
	if (outcome == NXSIM_ACCESS_HIT ||
	    (outcome == NXSIM_ACCESS_EMULATE && mmio_exits))
		return;
	s->pf_taken++;
	switch (outcome) {
	case NXSIM_ACCESS_FAST: /* fast_page_fault(): RET_PF_FIXED */
		s->pf_fast++;
		s->pf_fixed++;
		break;
	case NXSIM_ACCESS_FAULT:
		s->pf_fixed++;
		break;
	case NXSIM_ACCESS_SPURIOUS:
		s->pf_spurious++;
		break;
	case NXSIM_ACCESS_EMULATE:
		s->pf_emulate++;
		break;
	case NXSIM_ACCESS_GUEST_FAULT: /* RET_PF_RETRY after the injection */
		s->pf_guest++;
		break;
	default:
		break;
	}
}

int nxsim_vm_kstats(struct nxsim_vm *vm, struct nxsim_kstat *st, unsigned int n)
{
	struct nxsim_mmu_counters c;
	struct nxsim__mmu_kstat k;
	struct nxsim_vm_stats vs;
	struct kstat_sources from = { &c, &k, &vs, NULL };
	int rc;

	if (!st && n)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__mmu_kstat(vm->mmu, &k, &vs);
	nxsim__mmu_counters(vm->mmu, &c);
	nxsim__vm_exit(vm);
	return fill(vm_kstats, ARRAY_SIZE(vm_kstats), &from, st, n);
}

int nxsim_vcpu_kstats(struct nxsim_vcpu *vcpu, struct nxsim_kstat *st,
		      unsigned int n)
{
	struct nxsim__vcpu_stat s;
	struct nxsim_mmu_counters c;
	struct kstat_sources from = { &c, NULL, NULL, &s };
	int rc;

	if (!st && n)
		return -EINVAL;
	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	s = vcpu->stat;
	c = vcpu->mmu.stat;
	nxsim__vcpu_exit(vcpu);
	return fill(vcpu_kstats, ARRAY_SIZE(vcpu_kstats), &from, st, n);
}
