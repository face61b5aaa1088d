/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The benchmark harness: run modes, the interleaved A/B measurement of a
 * libnxsim figure against a reference from the same run, sample statistics,
 * the in-run calibration loop, result records (stdout table, JSON lines)
 * and gnuplot plots.
 *
 * A benchmark is one file, bench/bench_<name>.c, defining one
 * `const struct bench bench_<name>`, and one entry in bench/registry.c.
 * It never prints results itself: it hands each figure, with its reference
 * and target, to bench_report(), so every figure goes through the same
 * ratio, target and output code.
 */
#ifndef NXSIM_BENCH_HARNESS_H
#define NXSIM_BENCH_HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <nxsim/stats.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The most reps of any mode (full), so that per-rep figures fit a row. */
#define BENCH_MAX_REPS 11

enum bench_mode {
	BENCH_TINY,  /* seconds in total: proves every benchmark runs */
	BENCH_QUICK, /* README command 1: under 3 minutes on 2 cores */
	BENCH_FULL,  /* the whole matrix */
};

struct bench_row;

/**
 * struct bench_ctx - one run of nxsim-bench
 * @mode: tiny, quick or full
 * @seed: --seed; every benchmark seeds its randomness from it
 * @outdir: --out directory (created)
 * @jsonl: results.jsonl in @outdir
 * @bench: name of the benchmark now running
 * @calib_ns: ns per dependent add: the median of the calibrations of
 *	the last bench_interleave() (one before each A,B pair)
 * @calib_min: the fastest of those calibrations
 * @calib_max: the slowest of those calibrations
 * @gnuplot: gnuplot was found on PATH
 * @rows: figures reported so far, for the summary table
 * @nr_rows: number of @rows
 */
struct bench_ctx {
	enum bench_mode mode;
	uint64_t seed;
	const char *outdir;
	FILE *jsonl;
	const char *bench;
	double calib_ns, calib_min, calib_max;
	bool gnuplot;
	struct bench_row *rows;
	size_t nr_rows;
};

/**
 * struct bench - one registered benchmark
 * @name: --only name; also bench/bench_<name>.c
 * @title: one line for --list and the table
 * @run: runs every figure of the benchmark for @ctx->mode; 0 or -errno
 */
struct bench {
	const char *name;
	const char *title;
	int (*run)(struct bench_ctx *ctx);
};

/* bench/registry.c: every benchmark, NULL-terminated. */
extern const struct bench *const bench_registry[];

/* A growable array of doubles: per-rep values or per-op latencies. */
struct bench_samples {
	double *v;
	size_t n, cap;
};

int bench_samples_add(struct bench_samples *s, double x);
/*
 * The pct-th percentile (0..100) of @s, interpolated between the two
 * nearest ranks as GSL's gsl_stats_quantile_from_sorted_data() does (0 the
 * minimum, 100 the maximum); @s keeps its order.  NAN if empty or out of
 * memory.
 */
double bench_samples_pct(const struct bench_samples *s, double pct);
/* Sort @s in place, ascending. */
void bench_samples_sort(struct bench_samples *s);
void bench_samples_free(struct bench_samples *s);

/**
 * struct bench_side - one side of an interleaved comparison
 * @name: what it is, e.g. "libnxsim" or "raw pthread burst"
 * @rep: one repetition: store the rep's figure (same unit on both sides)
 *	in *value and optionally add per-operation latencies to @lat;
 *	return 0 or -errno
 * @arg: passed to @rep
 */
struct bench_side {
	const char *name;
	int (*rep)(void *arg, double *value, struct bench_samples *lat);
	void *arg;
};

/**
 * struct bench_pair - what bench_interleave() measured
 * @val: per-rep values of side 0 (libnxsim) and side 1 (reference), in
 *	rep order
 * @lat: per-operation latencies pooled over all reps, per side, in rep
 *	order
 * @lat_end: where each rep's latencies end in @lat, per side
 */
struct bench_pair {
	struct bench_samples val[2];
	struct bench_samples lat[2];
	size_t lat_end[2][BENCH_MAX_REPS];
};

/**
 * bench_interleave() - run two sides A,B,A,B,... in this process
 * @ctx: the run
 * @what: label for progress lines on stderr
 * @reps: repetitions of each side, at most BENCH_MAX_REPS
 * @sides: [0] the libnxsim figure, [1] its reference
 * @out: receives the samples (zero it first; free with bench_pair_free())
 *
 * Calibrates before each A,B pair, so every figure reported from @out
 * carries the calibration of its own measurement window (median, min and
 * max in @ctx).
 *
 * Return: 0, -EINVAL for too many @reps, or the first error of a rep.
 */
