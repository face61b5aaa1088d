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
 *
 * The VM's memory slots, page tables, stats, checker and dump are here too
 * (their types in <nxsim/mmu.h>); its vCPUs are in <nxsim/vcpu.h>.
 *
 * Thread safety: every call is safe from many threads; each takes the
 * locks the kernel takes (the host's kvm_lock, the VM's slots_lock,
 * mmu_lock).  A call racing with nxsim_vm_destroy() returns -EBADF.
 */
#ifndef NXSIM_VM_H
#define NXSIM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>
#include <nxsim/mmu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nxsim_host;
struct nxsim_vm;
struct nxsim_vcpu;

/* include/uapi/linux/kvm.h */
#define NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES 220
#define NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2 168

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
NXSIM_API struct nxsim_host *nxsim_vm_host(const struct nxsim_vm *vm);

/**
 * nxsim_vm_check_extension() - KVM_CHECK_EXTENSION on the VM
 *
 * Return: 1 for NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES where the profile has
 * it (6.0 on); NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE |
 * NXSIM_DIRTY_LOG_INITIALLY_SET for NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2
 * (KVM_DIRTY_LOG_MANUAL_CAPS of x86); 0 otherwise; -EBADF.
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
 * For NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2 (kvm_vm_ioctl_enable_cap_generic()):
 * args[0] is the VM's new set of options, NXSIM_DIRTY_LOG_MANUAL_PROTECT_ENABLE
 * and, with it only, NXSIM_DIRTY_LOG_INITIALLY_SET; 0 turns manual
 * protection off; -EINVAL for non-zero flags or other bits.  With manual
 * protection nxsim_vm_get_dirty_log() leaves the bitmap and the SPTEs
 * alone; with INITIALLY_SET a slot's new bitmap is all set and turning
 * dirty logging on protects nothing (no split, no write protection).
 *
 * Return: 0 or a negative errno; -EINVAL for an unknown @cap.
 */
NXSIM_API int nxsim_vm_enable_cap(struct nxsim_vm *vm, unsigned int cap,
				  uint32_t flags, const uint64_t *args,
				  bool cap_sys_boot);

/**
 * nxsim_vm_nx_huge_pages_enabled() - is_nx_huge_page_enabled(kvm)
 * @vm: the VM
 * @enabled: receives whether the mitigation applies to this VM
 *
 * Return: 0; -EINVAL for a NULL @enabled; -EBADF.
 */
NXSIM_API int nxsim_vm_nx_huge_pages_enabled(struct nxsim_vm *vm,
					     bool *enabled);

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

/* ---- memory, page tables, stats, checker and dump ----------------------- */

/**
 * nxsim_vm_set_memory_region() - KVM_SET_USER_MEMORY_REGION
 *
 * As __kvm_set_memory_region(): create, delete (size 0), move (new gpa),
 * or change flags.  Deleting or moving zaps every mapping of the VM
 * (kvm_mmu_zap_all_fast(), the kernel's default KVM_X86_QUIRK_SLOT_ZAP_ALL).
 * Turning dirty logging on first splits the slot's huge leaves to 4K on
 * the TDP MMU when kvm.eager_page_split is set (6.1 on, default; a split
 * that cannot allocate a page table ends early and the call still
 * succeeds), then write-protects the slot's leaves (huge leaves only on
 * EPT, which has PML); turning it off zaps collapsible page tables,
 * or (6.13 on) rebuilds huge SPTEs in place.  With
 * NXSIM_DIRTY_LOG_INITIALLY_SET (nxsim_vm_enable_cap()) turning dirty
 * logging on splits and protects nothing: nxsim_vm_clear_dirty_log() does
 * it piecewise.  A slot that logs dirty pages gets its dirty bitmap when
 * created or when logging turns on (-ENOMEM if it cannot be allocated:
 * nothing changes).  Runs under slots_lock.
 *
 * Return: 0; -EINVAL (bad flags, alignment, slot id, address space,
 * overflow, size, deleting an empty slot, changing size/hva/read-only of
 * a live slot, bad @host_level); -EEXIST (overlaps another slot); -ENOMEM;
 * -EBADF.
 */
NXSIM_API int nxsim_vm_set_memory_region(struct nxsim_vm *vm,
					 const struct nxsim_memory_region *mr);

