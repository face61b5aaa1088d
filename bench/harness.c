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

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness.h"
#include "runinfo.h"

enum row_kind { ROW_FIGURE, ROW_CHECK, ROW_PUBLISHED };

/*
 * What a target says of a figure: every rep met it, none did, or its reps
 * straddle it (inconclusive).  A figure without per-rep values is decided
 * by its value alone.
 */
enum verdict { VERDICT_NONE, VERDICT_MET, VERDICT_MISSED, VERDICT_UNSURE };

static const char *const verdict_names[] = {
	[VERDICT_NONE] = "none",
	[VERDICT_MET] = "met",
	[VERDICT_MISSED] = "missed",
	[VERDICT_UNSURE] = "inconclusive",
};

/* A reported figure, kept for the summary table. */
struct bench_row {
	enum row_kind kind;
	char *bench;
	char *figure;
	char *unit;
	char *ref_name;
	char *text; /* checks and published figures */
	double value, ref, calib_ns;
	double lo, hi;	 /* the reps' smallest and largest value */
	double rlo, rhi; /* the reps' smallest and largest ratio */
	double adds;	 /* value_in_adds */
	struct bench_target target;
	enum verdict verdict;
	bool met; /* checks */
	bool modelled;
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

void bench_samples_sort(struct bench_samples *s)
{
	if (s->n)
		gsl_sort(s->v, 1, s->n);
}

double bench_samples_pct(const struct bench_samples *s, double pct)
{
	struct bench_samples sorted = { .n = s->n };
	double x;

	if (!s->n)
		return NAN;
	sorted.v = malloc(s->n * sizeof(*sorted.v));
	if (!sorted.v)
		return NAN;
	memcpy(sorted.v, s->v, s->n * sizeof(*sorted.v));
	bench_samples_sort(&sorted);
	x = gsl_stats_quantile_from_sorted_data(sorted.v, 1, sorted.n,
						pct / 100.0);
	free(sorted.v);
	return x;
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

	if (reps > BENCH_MAX_REPS)
		return -EINVAL;
	for (unsigned int r = 0; r < reps && !rc; r++) {
		/* the machine's speed now, before each A,B pair */
		rc = bench_samples_add(&calib, bench_calibrate(ctx));
		for (int i = 0; i < 2 && !rc; i++) {
			rc = sides[i].rep(sides[i].arg, &value, &out->lat[i]);
			out->lat_end[i][r] = out->lat[i].n;
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

/*
 * The ns of one operation of a timed figure: a time (ns, us, ms, s) as it
 * is, a rate (<x>/s) inverted; NAN for other units.
 */
static double op_ns(const char *unit, double x)
{
	static const struct {
		const char *unit;
		double ns;
	} times[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	size_t len = strlen(unit);

	for (size_t i = 0; i < ARRAY_SIZE(times); i++)
		if (!strcmp(unit, times[i].unit))
			return x * times[i].ns;
	if (len > 2 && !strcmp(unit + len - 2, "/s"))
		return 1e9 / x;
	return NAN;
}

/*
 * The SI unit of a display unit and the factor into it: times into
 * seconds, Mcyc into cycles; rates are per second already, and counts,
 * bytes and ratios are their own unit.
 */
static const char *si_unit(const char *unit, double *mul)
{
	static const struct {
		const char *unit, *si;
		double mul;
	} units[] = {
		{ "ns", "s", 1e-9 },
		{ "us", "s", 1e-6 },
		{ "ms", "s", 1e-3 },
		{ "Mcyc", "cycles", 1e6 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(unit, units[i].unit)) {
			*mul = units[i].mul;
			return units[i].si;
		}
	}
	*mul = 1;
	return unit;
}

/* @f's statistic of side @side over rep @r, or over all reps if r < 0. */
static double pair_stat(const struct bench_figure *f, int side, int r)
{
	const struct bench_pair *p = f->from;
	const struct bench_samples *s = f->lat ? &p->lat[side] : &p->val[side];
	struct bench_samples rep = *s;
	double mul = f->mul ? f->mul : 1, x;

	if (r >= 0 && f->lat) {
		size_t start = r ? p->lat_end[side][r - 1] : 0;

		rep.v = s->v + start;
		rep.n = p->lat_end[side][r] - start;
	} else if (r >= 0) {
		rep.v = s->v + r;
		rep.n = 1;
	}
	x = bench_samples_pct(&rep, f->lat ? f->pct : 50);
	return f->inv ? mul / x : mul * x;
}

/* Every rep met the target, none, or some (@n 0: the value decides). */
static enum verdict decide(const struct bench_target *t, double value,
			   double ref, const double *v, const double *r,
			   unsigned int n)
{
	unsigned int met = 0;

	if (!t->kind)
		return VERDICT_NONE;
	if (!n)
		return target_met(t, value, ref) ? VERDICT_MET : VERDICT_MISSED;
	for (unsigned int i = 0; i < n; i++)
		met += target_met(t, v[i], r[i]);
	return met == n ? VERDICT_MET : !met ? VERDICT_MISSED : VERDICT_UNSURE;
}

static void json_array(FILE *f, const char *name, const double *v,
		       unsigned int n)
{
	fprintf(f, ",\"%s\":[", name);
	for (unsigned int i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		json_num(f, v[i]);
	}
	fputc(']', f);
}

static void json_range(FILE *f, const char *name, double lo, double hi)
{
	fprintf(f, "\"%s\":[", name);
	json_num(f, lo);
	fputc(',', f);
	json_num(f, hi);
	fputc(']', f);
}

int bench_report(struct bench_ctx *ctx, const struct bench_figure *f)
{
	double rv[BENCH_MAX_REPS], rr[BENCH_MAX_REPS], ratio;
	double ns, ref_ns, si;
	struct bench_figure fig = *f;
	unsigned int n = 0;
	struct bench_row row;
	FILE *out = ctx->jsonl;

	if (f->from) {
		n = (unsigned int)f->from->val[0].n;
		for (unsigned int i = 0; i < n; i++) {
			rv[i] = pair_stat(f, 0, (int)i);
			rr[i] = pair_stat(f, 1, (int)i);
		}
		fig.value = pair_stat(f, 0, -1);
		fig.ref = pair_stat(f, 1, -1);
		fig.reps = n;
	}
	ratio = fig.value / fig.ref;
	ns = fig.modelled ? NAN : op_ns(fig.unit, fig.value);
	ref_ns = fig.modelled ? NAN : op_ns(fig.unit, fig.ref);
	row = (struct bench_row){
		.kind = ROW_FIGURE,
		.figure = (char *)fig.figure,
		.unit = (char *)fig.unit,
		.ref_name = (char *)fig.ref_name,
		.value = fig.value,
		.ref = fig.ref,
		.lo = n ? INFINITY : NAN,
		.hi = n ? -INFINITY : NAN,
		.rlo = n ? INFINITY : NAN,
		.rhi = n ? -INFINITY : NAN,
		.adds = ns / ctx->calib_ns,
		.target = fig.target,
		.verdict = decide(&fig.target, fig.value, fig.ref, rv, rr, n),
		.calib_ns = ctx->calib_ns,
		.modelled = fig.modelled,
	};
	for (unsigned int i = 0; i < n; i++) {
		row.lo = fmin(row.lo, rv[i]);
		row.hi = fmax(row.hi, rv[i]);
		row.rlo = fmin(row.rlo, rv[i] / rr[i]);
		row.rhi = fmax(row.rhi, rv[i] / rr[i]);
	}

	json_head(ctx, "figure", fig.figure);
	fputs(",\"unit\":", out);
	bench_json_str(out, fig.unit);
	fputs(",\"value\":", out);
	json_num(out, fig.value);
	fputs(",\"ref_name\":", out);
	bench_json_str(out, fig.ref_name ? fig.ref_name : "");
	fputs(",\"ref\":", out);
	json_num(out, fig.ref);
	/* the same two in SI units, for scripts; unit is the display's */
	fputs(",\"unit_si\":", out);
	bench_json_str(out, si_unit(fig.unit, &si));
	fputs(",\"value_si\":", out);
	json_num(out, fig.value * si);
	fputs(",\"ref_si\":", out);
	json_num(out, fig.ref * si);
	fputs(",\"ratio\":", out);
	json_num(out, ratio);
	fprintf(out, ",\"target\":{\"kind\":\"%s\",\"x\":",
		target_kinds[fig.target.kind]);
	json_num(out, fig.target.kind ? fig.target.x : NAN);
	fprintf(out, "},\"met\":%s,\"verdict\":\"%s\",\"modelled\":%s",
		row.verdict == VERDICT_NONE		    ? "null" :
		target_met(&fig.target, fig.value, fig.ref) ? "true" :
							      "false",
		verdict_names[row.verdict], fig.modelled ? "true" : "false");
	fprintf(out, ",\"reps\":%u", fig.reps);
	json_array(out, "rep_values", rv, n);
	json_array(out, "rep_refs", rr, n);
	fputs(",\"spread\":{", out);
	json_range(out, "value", row.lo, row.hi);
	fputc(',', out);
	json_range(out, "ratio", row.rlo, row.rhi);
	fputs("},\"calib_ns_per_add\":", out);
	json_num(out, ctx->calib_ns);
	fputs(",", out);
	json_range(out, "calib_range", ctx->calib_min, ctx->calib_max);
	fputs(",\"value_in_adds\":", out);
	json_num(out, row.adds);
	fputs(",\"ref_in_adds\":", out);
	json_num(out, ref_ns / ctx->calib_ns);
	fprintf(out, ",\"params\":%s}\n", fig.params ? fig.params : "{}");
	fflush(out);
	return row_add(ctx, &row);
}

int bench_report_pair(struct bench_ctx *ctx, struct bench_pair *p,
		      const struct bench_figure *f)
{
	struct bench_figure fig = *f;

	fig.from = p;
	fig.lat = false;
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

/* "lo..hi" of the reps, or "-" without per-rep values. */
static void fmt_range(char *buf, size_t size, double lo, double hi,
		      const char *suffix)
{
	if (isfinite(lo) && isfinite(hi))
		snprintf(buf, size, "%.3g..%.3g%s", lo, hi, suffix);
	else
		snprintf(buf, size, "-");
}

static const char *verdict_word(enum verdict v)
{
	static const char *const words[] = {
		[VERDICT_NONE] = "-",
		[VERDICT_MET] = "met",
		[VERDICT_MISSED] = "MISSED",
		[VERDICT_UNSURE] = "inconcl",
	};

	return words[v];
}

/* One figure of the tables. */
static void print_figure(FILE *f, const struct bench_row *r)
{
	char name[96], val[32], spread[40], ref[32], ratio[16], rspread[40];
	char target[32], adds[16];

	snprintf(name, sizeof(name), "%s.%s", r->bench, r->figure);
	snprintf(val, sizeof(val), "%.4g %s", r->value, r->unit);
	fmt_range(spread, sizeof(spread), r->lo, r->hi, "");
	if (isfinite(r->ref)) {
		snprintf(ref, sizeof(ref), "%.4g", r->ref);
		snprintf(ratio, sizeof(ratio), "%.3gx", r->value / r->ref);
		fmt_range(rspread, sizeof(rspread), r->rlo, r->rhi, "x");
	} else {
		snprintf(ref, sizeof(ref), "-");
		snprintf(ratio, sizeof(ratio), "-");
		snprintf(rspread, sizeof(rspread), "-");
	}
	fmt_target(target, sizeof(target), &r->target, r->unit);
	if (isfinite(r->adds))
		snprintf(adds, sizeof(adds), "%.4g", r->adds);
	else
		snprintf(adds, sizeof(adds), "-");
	if (r->modelled)
		fprintf(f, "  %-52s %14s %10s %9s %16s %7s\n", name, val, ref,
			ratio, target, verdict_word(r->verdict));
	else
		fprintf(f, "%-46s %14s %17s %10s %7s %15s %15s %7s %9s %6.3f\n",
			name, val, spread, ref, ratio, rspread, target,
			verdict_word(r->verdict), adds, r->calib_ns);
}

/* Targets and checks of one benchmark, by outcome. */
struct tally {
	unsigned int met, missed, unsure, targets, yes, checks;
};

static struct tally tally_bench(const struct bench_ctx *ctx, const char *b)
{
	struct tally t = { 0 };

	for (size_t i = 0; i < ctx->nr_rows; i++) {
		const struct bench_row *r = &ctx->rows[i];

		if (strcmp(r->bench, b))
			continue;
		if (r->kind == ROW_CHECK) {
			t.checks++;
			t.yes += r->met;
		} else if (r->kind == ROW_FIGURE && r->verdict) {
			t.targets++;
			t.met += r->verdict == VERDICT_MET;
			t.missed += r->verdict == VERDICT_MISSED;
			t.unsure += r->verdict == VERDICT_UNSURE;
		}
	}
	return t;
}

/* Whether row @i is the first of its benchmark. */
static bool first_of_bench(const struct bench_ctx *ctx, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(ctx->rows[j].bench, ctx->rows[i].bench))
			return false;
	return true;
}

/*
 * One line per benchmark: MISSED if a target was missed or a check
 * failed, else inconclusive if a target's reps straddle it, else met; then
 * the figures that decided it.
 */
static void print_summary(const struct bench_ctx *ctx, FILE *f)
{
	char target[32], spread[40];

	fprintf(f, "summary (targets met / missed / inconclusive: reps on "
		   "both sides; checks yes of all):\n");
	for (size_t i = 0; i < ctx->nr_rows; i++) {
		const struct bench_row *r = &ctx->rows[i];
		struct tally t;
		const char *word;

		if (!first_of_bench(ctx, i))
			continue;
		t = tally_bench(ctx, r->bench);
		word = t.missed || t.yes < t.checks ? "MISSED" :
		       t.unsure			    ? "inconclusive" :
		       t.targets || t.checks	    ? "met" :
						      "-";
		fprintf(f,
			"  %-14s %-12s targets %u: %u met, %u missed, %u "
			"inconclusive; checks %u/%u\n",
			r->bench, word, t.targets, t.met, t.missed, t.unsure,
			t.yes, t.checks);
		for (size_t j = i; j < ctx->nr_rows; j++) {
			const struct bench_row *s = &ctx->rows[j];

			if (strcmp(s->bench, r->bench))
				continue;
			if (s->kind == ROW_CHECK && !s->met) {
				fprintf(f, "      NO %s\n", s->figure);
				continue;
			}
			if (s->kind != ROW_FIGURE ||
			    (s->verdict != VERDICT_MISSED &&
			     s->verdict != VERDICT_UNSURE))
				continue;
			fmt_target(target, sizeof(target), &s->target, s->unit);
			if (s->target.kind == BENCH_TARGET_RATIO_MIN ||
			    s->target.kind == BENCH_TARGET_RATIO_MAX)
				fmt_range(spread, sizeof(spread), s->rlo,
					  s->rhi, "x");
			else
				fmt_range(spread, sizeof(spread), s->lo, s->hi,
					  "");
			fprintf(f,
				"      %s %s: %.4g %s (%.3gx ref), reps %s, "
				"target %s\n",
				verdict_word(s->verdict), s->figure, s->value,
				s->unit, s->value / s->ref, spread, target);
		}
	}
}

/* Modelled figures, checks and published figures, benchmark by benchmark. */
static void print_model(const struct bench_ctx *ctx, FILE *f)
{
	bool any = false;

	for (size_t i = 0; i < ctx->nr_rows; i++) {
		const char *b = ctx->rows[i].bench;

		if (!first_of_bench(ctx, i))
			continue;
		for (size_t j = i; j < ctx->nr_rows; j++) {
			const struct bench_row *r = &ctx->rows[j];

			if (strcmp(r->bench, b) ||
			    (r->kind == ROW_FIGURE && !r->modelled))
				continue;
			if (!any)
				fprintf(f, "\nthe model's predictions beside "
					   "the published figures (modelled, "
					   "deterministic for the seed), "
					   "and the checks:\n");
			any = true;
			if (r->kind == ROW_FIGURE)
				print_figure(f, r);
			else if (r->kind == ROW_CHECK)
				fprintf(f, "  %-3s %s.%s: %s\n",
					r->met ? "yes" : "NO", r->bench,
					r->figure, r->text);
			else
				fprintf(f,
					"  published %s.%s: %s\n"
					"      [source: %s]\n",
					r->bench, r->figure, r->text,
					r->ref_name);
		}
	}
}

void bench_print_table(const struct bench_ctx *ctx, FILE *f)
{
	const struct bench_row *r;
	size_t i;
	bool any;

	print_summary(ctx, f);
	fprintf(f, "\nmeasured (median of the reps; reps: their range; "
		   "adds: one operation in calibrated adds):\n");
	fprintf(f, "%-46s %14s %17s %10s %7s %15s %15s %7s %9s %6s\n", "figure",
		"value", "reps", "reference", "ratio", "ratio reps", "target",
		"verdict", "adds", "ns/add");
	for (i = 0; i < ctx->nr_rows; i++) {
		r = &ctx->rows[i];
		if (r->kind == ROW_FIGURE && !r->modelled)
			print_figure(f, r);
	}
	print_model(ctx, f);

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
}

bool bench_any_missed(const struct bench_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nr_rows; i++) {
		const struct bench_row *r = &ctx->rows[i];

		if ((r->kind == ROW_CHECK && !r->met) ||
		    (r->kind == ROW_FIGURE && r->verdict == VERDICT_MISSED))
			return true;
	}
	return false;
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
