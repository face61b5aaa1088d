// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running a shard of a sweep on N threads.  Threads take jobs in order
 * from a shared counter and run each on a driver of their own; the lines
 * go out in job order through a window of 4 lines a thread, so the output
 * of N threads is the output of one, byte for byte, and memory does not
 * grow with the job count (a thread that gets a window's length ahead of
 * the oldest unfinished job waits for it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

/* A slot of the window holding a job whose line is not to be written. */
static char skipped[] = "";

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
		}
		*slot = NULL;
		p->written++;
	}
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
	p->next = p->written = p->failed = 0;
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
	for (w = 0; p->window && w < p->size; w++)
		if (p->window[w] != skipped)
			free(p->window[w]);
	free(p->window);
	free(tid);
	pthread_cond_destroy(&p->moved);
	pthread_mutex_destroy(&p->lock);
	return p->error;
}
