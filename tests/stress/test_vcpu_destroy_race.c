// SPDX-License-Identifier: GPL-2.0-only
/*
 * VM destruction while vCPU threads fault and execute INVLPG
 * (kvm_vcpu_ioctl()'s vm_dead check and vcpu->mutex, run under
 * ThreadSanitizer in CI): a guest access or a guest INVLPG enters only
 * its vCPU, not the VM's gate, so destruction sets vm_dead
 * and then takes each vCPU's mutex before it frees the vCPU caches and
 * the tables.  Each thread must see its accesses succeed until one
 * returns -EBADF and every later one return -EBADF; the destruction must
 * not wait for the threads to stop, and nothing may be touched after it
 * is freed (ASan, TSan).  The destruction starts while one fault is
 * held inside the MMU by the scheduling hook, which lets it go on only
 * once vm_dead is set, so a destruction that did not wait for the
 * vCPU's mutex would free the tables under it.
 */
#include <pthread.h>
#include <sched.h>

#include "kvm/vm.h"
#include "integration/nx_test.h"

#define THREADS 2
#define AFTER 64 /* accesses each thread makes after its first -EBADF */

struct vcpu_arg {
	struct nxsim_vcpu *vcpu;
	unsigned int id;
	uint64_t ok;  /* accesses that succeeded (atomic) */
	uint64_t bad; /* -EBADF seen, all after the last success */
	int other;    /* any other return code */
};

struct hold {
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu; /* whose fault is held */
	int inside;		 /* 1 while held, 2 after (atomic) */
};

static __thread struct nxsim_vcpu *running;

/* At one fault of @h->vcpu, before mmu_lock: wait for vm_dead. */
static void hold_fault(void *ctx, enum nxsim__sched_point p, uint64_t gfn,
		       int level)
{
	struct hold *h = ctx;
	int i;

	(void)gfn;
	(void)level;
	if (p != NXSIM__SCHED_FAULTIN || running != h->vcpu ||
	    __atomic_load_n(&h->inside, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&h->inside, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->vm->vm_dead, __ATOMIC_RELAXED))
		sched_yield();
	/* give a destruction that does not wait time to free things */
	for (i = 0; i < 1000; i++)
		sched_yield();
	__atomic_store_n(&h->inside, 2, __ATOMIC_RELEASE);
}

static void *vcpu_thread(void *p)
{
	struct vcpu_arg *a = p;
	uint64_t i;
	int rc;

	running = a->vcpu;
	for (i = 0; a->bad < AFTER; i++) {
		/* fresh 4K pages in this thread's own 2 MiB regions */
		uint64_t gpa =
			4 * GIB + a->id * 8 * MIB2 + ((i % (4 * 512)) << 12);

		/* one call in 16 a guest INVLPG (paging off: a 32-bit gva) */
		rc = i % 16 == 15 ?
			     nxsim_guest_invlpg(a->vcpu, (i % 512) << 12) :
			     nxsim_vcpu_access(a->vcpu, NXSIM_ACCESS_READ, gpa,
					       NULL);
		if (rc == -EBADF) {
			a->bad++;
		} else if (rc || a->bad) {
			a->other = rc ? rc : 1;
			break;
		} else {
			__atomic_fetch_add(&a->ok, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

static void test_destroy_while_faulting(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct vcpu_arg a[THREADS] = { { 0 } };
	struct hold h = { .vm = e.vm };
	pthread_t t[THREADS];
	unsigned int i;

	(void)state;
	nx_slot(e.vm, 1, 4 * GIB, THREADS * 8 * MIB2, HVA_BASE,
		NXSIM_PG_LEVEL_4K, 0);
	a[0].vcpu = e.vcpu;
	for (i = 1; i < THREADS; i++)
		assert_rc(nxsim_vcpu_create(e.vm, i, &a[i].vcpu), 0);
	h.vcpu = a[THREADS - 1].vcpu;
	nxsim__mmu_set_sched_hook(e.vm->mmu, hold_fault, &h);
	for (i = 0; i < THREADS; i++) {
		a[i].id = i;
		assert_int_equal(
			pthread_create(&t[i], NULL, vcpu_thread, &a[i]), 0);
	}
	/* destroy once the first thread faulted a while, the last is held */
	while (__atomic_load_n(&a[0].ok, __ATOMIC_RELAXED) < 256 ||
	       !__atomic_load_n(&h.inside, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_rc(nxsim_vm_destroy(e.vm), 0);
	assert_int_equal(__atomic_load_n(&h.inside, __ATOMIC_ACQUIRE), 2);
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(a[i].other, 0);
		assert_int_equal(a[i].bad, AFTER);
	}
	assert_true(a[0].ok >= 256);
	/* a second destruction is refused; the host frees the dead VM */
	assert_rc(nxsim_vm_destroy(e.vm), -EBADF);
	assert_rc(nxsim_host_destroy(e.host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_destroy_while_faulting),
	};

	return cmocka_run_group_tests_name("vcpu_destroy_race", tests, NULL,
					   NULL);
}
