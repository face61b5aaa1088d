// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-sweep's library half (tools/sweep/): sweep files accepted and
 * refused with the line named, the expansion order and the job ids
 * (FNV-1a 64 of the parameters, pinned against an independent
 * computation), shard specs and sizes, the job scripts with their
 * values quoted, job lines for jobs that succeed, answer ERR or fail an
 * expect, result-line ids, --resume's reading of a cut file, and merge's
 * report of missing, duplicated and unknown jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/test_util.h"
#include "core/compiler.h"
#include "sweep.h"

/* Loads @text; the message, if any, into @msg. */
static int load(struct nxsim__sweep *s, const char *text, char *msg,
		size_t size)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	FILE *e = fmemopen(msg, size, "w");
	int rc;

	assert_non_null(f);
	assert_non_null(e);
	memset(msg, 0, size);
	rc = nxsim__sweep_load(s, f, "t.sweep", e);
	fclose(e);
	fclose(f);
	return rc;
}

static const struct {
	const char *text;
	const char *msg; /* what stderr says; "" for success */
} load_cases[] = {
	{ "axis a 1 2\nrun x ${a}\n", "" },
	{ "# c\n\naxis a \"1 2\" 3 # c\nseed 5\nrun x ${a} ${seed}\n", "" },
	{ "run xpfo costs\n", "" },
	{ "axis seed 1 2\nrun x ${seed}\n", "" },
	{ "axis a 1\nfoo bar\nrun x ${a}\n",
	  "t.sweep:2: unknown directive \"foo\" (axis, seed, run)\n" },
	{ "axis\n", "t.sweep:1: axis needs a NAME and values\n" },
	{ "axis a\nrun x\n", "t.sweep:1: axis \"a\" has no values\n" },
	{ "axis 1a 1\n",
	  "t.sweep:1: bad axis name \"1a\" (letters, digits, _)\n" },
	{ "axis a-b 1\n",
	  "t.sweep:1: bad axis name \"a-b\" (letters, digits, _)\n" },
	{ "axis a 1\naxis a 2\n", "t.sweep:2: axis \"a\" declared twice\n" },
	{ "axis a 1 2 1\n", "t.sweep:1: value \"1\" given twice\n" },
	{ "axis a 1\nrun x ${b}\n", "t.sweep:2: ${b}: no such axis\n" },
	{ "axis a 1\nrun x ${a\n", "t.sweep:2: unterminated ${\n" },
	{ "axis a 1\naxis b 1 2\nrun x ${b}\n",
	  "t.sweep:1: axis \"a\" is not used by any run line\n" },
	{ "axis a 1\n", "t.sweep:1: no run line\n" },
	{ "\n", "t.sweep:1: no run line\n" },
	{ "run\n", "t.sweep:1: run needs a command\n" },
	{ "run x\naxis a 1\n", "t.sweep:2: axis after the first run line\n" },
	{ "seed 1\nseed 2\n", "t.sweep:2: seed given twice\n" },
	{ "seed -1\n", "t.sweep:1: usage: seed N\n" },
	{ "seed 18446744073709551616\n", "t.sweep:1: usage: seed N\n" },
	{ "axis seed 1 x\n", "t.sweep:1: seed \"x\" is not a number\n" },
	{ "seed 1\naxis seed 2\n", "t.sweep:2: seed given twice\n" },
	{ "axis a \"1\n", "t.sweep:1: unterminated string\n" },
};

static void test_sweep_load(void **state)
{
	struct nxsim__sweep s;
	char msg[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(load_cases); i++) {
		int rc = load(&s, load_cases[i].text, msg, sizeof(msg));

		assert_string_equal(msg, load_cases[i].msg);
		assert_rc(rc, load_cases[i].msg[0] ? -EINVAL : 0);
		if (!rc)
			nxsim__sweep_free(&s);
		else
			assert_null(s.axes);
	}
}

/*
 * 65 axes of 2 values: the 64th from the end (line 2) makes 2^64 jobs;
 * 62 values fill an axis line, 63 are too many.
 */
