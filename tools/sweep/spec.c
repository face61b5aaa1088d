// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sweep files (docs/sweep.md): reading and checking them, and the
 * deterministic expansion into jobs, their ids and their shards.
 *
 *   axis NAME VALUE...    values are driver words ("a b" is one)
 *   seed N                the seed of every job (default 1)
 *   run COMMAND...        a line of the job's script; ${NAME} is replaced
 *
 * Lines are split by the driver's lexer, so comments and quoting are the
 * driver's.  Nothing is held per job: job i is decoded from i.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

#define FNV64_OFFSET 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull

static uint64_t fnv1a_byte(uint64_t h, unsigned char c)
{
	return (h ^ c) * FNV64_PRIME;
}

/*
 * FNV-1a, 64 bits, over @len bytes and a NUL after them.  A NUL inside
 * the bytes counts as 00 ff, so that it never reads as the end of a value
 * (ff never follows the end: a name, "seed" or nothing does, and a value
 * is UTF-8): two jobs with different values have different streams.
 */
static uint64_t fnv1a(uint64_t h, const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		h = fnv1a_byte(h, p[i]);
		if (!p[i])
			h = fnv1a_byte(h, 0xff);
	}
	return fnv1a_byte(h, 0);
}

static void axis_free(struct nxsim__sweep_axis *a)
{
	size_t i;

	for (i = 0; i < a->nr_vals; i++)
		free(a->vals[i].s);
	free(a->vals);
	free(a->name);
}

void nxsim__sweep_free(struct nxsim__sweep *s)
{
	size_t i;

	for (i = 0; i < s->nr_axes; i++)
		axis_free(&s->axes[i]);
	free(s->axes);
	free(s->tmpl);
	memset(s, 0, sizeof(*s));
}

static bool valid_name(const char *n)
{
	size_t i;

	if (!*n || (*n >= '0' && *n <= '9'))
		return false;
	for (i = 0; n[i]; i++)
		if (!(n[i] == '_' || (n[i] >= 'a' && n[i] <= 'z') ||
		      (n[i] >= 'A' && n[i] <= 'Z') ||
		      (n[i] >= '0' && n[i] <= '9')))
			return false;
	return true;
}

static int axis_find(const struct nxsim__sweep *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->nr_axes; i++)
		if (strlen(s->axes[i].name) == len &&
		    !memcmp(s->axes[i].name, name, len))
			return (int)i;
	return -1;
}

/*
 * A decimal number of at most 19 digits up to 2^63 - 1 (a seed: a result
 * line holds it as a JSON integer, 64 bits signed in jansson).
 */
static bool parse_num(const char *p, size_t len, uint64_t *v)
{
	size_t i;

	if (!len || len > 19)
		return false;
	for (*v = 0, i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' ||
		    *v > ((uint64_t)INT64_MAX - (p[i] - '0')) / 10)
			return false;
		*v = *v * 10 + (p[i] - '0');
	}
	return true;
}

struct loader {
	struct nxsim__sweep *s;
	const char *file;
	unsigned long line;
	FILE *err;
	bool have_seed;
	uint64_t *used; /* per axis: referenced by a run line */
};

static int bad(struct loader *l, const char *fmt, const char *what)
{
	fprintf(l->err, "%s:%lu: ", l->file, l->line);
	fprintf(l->err, fmt, what);
	fputc('\n', l->err);
	return -EINVAL;
}

