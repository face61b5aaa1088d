// SPDX-License-Identifier: GPL-2.0-only
/*
 * The public calls of <nxsim/guest.h>: guest memory as the VMM and the
 * guest write it (kvm_write_guest() / kvm_read_guest() of
 * virt/kvm/kvm_main.c), the vCPU's control registers (the MOV to CR0,
 * CR3 and CR4 and the EFER write of arch/x86/kvm/x86.c, kvm_set_cr*()),
 * and the guest walk of FNAME(gva_to_gpa).  The VM's calls enter its
 * gate, the vCPU's take its mutex as a vCPU ioctl does, and each hands
 * the MMU its half of the VM; the MMU takes mmu_lock itself.  The
 * guest's INVLPG and CR3 loads reach the vCPU's TLB (vcpu_tlb.c).
 */
#include <errno.h>

#include <nxsim/guest.h>

#include "kvm/vcpu_tlb.h"
#include "kvm/vm.h"
#include "mmu/paging_tmpl.h"

int nxsim_guest_write(struct nxsim_vm *vm, uint64_t gpa, const void *buf,
		      size_t len)
{
	int rc;

	if (!buf && len)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	rc = nxsim__guest_write(vm->mmu, gpa, buf, len);
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim_guest_read(struct nxsim_vm *vm, uint64_t gpa, void *buf, size_t len)
{
	int rc;

	if (!buf && len)
		return -EINVAL;
	rc = nxsim__vm_enter(vm);
	if (rc)
		return rc;
	rc = nxsim__guest_read(vm->mmu, gpa, buf, len);
	nxsim__vm_exit(vm);
	return rc;
}

int64_t nxsim_guest_nr_pages(struct nxsim_vm *vm)
{
	int64_t rc = nxsim__vm_enter(vm);

	if (rc)
		return rc;
	rc = nxsim__guest_nr_pages(vm->mmu);
	nxsim__vm_exit(vm);
	return rc;
}

int nxsim_guest_write_pte(struct nxsim_vcpu *vcpu, uint64_t gpa, uint64_t pte,
			  unsigned int size)
{
	int rc = nxsim__vcpu_enter(vcpu);

	if (rc)
		return rc;
	rc = nxsim__guest_write_pte(vcpu->vm->mmu, &vcpu->arch_mmu, gpa, pte,
				    size);
	nxsim__vcpu_exit(vcpu);
	return rc;
}

int nxsim_guest_invlpg(struct nxsim_vcpu *vcpu, uint64_t gva)
{
	int rc = nxsim__vcpu_enter(vcpu);

	if (rc)
		return rc;
	rc = nxsim__guest_invlpg(vcpu->vm->mmu, &vcpu->arch_mmu, gva);
	if (!rc)
		nxsim__vcpu_tlb_invlpg(vcpu, gva);
	/* kvm_mmu_invlpg(): INVLPG is intercepted only without TDP */
	if (!rc && !nxsim__vm_tdp_enabled(vcpu->vm))
		vcpu->stat.invlpg++;
	nxsim__vcpu_exit(vcpu);
	return rc;
}

int nxsim_guest_set_paging(struct nxsim_vcpu *vcpu,
			   const struct nxsim_guest_paging *p)
{
	struct nxsim_guest_paging old;
	int rc;

	if (!p)
		return -EINVAL;
	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	nxsim__guest_get_paging(vcpu->vm->mmu, &vcpu->arch_mmu, &old, NULL);
	if (p->user != old.user && p->cr0_pg == old.cr0_pg &&
	    p->cr0_wp == old.cr0_wp && p->cr4_pae == old.cr4_pae &&
	    p->cr4_pse == old.cr4_pse && p->efer_lma == old.efer_lma &&
	    p->efer_nxe == old.efer_nxe && p->cr3 == old.cr3) {
		/* a change of CPL: no register load, no exit, no sync */
		vcpu->arch_mmu.regs.user = p->user;
	} else {
		rc = nxsim__guest_set_paging(vcpu->vm->mmu, &vcpu->arch_mmu, p);
		if (!rc)
			nxsim__vcpu_tlb_set_paging(vcpu, &old, p);
	}
	nxsim__vcpu_exit(vcpu);
	return rc;
}

int nxsim_guest_get_paging(struct nxsim_vcpu *vcpu,
			   struct nxsim_guest_paging *p,
			   enum nxsim_guest_mode *mode)
{
	int rc;

	if (!p)
		return -EINVAL;
	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	nxsim__guest_get_paging(vcpu->vm->mmu, &vcpu->arch_mmu, p, mode);
	nxsim__vcpu_exit(vcpu);
	return 0;
}

int nxsim_guest_translate(struct nxsim_vcpu *vcpu, uint64_t gva, uint32_t pfec,
			  struct nxsim_guest_walk *w)
{
	int rc;

	if (!w)
		return -EINVAL;
	rc = nxsim__vcpu_enter(vcpu);
	if (rc)
		return rc;
	rc = nxsim__guest_translate(vcpu->vm->mmu, &vcpu->arch_mmu, gva, pfec,
				    w);
	nxsim__vcpu_exit(vcpu);
	return rc;
}
