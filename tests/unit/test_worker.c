// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recovery worker per profile: when it is made (VM creation up to
 * 6.13, first KVM_RUN from 6.14, never with "never"), when it runs (one
 * pass each time virtual time crosses nx_huge_page_last + period, in
 * jiffies), how parameter writes wake it, and how it ends (stopped,
 * killed), with the bug switches wake_null_worker, worker_once_fail and
 * wake_killed_worker (docs/bugs.md).
 */
#include "common/test_util.h"

#define SEC 1000000000ull
#define MS 1000000ull

static struct nxsim_worker_info info(struct nxsim_vm *vm)
{
	struct nxsim_worker_info wi;

	assert_rc(nxsim_vm_worker_info(vm, &wi), 0);
	return wi;
}

static void advance_to(struct nxsim_host *host, uint64_t t)
{
	struct nxsim_clock *c = nxsim_host_clock(host);

	assert_true(t >= nxsim_clock_now(c));
	assert_true(nxsim_clock_advance(c, t - nxsim_clock_now(c)) >= 0);
}

/*
 * 6.12: a kthread from KVM_CREATE_VM.  Ratio 60, period 0: one pass every
 * 60 s, the first one 60 s after creation.
 */
static void test_worker_kthread_at_create(void **state)
{
	struct nxsim_host *host = test_host("6.12", true, NULL, 0);
	struct nxsim_vm *vm;

	advance_to(host, 5 * SEC);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_int_equal(info(vm).state, NXSIM_WORKER_RUNNING);
	assert_int_equal(info(vm).created_ns, 5 * SEC);
	assert_int_equal(info(vm).last_jiffies, 5 * 250);
	assert_int_equal(info(vm).deadline_ns, 65 * SEC);
	advance_to(host, 65 * SEC - 1);
	assert_int_equal(info(vm).passes, 0);
	advance_to(host, 65 * SEC);
	assert_int_equal(info(vm).passes, 1);
	assert_int_equal(info(vm).deadline_ns, 125 * SEC);
	advance_to(host, 3605 * SEC);
	assert_int_equal(info(vm).passes, 60);
	assert_int_equal(info(vm).wakes, 0);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_int_equal(info(vm).state, NXSIM_WORKER_STOPPED);
	assert_int_equal(nxsim_clock_next_event(nxsim_host_clock(host)),
			 NXSIM_NEVER);
	advance_to(host, 7200 * SEC);
	assert_int_equal(info(vm).passes, 60);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* 6.14: nothing until the first KVM_RUN of any vCPU; one worker only. */
static void test_worker_at_first_run(void **state)
{
	struct nxsim_host *host = test_host("6.14", true, NULL, 0);
	struct nxsim_vcpu *c0, *c1;
	struct nxsim_vm *vm;

	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vcpu_create(vm, 0, &c0), 0);
	assert_rc(nxsim_vcpu_create(vm, 1, &c1), 0);
	assert_int_equal(info(vm).state, NXSIM_WORKER_NONE);
	advance_to(host, 10 * SEC);
	assert_rc(nxsim_vcpu_run(c1), 0);
	assert_int_equal(info(vm).state, NXSIM_WORKER_RUNNING);
	assert_int_equal(info(vm).created_ns, 10 * SEC);
	advance_to(host, 20 * SEC);
	assert_rc(nxsim_vcpu_run(c0), 0);
	assert_rc(nxsim_vcpu_run(c1), 0);
	assert_int_equal(info(vm).created_ns, 10 * SEC);
	assert_int_equal(info(vm).deadline_ns, 70 * SEC);
	advance_to(host, 70 * SEC);
	assert_int_equal(info(vm).passes, 1);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* "never": no worker, whether made at creation or at the first run. */
static void test_worker_never(void **state)
{
	static const char *const profiles[] = { "6.1", "6.12", "6.13", "6.14",
						"6.18" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(profiles); i++) {
		struct nxsim_host *host = test_host(
			profiles[i], true, "kvm.nx_huge_pages=never", 0);
		struct nxsim_vcpu *vcpu;
		struct nxsim_vm *vm;

		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
		assert_rc(nxsim_vcpu_run(vcpu), 0);
		assert_int_equal(info(vm).state, NXSIM_WORKER_NONE);
		assert_int_equal(nxsim_clock_next_event(nxsim_host_clock(host)),
				 NXSIM_NEVER);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

/*
 * Recovery off at creation: the worker sleeps without a timeout.  Turning
 * nx_huge_pages on at 100 s zaps and wakes it; the deadline counts from
 * creation (0 s), so the pass is due at once, and the next one at 160 s.
 */
static void test_worker_enabled_late(void **state)
{
	struct nxsim_host *host = test_host("6.12", false, NULL, 0);
	struct nxsim_vm *vm;

	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_int_equal(info(vm).deadline_ns, NXSIM_NEVER);
	advance_to(host, 100 * SEC);
	assert_int_equal(info(vm).passes, 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "force"), 0);
	assert_int_equal(info(vm).wakes, 1);
	/* The woken worker runs at the next clock step, not inside the write. */
	assert_int_equal(info(vm).passes, 0);
	advance_to(host, 100 * SEC);
	assert_int_equal(info(vm).passes, 1);
	assert_int_equal(info(vm).deadline_ns, 160 * SEC);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* Parameter changes between passes, as the loop re-reads them. */
static void test_worker_param_changes(void **state)
{
	struct nxsim_host *host = test_host("6.12", true, NULL, 0);
	struct nxsim_vm *vm;

	assert_rc(nxsim_vm_create(host, &vm), 0);
	/* ratio 3600: 1 s, shorter, so a wake; due since 1 s: runs at 10 s */
	advance_to(host, 10 * SEC);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "3600"),
		  0);
	advance_to(host, 10 * SEC);
	assert_int_equal(info(vm).passes, 1);
	assert_int_equal(info(vm).deadline_ns, 11 * SEC);
	/* period 100 ms: shorter, wake; next due 10.1 s */
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_period_ms",
				  "100"),
		  0);
	advance_to(host, 10 * SEC + 100 * MS);
	assert_int_equal(info(vm).passes, 2);
	/* 1000 ms: longer, no wake; the 10.2 s wake-up re-arms for 11.1 s */
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_period_ms",
				  "1000"),
		  0);
	assert_int_equal(info(vm).deadline_ns, 10 * SEC + 200 * MS);
	advance_to(host, 11 * SEC);
	assert_int_equal(info(vm).passes, 2);
	assert_int_equal(info(vm).deadline_ns, 11 * SEC + 100 * MS);
	advance_to(host, 11 * SEC + 100 * MS);
	assert_int_equal(info(vm).passes, 3);
	/* ratio 0: no wake; at 12.1 s it finds recovery off and sleeps */
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "0"),
		  0);
	advance_to(host, 20 * SEC);
	assert_int_equal(info(vm).passes, 3);
	assert_int_equal(info(vm).deadline_ns, NXSIM_NEVER);
	assert_int_equal(info(vm).wakes, 2);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* Deadlines are jiffies: ratio 7 gives 514285 ms, 514288 ms at HZ=250. */
