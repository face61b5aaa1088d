// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hosts, VMs and vCPUs: loading and unloading kvm.ko, the per-VM opt-out
 * KVM_CAP_VM_DISABLE_NX_HUGE_PAGES, handles of destroyed VMs, bad input,
 * and every allocation of every operation failing in turn.
 */
#include <pthread.h>
#include <sched.h>
#include <limits.h>
#include <string.h>

#include "../integration/nx_test.h"
#include "common/test_util.h"
#include "kvm/host.h"

static void test_host_defaults(void **state)
{
	struct nxsim_host *host;
	struct nxsim_host_counters hc;
	char buf[64];
	unsigned int i;

	assert_rc(nxsim_host_create(NULL, &host), 0);
	assert_string_equal(nxsim_host_profile(host), "6.18");
	assert_string_equal(test_param(host, "nx_huge_pages"), "N\n");
	assert_string_equal(test_param(host, "nx_huge_pages_recovery_ratio"),
			    "60\n");
	assert_string_equal(
		test_param(host, "nx_huge_pages_recovery_period_ms"), "0\n");
	assert_rc(nxsim_host_vulnerability(host, buf, sizeof(buf)), 13);
	assert_string_equal(buf, "Not affected\n");
	assert_rc(nxsim_host_vulnerability(host, buf, 13), -ENOSPC);
	assert_int_equal(nxsim_clock_mode(nxsim_host_clock(host)),
			 NXSIM_CLOCK_VIRTUAL);
	assert_rc(nxsim_host_counters(host, &hc), 0);
	assert_int_equal(hc.param_sets, 0);
	assert_rc(nxsim_host_counters(NULL, &hc), -EINVAL);
	assert_rc(nxsim_host_counters(host, NULL), -EINVAL);
	assert_rc(nxsim_host_destroy(host), 0);

	for (i = 0; nxsim_profile_name(i); i++)
		;
	assert_int_equal(i, 9);
	assert_string_equal(nxsim_profile_name(0), "5.4");
	assert_string_equal(nxsim_profile_name(i - 1), "6.18");
}

static void test_host_bad_config(void **state)
{
	struct nxsim_host_config cfg = { .profile = "6.19" };
	struct nxsim_host *host = NULL;
	uint64_t live = test_live_allocs();

	assert_rc(nxsim_host_create(&cfg, &host), -EINVAL);
	cfg.profile = "";
	assert_rc(nxsim_host_create(&cfg, &host), -EINVAL);
	cfg.profile = NULL;
	cfg.cpu.hz = 200;
	assert_rc(nxsim_host_create(&cfg, &host), -EINVAL);
	cfg.cpu.hz = 0;
	cfg.cpu.amd = cfg.cpu.itlb_multihit = true; /* AMD is whitelisted */
	assert_rc(nxsim_host_create(&cfg, &host), -EINVAL);
	cfg.cpu.amd = false;
	cfg.time = (enum nxsim_clock_mode)2;
	assert_rc(nxsim_host_create(&cfg, &host), -EINVAL);
	assert_rc(nxsim_host_create(NULL, NULL), -EINVAL);
	assert_null(host);
	assert_int_equal(test_live_allocs(), live);
	assert_rc(nxsim_host_destroy(NULL), -EINVAL);
}

/*
 * MAXPHYADDR: 0 means 46; otherwise 32 (a CPU without PAE) to 52 (the
 * architectural maximum); others are refused before anything is made.
 */
