// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guest workloads on vCPU TLBs (include/nxsim/workload.h): a lackey trace
 * replayed as one guest (kinds, regions, determinism, bad lines named),
 * synthetic guests under off / force / never, several vCPUs, the
 * huge-page-fraction samples, recovery during a run, and the
 * execute_perf_test shape of c4b33d28ea51 in tiny mode: the split (6.6)
 * is cheaper than the zap (6.1), with the counts each must take.
 */
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include <nxsim/nxsim.h>

#include "common/test_util.h"

#define MIB (1ull << 20)

static char fixture_dir[512];

static const char small_trace[] = "==1== Lackey, an example Valgrind tool\n"
				  "I  00400000,4\n"
				  " L 00600000,8\n"
				  " S 00600008,8\n"
				  " M 00600010,4\n"
				  "I  00400004,4\n"
				  "I  7ff000010,2\n";

static struct nxsim_trace *open_text(const char *text)
{
	struct nxsim_trace *t;

	assert_rc(nxsim_trace_open_buf(text, strlen(text), NXSIM_TRACE_LACKEY,
				       &t, NULL),
		  0);
	return t;
}

/* I = fetch, L = read, S = write, M = read + write; two 1 GiB regions. */
static void test_trace_kinds(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;
	struct nxsim_trace *t = open_text(small_trace);

	(void)state;
	nxsim_workload_config_default(&cfg);
	assert_rc(nxsim_workload_run_trace(&cfg, t, &res), 0);
	assert_int_equal(res.accesses, 7);
	assert_int_equal(res.exec, 3);
	/*
	 * Faults: the code 2M page (exec: 4K under force), the data 2M page
	 * (read, then the write needs no fault: the huge SPTE is writable),
	 * and the second region's code page.
	 */
	assert_int_equal(res.faults, 3);
	/* the store and the modify hit the read's writable entry */
	assert_int_equal(res.walks, 3);
	nxsim_trace_close(t);
}

/* The decoding: kinds in order, regions laid out by first use. */
static void test_trace_decode(void **state)
{
	static const uint8_t kinds[] = {
		NXSIM_ACCESS_EXEC, NXSIM_ACCESS_READ,  NXSIM_ACCESS_WRITE,
		NXSIM_ACCESS_READ, NXSIM_ACCESS_WRITE, NXSIM_ACCESS_EXEC,
		NXSIM_ACCESS_EXEC,
	};
	static const uint64_t gpas[] = { 0x400000,  0x600000, 0x600008,
					 0x600010,  0x600010, 0x400004,
					 0x7f000010 };
	struct nxsim_trace *t = open_text(small_trace);
	struct nxsim_guest_access *a;
	uint64_t mem;
	size_t n, i;

	(void)state;
	assert_rc(nxsim_workload_decode_trace(t, 2, &a, &n, &mem), 0);
	assert_int_equal(n, 7);
	assert_int_equal(mem, 2ull << 30);
	for (i = 0; i < n; i++) {
		assert_int_equal(a[i].kind, kinds[i]);
		assert_int_equal(a[i].gpa, gpas[i]);
		assert_int_equal(a[i].guest_level, 2);
	}
	nxsim_workload_accesses_free(a, n);
	assert_rc(nxsim_workload_decode_trace(t, 0, &a, &n, &mem), -EINVAL);
	nxsim_trace_close(t);
}

