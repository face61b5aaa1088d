// SPDX-License-Identifier: GPL-2.0-only
/*
 * One job: its script run by the driver's interpreter on in-memory files,
 * and its answers turned into a JSON line:
 *
 *   {"id":"…","params":{…},"seed":N,"version":"…","commit":"…",
 *    "status":"ok"|"error",["error":"…",]"results":[{…},…]}
 *
 * one object in "results" per OK answer, holding its key=value words (a
 * value that is a JSON number is written as one, anything else as a
 * string).  The line depends on the job and the build alone, so the same
 * job gives the same bytes in any shard, thread or run.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

#ifndef NXSIM_SWEEP_COMMIT
#define NXSIM_SWEEP_COMMIT ""
#endif

static void json_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static size_t digits(const char *s, size_t i, size_t len)
{
	size_t n = 0;

	while (i + n < len && s[i + n] >= '0' && s[i + n] <= '9')
		n++;
	return n;
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s, size_t len)
{
	size_t i = 0, n;

	if (i < len && s[i] == '-')
		i++;
	n = digits(s, i, len);
	if (!n || (n > 1 && s[i] == '0'))
		return false;
	i += n;
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

/* {"key":value,...} of an OK answer's key=value words. */
static void json_answer(FILE *f, const char *ans, size_t len)
{
	struct nxsim__drv_tok t[NXSIM__DRV_MAX_TOKS];
	char *buf = malloc(2 * len + 1);
	const char *why, *eq;
	int n, i, first = 1;

	fputc('{', f);
	n = buf ? nxsim__drv_lex(ans, len, t, buf, &why) : 0;
	for (i = 1; i < n; i++) {
		eq = memchr(t[i].s, '=', t[i].len);
		if (!eq || eq == t[i].s)
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		json_str(f, t[i].s, eq - t[i].s);
		fputc(':', f);
		eq++;
		if (json_number(eq, t[i].len - (eq - t[i].s)))
			fwrite(eq, 1, t[i].len - (eq - t[i].s), f);
		else
			json_str(f, eq, t[i].len - (eq - t[i].s));
	}
	fputc('}', f);
	free(buf);
}

/* "results":[...] from the answers; the first ERR line into *@err. */
static void json_results(FILE *f, const char *out, size_t len, const char **err,
			 size_t *err_len)
{
	const char *p = out, *nl;
	int first = 1;

	fputs("\"results\":[", f);
	while (p < out + len) {
		nl = memchr(p, '\n', out + len - p);
		if (!nl)
			nl = out + len;
		if (!strncmp(p, "OK", 2) && (p + 2 == nl || p[2] == ' ')) {
			if (!first)
				fputc(',', f);
			first = 0;
			json_answer(f, p, nl - p);
		} else if (!*err) {
			*err = p;
			*err_len = nl - p;
		}
		p = nl + 1;
	}
	fputc(']', f);
}

static void json_head(FILE *f, const struct nxsim__sweep *s,
		      const struct nxsim__sweep_job *job)
{
	size_t i;

	fprintf(f, "{\"id\":\"%016" PRIx64 "\",\"params\":{", job->id);
	for (i = 0; i < s->nr_axes; i++) {
		const struct nxsim__drv_tok *v = &s->axes[i].vals[job->sel[i]];

		if (i)
			fputc(',', f);
		json_str(f, s->axes[i].name, strlen(s->axes[i].name));
		fputc(':', f);
		json_str(f, v->s, v->len);
	}
	fprintf(f,
		"},\"seed\":%" PRIu64 ",\"version\":\"%d.%d.%d\",\"commit\":",
		job->seed, NXSIM_VERSION_MAJOR, NXSIM_VERSION_MINOR,
		NXSIM_VERSION_PATCH);
	json_str(f, NXSIM_SWEEP_COMMIT, strlen(NXSIM_SWEEP_COMMIT));
}

/* Runs @script; its answers into *@out, its diagnostics into *@diag. */
static int interpret(const char *script, size_t len, char **out,
		     size_t *out_len, char **diag, size_t *diag_len)
{
	FILE *in = fmemopen((void *)script, len, "r");
	FILE *o = open_memstream(out, out_len);
	FILE *e = open_memstream(diag, diag_len);
	struct nxsim__drv *d = in && o && e ? nxsim__drv_create(o, e, 0) : NULL;
	int rc = -ENOMEM;

	if (d) {
		rc = nxsim__drv_run(d, in, "job");
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

int nxsim__sweep_run_job(const struct nxsim__sweep *s,
			 const struct nxsim__sweep_job *job, char **line)
{
	size_t len, out_len, diag_len, res_len, line_len, err_len = 0;
	char *script, *out, *diag, *res = NULL;
	const char *err = NULL;
	FILE *r, *f = NULL;
	int rc;

	rc = nxsim__sweep_script(s, job, &script, &len);
	if (rc)
		return rc;
	rc = interpret(script, len, &out, &out_len, &diag, &diag_len);
	free(script);
	if (rc < 0)
		return rc;
	/* the answers first, to find the first ERR */
	r = open_memstream(&res, &res_len);
	if (r) {
		json_results(r, out, out_len, &err, &err_len);
		if (fclose(r)) {
			free(res);
			res = NULL;
		}
	}
	if (rc && diag_len) { /* a failed expect: its message */
		err = diag;
		err_len = diag_len - (diag[diag_len - 1] == '\n');
	}
	if (res)
		f = open_memstream(line, &line_len);
	if (f) {
		json_head(f, s, job);
		fputs(err ? ",\"status\":\"error\",\"error\":" :
			    ",\"status\":\"ok\"",
		      f);
		if (err)
			json_str(f, err, err_len);
		fprintf(f, ",%s}\n", res);
		if (fclose(f)) {
			free(*line);
			f = NULL;
		}
	}
	rc = !f ? -ENOMEM : err ? 1 : 0;
	free(res);
	free(out);
	free(diag);
	return rc;
}

int nxsim__sweep_line_id(const char *line, size_t len, uint64_t *id)
{
	static const char head[] = "{\"id\":\"";
	size_t n = sizeof(head) - 1, i;

	if (len < n + 17 || memcmp(line, head, n) || line[n + 16] != '"')
		return -EINVAL;
	for (*id = 0, i = n; i < n + 16; i++) {
		char c = line[i];

		if (c >= '0' && c <= '9')
			*id = *id << 4 | (c - '0');
		else if (c >= 'a' && c <= 'f')
			*id = *id << 4 | (c - 'a' + 10);
		else
			return -EINVAL;
	}
	return 0;
}
