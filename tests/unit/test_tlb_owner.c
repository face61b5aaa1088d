// SPDX-License-Identifier: GPL-2.0-only
/*
 * The TLB's threading rule (include/nxsim/tlb.h, "Threads"): one thread
 * per CPU runs concurrently with the others and their counters come out
 * exact (TSan checks there is no race); debug builds abort when two calls
 * own one CPU at once (here: a dump callback calling back into the CPU it
 * dumps) or a cross-CPU flush runs alongside a call on any CPU.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test_util.h"

#define KVA 0xffff888000000000ull
#define NR_THREADS 4
#define PAGES 256
#define ROUNDS 20

struct worker {
	struct nxsim_tlb *tlb;
	unsigned int cpu;
	int rc;
};

/* Each CPU: fill PAGES pages, look each up ROUNDS times, INVLPG them. */
static void *run_cpu(void *arg)
{
	struct worker *w = arg;
	uint64_t i, r;

	for (i = 0; i < PAGES && !w->rc; i++) {
		struct nxsim_tlb_entry e = { .va = KVA + (i << 12),
					     .pfn = i,
					     .page_shift = 12,
					     .global = true };

		w->rc = nxsim_tlb_fill(w->tlb, w->cpu, NXSIM_TLB_READ, &e);
	}
	for (r = 0; r < ROUNDS && !w->rc; r++)
		for (i = 0; i < PAGES; i++)
			nxsim_tlb_lookup(w->tlb, w->cpu, NXSIM_TLB_READ,
					 KVA + (i << 12), NULL);
	for (i = 0; i < PAGES && !w->rc; i++)
		w->rc = nxsim_tlb_invlpg(w->tlb, w->cpu, KVA + (i << 12));
	return NULL;
}

static void test_tlb_owner_threads(void **state)
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb *tlb;
	struct worker w[NR_THREADS];
	pthread_t th[NR_THREADS];
	struct nxsim_tlb_stats st, one;
	unsigned int i;

	nxsim_tlb_config_default(&cfg, NR_THREADS);
	assert_rc(nxsim_tlb_create(&cfg, &tlb), 0);
	for (i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .tlb = tlb, .cpu = i };
		assert_int_equal(pthread_create(&th[i], NULL, run_cpu, &w[i]),
				 0);
	}
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_rc(w[i].rc, 0);
	}
	/* Every CPU did the same thing: the same counters. */
	assert_rc(nxsim_tlb_stats(tlb, 0, &one), 0);
	assert_int_equal(one.walks, PAGES);
	assert_int_equal(one.invlpg, PAGES);
	assert_int_equal(one.hits[NXSIM_TLB_L1D] + one.hits[NXSIM_TLB_L2] +
				 one.misses,
			 PAGES * ROUNDS);
	assert_rc(nxsim_tlb_stats(tlb, -1, &st), 0);
	assert_int_equal(st.walks, NR_THREADS * PAGES);
	assert_int_equal(st.hits[NXSIM_TLB_L2],
			 NR_THREADS * one.hits[NXSIM_TLB_L2]);
	assert_int_equal(st.misses, NR_THREADS * one.misses);
	nxsim_tlb_destroy(tlb);
}

struct reenter {
	struct nxsim_tlb *tlb;
	int (*call)(struct nxsim_tlb *tlb);
};

static int lookup_cpu0(struct nxsim_tlb *tlb)
{
	return nxsim_tlb_lookup(tlb, 0, NXSIM_TLB_READ, KVA, NULL);
}

static int lookup_cpu1(struct nxsim_tlb *tlb)
{
	return nxsim_tlb_lookup(tlb, 1, NXSIM_TLB_READ, KVA, NULL);
}

static int flush_all_from1(struct nxsim_tlb *tlb)
{
	return nxsim_tlb_flush_all(tlb, 1);
}

static int call_back(void *ctx, const struct nxsim_tlb_slot *s)
{
	struct reenter *re = ctx;
	int rc = re->call(re->tlb);

	return rc == -ENOENT ? 0 : rc;
}

/* Dump CPU 0 and call @call from the callback; how did the child end? */
static int reenter_status(int (*call)(struct nxsim_tlb *tlb))
{
	struct nxsim_tlb_config cfg;
	struct nxsim_tlb_entry e = { .va = KVA, .page_shift = 12 };
	struct reenter re = { .call = call };
	int status;
	pid_t pid;

	nxsim_tlb_config_default(&cfg, 2);
	assert_rc(nxsim_tlb_create(&cfg, &re.tlb), 0);
	assert_rc(nxsim_tlb_fill(re.tlb, 0, NXSIM_TLB_READ, &e), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int n = nxsim_tlb_dump(re.tlb, 0, call_back, &re);

		_exit(n == 2 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	nxsim_tlb_destroy(re.tlb);
	return status;
}

static void test_tlb_owner_checked(void **state)
{
	int st;

#ifdef NDEBUG
	skip(); /* release builds trust the caller */
#endif
	st = reenter_status(lookup_cpu1); /* another CPU: allowed */
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = reenter_status(lookup_cpu0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
	st = reenter_status(flush_all_from1);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_owner_threads),
		cmocka_unit_test(test_tlb_owner_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
