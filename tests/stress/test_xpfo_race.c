// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public XPFO calls from several threads at once, one thread per simulated
 * CPU, on frames of their own and reading each other's through the
 * physmap: the machine lock keeps every counter exact.  Run under TSan
 * (label "race").
 */
#include <pthread.h>

#include "common/test_util.h"

#define THREADS 4
#define ROUNDS 2000
#define FRAMES_PER 64

struct worker {
	struct nxsim_xpfo *m;
	unsigned int cpu;
	int rc;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned int i;

	for (i = 0; i < ROUNDS && !w->rc; i++) {
		uint64_t pfn = w->cpu * FRAMES_PER + i % FRAMES_PER;
		uint64_t other =
			((w->cpu + 1) % THREADS) * FRAMES_PER + i % FRAMES_PER;

		w->rc = nxsim_xpfo_alloc_user(w->m, w->cpu, pfn,
					      (uint16_t)(w->cpu + 1), 0);
		w->rc = w->rc ?: nxsim_xpfo_kmap(w->m, w->cpu, pfn);
		w->rc = w->rc ?:
				nxsim_xpfo_kernel_access(w->m, w->cpu, pfn,
							 true, NULL);
		w->rc = w->rc ?: nxsim_xpfo_kunmap(w->m, w->cpu, pfn);
		w->rc = w->rc ?:
				nxsim_xpfo_kernel_access(w->m, w->cpu, other,
							 false, NULL);
		w->rc = w->rc ?: nxsim_xpfo_free(w->m, w->cpu, pfn);
	}
	return NULL;
}

static void test_xpfo_race(void **state)
{
	static const char *const policies[] = { "eager", "deferred", "none" };
	unsigned int p, i;

	for (p = 0; p < 3; p++) {
		struct nxsim_xpfo_config cfg = {
			.nr_cpus = THREADS,
			.nr_frames = 1024,
			.version = NXSIM_XPFO_V8,
			.policy = policies[p],
		};
		struct worker w[THREADS];
		pthread_t t[THREADS];
		struct nxsim_xpfo_result r;
		struct nxsim_xpfo_frame_info fi;

		assert_rc(nxsim_xpfo_create(&cfg, &w[0].m), 0);
		for (i = 0; i < THREADS; i++) {
			w[i] = (struct worker){ .m = w[0].m, .cpu = i };
			assert_int_equal(
				pthread_create(&t[i], NULL, work, &w[i]), 0);
		}
		for (i = 0; i < THREADS; i++) {
			pthread_join(t[i], NULL);
			assert_rc(w[i].rc, 0);
		}
		assert_rc(nxsim_xpfo_result(w[0].m, &r), 0);
		assert_int_equal(r.events, 6ull * ROUNDS * THREADS);
		assert_int_equal(r.xpfo.alloc_user, ROUNDS * THREADS);
		assert_int_equal(r.xpfo.frees, ROUNDS * THREADS);
		assert_int_equal(r.xpfo.kunmaps, ROUNDS * THREADS);
		assert_int_equal(r.xpfo.kernel_accesses,
				 2ull * ROUNDS * THREADS);
		assert_int_equal(r.oracle.kmap_windows, ROUNDS * THREADS);
		for (i = 0; i < THREADS * FRAMES_PER; i++) {
			assert_rc(nxsim_xpfo_frame(w[0].m, i, &fi), 0);
			assert_int_equal(fi.owner, NXSIM_XPFO_FREE);
			assert_int_equal(fi.kmap_count, 0);
			assert_false(fi.unmapped);
		}
		nxsim_xpfo_destroy(w[0].m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xpfo_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