static void test_worker_jiffies_rounding(void **state)
{
	static const struct {
		unsigned int hz;
		uint64_t first;
	} cases[] = { { 250, 514288 * MS },
		      { 1000, 514285 * MS },
		      { 100, 514290 * MS },
		      { 300, 514286666667ull } };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu = { .itlb_multihit = true, .hz = cases[i].hz },
			.profile = "6.12",
			.cmdline = "kvm.nx_huge_pages_recovery_ratio=7",
		};
		struct nxsim_host *host;
		struct nxsim_vm *vm;

		assert_rc(nxsim_host_create(&cfg, &host), 0);
		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_int_equal(info(vm).deadline_ns, cases[i].first);
		advance_to(host, cases[i].first - 1);
		assert_int_equal(info(vm).passes, 0);
		advance_to(host, cases[i].first);
		assert_int_equal(info(vm).passes, 1);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

/* A VM that has not run has no worker: writes zap it but wake nothing. */
static void test_worker_wake_without_worker(void **state)
{
	struct nxsim_host_counters hc;
	struct nxsim_vm_counters vc;
	struct nxsim_host *host;
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm;

	host = test_host("6.14", true, NULL, 0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "0"),
		  0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "on"), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	assert_rc(nxsim_vm_counters(vm, &vc), 0);
	assert_int_equal(vc.zap_all, 2);
	assert_int_equal(vc.wake_calls, 3);
	nxsim_host_counters(host, &hc);
	assert_int_equal(hc.oopses, 0);
	/* then it runs, as wake_null_worker's scenario goes on */
	assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
	assert_rc(nxsim_vcpu_run(vcpu), 0);
	assert_int_equal(info(vm).state, NXSIM_WORKER_RUNNING);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);

	/* wake_null_worker (before 43fb96ae7855): the same writes oops */
	host = test_host("6.14", true, NULL, NXSIM_BUG_WAKE_NULL_WORKER);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
	nxsim_host_counters(host, &hc);
	assert_int_equal(hc.oopses, 1);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);

	/* where the worker comes with the VM there is nothing to hit */
	host = test_host("6.12", true, NULL, NXSIM_BUG_WAKE_NULL_WORKER);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
	nxsim_host_counters(host, &hc);
	assert_int_equal(hc.oopses, 0);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

