// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guarantee of 0b210faf3373, under contention: once "never" succeeded
 * no VM has or will get a recovery worker, and "never" does not succeed
 * while a VM exists.
 *
 *   creators (3)    VM create [, vCPU create + KVM_RUN] ... destroy, looping
 *   never writer    "never" until it succeeds, then -EPERM forever
 *   param writer    off / force / ratio / period, -EPERM once never is set
 *   clock           advances virtual time, running worker passes
 *
 * Each creator, before it destroys its VM, checks: if "never" has already
 * succeeded, the VM must have no worker (it was either made after "never",
 * so it got none, or it existed when "never" succeeded, which must not
 * happen).  Run under ThreadSanitizer in CI.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "common/test_util.h"

#define CREATORS 3
#define ITERATIONS 60
#define ROUNDS 8

struct race {
	struct nxsim_host *host;
	bool first_run;	      /* 6.14: the worker comes with KVM_RUN */
	atomic_bool never_ok; /* "never" has succeeded */
	atomic_bool stop;
	atomic_int violations;
	atomic_int errors;
};

static void *creator(void *arg)
{
	struct race *r = arg;
	int i;

	for (i = 0; i < ITERATIONS; i++) {
		struct nxsim_worker_info wi;
		struct nxsim_vcpu *vcpu;
		struct nxsim_vm *vm;

		if (nxsim_vm_create(r->host, &vm)) {
			atomic_fetch_add(&r->errors, 1);
			continue;
		}
		if (r->first_run &&
		    (nxsim_vcpu_create(vm, 0, &vcpu) || nxsim_vcpu_run(vcpu)))
			atomic_fetch_add(&r->errors, 1);
		if (atomic_load(&r->never_ok) &&
		    !nxsim_vm_worker_info(vm, &wi) &&
		    wi.state != NXSIM_WORKER_NONE)
			atomic_fetch_add(&r->violations, 1);
		if (nxsim_vm_destroy(vm))
			atomic_fetch_add(&r->errors, 1);
	}
	return NULL;
}

static void *never_writer(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		int rc = nxsim_param_set(r->host, "nx_huge_pages", "never\n");

		if (atomic_load(&r->never_ok) ? rc != -EPERM :
						(rc != 0 && rc != -EBUSY))
			atomic_fetch_add(&r->errors, 1);
		if (rc == 0)
			atomic_store(&r->never_ok, true);
	}
	return NULL;
}

static void *param_writer(void *arg)
{
	static const char *const writes[][2] = {
		{ "nx_huge_pages", "off" },
		{ "nx_huge_pages", "force" },
		{ "nx_huge_pages_recovery_ratio", "3600" },
		{ "nx_huge_pages_recovery_period_ms", "1" },
		{ "nx_huge_pages_recovery_ratio", "0" },
	};
	struct race *r = arg;
	unsigned int i = 0;

	while (!atomic_load(&r->stop)) {
		bool after = atomic_load(&r->never_ok);
		int rc = nxsim_param_set(r->host, writes[i % 5][0],
					 writes[i % 5][1]);

		if ((after && rc != -EPERM) || (rc && rc != -EPERM))
			atomic_fetch_add(&r->errors, 1);
		i++;
	}
	return NULL;
}

static void *clock_runner(void *arg)
{
	struct race *r = arg;
	struct nxsim_clock *c = nxsim_host_clock(r->host);

	while (!atomic_load(&r->stop))
		nxsim_clock_advance(c, 1000000);
	return NULL;
}

static void run_round(const char *profile, enum nxsim_clock_mode time)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = profile,
		.time = time,
	};
	pthread_t creators[CREATORS], never, params, clock;
	struct race r = { .first_run = !strcmp(profile, "6.14") };
	int i;

	assert_rc(nxsim_host_create(&cfg, &r.host), 0);
	for (i = 0; i < CREATORS; i++)
		pthread_create(&creators[i], NULL, creator, &r);
	pthread_create(&never, NULL, never_writer, &r);
	pthread_create(&params, NULL, param_writer, &r);
	if (time == NXSIM_CLOCK_VIRTUAL)
		pthread_create(&clock, NULL, clock_runner, &r);
	for (i = 0; i < CREATORS; i++)
		pthread_join(creators[i], NULL);
	/* With every VM gone, "never" gets through. */
	while (!atomic_load(&r.never_ok))
		sched_yield();
	atomic_store(&r.stop, true);
	pthread_join(never, NULL);
	pthread_join(params, NULL);
	if (time == NXSIM_CLOCK_VIRTUAL)
		pthread_join(clock, NULL);

	assert_int_equal(atomic_load(&r.errors), 0);
	assert_int_equal(atomic_load(&r.violations), 0);
	assert_string_equal(test_param(r.host, "nx_huge_pages"), "never\n");
	assert_rc(nxsim_host_destroy(r.host), 0);
}

/* Workers at creation (kthread, vhost task) and at the first KVM_RUN. */
static void test_never_race_virtual(void **state)
{
	static const char *const profiles[] = { "6.12", "6.13", "6.14" };
	size_t p;
	int i;

	for (p = 0; p < ARRAY_SIZE(profiles); p++)
		for (i = 0; i < ROUNDS; i++)
			run_round(profiles[p], NXSIM_CLOCK_VIRTUAL);
}

/* The same with every worker a real thread. */
static void test_never_race_real_threads(void **state)
{
	int i;

	for (i = 0; i < ROUNDS / 2; i++) {
		run_round("6.12", NXSIM_CLOCK_REAL);
		run_round("6.14", NXSIM_CLOCK_REAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_race_virtual),
		cmocka_unit_test(test_never_race_real_threads),
	};

	return cmocka_run_group_tests_name("never_race", tests, NULL, NULL);
}
