// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver verbs for VMs, their recovery workers and vCPUs
 * (include/nxsim/vm.h): the KVM_CREATE_VM, KVM_CHECK_EXTENSION,
 * KVM_ENABLE_CAP, KVM_CREATE_VCPU and KVM_RUN ioctls, and what a test
 * needs to see or provoke of the worker.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "numarg.h"

static int vm_create(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_host *host =
		nxsim__drv_host(d, argc > 1 ? argv[1].s : NULL, r);
	struct nxsim_vm *vm;
	int rc;

	if (!host)
		return -ENOENT;
	rc = nxsim__drv_name_free(d, &argv[0], r);
	if (!rc)
		rc = nxsim_vm_create(host, &vm);
	if (rc)
		return rc;
	rc = nxsim__drv_add_object(d, argv[0].s, NXSIM__DRV_VM, vm);
	if (rc)
		nxsim_vm_destroy(vm);
	return rc;
}

static int vm_destroy(struct nxsim__drv *d, int argc,
		      struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);

	/* the name stays: a closed VM fd answers -EBADF */
	return vm ? nxsim__drv_vm_destroy(d, argv[0].s) : -ENOENT;
}

/* A capability by number or by name. */
static int cap_number(const struct nxsim__drv_tok *t, unsigned int *cap,
		      struct nxsim__drv_reply *r)
{
	if (!strcmp(t->s, "disable_nx_huge_pages")) {
		*cap = NXSIM_CAP_VM_DISABLE_NX_HUGE_PAGES;
		return 0;
	}
	if (!strcmp(t->s, "manual_dirty_log_protect2")) {
		*cap = NXSIM_CAP_MANUAL_DIRTY_LOG_PROTECT2;
		return 0;
	}
	return nxsim__drv_u32(t, cap, r);
}

/* The KVM_ENABLE_CAP fields a script may set, with their limits. */
struct cap_args {
	uint64_t args[4];
	uint64_t flags;
	uint64_t sys_boot;
};

static const struct {
	const char *key;
	size_t off;
	uint64_t max;
} cap_options[] = {
	{ "arg0", offsetof(struct cap_args, args[0]), UINT64_MAX },
	{ "arg1", offsetof(struct cap_args, args[1]), UINT64_MAX },
	{ "arg2", offsetof(struct cap_args, args[2]), UINT64_MAX },
	{ "arg3", offsetof(struct cap_args, args[3]), UINT64_MAX },
	{ "flags", offsetof(struct cap_args, flags), UINT32_MAX },
	{ "sys_boot", offsetof(struct cap_args, sys_boot), 1 },
};

static int vm_cap(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		  struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	struct cap_args ca = { .sys_boot = 1 };
	unsigned int cap;
	size_t k;
	int i, rc;

	if (!vm)
		return -ENOENT;
	rc = cap_number(&argv[1], &cap, r);
	for (i = 2; !rc && i < argc; i++) {
		const char *v = NULL;

		for (k = 0; k < NXSIM__DRV_NELEM(cap_options); k++)
			if ((v = nxsim__drv_opt(&argv[i], cap_options[k].key)))
				break;
		if (!v)
			return nxsim__drv_fail(r, -EINVAL,
					       "unknown cap option \"%s\"",
					       argv[i].s);
		rc = nxsim__drv_opt_u64(
			v, cap_options[k].max,
			(uint64_t *)((char *)&ca + cap_options[k].off), r);
	}
	if (rc)
		return rc;
	return nxsim_vm_enable_cap(vm, cap, ca.flags, ca.args, ca.sys_boot);
}

static int vm_check(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	unsigned int cap;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = cap_number(&argv[1], &cap, r);
	if (!rc)
		rc = nxsim_vm_check_extension(vm, cap);
	if (rc >= 0)
		nxsim__drv_add(r, " %d", rc);
	return rc;
}

static int vm_nx(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		 struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	bool enabled;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim_vm_nx_huge_pages_enabled(vm, &enabled);
	if (!rc)
		nxsim__drv_add(r, " %d", enabled);
	return rc;
}

static int vm_worker(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	struct nxsim_worker_info wi;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim_vm_worker_info(vm, &wi);
	if (rc)
		return rc;
	nxsim__drv_add_stats(r, NXSIM_STATS_WORKER, &wi, NULL);
	return 0;
}

static int vm_kill_worker(struct nxsim__drv *d, int argc,
			  struct nxsim__drv_tok *argv,
			  struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);

	return vm ? nxsim_vm_worker_kill(vm) : -ENOENT;
}

static int vm_fail_worker(struct nxsim__drv *d, int argc,
			  struct nxsim__drv_tok *argv,
			  struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	int err = nxsim_errno_parse(argv[1].s);

	if (!vm)
		return -ENOENT;
	if (!err)
		return nxsim__drv_fail(r, -EINVAL, "not an errno: \"%s\"",
				       argv[1].s);
	return nxsim_vm_inject_worker_error(vm, err);
}

