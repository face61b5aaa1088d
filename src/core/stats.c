// SPDX-License-Identifier: GPL-2.0-only
/*
 * The descriptor tables of every public statistics struct
 * (include/nxsim/stats.h) and their iterator.  A field's type is taken
 * from the struct by _Generic, so a table cannot disagree with its struct
 * about types; tests/unit/test_stats.c checks that every table covers its
 * struct whole, in order.
 *
 * Left out: nothing is counted here; the tables only describe.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <nxsim/nxsim.h>

#include "core/compiler.h"
#include "core/names.h"

/* clang-format off */
#define STAT_TYPE(x)				\
	_Generic((x),				\
		 uint64_t: NXSIM_STAT_U64,	\
		 uint32_t: NXSIM_STAT_U32,	\
		 uint16_t: NXSIM_STAT_U16,	\
		 uint8_t: NXSIM_STAT_U8,	\
		 int: NXSIM_STAT_INT,		\
		 bool: NXSIM_STAT_BOOL,		\
		 double: NXSIM_STAT_DOUBLE)

/* Field @f of struct @s, printed as @name. */
#define STAT_AS(s, f, name, meaning)                                        \
	{                                                                   \
		name, STAT_TYPE(((struct s *)0)->f), offsetof(struct s, f), \
			meaning, NULL                                       \
	}
#define STAT(s, f, meaning) STAT_AS(s, f, #f, meaning)
/* A clock time of struct @s (uint64_t, NXSIM_NEVER for none). */
#define STAT_TIME(s, f, meaning)                                            \
	{                                                                   \
		#f, _Generic(((struct s *)0)->f, uint64_t: NXSIM_STAT_TIME), \
			offsetof(struct s, f), meaning, NULL                \
	}
/* A field of struct @s of type enum @e, whose values @value_name names. */
#define STAT_ENUM(s, f, e, value_name, meaning)                             \
	{                                                                   \
		#f, _Generic(((struct s *)0)->f, enum e: NXSIM_STAT_ENUM),  \
			offsetof(struct s, f), meaning, value_name          \
	}
/* clang-format on */

static const struct nxsim_stat_desc alloc_descs[] = {
#define S(f, m) STAT(nxsim_alloc_stats, f, m)
	S(allocs, "allocations made since the process started"),
	S(live, "allocations not yet freed"),
	S(live_bytes, "bytes requested by the live allocations"),
	S(failed, "allocations that failed (injected or real)"),
#undef S
};

static const struct nxsim_stat_desc host_descs[] = {
#define S(f, m) STAT(nxsim_host_counters, f, m)
	S(param_sets, "parameter writes that reached a setter"),
	S(vms_created, "VMs created since load"),
	S(vms_destroyed, "VMs destroyed since load"),
	S(oopses, "kernel oopses a re-enabled bug would have caused"),
#undef S
};

static const struct nxsim_stat_desc vm_descs[] = {
#define S(f, m) STAT(nxsim_vm_counters, f, m)
	S(zap_all, "kvm_mmu_zap_all_fast() calls (nx_huge_pages changes)"),
	S(wake_calls, "recovery-worker wake requests, worker or not"),
	S(worker_create_failures, "recovery-worker creations that failed"),
#undef S
};

static const struct nxsim_stat_desc mmu_descs[] = {
#define S(f, m) STAT(nxsim_mmu_counters, f, m)
	S(faults, "page faults handled"),
	S(emulated, "faults answered with emulation"),
	S(splits, "huge SPTEs split in place on a fault"),
	S(huge_zaps, "huge SPTEs zapped on a fault (pre-6.2 TDP MMU)"),
	S(recovery_passes, "kvm_recover_nx_huge_pages() calls"),
	S(recovery_zapped, "shadow pages zapped by recovery"),
	S(recovery_unaccounted, "shadow pages only unaccounted (dirty log)"),
	S(tlb_flushes, "remote TLB flushes requested"),
	S(zap_all, "kvm_mmu_zap_all_fast() calls"),
	S(mmio_spte_created, "MMIO SPTEs installed by faults"),
	S(mmio_exits, "MMIO SPTE exits emulated without a fault"),
	S(mmio_stale, "MMIO SPTEs of an old generation refaulted"),
	S(unsync, "shadow pages made unsync (kvm_unsync_page())"),
	S(synced, "unsync shadow pages synced (FNAME(sync_page))"),
	S(unsync_pages, "shadow pages unsync now (stat mmu_unsync)"),
#undef S
};

