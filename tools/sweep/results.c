// SPDX-License-Identifier: GPL-2.0-only
/*
 * Result files: the ids a file already holds (for --resume), and merge,
 * which writes the result lines of several files in job order and reports
 * the jobs missing, duplicated, or not in the sweep.  Merge holds an
 * index entry (24 bytes) per line, not the lines.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
 * must be a result line; a last line without its '\n' (a run that was
 * killed) is dropped, and its offset reported in *@end.
 */
static int index_file(FILE *f, const char *name, uint16_t file,
		      struct entry **ents, size_t *nr, off_t *end, FILE *err)
{
	char *line = NULL;
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
		if (nxsim__sweep_line_id(line, len, &e->id) ||
		    (size_t)len > UINT32_MAX) {
			fprintf(err, "%s:%lu: not a result line\n", name,
				lineno);
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

/* Copies @e's line from its file to @out; -EIO. */
static int copy_line(FILE *const *files, const struct entry *e, char *buf,
		     FILE *out)
{
	FILE *f = files[e->file];

	if (fseeko(f, e->off, SEEK_SET) || fread(buf, 1, e->len, f) != e->len)
		return -EIO;
	return fwrite(buf, 1, e->len, out) == e->len ? 0 : -EIO;
}

/* The duplicates of @e (the first of its id): "identical" or not. */
static int report_dups(FILE *const *files, const struct entry *e,
		       const struct entry *last, char *a, char *b, FILE *err,
		       uint64_t *dups)
{
	const struct entry *d;
	bool same = true;

	for (d = e + 1; d <= last && d->id == e->id; d++) {
		if (fseeko(files[e->file], e->off, SEEK_SET) ||
		    fread(a, 1, e->len, files[e->file]) != e->len ||
		    fseeko(files[d->file], d->off, SEEK_SET) ||
		    fread(b, 1, d->len, files[d->file]) != d->len)
			return -EIO;
		same &= d->len == e->len && !memcmp(a, b, e->len);
		(*dups)++;
	}
	if (d > e + 1)
		fprintf(err, "duplicated: %016" PRIx64 " (%zu lines, %s)\n",
			e->id, (size_t)(d - e),
			same ? "identical" : "DIFFERENT");
	return 0;
}

int nxsim__sweep_merge(const struct nxsim__sweep *s, char *const *paths,
		       int nr_paths, const char *out_path, FILE *err,
		       struct nxsim__sweep_merge_stats *st)
{
	FILE *out = stdout;
	struct nxsim__sweep_job job = { 0 };
	struct entry *ents = NULL, *e;
	size_t nr = 0, i, maxlen = 0;
	FILE **files = calloc(nr_paths, sizeof(*files));
	char *a = NULL, *b = NULL;
	int rc = 0, k;

	memset(st, 0, sizeof(*st));
	job.sel = calloc(s->nr_axes + 1, sizeof(*job.sel));
	if (!files || !job.sel || nr_paths > UINT16_MAX)
		rc = nr_paths > UINT16_MAX ? -E2BIG : -ENOMEM;
	for (k = 0; !rc && k < nr_paths; k++) {
		off_t end;

		files[k] = fopen(paths[k], "r");
		if (!files[k]) {
			fprintf(err, "%s: %s\n", paths[k], strerror(errno));
			rc = -EINVAL;
			break;
		}
		rc = index_file(files[k], paths[k], k, &ents, &nr, &end, err);
		if (!rc && fseeko(files[k], 0, SEEK_END) == 0 &&
		    ftello(files[k]) != end) {
			fprintf(err, "%s: last line incomplete\n", paths[k]);
			rc = -EINVAL;
		}
	}
	if (rc)
		goto out;
	qsort(ents, nr, sizeof(*ents), cmp_entry);
	for (i = 0; i < nr; i++)
		maxlen = ents[i].len > maxlen ? ents[i].len : maxlen;
	a = malloc(maxlen + 1);
	b = malloc(maxlen + 1);
	if (!a || !b) {
		rc = -ENOMEM;
		goto out;
	}
	if (out_path && !(out = fopen(out_path, "w"))) {
		fprintf(err, "%s: %s\n", out_path, strerror(errno));
		rc = -EINVAL;
		goto out;
	}
	for (job.index = 0; !rc && job.index < s->nr_jobs; job.index++) {
		nxsim__sweep_job(s, job.index, &job);
		e = find(ents, nr, job.id);
		if (!e) {
			struct nxsim__drv_reply r = { .len = 0 };

			nxsim__sweep_params(s, &job, &r);
			fprintf(err, "missing: %016" PRIx64 "%s\n", job.id,
				r.buf);
			st->missing++;
			continue;
		}
		if (e->used) /* two jobs with one id: cannot happen */
			continue;
		e->used = true;
		st->merged++;
		rc = report_dups(files, e, ents + nr - 1, a, b, err,
				 &st->duplicated);
		if (!rc)
			rc = copy_line(files, e, a, out);
	}
	for (i = 0; !rc && i < nr; i++) {
		if (ents[i].used || (i && ents[i - 1].id == ents[i].id))
			continue;
		fprintf(err, "not in the sweep: %016" PRIx64 " (%s)\n",
			ents[i].id, paths[ents[i].file]);
		st->unknown++;
	}
	if ((out == stdout ? fflush(out) : fclose(out)) && !rc)
		rc = -EIO;
	if (rc == -EIO)
		fprintf(err, "merge: read or write error\n");
out:
	if (rc == -ENOMEM)
		fprintf(err, "merge: out of memory\n");
	for (k = 0; files && k < nr_paths; k++)
		if (files[k])
			fclose(files[k]);
	free(files);
	free(job.sel);
	free(ents);
	free(a);
	free(b);
	return rc;
}
