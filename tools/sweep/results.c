// SPDX-License-Identifier: GPL-2.0-only
/*
 * Result files: the ids a file already holds (for --resume), and merge,
 * which writes the result lines of several files in job order and reports
 * the jobs missing, duplicated, or not in the sweep.  Every line is parsed
 * as JSON (jansson), so a line cut short or re-spaced by another tool is
 * judged by its content.  Merge holds an index entry (24 bytes) per line,
 * not the lines, and a bounded number of its inputs open at once; it
 * writes through a temporary file renamed over the output.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep.h"

struct entry {
	uint64_t id;
	off_t off;
	uint32_t len;
	uint16_t file;
	bool used;
};

/*
 * Reads @f's result lines into an array of entries: every complete line
 * must be a result line (one JSON object with an "id"); a last line
 * without its '\n' (a run that was killed) is dropped, and its offset
 * reported in *@end.
 */
static int index_file(FILE *f, const char *name, uint16_t file,
		      struct entry **ents, size_t *nr, off_t *end, FILE *err)
{
	char *line = NULL, why[160];
	size_t cap = 0;
	unsigned long lineno = 0;
	off_t off = 0;
	ssize_t len;
	int rc = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		struct entry *e;

		lineno++;
		if (line[len - 1] != '\n')
			break;
		if (!(*nr & (*nr + 1))) {
			e = realloc(*ents, (2 * *nr + 1) * sizeof(*e));
			if (!e) {
				rc = -ENOMEM;
				break;
			}
			*ents = e;
		}
		e = &(*ents)[*nr];
		if ((size_t)len > UINT32_MAX) {
			fprintf(err, "%s:%lu: not a result line (over 4 GiB)\n",
				name, lineno);
			rc = -EINVAL;
			break;
		}
		if (nxsim__sweep_line_id(line, len, &e->id, NULL, why,
					 sizeof(why))) {
			fprintf(err, "%s:%lu: %s\n", name, lineno, why);
			rc = -EINVAL;
			break;
		}
		e->off = off;
		e->len = (uint32_t)len;
		e->file = file;
		e->used = false;
		(*nr)++;
		off += len;
	}
	if (!rc && ferror(f)) {
		fprintf(err, "%s: read error\n", name);
		rc = -EIO;
	}
	*end = off;
	free(line);
	return rc;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

int nxsim__sweep_done_load(struct nxsim__sweep_done *done, FILE *f,
			   const char *name, FILE *err)
{
	struct entry *ents = NULL;
	size_t nr = 0, i;
	off_t end;
	int rc = index_file(f, name, 0, &ents, &nr, &end, err);

	done->ids = NULL;
	done->nr = 0;
	if (!rc && ftruncate(fileno(f), end)) {
		fprintf(err, "%s: cannot drop its partial last line\n", name);
		rc = -EIO;
	}
	if (!rc && nr && !(done->ids = malloc(nr * sizeof(*done->ids))))
		rc = -ENOMEM;
	if (!rc && nr) {
		for (i = 0; i < nr; i++)
			done->ids[i] = ents[i].id;
		done->nr = nr;
		qsort(done->ids, nr, sizeof(*done->ids), nxsim__sweep_cmp_id);
	}
	free(ents);
	return rc;
}