static const struct nxsim_stat_desc tlb_descs[] = {
#define S(f, m) STAT(nxsim_tlb_stats, f, m)
	STAT_AS(nxsim_tlb_stats, hits[NXSIM_TLB_L1D], "hits_l1d",
		"lookups that hit in the L1 dTLB"),
	STAT_AS(nxsim_tlb_stats, hits[NXSIM_TLB_L1I], "hits_l1i",
		"lookups that hit in the L1 iTLB"),
	STAT_AS(nxsim_tlb_stats, hits[NXSIM_TLB_L2], "hits_l2",
		"lookups that hit in the second-level TLB"),
	S(misses, "lookups that missed every level"),
	S(walks, "page walks reported through nxsim_tlb_fill()"),
	S(fills, "entries written at any level"),
	S(evictions, "valid entries pushed out by a fill"),
	S(invlpg, "INVLPG executed"),
	S(cr3_flush, "CR3 writes that dropped the PCID's entries"),
	S(cr3_noflush, "CR3 writes with NOFLUSH"),
	S(global_flush, "flushes of everything, global entries included"),
	S(range_flushes, "kernel range flushes started, page by page"),
	S(full_flushes, "kernel flushes started that flushed everything"),
	S(ipis_sent, "shootdowns started by IPI"),
	S(ipi_targets, "CPUs those IPIs went to"),
	S(ipis_received, "shootdown IPIs handled"),
	S(broadcasts, "INVLPGB-like broadcasts issued"),
#undef S
};

static const struct nxsim_stat_desc xpfo_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_stats, f, m)
	S(alloc_kernel, "frames allocated to the kernel"),
	S(alloc_user, "frames allocated to user space"),
	S(frees, "frames freed"),
	S(kmaps, "xpfo_kmap() calls"),
	S(kunmaps, "xpfo_kunmap() calls"),
	S(refills, "batched per-CPU freelist refills"),
	S(pte_clear, "physmap PTEs made not present"),
	S(pte_set, "physmap PTEs made present again"),
	S(splits_1g, "1G physmap mappings split to 2M"),
	S(splits_2m, "2M physmap mappings split to 4K"),
	S(policy_flushes, "flushes requested of the flush policy"),
	S(kernel_accesses, "kernel accesses through the physmap"),
	S(user_accesses, "user accesses to own frames"),
	S(context_switches, "context switches"),
	S(kernel_entries, "user-to-kernel entries"),
#undef S
};

static const struct nxsim_stat_desc oracle_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_oracle, f, m)
	S(stale_reads, "kernel reads through a stale physmap alias"),
	S(stale_writes, "kernel writes through a stale physmap alias"),
	S(stale_cross_domain, "of those, by a CPU of another domain"),
	S(faults, "physmap accesses to unmapped frames that faulted"),
	S(exposures, "closed (frame, CPU) stale-alias windows"),
	S(exposures_open, "stale-alias windows open now"),
	S(exposure_mean_ns, "mean length of the closed windows"),
	S(exposure_max_ns, "longest closed window"),
	S(exposure_sum_ns, "sum of the closed windows (CPU-ns exposed)"),
	S(reuse_hazards, "frames handed on while a stale alias lived"),
	S(kmap_windows, "closed kmaps of user frames"),
	S(kmap_mean_ns, "mean kmap window"),
	S(kmap_max_ns, "longest kmap window"),
	S(kmap_sum_ns, "sum of the kmap windows"),
	S(exposed_frames, "frames with per-frame statistics"),
	S(frame_windows_dropped, "windows missing from per-frame statistics"),
#undef S
};

static const struct nxsim_stat_desc cpu_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_cpu_info, f, m)
	S(domain, "current domain; 0 is no user domain"),
	S(user_mode, "the CPU runs in user mode"),
	S(pending_flush, "a deferred flush waits for this CPU"),
	S(context_switches, "context switches"),
	S(kernel_entries, "user-to-kernel entries"),
	S(pending_set, "times a deferred flush was queued"),
	S(pending_done, "deferred flushes executed"),
	S(cycles, "this CPU's timeline"),
	S(kernel_cycles, "of which in the kernel"),
	S(exposures, "closed stale windows on this CPU"),
	S(exposure_max_ns, "longest of them"),
	S(exposure_sum_ns, "sum of them"),