/* SIGKILL of the vhost task; wake_killed_worker wakes the dead task. */
static void test_worker_kill(void **state)
{
	struct nxsim_host_counters hc;
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	int bug;

	for (bug = 0; bug < 2; bug++) {
		host = test_host("6.13", true, NULL,
				 bug ? NXSIM_BUG_WAKE_KILLED_WORKER : 0);
		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_rc(nxsim_vm_worker_kill(vm), 0);
		assert_int_equal(info(vm).state, NXSIM_WORKER_KILLED);
		assert_rc(nxsim_vm_worker_kill(vm), -ESRCH);
		assert_int_equal(nxsim_clock_next_event(nxsim_host_clock(host)),
				 NXSIM_NEVER);
		/* the VM stays on vm_list: "never" is still refused */
		assert_rc(nxsim_param_set(host, "nx_huge_pages", "never"),
			  -EBUSY);
		assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
		assert_int_equal(info(vm).wakes, 0);
		nxsim_host_counters(host, &hc);
		assert_int_equal(hc.oopses, bug);
		advance_to(host, 3600 * SEC);
		assert_int_equal(info(vm).passes, 0);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_int_equal(info(vm).state, NXSIM_WORKER_KILLED);
		assert_rc(nxsim_host_destroy(host), 0);
	}

	/* kthreads ignore signals */
	host = test_host("6.12", true, NULL, 0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_worker_kill(vm), -EOPNOTSUPP);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);

	/* no worker yet */
	host = test_host("6.14", true, NULL, 0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_worker_kill(vm), -ESRCH);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_vm_worker_kill(vm), -EBADF);
	assert_rc(nxsim_host_destroy(host), 0);
}

/*
 * A signal pending while the task is made: creation fails with
 * -ERESTARTNOINTR.  Up to 6.13 KVM_CREATE_VM fails; from 6.14 KVM_RUN
 * returns the error and the next KVM_RUN retries (916b7f42b3b3);
 * worker_once_fail returns -ENOMEM forever.
 */
