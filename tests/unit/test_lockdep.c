// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lock-order checker (core/lockdep.h): the orders the model's own
 * paths take are recorded without a report; taking the locks the other
 * way round, directly or through a third class, is reported.  Debug
 * builds only: release builds compile the checker out.
 */
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

	/* a memslot, a fault and a flip: param -> kvm -> slots -> mmu */
	nx_slot(e.vm, 1, 0, MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	nx_access(e.vcpu, NXSIM_ACCESS_EXEC, 0);
	assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
	nx_check_ok(e.vm);
	assert_int_equal(nxsim__lockdep_reports(), before);

	nxsim__lockdep_fatal = false;
	/* mmu_lock, then kvm_lock: the reverse of kvm -> slots -> mmu */
	nest(NXSIM__LOCK_MMU, NXSIM__LOCK_KVM);
	assert_int_equal(nxsim__lockdep_reports(), before + 1);
	/* slots_lock, then param_lock: reverses param -> kvm -> slots */
	nest(NXSIM__LOCK_SLOTS, NXSIM__LOCK_PARAM);
	assert_int_equal(nxsim__lockdep_reports(), before + 2);
	/* the right order still passes */
	nest(NXSIM__LOCK_KVM, NXSIM__LOCK_MMU);
	assert_int_equal(nxsim__lockdep_reports(), before + 2);
	nxsim__lockdep_fatal = true;
	nx_env_destroy(&e);
}
#else
static void test_lockdep(void **state)
{
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockdep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