#undef S
};

static const struct nxsim_stat_desc exposure_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_frame_exposure, f, m)
	S(pfn, "the frame"),
	S(windows, "closed (frame, CPU) stale-alias windows"),
	S(open, "windows open now"),
	S(mean_ns, "mean closed window"),
	S(max_ns, "longest closed window"),
	S(sum_ns, "sum of the closed windows (CPU-ns exposed)"),
#undef S
};

static const struct nxsim_stat_desc result_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_result, f, m)
	S(events, "ownership events executed"),
	S(kernel_cycles, "kernel cycles, summed over CPUs"),
	S(user_cycles, "user cycles, summed over CPUs"),
	S(makespan_cycles, "the largest CPU timeline"),
	S(flush_cycles, "of kernel_cycles: flushes, IPIs, splits"),
	S(base_kernel_cycles, "kernel cycles without XPFO"),
	S(base_user_cycles, "user cycles without XPFO"),
	S(base_makespan_cycles, "makespan without XPFO"),
	S(system_ratio, "kernel_cycles / base_kernel_cycles"),
	S(wall_ratio, "makespan_cycles / base_makespan_cycles"),
#undef S
};

static const struct nxsim_stat_desc rates_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_rates, f, m)
	S(ownership_changes, "allocations and frees (owner changes)"),
	S(shootdowns_per_1k, "kernel range or full flushes started"),
	S(local_flushes_per_1k, "INVLPG, CR3 and global flushes executed"),
	S(ipis_per_1k, "shootdowns sent by IPI"),
	S(ipi_targets_per_1k, "IPIs received"),
	S(broadcasts_per_1k, "INVLPGB-like broadcasts"),
	S(policy_flushes_per_1k, "flushes requested of the policy"),
#undef S
};

static const struct nxsim_stat_desc trace_descs[] = {
#define S(f, m) STAT(nxsim_trace_stats, f, m)
	S(lines, "text lines (binary records) read"),
	S(events, "events delivered"),
	S(allocs, "allocation events"),
	S(frees, "free events"),
	S(user, "allocations of user pages"),
	S(pages, "frames allocated (sum of 2^order)"),
	S(ifetch, "instruction fetches"),
	S(loads, "loads"),
	S(stores, "stores"),
	S(modifies, "modifies"),
	S(other, "lines of other tracepoints, skipped"),
	S(failed, "allocations that got no page, skipped"),
	S(lost, "events ftrace says it lost"),
#undef S
};

static const struct nxsim_stat_desc replay_descs[] = {
#define S(f, m) STAT(nxsim_trace_replay, f, m)
	S(events, "page events replayed"),
	S(frames, "frame allocations and frees executed"),
	S(switches, "context switches between a CPU's tasks"),
	S(unmatched_frees, "frees of frames not allocated: skipped"),
	S(double_allocs, "allocations of allocated frames: freed first"),
	S(out_of_range, "frames beyond the machine: skipped"),
	S(accesses, "memory-access records: skipped"),
#undef S
};

static const struct nxsim_stat_desc tlb_replay_descs[] = {
#define S(f, m) STAT(nxsim_trace_tlb_replay, f, m)
	S(accesses, "access records replayed"),
	S(lookups, "TLB lookups, one per page touched"),
	S(misses, "lookups that missed every level"),
	S(crossings, "accesses that crossed a page boundary"),
	S(page_events, "page ownership records: skipped"),
#undef S
};

/*
 * The four of arch/x86/kvm/x86.c kvm_vm_stats_desc the model keeps, by
 * their kernel names; all are instantaneous (STATS_DESC_ICOUNTER).
 */
static const struct nxsim_stat_desc vm_stats_descs[] = {
#define S(f, m) STAT(nxsim_vm_stats, f, m)
	S(pages_4k, "leaf SPTEs mapping 4 KiB (instantaneous)"),
	S(pages_2m, "leaf SPTEs mapping 2 MiB (instantaneous)"),
	S(pages_1g, "leaf SPTEs mapping 1 GiB (instantaneous)"),
	S(nx_lpage_splits,
	  "shadow pages on the possible-NX-huge-page lists (instantaneous)"),
#undef S
};