/**
 * nxsim_vm_get_dirty_log() - KVM_GET_DIRTY_LOG
 * @vm: the VM
 * @slot: slot id, address space in bits 16-31
 * @bitmap: receives the slot's dirty bitmap, one bit per page, bit i of
 *	word i / 64 for page i: (npages + 63) / 64 words
 *
 * As kvm_get_dirty_log_protect() of 6.1.  Without manual protection the
 * bitmap is also cleared and the pages it had are protected again for
 * logging (kvm_arch_mmu_enable_log_dirty_pt_masked(): D cleared with PML
 * on EPT, else W), then one TLB flush of the slot.  A page is logged when
 * a writable 4K SPTE is made for it (make_spte(), any fault that maps it
 * writable), when the fast path restores W, or, with PML, when a write
 * sets a clear D bit.
 *
 * Return: 0; -EINVAL (bad slot id or address space, NULL @bitmap);
 * -ENOENT (no such slot, or it does not log dirty pages); -EBADF.
 */
NXSIM_API int nxsim_vm_get_dirty_log(struct nxsim_vm *vm, uint32_t slot,
				     uint64_t *bitmap);

/**
 * nxsim_vm_clear_dirty_log() - KVM_CLEAR_DIRTY_LOG
 * @vm: the VM
 * @slot: slot id, address space in bits 16-31
 * @first_page: first page of the range, a multiple of 64
 * @num_pages: pages in the range, a multiple of 64 unless the range ends
 *	at the end of the slot
 * @bitmap: bit i of word i / 64 stands for page @first_page + i; may be
 *	NULL when @num_pages is 0
 *
 * As kvm_clear_dirty_log_protect() of 6.1: the bits set both in @bitmap
 * and in the slot's bitmap are cleared and their pages protected again
 * (D cleared with PML on EPT, else W); with
 * NXSIM_DIRTY_LOG_INITIALLY_SET, each 64-page word first splits the huge
 * pages under its first and last set gfn (kvm.eager_page_split, TDP MMU)
 * and write-protects the huge leaves left there.  One TLB flush of the
 * slot if any bit was cleared.  Works without manual protection too, as
 * the 6.1 ioctl does.
 *
 * Return: 0; -EINVAL (bad slot id or address space, @first_page not a
 * multiple of 64, a range past the slot, @num_pages not a multiple of 64
 * short of the slot's end); -EFAULT (NULL @bitmap with @num_pages, as
 * the kernel's copy_from_user() fails before anything changes); -ENOENT
 * (no such slot, or it does not log dirty pages); -EBADF.
 */
NXSIM_API int nxsim_vm_clear_dirty_log(struct nxsim_vm *vm, uint32_t slot,
				       uint64_t first_page, uint32_t num_pages,
				       const uint64_t *bitmap);

/**
 * nxsim_vm_set_host_level() - change the host mapping size under a slot
 * @vm: the VM
 * @slot: slot id
 * @offset: byte offset into the slot, page aligned; for
 *	NXSIM_PG_LEVEL_1G, the hva there must be 1 GiB aligned
 * @size: bytes, page aligned (a multiple of 1 GiB for NXSIM_PG_LEVEL_1G)
 * @level: NXSIM_PG_LEVEL_4K (split), _2M or _1G (THP collapse, hugetlb)
 *
 * The host's unit is the 2 MiB of hva: every 2 MiB hva region the range
 * touches gets @level (splitting part of a 1 GiB mapping leaves the rest
 * of it 2M).  The host page tables change, so the MMU notifier zaps the
 * leaf SPTEs of those regions (kvm_unmap_gfn_range(), which leaves page
 * tables in place).
 *
 * Return: 0; -EINVAL (unknown slot, bad range or level); -EBADF.
 */
NXSIM_API int nxsim_vm_set_host_level(struct nxsim_vm *vm, uint32_t slot,
				      uint64_t offset, uint64_t size,
				      int level);

/**
 * nxsim_vm_stats() - read every VM stat at once
 * @vm: the VM
 * @st: receives them, one snapshot taken under mmu_lock; their names and
 *	meanings are the descriptors of NXSIM_STATS_VM_STATS (<nxsim/stats.h>)
 *
 * Return: 0; -EINVAL; -EBADF.
 */