int bench_interleave(struct bench_ctx *ctx, const char *what, unsigned int reps,
		     const struct bench_side sides[2], struct bench_pair *out);
void bench_pair_free(struct bench_pair *p);

/**
 * bench_calibrate() - ns per dependent integer add, measured now
 * @ctx: the run; stores the result in @ctx->calib_ns
 *
 * The chain cannot be vectorised or reordered, so on one core it runs at
 * one add per cycle: its ns/op is the core's effective cycle time.
 */
/*
 * Run the calling thread on the @i-th CPU (modulo their number) of those
 * the process may use; nothing if the affinity cannot be read or set.
 */
void bench_pin_thread(unsigned int i);

double bench_calibrate(struct bench_ctx *ctx);

/* Monotonic time in ns. */
uint64_t bench_now_ns(void);

/* Reps for the mode: tiny 2, quick 5, full 11. */
unsigned int bench_reps(const struct bench_ctx *ctx);

enum bench_target_kind {
	BENCH_TARGET_NONE,
	BENCH_TARGET_VALUE_MIN, /* value >= x */
	BENCH_TARGET_VALUE_MAX, /* value <= x */
	BENCH_TARGET_RATIO_MIN, /* value / ref >= x */
	BENCH_TARGET_RATIO_MAX, /* value / ref <= x */
};

struct bench_target {
	enum bench_target_kind kind;
	double x;
};

/**
 * struct bench_figure - one measured figure beside its reference
 * @figure: dotted name, unique in the run, e.g. "real.eager.N200.p99"
 * @unit: unit of @value and @ref
 * @value: the libnxsim figure (a median or percentile)
 * @ref_name: what the reference is
 * @ref: the reference from the same run, in @unit; NAN when the figure
 *	has none (then @target must not be a ratio)
 * @target: the target (docs/bench.md)
 * @params: a JSON object with the parameters, e.g. "{\"N\":200}"
 * @reps: repetitions behind the figure
 * @from: the pair the figure was measured from, or NULL.  Then the
 *	harness computes @value, @ref, @reps and the figure of each rep
 *	from it: the median of the per-rep values, or with @lat the
 *	@pct-th percentile of the pooled latencies (each rep's own
 *	latencies for the rep's figure), turned into @unit as @mul * x, or
 *	@mul / x with @inv (ns per operation into a rate); @mul 0 is 1
 * @lat: see @from
 * @pct: see @from
 * @mul: see @from
 * @inv: see @from
 * @modelled: an output of the model (modelled cycles or kernel time),
 *	not a measurement of libnxsim itself: reported beside the published
 *	figures, never normalised by the calibration
 */
struct bench_figure {
	const char *figure;
	const char *unit;
	double value;
	const char *ref_name;
	double ref;
	struct bench_target target;
	const char *params;
	unsigned int reps;
	const struct bench_pair *from;
	bool lat;
	double pct;
	double mul;
	bool inv;
	bool modelled;
};

/* Record a figure: a JSON line now, a table row at the end. */
int bench_report(struct bench_ctx *ctx, const struct bench_figure *f);

/**
 * bench_report_pair() - record a pair's medians as a figure
 * @ctx: the run
 * @p: what bench_interleave() measured
 * @f: the figure but for its value, ref and reps
 *
 * bench_report() of @f from @p: the value and the reference are the
 * medians of @p's per-rep values of side 0 and side 1.
 */
int bench_report_pair(struct bench_ctx *ctx, struct bench_pair *p,
		      const struct bench_figure *f);

/**
 * bench_report_check() - record a yes/no property of the run's figures
 * @ctx: the run
 * @figure: its name
 * @text: what was compared, with the numbers
 * @met: whether it holds
 *
 * For orderings such as never < deferred < eager.
 */
int bench_report_check(struct bench_ctx *ctx, const char *figure,
		       const char *text, bool met);

/**
 * bench_report_published() - print a published figure, labelled
 * @ctx: the run
 * @figure: its name
 * @text: the figure as published, with its unit
 * @source: where it was published (never a result of this run)
 */
int bench_report_published(struct bench_ctx *ctx, const char *figure,
			   const char *text, const char *source);