static void test_sweep_too_many_jobs(void **state)
{
	char *text = malloc(65 * 20 + 65 * 8 + 16), msg[256];
	struct nxsim__sweep s;
	size_t n = 0;
	int i;

	assert_non_null(text);
	for (i = 0; i < 65; i++)
		n += sprintf(text + n, "axis a%d 0 1\n", i);
	n += sprintf(text + n, "run x ");
	for (i = 0; i < 65; i++)
		n += sprintf(text + n, "${a%d}", i);
	sprintf(text + n, "\n");
	assert_rc(load(&s, text, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "t.sweep:2: too many jobs\n");

	/* one line holds 64 words: "axis", a name and 62 values */
	n = sprintf(text, "axis a");
	for (i = 0; i < 62; i++)
		n += sprintf(text + n, " %d", i);
	sprintf(text + n, "\nrun x ${a}\n");
	assert_rc(load(&s, text, msg, sizeof(msg)), 0);
	assert_int_equal(s.nr_jobs, 62);
	nxsim__sweep_free(&s);
	sprintf(text + n, " 62\nrun x ${a}\n");
	assert_rc(load(&s, text, msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "t.sweep:1: too many words (an axis holds at "
				 "most 62 values)\n");
	free(text);
}

/* The last axis varies fastest; ids follow the parameters, not the order. */
static void test_sweep_expansion(void **state)
{
	static const char *const want[6][2] = {
		{ "eager", "1" },    { "eager", "2" }, { "deferred", "1" },
		{ "deferred", "2" }, { "none", "1" },  { "none", "2" },
	};
	struct nxsim__sweep s, t;
	struct nxsim__sweep_job job, job2;
	size_t sel[2], sel2[2];
	char msg[128];
	uint64_t i, j;

	assert_rc(load(&s,
		       "axis policy eager deferred none\naxis cpus 1 2\n"
		       "seed 7\nrun x ${policy} ${cpus}\n",
		       msg, sizeof(msg)),
		  0);
	assert_rc(load(&t,
		       "axis policy none eager deferred\naxis cpus 2 1\n"
		       "seed 7\nrun y ${cpus} ${policy}\n",
		       msg, sizeof(msg)),
		  0);
	assert_int_equal(s.nr_jobs, 6);
	job.sel = sel;
	job2.sel = sel2;
	for (i = 0; i < 6; i++) {
		nxsim__sweep_job(&s, i, &job);
		assert_int_equal(job.index, i);
		assert_int_equal(job.seed, 7);
		assert_string_equal(s.axes[0].vals[sel[0]].s, want[i][0]);
		assert_string_equal(s.axes[1].vals[sel[1]].s, want[i][1]);
		for (j = 0; j < 6; j++) {
			nxsim__sweep_job(&t, j, &job2);
			if (!strcmp(t.axes[0].vals[sel2[0]].s, want[i][0]) &&
			    !strcmp(t.axes[1].vals[sel2[1]].s, want[i][1]))
				break;
		}
		assert_true(j < 6);
		assert_int_equal(job.id, job2.id);
	}
	/* FNV-1a 64 of "policy\0eager\0cpus\0001\0seed\0007\0" */
	nxsim__sweep_job(&s, 0, &job);
	assert_int_equal(job.id, 0x24d619b9fabd4581ull);
	nxsim__sweep_free(&s);
	nxsim__sweep_free(&t);
}

/* A seed axis is the job's seed and is hashed in axis order. */
static void test_sweep_seed_axis(void **state)
{
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	size_t sel[2];
	char msg[128];

	assert_rc(load(&s, "axis seed 8 9\naxis x 1 2\nrun x ${x} ${seed}\n",
		       msg, sizeof(msg)),
		  0);
	job.sel = sel;
	nxsim__sweep_job(&s, 3, &job);
	assert_int_equal(job.seed, 9);
	/* FNV-1a 64 of "seed\0009\0x\0002\0" */
	assert_int_equal(job.id, 0xf04f6dfd3606624full);
	nxsim__sweep_free(&s);
}

static const struct {
	const char *spec;
	int rc;
	uint64_t k, n;
} shard_cases[] = {
	{ "0/1", 0, 0, 1 },
	{ "2/3", 0, 2, 3 },
	{ "4294967295/4294967296", 0, 4294967295ull, 4294967296ull },
	{ "0/0", -EINVAL },
	{ "3/2", -EINVAL },
	{ "2/2", -EINVAL },
	{ "-1/4", -EINVAL },
	{ "1/-4", -EINVAL },
	{ "1/", -EINVAL },
	{ "/4", -EINVAL },
	{ "1", -EINVAL },
	{ "a/b", -EINVAL },
	{ "1/4x", -EINVAL },
	{ " 1/4", -EINVAL },
	{ "1/2/3", -EINVAL },
	{ "0/4294967297", -EINVAL },
	{ "18446744073709551616/1", -EINVAL },
};

static void test_sweep_shard_spec(void **state)
{
	const char *why = NULL;
	uint64_t k, n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shard_cases); i++) {
		int rc = nxsim__sweep_shard(shard_cases[i].spec, &k, &n, &why);

		assert_rc(rc, shard_cases[i].rc);
		if (!rc) {
			assert_int_equal(k, shard_cases[i].k);
			assert_int_equal(n, shard_cases[i].n);
		}
	}
	nxsim__sweep_shard("3/2", &k, &n, &why);
	assert_string_equal(why, "K must be 0 to N-1");
	nxsim__sweep_shard("0/0", &k, &n, &why);
	assert_string_equal(why, "N must be 1 to 4294967296");
}