NXSIM_API int nxsim_vm_stats(struct nxsim_vm *vm, struct nxsim_vm_stats *st);

/**
 * nxsim_vm_kstats() - every stat of the VM's binary stats fd
 * @vm: the VM
 * @st: receives up to @n of them, in the kernel's order (6.1's
 *	kvm_vm_stats_desc: remote_tlb_flush, remote_tlb_flush_requests, the
 *	shadow MMU's mmu_*, pages_4k/2m/1g, nx_lpage_splits, max_mmu_*), one
 *	snapshot; docs/kcheck.md says which are modelled and how
 * @n: room in @st
 *
 * Return: the number of stats (all of them, even past @n); -EINVAL
 * (NULL @st with @n > 0); -EBADF.
 */
NXSIM_API int nxsim_vm_kstats(struct nxsim_vm *vm, struct nxsim_kstat *st,
			      unsigned int n);

/**
 * nxsim_vm_stat_get() - read one VM stat by its kernel name
 * @vm: the VM
 * @name: "pages_4k", "pages_2m", "pages_1g" or "nx_lpage_splits"
 * @val: receives the value
 *
 * Return: 0; -ENOENT for an unknown name; -EINVAL; -EBADF.
 */
NXSIM_API int nxsim_vm_stat_get(struct nxsim_vm *vm, const char *name,
				uint64_t *val);

/**
 * nxsim_vm_stat_name() - the i-th stat name (the i-th descriptor of
 *			  NXSIM_STATS_VM_STATS), NULL past the end.
 */
NXSIM_API const char *nxsim_vm_stat_name(unsigned int i);

/** nxsim_vm_mmu_counters() - read them.  Return: 0, -EINVAL, -EBADF. */
NXSIM_API int nxsim_vm_mmu_counters(struct nxsim_vm *vm,
				    struct nxsim_mmu_counters *c);

/**
 * nxsim_vm_nr_mmu_pages() - page-table pages alive (roots included)
 *
 * Return: the count, or a negative errno.
 */
NXSIM_API int64_t nxsim_vm_nr_mmu_pages(struct nxsim_vm *vm);

/**
 * nxsim_vm_check() - verify the invariants numbered in docs/mmu.md
 * @vm: the VM
 * @report: called with each violation's text (may be NULL)
 * @ctx: passed to @report
 *
 * Checks the page tables (structure, stats, exec bits of huge leaves),
 * the possible-NX lists and counts, the flags of the SPs, and what the
 * fault and recovery paths recorded since the last check (a huge leaf
 * built over a table an exec fault made; a recovery pass zapping an SP in
 * a dirty-logged slot or more than ceil(n / ratio)).  Those records are
 * reported once.
 *
 * Safe while other threads fault, recover and write parameters: the
 * check sees one consistent state (never a parameter write whose zap is
 * still under way).  @report runs under the VM's mmu_lock and must not
 * call into the VM.
 *
 * Return: the number of violations (0 when all hold); -EBADF; -EINVAL.
 */
NXSIM_API int64_t nxsim_vm_check(struct nxsim_vm *vm, nxsim_text_fn report,
				 void *ctx);

/**
 * nxsim_vm_dump() - print the VM's page tables as a tree
 * @vm: the VM
 * @emit: called with each line
 * @ctx: passed to @emit
 *
 * A header line with the stats; one line per memory slot; one per root
 * and per page-table page (level, gfn range, frame, flags:
 * nx_huge_page_disallowed, tracked), one per non-leaf SPTE, and one per
 * run of leaf SPTEs with the same bits and consecutive pfns; then the
 * possible-NX lists, oldest (next to recover) first.
 *
 * Return: lines emitted; -EBADF; -EINVAL.
 */
NXSIM_API int64_t nxsim_vm_dump(struct nxsim_vm *vm, nxsim_text_fn emit,
				void *ctx);

/**
 * nxsim_vm_dump_buf() - nxsim_vm_dump() into a buffer, like snprintf()
 *
 * Return: the length the whole dump needs (excluding the NUL); the text in
 * @buf is cut at @size - 1; a negative errno.
 */
NXSIM_API int64_t nxsim_vm_dump_buf(struct nxsim_vm *vm, char *buf,
				    size_t size);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_VM_H */