static int add_axis(struct loader *l, int n, struct nxsim__drv_tok *t)
{
	struct nxsim__sweep *s = l->s;
	struct nxsim__sweep_axis *a, *axes;
	int i, j;

	if (n < 2)
		return bad(l, "%saxis needs a NAME and values", "");
	if (!valid_name(t[1].s) || strlen(t[1].s) != t[1].len)
		return bad(l, "bad axis name \"%s\" (letters, digits, _)",
			   t[1].s);
	if (axis_find(s, t[1].s, t[1].len) >= 0)
		return bad(l, "axis \"%s\" declared twice", t[1].s);
	if (n < 3)
		return bad(l, "axis \"%s\" has no values", t[1].s);
	for (i = 2; i < n; i++) {
		if (!nxsim__sweep_utf8(t[i].s, t[i].len))
			return bad(l,
				   "axis \"%s\": a value is not UTF-8 (result "
				   "lines are JSON text)",
				   t[1].s);
		for (j = 2; j < i; j++)
			if (t[i].len == t[j].len &&
			    !memcmp(t[i].s, t[j].s, t[i].len))
				return bad(l, "value \"%s\" given twice",
					   t[i].s);
	}
	if (!strcmp(t[1].s, "seed")) {
		uint64_t v;

		if (l->have_seed)
			return bad(l, "%sseed given twice", "");
		for (i = 2; i < n; i++)
			if (!parse_num(t[i].s, t[i].len, &v))
				return bad(l,
					   "seed \"%s\" is not a number "
					   "from 0 to 2^63 - 1",
					   t[i].s);
		l->have_seed = true;
		s->seed_axis = (int)s->nr_axes;
	}
	axes = realloc(s->axes, (s->nr_axes + 1) * sizeof(*axes));
	if (!axes)
		return -ENOMEM;
	s->axes = axes;
	a = &axes[s->nr_axes];
	memset(a, 0, sizeof(*a));
	a->line = l->line;
	a->name = strdup(t[1].s);
	a->vals = calloc(n - 2, sizeof(*a->vals));
	if (!a->name || !a->vals) {
		axis_free(a);
		return -ENOMEM;
	}
	for (i = 2; i < n; i++, a->nr_vals++) {
		a->vals[i - 2].s = malloc(t[i].len + 1);
		if (!a->vals[i - 2].s) {
			axis_free(a);
			return -ENOMEM;
		}
		memcpy(a->vals[i - 2].s, t[i].s, t[i].len + 1);
		a->vals[i - 2].len = t[i].len;
	}
	s->nr_axes++;
	return 0;
}

/* Checks the ${NAME}s of a run line and appends it to the template. */
static int add_run(struct loader *l, const char *text, size_t len)
{
	struct nxsim__sweep *s = l->s;
	size_t old = s->tmpl_len;
	const char *p, *end;
	char *t;
	int a;

	for (p = text; (p = memmem(p, len - (p - text), "${", 2)); p = end) {
		end = memchr(p, '}', len - (p - text));
		if (!end)
			return bad(l, "%sunterminated ${", "");
		a = axis_find(s, p + 2, end - p - 2);
		if (a < 0 && !(end - p - 2 == 4 && !memcmp(p + 2, "seed", 4))) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(end - p - 2),
				 p + 2);
			return bad(l, "${%s}: no such axis", name);
		}
		if (a >= 0)
			l->used[a] = 1;
	}
	t = realloc(s->tmpl, old + len + 2);
	if (!t)
		return -ENOMEM;
	memcpy(t + old, text, len);
	t[old + len] = '\n';
	t[old + len + 1] = '\0';
	s->tmpl = t;
	s->tmpl_len = old + len + 1;
	return 0;
}

static int load_line(struct loader *l, char *line, size_t len, char *buf)
{
	struct nxsim__drv_tok t[NXSIM__DRV_MAX_TOKS];
	const char *why;
	int n = nxsim__drv_lex(line, len, t, buf, &why);

	if (n == 0)
		return 0;
	if (n == -E2BIG)
		return bad(l,
			   "%stoo many words (an axis holds at most 62 values)",
			   "");
	if (n < 0)
		return bad(l, "%s", why);
	if (!strcmp(t[0].s, "axis")) {
		if (l->s->tmpl)
			return bad(l, "%saxis after the first run line", "");
		return add_axis(l, n, t);
	}
	if (!strcmp(t[0].s, "seed")) {
		if (n != 2 || !parse_num(t[1].s, t[1].len, &l->s->seed))
			return bad(l, "%susage: seed N (0 to 2^63 - 1)", "");
		if (l->have_seed)
			return bad(l, "%sseed given twice", "");
		l->have_seed = true;
		return 0;
	}
	if (!strcmp(t[0].s, "run")) {
		const char *p = line + strspn(line, " \t") + 3;

		if (n < 2)
			return bad(l, "%srun needs a command", "");
		p += strspn(p, " \t");
		if (!l->used) {
			l->used = calloc(l->s->nr_axes + 1, sizeof(*l->used));
			if (!l->used)
				return -ENOMEM;
		}
		return add_run(l, p, len - (p - line));
	}
	if (!strcmp(t[0].s, "plugin")) {
		const char *pwhy = NULL;

		if (n != 2)
			return bad(l, "%susage: plugin FILE.so", "");
		if (nxsim_plugin_load(t[1].s, &pwhy))
			return bad(l, "plugin: %s", pwhy);
		return 0;
	}
	return bad(l, "unknown directive \"%s\" (axis, seed, run, plugin)",
		   t[0].s);
}

