// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plots: every plot is written as <name>.dat (one gnuplot data block per
 * series) and <name>.gp in the out dir, so it can be re-rendered or
 * restyled later; when gnuplot is on PATH it is rendered to <name>.png.
 */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"

static FILE *open_out(struct bench_ctx *ctx, const char *name, const char *ext,
		      char *path, size_t size)
{
	snprintf(path, size, "%s/%s.%s", ctx->outdir, name, ext);
	return fopen(path, "w");
}

int bench_plot(struct bench_ctx *ctx, const char *name, const char *title,
	       const char *xlabel, const char *ylabel, unsigned int flags,
	       const struct bench_series *s, size_t nr)
{
	char dat[512], gp[512], cmd[1100];
	FILE *f;

	f = open_out(ctx, name, "dat", dat, sizeof(dat));
	if (!f)
		return -errno;
	for (size_t i = 0; i < nr; i++) {
		fprintf(f, "# %s\n", s[i].title);
		for (size_t j = 0; j < s[i].n; j++)
			fprintf(f, "%.9g %.9g\n", s[i].x[j], s[i].y[j]);
		fputs("\n\n", f);
	}
	if (fclose(f))
		return -errno;

	f = open_out(ctx, name, "gp", gp, sizeof(gp));
	if (!f)
		return -errno;
	fprintf(f,
		"set terminal pngcairo size 900,560 noenhanced\n"
		"set output '%s/%s.png'\nset title \"%s\"\n"
		"set xlabel \"%s\"\nset ylabel \"%s\"\nset grid\n"
		"set key outside right top\n",
		ctx->outdir, name, title, xlabel, ylabel);
	if (flags & BENCH_PLOT_LOGX)
		fputs("set logscale x\n", f);
	if (flags & BENCH_PLOT_LOGY)
		fputs("set logscale y\n", f);
	fputs("plot", f);
	for (size_t i = 0; i < nr; i++)
		/* gnuplot cycles 8 colours: dash the 9th line on */
		fprintf(f,
			"%s '%s' index %zu with lines lw 2 dt %zu "
			"title \"%s\"",
			i ? ", \\\n    " : " ", dat, i, i / 8 + 1, s[i].title);
	fputc('\n', f);
	if (fclose(f))
		return -errno;

	if (!ctx->gnuplot)
		return 0;
	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", gp);
	if (system(cmd))
		fprintf(stderr, "nxsim-bench: %s failed\n", cmd);
	return 0;
}

int bench_plot_cdf(struct bench_ctx *ctx, const char *name, const char *title,
		   const char *xlabel, struct bench_samples *samples,
		   const char *const *titles, size_t nr)
{
	struct bench_series *s = calloc(nr, sizeof(*s));
	double *buf;
	size_t i, j;
	int rc = -ENOMEM;

	if (!s)
		return rc;
	for (i = 0; i < nr; i++) {
		size_t n = samples[i].n;

		bench_samples_sort(&samples[i]);
		buf = malloc(n ? n * sizeof(*buf) : 1);
		if (!buf)
			goto out;
		for (j = 0; j < n; j++)
			buf[j] = (double)(j + 1) / (double)n;
		s[i] = (struct bench_series){
			.title = titles[i],
			.x = samples[i].v,
			.y = buf,
			.n = n,
		};
	}
	rc = bench_plot(ctx, name, title, xlabel, "fraction of operations",
			BENCH_PLOT_LOGX, s, nr);
out:
	for (j = 0; j < nr; j++)
		free((void *)s[j].y);
	free(s);
	return rc;
}