static const char *worker_state_name(unsigned int i)
{
	static const char *const names[] = {
		[NXSIM_WORKER_NONE] = "none",
		[NXSIM_WORKER_RUNNING] = "running",
		[NXSIM_WORKER_KILLED] = "killed",
		[NXSIM_WORKER_STOPPED] = "stopped",
	};

	return NXSIM__NAME_AT(names, i);
}

static const struct nxsim_stat_desc worker_descs[] = {
#define S(f, m) STAT(nxsim_worker_info, f, m)
#define T(f, m) STAT_TIME(nxsim_worker_info, f, m)
	STAT_ENUM(nxsim_worker_info, state, nxsim_worker_state,
		  worker_state_name,
		  "none, running, killed (SIGKILL) or stopped (VM destroyed)"),
	S(wakes, "wake-ups delivered to a live worker"),
	S(passes, "recovery passes (kvm_recover_nx_huge_pages() calls)"),
	T(created_ns, "clock time of creation; 0 without a worker"),
	T(deadline_ns, "when it next wakes by itself; never: until woken"),
	S(last_jiffies, "nx_huge_page_last, in jiffies"),
#undef T
#undef S
};

static const char *access_outcome_name(unsigned int i)
{
	static const char *const names[] = {
		[NXSIM_ACCESS_HIT] = "hit",
		[NXSIM_ACCESS_FAULT] = "fault",
		[NXSIM_ACCESS_SPURIOUS] = "spurious",
		[NXSIM_ACCESS_FAST] = "fast",
		[NXSIM_ACCESS_EMULATE] = "emulate",
		[NXSIM_ACCESS_GUEST_FAULT] = "guest_fault",
	};

	return NXSIM__NAME_AT(names, i);
}

static const struct nxsim_stat_desc access_descs[] = {
#define S(f, m) STAT(nxsim_access_info, f, m)
	STAT_ENUM(nxsim_access_info, outcome, nxsim_access_outcome,
		  access_outcome_name,
		  "hit, fault, spurious, fast (fast_page_fault()), emulate "
		  "or guest_fault (TDP off: the guest's page tables fault)"),
	S(level, "level of the leaf mapping the gpa afterwards; 0: none"),
	S(req_level, "the fault's req_level; 0 without a fault"),
	S(goal_level, "the fault's final goal_level; 0 without a fault"),
	S(huge_page_disallowed, "the fault's huge_page_disallowed"),
	S(splits, "huge SPTEs split in place by the fault (6.2 on)"),
	S(zapped_huge, "huge SPTEs zapped by the fault (before 6.2)"),
#undef S
};

static const char *xpfo_owner_name(unsigned int i)
{
	static const char *const names[] = {
		[NXSIM_XPFO_FREE] = "free",
		[NXSIM_XPFO_KERNEL] = "kernel",
		[NXSIM_XPFO_USER] = "user",
	};

	return NXSIM__NAME_AT(names, i);
}

static const struct nxsim_stat_desc frame_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_frame_info, f, m)
	STAT_ENUM(nxsim_xpfo_frame_info, owner, nxsim_xpfo_owner,
		  xpfo_owner_name, "free, kernel or user"),
	S(domain, "its user domain; the last one when free"),
	S(user, "PG_xpfo_user"),
	S(unmapped, "PG_xpfo_unmapped: its physmap PTE is not present"),
	S(kmap_count, "xpfo_kmap() calls not yet undone"),
	S(physmap_shift, "12, 21 or 30: the physmap mapping covering it"),
	S(stale_cpus, "CPUs still caching its unmapped physmap alias"),
#undef S
};

