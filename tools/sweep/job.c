// SPDX-License-Identifier: GPL-2.0-only
/*
 * One job: its script run by the driver's interpreter on in-memory files,
 * and its answers turned into a JSON line (built and written by jansson):
 *
 *   {"id":"…","params":{…},"seed":N,"version":"…","commit":"…",
 *    "status":"ok"|"error",["error":"…",]"results":[{…},…],
 *    "costs":{"xpfo":{…},"bringup":{…}}}
 *
 * one object in "results" per OK answer, holding its key=value words (a
 * value that is a JSON number is written as one, anything else as a
 * string), and the cost tables the job's last xpfo workload and bringup
 * run charged.  The line depends on the job and the build alone, so the
 * same job gives the same bytes in any shard, thread or run.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sweep.h"

#ifndef NXSIM_SWEEP_COMMIT
#define NXSIM_SWEEP_COMMIT ""
#endif

/* 15 significant digits: a decimal of 15 digits or fewer reads back as
 * itself (2.61, not 2.6099999999999999). */
#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* The length of the UTF-8 sequence at @s (RFC 3629), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

bool nxsim__sweep_utf8(const char *s, size_t len)
{
	size_t i, n;

	for (i = 0; i < len; i += n)
		if (!(n = utf8_seq((const unsigned char *)s + i, len - i)))
			return false;
	return true;
}

/*
 * @len bytes as a JSON string: NULs are kept (\u0000), and a byte that is
 * not part of valid UTF-8 becomes U+FFFD, as JSON holds text only.
 */
static json_t *json_bytes(const char *s, size_t len)
{
	static const char repl[] = "\xef\xbf\xbd";
	size_t i, n, o = 0;
	json_t *j;
	char *t;

	if (nxsim__sweep_utf8(s, len))
		return json_stringn(s, len);
	t = malloc(3 * len);
	if (!t)
		return NULL;
	for (i = 0; i < len; i += n) {
		n = utf8_seq((const unsigned char *)s + i, len - i);
		if (n) {
			memcpy(t + o, s + i, n);
			o += n;
		} else {
			memcpy(t + o, repl, 3);
			o += 3;
			n = 1;
		}
	}
	j = json_stringn(t, o);
	free(t);
	return j;
}

static size_t digits(const char *s, size_t i, size_t len)
{
	size_t n = 0;

	while (i + n < len && s[i + n] >= '0' && s[i + n] <= '9')
		n++;
	return n;
}

/*
 * JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?;
 * *@integer says whether it has neither fraction nor exponent.
 */
static bool json_number(const char *s, size_t len, bool *integer)
{
	size_t i = 0, n;

	if (i < len && s[i] == '-')
		i++;
	n = digits(s, i, len);
	if (!n || (n > 1 && s[i] == '0'))
		return false;
	i += n;
	*integer = i == len;
	if (i < len && s[i] == '.') {
		n = digits(s, ++i, len);
		if (!n)
			return false;
		i += n;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		n = digits(s, i, len);
		if (!n)
			return false;
		i += n;
	}
	return i == len;
}

/*
 * A value word: a JSON integer when it is one that fits 64 signed bits, a
 * real for any other JSON number (15 significant digits), else a string.
 */
static json_t *json_value(const char *s, size_t len)
{
	bool integer;
	long long v;
	char *end;

	if (!json_number(s, len, &integer))
		return json_bytes(s, len);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (integer && !errno)
		return json_integer(v);
	return json_real(strtod(s, &end));
}

/* Sets @key of @o to @v (taking it); false if either is missing. */
static bool set(json_t *o, const char *key, json_t *v)
{
	if (!o) {
		json_decref(v);
		return false;
	}
	return !json_object_set_new(o, key, v);
}

static bool set_bytes(json_t *o, const char *key, size_t key_len, json_t *v)
{
	char *k = strndup(key, key_len);
	bool ok = k && set(o, k, v);

	if (!k)
		json_decref(v);
	free(k);
	return ok;
}

/* {"key":value,...} of an OK answer's key=value words; NULL: -ENOMEM. */
static json_t *json_answer(const char *ans, size_t len)
{
	/* a word takes two bytes at least, its blank included */
	size_t max = len / 2 + 1, i;
	struct nxsim__drv_tok *t = calloc(max, sizeof(*t));
	char *buf = malloc(2 * len + 1);
	json_t *o = t && buf ? json_object() : NULL;
	const char *why, *eq;
	int n;

	n = o ? nxsim__drv_lex_max(ans, len, t, max, buf, &why) : 0;
	for (i = 1; o && (int)i < n; i++) {
		eq = memchr(t[i].s, '=', t[i].len);
		if (!eq || eq == t[i].s)
			continue;
		if (!set_bytes(o, t[i].s, eq - t[i].s,
			       json_value(eq + 1,
					  t[i].len - (eq + 1 - t[i].s))))
			o = (json_decref(o), NULL);
	}
	free(t);
	free(buf);
	return o;
}

/* "results" of the answers; the first ERR line into *@err. */
static json_t *json_results(const char *out, size_t len, const char **err,
			    size_t *err_len)
{
	const char *p = out, *nl;
	json_t *a = json_array();

	while (a && p < out + len) {
		nl = memchr(p, '\n', out + len - p);
		if (!nl)
			nl = out + len;
		if (!strncmp(p, "OK", 2) && (p + 2 == nl || p[2] == ' ')) {
			if (json_array_append_new(a, json_answer(p, nl - p)))
				a = (json_decref(a), NULL);
		} else if (!*err) {
			*err = p;
			*err_len = nl - p;
		}
		p = nl + 1;
	}
	return a;
}

