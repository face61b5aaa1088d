// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-sweep's thread pool (tools/sweep/pool.c) under real threads: 4
 * and 7 threads write the bytes one thread writes, in job order, with
 * jobs of unequal length (1 to 8 CPUs) so threads finish out of order
 * and wait on the window; with --resume's skip set the lines of the
 * skipped jobs are left out and nothing else changes; a shard on 3
 * threads writes the lines of its jobs.  Run under ThreadSanitizer in CI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/test_util.h"
#include "sweep.h"

static const char grid[] =
	"axis cpus 8 1 2 4\n"
	"axis seed 1 2 3 4 5 6\n"
	"run xpfo workload compile policy=eager cpus=${cpus} events=30 "
	"seed=${seed}\n";

static void load(struct nxsim__sweep *s)
{
	FILE *f = fmemopen((void *)grid, strlen(grid), "r");

	assert_non_null(f);
	assert_rc(nxsim__sweep_load(s, f, "grid", stderr), 0);
	fclose(f);
}

/* The output of a run of @threads threads over shard @k of @n. */
static char *run(const struct nxsim__sweep *s,
		 const struct nxsim__sweep_done *done, unsigned int threads,
		 uint64_t k, uint64_t n)
{
	struct nxsim__sweep_pool p = { .s = s, .done = done, .k = k, .n = n };
	char *buf;
	size_t len;

	p.out = open_memstream(&buf, &len);
	assert_non_null(p.out);
	assert_rc(nxsim__sweep_run(&p, threads), 0);
	assert_int_equal(p.failed, 0);
	assert_int_equal(p.written, p.nr);
	fclose(p.out);
	return buf;
}

static void test_sweep_pool_order(void **state)
{
	struct nxsim__sweep_done none = { 0 };
	struct nxsim__sweep s;
	char *one, *four, *seven;

	load(&s);
	one = run(&s, &none, 1, 0, 1);
	four = run(&s, &none, 4, 0, 1);
	seven = run(&s, &none, 7, 0, 1);
	assert_string_equal(four, one);
	assert_string_equal(seven, one);
	free(one);
	free(four);
	free(seven);
	nxsim__sweep_free(&s);
}

/* The lines of @all whose index is k mod n (or, with @skip, is not). */
static char *pick(const char *all, uint64_t k, uint64_t n, bool skip)
{
	char *out = calloc(1, strlen(all) + 1), *o = out;
	const char *p = all, *nl;
	uint64_t i;

	for (i = 0; (nl = strchr(p, '\n')); i++, p = nl + 1)
		if ((i % n == k) != skip) {
			memcpy(o, p, nl + 1 - p);
			o += nl + 1 - p;
		}
	return out;
}

static void test_sweep_pool_resume_and_shard(void **state)
{
	struct nxsim__sweep_done none = { 0 }, done = { 0 };
	struct nxsim__sweep_job job;
	struct nxsim__sweep s;
	char *all, *got, *want;
	size_t sel[2];
	uint64_t i;

	load(&s);
	all = run(&s, &none, 1, 0, 1);

	/* every third job done already: the rest, in order */
	job.sel = sel;
	done.ids = calloc(s.nr_jobs, sizeof(*done.ids));
	for (i = 0; i < s.nr_jobs; i += 3) {
		nxsim__sweep_job(&s, i, &job);
		done.ids[done.nr++] = job.id;
	}
	qsort(done.ids, done.nr, sizeof(*done.ids), nxsim__sweep_cmp_id);
	got = run(&s, &done, 4, 0, 1);
	want = pick(all, 0, 3, true);
	assert_string_equal(got, want);
	free(got);
	free(want);

	/* shard 1 of 3 on 3 threads */
	got = run(&s, &none, 3, 1, 3);
	want = pick(all, 1, 3, false);
	assert_string_equal(got, want);
	free(got);
	free(want);

	free(done.ids);
	free(all);
	nxsim__sweep_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_pool_order),
		cmocka_unit_test(test_sweep_pool_resume_and_shard),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
