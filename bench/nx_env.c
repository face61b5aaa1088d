// SPDX-License-Identifier: GPL-2.0-only
/*
 * The NX benchmarks' guest (nx_env.h): the shared fixture
 * (tests/common/nx_env.c) on a host booted with the mitigation on, with
 * one slot and after the first KVM_RUN.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

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
	struct nx_env_spec spec = { .host = &cfg, .slot = &mr, .run = true };
	char buf[16];

	if (ratio >= 0) {
		snprintf(buf, sizeof(buf), "%d", ratio);
		spec.ratio = buf;
	}
	return nx_env_open(e, &spec);
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

long nx_rss_bytes(void)
{
	long size, resident = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}