/* The shards of N hold every job once: indices k, k + N, ... */
static void test_sweep_shard_sizes(void **state)
{
	uint64_t total, k, n, sum;

	for (total = 0; total < 12; total++) {
		for (n = 1; n < 6; n++) {
			for (sum = 0, k = 0; k < n; k++) {
				uint64_t sz =
					nxsim__sweep_shard_size(total, k, n);

				assert_true(!sz || k + (sz - 1) * n < total);
				assert_true(k + sz * n >= total);
				sum += sz;
			}
			assert_int_equal(sum, total);
		}
	}
}

/* Values go into the script as the driver writes them. */
static void test_sweep_script(void **state)
{
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	struct nxsim__drv_reply r = { .len = 0 };
	size_t sel[1], len;
	char msg[128], *buf;

	assert_rc(load(&s,
		       "axis x 2 \"a b\\t\"\nseed 9\n"
		       "run host create h${x}\nrun seed=${seed} $x ${x}\n",
		       msg, sizeof(msg)),
		  0);
	job.sel = sel;
	nxsim__sweep_job(&s, 1, &job);
	assert_rc(nxsim__sweep_script(&s, &job, &buf, &len), 0);
	assert_string_equal(buf, "host create h\"a b\\t\"\n"
				 "seed=9 $x \"a b\\t\"\n");
	assert_int_equal(len, strlen(buf));
	free(buf);
	nxsim__sweep_params(&s, &job, &r);
	assert_string_equal(r.buf, " x=\"a b\\t\"");
	nxsim__sweep_free(&s);
}

/* The line with its "commit" value replaced by "C". */
static char *run_line(const char *text, uint64_t index, int rc_want)
{
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	size_t sel[4];
	char msg[128], *line, *c, *end;

	assert_rc(load(&s, text, msg, sizeof(msg)), 0);
	job.sel = sel;
	nxsim__sweep_job(&s, index, &job);
	assert_rc(nxsim__sweep_run_job(&s, &job, &line), rc_want);
	c = strstr(line, "\"commit\":\"") + 10;
	end = strchr(c, '"');
	*c = 'C';
	memmove(c + 1, end, strlen(end) + 1);
	nxsim__sweep_free(&s);
	return line;
}