static void test_host_phys_bits(void **state)
{
	static const struct {
		unsigned int bits;
		int rc;
	} cases[] = {
		{ 0, 0 },	{ 31, -EINVAL },       { 32, 0 },
		{ 52, 0 },	{ 53, -EINVAL },       { 80, -EINVAL },
		{ 5, -EINVAL }, { UINT_MAX, -EINVAL },
	};
	uint64_t live = test_live_allocs();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = { .cpu.phys_bits =
							 cases[i].bits };
		struct nxsim_host *host = NULL;
		struct nxsim_vcpu *vcpu;
		struct nxsim_vm *vm;
		unsigned int bits = cases[i].bits ? cases[i].bits : 46;

		assert_rc(nxsim_host_create(&cfg, &host), cases[i].rc);
		if (cases[i].rc) {
			assert_null(host);
			assert_int_equal(test_live_allocs(), live);
			continue;
		}
		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
		/* the last gfn fits, the next address is out of range */
		nx_slot(vm, 1, (1ull << bits) - MIB2, MIB2, HVA_BASE, 1, 0);
		nx_access(vcpu, NXSIM_ACCESS_READ, (1ull << bits) - 4096);
		assert_rc(nxsim_vcpu_access(vcpu, NXSIM_ACCESS_READ,
					    1ull << bits, NULL),
			  -ERANGE);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

/* Unloading is refused while a VM exists; destroyed VMs do not count. */
static void test_host_busy_and_shared_clock(void **state)
{
	struct nxsim_host_config cfg = { 0 };
	struct nxsim_host *a, *b;
	struct nxsim_clock *clock;
	struct nxsim_vm *vm;

	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &clock), 0);
	cfg.clock = clock;
	assert_rc(nxsim_host_create(&cfg, &a), 0);
	assert_rc(nxsim_host_create(&cfg, &b), 0);
	assert_ptr_equal(nxsim_host_clock(a), clock);
	assert_rc(nxsim_clock_destroy(clock), -EBUSY);
	assert_rc(nxsim_vm_create(a, &vm), 0);
	assert_ptr_equal(nxsim_vm_host(vm), a);
	assert_rc(nxsim_host_destroy(a), -EBUSY);
	assert_rc(nxsim_param_set(a, "nx_huge_pages", "never"), -EBUSY);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_param_set(a, "nx_huge_pages", "never"), 0);
	/* a new load of the module starts afresh */
	assert_rc(nxsim_host_destroy(a), 0);
	assert_rc(nxsim_host_create(&cfg, &a), 0);
	assert_string_equal(test_param(a, "nx_huge_pages"), "N\n");
	assert_rc(nxsim_param_set(a, "nx_huge_pages", "force"), 0);
	assert_rc(nxsim_host_destroy(a), 0);
	assert_rc(nxsim_host_destroy(b), 0);
	assert_rc(nxsim_clock_destroy(clock), 0);
}

/* A destroyed VM's handle answers like a closed fd. */
static void test_host_dead_vm(void **state)
{
	struct nxsim_host *host = test_host("6.14", true, NULL, 0);
	struct nxsim_vcpu *vcpu, *other;
	struct nxsim_worker_info wi;
	struct nxsim_vm *vm;

	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vcpu_create(vm, 3, &vcpu), 0);
	assert_ptr_equal(nxsim_vcpu_vm(vcpu), vm);
	assert_rc(nxsim_vcpu_run(vcpu), 0);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_vm_destroy(vm), -EBADF);
	assert_rc(nxsim_vcpu_create(vm, 4, &other), -EBADF);
	assert_rc(nxsim_vcpu_run(vcpu), -EBADF);
	assert_rc(nxsim_vm_check_extension(vm, 220), -EBADF);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, NULL, true), -EBADF);
	assert_rc(test_vm_nx_enabled(vm), -EBADF);
	assert_rc(nxsim_vm_worker_info(vm, &wi), 0);
	assert_int_equal(wi.state, NXSIM_WORKER_STOPPED);
	/* the host no longer counts it */
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "never"), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

