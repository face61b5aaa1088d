// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-bench: run the registered benchmarks, each figure beside a
 * reference measured in the same run, and write the summary table
 * (stdout), results.jsonl and plots (--out, default bench-results/).
 *
 *   nxsim-bench [--quick | --full | --tiny] [--seed N]
 *		 [--only NAME[,NAME...]] [--out DIR] [--list]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "runinfo.h"

/* Room for this many registered benchmarks in --only. */
#define MAX_BENCHES 64

static void usage(FILE *f)
{
	fprintf(f, "usage: nxsim-bench [--quick|--full|--tiny] [--seed N]\n"
		   "                   [--only NAME[,NAME...]] [--out DIR] "
		   "[--list]\n"
		   "  --quick   every benchmark, reduced matrix (default; "
		   "< 3 min on 2 cores)\n"
		   "  --full    the whole matrix\n"
		   "  --tiny    seconds; proves every benchmark runs\n"
		   "  --seed N  seed for every random choice (default 1)\n"
		   "  --only    run only these benchmarks (see --list)\n"
		   "  --out DIR results.jsonl and plots go here "
		   "(default bench-results)\n");
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
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct bench_ctx ctx = { .mode = BENCH_QUICK,
				 .seed = 1,
				 .outdir = "bench-results" };
	bool selected[MAX_BENCHES] = { 0 }, only = false;
	char path[512], *end;
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
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

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
	bench_rows_free(&ctx);
	if (fclose(ctx.jsonl))
		rc = rc ? rc : -errno;
	return rc ? 1 : 0;
}