static const struct nxsim_stat_desc bringup_costs_descs[] = {
#define S(f, m) STAT(nxsim_bringup_costs, f, m)
	S(create_vm_us, "kvm_create_vm() and its fd, without the worker"),
	S(create_vcpu_us, "KVM_CREATE_VCPU"),
	S(kvm_run_us, "one KVM_RUN entry and exit"),
	S(destroy_vm_us, "the last close of a VM, without the worker"),
	S(kthread_create_us, "the creator's share of kthread_create_on_node()"),
	S(kthread_fork_us, "kthreadd's copy_process() of a kernel thread"),
	S(kthread_exit_us, "a kthread's exit after kthread_stop()"),
	S(wakeup_us, "wake-up to running on an idle CPU"),
	S(wakeup_busy_us, "mean extra wait when the woken task's CPU is busy"),
	S(cgroup_attach_us, "cgroup_attach_task_all()'s work, locks held"),
	S(vhost_create_us, "vhost_task_create() and vhost_task_start()"),
	S(vhost_exit_us, "vhost_task_stop() until the task has exited"),
	S(gp_jiffies, "median grace period beyond the first FQS wait"),
	S(gp_sigma, "spread of that length (sigma of its logarithm)"),
	S(gp_load_gain, "how much a fully busy host lengthens it"),
	S(bg_vm_load, "share of one CPU an idle background VM uses"),
#undef S
};

static const struct nxsim_stat_desc xpfo_costs_descs[] = {
#define S(f, m) STAT(nxsim_xpfo_costs, f, m)
	S(stlb_hit, "cycles of an STLB hit"),
	S(walk, "cycles of a page walk"),
	S(invlpg, "cycles of an INVLPG"),
	S(cr3_flush, "cycles of a CR3-write flush"),
	S(global_flush, "cycles of a flush of every entry"),
	S(ipi_first, "sender's cycles for the first IPI target"),
	S(ipi_extra, "sender's cycles for each further target"),
	S(ipi_recv, "receiver's cycles for a flush IPI"),
	S(split, "cycles of a large-page split of the physmap"),
	S(pte_write, "cycles of one PTE store"),
	S(invlpgb, "cycles of an INVLPGB"),
	S(tlbsync, "cycles of a TLBSYNC wait"),
	S(asi_transition, "cycles of an ASI address-space switch"),
	S(xpfo_lock, "cycles of the lock around an xpfo map or unmap"),
	S(kernel_access, "cycles of a kernel load or store"),
	S(user_access, "cycles of a user load or store"),
	S(user_work, "cycles of user work between two kernel events"),
	S(page_alloc, "cycles of a page allocation"),
	S(page_free, "cycles of a page free"),
	S(page_zero, "cycles of zeroing a page"),
	S(context_switch, "cycles of a context switch"),
	S(kernel_entry, "cycles of a system call's own work"),
#undef S
};

static const struct nxsim_stat_desc bringup_latency_descs[] = {
#define S(f, name, m) STAT_AS(nxsim_bringup_stats, f, name, m)
	S(n, "n", "VMs that had this step"),
	S(p50, "p50_ns", "median (nearest rank)"),
	S(p95, "p95_ns", "95th percentile (nearest rank)"),
	S(p99, "p99_ns", "99th percentile (nearest rank)"),
	S(max, "max_ns", "the longest"),
	S(mean, "mean_ns", "the mean, rounded to the ns"),
#undef S
};

static const struct nxsim_stat_desc bringup_result_descs[] = {
#define S(f, m) STAT(nxsim_bringup_result, f, m)
	S(makespan_ns, "from the burst's start to its last bring-up"),
	S(vms_per_s, "VMs brought up per second of modelled time"),
	S(grace_periods, "RCU grace periods started until the last bring-up"),
	S(attach_waits, "cgroup attaches that waited for cgroup_mutex"),
	S(worker_failures, "worker creations that failed and were retried"),
#undef S
};

static const struct nxsim_stat_desc vcpu_descs[] = {
#define S(f, m) STAT(nxsim_vcpu_stats, f, m)
	S(accesses, "guest accesses through the vCPU's TLB"),
	S(exec, "of them, instruction fetches (iTLB side)"),
	S(l1d_misses, "data accesses the L1 dTLB did not serve"),
	S(l1i_misses, "fetches the L1 iTLB did not serve"),
	S(walks, "two-dimensional walks (second-level or rights misses)"),
	S(perm_misses, "walks of a cached entry that did not allow the access"),
	S(walk_refs, "memory references of the walks"),
	S(walk_cycles, "cycles of the walks"),
	S(faults, "walks that took a TDP page fault"),
	S(fills_4k, "entries filled at 4 KiB"),
	S(fills_2m, "entries filled at 2 MiB"),
	S(fills_1g, "entries filled at 1 GiB"),
	S(flush_requests, "remote flush requests posted to the vCPU"),
	S(tlb_flush, "flushes KVM did (vcpu->stat.tlb_flush)"),
	S(tlb_flush_range, "ranged flushes done"),
	S(root_reloads, "root reloads done (obsolete roots freed)"),
	S(invlpg, "the guest's INVLPGs"),
	S(cr3_flushes, "the guest's CR3 loads (each a flush)"),
#undef S
};