static const struct {
	const char *text;
	int rc;
	const char *line;
} job_cases[] = {
	/* results: one object per OK answer, numbers as numbers */
	{ "axis x \"a-b\" 2\nseed 9\nrun host create h${x}\n"
	  "run xpfo create m cpus=2\nrun xpfo result m\n",
	  0,
	  "{\"id\":\"a2022bf5407eb359\",\"params\":{\"x\":\"a-b\"},"
	  "\"seed\":9,\"version\":\"0.1.0\",\"commit\":\"C\","
	  "\"status\":\"ok\",\"results\":[{\"profile\":6.18},{},"
	  "{\"events\":0,\"ownership_changes\":0,"
	  "\"shootdowns_per_1k\":\"nan\",\"local_flushes_per_1k\":\"nan\","
	  "\"ipis_per_1k\":\"nan\",\"ipi_targets_per_1k\":\"nan\","
	  "\"broadcasts_per_1k\":\"nan\",\"policy_flushes_per_1k\":\"nan\","
	  "\"kernel_cycles\":0,\"user_cycles\":0,\"makespan_cycles\":0,"
	  "\"flush_cycles\":0,\"stale_reads\":0,\"stale_writes\":0,"
	  "\"stale_cross_domain\":0,\"faults\":0,\"exposures\":0,"
	  "\"reuse_hazards\":0}]}\n" },
	/* an ERR answer fails the job; the answers after it still count */
	{ "run xpfo workload bogus\nrun host create h\n", 1,
	  "{\"id\":\"f5bee57c8e11803d\",\"params\":{},\"seed\":1,"
	  "\"version\":\"0.1.0\",\"commit\":\"C\",\"status\":\"error\","
	  "\"error\":\"ERR -ENOENT line 1: unknown workload or policy "
	  "(xpfo workloads, xpfo policies)\",\"results\":[{\"profile\":6.18}]}"
	  "\n" },
	/* a failed expect fails it with the driver's message */
	{ "run host create h\nrun expect OK profile=5.4\n", 1,
	  "{\"id\":\"f5bee57c8e11803d\",\"params\":{},\"seed\":1,"
	  "\"version\":\"0.1.0\",\"commit\":\"C\",\"status\":\"error\","
	  "\"error\":\"job:2: expectation failed\\u000a  want: OK "
	  "profile=5.4\\u000a  got:  OK profile=6.18\","
	  "\"results\":[{\"profile\":6.18}]}\n" },
};

static void test_sweep_run_job(void **state)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(job_cases); i++) {
		char *line = run_line(job_cases[i].text, 0, job_cases[i].rc);

		assert_string_equal(line, job_cases[i].line);
		free(line);
	}
}

static const struct {
	const char *line;
	int rc;
	uint64_t id;
} id_cases[] = {
	{ "{\"id\":\"0123456789abcdef\",\"x\":1}\n", 0, 0x0123456789abcdefull },
	{ "{\"id\":\"ffffffffffffffff\"}", 0, UINT64_MAX },
	{ "{\"id\":\"0123456789ABCDEF\"}", -EINVAL },
	{ "{\"id\":\"0123456789abcde\"}", -EINVAL },
	{ "{\"id\":\"0123456789abcdef0\"}", -EINVAL },
	{ "{ \"id\":\"0123456789abcdef\"}", -EINVAL },
	{ "", -EINVAL },
};

static void test_sweep_line_id(void **state)
{
	uint64_t id;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(id_cases); i++) {
		const char *l = id_cases[i].line;

		assert_rc(nxsim__sweep_line_id(l, strlen(l), &id),
			  id_cases[i].rc);
		if (!id_cases[i].rc)
			assert_int_equal(id, id_cases[i].id);
	}
}

