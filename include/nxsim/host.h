/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A host is one loaded kvm.ko on one machine: the CPU it runs on, the kernel
 * release it comes from (its profile), its module parameters and its VM
 * list.  Creating a host is loading the module; destroying it is unloading
 * it, which is the only way out of nx_huge_pages=never.
 *
 * The profiles themselves are listed by <nxsim/profile.h>.
 *
 * Thread safety: every call is safe from many threads.  Calls that arrive while the host is
 * being destroyed return -ENODEV; using a host after nxsim_host_destroy()
 * returned is undefined (debug builds assert on it), as is destroying it
 * from two threads at once.
 */
#ifndef NXSIM_HOST_H
#define NXSIM_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>
#include <nxsim/clock.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct nxsim_cpu - the host CPU and boot state that kvm.ko looks at
 * @itlb_multihit: X86_BUG_ITLB_MULTIHIT is set (affected Intel parts)
 * @mitigations_off: booted with mitigations=off (a cmdline may also say so)
 * @preempt_rt: CONFIG_PREEMPT_RT kernel: the recovery ratio defaults to 0
 * @amd: NPT (AMD) instead of EPT (Intel): selects the SPTE format
 * @no_tdp: TDP disabled (kvm_intel.ept=0 / kvm_amd.npt=0): shadow paging
 * @no_tdp_mmu: kvm.tdp_mmu=0: TDP through the legacy (shadow) MMU
 * @tdp_mmu: kvm.tdp_mmu=1 where it defaults off (5.10, whose TDP MMU
 *	handles faults under mmu_lock held for write)
 * @no_gbpages: no 1 GiB pages: the largest huge page is 2 MiB
 * @la57: 5-level paging available (TDP roots may have 5 levels)
 * @phys_bits: MAXPHYADDR; 0 means 46, else NXSIM_PHYS_BITS_MIN (a CPU
 *	without PAE) to NXSIM_PHYS_BITS_MAX (the x86 architectural limit)
 * @hz: CONFIG_HZ, jiffies per second; 0 means 250 (Debian's)
 *
 * A zeroed struct is an unaffected Intel CPU with EPT and the TDP MMU.
 */
#define NXSIM_PHYS_BITS_MIN 32
#define NXSIM_PHYS_BITS_MAX 52

struct nxsim_cpu {
	bool itlb_multihit;
	bool mitigations_off;
	bool preempt_rt;
	bool amd;
	bool no_tdp;
	bool no_tdp_mmu;
	bool tdp_mmu;
	bool no_gbpages;
	bool la57;
	unsigned int phys_bits;
	unsigned int hz;
};

/*
 * Historical bugs, switched back on.  Each names the kernel commit that
 * fixed it; docs/bugs.md has the details.  A profile never turns
 * one on by itself: set the ones you want to watch the checkers catch.
 */
enum nxsim_bug {
	/* f47491d7f30b: the recovery-param setter compares raw
	 * period_ms values, so 0 -> 100 wakes no worker. */
	NXSIM_BUG_RAW_PERIOD_WAKE = 1ull << 0,
	/* 43fb96ae7855: waking a VM that has no worker yet
	 * dereferences NULL (counted as an oops). */
	NXSIM_BUG_WAKE_NULL_WORKER = 1ull << 1,
	/* 916b7f42b3b3: a failed worker creation completes the
	 * once-call, returns -ENOMEM and is never retried. */
	NXSIM_BUG_WORKER_ONCE_FAIL = 1ull << 2,
	/* 24492a634baf: a param write wakes a worker that was
	 * killed (use-after-free, counted as an oops). */
	NXSIM_BUG_WAKE_KILLED_WORKER = 1ull << 3,
	/* kvm_create_vm() of <= 6.13 order: the worker is made before the
	 * VM joins vm_list, so "never" can slip in between. */
	NXSIM_BUG_NEVER_CREATE_RACE = 1ull << 4,
	/* 5bcaf3e1715f: every SP made by an exec fault is tracked, even
	 * where no huge page was possible (req_level < level). */
	NXSIM_BUG_TRACK_ANY_LEVEL = 1ull << 5,
	/* 428e921611bc: SPs made by an exec fault are flagged only when
	 * tracked, so an untracked one can be replaced by a huge page. */
	NXSIM_BUG_UNTAGGED_NX = 1ull << 6,
	/* 76901e56fb51: disallowed_hugepage_adjust() steps down at any
	 * non-leaf SPTE, flagged child or not. */
	NXSIM_BUG_ADJUST_ANY_NONLEAF = 1ull << 7,
	/* eb298605705a: recovery zaps SPs of dirty-logged slots. */
	NXSIM_BUG_RECOVER_DIRTY = 1ull << 8,
	/* per-type lists (6.18): recovery untracks TDP SPs with type
	 * KVM_SHADOW_MMU, so both lists' nr_pages go wrong. */
	NXSIM_BUG_UNTRACK_WRONG_TYPE = 1ull << 9,
	/* e89505698c9f: a recovery pass that finds the list empty before
	 * to_zap reaches 0 never commits the shadow pages it prepared
	 * since its last commit, and skips their TLB flush. */
	NXSIM_BUG_RECOVER_NO_COMMIT = 1ull << 10,
	/* b5b0977f4aa2: with TDP off, the nonpaging MMU's exec faults
	 * neither flag nor track the pages they split, so a write in the
	 * same huge page maps it huge again: a fetch/write livelock. */
	NXSIM_BUG_NONPAGING_UNTRACKED = 1ull << 11,
	/* 61f94478547b: the TDP MMU flags a new child SP
	 * nx_huge_page_disallowed after publishing its SPTE, so a vCPU
	 * faulting under the read lock meanwhile sees an unflagged table
	 * and replaces it with a huge page (needs the 6.2 flag check). */
	NXSIM_BUG_TDP_FLAG_AFTER_LINK = 1ull << 12,
	/* 817fa998362d: NX recovery looks up the memslot of every SP in
	 * address space 0, so an SP of an SMM-only gfn finds no slot (a
	 * WARN, reported by the checker) while some slot is dirty-logged,
	 * and one of a gfn in both spaces is judged by the wrong slot. */
	NXSIM_BUG_SMM_SLOT_LOOKUP = 1ull << 13,
	/* set_nx_huge_pages() holds kvm_lock while it takes each VM's
	 * slots_lock, closing the chain slots_lock -> kvm->srcu ->
	 * cpu_hotplug_lock -> kvm_lock -> slots_lock that Paolo Bonzini
	 * reported on 24 Jan 2025 ("KVM: x86: fix usage of kvm_lock in
	 * set_nx_huge_pages()"); every released tree has it.  Off, the
	 * setter walks vm_list as Sean Christopherson's vm_list_srcu
	 * proposal does, without kvm_lock across slots_lock. */
	NXSIM_BUG_SETTER_LOCK_ORDER = 1ull << 14,
};

/**
 * struct nxsim_host_config - how to load kvm.ko
 * @cpu: the CPU
 * @profile: kernel release to model ("6.1", "6.14", ...); NULL: newest
 * @cmdline: kernel command line, e.g.
 *	"kvm.nx_huge_pages=never kvm.nx_huge_pages_recovery_ratio=0";
 *	kvm.* parameters are applied as modprobe would, mitigations= is read,
 *	everything else is ignored
 * @clock: the clock to run on; NULL: a private clock of mode @time
 * @time: mode of the private clock (virtual by default)
 * @bugs: NXSIM_BUG_* switches
 * @nx_recovery: the NX huge page recovery rule of its VMs
 *	(nxsim_nx_recovery_name(), <nxsim/nx_recovery.h>); NULL or "kernel":
 *	the profile's own
 */
struct nxsim_host_config {
	struct nxsim_cpu cpu;
	const char *profile;
	const char *cmdline;
	struct nxsim_clock *clock;
	enum nxsim_clock_mode time;
	uint64_t bugs;
	const char *nx_recovery;
};

/**
 * struct nxsim_host_counters - what happened on a host
 * @param_sets: parameter writes that reached a setter
 * @vms_created: VMs created since load
 * @vms_destroyed: VMs destroyed since load
 * @oopses: kernel oopses a re-enabled bug would have caused
 */
struct nxsim_host_counters {
	uint64_t param_sets;
	uint64_t vms_created;
	uint64_t vms_destroyed;
	uint64_t oopses;
};

struct nxsim_host;

/**
 * nxsim_host_create() - load kvm.ko
 * @cfg: configuration; NULL for all defaults
 * @hostp: receives the host
 *
 * Applies the command line's kvm.* parameters through their setters, then
 * resolves nx_huge_pages=auto (-1) from the CPU, as kvm_mmu_x86_module_init()
 * does.  As with modprobe, one failing parameter fails the load.
 *
 * Return: 0; -ENOENT for an unknown @cfg->nx_recovery; -EINVAL (bad
 * profile, HZ or phys_bits, bad parameter value,
 * a kvm.* parameter without a value); -EPERM (a parameter written after "never");
 * -ERANGE; -ENOMEM.
 */
NXSIM_API int nxsim_host_create(const struct nxsim_host_config *cfg,
				struct nxsim_host **hostp);

/**
 * nxsim_host_destroy() - unload kvm.ko
 * @host: the host
 *
 * Return: 0; -EBUSY while VMs exist (the module is in use); -EINVAL for
 * NULL.
 */
NXSIM_API int nxsim_host_destroy(struct nxsim_host *host);

/** nxsim_host_clock() - the clock the host runs on. */
NXSIM_API struct nxsim_clock *nxsim_host_clock(const struct nxsim_host *host);

/** nxsim_host_profile() - the name of the host's kernel profile. */
NXSIM_API const char *nxsim_host_profile(const struct nxsim_host *host);

/**
 * nxsim_host_counters() - read the host's counters
 *
 * Return: 0; -EINVAL for a NULL argument.
 */
NXSIM_API int nxsim_host_counters(const struct nxsim_host *host,
				  struct nxsim_host_counters *c);

/**
 * nxsim_host_cpufreq_notify() - every host CPU changed frequency
 * @host: the host
 *
 * __kvmclock_cpufreq_notifier(), registered on hosts without a constant
 * TSC: called by the cpufreq core under cpus_read_lock(), it takes
 * kvm_lock and asks each vCPU of each VM for a clock update
 * (KVM_REQ_CLOCK_UPDATE).  The lock order this builds is what the lock
 * checker of debug builds records.
 *
 * Return: the number of vCPUs asked; -EINVAL; -ENODEV.
 */
NXSIM_API int64_t nxsim_host_cpufreq_notify(struct nxsim_host *host);

/**
 * nxsim_host_vulnerability() - /sys/devices/system/cpu/vulnerabilities/
 *				itlb_multihit
 * @host: the host
 * @buf: receives the text with its trailing newline
 * @size: size of @buf
 *
 * Return: the length of the text, or -ENOSPC if @buf is too small.
 */
NXSIM_API int64_t nxsim_host_vulnerability(struct nxsim_host *host, char *buf,
					   size_t size);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_HOST_H */
