// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NX benchmarks' guest (nx_env.h): KVM_CREATE_VM, KVM_CREATE_VCPU,
 * KVM_SET_USER_MEMORY_REGION and the first KVM_RUN through the public
 * API, on a host booted with the mitigation on.
 */
#include <errno.h>
#include <stdio.h>

#include "nx_env.h"

int nx_env_create(struct nx_env *e, const char *profile, int ratio,
		  uint64_t bytes, int host_level)
{
	struct nxsim_host_config cfg = { .cpu.itlb_multihit = true,
					 .profile = profile };
	struct nxsim_memory_region mr = { .slot = 0,
					  .guest_phys_addr = NX_GPA_BASE,
					  .memory_size = bytes,
					  .userspace_addr = NX_HVA_BASE,
					  .host_level = host_level };
	char buf[16];
	int rc;

	*e = (struct nx_env){ 0 };
	rc = nxsim_host_create(&cfg, &e->host);
	if (rc)
		return rc;
	if (ratio >= 0) {
		snprintf(buf, sizeof(buf), "%d", ratio);
		rc = nxsim_param_set(e->host, "nx_huge_pages_recovery_ratio",
				     buf);
	}
	if (!rc)
		rc = nxsim_vm_create(e->host, &e->vm);
	if (!rc)
		rc = nxsim_vm_set_memory_region(e->vm, &mr);
	if (!rc)
		rc = nxsim_vcpu_create(e->vm, 0, &e->vcpu);
	if (!rc)
		rc = nxsim_vcpu_run(e->vcpu);
	if (rc)
		nx_env_destroy(e);
	return rc;
}

void nx_env_destroy(struct nx_env *e)
{
	if (e->vm)
		nxsim_vm_destroy(e->vm);
	if (e->host)
		nxsim_host_destroy(e->host);
	*e = (struct nx_env){ 0 };
}

int nx_env_touch(const struct nx_env *e, enum nxsim_access_kind kind,
		 uint64_t bytes, uint64_t stride)
{
	int rc = 0;

	for (uint64_t off = 0; off < bytes && !rc; off += stride)
		rc = nxsim_vcpu_access(e->vcpu, kind, NX_GPA_BASE + off, NULL);
	return rc;
}

int nx_vms_destroy(struct nxsim_host *host, struct nxsim_vm **vms,
		   unsigned int n)
{
	int rc = 0;

	for (unsigned int i = 0; i < n; i++)
		if (nxsim_vm_destroy(vms[i]) && !rc)
			rc = -EIO;
	if (nxsim_host_destroy(host) && !rc)
		rc = -EBUSY;
	return rc;
}
