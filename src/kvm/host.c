// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host: loading and unloading kvm.ko, and the loops over vm_list that
 * the parameter setters run.
 *
 * Loading follows the kernel's order: early parameters (mitigations=) are
 * taken from the command line first; then load_module() hands the kvm.*
 * arguments to parse_args(), which calls each setter in turn, goes on past
 * an error and fails the load with the last one (unknown kvm.* names are
 * ignored, as unknown_module_param_cb() does); then kvm_mmu_x86_module_init()
 * resolves nx_huge_pages=-1 (auto) from the CPU.
 *
 * kvm_amd.npt (an AMD host) and kvm_intel.ept (an Intel one) come from the
 * command line too, as modprobe hands them to the vendor module; both are
 * read-only (0444) and turn TDP off as the no_tdp CPU flag does.
 *
 * Left out: kvm_intel/kvm_amd as separate modules (a host is both), and the
 * VMX-unsupported / VMX-disabled texts of the vulnerability file.
 */
#include <errno.h>
#include <string.h>

#include <nxsim/host.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/compiler.h"
#include "kvm/profile.h"
#include "kvm/host.h"
#include "mmu/mmu.h"
#include "kvm/vm.h"
#include "kvm/worker.h"
#include "params/cmdline.h"
#include "params/kstrtox.h"
#include "kvm/nx_params.h"

/* mitigations_parse_cmdline() of kernel/cpu.c: an early parameter. */
static int mitigations_parse_cmdline(void *arg, const char *param,
				     const char *val)
{
	struct nxsim_host *host = arg;

	if (strcmp(param, "mitigations") || !val)
		return 0;
	if (!strcmp(val, "off"))
		host->cpu.mitigations_off = true;
	else if (!strcmp(val, "auto") || !strcmp(val, "auto,nosmt"))
		host->cpu.mitigations_off = false;
	return 0;
}

/* parse_one() for kvm.ko's arguments during load_module(). */
static int apply_module_param(void *arg, const char *param, const char *val)
{
	struct nxsim_host *host = arg;
	int rc;

	if (!strncmp(param, "kvm_amd.", 8) ||
	    !strncmp(param, "kvm_intel.", 10)) {
		rc = nxsim__nx_param_store(host, param, val, true);
		return rc == -ENOENT ? 0 : rc;
	}
	if (strncmp(param, "kvm.", 4))
		return 0;
	/* module_param_named(mmio_caching, ...), read-only after load */
	if (nxsim__parameq(param + 4, "mmio_caching")) {
		if (!val) {
			host->mmio_caching = true;
			return 0;
		}
		rc = nxsim__kstrtobool(&host->prof->kstrtox, val,
				       &host->mmio_caching);
		return rc < 0 ? -EINVAL : 0;
	}
	rc = nxsim__nx_param_store(host, param + 4, val, true);
	return rc == -ENOENT ? 0 : rc;
}

static void host_free(struct nxsim_host *host)
{
	nxsim__gate_destroy(&host->gate);
	pthread_mutex_destroy(&host->param_lock);
	pthread_mutex_destroy(&host->kvm_lock);
	pthread_rwlock_destroy(&host->cpu_hotplug_lock);
	nxsim__clock_put(host->clock);
	if (host->own_clock)
		nxsim_clock_destroy(host->clock);
	host->magic = 0;
	nxsim__free(host, sizeof(*host));
}

int nxsim_host_create(const struct nxsim_host_config *cfg,
		      struct nxsim_host **hostp)
{
	static const struct nxsim_host_config defaults;
	const struct nxsim_nx_recovery_ops *nx_recovery = NULL;
	const struct nxsim__profile *prof;
	struct nxsim_host *host;
	int rc;

