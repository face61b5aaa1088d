// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measurement harness: sample statistics, the interleaved A/B runner,
 * the calibration loop, and the result records (JSON lines as figures
 * arrive, the summary table at the end).  No kernel code is modelled here.
 *
 * Left out: outlier rejection (medians and percentiles are reported as
 * measured) and cycle counters (the reference machine has no PMU, so
 * cycles are only ever ns / calibrated ns-per-add).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "runinfo.h"

enum row_kind { ROW_FIGURE, ROW_CHECK, ROW_PUBLISHED };

/* A reported figure, kept for the summary table. */
struct bench_row {
	enum row_kind kind;
	char *bench;
	char *figure;
	char *unit;
	char *ref_name;
	char *text; /* checks and published figures */
	double value, ref, calib_ns;
	struct bench_target target;
	bool met;
};

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned int bench_reps(const struct bench_ctx *ctx)
{
	static const unsigned int reps[] = {
		[BENCH_TINY] = 2,
		[BENCH_QUICK] = 5,
		[BENCH_FULL] = 11,
	};

	return reps[ctx->mode];
}

int bench_samples_add(struct bench_samples *s, double x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		double *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_samples_pct(struct bench_samples *s, double pct)
{
	size_t rank;

	if (!s->n)
		return NAN;
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	/* nearest rank: the smallest value with >= pct% at or below it */
	rank = (size_t)ceil(pct / 100.0 * (double)s->n);
	return s->v[rank ? rank - 1 : 0];
}

void bench_samples_free(struct bench_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void bench_pair_free(struct bench_pair *p)
{
	for (int i = 0; i < 2; i++) {
		bench_samples_free(&p->val[i]);
		bench_samples_free(&p->lat[i]);
	}
}

void bench_pin_thread(unsigned int i)
{
	cpu_set_t allowed, one;
	int n, cpu;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return;
	n = CPU_COUNT(&allowed);
	i %= n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		if (i-- == 0)
			break;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

double bench_calibrate(struct bench_ctx *ctx)
{
	const uint64_t n = 1 << 21;
	uint64_t x = 1, t0, t1, best = UINT64_MAX;

	/* Best of three: the chain's own speed, not a preemption. */
	for (int round = 0; round < 3; round++) {
		t0 = bench_now_ns();
		for (uint64_t i = 0; i < n; i++) {
			x += i;
			/* x stays in a register; every add waits for it */
			__asm__ volatile("" : "+r"(x));
		}
		t1 = bench_now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	ctx->calib_ns = (double)best / (double)n;
	return ctx->calib_ns;
}

int bench_interleave(struct bench_ctx *ctx, const char *what, unsigned int reps,
		     const struct bench_side sides[2], struct bench_pair *out)
{
	struct bench_samples calib = { 0 };
	uint64_t start = bench_now_ns();
	double value;
	int rc = 0;

	for (unsigned int r = 0; r < reps && !rc; r++) {
		/* the machine's speed now, before each A,B pair */
		rc = bench_samples_add(&calib, bench_calibrate(ctx));
		for (int i = 0; i < 2 && !rc; i++) {
			rc = sides[i].rep(sides[i].arg, &value, &out->lat[i]);
			if (!rc)
				rc = bench_samples_add(&out->val[i], value);
			if (rc)
				fprintf(stderr, "nxsim-bench: %s: %s: %s\n",
					what, sides[i].name, strerror(-rc));
		}
		if (bench_now_ns() - start > 2000000000ull)
			bench_progress(ctx, "%s: rep %u/%u", what, r + 1, reps);
	}
	ctx->calib_min = bench_samples_pct(&calib, 0);
	ctx->calib_max = bench_samples_pct(&calib, 100);
	ctx->calib_ns = bench_samples_pct(&calib, 50);
	bench_samples_free(&calib);
	return rc;
}

void bench_progress(const struct bench_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->mode == BENCH_TINY)
		return;
	fprintf(stderr, "[%s] ", ctx->bench);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *const target_kinds[] = {
	[BENCH_TARGET_NONE] = "none",
	[BENCH_TARGET_VALUE_MIN] = "value_min",
	[BENCH_TARGET_VALUE_MAX] = "value_max",
	[BENCH_TARGET_RATIO_MIN] = "ratio_min",
	[BENCH_TARGET_RATIO_MAX] = "ratio_max",
};

static bool target_met(const struct bench_target *t, double value, double ref)
{
	double ratio = value / ref;

	switch (t->kind) {
	case BENCH_TARGET_VALUE_MIN:
		return value >= t->x;
	case BENCH_TARGET_VALUE_MAX:
		return value <= t->x;
	case BENCH_TARGET_RATIO_MIN:
		return ratio >= t->x;
	case BENCH_TARGET_RATIO_MAX:
		return ratio <= t->x;
	default:
		return true;
	}
}

/* A JSON number, or null for NAN and infinities. */
static void json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.6g", x);
	else
		fputs("null", f);
}

/* Line head shared by every record: type, bench, run identity. */
static void json_head(struct bench_ctx *ctx, const char *type,
		      const char *figure)
{
	FILE *f = ctx->jsonl;

	fprintf(f, "{\"type\":\"%s\",\"bench\":", type);
	bench_json_str(f, ctx->bench);
	fputs(",\"figure\":", f);
	bench_json_str(f, figure);
	fputs(",", f);
	bench_runinfo_json(ctx, f);
}

static int row_add(struct bench_ctx *ctx, const struct bench_row *row)
{
	struct bench_row *rows;
	struct bench_row *r;

	rows = realloc(ctx->rows, (ctx->nr_rows + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	ctx->rows = rows;
	r = &rows[ctx->nr_rows];
	*r = *row;
	r->bench = strdup(ctx->bench);
	r->figure = strdup(row->figure);
	r->unit = row->unit ? strdup(row->unit) : NULL;
	r->ref_name = row->ref_name ? strdup(row->ref_name) : NULL;
	r->text = row->text ? strdup(row->text) : NULL;
	ctx->nr_rows++;
	if (!r->bench || !r->figure || (row->unit && !r->unit) ||
	    (row->ref_name && !r->ref_name) || (row->text && !r->text))
		return -ENOMEM;
	return 0;
}

/* A time figure in ns, for cycles-equivalent; NAN for other units. */
static double value_ns(const struct bench_figure *fig)
{
	if (!strcmp(fig->unit, "ns"))
		return fig->value;
	if (!strcmp(fig->unit, "us"))
		return fig->value * 1e3;
	return NAN;
}

int bench_report(struct bench_ctx *ctx, const struct bench_figure *fig)
{
	FILE *f = ctx->jsonl;
	double ratio = fig->value / fig->ref;
	bool met = target_met(&fig->target, fig->value, fig->ref);
	struct bench_row row = {
		.kind = ROW_FIGURE,
		.figure = (char *)fig->figure,
		.unit = (char *)fig->unit,
		.ref_name = (char *)fig->ref_name,
		.value = fig->value,
		.ref = fig->ref,
		.target = fig->target,
		.met = met,
		.calib_ns = ctx->calib_ns,
	};

	json_head(ctx, "figure", fig->figure);
	fputs(",\"unit\":", f);
	bench_json_str(f, fig->unit);
	fputs(",\"value\":", f);
	json_num(f, fig->value);
	fputs(",\"ref_name\":", f);
	bench_json_str(f, fig->ref_name ? fig->ref_name : "");
	fputs(",\"ref\":", f);
	json_num(f, fig->ref);
	fputs(",\"ratio\":", f);
	json_num(f, ratio);
	fprintf(f, ",\"target\":{\"kind\":\"%s\",\"x\":",
		target_kinds[fig->target.kind]);
	json_num(f, fig->target.kind ? fig->target.x : NAN);
	fprintf(f, "},\"met\":%s,\"reps\":%u,\"calib_ns_per_add\":",
		fig->target.kind ? (met ? "true" : "false") : "null",
		fig->reps);
	json_num(f, ctx->calib_ns);
	fputs(",\"calib_range\":[", f);
	json_num(f, ctx->calib_min);
	fputc(',', f);
	json_num(f, ctx->calib_max);
	fputs("],\"value_in_adds\":", f);
	json_num(f, value_ns(fig) / ctx->calib_ns);
	fprintf(f, ",\"params\":%s}\n", fig->params ? fig->params : "{}");
	fflush(f);
	return row_add(ctx, &row);
}

int bench_report_pair(struct bench_ctx *ctx, struct bench_pair *p,
		      const struct bench_figure *f)
{
	struct bench_figure fig = *f;

	fig.value = bench_samples_pct(&p->val[0], 50);
	fig.ref = bench_samples_pct(&p->val[1], 50);
	fig.reps = (unsigned int)p->val[0].n;
	return bench_report(ctx, &fig);
}

int bench_report_check(struct bench_ctx *ctx, const char *figure,
		       const char *text, bool met)
{
	struct bench_row row = {
		.kind = ROW_CHECK,
		.figure = (char *)figure,
		.text = (char *)text,
		.met = met,
	};

	json_head(ctx, "check", figure);
	fputs(",\"text\":", ctx->jsonl);
	bench_json_str(ctx->jsonl, text);
	fprintf(ctx->jsonl, ",\"met\":%s}\n", met ? "true" : "false");
	fflush(ctx->jsonl);
	return row_add(ctx, &row);
}

int bench_report_published(struct bench_ctx *ctx, const char *figure,
			   const char *text, const char *source)
{
	struct bench_row row = {
		.kind = ROW_PUBLISHED,
		.figure = (char *)figure,
		.text = (char *)text,
		.ref_name = (char *)source,
	};

	json_head(ctx, "published", figure);
	fputs(",\"text\":", ctx->jsonl);
	bench_json_str(ctx->jsonl, text);
	fputs(",\"source\":", ctx->jsonl);
	bench_json_str(ctx->jsonl, source);
	fputs("}\n", ctx->jsonl);
	fflush(ctx->jsonl);
	return row_add(ctx, &row);
}

static void fmt_target(char *buf, size_t size, const struct bench_target *t,
		       const char *unit)
{
	switch (t->kind) {
	case BENCH_TARGET_VALUE_MIN:
		snprintf(buf, size, ">= %.3g %s", t->x, unit);
		break;
	case BENCH_TARGET_VALUE_MAX:
		snprintf(buf, size, "<= %.3g %s", t->x, unit);
		break;
	case BENCH_TARGET_RATIO_MIN:
		snprintf(buf, size, ">= %.3gx ref", t->x);
		break;
	case BENCH_TARGET_RATIO_MAX:
		snprintf(buf, size, "<= %.3gx ref", t->x);
		break;
	default:
		snprintf(buf, size, "-");
	}
}

void bench_print_table(const struct bench_ctx *ctx, FILE *f)
{
	char name[96], val[32], ref[32], ratio[16], target[32];
	const struct bench_row *r;
	size_t i;
	bool any;

	fprintf(f, "%-46s %14s %14s %9s %16s %4s %6s\n", "figure", "value",
		"reference", "ratio", "target", "met", "ns/add");
	for (i = 0; i < ctx->nr_rows; i++) {
		r = &ctx->rows[i];
		if (r->kind != ROW_FIGURE)
			continue;
		snprintf(name, sizeof(name), "%s.%s", r->bench, r->figure);
		snprintf(val, sizeof(val), "%.4g %s", r->value, r->unit);
		if (isfinite(r->ref)) {
			snprintf(ref, sizeof(ref), "%.4g", r->ref);
			snprintf(ratio, sizeof(ratio), "%.3gx",
				 r->value / r->ref);
		} else {
			snprintf(ref, sizeof(ref), "-");
			snprintf(ratio, sizeof(ratio), "-");
		}
		fmt_target(target, sizeof(target), &r->target, r->unit);
		fprintf(f, "%-46s %14s %14s %9s %16s %4s %6.3f\n", name, val,
			ref, ratio, target,
			r->target.kind ? (r->met ? "yes" : "NO") : "-",
			r->calib_ns);
	}

	fprintf(f, "\nreferences (measured in this run, interleaved):\n");
	for (i = 0; i < ctx->nr_rows; i++) {
		r = &ctx->rows[i];
		if (r->kind != ROW_FIGURE || !r->ref_name)
			continue;
		/* one line per distinct reference of a benchmark */
		any = false;
		for (size_t j = 0; j < i; j++)
			if (ctx->rows[j].kind == ROW_FIGURE &&
			    ctx->rows[j].ref_name &&
			    !strcmp(ctx->rows[j].bench, r->bench) &&
			    !strcmp(ctx->rows[j].ref_name, r->ref_name))
				any = true;
		if (!any)
			fprintf(f, "  %s: %s\n", r->bench, r->ref_name);
	}

	for (i = 0, any = false; i < ctx->nr_rows; i++) {
		r = &ctx->rows[i];
		if (r->kind != ROW_CHECK)
			continue;
		if (!any)
			fprintf(f, "\nchecks:\n");
		any = true;
		fprintf(f, "  %-3s %s.%s: %s\n", r->met ? "yes" : "NO",
			r->bench, r->figure, r->text);
	}
	for (i = 0, any = false; i < ctx->nr_rows; i++) {
		r = &ctx->rows[i];
		if (r->kind != ROW_PUBLISHED)
			continue;
		if (!any)
			fprintf(f, "\npublished figures (context, not measured "
				   "here):\n");
		any = true;
		fprintf(f, "  %s.%s: %s\n      [source: %s]\n", r->bench,
			r->figure, r->text, r->ref_name);
	}
}

void bench_rows_free(struct bench_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nr_rows; i++) {
		free(ctx->rows[i].bench);
		free(ctx->rows[i].figure);
		free(ctx->rows[i].unit);
		free(ctx->rows[i].ref_name);
		free(ctx->rows[i].text);
	}
	free(ctx->rows);
	ctx->rows = NULL;
	ctx->nr_rows = 0;
}

void bench_stats(char *buf, size_t size, enum bench_stats_style style,
		 enum nxsim_stats_set set, const void *st,
		 const char *const *only)
{
	const struct nxsim_stat_desc *d;
	size_t len = strlen(buf);
	unsigned int i;
	char val[32];

	for (i = 0; len < size && (d = only ? nxsim_stats_find(set, only[i]) :
					      nxsim_stats_desc(set, i));
	     i++) {
		const char *sep = len ? "," : "";
		int n;

		if (style != BENCH_STATS_CSV_HEAD)
			nxsim_stat_format(d, st, val, sizeof(val));
		if (style == BENCH_STATS_JSON)
			n = snprintf(buf + len, size - len, "%s\"%s\":%s", sep,
				     d->name, val);
		else
			n = snprintf(buf + len, size - len, "%s%s", sep,
				     style == BENCH_STATS_CSV_HEAD ? d->name :
								     val);
		len += (size_t)n;
	}
}
