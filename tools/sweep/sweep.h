/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * nxsim-sweep: runs a grid of nxsim driver scripts ("jobs") described by a
 * sweep file (docs/sweep.md) and writes one JSON line per job.  A job runs
 * in-process through the driver's own interpreter (tools/nxsim/driver.h);
 * its results are the key=value words of its OK answers.
 *
 * The job list is never held: job i's values are computed from i (the
 * last axis varies fastest), so listing or running 10^5 jobs takes the
 * memory of one.  What it leaves out: it does not schedule anything across
 * machines (GNU parallel and Slurm do, one shard each) and it cannot
 * survive a job that crashes the process.
 */
#ifndef NXSIM_TOOLS_SWEEP_H
#define NXSIM_TOOLS_SWEEP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "driver.h"

/* One axis: a name and its values, unquoted (a value may hold NULs). */
struct nxsim__sweep_axis {
	char *name;
	struct nxsim__drv_tok *vals;
	size_t nr_vals;
	unsigned long line; /* where the sweep file declares it */
	uint64_t stride;    /* jobs between two values of this axis */
};

/**
 * struct nxsim__sweep - a loaded sweep file
 * @axes: in file order; the last varies fastest
 * @nr_axes: how many
 * @tmpl: the run lines, each ending in '\n', ${NAME} not yet replaced
 *	(a quoted word may hold a NUL byte: the length is @tmpl_len)
 * @tmpl_len: its bytes
 * @seed: the seed of every job when no axis is named "seed"
 * @seed_axis: the index of the axis named "seed", or -1
 * @nr_jobs: the product of the axes' sizes
 */
struct nxsim__sweep {
	struct nxsim__sweep_axis *axes;
	size_t nr_axes;
	char *tmpl;
	size_t tmpl_len;
	uint64_t seed;
	int seed_axis;
	uint64_t nr_jobs;
};

/* The values one job takes: sel[a] indexes axes[a].vals. */
struct nxsim__sweep_job {
	uint64_t index;
	uint64_t id;
	uint64_t seed;
	size_t *sel;
};

/**
 * nxsim__sweep_load() - read and check a sweep file
 * @s: filled on success; nxsim__sweep_free() it
 * @f: the file
 * @name: its name, for messages
 * @err: where a message "NAME:LINE: what" goes
 *
 * Return: 0, -EINVAL for a file that is wrong (the message says where),
 * -ENOMEM.  On failure @s holds nothing to free.
 */
int nxsim__sweep_load(struct nxsim__sweep *s, FILE *f, const char *name,
		      FILE *err);
void nxsim__sweep_free(struct nxsim__sweep *s);

/* A job of @s (sel sized nr_axes) set to job @index: values, id, seed. */
void nxsim__sweep_job(const struct nxsim__sweep *s, uint64_t index,
		      struct nxsim__sweep_job *job);
/* The job's script: the template with its values; -ENOMEM. */
int nxsim__sweep_script(const struct nxsim__sweep *s,
			const struct nxsim__sweep_job *job, char **buf,
			size_t *len);
/* Writes " NAME=VALUE" for each axis, quoted as the driver quotes. */
void nxsim__sweep_params(const struct nxsim__sweep *s,
			 const struct nxsim__sweep_job *job, FILE *f);

/**
 * nxsim__sweep_shard() - parse a shard spec "K/N"
 * @spec: the argument
 * @k: receives K, 0 <= K < N
 * @n: receives N, 1 <= N <= 2^32
 * @why: receives what is wrong
 *
 * Return: 0 or -EINVAL.
 */
int nxsim__sweep_shard(const char *spec, uint64_t *k, uint64_t *n,
		       const char **why);
/* How many jobs of @total shard @k of @n holds (indices k, k+n, ...). */
uint64_t nxsim__sweep_shard_size(uint64_t total, uint64_t k, uint64_t n);

/**
 * nxsim__sweep_run_job() - run one job and make its JSON line
 * @s: the sweep
 * @job: the job
 * @line: receives the line, '\n' included (malloc'd; free it)
 *
 * Return: 0 when every command answered OK and every expect held, 1 when
 * the job failed (the line says why), -ENOMEM (no line).
 */
int nxsim__sweep_run_job(const struct nxsim__sweep *s,
			 const struct nxsim__sweep_job *job, char **line);

/* Whether @len bytes are UTF-8 (RFC 3629; NULs allowed). */
bool nxsim__sweep_utf8(const char *s, size_t len);