	if (!hostp)
		return -EINVAL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->nx_recovery &&
	    nxsim__nx_recovery_find(cfg->nx_recovery, &nx_recovery))
		return -ENOENT;
	prof = nxsim__profile_find(cfg->profile);
	if (!prof || (cfg->cpu.hz && !nxsim__hz_valid(cfg->cpu.hz)) ||
	    (cfg->cpu.phys_bits &&
	     (cfg->cpu.phys_bits < NXSIM_PHYS_BITS_MIN ||
	      cfg->cpu.phys_bits > NXSIM_PHYS_BITS_MAX)) ||
	    (cfg->cpu.amd && cfg->cpu.itlb_multihit) ||
	    (cfg->time != NXSIM_CLOCK_VIRTUAL && cfg->time != NXSIM_CLOCK_REAL))
		return -EINVAL;

	host = nxsim__zalloc(sizeof(*host));
	if (!host)
		return -ENOMEM;
	host->prof = prof;
	host->cpu = cfg->cpu;
	if (!host->cpu.hz)
		host->cpu.hz = 250;
	if (!host->cpu.phys_bits)
		host->cpu.phys_bits = 46;
	host->bugs = cfg->bugs;
	host->nx_recovery = nx_recovery;
	host->mmio_caching = true;
	if (cfg->clock) {
		host->clock = cfg->clock;
	} else {
		rc = nxsim_clock_create(cfg->time, &host->clock);
		if (rc) {
			nxsim__free(host, sizeof(*host));
			return rc;
		}
		host->own_clock = true;
	}
	nxsim__clock_get(host->clock);
	pthread_mutex_init(&host->param_lock, NULL);
	pthread_mutex_init(&host->kvm_lock, NULL);
	pthread_rwlock_init(&host->cpu_hotplug_lock, NULL);
	TAILQ_INIT(&host->nx_walk);
	TAILQ_INIT(&host->vm_list);
	TAILQ_INIT(&host->dead_vms);
	nxsim__gate_init(&host->gate, -ENODEV);
	nxsim__nx_params_init(host);

	rc = nxsim__parse_args(cfg->cmdline, mitigations_parse_cmdline, host);
	if (!rc)
		rc = nxsim__parse_args(cfg->cmdline, apply_module_param, host);
	if (rc) {
		host_free(host);
		return rc;
	}
	nxsim__kvm_mmu_x86_module_init(host);
	host->magic = NXSIM_HOST_MAGIC;
	*hostp = host;
	return 0;
}

int nxsim_host_destroy(struct nxsim_host *host)
{
	struct nxsim_vm *vm, *tmp;

	if (!host)
		return -EINVAL;
	assert(host->magic == NXSIM_HOST_MAGIC);
	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	if (host->unloading || !TAILQ_EMPTY(&host->vm_list)) {
		int rc = host->unloading ? -ENODEV : -EBUSY;

		nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
		return rc;
	}
	host->unloading = true;
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);

	/* Let calls already inside finish; later ones get -ENODEV. */
	nxsim__gate_close(&host->gate);
	TAILQ_FOREACH_SAFE(vm, &host->dead_vms, vm_list, tmp)
		nxsim__vm_free(vm);
	host_free(host);
	return 0;
}

bool nxsim__host_no_vms_locked(struct nxsim_host *host)
{
	return TAILQ_EMPTY(&host->vm_list);
}

/* The body of set_nx_huge_pages()'s vm_list loop: zap, then wake. */
static void nxsim__vm_zap_all_and_wake(struct nxsim_vm *vm)
{
	nxsim__mutex_lock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	nxsim__kvm_mmu_zap_all_fast(vm->mmu);
	ATOMIC_INC(vm->counters.zap_all);
	nxsim__mutex_unlock(&vm->slots_lock, NXSIM__LOCK_SLOTS);
	nxsim__kvm_wake_nx_recovery_thread(vm);
}

