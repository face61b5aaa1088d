// SPDX-License-Identifier: GPL-2.0-only
/*
 * The VM and vCPU calls that reach the MMU: KVM_SET_USER_MEMORY_REGION
 * (kvm_vm_ioctl_set_memory_region() of virt/kvm/kvm_main.c, under
 * slots_lock), a guest access (the vCPU running, arch/x86/kvm/x86.c), the
 * host remapping guest memory, the VM stats, and the simulator's checker
 * and dump.  Each enters the VM's gate (a guest access only its vCPU,
 * nxsim__vcpu_enter()) and hands the MMU its half of the VM (vm->mmu);
 * the MMU takes mmu_lock itself.
 *
 * With the TDP MMU off (kvm.tdp_mmu=0, or a tree before 5.15) the MMU
 * maps faults through the shadow MMU's direct map.  With TDP off (no
 * EPT/NPT) the access address is the guest's virtual address and the
 * shadow MMU walks the vCPU's guest tables (src/mmu/guest_walk.c) and
 * shadows them (src/mmu/paging_tmpl.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nxsim/mmu.h>
#include <nxsim/stats.h>
#include <nxsim/vm.h>

#include "kvm/host.h"
#include "kvm/profile.h"
#include "kvm/vcpu_tlb.h"
#include "kvm/vm.h"
#include "mmu/mmu.h"

int nxsim_vm_set_memory_region(struct nxsim_vm *vm,
			       const struct nxsim_memory_region *mr)
{
	int rc;

	if (!mr)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__mutex_lock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	rc = nxsim__kvm_set_memory_region(vm->mmu, mr);
	nxsim__mutex_unlock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	nxsim__vm_exit(vm);
	return rc;
}

/* kvm_vm_ioctl_get_dirty_log(), under slots_lock */
int nxsim_vm_get_dirty_log(struct nxsim_vm *vm, uint32_t slot, uint64_t *bitmap)
{
	int rc;

	if (!bitmap)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__mutex_lock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	rc = nxsim__kvm_get_dirty_log_protect(vm->mmu, slot, bitmap);
	nxsim__mutex_unlock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	nxsim__vm_exit(vm);
	return rc;
}

