// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest fixture (nx_env.h): KVM_CREATE_VM, KVM_SET_USER_MEMORY_REGION,
 * KVM_CREATE_VCPU and the first KVM_RUN through the public API.
 */
#include <nxsim/param.h>

#include "common/nx_env.h"

int nx_env_open(struct nx_env *e, const struct nx_env_spec *spec)
{
	int rc;

	*e = (struct nx_env){ 0 };
	rc = nxsim_host_create(spec->host, &e->host);
	if (rc)
		return rc;
	if (spec->ratio)
		rc = nxsim_param_set(e->host, "nx_huge_pages_recovery_ratio",
				     spec->ratio);
	if (!rc)
		rc = nxsim_vm_create(e->host, &e->vm);
	if (!rc && spec->slot)
		rc = nxsim_vm_set_memory_region(e->vm, spec->slot);
	if (!rc)
		rc = nxsim_vcpu_create(e->vm, 0, &e->vcpu);
	if (!rc && spec->run)
		rc = nxsim_vcpu_run(e->vcpu);
	if (rc)
		nx_env_close(e);
	return rc;
}

int nx_env_close(struct nx_env *e)
{
	int rc = 0;

	if (e->vm)
		rc = nxsim_vm_destroy(e->vm);
	if (e->host) {
		int hrc = nxsim_host_destroy(e->host);

		if (!rc)
			rc = hrc;
	}
	*e = (struct nx_env){ 0 };
	return rc;
}
