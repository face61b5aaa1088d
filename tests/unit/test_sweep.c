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
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "common/test_util.h"
#include "core/compiler.h"
#include "sweep.h"

/* Loads @len bytes of @text; the message, if any, into @msg. */
static int load_n(struct nxsim__sweep *s, const char *text, size_t len,
		  char *msg, size_t size)
{
	FILE *f = fmemopen((void *)text, len, "r");
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

static int load(struct nxsim__sweep *s, const char *text, char *msg,
		size_t size)
{
	return load_n(s, text, strlen(text), msg, size);
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
	  "t.sweep:2: unknown directive \"foo\" (axis, seed, run, plugin)\n" },
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
	{ "seed -1\n", "t.sweep:1: usage: seed N (0 to 2^63 - 1)\n" },
	{ "seed 9223372036854775807\nrun x\n", "" },
	{ "seed 9223372036854775808\n",
	  "t.sweep:1: usage: seed N (0 to 2^63 - 1)\n" },
	{ "axis seed 1 x\n",
	  "t.sweep:1: seed \"x\" is not a number from 0 to 2^63 - 1\n" },
	/* a result line is JSON text: values are UTF-8 (NULs allowed) */
	{ "axis a \"\\xff\"\nrun x ${a}\n",
	  "t.sweep:1: axis \"a\": a value is not UTF-8 (result lines are JSON "
	  "text)\n" },
	{ "axis a \"\\0\" \"\xc3\xa9\"\nrun x ${a}\n", "" },
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
	size_t sel[1], len;
	char msg[128], params[64] = "", *buf;
	FILE *f;

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
	f = fmemopen(params, sizeof(params), "w");
	nxsim__sweep_params(&s, &job, f);
	fclose(f);
	assert_string_equal(params, " x=\"a b\\t\"");
	nxsim__sweep_free(&s);
}

/*
 * A NUL byte inside a quoted run line is part of the template, and the
 * lines after it are not lost; a value of any length goes in whole.
 */
static void test_sweep_script_bytes(void **state)
{
	static const char text[] =
		"axis a 1 2\nrun x \"\0\" ${a}\nrun y ${a}\n";
	static const char want[] = "x \"\0\" 2\ny 2\n";
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	size_t sel[1], len;
	char msg[128], *buf, *big;

	assert_rc(load_n(&s, text, sizeof(text) - 1, msg, sizeof(msg)), 0);
	job.sel = sel;
	nxsim__sweep_job(&s, 1, &job);
	assert_rc(nxsim__sweep_script(&s, &job, &buf, &len), 0);
	assert_int_equal(len, sizeof(want) - 1);
	assert_memory_equal(buf, want, len);
	free(buf);
	nxsim__sweep_free(&s);

	/* 6000 bytes quoted into the script, none cut */
	big = malloc(6100);
	assert_non_null(big);
	len = sprintf(big, "axis a \"");
	memset(big + len, 'q', 6000);
	big[len + 2999] = ' ';
	sprintf(big + len + 6000, "\"\nrun x ${a}\n");
	assert_rc(load(&s, big, msg, sizeof(msg)), 0);
	nxsim__sweep_job(&s, 0, &job);
	assert_rc(nxsim__sweep_script(&s, &job, &buf, &len), 0);
	assert_int_equal(len, 2 + 1 + 6000 + 1 + 1);
	assert_memory_equal(buf + 3, big + 8, 6000);
	free(buf);
	nxsim__sweep_free(&s);
	free(big);
}

/*
 * Values holding NULs: a NUL cannot stand for the end of a value in the
 * id, so (x="a\0y\0b", y="c") and (x="a", y="b\0y\0c") differ.
 */
static void test_sweep_ids_nul(void **state)
{
	static const char text[] = "axis x \"a\\0y\\0b\" a\n"
				   "axis y c \"b\\0y\\0c\"\nrun x ${x} ${y}\n";
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	size_t sel[2];
	uint64_t first;
	char msg[128];

	assert_rc(load(&s, text, msg, sizeof(msg)), 0);
	job.sel = sel;
	nxsim__sweep_job(&s, 0, &job); /* x="a\0y\0b" y="c" */
	first = job.id;
	nxsim__sweep_job(&s, 3, &job); /* x="a" y="b\0y\0c" */
	assert_true(first != job.id);
	nxsim__sweep_free(&s);
}

/*
 * The job's line with its "commit" value (empty in a tree without git)
 * replaced by "C" and its "costs" (the last member) left out; the line's
 * "costs" into *@costs if asked.
 */
