// SPDX-License-Identifier: GPL-2.0-only
/*
 * Plots: every plot is written as <name>.dat (one gnuplot data block per
 * series) and <name>.gp in the out dir, so it can be re-rendered or
 * restyled later from that folder; when gnuplot is on PATH it is rendered
 * to <name>.png by a gnuplot started there with an argv (posix_spawnp()),
 * so that no shell reads the folder's name.  Lines mark their measured
 * points; published figures are markers over them; histograms are bars.
 */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

extern char **environ;

/* A series of at most this many points gets a marker at each. */
#define MARKED_POINTS 64

static FILE *open_out(struct bench_ctx *ctx, const char *name, const char *ext,
		      char *path, size_t size)
{
	snprintf(path, size, "%s/%s.%s", ctx->outdir, name, ext);
	return fopen(path, "w");
}

/* @s as a gnuplot single-quoted string: only ' is special, doubled. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* The plot clause of series @i: how its style draws it. */
static void gp_series(FILE *f, const char *name, size_t i,
		      const struct bench_series *s)
{
	/* gnuplot cycles 8 colours: the 9th line on is dashed */
	unsigned int dt = (unsigned int)(i / 8 + 1);

	fprintf(f, "'%s.dat' index %zu ", name, i);
	switch (s->style) {
	case BENCH_SERIES_POINTS:
		fputs("with points pt 9 ps 2.2 lc rgb 'black'", f);
		break;
	case BENCH_SERIES_BARS:
		/* the bucket [x, 2x): centre 1.5x, width x */
		fputs("using ($1 * 1.5):2:1 with boxes", f);
		fputs(i ? " fs empty border lw 2" :
			  " fs transparent solid 0.35 noborder",
		      f);
		break;
	case BENCH_SERIES_LINE:
		fprintf(f, "with %s lw 2 dt %u",
			s->n <= MARKED_POINTS ? "linespoints pt 7 ps 0.8" :
						"lines",
			dt);
		break;
	}
	fputs(" title ", f);
	gp_str(f, s->title);
}

/* gnuplot <name>.gp in the out dir; a failure is said, not returned. */
static void render(struct bench_ctx *ctx, const char *name)
{
	char gp[256];
	char *argv[] = { "gnuplot", gp, NULL };
	posix_spawn_file_actions_t fa;
	int rc, status;
	pid_t pid;

	snprintf(gp, sizeof(gp), "%s.gp", name);
	rc = posix_spawn_file_actions_init(&fa);
	if (!rc)
		rc = posix_spawn_file_actions_addchdir_np(&fa, ctx->outdir);
	if (!rc)
		rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (!rc && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    !WEXITSTATUS(status))
		return;
	fprintf(stderr, "nxsim-bench: gnuplot %s in %s failed%s%s\n", gp,
		ctx->outdir, rc ? ": " : "", rc ? strerror(rc) : "");
}

int bench_plot(struct bench_ctx *ctx, const char *name, const char *title,
	       const char *xlabel, const char *ylabel, unsigned int flags,
	       const struct bench_series *s, size_t nr)
{
	char dat[512], gp[512];
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
		"# Re-render from this folder: gnuplot %s.gp\n"
		"set terminal pngcairo size 1000,640 noenhanced font ',10'\n"
		"set output '%s.png'\n",
		name, name);
	/* the key below the plot: the title and the plot keep the width */
	fputs("set title ", f);
	gp_str(f, title);
	fputs("\nset xlabel ", f);
	gp_str(f, xlabel);
	fputs("\nset ylabel ", f);
	gp_str(f, ylabel);
	fputs("\nset grid\nset key below maxrows 4\n", f);
	if (flags & BENCH_PLOT_LOGX)
		fputs("set logscale x\n", f);
	if (flags & BENCH_PLOT_LOGY)
		fputs("set logscale y\n", f);
	fputs("plot", f);
	for (size_t i = 0; i < nr; i++) {
		fputs(i ? ", \\\n    " : " ", f);
		gp_series(f, name, i, &s[i]);
	}
	fputc('\n', f);
	if (fclose(f))
		return -errno;

	if (ctx->gnuplot)
		render(ctx, name);
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