/* kvm_vm_ioctl_clear_dirty_log(), under slots_lock */
int nxsim_vm_clear_dirty_log(struct nxsim_vm *vm, uint32_t slot,
			     uint64_t first_page, uint32_t num_pages,
			     const uint64_t *bitmap)
{
	int rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	nxsim__mutex_lock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	rc = nxsim__kvm_clear_dirty_log_protect(vm->mmu, slot, first_page,
						num_pages, bitmap);
	nxsim__mutex_unlock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim_vm_set_host_level(struct nxsim_vm *vm, uint32_t slot_id,
			    uint64_t offset, uint64_t size, int level)
{
	int rc;

	if (level < NXSIM_PG_LEVEL_4K || level > NXSIM_PG_LEVEL_1G)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__mutex_lock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	rc = nxsim__mmu_set_host_level(vm->mmu, slot_id, offset, size, level);
	nxsim__mutex_unlock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	nxsim__vm_exit(vm);
	return rc;
}

/* tdp_enabled: EPT or NPT in use (kvm_intel.ept / kvm_amd.npt). */
bool nxsim__vm_tdp_enabled(const struct nxsim_vm *vm)
{
	return !vm->host->cpu.no_tdp;
}

int nxsim_vcpu_access_guest(struct nxsim_vcpu *vcpu,
			    enum nxsim_access_kind kind, uint64_t gpa,
			    int guest_level, struct nxsim_access_info *info)
{
	struct nxsim_access_info local = { 0 };
	struct nxsim_vm *vm;
	uint64_t mmio_exits;
	int rc;

	if (!vcpu || (unsigned int)kind > NXSIM_ACCESS_EXEC ||
	    (guest_level != NXSIM_GUEST_LEVEL_WALK &&
	     (guest_level < NXSIM_PG_LEVEL_4K ||
	      guest_level > NXSIM_PG_LEVEL_1G)))
		return -EINVAL;
	vm = vcpu->vm;
	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	/* vcpu_run(): kvm_vcpu_srcu_read_lock() around the exit. */
	nxsim__lockdep_acquire(NXSIM__LOCK_KVM_SRCU);
	mmio_exits = vcpu->mmu.stat.mmio_exits;
	/*
	 * With TDP off, only a gva access on a TLB goes through the TLB; any
	 * other goes to the MMU's fault entry as it is.
	 */
	if (!nxsim__vm_tdp_enabled(vm) &&
	    !(vcpu->tlb && guest_level == NXSIM_GUEST_LEVEL_WALK))
		rc = nxsim__kvm_mmu_do_page_fault(vm->mmu, &vcpu->mmu,
						  &vcpu->arch_mmu, kind, gpa,
						  &local, NULL);
	else
		rc = nxsim__vcpu_access_entered(vcpu, kind, gpa, guest_level,
						&local);
	if (!rc)
		nxsim__vcpu_count_fault(vcpu, local.outcome,
					vcpu->mmu.stat.mmio_exits - mmio_exits);
	nxsim__lockdep_release(NXSIM__LOCK_KVM_SRCU);
	nxsim__vcpu_exit(vcpu);
	if (!rc && info)
		*info = local;
	return rc;
}

/* A guest mapping everything with 4 KiB pages. */
int nxsim_vcpu_access(struct nxsim_vcpu *vcpu, enum nxsim_access_kind kind,
		      uint64_t gpa, struct nxsim_access_info *info)
{
	return nxsim_vcpu_access_guest(vcpu, kind, gpa, NXSIM_PG_LEVEL_4K,
				       info);
}

int nxsim_vm_stats(struct nxsim_vm *vm, struct nxsim_vm_stats *st)
{
	int rc;

	if (!st)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__mmu_stats(vm->mmu, st);
	nxsim__vm_exit(vm);
	return 0;
}

int nxsim_vm_stat_get(struct nxsim_vm *vm, const char *name, uint64_t *val)
{
	const struct nxsim_stat_desc *d;
	struct nxsim_vm_stats st;
	int rc;

	if (!name || !val)
		return -EINVAL;
	rc = nxsim_vm_stats(vm, &st);
	if (rc)
		return rc;
	d = nxsim_stats_find(NXSIM_STATS_VM_STATS, name);
	if (!d)
		return -ENOENT;
	*val = nxsim_stat_u64(d, &st);
	return 0;
}

const char *nxsim_vm_stat_name(unsigned int i)
{
	const struct nxsim_stat_desc *d =
		nxsim_stats_desc(NXSIM_STATS_VM_STATS, i);

	return d ? d->name : NULL;
}

int nxsim_vm_mmu_counters(struct nxsim_vm *vm, struct nxsim_mmu_counters *c)
{
	int rc;

	if (!c)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	nxsim__mmu_counters(vm->mmu, c);
	nxsim__vm_exit(vm);
	return 0;
}

int64_t nxsim_vm_nr_mmu_pages(struct nxsim_vm *vm)
{
	int64_t n;
	int rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	n = nxsim__mmu_nr_pages(vm->mmu);
	nxsim__vm_exit(vm);
	return n;
}

int64_t nxsim_vm_check(struct nxsim_vm *vm, nxsim_text_fn report, void *ctx)
{
	int64_t rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	/*
	 * A parameter write holds param_lock until its zap of every root is
	 * done, so the checker's one read of nx_huge_pages matches the tables.
	 */
	nxsim__mutex_lock(&vm->host->param_lock, NXSIM__LOCK_PARAM);
	rc = nxsim__mmu_check(vm->mmu, report, ctx);
	nxsim__mutex_unlock(&vm->host->param_lock, NXSIM__LOCK_PARAM);
	nxsim__vm_exit(vm);
	return rc;
}

int64_t nxsim_vm_dump(struct nxsim_vm *vm, nxsim_text_fn emit, void *ctx)
{
	int64_t rc;

	if (!emit)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	rc = nxsim__mmu_dump(vm->mmu, emit, ctx);
	nxsim__vm_exit(vm);
	return rc;
}

struct buf_ctx {
	char *buf;
	size_t size;
	size_t len;
};

static void buf_emit(void *ctx, const char *text)
{
	struct buf_ctx *b = ctx;
	size_t n = strlen(text);

	if (b->len < b->size)
		snprintf(b->buf + b->len, b->size - b->len, "%s\n", text);
	b->len += n + 1;
}

int64_t nxsim_vm_dump_buf(struct nxsim_vm *vm, char *buf, size_t size)
{
	struct buf_ctx b = { .buf = buf, .size = size };
	int64_t rc;

	if (!buf && size)
		return -EINVAL;
	rc = nxsim_vm_dump(vm, buf_emit, &b);
	return rc < 0 ? rc : (int64_t)b.len;
}