static char *run_line_costs(const char *text, uint64_t index, int rc_want,
			    json_t **costs)
{
	struct nxsim__sweep s;
	struct nxsim__sweep_job job;
	size_t sel[4];
	char msg[128], *line, *out, *c, *end;
	json_t *o;
	uint64_t id;

	assert_rc(load(&s, text, msg, sizeof(msg)), 0);
	job.sel = sel;
	nxsim__sweep_job(&s, index, &job);
	assert_rc(nxsim__sweep_run_job(&s, &job, &line), rc_want);
	/* valid JSON, whatever it holds */
	assert_rc(nxsim__sweep_line_id(line, strlen(line), &id, &o, msg,
				       sizeof(msg)),
		  0);
	assert_int_equal(id, job.id);
	if (costs)
		*costs = json_incref(json_object_get(o, "costs"));
	json_decref(o);
	c = strstr(line, "\"commit\":\"");
	assert_non_null(c);
	c += 10;
	end = strchr(c, '"');
	assert_non_null(end);
	assert_true(asprintf(&out, "%.*sC%s", (int)(c - line), line, end) > 0);
	free(line);
	c = strstr(out, ",\"costs\":{\"xpfo\":{");
	assert_non_null(c);
	strcpy(c, "}\n");
	nxsim__sweep_free(&s);
	return out;
}

static char *run_line(const char *text, uint64_t index, int rc_want)
{
	return run_line_costs(text, index, rc_want, NULL);
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
	  "\"error\":\"job:2: expectation failed\\n  want: OK "
	  "profile=5.4\\n  got:  OK profile=6.18\","
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
	/* spaced as Python's json.dumps() writes it: the same line */
	{ "{\"x\": 1, \"id\": \"0123456789abcdef\"}\n", 0,
	  0x0123456789abcdefull },
	/* cut in the middle, or more than one value: not a line */
	{ "{\"id\":\"0123456789abcdef\",\"x\":", -EINVAL },
	{ "{\"id\":\"0123456789abcdef\"}{}", -EINVAL },
	{ "[\"0123456789abcdef\"]", -EINVAL },
	{ "{\"id\":81985529216486895}", -EINVAL },
	{ "", -EINVAL },
};

