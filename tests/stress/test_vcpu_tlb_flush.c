// SPDX-License-Identifier: GPL-2.0-only
/*
 * A vCPU's TLB used from its own thread while other threads flush it
 * (docs/guest-tlb.md): two vCPU threads make random reads, writes and
 * fetches through their TLBs; one thread drives the recovery worker
 * through the virtual clock (full flushes), one toggles dirty logging
 * (ranged flushes) and remaps host memory (MMU-notifier flushes), one
 * flips nx_huge_pages (root reloads).  The TLB's hit path takes no lock:
 * TSan must see no race, the checker no violation, and every flush
 * request posted must have been counted on both vCPUs.  Run under TSan.
 */
#include <pthread.h>

#include <nxsim/rng.h>

#include "../integration/nx_test.h"

#define ROUNDS 3000
#define REGIONS 8
#define NR_VCPUS 2
#define FLUSHERS 3
#define FLUSH_ROUNDS 100

struct shared {
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu *vcpu[NR_VCPUS];
	int flushers_done;
	pthread_barrier_t start; /* every thread, so that they overlap */
};

struct vcpu_arg {
	struct shared *s;
	unsigned int i;
	uint64_t seed;
	struct nxsim_vcpu_stats st;
};

static void *vcpu_thread(void *p)
{
	struct vcpu_arg *a = p;
	struct nxsim_rng rng;
	unsigned int r;

	nxsim_rng_seed(&rng, a->seed);
	pthread_barrier_wait(&a->s->start);
	/* until the flushers are done too, so that they overlap */
	for (r = 0; r < ROUNDS || __atomic_load_n(&a->s->flushers_done,
						  __ATOMIC_ACQUIRE) < FLUSHERS;
	     r++) {
		uint64_t gpa = GIB + nxsim_rng_below(&rng, REGIONS * MIB2);
		enum nxsim_access_kind k = nxsim_rng_below(&rng, 3);
		int level = 1 + (int)nxsim_rng_below(&rng, 2);

		assert_rc(nxsim_vcpu_access_guest(a->s->vcpu[a->i], k, gpa,
						  level, NULL),
			  0);
	}
	/* the vCPU's thread reads its own counters */
	assert_rc(nxsim_vcpu_stats(a->s->vcpu[a->i], &a->st), 0);
	return NULL;
}

static void flusher_done(struct shared *s)
{
	__atomic_fetch_add(&s->flushers_done, 1, __ATOMIC_RELEASE);
}

static void *clock_thread(void *p)
{
	struct shared *s = p;

	pthread_barrier_wait(&s->start);
	for (unsigned int n = 0; n < FLUSH_ROUNDS; n++)
		nxsim_clock_advance(nxsim_host_clock(s->host), 100000000ull);
	flusher_done(s);
	return NULL;
}

static void *slot_thread(void *p)
{
	struct shared *s = p;

	pthread_barrier_wait(&s->start);
	for (unsigned int n = 0; n < FLUSH_ROUNDS; n++) {
		nx_slot(s->vm, 1, GIB, REGIONS * MIB2, HVA_BASE, 2,
			n & 1 ? 0 : NXSIM_MEM_LOG_DIRTY_PAGES);
		assert_rc(nxsim_vm_set_host_level(s->vm, 1,
						  (n % REGIONS) * MIB2, MIB2,
						  1 + (n & 1)),
			  0);
	}
	flusher_done(s);
	return NULL;
}

static void *param_thread(void *p)
{
	struct shared *s = p;

	pthread_barrier_wait(&s->start);
	for (unsigned int n = 0; n < FLUSH_ROUNDS; n++)
		assert_rc(nxsim_param_set(s->host, "nx_huge_pages",
					  n & 1 ? "on" : "off"),
			  0);
	flusher_done(s);
	return NULL;
}

static void test_flush_while_running(void **state)
{
	struct nxsim_vcpu_tlb_config cfg;
	struct vcpu_arg va[NR_VCPUS];
	pthread_t vt[NR_VCPUS], ct, st, pt;
	struct nxsim_vcpu_stats after;
	struct shared s = { 0 };
	unsigned int i;

	(void)state;
	s.host = test_host("6.6", true, NULL, 0);
	assert_rc(nxsim_param_set(s.host, "nx_huge_pages_recovery_ratio", "1"),
		  0);
	assert_rc(nxsim_vm_create(s.host, &s.vm), 0);
	nxsim_vcpu_tlb_config_default(&cfg);
	cfg.range_flush = true;
	assert_rc(nxsim_vm_set_vcpu_tlb(s.vm, &cfg), 0);
	for (i = 0; i < NR_VCPUS; i++) {
		assert_rc(nxsim_vcpu_create(s.vm, i, &s.vcpu[i]), 0);
		assert_rc(nxsim_vcpu_run(s.vcpu[i]), 0);
	}
	nx_slot(s.vm, 1, GIB, REGIONS * MIB2, HVA_BASE, 2, 0);
	pthread_barrier_init(&s.start, NULL, NR_VCPUS + FLUSHERS);
	assert_int_equal(pthread_create(&ct, NULL, clock_thread, &s), 0);
	assert_int_equal(pthread_create(&st, NULL, slot_thread, &s), 0);
	assert_int_equal(pthread_create(&pt, NULL, param_thread, &s), 0);
	for (i = 0; i < NR_VCPUS; i++) {
		va[i] = (struct vcpu_arg){ .s = &s, .i = i, .seed = 7 + i };
		assert_int_equal(
			pthread_create(&vt[i], NULL, vcpu_thread, &va[i]), 0);
	}
	for (i = 0; i < NR_VCPUS; i++)
		assert_int_equal(pthread_join(vt[i], NULL), 0);
	assert_int_equal(pthread_join(ct, NULL), 0);
	assert_int_equal(pthread_join(st, NULL), 0);
	assert_int_equal(pthread_join(pt, NULL), 0);
	pthread_barrier_destroy(&s.start);
	nx_check_ok(s.vm);
	for (i = 0; i < NR_VCPUS; i++) {
		/* joined: this thread runs the vCPU now; it handles the rest */
		assert_rc(nxsim_vcpu_access_guest(s.vcpu[i], NXSIM_ACCESS_READ,
						  GIB, 1, NULL),
			  0);
		assert_rc(nxsim_vcpu_stats(s.vcpu[i], &va[i].st), 0);
		printf("# vCPU %u: %llu accesses, %llu requests, %llu full, "
		       "%llu ranged, %llu reloads\n",
		       i, (unsigned long long)va[i].st.accesses,
		       (unsigned long long)va[i].st.flush_requests,
		       (unsigned long long)va[i].st.tlb_flush,
		       (unsigned long long)va[i].st.tlb_flush_range,
		       (unsigned long long)va[i].st.root_reloads);
		assert_true(va[i].st.accesses >= ROUNDS);
		/* every flusher ran before the vCPU's last access */
		assert_true(va[i].st.flush_requests >= FLUSH_ROUNDS);
		assert_true(va[i].st.root_reloads > 0);
	}
	/* both vCPUs were posted the same requests */
	assert_rc(nxsim_vcpu_stats(s.vcpu[0], &after), 0);
	assert_rc(nxsim_vcpu_stats(s.vcpu[1], &va[1].st), 0);
	assert_int_equal(after.flush_requests, va[1].st.flush_requests);
	assert_rc(nxsim_vm_destroy(s.vm), 0);
	assert_rc(nxsim_host_destroy(s.host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_while_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