static const struct nxsim_stat_desc workload_result_descs[] = {
#define S(f, m) STAT(nxsim_workload_result, f, m)
	S(accesses, "guest accesses, all vCPUs"),
	S(exec, "of them, instruction fetches"),
	S(l1d_mpka, "L1 dTLB misses per 1000 accesses"),
	S(l1i_mpka, "L1 iTLB misses per 1000 accesses"),
	S(l2_mpka, "second-level misses (walks) per 1000 accesses"),
	S(walks, "two-dimensional walks"),
	S(walk_cycles, "cycles of the walks"),
	S(faults, "TDP page faults"),
	S(splits, "huge SPTEs split in place on faults"),
	S(huge_zaps, "huge SPTEs zapped on faults"),
	S(recovery_zapped, "SPs zapped by recovery passes"),
	S(remote_flushes, "kvm_flush_remote_tlbs() calls"),
	S(vcpu_flushes, "flushes and root reloads the vCPUs did"),
	S(huge_fraction, "share of mapped bytes in huge SPTEs at the end"),
	S(cycles, "modelled CPU cycles, all vCPUs"),
	S(phase_cycles, "cycles of the measured phase"),
#undef S
};

#define SET(name, t)                    \
	{                               \
#name, t, ARRAY_SIZE(t) \
	}

static const struct {
	const char *name;
	const struct nxsim_stat_desc *desc;
	unsigned int n;
} sets[NXSIM_STATS_NR_SETS] = {
	[NXSIM_STATS_ALLOC] = SET(nxsim_alloc_stats, alloc_descs),
	[NXSIM_STATS_HOST] = SET(nxsim_host_counters, host_descs),
	[NXSIM_STATS_VM] = SET(nxsim_vm_counters, vm_descs),
	[NXSIM_STATS_MMU] = SET(nxsim_mmu_counters, mmu_descs),
	[NXSIM_STATS_TLB] = SET(nxsim_tlb_stats, tlb_descs),
	[NXSIM_STATS_XPFO] = SET(nxsim_xpfo_stats, xpfo_descs),
	[NXSIM_STATS_XPFO_ORACLE] = SET(nxsim_xpfo_oracle, oracle_descs),
	[NXSIM_STATS_XPFO_CPU] = SET(nxsim_xpfo_cpu_info, cpu_descs),
	[NXSIM_STATS_XPFO_EXPOSURE] =
		SET(nxsim_xpfo_frame_exposure, exposure_descs),
	[NXSIM_STATS_XPFO_RESULT] = SET(nxsim_xpfo_result, result_descs),
	[NXSIM_STATS_XPFO_RATES] = SET(nxsim_xpfo_rates, rates_descs),
	[NXSIM_STATS_TRACE] = SET(nxsim_trace_stats, trace_descs),
	[NXSIM_STATS_TRACE_REPLAY] = SET(nxsim_trace_replay, replay_descs),
	[NXSIM_STATS_TRACE_TLB_REPLAY] =
		SET(nxsim_trace_tlb_replay, tlb_replay_descs),
	[NXSIM_STATS_VM_STATS] = SET(nxsim_vm_stats, vm_stats_descs),
	[NXSIM_STATS_WORKER] = SET(nxsim_worker_info, worker_descs),
	[NXSIM_STATS_ACCESS] = SET(nxsim_access_info, access_descs),
	[NXSIM_STATS_XPFO_FRAME] = SET(nxsim_xpfo_frame_info, frame_descs),
	[NXSIM_STATS_BRINGUP_COSTS] =
		SET(nxsim_bringup_costs, bringup_costs_descs),
	[NXSIM_STATS_BRINGUP_LATENCY] =
		SET(nxsim_bringup_stats, bringup_latency_descs),
	[NXSIM_STATS_BRINGUP_RESULT] =
		SET(nxsim_bringup_result, bringup_result_descs),
	[NXSIM_STATS_VCPU] = SET(nxsim_vcpu_stats, vcpu_descs),
	[NXSIM_STATS_WORKLOAD_RESULT] =
		SET(nxsim_workload_result, workload_result_descs),
	[NXSIM_STATS_XPFO_COSTS] = SET(nxsim_xpfo_costs, xpfo_costs_descs),
};