static char *tmp_file(const char *text)
{
	char *path = strdup("/tmp/test_sweep.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 4096);

	assert_non_null(f);
	assert_true(fread(buf, 1, 4095, f) < 4095);
	fclose(f);
	return buf;
}

/* --resume: the ids of the complete lines; a cut last line is dropped. */
static void test_sweep_done_load(void **state)
{
	char *path = tmp_file("{\"id\":\"0000000000000002\"}\n"
			      "{\"id\":\"0000000000000001\"}\n"
			      "{\"id\":\"00000000000");
	struct nxsim__sweep_done done;
	char msg[128] = "", *text;
	FILE *f = fopen(path, "a+"), *e = fmemopen(msg, sizeof(msg), "w");

	assert_rc(nxsim__sweep_done_load(&done, f, path, e), 0);
	assert_int_equal(done.nr, 2);
	assert_true(nxsim__sweep_done_has(&done, 1));
	assert_true(nxsim__sweep_done_has(&done, 2));
	assert_false(nxsim__sweep_done_has(&done, 3));
	fclose(f);
	free(done.ids);
	text = slurp(path);
	assert_string_equal(text, "{\"id\":\"0000000000000002\"}\n"
				  "{\"id\":\"0000000000000001\"}\n");
	free(text);
	unlink(path);
	free(path);

	path = tmp_file("{\"id\":\"0000000000000002\"}\nhello\n");
	f = fopen(path, "a+");
	assert_rc(nxsim__sweep_done_load(&done, f, "r.jsonl", e), -EINVAL);
	fclose(e);
	assert_string_equal(msg, "r.jsonl:2: not a result line\n");
	fclose(f);
	unlink(path);
	free(path);
}

/* The ids of jobs 0..3 of MERGE_SWEEP. */
#define MERGE_SWEEP "axis x 0 1 2 3\nrun x ${x}\n"

static void merge_ids(uint64_t *ids)
{
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	size_t sel[1];
	char msg[64];
	int i;

	assert_rc(load(&s, MERGE_SWEEP, msg, sizeof(msg)), 0);
	job.sel = sel;
	for (i = 0; i < 4; i++) {
		nxsim__sweep_job(&s, i, &job);
		ids[i] = job.id;
	}
	nxsim__sweep_free(&s);
}

/* Shards out of order, a duplicate, a different duplicate, a job missing
 * and one that is not in the sweep: the lines in job order, each reported. */
static void test_sweep_merge(void **state)
{
	struct nxsim__sweep_merge_stats st;
	struct nxsim__sweep s;
	uint64_t ids[4];
	char a[512], b[512], msg[512], want[512], *paths[2], *out, *text;
	FILE *e;

	merge_ids(ids);
	snprintf(a, sizeof(a),
		 "{\"id\":\"%016llx\",\"j\":2}\n{\"id\":\"%016llx\",\"j\":0}\n"
		 "{\"id\":\"00000000000000ff\"}\n",
		 (unsigned long long)ids[2], (unsigned long long)ids[0]);
	snprintf(b, sizeof(b),
		 "{\"id\":\"%016llx\",\"j\":0}\n{\"id\":\"%016llx\",\"j\":2}\n"
		 "{\"id\":\"%016llx\",\"j\":2,\"again\":1}\n",
		 (unsigned long long)ids[0], (unsigned long long)ids[2],
		 (unsigned long long)ids[2]);
	paths[0] = tmp_file(a);
	paths[1] = tmp_file(b);
	out = tmp_file("");
	assert_rc(load(&s, MERGE_SWEEP, msg, sizeof(msg)), 0);
	e = fmemopen(msg, sizeof(msg), "w");
	assert_rc(nxsim__sweep_merge(&s, paths, 2, out, e, &st), 0);
	fclose(e);
	assert_int_equal(st.merged, 2);
	assert_int_equal(st.missing, 2);
	assert_int_equal(st.duplicated, 3);
	assert_int_equal(st.unknown, 1);
	snprintf(want, sizeof(want),
		 "duplicated: %016llx (2 lines, identical)\n"
		 "missing: %016llx x=1\n"
		 "duplicated: %016llx (3 lines, DIFFERENT)\n"
		 "missing: %016llx x=3\n"
		 "not in the sweep: 00000000000000ff (%s)\n",
		 (unsigned long long)ids[0], (unsigned long long)ids[1],
		 (unsigned long long)ids[2], (unsigned long long)ids[3],
		 paths[0]);
	assert_string_equal(msg, want);
	text = slurp(out);
	snprintf(want, sizeof(want),
		 "{\"id\":\"%016llx\",\"j\":0}\n{\"id\":\"%016llx\",\"j\":2}\n",
		 (unsigned long long)ids[0], (unsigned long long)ids[2]);
	assert_string_equal(text, want);
	free(text);

	/* a line that is not a result: refused, the output not opened */
	unlink(out);
	unlink(paths[1]);
	free(paths[1]);
	paths[1] = tmp_file("{\"id\":\"0000000000000001\"}\nnot json\n");
	e = fmemopen(msg, sizeof(msg), "w");
	assert_rc(nxsim__sweep_merge(&s, paths, 2, out, e, &st), -EINVAL);
	fclose(e);
	snprintf(want, sizeof(want), "%s:2: not a result line\n", paths[1]);
	assert_string_equal(msg, want);
	assert_int_equal(access(out, F_OK), -1);
	nxsim__sweep_free(&s);
	unlink(paths[0]);
	unlink(paths[1]);
	free(paths[0]);
	free(paths[1]);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_load),
		cmocka_unit_test(test_sweep_too_many_jobs),
		cmocka_unit_test(test_sweep_expansion),
		cmocka_unit_test(test_sweep_seed_axis),
		cmocka_unit_test(test_sweep_shard_spec),
		cmocka_unit_test(test_sweep_shard_sizes),
		cmocka_unit_test(test_sweep_script),
		cmocka_unit_test(test_sweep_run_job),
		cmocka_unit_test(test_sweep_line_id),
		cmocka_unit_test(test_sweep_done_load),
		cmocka_unit_test(test_sweep_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
