// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running a shard of a sweep on N threads.  Threads take jobs in order
 * from a shared counter and run each on a driver of their own; the lines
 * go out in job order through a window of 4 lines a thread, so the output
 * of N threads is the output of one, byte for byte, and memory does not
 * grow with the job count (a thread that gets a window's length ahead of
 * the oldest unfinished job waits for it).  With --progress, a line on
 * stderr at most once a second (wall time, which no result line holds)
 * says how far the shard is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

/* A slot of the window holding a job whose line is not to be written. */
static char skipped[] = "";

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * "nxsim-sweep: 12 of 960 jobs (0 failed), 3 s, about 237 s left": the
 * jobs whose lines are out, the jobs that failed of those finished, the
 * estimate from the jobs run so far (not the resumed ones); once a second
 * at most while jobs are left (under the lock), and once at the end.
 */
static void show_progress(struct nxsim__sweep_pool *p)
{
	uint64_t ran = p->written - p->resumed;
	struct timespec now;
	double t;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->written < p->nr && since(&p->shown, &now) < 1.0)
		return;
	p->shown = now;
	t = since(&p->start, &now);
	fprintf(p->progress,
		"nxsim-sweep: %" PRIu64 " of %" PRIu64 " jobs (%" PRIu64
		" failed), %.0f s",
		p->written, p->nr, p->failed, t);
	if (p->written < p->nr && ran)
		fprintf(p->progress, ", about %.0f s left",
			t / (double)ran * (double)(p->nr - p->written));
	fputc('\n', p->progress);
	fflush(p->progress);
}

/* Under the lock: writes the lines that are next in order. */
static void flush_window(struct nxsim__sweep_pool *p)
{
	char **slot;

	while (!p->error && *(slot = &p->window[p->written % p->size])) {
		if (*slot != skipped) {
			size_t len = strlen(*slot);

			if (fwrite(*slot, 1, len, p->out) != len ||
			    fflush(p->out))
				p->error = -EIO;
			free(*slot);
		} else {
			p->resumed++;
		}
		*slot = NULL;
		p->written++;
	}
	if (p->progress && !p->error && p->written < p->nr)
		show_progress(p);
	pthread_cond_broadcast(&p->moved);
}

static void *worker(void *arg)
{
	struct nxsim__sweep_pool *p = arg;
	struct nxsim__sweep_job job;
	uint64_t seq;
	char *line;
	int rc;

	job.sel = calloc(p->s->nr_axes + 1, sizeof(*job.sel));
	pthread_mutex_lock(&p->lock);
	if (!job.sel)
		p->error = -ENOMEM;
	for (;;) {
		while (!p->error && p->next < p->nr &&
		       p->next >= p->written + p->size)
			pthread_cond_wait(&p->moved, &p->lock);
		if (p->error || p->next >= p->nr)
			break;
		seq = p->next++;
		pthread_mutex_unlock(&p->lock);

		nxsim__sweep_job(p->s, p->k + seq * p->n, &job);
		line = skipped;
		rc = 0;
		if (!nxsim__sweep_done_has(p->done, job.id))
			rc = nxsim__sweep_run_job(p->s, &job, &line);

		pthread_mutex_lock(&p->lock);
		if (rc < 0) {
			p->error = rc;
			break;
		}
		p->failed += rc;
		p->window[seq % p->size] = line;
		flush_window(p);
	}
	pthread_cond_broadcast(&p->moved);
	pthread_mutex_unlock(&p->lock);
	free(job.sel);
	return NULL;
}

int nxsim__sweep_run(struct nxsim__sweep_pool *p, unsigned int threads)
{
	pthread_t *tid = calloc(threads, sizeof(*tid));
	unsigned int i, started = 0;
	size_t w;

	p->nr = nxsim__sweep_shard_size(p->s->nr_jobs, p->k, p->n);
	p->next = p->written = p->failed = p->resumed = 0;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->shown = p->start;
	p->error = 0;
	p->size = 4 * threads;
	p->window = calloc(p->size, sizeof(*p->window));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->moved, NULL);
	if (!tid || !p->window)
		p->error = -ENOMEM;
	for (i = 0; !p->error && i < threads; i++, started++)
		if (pthread_create(&tid[i], NULL, worker, p))
			break;
	if (!started)
		p->error = p->error ? p->error : -EAGAIN;
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	/* the last line, also for a shard without jobs */
	if (p->progress && !p->error)
		show_progress(p);
	for (w = 0; p->window && w < p->size; w++)
		if (p->window[w] != skipped)
			free(p->window[w]);
	free(p->window);
	free(tid);
	pthread_cond_destroy(&p->moved);
	pthread_mutex_destroy(&p->lock);
	return p->error;
}