static void test_sweep_line_id(void **state)
{
	uint64_t id;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(id_cases); i++) {
		const char *l = id_cases[i].line;

		char why[160];

		assert_rc(nxsim__sweep_line_id(l, strlen(l), &id, NULL, why,
					       sizeof(why)),
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
	assert_string_equal(msg, "r.jsonl:2: not JSON: '[' or '{' expected "
				 "near 'hello' (column 5)\n");
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
	snprintf(want, sizeof(want),
		 "%s:2: not JSON: '[' or '{' expected near 'not' (column 3)\n",
		 paths[1]);
	assert_string_equal(msg, want);
	assert_int_equal(access(out, F_OK), -1);
	nxsim__sweep_free(&s);
	unlink(paths[0]);
	unlink(paths[1]);
	free(paths[0]);
	free(paths[1]);
	free(out);
}

/* merge @n paths into @out; the report into @msg */
static int merge_into(char **paths, int n, const char *out, char *msg,
		      size_t size, struct nxsim__sweep_merge_stats *st)
{
	struct nxsim__sweep s;
	FILE *e;
	int rc;

	assert_rc(load(&s, MERGE_SWEEP, msg, size), 0);
	e = fmemopen(msg, size, "w");
	assert_non_null(e);
	rc = nxsim__sweep_merge(&s, paths, n, out, e, st);
	fclose(e);
	nxsim__sweep_free(&s);
	return rc;
}

/*
 * An output that is also an input is refused before anything is written;
 * a failed merge leaves the output as it was; lines spaced differently
 * are the same line; no lines at all is four jobs missing; 100 inputs
 * merge under a limit of 32 open files.
 */
static void test_sweep_merge_safety(void **state)
{
	struct nxsim__sweep_merge_stats st;
	struct rlimit lim, low;
	char line[256], msg[1024], want[512], *paths[100], *out, *text;
	uint64_t ids[4];
	int i;

	merge_ids(ids);
	snprintf(line, sizeof(line), "{\"id\":\"%016llx\",\"j\":[0,1]}\n",
		 (unsigned long long)ids[0]);
	paths[0] = tmp_file(line);
	snprintf(line, sizeof(line), "{\"j\": [0, 1], \"id\": \"%016llx\"}\n",
		 (unsigned long long)ids[0]);
	paths[1] = tmp_file(line);
	assert_rc(merge_into(paths, 2, paths[0], msg, sizeof(msg), &st),
		  -EINVAL);
	snprintf(want, sizeof(want), "%s: the output is also an input (%s)\n",
		 paths[0], paths[0]);
	assert_string_equal(msg, want);
	text = slurp(paths[0]);
	snprintf(line, sizeof(line), "{\"id\":\"%016llx\",\"j\":[0,1]}\n",
		 (unsigned long long)ids[0]);
	assert_string_equal(text, line);
	free(text);

	/* re-spaced, reordered: identical; the first file's bytes win */
	out = tmp_file("old\n");
	assert_rc(merge_into(paths, 2, out, msg, sizeof(msg), &st), 0);
	assert_int_equal(st.duplicated, 1);
	assert_non_null(strstr(msg, "(2 lines, identical)"));
	text = slurp(out);
	assert_string_equal(text, line);
	free(text);

	/* a line cut short: refused, the output as it was */
	unlink(out);
	free(out);
	out = tmp_file("old\n");
	unlink(paths[1]);
	free(paths[1]);
	paths[1] = tmp_file("{\"id\":\"0000000000000001\",\"j\":\n");
	assert_rc(merge_into(paths, 2, out, msg, sizeof(msg), &st), -EINVAL);
	text = slurp(out);
	assert_string_equal(text, "old\n");
	free(text);
	unlink(paths[0]);
	unlink(paths[1]);
	free(paths[0]);
	free(paths[1]);

	/* no line at all */
	paths[0] = tmp_file("");
	assert_rc(merge_into(paths, 1, out, msg, sizeof(msg), &st), 0);
	assert_int_equal(st.merged, 0);
	assert_int_equal(st.missing, 4);
	unlink(paths[0]);
	free(paths[0]);

	/* more inputs than open files */
	for (i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "{\"id\":\"%016llx\"}\n",
			 (unsigned long long)ids[i % 4]);
		paths[i] = tmp_file(line);
	}
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &lim), 0);
	low = lim;
	low.rlim_cur = 32;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	i = merge_into(paths, 100, out, msg, sizeof(msg), &st);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
	assert_rc(i, 0);
	assert_int_equal(st.merged, 4);
	assert_int_equal(st.duplicated, 96);
	for (i = 0; i < 100; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	unlink(out);
	free(out);
}

/*
 * Every line records the cost tables its job charged: the defaults, or
 * those of its last xpfo workload (cost.walk=50% is 10 cycles) and
 * bringup run.
 */
static void test_sweep_costs(void **state)
{
	const struct nxsim_stat_desc *d;
	struct nxsim_bringup_costs bc;
	json_t *costs, *x, *b;
	const char *name;
	uint32_t cycles;
	unsigned int i;
	char *line;

	nxsim_bringup_costs_default(&bc);
	line = run_line_costs("run xpfo costs\n", 0, 0, &costs);
	free(line);
	x = json_object_get(costs, "xpfo");
	b = json_object_get(costs, "bringup");
	for (i = 0; !nxsim_xpfo_cost_info(i, &name, &cycles, NULL); i++)
		assert_int_equal(json_integer_value(json_object_get(x, name)),
				 cycles);
	assert_int_equal(json_object_size(x), i);
	for (i = 0; (d = nxsim_stats_desc(NXSIM_STATS_BRINGUP_COSTS, i)); i++)
		assert_true(json_number_value(json_object_get(b, d->name)) ==
			    nxsim_stat_double(d, &bc));
	assert_int_equal(json_object_size(b), i);
	json_decref(costs);

	line = run_line_costs("run xpfo workload compile events=10 "
			      "cost.walk=50% cost.invlpg=7\n",
			      0, 0, &costs);
	free(line);
	x = json_object_get(costs, "xpfo");
	assert_int_equal(json_integer_value(json_object_get(x, "walk")), 10);
	assert_int_equal(json_integer_value(json_object_get(x, "invlpg")), 7);
	json_decref(costs);
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
		cmocka_unit_test(test_sweep_script_bytes),
		cmocka_unit_test(test_sweep_ids_nul),
		cmocka_unit_test(test_sweep_run_job),
		cmocka_unit_test(test_sweep_line_id),
		cmocka_unit_test(test_sweep_done_load),
		cmocka_unit_test(test_sweep_merge),
		cmocka_unit_test(test_sweep_merge_safety),
		cmocka_unit_test(test_sweep_costs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