static void test_host_vcpus(void **state)
{
	struct nxsim_host *host = test_host(NULL, false, NULL, 0);
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;
	unsigned int i;

	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vcpu_create(vm, 4096, &vcpu), -EINVAL);
	assert_rc(nxsim_vcpu_create(vm, 0, NULL), -EINVAL);
	assert_rc(nxsim_vcpu_create(NULL, 0, &vcpu), -EINVAL);
	assert_rc(nxsim_vcpu_run(NULL), -EINVAL);
	assert_rc(nxsim_vcpu_create(vm, 4095, &vcpu), 0);
	assert_rc(nxsim_vcpu_create(vm, 4095, &vcpu), -EEXIST);
	for (i = 0; i < 1023; i++)
		assert_rc(nxsim_vcpu_create(vm, i, &vcpu), 0);
	/* KVM_MAX_VCPUS = 1024 */
	assert_rc(nxsim_vcpu_create(vm, 2000, &vcpu), -EINVAL);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_vm_create(NULL, &vm), -EINVAL);
	assert_rc(nxsim_vm_create(host, NULL), -EINVAL);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* KVM_CAP_VM_DISABLE_NX_HUGE_PAGES, in kvm_vm_ioctl_enable_cap()'s order. */
static void test_host_disable_nx_cap(void **state)
{
	static const uint64_t zero[4], one[4] = { 1 }, other[4] = { 0, 1 };
	struct nxsim_host *host = test_host("6.1", true, NULL, 0);
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;

	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_check_extension(vm, 220), 1);
	assert_rc(nxsim_vm_check_extension(vm, 219), 0);
	assert_rc(test_vm_nx_enabled(vm), 1);
	assert_rc(nxsim_vm_nx_huge_pages_enabled(vm, NULL), -EINVAL);
	/* flags first, then the capability, then args[0] */
	assert_rc(nxsim_vm_enable_cap(vm, 220, 1, zero, false), -EINVAL);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, zero, false), -EPERM);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, one, false), -EPERM);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, one, true), -EINVAL);
	assert_rc(nxsim_vm_enable_cap(vm, 219, 0, zero, true), -EINVAL);
	assert_rc(test_vm_nx_enabled(vm), 1);
	/* only args[0] is looked at */
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, other, true), 0);
	assert_rc(test_vm_nx_enabled(vm), 0);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, NULL, true), 0);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, NULL, true), -EINVAL);
	/* no way back; the global parameter still rules the worker */
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "on"), 0);
	assert_rc(test_vm_nx_enabled(vm), 0);
	assert_rc(nxsim_vm_destroy(vm), 0);

	/* after a vCPU exists it is too late */
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, NULL, true), -EINVAL);
	assert_rc(test_vm_nx_enabled(vm), 1);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);

	/* before 6.0 the capability does not exist */
	host = test_host("5.10", true, NULL, 0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_check_extension(vm, 220), 0);
	assert_rc(nxsim_vm_enable_cap(vm, 220, 0, NULL, true), -EINVAL);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

static void *destroyer(void *arg)
{
	return (void *)(intptr_t)nxsim_host_destroy(arg);
}

/*
 * Calls that arrive while the module is unloading get -ENODEV; a call
 * already inside holds the unload until it leaves.  The test stands in for
 * that call by entering the host's gate itself.
 */
static void test_host_teardown(void **state)
{
	struct nxsim_host *host = test_host("6.18", true, NULL, 0);
	char buf[16];
	struct nxsim_vm *vm;
	pthread_t t;
	void *rc;

	assert_rc(nxsim__gate_enter(&host->gate), 0);
	pthread_create(&t, NULL, destroyer, host);
	while (!nxsim__gate_is_closed(&host->gate))
		sched_yield();
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), -ENODEV);
	assert_rc(nxsim_param_write(host, "nx_huge_pages", "off", 3), -ENODEV);
	assert_rc(nxsim_param_get(host, "nx_huge_pages", buf, sizeof(buf)),
		  -ENODEV);
	assert_rc(nxsim_vm_create(host, &vm), -ENODEV);
	/* the call inside still works, and sees the old state */
	assert_rc(nxsim__nx_param_store(host, "nx_huge_pages", "off", false),
		  0);
	nxsim__gate_exit(&host->gate);
	pthread_join(t, &rc);
	assert_int_equal((intptr_t)rc, 0);
}

/* Each allocation of each operation fails in turn: -ENOMEM, no change. */
struct walk {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu;
	const char *profile;
	unsigned int vms; /* VMs the host should count */
};