/* The same trace twice gives the same result, byte for byte. */
static void test_trace_deterministic(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result a, b;
	struct nxsim_trace *t;
	char path[600];

	(void)state;

	snprintf(path, sizeof(path), "%s/lackey-true.txt", fixture_dir);
	assert_rc(nxsim_trace_open(path, NXSIM_TRACE_AUTO, &t, NULL), 0);
	nxsim_workload_config_default(&cfg);
	cfg.nr_vcpus = 2;
	cfg.chunk = 1000;
	assert_rc(nxsim_workload_run_trace(&cfg, t, &a), 0);
	assert_rc(nxsim_trace_rewind(t), 0);
	assert_rc(nxsim_workload_run_trace(&cfg, t, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(a.accesses > 10000);
	assert_int_equal(a.accesses % 2, 0);
	assert_true(a.exec > 0 && a.exec < a.accesses);
	nxsim_trace_close(t);
}

/* A bad line: -EINVAL, and the trace's error names the line. */
static void test_trace_bad_line(void **state)
{
	static const char bad[] = "==1== Lackey\n"
				  "I  00400000,4\n"
				  " X 00600000,8\n";
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;
	struct nxsim_trace *t = open_text(bad);

	(void)state;
	nxsim_workload_config_default(&cfg);
	assert_rc(nxsim_workload_run_trace(&cfg, t, &res), -EINVAL);
	assert_non_null(strstr(nxsim_trace_error(t), "line 3"));
	nxsim_trace_close(t);
	/* no access at all */
	t = open_text("==1== Lackey\n");
	assert_rc(nxsim_workload_run_trace(&cfg, t, &res), -EINVAL);
	nxsim_trace_close(t);
	t = open_text(small_trace);
	cfg.guest_level = 4;
	assert_rc(nxsim_workload_run_trace(&cfg, t, &res), -EINVAL);
	cfg.guest_level = 1;
	cfg.nr_vcpus = 0;
	assert_rc(nxsim_workload_run_trace(&cfg, t, &res), -EINVAL);
	nxsim_trace_close(t);
}

static void synth_default(struct nxsim_workload_synth *s)
{
	memset(s, 0, sizeof(*s));
	s->seed = 42;
	s->accesses = 200000;
	s->code_bytes = 8 * MIB;
	s->data_bytes = 32 * MIB;
	s->exec_permille = 600;
	s->jump_permille = 20;
	s->far_permille = 50;
	s->write_permille = 300;
	s->jit_pages = 64;
}

/*
 * off and never map the same SPTEs (never hard-disables the mitigation),
 * so their results are equal; force splits every executed huge page and
 * costs more.
 */
static void test_synth_policies(void **state)
{
	static const char *const policy[] = { "off", "never", "force" };
	struct nxsim_workload_result res[3];
	struct nxsim_workload_config cfg;
	struct nxsim_workload_synth s;
	unsigned int p;

	(void)state;
	synth_default(&s);
	for (p = 0; p < 3; p++) {
		nxsim_workload_config_default(&cfg);
		cfg.nr_vcpus = 2;
		cfg.nx_huge_pages = policy[p];
		assert_rc(nxsim_workload_run_synth(&cfg, &s, &res[p]), 0);
		assert_int_equal(res[p].accesses, 2 * s.accesses);
		printf("# %s: cycles %llu faults %llu splits %llu walks %llu\n",
		       policy[p], (unsigned long long)res[p].cycles,
		       (unsigned long long)res[p].faults,
		       (unsigned long long)res[p].splits,
		       (unsigned long long)res[p].walks);
	}
	assert_memory_equal(&res[0], &res[1], sizeof(res[0]));
	assert_int_equal(res[0].splits, 0);
	assert_true(res[2].splits > 0);
	assert_true(res[2].walks > res[0].walks);
	assert_true(res[2].cycles > res[0].cycles);
	assert_true(res[2].huge_fraction < res[0].huge_fraction);
}

struct samples {
	unsigned int n;
	uint64_t last;
};

static void on_sample(void *ctx, uint64_t accesses, double frac)
{
	struct samples *s = ctx;

	assert_true(accesses > s->last);
	assert_true(frac >= 0 && frac <= 1);
	s->last = accesses;
	s->n++;
}

/* Samples every 100000 accesses; recovery runs as guest time passes. */
static void test_samples_recovery(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;
	struct nxsim_workload_synth s;
	struct samples sm = { 0 };

	(void)state;
	synth_default(&s);
	s.accesses = 1000000;
	s.jit_pages = 256;
	nxsim_workload_config_default(&cfg);
	cfg.recovery_ratio = 1;
	cfg.recovery_period_ms = 1;
	cfg.ghz = 1; /* about 10 ms of guest time: jiffies of 4 ms at HZ=250 */
	cfg.chunk = 10000;
	cfg.sample_every = 100000;
	cfg.sample = on_sample;
	cfg.sample_ctx = &sm;
	assert_rc(nxsim_workload_run_synth(&cfg, &s, &res), 0);
	printf("# cycles %llu faults %llu recovery_zapped %llu flushes %llu\n",
	       (unsigned long long)res.cycles, (unsigned long long)res.faults,
	       (unsigned long long)res.recovery_zapped,
	       (unsigned long long)res.remote_flushes);
	assert_int_equal(sm.n, 10);
	assert_true(res.recovery_zapped > 0);
	assert_true(res.remote_flushes > 0);
	assert_true(res.vcpu_flushes >= res.remote_flushes);
}

/*
 * execute_perf_test in tiny mode: 4 vCPUs x 8 MiB of 2M-backed memory,
 * written then executed once.  6.1 zaps each 2M page at the first fetch
 * and faults on every 4K page; 6.6 splits it once and its 4K children are
 * executable.  Only the ordering of the costs is a claim about the kernel.
 */
static void test_execute_tiny(void **state)
{
	struct nxsim_workload_result zap, split;
	struct nxsim_workload_config cfg;

	(void)state;
	nxsim_workload_config_default(&cfg);
	cfg.nr_vcpus = 4;
	cfg.profile = "6.1";
	assert_rc(nxsim_workload_run_execute(&cfg, 8 * MIB, &zap), 0);
	cfg.profile = "6.6";
	assert_rc(nxsim_workload_run_execute(&cfg, 8 * MIB, &split), 0);
	assert_true(split.phase_cycles < zap.phase_cycles);
	/* 16 huge pages: populate faults 16, then 16 zaps + 8192 faults */
	assert_int_equal(zap.huge_zaps, 16);
	assert_int_equal(zap.faults, 16 + 4 * 2048);
	assert_int_equal(split.splits, 16);
	assert_int_equal(split.faults, 16 + 16);
	assert_int_equal(zap.accesses, 2 * 4 * 2048);
	assert_rc(nxsim_workload_run_execute(&cfg, 4095, &zap), -EINVAL);
	assert_rc(nxsim_workload_run_execute(NULL, 4096, &zap), -EINVAL);
}

/* Allocation failures of a run: -ENOMEM or success, nothing leaked. */
static void test_alloc_failure_walk(void **state)
{
	struct nxsim_workload_config cfg;
	struct nxsim_workload_result res;
	struct nxsim_workload_synth s;
	unsigned long nth;
	bool done = false;
	int rc;

	(void)state;
	synth_default(&s);
	s.accesses = 2000;
	nxsim_workload_config_default(&cfg);
	cfg.nr_vcpus = 2;
	for (nth = 1; !done; nth++) {
		struct nxsim_trace *t = open_text(small_trace);

		nxsim_alloc_fail_nth(nth);
		rc = nxsim_workload_run_trace(&cfg, t, &res);
		if (!rc)
			rc = nxsim_workload_run_synth(&cfg, &s, &res);
		done = !rc && nxsim_alloc_fail_pending();
		nxsim_alloc_fail_nth(0);
		assert_true(rc == 0 || rc == -ENOMEM);
		nxsim_trace_close(t);
	}
	assert_true(nth > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_kinds),
		cmocka_unit_test(test_trace_decode),
		cmocka_unit_test(test_trace_deterministic),
		cmocka_unit_test(test_trace_bad_line),
		cmocka_unit_test(test_synth_policies),
		cmocka_unit_test(test_samples_recovery),
		cmocka_unit_test(test_execute_tiny),
		cmocka_unit_test(test_alloc_failure_walk),
	};
	char file[] = __FILE__;

	/* tests/integration/test_guest_workload.c -> tests/fixtures */
	snprintf(fixture_dir, sizeof(fixture_dir), "%s/../fixtures",
		 dirname(file));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