void nxsim__host_zap_all_and_wake(struct nxsim_host *host)
{
	struct nxsim_vm *vm;

	if (nxsim__host_has_bug(host, NXSIM_BUG_SETTER_LOCK_ORDER)) {
		/* kvm_lock -> slots_lock: one link of the ABBA chain. */
		nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
		TAILQ_FOREACH(vm, &host->vm_list, vm_list)
			nxsim__vm_zap_all_and_wake(vm);
		nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
		return;
	}
	/*
	 * srcu_read_lock(&vm_list_srcu): a VM seen on the list stays until
	 * the walk ends, because its destruction waits for the reader
	 * (kvm_destroy_vm()'s synchronize_srcu(); here, the VM's gate).  A
	 * VM already being destroyed is skipped; kvm_lock is held only to
	 * read the list.
	 */
	nxsim__lockdep_acquire(NXSIM__LOCK_VM_LIST_SRCU);
	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	TAILQ_FOREACH(vm, &host->vm_list, vm_list)
		if (!nxsim__gate_enter(&vm->gate))
			TAILQ_INSERT_TAIL(&host->nx_walk, vm, nx_walk);
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
	while ((vm = TAILQ_FIRST(&host->nx_walk))) {
		TAILQ_REMOVE(&host->nx_walk, vm, nx_walk);
		nxsim__vm_zap_all_and_wake(vm);
		nxsim__gate_exit(&vm->gate);
	}
	nxsim__lockdep_release(NXSIM__LOCK_VM_LIST_SRCU);
}

int64_t nxsim_host_cpufreq_notify(struct nxsim_host *host)
{
	struct nxsim_vm *vm;
	int64_t n = 0;
	int rc;

	if (!host)
		return -EINVAL;
	assert(host->magic == NXSIM_HOST_MAGIC);
	rc = nxsim__gate_enter(&host->gate);
	if (rc)
		return rc;
	/* The cpufreq core calls the notifier under cpus_read_lock(). */
	nxsim__lockdep_acquire(NXSIM__LOCK_CPU_HOTPLUG);
	pthread_rwlock_rdlock(&host->cpu_hotplug_lock);
	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	/*
	 * KVM_REQ_CLOCK_UPDATE to each vCPU (kvm_for_each_vcpu() reads
	 * online_vcpus atomically, without kvm->lock).
	 */
	TAILQ_FOREACH(vm, &host->vm_list, vm_list)
		n += __atomic_load_n(&vm->created_vcpus, __ATOMIC_ACQUIRE);
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
	pthread_rwlock_unlock(&host->cpu_hotplug_lock);
	nxsim__lockdep_release(NXSIM__LOCK_CPU_HOTPLUG);
	nxsim__gate_exit(&host->gate);
	return n;
}

void nxsim__host_wake_all(struct nxsim_host *host)
{
	struct nxsim_vm *vm;

	nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
	TAILQ_FOREACH(vm, &host->vm_list, vm_list)
		nxsim__kvm_wake_nx_recovery_thread(vm);
	nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
}

void nxsim__host_set_create_window(struct nxsim_host *host,
				   void (*fn)(struct nxsim_host *host,
					      void *ctx),
				   void *ctx)
{
	host->create_window = fn;
	host->create_window_ctx = ctx;
}

void nxsim__host_oops(struct nxsim_host *host, const char *what)
{
	(void)what;
	ATOMIC_INC(host->counters.oopses);
}

struct nxsim_clock *nxsim_host_clock(const struct nxsim_host *host)
{
	return host ? host->clock : NULL;
}

const char *nxsim_host_profile(const struct nxsim_host *host)
{
	return host ? host->prof->name : NULL;
}

int nxsim_host_counters(const struct nxsim_host *host,
			struct nxsim_host_counters *c)
{
	if (!host || !c)
		return -EINVAL;
	c->param_sets = READ_ONCE(host->counters.param_sets);
	c->vms_created = READ_ONCE(host->counters.vms_created);
	c->vms_destroyed = READ_ONCE(host->counters.vms_destroyed);
	c->oopses = READ_ONCE(host->counters.oopses);
	return 0;
}

/* itlb_multihit_show_state() of arch/x86/kernel/cpu/bugs.c */
int64_t nxsim_host_vulnerability(struct nxsim_host *host, char *buf,
				 size_t size)
{
	const char *text;
	size_t len;

	if (!host)
		return -EINVAL;
	if (!host->cpu.itlb_multihit)
		text = "Not affected\n";
	else if (READ_ONCE(host->nx.itlb_multihit_kvm_mitigation))
		text = "KVM: Mitigation: Split huge pages\n";
	else
		text = "KVM: Vulnerable\n";
	len = strlen(text);
	if (!buf || len >= size)
		return -ENOSPC;
	memcpy(buf, text, len + 1);
	return (int)len;
}
