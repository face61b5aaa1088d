// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TDP MMU under mmu_lock held for read, with real threads (run under
 * ThreadSanitizer in CI):
 *
 *   storm      vCPU threads make reads, writes and fetches, each over
 *              8 MiB of its own and 8 MiB all share (4K host pages, and
 *              2M where the control thread remaps them),
 *              while a control thread runs recovery passes (6.18: under
 *              the read lock), flips nx_huge_pages (a zap of every root),
 *              toggles dirty logging (read-lock walks) and remaps the host
 *              (the MMU notifier's sequence).  Every so often the control
 *              thread stops the vCPUs at a quiescent point and runs the
 *              checker; it runs again at the end.  With every bug switch
 *              off the checker must find nothing.  The number of faults
 *              (accesses that were not hits) is NXSIM_STRESS_FAULTS,
 *              10^6 by default, over NXSIM_STRESS_VCPUS threads (2); the
 *              TSan job sets a smaller count (tests/CMakeLists.txt).
 *   memory     a fault/zap storm: page-table pages allocated, counting
 *              those waiting for their RCU grace period, stay below a
 *              bound at every step, and all come back.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <nxsim/rng.h>

#include "kvm/vm.h"
#include "mmu/mmu_internal.h"
#include "integration/nx_test.h"

#define MAX_VCPUS 8
#define BASE (4 * GIB)
#define SHARED_REGION BASE /* region 0, shared */
#define REGION(i) (BASE + (uint64_t)(i)*MIB2)
#define PACE 32
#define PER_VCPU 4 /* 2 MiB regions each vCPU has, and the shared ones */
#define SLOT_SIZE(s) (((s)->nr_vcpus + 1) * PER_VCPU * MIB2)

struct shared {
	struct nx_env e;
	struct nxsim_vcpu *vcpu[MAX_VCPUS];
	unsigned int nr_vcpus;
	uint64_t faults_each;
	uint64_t seed;
	/* quiescent points: the control thread asks, vCPUs park */
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool pause;
	unsigned int parked;
	unsigned int running;
	uint64_t progress; /* accesses so far, all vCPUs (atomic) */
};

struct vcpu_arg {
	struct shared *s;
	unsigned int id;
	uint64_t faults;
	uint64_t accesses;
};

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* Park here while the control thread checks. */
static void quiescent_point(struct shared *s)
{
	if (!__atomic_load_n(&s->pause, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&s->lock);
	s->parked++;
	pthread_cond_broadcast(&s->cv);
	while (s->pause)
		pthread_cond_wait(&s->cv, &s->lock);
	s->parked--;
	pthread_mutex_unlock(&s->lock);
}

static void *vcpu_thread(void *p)
{
	struct vcpu_arg *a = p;
	struct shared *s = a->s;
	struct nxsim_access_info info;
	struct nxsim_rng rng;

	nxsim_rng_seed(&rng, s->seed + a->id);
	while (a->faults < s->faults_each) {
		/* half in the shared regions, half in this vCPU's own */
		uint64_t region =
			nxsim_rng_below(&rng, PER_VCPU) +
			(nxsim_rng_below(&rng, 2) ? 0 : (1 + a->id) * PER_VCPU);
		uint64_t gpa =
			REGION(region) + (nxsim_rng_below(&rng, 512) << 12);
		int kind = (int)nxsim_rng_below(&rng, 3);

		if (nxsim_vcpu_access(s->vcpu[a->id], kind, gpa, &info))
			return (void *)1;
		a->accesses++;
		__atomic_fetch_add(&s->progress, 1, __ATOMIC_RELAXED);
		if (info.outcome != NXSIM_ACCESS_HIT)
			a->faults++;
		if (!(a->accesses & 63))
			quiescent_point(s);
	}
	pthread_mutex_lock(&s->lock);
	s->running--;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Stop every running vCPU, run the checker, let them go. */
static void check_quiescent(struct shared *s)
{
	pthread_mutex_lock(&s->lock);
	__atomic_store_n(&s->pause, true, __ATOMIC_RELEASE);
	while (s->parked < s->running)
		pthread_cond_wait(&s->cv, &s->lock);
	nx_check_ok(s->e.vm);
	s->pause = false;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->lock);
}

static bool vcpus_running(struct shared *s)
{
	bool r;

	pthread_mutex_lock(&s->lock);
	r = s->running > 0;
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* One step of the control thread, chosen by @op. */
static void control_step(struct shared *s, unsigned int op, unsigned int i)
{
	struct nxsim_memory_region mr = {
		.slot = 1,
		.guest_phys_addr = BASE,
		.memory_size = SLOT_SIZE(s),
		.userspace_addr = HVA_BASE,
	};
	int level = 1 + (int)(i % 2);

	switch (op) {
	case 0:
		nxsim__mmu_recover_nx_huge_pages(s->e.vm->mmu);
		break;
	case 1:
		assert_rc(nxsim_param_set(s->e.host, "nx_huge_pages",
					  i & 1 ? "off" : "on"),
			  0);
		break;
	case 2:
		mr.flags = i & 1 ? NXSIM_MEM_LOG_DIRTY_PAGES : 0;
		assert_rc(nxsim_vm_set_memory_region(s->e.vm, &mr), 0);
		break;
	default:
		assert_rc(nxsim_vm_set_host_level(
				  s->e.vm, 1, (i % (s->nr_vcpus + 1)) * MIB2,
				  MIB2, level),
			  0);
		break;
	}
}

static void test_storm(void **state)
{
	struct shared s = { .e = nx_env(NULL, 0) };
	struct vcpu_arg a[MAX_VCPUS];
	uint64_t total = env_u64("NXSIM_STRESS_FAULTS", 1000000), faults = 0;
	uint64_t accesses = 0;
	struct nxsim_mmu_counters c;
	pthread_t t[MAX_VCPUS];
	struct nxsim_rng rng;
	unsigned int i, steps = 0, checks = 0;
	void *rc;

	(void)state;
	s.nr_vcpus = (unsigned int)env_u64("NXSIM_STRESS_VCPUS", 2);
	assert_true(s.nr_vcpus >= 1 && s.nr_vcpus <= MAX_VCPUS);
	s.faults_each = total / s.nr_vcpus;
	s.seed = test_seed();
	nxsim_rng_seed(&rng, s.seed);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.cv, NULL);
	s.vcpu[0] = s.e.vcpu;
	for (i = 1; i < s.nr_vcpus; i++)
		assert_rc(nxsim_vcpu_create(s.e.vm, i, &s.vcpu[i]), 0);
	nx_slot(s.e.vm, 1, BASE, SLOT_SIZE(&s), HVA_BASE, NXSIM_PG_LEVEL_4K, 0);
	s.running = s.nr_vcpus;
	for (i = 0; i < s.nr_vcpus; i++) {
		a[i] = (struct vcpu_arg){ .s = &s, .id = i };
		assert_int_equal(
			pthread_create(&t[i], NULL, vcpu_thread, &a[i]), 0);
	}
	while (vcpus_running(&s)) {
		/* one control step per PACE accesses of the vCPUs */
		uint64_t next =
			__atomic_load_n(&s.progress, __ATOMIC_RELAXED) + PACE;

		while (__atomic_load_n(&s.progress, __ATOMIC_RELAXED) < next &&
		       vcpus_running(&s))
			sched_yield();
		control_step(&s, (unsigned int)nxsim_rng_below(&rng, 4), steps);
		if (!(++steps % 64)) {
			check_quiescent(&s);
			checks++;
		}
	}
	for (i = 0; i < s.nr_vcpus; i++) {
		assert_int_equal(pthread_join(t[i], &rc), 0);
		assert_null(rc);
		faults += a[i].faults;
		accesses += a[i].accesses;
	}
	printf("# %u vCPUs: %" PRIu64 " faults in %" PRIu64
	       " accesses, %u control steps, %u quiescent checks, "
	       "%" PRIu64 " retries\n",
	       s.nr_vcpus, faults, accesses, steps, checks,
	       s.e.vm->mmu->fault_retries);
	assert_true(faults >= s.faults_each * s.nr_vcpus);
	/* each vCPU counts its own faults; the read adds them up exactly */
	assert_rc(nxsim_vm_mmu_counters(s.e.vm, &c), 0);
	assert_int_equal(c.faults, faults + s.e.vm->mmu->fault_retries);
	nx_check_ok(s.e.vm);
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.lock);
	nx_env_destroy(&s.e);
}

/*
 * A fault/zap storm: each round maps 64 4K pages in 64 regions (a table
 * each, exec faults so they are tracked), then zaps every root.  Pages
 * allocated (in tables, in the vCPU cache, waiting for their grace
 * period, on the reserve) never exceed what one round builds plus the
 * backlog a fault lets pile up (NXSIM__RCU_PENDING_MAX in src/mmu/mmu.c)
 * and the reserve; at the end, after rcu_barrier(), only the cache is left.
 */
#define ROUNDS 200
#define REGIONS 64

static void test_memory_bounded(void **state)
{
	struct nx_env e = nx_env(NULL, 0);
	struct nxsim__vm_mmu *mmu = e.vm->mmu;
	long n, pending, max = 0, per_round = 3 + REGIONS;
	unsigned int r, i;

	(void)state;
	nx_slot(e.vm, 1, BASE, REGIONS * MIB2, HVA_BASE, NXSIM_PG_LEVEL_2M, 0);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < REGIONS; i++)
			nx_access(e.vcpu, NXSIM_ACCESS_EXEC, REGION(i));
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), per_round);
		/* off and on again: two zaps of every root */
		assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "off"), 0);
		assert_rc(nxsim_param_set(e.host, "nx_huge_pages", "on"), 0);
		n = nxsim__mmu_nr_pages_allocated(mmu, &pending);
		if (n > max)
			max = n;
		assert_true(n <= 4096 + 2 * per_round + 5);
	}
	printf("# at most %ld pages allocated over %u rounds of %ld\n", max,
	       ROUNDS, per_round);
	nxsim__mmu_rcu_barrier();
	n = nxsim__mmu_nr_pages_allocated(mmu, &pending);
	assert_int_equal(pending, 0);
	assert_int_equal(n, e.vcpu->mmu.mmu_cache.nobjs);
	nx_env_destroy(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_memory_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
