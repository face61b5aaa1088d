// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lock-order checker (core/lockdep.h): the orders the model's own
 * paths take are recorded without a report; taking the locks the other
 * way round, directly or through a third class, is reported.  Debug
 * builds only: release builds compile the checker out.
 *
 * The chain of NXSIM_BUG_SETTER_LOCK_ORDER: a memslot change waits for
 * kvm->srcu under slots_lock, a vCPU disabling its APIC takes
 * cpu_hotplug_lock under kvm->srcu, the cpufreq notifier takes kvm_lock
 * under cpu_hotplug_lock; a setter holding kvm_lock while it takes
 * slots_lock closes the cycle.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../integration/nx_test.h"
#include "common/test_util.h"
#include "core/lockdep.h"

#ifndef NDEBUG
/* Takes @a then @b, and lets both go. */
static void nest(enum nxsim__lock_class a, enum nxsim__lock_class b)
{
	nxsim__lockdep_acquire(a);
	nxsim__lockdep_acquire(b);
	nxsim__lockdep_release(b);
	nxsim__lockdep_release(a);
}

static void test_lockdep(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	unsigned int before = nxsim__lockdep_reports();

	/*
	 * a memslot, an exec fault and a flip: param -> kvm, param ->
	 * vm_list_srcu -> slots -> mmu -> tdp_mmu_pages_lock
	 */
	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	nx_check_ok(e.vm);
	assert_int_equal(nxsim__lockdep_reports(), before);

	nxsim__lockdep_fatal = false;
	/* mmu_lock, then slots_lock: the reverse of slots -> mmu */
	nest(NXSIM__LOCK_MMU, NXSIM__LOCK_SLOTS);
	assert_int_equal(nxsim__lockdep_reports(), before + 1);
	/* slots_lock, then param_lock: reverses param -> slots */
	nest(NXSIM__LOCK_SLOTS, NXSIM__LOCK_PARAM);
	assert_int_equal(nxsim__lockdep_reports(), before + 2);
	/*
	 * tdp_mmu_pages_lock, then mmu_lock: the exec fault tracked its
	 * table under mmu_lock, so this is a reversal too
	 */
	nest(NXSIM__LOCK_TDP_MMU_PAGES, NXSIM__LOCK_MMU);
	assert_int_equal(nxsim__lockdep_reports(), before + 3);
	/* the right order still passes */
	nest(NXSIM__LOCK_KVM, NXSIM__LOCK_MMU);
	assert_int_equal(nxsim__lockdep_reports(), before + 3);
	nxsim__lockdep_fatal = true;
	nx_env_destroy(&e);
}

/* A reversal with the checker fatal (the default) aborts the process. */
static void test_lockdep_reversal_aborts(void **state)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		/* Quiet: the report is the expected outcome. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		nxsim__lockdep_fatal = true;
		nest(NXSIM__LOCK_KVM, NXSIM__LOCK_SLOTS);
		nest(NXSIM__LOCK_SLOTS, NXSIM__LOCK_KVM);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* nxsim_vcpu_set_apic_hw_enabled(): the previous state. */
static bool set_apic(struct nxsim_vcpu *vcpu, bool enable)
{
	bool was;

	assert_rc(nxsim_vcpu_set_apic_hw_enabled(vcpu, enable, &was), 0);
	return was;
}

/*
 * The three other paths of the chain, then a flip of nx_huge_pages:
 * Return: the reports the flip added.
 */
static unsigned int chain_then_flip(uint64_t bugs)
{
	struct nx_env e = nx_env(NULL, bugs);
	struct nxsim_vm_counters c;
	unsigned int before;

	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	assert_int_equal(set_apic(e.vcpu, false), 1);
	assert_int_equal(set_apic(e.vcpu, false), 0);
	assert_int_equal(nxsim_host_cpufreq_notify(e.host), 1);
	before = nxsim__lockdep_reports();
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	assert_rc(nxsim_vm_counters(e.vm, &c), 0);
	assert_int_equal(c.zap_all, 1);
	nx_env_destroy(&e);
	return nxsim__lockdep_reports() - before;
}

static void test_setter_lock_order(void **state)
{
	nxsim__lockdep_fatal = false;
	/* off: the walk holds no kvm_lock across slots_lock */
	assert_int_equal(chain_then_flip(0), 0);
	/* on: kvm_lock -> slots_lock closes the cycle, once per VM */
	assert_int_equal(chain_then_flip(NXSIM_BUG_SETTER_LOCK_ORDER), 1);
	nxsim__lockdep_fatal = true;
}
#else
static void test_lockdep(void **state)
{
	skip();
}

static void test_lockdep_reversal_aborts(void **state)
{
	skip();
}

static void test_setter_lock_order(void **state)
{
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockdep),
		cmocka_unit_test(test_lockdep_reversal_aborts),
		cmocka_unit_test(test_setter_lock_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