enum bench_stats_style {
	BENCH_STATS_JSON,     /* "name":value */
	BENCH_STATS_CSV_HEAD, /* name */
	BENCH_STATS_CSV_ROW,  /* value */
};

/**
 * bench_stats() - append fields of a libnxsim counter struct to a buffer
 * @buf: the buffer, NUL-terminated
 * @size: its size
 * @style: how each field is written; fields are separated by commas and
 *	preceded by one unless @buf is empty
 * @set: which struct @st is (include/nxsim/stats.h)
 * @st: the struct (unused, may be NULL, for BENCH_STATS_CSV_HEAD)
 * @only: the fields to write, NULL-terminated, in this order; NULL: all,
 *	in struct order
 *
 * Counters are written from their descriptors, never field by field.
 */
void bench_stats(char *buf, size_t size, enum bench_stats_style style,
		 enum nxsim_stats_set set, const void *st,
		 const char *const *only);

/*
 * The report of every row: the summary (one line per benchmark), the
 * measured figures, the modelled ones beside the published figures and
 * the checks, the references.
 */
void bench_print_table(const struct bench_ctx *ctx, FILE *f);
/* Whether a target was missed or a check failed (--fail-on-miss). */
bool bench_any_missed(const struct bench_ctx *ctx);
void bench_rows_free(struct bench_ctx *ctx);

/**
 * bench_compare() - print the change of every figure between two runs
 * @old_path: the stored run's results.jsonl
 * @new_path: this run's results.jsonl
 * @f: where the comparison goes
 *
 * bench/compare.c.  Return: 0, or -errno if a file cannot be read or a
 * line is not a JSON object.
 */
int bench_compare(const char *old_path, const char *new_path, FILE *f);

/* One line of progress on stderr (not in tiny mode). */
void bench_progress(const struct bench_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

enum {
	BENCH_PLOT_LOGX = 1 << 0,
	BENCH_PLOT_LOGY = 1 << 1,
};

/**
 * bench_csv_str() - append a CSV string field, quoted (RFC 4180)
 * @line: the row so far ("" for its first field)
 * @size: room in @line
 * @s: the string: a policy, a profile ("5.10" stays text, not 5.1)
 *
 * Appends ",\"s\"" (or "\"s\"" to an empty row) with each '"' doubled.
 */
void bench_csv_str(char *line, size_t size, const char *s);

/* How a series is drawn. */
enum bench_series_style {
	/* a line, with a marker at each measured point (up to 64 points) */
	BENCH_SERIES_LINE,
	/* markers alone: published figures set over the model's lines */
	BENCH_SERIES_POINTS,
	/* bars over power-of-two buckets [x, 2x): a funclatency histogram */
	BENCH_SERIES_BARS,
};

/* One series of a plot: n points (x[i], y[i]), drawn as @style says. */
struct bench_series {
	const char *title;
	const double *x;
	const double *y;
	size_t n;
	enum bench_series_style style;
};

/**
 * bench_plot() - write <name>.dat/.gp in the out dir and, with gnuplot,
 *		  render <name>.png
 * @ctx: the run
 * @name: file stem
 * @title: plot title
 * @xlabel: x axis label
 * @ylabel: y axis label
 * @flags: BENCH_PLOT_LOGX, BENCH_PLOT_LOGY
 * @s: the series
 * @nr: number of series
 *
 * The hook every plot goes through.  The .gp names its files without a
 * folder, so "gnuplot <name>.gp" re-renders it from the out dir, where
 * gnuplot runs (spawned with an argv: no shell sees the names).
 *
 * Return: 0, or -errno if the data files cannot be written (a failing
 * gnuplot is reported on stderr, not as an error).
 */
int bench_plot(struct bench_ctx *ctx, const char *name, const char *title,
	       const char *xlabel, const char *ylabel, unsigned int flags,
	       const struct bench_series *s, size_t nr);

/**
 * bench_plot_cdf() - plot the distributions of several sample sets
 * @ctx: the run
 * @name: file stem
 * @title: plot title
 * @xlabel: unit of the samples
 * @samples: one sample set per series (sorted in place)
 * @titles: series titles
 * @nr: number of series
 *
 * Return: as bench_plot().
 */
int bench_plot_cdf(struct bench_ctx *ctx, const char *name, const char *title,
		   const char *xlabel, struct bench_samples *samples,
		   const char *const *titles, size_t nr);

#endif /* NXSIM_BENCH_HARNESS_H */