static int vm_counters(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VM, r);
	struct nxsim_vm_counters c;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim_vm_counters(vm, &c);
	if (rc)
		return rc;
	nxsim__drv_add_stats(r, NXSIM_STATS_VM, &c, NULL);
	return 0;
}

static int vcpu_create(struct nxsim__drv *d, int argc,
		       struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	struct nxsim_vm *vm = nxsim__drv_find(d, argv[1].s, NXSIM__DRV_VM, r);
	struct nxsim_vcpu *vcpu;
	uint64_t id;
	int rc;

	if (!vm)
		return -ENOENT;
	rc = nxsim__drv_name_free(d, &argv[0], r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT32_MAX, &id, r);
	if (!rc)
		rc = nxsim_vcpu_create(vm, id, &vcpu);
	if (rc)
		return rc;
	return nxsim__drv_add_vcpu(d, argv[0].s, argv[1].s, vcpu);
}

static int vcpu_run(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);

	return vcpu ? nxsim_vcpu_run(vcpu) : -ENOENT;
}

/* "on" or "off" of argv[1] into *on; -EINVAL with the usage otherwise. */
/* vcpu smm|apic VCPU on|off: answers was=1|0 (the previous state) */
static int vcpu_toggle(struct nxsim__drv *d, struct nxsim__drv_tok *argv,
		       struct nxsim__drv_reply *r,
		       int (*set)(struct nxsim_vcpu *vcpu, bool on, bool *was))
{
	struct nxsim_vcpu *vcpu =
		nxsim__drv_find(d, argv[0].s, NXSIM__DRV_VCPU, r);
	bool on, was;
	int rc;

	if (!vcpu)
		return -ENOENT;
	if (strcmp(argv[1].s, "on") && strcmp(argv[1].s, "off"))
		return nxsim__drv_fail(r, -EINVAL, "the state is on or off");
	on = !strcmp(argv[1].s, "on");
	rc = set(vcpu, on, &was);
	if (rc)
		return rc;
	nxsim__drv_add(r, " was=%d", was);
	return 0;
}

static int vcpu_smm(struct nxsim__drv *d, int argc, struct nxsim__drv_tok *argv,
		    struct nxsim__drv_reply *r)
{
	return vcpu_toggle(d, argv, r, nxsim_vcpu_set_smm);
}

static int vcpu_apic(struct nxsim__drv *d, int argc,
		     struct nxsim__drv_tok *argv, struct nxsim__drv_reply *r)
{
	return vcpu_toggle(d, argv, r, nxsim_vcpu_set_apic_hw_enabled);
}

const struct nxsim__drv_verb nxsim__drv_vm_verbs[] = {
	{ "vm", "create", 1, 2, "NAME [HOST]",
	  "KVM_CREATE_VM on HOST (default: the current host)", vm_create },
	{ "vm", "destroy", 1, 1, "VM",
	  "close the VM (kvm_destroy_vm()); later verbs on it answer -EBADF",
	  vm_destroy },
	{ "vm", "cap", 2, 7,
	  "VM CAP [arg0=N] [arg1=N] [arg2=N] [arg3=N] [flags=N] [sys_boot=0|1]",
	  "KVM_ENABLE_CAP; CAP is a number or disable_nx_huge_pages; "
	  "sys_boot=0 drops CAP_SYS_BOOT (default 1)",
	  vm_cap },
	{ "vm", "check", 2, 2, "VM CAP",
	  "KVM_CHECK_EXTENSION: answers its value", vm_check },
	{ "vm", "nx", 1, 1, "VM",
	  "is_nx_huge_page_enabled(kvm): answers 1 or 0", vm_nx },
	{ "vm", "worker", 1, 1, "VM",
	  "the recovery worker: answers state=none|running|killed|stopped "
	  "wakes= passes= created_ns= deadline_ns=N|never last_jiffies=",
	  vm_worker },
	{ "vm", "kill-worker", 1, 1, "VM", "SIGKILL the vhost-task worker",
	  vm_kill_worker },
	{ "vm", "fail-worker", 2, 2, "VM ERRNO",
	  "make the next worker creation fail with ERRNO "
	  "(e.g. -ERESTARTNOINTR)",
	  vm_fail_worker },
	{ "vm", "counters", 1, 1, "VM",
	  "answers zap_all= wake_calls= worker_create_failures=", vm_counters },
	{ "vcpu", "create", 3, 3, "NAME VM ID", "KVM_CREATE_VCPU",
	  vcpu_create },
	{ "vcpu", "run", 1, 1, "VCPU",
	  "KVM_RUN (the first one makes the worker on 6.14+)", vcpu_run },
	{ "vcpu", "smm", 2, 2, "VCPU on|off",
	  "KVM_SET_VCPU_EVENTS with the SMM state: in SMM the vCPU uses "
	  "address space 1 (slots 65536 + id); answers was=1|0",
	  vcpu_smm },
	{ "vcpu", "apic", 2, 2, "VCPU on|off",
	  "the guest sets or clears IA32_APIC_BASE.EN (kvm_lapic_set_base()); "
	  "answers was=1|0",
	  vcpu_apic },
	{ NULL },
};
