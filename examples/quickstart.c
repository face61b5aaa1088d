// SPDX-License-Identifier: GPL-2.0-only
/*
 * The README's example: load kvm.ko on an affected CPU, look at the
 * mitigation, make it sticky-off with "never", and watch what that forbids.
 * It is C and C++ at once: install.consumer builds it as both.
 */
#include <stdio.h>
#include <string.h>

#include <nxsim/nxsim.h>

int main(void)
{
	struct nxsim_host_config cfg;
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	char val[16];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.cpu.itlb_multihit = true;
	rc = nxsim_host_create(&cfg, &host);
	if (rc) {
		fprintf(stderr, "host: %s\n", nxsim_strerror(rc));
		return 1;
	}
	nxsim_param_get(host, "nx_huge_pages", val, sizeof(val));
	printf("nx_huge_pages after load: %s", val);

	nxsim_vm_create(host, &vm);
	rc = nxsim_param_set(host, "nx_huge_pages", "never\n");
	printf("never with a VM: %s\n", nxsim_strerror(rc));
	nxsim_vm_destroy(vm);

	rc = nxsim_param_set(host, "nx_huge_pages", "never\n");
	nxsim_param_get(host, "nx_huge_pages", val, sizeof(val));
	printf("never without VMs: %s, now %s", nxsim_strerror(rc), val);
	rc = nxsim_param_set(host, "nx_huge_pages", "force\n");
	printf("force after never: %s\n", nxsim_strerror(rc));
	return nxsim_host_destroy(host) ? 1 : 0;
}
