// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-bench: run the registered benchmarks, each figure beside a
 * reference measured in the same run, and write the summary table
 * (stdout), results.jsonl and plots (--out, default bench-results/).
 *
 *   nxsim-bench [--quick | --full | --tiny] [--seed N]
 *		 [--only NAME[,NAME...]] [--out DIR] [--compare OLD.jsonl]
 *		 [--baseline[=FILE]] [--fail-on-miss] [--list] [--version]
 *   nxsim-bench --compare OLD.jsonl --against NEW.jsonl
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nxsim/common.h>

#include "harness.h"
#include "runinfo.h"

/* Room for this many registered benchmarks in --only. */
#define MAX_BENCHES 64

/* Exit status of --fail-on-miss when a target was missed. */
#define EXIT_MISSED 3

static void usage(FILE *f)
{
	fprintf(f,
		"usage: nxsim-bench [--quick|--full|--tiny] [--seed N]\n"
		"                   [--only NAME[,NAME...]] [--out DIR]\n"
		"                   [--compare OLD.jsonl] [--baseline[=FILE]] "
		"[--fail-on-miss]\n"
		"       nxsim-bench --compare OLD.jsonl --against NEW.jsonl\n"
		"       nxsim-bench --list | --version | --help\n"
		"  --quick         every benchmark, reduced matrix (default; "
		"< 3 min on 2 cores)\n"
		"  --full          the whole matrix\n"
		"  --tiny          seconds; proves every benchmark runs\n"
		"  --seed N        seed for every random choice (default 1)\n"
		"  --only A,B      run only these benchmarks (see --list)\n"
		"  --out DIR       results.jsonl, summary.txt and plots go "
		"here (default\n"
		"                  bench-results)\n"
		"  --compare OLD   then print the change of every figure "
		"against a stored\n"
		"                  run's results.jsonl\n"
		"  --against NEW   with --compare: compare two stored runs, "
		"run nothing\n"
		"  --baseline[=F]  keep this run's results.jsonl as F "
		"(default\n"
		"                  DIR/baseline.jsonl) for a later --compare\n"
		"  --fail-on-miss  exit %d if a target was missed or a check "
		"failed\n"
		"                  (inconclusive targets do not fail)\n"
		"  --list          the benchmarks\n"
		"  --version       the version of nxsim-bench and libnxsim\n",
		EXIT_MISSED);
}

/* Copy @from to @to: 0 or -errno. */
static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
	char buf[8192];
	size_t n;
	int rc = 0;

	if (!out)
		rc = -errno;
	while (!rc && (n = fread(buf, 1, sizeof(buf), in)))
		if (fwrite(buf, 1, n, out) != n)
			rc = -errno;
	if (in && ferror(in))
		rc = -EIO;
	if (out && fclose(out) && !rc)
		rc = -errno;
	if (in)
		fclose(in);
	return rc;
}

static const struct bench *find_bench(const char *name, size_t len)
{
	for (const struct bench *const *b = bench_registry; *b; b++)
		if (strlen((*b)->name) == len &&
		    !strncmp((*b)->name, name, len))
			return *b;
	return NULL;
}