const char *nxsim_stats_set_name(enum nxsim_stats_set set)
{
	return (unsigned int)set < NXSIM_STATS_NR_SETS ? sets[set].name : NULL;
}

const struct nxsim_stat_desc *nxsim_stats_desc(enum nxsim_stats_set set,
					       unsigned int i)
{
	if ((unsigned int)set >= NXSIM_STATS_NR_SETS || i >= sets[set].n)
		return NULL;
	return &sets[set].desc[i];
}

const struct nxsim_stat_desc *nxsim_stats_find(enum nxsim_stats_set set,
					       const char *name)
{
	const struct nxsim_stat_desc *d;
	unsigned int i;

	for (i = 0; name && (d = nxsim_stats_desc(set, i)); i++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

uint64_t nxsim_stat_u64(const struct nxsim_stat_desc *d, const void *st)
{
	const char *p;
	union {
		uint64_t u64;
		uint32_t u32;
		uint16_t u16;
		uint8_t u8;
		bool b;
		double dbl;
		int e;
	} v;

	if (!d || !st)
		return 0;
	p = (const char *)st + d->offset;
	switch (d->type) {
	case NXSIM_STAT_U32:
		memcpy(&v.u32, p, sizeof(v.u32));
		return v.u32;
	case NXSIM_STAT_U16:
		memcpy(&v.u16, p, sizeof(v.u16));
		return v.u16;
	case NXSIM_STAT_U8:
		memcpy(&v.u8, p, sizeof(v.u8));
		return v.u8;
	case NXSIM_STAT_INT:
		memcpy(&v.e, p, sizeof(v.e));
		return (uint64_t)(int64_t)v.e;
	case NXSIM_STAT_BOOL:
		memcpy(&v.b, p, sizeof(v.b));
		return v.b;
	case NXSIM_STAT_ENUM:
		memcpy(&v.e, p, sizeof(v.e));
		return (unsigned int)v.e;
	case NXSIM_STAT_DOUBLE:
		memcpy(&v.dbl, p, sizeof(v.dbl));
		/* NAN and out-of-range values have no integer: 0 */
		return v.dbl >= 0 && v.dbl < 0x1p64 ? (uint64_t)v.dbl : 0;
	case NXSIM_STAT_U64:
	case NXSIM_STAT_TIME:
	default:
		memcpy(&v.u64, p, sizeof(v.u64));
		return v.u64;
	}
}

double nxsim_stat_double(const struct nxsim_stat_desc *d, const void *st)
{
	double v;

	if (!d || !st)
		return 0;
	if (d->type == NXSIM_STAT_INT)
		return (double)(int64_t)nxsim_stat_u64(d, st);
	if (d->type != NXSIM_STAT_DOUBLE)
		return (double)nxsim_stat_u64(d, st);
	memcpy(&v, (const char *)st + d->offset, sizeof(v));
	return v;
}

int nxsim_stat_format(const struct nxsim_stat_desc *d, const void *st,
		      char *buf, size_t size)
{
	uint64_t v = nxsim_stat_u64(d, st);
	const char *name = NULL;

	if (!d || !st || (!buf && size))
		return -EINVAL;
	if (d->type == NXSIM_STAT_DOUBLE)
		return snprintf(buf, size, "%.6g", nxsim_stat_double(d, st));
	if (d->type == NXSIM_STAT_ENUM && d->value_name)
		name = d->value_name((unsigned int)v);
	else if (d->type == NXSIM_STAT_TIME && v == NXSIM_NEVER)
		name = "never";
	if (name)
		return snprintf(buf, size, "%s", name);
	if (d->type == NXSIM_STAT_INT)
		return snprintf(buf, size, "%" PRId64, (int64_t)v);
	return snprintf(buf, size, "%" PRIu64, v);
}
