// SPDX-License-Identifier: GPL-2.0-only
/*
 * --compare: the change of every figure of this run against a stored run
 * (two results.jsonl files, read with jansson).  No kernel code is
 * modelled here.
 *
 * A figure is matched by benchmark and figure name.  Its change is called
 * better or worse only when the two runs' reps do not overlap (each run's
 * range of the ratio to its own reference when the figure has one, as
 * that ratio does not move with the machine's load; else of the value),
 * and only in the direction the figure is judged by: its target, else
 * its unit (a rate higher, a time or a size lower).  Everything else is
 * "~", within the reps' spread.
 *
 * Left out: any test of significance beyond the reps' ranges.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness.h"

/* A stored run: its run record and its figures and checks, in order. */
struct run {
	json_t *head;
	json_t *rows; /* array of figure and check objects */
};

static void run_free(struct run *r)
{
	json_decref(r->head);
	json_decref(r->rows);
}

static int run_load(struct run *r, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	json_error_t err;
	int rc = 0;

	r->head = NULL;
	r->rows = json_array();
	if (!f || !r->rows) {
		rc = f ? -ENOMEM : -errno;
		fprintf(stderr, "nxsim-bench: cannot read %s: %s\n", path,
			strerror(-rc));
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, &err);
		const char *type =
			json_string_value(json_object_get(o, "type"));

		if (!json_is_object(o) || !type) {
			fprintf(stderr,
				"nxsim-bench: %s:%d: not a result: %s\n", path,
				err.line, o ? "no type" : err.text);
			json_decref(o);
			rc = -EINVAL;
			break;
		}
		if (!strcmp(type, "run") && !r->head)
			r->head = o;
		else if (!strcmp(type, "figure") || !strcmp(type, "check"))
			json_array_append_new(r->rows, o);
		else
			json_decref(o);
	}
out:
	free(line);
	if (f)
		fclose(f);
	return rc;
}

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The row of @run with @bench and @figure, or NULL. */
static json_t *find(const struct run *run, const char *bench,
		    const char *figure)
{
	size_t i;
	json_t *o;

	json_array_foreach(run->rows, i,
			   o) if (!strcmp(str(o, "bench"), bench) &&
				  !strcmp(str(o, "figure"), figure)) return o;
	return NULL;
}

/* +1 if a larger value is better, -1 if a smaller one, 0 if neither. */
static int direction(const json_t *fig)
{
	const char *kind = str(json_object_get(fig, "target"), "kind");
	const char *unit = str(fig, "unit");
	size_t len = strlen(unit);

	if (!strcmp(kind, "value_min") || !strcmp(kind, "ratio_min"))
		return 1;
	if (!strcmp(kind, "value_max") || !strcmp(kind, "ratio_max"))
		return -1;
	if (len > 2 && !strcmp(unit + len - 2, "/s"))
		return 1;
	if (!strcmp(unit, "ns") || !strcmp(unit, "us") || !strcmp(unit, "ms") ||
	    !strcmp(unit, "s") || !strcmp(unit, "B"))
		return -1;
	return 0;
}

/* The reps' range of the figure's ratio (with a reference) or value. */
static void range(const json_t *fig, bool ratio, double *lo, double *hi)
{
	const json_t *r = json_object_get(json_object_get(fig, "spread"),
					  ratio ? "ratio" : "value");
	double x = num(fig, ratio ? "ratio" : "value");

	*lo = json_number_value(json_array_get(r, 0));
	*hi = json_number_value(json_array_get(r, 1));
	if (!json_is_number(json_array_get(r, 0)) ||
	    !json_is_number(json_array_get(r, 1)))
		*lo = *hi = x;
}

/* "better", "worse" or "~" for @new against @old. */
static const char *judge(const json_t *old, const json_t *new)
{
	bool ratio = isfinite(num(old, "ratio")) && isfinite(num(new, "ratio"));
	double olo, ohi, nlo, nhi;
	int dir = direction(new);

	range(old, ratio, &olo, &ohi);
	range(new, ratio, &nlo, &nhi);
	if (!dir || (nlo <= ohi && olo <= nhi))
		return "~";
	return (nlo > ohi) == (dir > 0) ? "better" : "worse";
}

static void change(char *buf, size_t size, double old, double new)
{
	if (isfinite(old) && isfinite(new) && old != 0)
		snprintf(buf, size, "%+.1f%%", (new / old - 1) * 100);
	else
		snprintf(buf, size, "-");
}

static void print_head(FILE *f, const char *what, const struct run *r)
{
	const json_t *run = json_object_get(r->head, "run");

	fprintf(f, "  %s: commit %s, %s mode, %s build, %.3g ns/add\n", what,
		str(run, "commit"), str(run, "mode"), str(run, "build"),
		num(r->head, "calib_ns_per_add"));
}

int bench_compare(const char *old_path, const char *new_path, FILE *f)
{
	struct run old = { 0 }, new = { 0 };
	unsigned int worse = 0, better = 0, same = 0, fresh = 0, gone = 0;
	char cv[16], cr[16], name[96];
	size_t i;
	json_t *n, *o;
	int rc;

	rc = run_load(&old, old_path);
	if (!rc)
		rc = run_load(&new, new_path);
	if (rc)
		goto out;
	fprintf(f,
		"\nchange against %s (ratio: to the reference of the "
		"same run; judged on the reps' ranges):\n",
		old_path);
	print_head(f, "old", &old);
	print_head(f, "new", &new);
	fprintf(f, "%-46s %12s %12s %8s %9s %9s %8s %s\n", "figure", "old",
		"new", "change", "old ratio", "new ratio", "change", "judged");
	json_array_foreach(new.rows, i, n)
	{
		const char *bench = str(n, "bench"), *figure = str(n, "figure");

		snprintf(name, sizeof(name), "%s.%s", bench, figure);
		o = find(&old, bench, figure);
		if (!strcmp(str(n, "type"), "check")) {
			bool was = o && json_is_true(json_object_get(o, "met"));
			bool is = json_is_true(json_object_get(n, "met"));

			if (!o || was != is)
				fprintf(f, "%-46s check %s -> %s\n", name,
					o ? (was ? "yes" : "NO") : "new",
					is ? "yes" : "NO");
			continue;
		}
		if (!o) {
			fprintf(f, "%-46s %12s %12.4g %8s %9s %9.3g %8s new\n",
				name, "-", num(n, "value"), "-", "-",
				num(n, "ratio"), "-");
			fresh++;
			continue;
		}
		change(cv, sizeof(cv), num(o, "value"), num(n, "value"));
		change(cr, sizeof(cr), num(o, "ratio"), num(n, "ratio"));
		fprintf(f, "%-46s %12.4g %12.4g %8s %9.3g %9.3g %8s %s\n", name,
			num(o, "value"), num(n, "value"), cv, num(o, "ratio"),
			num(n, "ratio"), cr, judge(o, n));
		if (!strcmp(judge(o, n), "worse"))
			worse++;
		else if (!strcmp(judge(o, n), "better"))
			better++;
		else
			same++;
	}
	json_array_foreach(old.rows, i, o)
	{
		if (strcmp(str(o, "type"), "figure") ||
		    find(&new, str(o, "bench"), str(o, "figure")))
			continue;
		fprintf(f, "%s.%s: only in the old run\n", str(o, "bench"),
			str(o, "figure"));
		gone++;
	}
	fprintf(f,
		"%u worse, %u better, %u within the reps' spread, %u new, "
		"%u gone\n",
		worse, better, same, fresh, gone);
out:
	run_free(&old);
	run_free(&new);
	return rc;
}