/* Mark the benchmarks of a comma-separated list; false on an unknown one. */
static bool select_only(const char *list, bool *selected)
{
	const char *p = list, *end;
	const struct bench *b;
	size_t nr = 0;

	while (bench_registry[nr])
		nr++;
	if (nr > MAX_BENCHES) {
		fprintf(stderr, "nxsim-bench: raise MAX_BENCHES to %zu\n", nr);
		return false;
	}

	while (*p) {
		end = strchrnul(p, ',');
		b = find_bench(p, (size_t)(end - p));
		if (!b) {
			fprintf(stderr,
				"nxsim-bench: no benchmark '%.*s' "
				"(see --list)\n",
				(int)(end - p), p);
			return false;
		}
		for (size_t i = 0; bench_registry[i]; i++)
			if (bench_registry[i] == b)
				selected[i] = true;
		p = *end ? end + 1 : end;
	}
	return true;
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "full", no_argument, NULL, 'f' },
		{ "tiny", no_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "only", required_argument, NULL, 'o' },
		{ "out", required_argument, NULL, 'd' },
		{ "compare", required_argument, NULL, 'c' },
		{ "against", required_argument, NULL, 'a' },
		{ "baseline", optional_argument, NULL, 'b' },
		{ "fail-on-miss", no_argument, NULL, 'm' },
		{ "list", no_argument, NULL, 'l' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *compare = NULL, *against = NULL, *baseline = NULL;
	bool keep = false, fail_on_miss = false;
	struct bench_ctx ctx = { .mode = BENCH_QUICK,
				 .seed = 1,
				 .outdir = "bench-results" };
	bool selected[MAX_BENCHES] = { 0 }, only = false;
	char path[512], base[512], *end;
	FILE *table;
	uint64_t t0;
	size_t i;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			ctx.mode = BENCH_QUICK;
			break;
		case 'f':
			ctx.mode = BENCH_FULL;
			break;
		case 't':
			ctx.mode = BENCH_TINY;
			break;
		case 's':
			errno = 0;
			ctx.seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				fprintf(stderr, "nxsim-bench: bad seed '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'o':
			if (!select_only(optarg, selected))
				return 2;
			only = true;
			break;
		case 'd':
			ctx.outdir = optarg;
			break;
		case 'c':
			compare = optarg;
			break;
		case 'a':
			against = optarg;
			break;
		case 'b':
			keep = true;
			baseline = optarg;
			break;
		case 'm':
			fail_on_miss = true;
			break;
		case 'V':
			printf("nxsim-bench (libnxsim) %d.%d.%d, %s build\n",
			       NXSIM_VERSION_MAJOR, NXSIM_VERSION_MINOR,
			       NXSIM_VERSION_PATCH, NXSIM_BENCH_BUILD_TYPE);
			return 0;
		case 'l':
			for (i = 0; bench_registry[i]; i++)
				printf("%-14s %s\n", bench_registry[i]->name,
				       bench_registry[i]->title);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (against && !compare)) {
		usage(stderr);
		return 2;
	}
	if (against)
		return bench_compare(compare, against, stdout) ? 1 : 0;

	rc = make_dir(ctx.outdir);
	snprintf(path, sizeof(path), "%s/results.jsonl", ctx.outdir);
	ctx.jsonl = rc ? NULL : fopen(path, "w");
	if (!ctx.jsonl) {
		fprintf(stderr, "nxsim-bench: cannot write %s\n", path);
		return 1;
	}
	ctx.gnuplot = system("command -v gnuplot >/dev/null 2>&1") == 0;
	bench_runinfo_init();
	bench_runinfo_print(&ctx, stdout);
	ctx.bench = "nxsim-bench";
	fputs("{\"type\":\"run\",\"bench\":\"nxsim-bench\",\"figure\":\"run\",",
	      ctx.jsonl);
	bench_runinfo_json(&ctx, ctx.jsonl);
	fprintf(ctx.jsonl, ",\"calib_ns_per_add\":%.4g,\"benchmarks\":[",
		bench_calibrate(&ctx));
	for (i = 0, c = 0; bench_registry[i]; i++)
		if (!only || selected[i])
			fprintf(ctx.jsonl, "%s\"%s\"", c++ ? "," : "",
				bench_registry[i]->name);
	fputs("]}\n", ctx.jsonl);

	t0 = bench_now_ns();
	for (i = 0; bench_registry[i] && !rc; i++) {
		if (only && !selected[i])
			continue;
		ctx.bench = bench_registry[i]->name;
		fprintf(stderr, "[%s] %s\n", ctx.bench,
			bench_registry[i]->title);
		rc = bench_registry[i]->run(&ctx);
		if (rc)
			fprintf(stderr, "nxsim-bench: %s failed: %s\n",
				ctx.bench, strerror(-rc));
	}
	putchar('\n');
	bench_print_table(&ctx, stdout);
	snprintf(path, sizeof(path), "%s/summary.txt", ctx.outdir);
	table = fopen(path, "w");
	if (table) {
		bench_runinfo_print(&ctx, table);
		fputc('\n', table);
		bench_print_table(&ctx, table);
	}
	if (!table || fclose(table)) {
		fprintf(stderr, "nxsim-bench: cannot write %s\n", path);
		rc = rc ? rc : -EIO;
	}
	printf("\nwall time %.1f s; results in %s/results.jsonl and "
	       "summary.txt%s\n",
	       (double)(bench_now_ns() - t0) / 1e9, ctx.outdir,
	       ctx.gnuplot ? ", plots *.png" : " (no gnuplot: no plots)");
	if (fclose(ctx.jsonl))
		rc = rc ? rc : -errno;
	snprintf(path, sizeof(path), "%s/results.jsonl", ctx.outdir);
	if (!rc && compare)
		rc = bench_compare(compare, path, stdout);
	if (!rc && keep) {
		snprintf(base, sizeof(base), "%s/baseline.jsonl", ctx.outdir);
		baseline = baseline ? baseline : base;
		rc = copy_file(path, baseline);
		if (rc)
			fprintf(stderr, "nxsim-bench: cannot write %s: %s\n",
				baseline, strerror(-rc));
		else
			printf("baseline kept in %s (--compare %s)\n", baseline,
			       baseline);
	}
	if (!rc && fail_on_miss && bench_any_missed(&ctx))
		rc = EXIT_MISSED;
	bench_rows_free(&ctx);
	return rc == EXIT_MISSED ? EXIT_MISSED : rc ? 1 : 0;
}