static void test_worker_creation_failure(void **state)
{
	struct nxsim_vm_counters vc;
	struct nxsim_host *host;
	struct nxsim_vcpu *vcpu;
	struct nxsim_vm *vm, *probe;
	uint64_t live;
	int bug;

	host = test_host("6.12", true, NULL, 0);
	assert_rc(nxsim_vm_create(host, &probe), 0);
	assert_rc(nxsim_vm_destroy(probe), 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "never"), 0);
	assert_rc(nxsim_host_destroy(host), 0);

	for (bug = 0; bug < 2; bug++) {
		host = test_host("6.14", true, NULL,
				 bug ? NXSIM_BUG_WORKER_ONCE_FAIL : 0);
		assert_rc(nxsim_vm_create(host, &vm), 0);
		assert_rc(nxsim_vcpu_create(vm, 0, &vcpu), 0);
		assert_rc(nxsim_vm_inject_worker_error(vm,
						       -NXSIM_ERESTARTNOINTR),
			  0);
		assert_rc(nxsim_vcpu_run(vcpu),
			  bug ? -ENOMEM : -NXSIM_ERESTARTNOINTR);
		assert_int_equal(info(vm).state, NXSIM_WORKER_NONE);
		assert_rc(nxsim_vcpu_run(vcpu), bug ? -ENOMEM : 0);
		assert_rc(nxsim_vcpu_run(vcpu), bug ? -ENOMEM : 0);
		assert_int_equal(info(vm).state, bug ? NXSIM_WORKER_NONE :
						       NXSIM_WORKER_RUNNING);
		assert_rc(nxsim_vm_counters(vm, &vc), 0);
		assert_int_equal(vc.worker_create_failures, 1);
		assert_rc(nxsim_vm_destroy(vm), 0);
		assert_rc(nxsim_host_destroy(host), 0);
	}

	host = test_host("6.12", true, NULL, 0);
	assert_rc(nxsim_vm_create(host, &probe), 0);
	live = test_live_allocs();
	assert_rc(nxsim_vm_inject_worker_error(probe, -NXSIM_ERESTARTNOINTR),
		  0);
	assert_rc(nxsim_vm_inject_worker_error(probe, 0), -EINVAL);
	assert_int_equal(test_live_allocs(), live);
	assert_rc(nxsim_vm_destroy(probe), 0);
	assert_rc(nxsim_vm_inject_worker_error(probe, -EIO), -EBADF);
	assert_rc(nxsim_host_destroy(host), 0);
}

/*
 * Real threads: the workers exist, stop and die as threads.  Nothing here
 * waits for a pass (tests never sleep); the benchmarks time them.
 */
static void test_worker_real_threads(void **state)
{
	static const char *const profiles[] = { "6.12", "6.14" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(profiles); i++) {
		struct nxsim_host_config cfg = {
			.cpu.itlb_multihit = true,
			.profile = profiles[i],
			.time = NXSIM_CLOCK_REAL,
		};
		struct nxsim_vm *vm[3];
		struct nxsim_vcpu *vcpu;
		struct nxsim_host *host;
		int k;

		assert_rc(nxsim_host_create(&cfg, &host), 0);
		for (k = 0; k < 3; k++) {
			assert_rc(nxsim_vm_create(host, &vm[k]), 0);
			assert_rc(nxsim_vcpu_create(vm[k], 0, &vcpu), 0);
			assert_rc(nxsim_vcpu_run(vcpu), 0);
			assert_int_equal(info(vm[k]).state,
					 NXSIM_WORKER_RUNNING);
		}
		assert_rc(nxsim_param_set(host, "nx_huge_pages", "off"), 0);
		assert_rc(nxsim_param_set(host, "nx_huge_pages", "on"), 0);
		assert_int_equal(info(vm[0]).wakes, 2);
		assert_rc(nxsim_vm_worker_kill(vm[1]), i ? 0 : -EOPNOTSUPP);
		for (k = 0; k < 3; k++)
			assert_rc(nxsim_vm_destroy(vm[k]), 0);
		assert_int_equal(info(vm[0]).state, NXSIM_WORKER_STOPPED);
		assert_int_equal(info(vm[1]).state, i ? NXSIM_WORKER_KILLED :
							NXSIM_WORKER_STOPPED);
		assert_rc(nxsim_host_destroy(host), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worker_kthread_at_create),
		cmocka_unit_test(test_worker_at_first_run),
		cmocka_unit_test(test_worker_never),
		cmocka_unit_test(test_worker_enabled_late),
		cmocka_unit_test(test_worker_param_changes),
		cmocka_unit_test(test_worker_jiffies_rounding),
		cmocka_unit_test(test_worker_wake_without_worker),
		cmocka_unit_test(test_worker_kill),
		cmocka_unit_test(test_worker_creation_failure),
		cmocka_unit_test(test_worker_real_threads),
	};

	return cmocka_run_group_tests_name("worker", tests, NULL, NULL);
}