/* After the last line: every axis used, the job count fits. */
static int check(struct loader *l)
{
	struct nxsim__sweep *s = l->s;
	size_t i;

	if (!s->tmpl)
		return bad(l, "%sno run line", "");
	s->nr_jobs = 1;
	for (i = s->nr_axes; i-- > 0;) {
		struct nxsim__sweep_axis *a = &s->axes[i];

		if (!l->used[i]) {
			l->line = a->line;
			return bad(l, "axis \"%s\" is not used by any run line",
				   a->name);
		}
		a->stride = s->nr_jobs;
		if (s->nr_jobs > UINT64_MAX / a->nr_vals) {
			l->line = a->line;
			return bad(l, "%stoo many jobs", "");
		}
		s->nr_jobs *= a->nr_vals;
	}
	return 0;
}

int nxsim__sweep_load(struct nxsim__sweep *s, FILE *f, const char *name,
		      FILE *err)
{
	struct loader l = { .s = s, .file = name, .err = err };
	char *line = NULL, *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->seed = 1;
	s->seed_axis = -1;
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		char *nbuf;

		l.line++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		nbuf = realloc(buf, 2 * len + 1);
		if (!nbuf) {
			rc = -ENOMEM;
			break;
		}
		buf = nbuf;
		rc = load_line(&l, line, len, buf);
	}
	if (!rc && ferror(f))
		rc = bad(&l, "%sread error", "");
	if (!rc)
		rc = check(&l);
	if (rc == -ENOMEM)
		fprintf(err, "%s: out of memory\n", name);
	if (rc)
		nxsim__sweep_free(s);
	free(l.used);
	free(line);
	free(buf);
	return rc;
}

void nxsim__sweep_job(const struct nxsim__sweep *s, uint64_t index,
		      struct nxsim__sweep_job *job)
{
	uint64_t h = FNV64_OFFSET;
	size_t i;

	job->index = index;
	job->seed = s->seed;
	for (i = 0; i < s->nr_axes; i++) {
		const struct nxsim__sweep_axis *a = &s->axes[i];
		const struct nxsim__drv_tok *v;

		job->sel[i] = (index / a->stride) % a->nr_vals;
		v = &a->vals[job->sel[i]];
		h = fnv1a(h, a->name, strlen(a->name));
		h = fnv1a(h, v->s, v->len);
		if ((int)i == s->seed_axis)
			parse_num(v->s, v->len, &job->seed);
	}
	if (s->seed_axis < 0) {
		char num[24];

		h = fnv1a(h, "seed", 4);
		h = fnv1a(h, num,
			  snprintf(num, sizeof(num), "%" PRIu64, s->seed));
	}
	job->id = h;
}

int nxsim__sweep_script(const struct nxsim__sweep *s,
			const struct nxsim__sweep_job *job, char **buf,
			size_t *len)
{
	FILE *f = open_memstream(buf, len);
	const char *p = s->tmpl, *stop = s->tmpl + s->tmpl_len, *q, *end;
	const struct nxsim__drv_tok *v;
	int a;

	if (!f)
		return -ENOMEM;
	/* add_run() checked that every "${" has its '}' and names an axis */
	while ((q = memmem(p, stop - p, "${", 2))) {
		fwrite(p, 1, q - p, f);
		end = memchr(q, '}', stop - q);
		a = axis_find(s, q + 2, end - q - 2);
		v = a >= 0 ? &s->axes[a].vals[job->sel[a]] : NULL;
		if (v)
			nxsim__drv_fquote(f, NULL, v->s, v->len);
		else
			fprintf(f, "%" PRIu64, job->seed);
		p = end + 1;
	}
	fwrite(p, 1, stop - p, f);
	if (fclose(f)) {
		free(*buf);
		return -ENOMEM;
	}
	return 0;
}

void nxsim__sweep_params(const struct nxsim__sweep *s,
			 const struct nxsim__sweep_job *job, FILE *f)
{
	size_t i;

	for (i = 0; i < s->nr_axes; i++) {
		const struct nxsim__drv_tok *v = &s->axes[i].vals[job->sel[i]];

		fputc(' ', f);
		nxsim__drv_fquote(f, s->axes[i].name, v->s, v->len);
	}
}

int nxsim__sweep_shard(const char *spec, uint64_t *k, uint64_t *n,
		       const char **why)
{
	const char *slash = strchr(spec, '/');

	if (!slash || !parse_num(spec, slash - spec, k) ||
	    !parse_num(slash + 1, strlen(slash + 1), n)) {
		*why = "not K/N with K and N decimal numbers";
		return -EINVAL;
	}
	if (*n == 0 || *n > (1ull << 32)) {
		*why = "N must be 1 to 4294967296";
		return -EINVAL;
	}
	if (*k >= *n) {
		*why = "K must be 0 to N-1";
		return -EINVAL;
	}
	return 0;
}

uint64_t nxsim__sweep_shard_size(uint64_t total, uint64_t k, uint64_t n)
{
	return total > k ? (total - k - 1) / n + 1 : 0;
}