int nxsim__sweep_cmp_id(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

bool nxsim__sweep_done_has(const struct nxsim__sweep_done *done, uint64_t id)
{
	return done->nr && bsearch(&id, done->ids, done->nr, sizeof(*done->ids),
				   nxsim__sweep_cmp_id);
}

/* The first entry of @id in the sorted @ents, or NULL. */
static struct entry *find(struct entry *ents, size_t nr, uint64_t id)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ents[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && ents[lo].id == id ? &ents[lo] : NULL;
}

/*
 * The result files, read again in job order: at most @max open at once
 * (a merge of thousands of shards stays under the descriptor limit).
 */
struct inputs {
	char *const *paths;
	FILE **f;
	int nr, open, max, victim;
};

/* File @k, opened if need be (closing another at the limit); NULL: -EIO. */
static FILE *input(struct inputs *in, int k)
{
	while (!in->f[k] && in->open >= in->max) {
		in->victim = (in->victim + 1) % in->nr;
		if (in->f[in->victim]) {
			fclose(in->f[in->victim]);
			in->f[in->victim] = NULL;
			in->open--;
		}
	}
	if (!in->f[k] && (in->f[k] = fopen(in->paths[k], "r")))
		in->open++;
	return in->f[k];
}

/* Reads @e's line into @buf; -EIO. */
static int read_line(struct inputs *in, const struct entry *e, char *buf)
{
	FILE *f = input(in, e->file);

	if (!f || fseeko(f, e->off, SEEK_SET) ||
	    fread(buf, 1, e->len, f) != e->len)
		return -EIO;
	return 0;
}

/* The duplicates of @e (the first of its id): the same JSON or not. */
static int report_dups(struct inputs *in, const struct entry *e,
		       const struct entry *last, char *a, char *b, FILE *err,
		       uint64_t *dups)
{
	const struct entry *d;
	json_t *ja = NULL, *jb;
	bool same = true;
	uint64_t id;
	char why[160];

	for (d = e + 1; d <= last && d->id == e->id; d++) {
		if ((!ja && (read_line(in, e, a) ||
			     nxsim__sweep_line_id(a, e->len, &id, &ja, why,
						  sizeof(why)))) ||
		    read_line(in, d, b) ||
		    nxsim__sweep_line_id(b, d->len, &id, &jb, why,
					 sizeof(why))) {
			json_decref(ja);
			return -EIO; /* it parsed when indexed */
		}
		same &= json_equal(ja, jb);
		json_decref(jb);
		(*dups)++;
	}
	json_decref(ja);
	if (d > e + 1)
		fprintf(err, "duplicated: %016" PRIx64 " (%zu lines, %s)\n",
			e->id, (size_t)(d - e),
			same ? "identical" : "DIFFERENT");
	return 0;
}

/*
 * The output may not be one of the inputs: it is written before they have
 * all been read again.  -EINVAL with the message.
 */
static int output_is_input(const char *out_path, char *const *paths,
			   int nr_paths, FILE *err)
{
	struct stat o, i;
	int k;

	if (stat(out_path, &o))
		return 0;
	for (k = 0; k < nr_paths; k++) {
		if (!stat(paths[k], &i) && i.st_dev == o.st_dev &&
		    i.st_ino == o.st_ino) {
			fprintf(err, "%s: the output is also an input (%s)\n",
				out_path, paths[k]);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * A temporary file beside @out_path, with the mode a new file gets, that
 * out_commit() renames over it: a failed merge leaves @out_path as it was.
 */
static FILE *out_open(const char *out_path, char **tmp, FILE *err)
{
	mode_t mask = umask(0);
	FILE *f = NULL;
	int fd;

	umask(mask);
	if (asprintf(tmp, "%s.XXXXXX", out_path) < 0) {
		*tmp = NULL;
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd >= 0 && !fchmod(fd, 0666 & ~mask))
		f = fdopen(fd, "w");
	if (!f) {
		fprintf(err, "%s: %s\n", *tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(*tmp);
		}
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

static int out_commit(FILE *out, char *tmp, const char *out_path, int rc,
		      FILE *err)
{
	if (!tmp)
		return fflush(out) && !rc ? -EIO : rc;
	if (fclose(out) && !rc)
		rc = -EIO;
	if (!rc && rename(tmp, out_path)) {
		fprintf(err, "%s: %s\n", out_path, strerror(errno));
		rc = -EIO;
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int nxsim__sweep_merge(const struct nxsim__sweep *s, char *const *paths,
		       int nr_paths, const char *out_path, FILE *err,
		       struct nxsim__sweep_merge_stats *st)
{
	struct inputs in = { .paths = paths, .nr = nr_paths };
	struct nxsim__sweep_job job = { 0 };
	struct entry *ents = NULL, *e;
	size_t nr = 0, i, maxlen = 0;
	char *a = NULL, *b = NULL, *tmp = NULL;
	struct rlimit lim;
	FILE *out = stdout;
	int rc = 0, k;

	memset(st, 0, sizeof(*st));
	in.f = calloc(nr_paths, sizeof(*in.f));
	job.sel = calloc(s->nr_axes + 1, sizeof(*job.sel));
	if (!in.f || !job.sel || nr_paths > UINT16_MAX)
		rc = nr_paths > UINT16_MAX ? -E2BIG : -ENOMEM;
	/* half the descriptors the process may still open, 8 at least */
	in.max = !getrlimit(RLIMIT_NOFILE, &lim) && lim.rlim_cur < 2048 ?
			 (int)lim.rlim_cur / 2 :
			 1024;
	in.max = in.max < 8 ? 8 : in.max;
	if (!rc && out_path)
		rc = output_is_input(out_path, paths, nr_paths, err);
	for (k = 0; !rc && k < nr_paths; k++) {
		FILE *f = fopen(paths[k], "r");
		off_t end;

		if (!f) {
			fprintf(err, "%s: %s\n", paths[k], strerror(errno));
			rc = -EINVAL;
			break;
		}
		rc = index_file(f, paths[k], k, &ents, &nr, &end, err);
		if (!rc && fseeko(f, 0, SEEK_END) == 0 && ftello(f) != end) {
			fprintf(err, "%s: last line incomplete\n", paths[k]);
			rc = -EINVAL;
		}
		fclose(f);
	}
	if (rc)
		goto out;
	if (nr)
		qsort(ents, nr, sizeof(*ents), cmp_entry);
	for (i = 0; i < nr; i++)
		maxlen = ents[i].len > maxlen ? ents[i].len : maxlen;
	a = malloc(maxlen + 1);
	b = malloc(maxlen + 1);
	if (!a || !b) {
		rc = -ENOMEM;
		goto out;
	}
	if (out_path && !(out = out_open(out_path, &tmp, err))) {
		rc = tmp || errno != ENOMEM ? -EINVAL : -ENOMEM;
		goto out;
	}
	for (job.index = 0; !rc && job.index < s->nr_jobs; job.index++) {
		nxsim__sweep_job(s, job.index, &job);
		e = nr ? find(ents, nr, job.id) : NULL;
		if (!e) {
			fprintf(err, "missing: %016" PRIx64, job.id);
			nxsim__sweep_params(s, &job, err);
			fputc('\n', err);
			st->missing++;
			continue;
		}
		if (e->used) /* two jobs with one id: cannot happen */
			continue;
		e->used = true;
		st->merged++;
		rc = report_dups(&in, e, ents + nr - 1, a, b, err,
				 &st->duplicated);
		if (!rc)
			rc = read_line(&in, e, a);
		if (!rc && fwrite(a, 1, e->len, out) != e->len)
			rc = -EIO;
	}
	for (i = 0; !rc && i < nr; i++) {
		if (ents[i].used || (i && ents[i - 1].id == ents[i].id))
			continue;
		fprintf(err, "not in the sweep: %016" PRIx64 " (%s)\n",
			ents[i].id, paths[ents[i].file]);
		st->unknown++;
	}
	rc = out_commit(out, tmp, out_path, rc, err);
	if (rc == -EIO)
		fprintf(err, "merge: read or write error\n");
out:
	if (rc == -ENOMEM)
		fprintf(err, "merge: out of memory\n");
	for (k = 0; in.f && k < nr_paths; k++)
		if (in.f[k])
			fclose(in.f[k]);
	free(in.f);
	free(job.sel);
	free(ents);
	free(a);
	free(b);
	return rc;
}