/* {"NAME":value,...} of a cost table through its stats set. */
static json_t *json_costs(enum nxsim_stats_set which, const void *table)
{
	const struct nxsim_stat_desc *d;
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; o && (d = nxsim_stats_desc(which, i)); i++) {
		json_t *v = d->type == NXSIM_STAT_DOUBLE ?
				    json_real(nxsim_stat_double(d, table)) :
				    json_integer(nxsim_stat_u64(d, table));

		if (!set(o, d->name, v))
			o = (json_decref(o), NULL);
	}
	return o;
}

static json_t *json_params(const struct nxsim__sweep *s,
			   const struct nxsim__sweep_job *job)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < s->nr_axes; i++) {
		const struct nxsim__drv_tok *v = &s->axes[i].vals[job->sel[i]];

		if (!set(o, s->axes[i].name, json_bytes(v->s, v->len)))
			o = (json_decref(o), NULL);
	}
	return o;
}

/* Runs @script; its answers into *@out, its diagnostics into *@diag. */
static int interpret(const char *script, size_t len, char **out,
		     size_t *out_len, char **diag, size_t *diag_len,
		     struct nxsim__drv_costs *costs)
{
	FILE *in = fmemopen((void *)script, len, "r");
	FILE *o = open_memstream(out, out_len);
	FILE *e = open_memstream(diag, diag_len);
	struct nxsim__drv *d = in && o && e ? nxsim__drv_create(o, e, 0) : NULL;
	int rc = -ENOMEM;

	if (d) {
		rc = nxsim__drv_run(d, in, "job");
		*costs = *nxsim__drv_costs(d);
		nxsim__drv_destroy(d);
	}
	if (in)
		fclose(in);
	if (o && fclose(o))
		rc = -ENOMEM;
	if (e && fclose(e))
		rc = -ENOMEM;
	if (rc < 0) {
		if (o)
			free(*out);
		if (e)
			free(*diag);
	}
	return rc;
}

/* The line of @root with its '\n'; NULL: -ENOMEM. */
static char *dump_line(const json_t *root)
{
	char *text = root ? json_dumps(root, DUMP_FLAGS) : NULL;
	size_t len = text ? strlen(text) : 0;
	char *line = text ? malloc(len + 2) : NULL;

	if (line) {
		memcpy(line, text, len);
		memcpy(line + len, "\n", 2);
	}
	free(text);
	return line;
}

int nxsim__sweep_run_job(const struct nxsim__sweep *s,
			 const struct nxsim__sweep_job *job, char **line)
{
	size_t len, out_len, diag_len, err_len = 0;
	struct nxsim__drv_costs costs;
	char *script, *out, *diag, id[17], version[32];
	const char *err = NULL;
	json_t *root, *res, *c;
	bool ok;
	int rc;

	rc = nxsim__sweep_script(s, job, &script, &len);
	if (rc)
		return rc;
	rc = interpret(script, len, &out, &out_len, &diag, &diag_len, &costs);
	free(script);
	if (rc < 0)
		return rc;
	/* the answers first, to find the first ERR */
	res = json_results(out, out_len, &err, &err_len);
	if (rc && diag_len) { /* a failed expect: its message */
		err = diag;
		err_len = diag_len - (diag[diag_len - 1] == '\n');
	}
	snprintf(id, sizeof(id), "%016" PRIx64, job->id);
	snprintf(version, sizeof(version), "%d.%d.%d", NXSIM_VERSION_MAJOR,
		 NXSIM_VERSION_MINOR, NXSIM_VERSION_PATCH);
	root = json_object();
	c = json_object();
	ok = set(root, "id", json_string(id)) &&
	     set(root, "params", json_params(s, job)) &&
	     set(root, "seed", json_integer((json_int_t)job->seed)) &&
	     set(root, "version", json_string(version)) &&
	     set(root, "commit", json_string(NXSIM_SWEEP_COMMIT)) &&
	     set(root, "status", json_string(err ? "error" : "ok")) &&
	     (!err || set(root, "error", json_bytes(err, err_len))) &&
	     set(root, "results", json_incref(res)) &&
	     set(c, "xpfo", json_costs(NXSIM_STATS_XPFO_COSTS, &costs.xpfo)) &&
	     set(c, "bringup",
		 json_costs(NXSIM_STATS_BRINGUP_COSTS, &costs.bringup)) &&
	     set(root, "costs", json_incref(c));
	*line = ok ? dump_line(root) : NULL;
	rc = !*line ? -ENOMEM : err ? 1 : 0;
	json_decref(c);
	json_decref(res);
	json_decref(root);
	free(out);
	free(diag);
	return rc;
}

int nxsim__sweep_line_id(const char *line, size_t len, uint64_t *id,
			 json_t **obj, char *why, size_t why_size)
{
	json_error_t e;
	json_t *o = json_loadb(line, len, JSON_ALLOW_NUL, &e), *v;
	const char *s;
	size_t i;

	if (!o) {
		snprintf(why, why_size, "not JSON: %s (column %d)", e.text,
			 e.column);
		return -EINVAL;
	}
	v = json_object_get(o, "id");
	s = json_string_value(v);
	if (!json_is_object(o) || !s || json_string_length(v) != 16) {
		snprintf(why, why_size,
			 "not a result line (no \"id\" of 16 "
			 "hex digits)");
		json_decref(o);
		return -EINVAL;
	}
	for (*id = 0, i = 0; i < 16; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9') {
			*id = *id << 4 | (c - '0');
		} else if (c >= 'a' && c <= 'f') {
			*id = *id << 4 | (c - 'a' + 10);
		} else {
			snprintf(why, why_size,
				 "not a result line (\"id\" "
				 "not 16 lowercase hex digits)");
			json_decref(o);
			return -EINVAL;
		}
	}
	if (obj)
		*obj = o;
	else
		json_decref(o);
	return 0;
}