/**
 * nxsim__sweep_line_id() - parse a result line
 * @line: the line (its '\n' may be included)
 * @len: its length
 * @id: receives its "id" (16 lowercase hex digits)
 * @obj: receives the parsed line (json_decref() it), or NULL
 * @why: receives what is wrong, on failure
 * @why_size: its size
 *
 * The whole line must be one JSON object, however it is spaced.
 *
 * Return: 0, or -EINVAL for a line that is not a result line.
 */
int nxsim__sweep_line_id(const char *line, size_t len, uint64_t *id,
			 json_t **obj, char *why, size_t why_size);

/* results.c: the ids a result file holds, sorted */
struct nxsim__sweep_done {
	uint64_t *ids;
	size_t nr;
};

/**
 * nxsim__sweep_done_load() - the ids of @f's result lines, for --resume
 * @done: receives them; free(done->ids)
 * @f: the output file, open for reading and writing
 * @name: its name, for messages
 * @err: where messages go
 *
 * A last line without its newline (a run killed while writing it) is cut
 * off the file, so the run can append after the last complete line.
 *
 * Return: 0, -EINVAL (a line that is not a result line), -EIO, -ENOMEM.
 */
int nxsim__sweep_done_load(struct nxsim__sweep_done *done, FILE *f,
			   const char *name, FILE *err);
bool nxsim__sweep_done_has(const struct nxsim__sweep_done *done, uint64_t id);
int nxsim__sweep_cmp_id(const void *a, const void *b);

struct nxsim__sweep_merge_stats {
	uint64_t merged;     /* jobs written */
	uint64_t missing;    /* jobs of the sweep no file holds */
	uint64_t duplicated; /* lines beyond the first of a job */
	uint64_t unknown;    /* ids not in the sweep */
};

/**
 * nxsim__sweep_merge() - combine result files in job order
 * @s: the sweep they ran
 * @paths: the result files
 * @nr_paths: how many
 * @out_path: where the merged lines go (NULL: stdout): a temporary file
 *	beside it, made once every input has been read and checked, renamed
 *	over it at the end; it may not be one of the inputs
 * @err: where the report goes: one line per missing, duplicated or unknown
 *	job
 * @st: receives the counts
 *
 * The first line of a job wins; duplicates are reported identical or
 * DIFFERENT.
 *
 * Return: 0; -EINVAL for an input that cannot be read or holds a line that
 * is not a result line, or an output that is an input (nothing written);
 * -EIO; -ENOMEM.  On failure @out_path is as it was.
 */
int nxsim__sweep_merge(const struct nxsim__sweep *s, char *const *paths,
		       int nr_paths, const char *out_path, FILE *err,
		       struct nxsim__sweep_merge_stats *st);

/**
 * struct nxsim__sweep_pool - one run of a shard (pool.c)
 * @s: the sweep; set by the caller
 * @done: jobs to skip (--resume); set by the caller, may be empty
 * @k: shard K of @n; set by the caller
 * @n: shard count; set by the caller (1: every job)
 * @out: where the lines go; set by the caller
 * @progress: where a progress line goes at most once a second and when the
 *	shard is done (--progress), or NULL; set by the caller
 * @nr: jobs in the shard
 * @next: the next job (of the shard) a thread takes
 * @written: the next job whose line goes out
 * @window: the lines of jobs @written to @written + @size - 1
 * @size: 4 a thread
 * @lock: guards everything from @next on
 * @moved: signalled when @written moves or the run stops
 * @failed: jobs that failed
 * @resumed: jobs skipped because @done has them
 * @start: when the run began (CLOCK_MONOTONIC), for @progress
 * @shown: when @progress was last written
 * @error: -ENOMEM or -EIO: the run stopped
 */
struct nxsim__sweep_pool {
	const struct nxsim__sweep *s;
	const struct nxsim__sweep_done *done;
	uint64_t k, n;
	FILE *out;
	FILE *progress;
	uint64_t nr;
	uint64_t next;
	uint64_t written;
	char **window;
	size_t size;
	pthread_mutex_t lock;
	pthread_cond_t moved;
	uint64_t failed;
	uint64_t resumed;
	struct timespec start, shown;
	int error;
};

/**
 * nxsim__sweep_run() - run the jobs of a shard on @threads threads
 * @p: the run; its caller-set fields filled
 * @threads: at least 1
 *
 * Return: 0 (@p->failed jobs failed, each with its line), -ENOMEM, -EIO
 * (@p->out could not be written) or -EAGAIN (no thread could start).
 */
int nxsim__sweep_run(struct nxsim__sweep_pool *p, unsigned int threads);

#endif /* NXSIM_TOOLS_SWEEP_H */