static int op_host_create(void *ctx)
{
	struct walk *w = ctx;
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = w->profile,
		.cmdline = "mitigations=auto kvm.nx_huge_pages=force "
			   "kvm.nx_huge_pages_recovery_ratio=1",
	};

	return nxsim_host_create(&cfg, &w->host);
}

static void undo_host_create(void *ctx)
{
	struct walk *w = ctx;

	assert_string_equal(test_param(w->host, "nx_huge_pages_recovery_ratio"),
			    "1\n");
	assert_rc(nxsim_host_destroy(w->host), 0);
}

static int op_vm_create(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vm_create(w->host, &w->vm);
}

static void undo_vm_create(void *ctx)
{
	struct walk *w = ctx;

	assert_rc(nxsim_vm_destroy(w->vm), 0);
}

/* The failed creation left no VM behind: "never" is not refused. */
static void same_no_vm(void *ctx)
{
	struct walk *w = ctx;
	struct nxsim_host_counters hc;

	nxsim_host_counters(w->host, &hc);
	assert_int_equal(hc.vms_created - hc.vms_destroyed, w->vms);
}

static int op_vcpu_create(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vcpu_create(w->vm, 7, &w->vcpu);
}

static void same_vcpu_create(void *ctx)
{
	struct walk *w = ctx;

	/*
	 * No vCPU was created: the opt-out is still allowed where the
	 * profile has it (the walk's last, successful run shows that id 7
	 * was still free).
	 */
	assert_rc(nxsim_vm_enable_cap(w->vm, 220, 0, NULL, true),
		  nxsim_vm_check_extension(w->vm, 220) ? 0 : -EINVAL);
}

static int op_vcpu_run(void *ctx)
{
	struct walk *w = ctx;

	return nxsim_vcpu_run(w->vcpu);
}

static void same_no_worker(void *ctx)
{
	struct walk *w = ctx;
	struct nxsim_worker_info wi;

	assert_rc(nxsim_vm_worker_info(w->vm, &wi), 0);
	assert_int_equal(wi.state, NXSIM_WORKER_NONE);
}

static void test_host_alloc_failures(void **state)
{
	static const char *const profiles[] = { "5.4", "6.12", "6.14" };
	struct walk w = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(profiles); i++) {
		w.profile = profiles[i];
		assert_true(test_alloc_failures(op_host_create,
						undo_host_create, NULL,
						&w) >= 2);
		w.host = test_host(profiles[i], true, NULL, 0);
		w.vms = 0;
		/*
		 * 6.12 makes the worker too: three allocations; 5.4 also
		 * the shadow MMU's gfn hash: four.
		 */
		assert_int_equal(test_alloc_failures(op_vm_create,
						     undo_vm_create, same_no_vm,
						     &w),
				 i == 2 ? 2 :
				 i == 0 ? 4 :
					  3);
		assert_rc(nxsim_vm_create(w.host, &w.vm), 0);
		w.vms = 1;
		assert_int_equal(test_alloc_failures(op_vcpu_create, NULL,
						     same_vcpu_create, &w),
				 1);
		if (i == 2)
			assert_int_equal(test_alloc_failures(op_vcpu_run, NULL,
							     same_no_worker,
							     &w),
					 1);
		assert_rc(nxsim_vm_destroy(w.vm), 0);
		assert_rc(nxsim_host_destroy(w.host), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_defaults),
		cmocka_unit_test(test_host_bad_config),
		cmocka_unit_test(test_host_phys_bits),
		cmocka_unit_test(test_host_busy_and_shared_clock),
		cmocka_unit_test(test_host_dead_vm),
		cmocka_unit_test(test_host_vcpus),
		cmocka_unit_test(test_host_disable_nx_cap),
		cmocka_unit_test(test_host_teardown),
		cmocka_unit_test(test_host_alloc_failures),
	};

	return cmocka_run_group_tests_name("host", tests, NULL, NULL);
}
