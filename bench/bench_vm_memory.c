// SPDX-License-Identifier: GPL-2.0-only
/*
 * B8, memory per idle VM (docs/bench.md): the bytes the
 * simulator holds per idle VM (one vCPU, after its first KVM_RUN, with and
 * without a recovery worker), read from the allocator's exact live_bytes
 * counter over a population of N VMs.
 *
 * Reference, interleaved: the resident-set growth per parked real pthread
 * (default 8 MiB stack), read from /proc/self/statm over N threads that
 * are all alive and parked: what one real thread per VM would cost.
 *
 * frame.bytes: bytes per simulated 4 KiB frame of an XPFO machine: the
 * growth of the allocator's live bytes from a machine of 2^16 frames to one
 * of 2^20, per frame (the frame table and the physmap's per-2M/1G split
 * bitmaps; the CPUs' TLBs are the same in both).  frame.table_bytes is the
 * frame table's share of it, as nxsim_xpfo_memory() reports it, against
 * the target of at most 16 B.  Neither has a measured reference: the
 * target is absolute (the kernel spends a 64-byte struct page per frame,
 * quoted, not measured).
 *
 * Left out: the simulator's RSS, which a jemalloc arena that keeps freed
 * pages would blur.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include <nxsim/alloc.h>
#include <nxsim/host.h>
#include <nxsim/vm.h>
#include <nxsim/xpfo.h>

#include "harness.h"
#include "nx_env.h"

struct sim_side {
	const char *profile, *cmdline;
	unsigned int n;
	struct nxsim_vm **vms;
};

struct thread_side {
	unsigned int n, parked;
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t cond, all_parked;
	bool release;
};

/* value = live bytes per idle VM. */
static int sim_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct sim_side *s = arg;
	struct nxsim_host_config cfg = { .cpu.itlb_multihit = true,
					 .profile = s->profile,
					 .cmdline = s->cmdline };
	struct nxsim_alloc_stats before, after;
	struct nxsim_host *host;
	struct nxsim_vcpu *vcpu;
	unsigned int i;
	int rc, err;

	rc = nxsim_host_create(&cfg, &host);
	if (rc)
		return rc;
	nxsim_alloc_stats(&before);
	for (i = 0; i < s->n; i++) {
		rc = nxsim_vm_create(host, &s->vms[i]);
		if (rc)
			break;
		rc = nxsim_vcpu_create(s->vms[i], 0, &vcpu);
		if (!rc)
			rc = nxsim_vcpu_run(vcpu);
		if (rc) {
			i++;
			break;
		}
	}
	nxsim_alloc_stats(&after);
	*value = (double)(after.live_bytes - before.live_bytes) / s->n;
	err = nx_vms_destroy(host, s->vms, i);
	return rc ? rc : err;
}

static void *parked_thread(void *arg)
{
	struct thread_side *t = arg;

	pthread_mutex_lock(&t->lock);
	if (++t->parked == t->n)
		pthread_cond_signal(&t->all_parked);
	while (!t->release)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* value = RSS growth per parked thread, bytes. */
static int thread_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct thread_side *t = arg;
	long before = nx_rss_bytes(), after;
	unsigned int i;
	int rc = 0;

	t->parked = 0;
	t->release = false;
	for (i = 0; i < t->n; i++)
		if (pthread_create(&t->threads[i], NULL, parked_thread, t)) {
			rc = -EAGAIN;
			break;
		}
	pthread_mutex_lock(&t->lock);
	while (!rc && t->parked < t->n)
		pthread_cond_wait(&t->all_parked, &t->lock);
	pthread_mutex_unlock(&t->lock);
	after = nx_rss_bytes();
	pthread_mutex_lock(&t->lock);
	t->release = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	while (i--)
		pthread_join(t->threads[i], NULL);
	if (before < 0 || after < 0)
		return rc ? rc : -EIO;
	*value = (double)(after - before) / t->n;
	return rc;
}

static int run_config(struct bench_ctx *ctx, const char *name,
		      const char *profile, const char *cmdline, unsigned int n)
{
	struct sim_side sim = { .profile = profile,
				.cmdline = cmdline,
				.n = n };
	struct thread_side th = { .n = n };
	struct bench_side sides[2] = {
		{ "idle simulated VMs", sim_rep, &sim },
		{ "parked real pthreads", thread_rep, &th },
	};
	struct bench_pair p = { 0 };
	char fig[64], params[160];
	int rc = -ENOMEM;

	sim.vms = calloc(n, sizeof(*sim.vms));
	th.threads = calloc(n, sizeof(*th.threads));
	pthread_mutex_init(&th.lock, NULL);
	pthread_cond_init(&th.cond, NULL);
	pthread_cond_init(&th.all_parked, NULL);
	if (sim.vms && th.threads)
		rc = bench_interleave(ctx, name, bench_reps(ctx), sides, &p);
	if (!rc) {
		snprintf(fig, sizeof(fig), "%s.N%u.bytes_per_vm", name, n);
		snprintf(params, sizeof(params),
			 "{\"N\":%u,\"profile\":\"%s\",\"cmdline\":\"%s\","
			 "\"vcpus\":1,\"alloc\":\"%s\"}",
			 n, profile, cmdline ? cmdline : "",
			 nxsim_alloc_backend());
		rc = bench_report_pair(
			ctx, &p,
			&(struct bench_figure){
				.figure = fig,
				.unit = "B",
				.ref_name =
					"RSS growth per parked real pthread, 8 MiB "
					"stack (B)",
				.target = { BENCH_TARGET_VALUE_MAX, 65536 },
				.params = params });
	}
	bench_pair_free(&p);
	pthread_cond_destroy(&th.all_parked);
	pthread_cond_destroy(&th.cond);
	pthread_mutex_destroy(&th.lock);
	free(th.threads);
	free(sim.vms);
	return rc;
}

/*
 * Live bytes of a 1-CPU machine of @frames frames (made and freed), and
 * the part its frame table takes.
 */
static int machine_bytes(uint64_t frames, double *bytes, double *table)
{
	struct nxsim_xpfo_config cfg = { .nr_cpus = 1,
					 .nr_frames = frames,
					 .version = NXSIM_XPFO_V8 };
	struct nxsim_alloc_stats before, after;
	struct nxsim_xpfo_memory mem;
	struct nxsim_xpfo *m;
	int rc;

	nxsim_alloc_stats(&before);
	rc = nxsim_xpfo_create(&cfg, &m);
	if (rc)
		return rc;
	nxsim_alloc_stats(&after);
	*bytes = (double)(after.live_bytes - before.live_bytes);
	rc = nxsim_xpfo_memory(m, &mem);
	*table = (double)mem.frame_table;
	nxsim_xpfo_destroy(m);
	return rc;
}

static int frame_bytes(struct bench_ctx *ctx)
{
	const uint64_t small = 1ull << 16, big = 1ull << 20;
	const char *ref_name = "none: an absolute target (the kernel's "
			       "struct page is 64 B per frame)";
	double b_small, b_big, t_small, t_big;
	char params[160];
	int rc;

	rc = machine_bytes(small, &b_small, &t_small);
	if (!rc)
		rc = machine_bytes(big, &b_big, &t_big);
	if (rc)
		return rc;
	snprintf(params, sizeof(params),
		 "{\"frames\":[%" PRIu64 ",%" PRIu64
		 "],\"live_bytes\":[%.0f,%.0f],"
		 "\"alloc\":\"%s\"}",
		 small, big, b_small, b_big, nxsim_alloc_backend());
	rc = bench_report(
		ctx, &(struct bench_figure){ .figure = "frame.bytes",
					     .unit = "B",
					     .value = (b_big - b_small) /
						      (double)(big - small),
					     .ref_name = ref_name,
					     .ref = NAN,
					     .params = params,
					     .reps = 1 });
	if (rc)
		return rc;
	return bench_report(
		ctx, &(struct bench_figure){
			     .figure = "frame.table_bytes",
			     .unit = "B",
			     .value = (t_big - t_small) / (double)(big - small),
			     .ref_name = ref_name,
			     .ref = NAN,
			     .target = { BENCH_TARGET_VALUE_MAX, 16 },
			     .params = params,
			     .reps = 1 });
}

static int vm_memory_run(struct bench_ctx *ctx)
{
	unsigned int n = ctx->mode == BENCH_TINY ? 20 : 1000;
	int rc;

	rc = run_config(ctx, "with_worker", "6.14", NULL, n);
	if (!rc)
		rc = run_config(ctx, "never", "6.14", "kvm.nx_huge_pages=never",
				n);
	if (!rc)
		rc = frame_bytes(ctx);
	if (!rc)
		rc = bench_report_published(
			ctx, "firecracker_vmm",
			"VMM memory overhead <= 5 MiB per microVM",
			"Firecracker SPECIFICATION.md (docs/sources.md)");
	return rc;
}

const struct bench bench_vm_memory = {
	.name = "vm_memory",
	.title = "B8: bytes per idle simulated VM vs RSS per parked pthread; "
		 "bytes per XPFO frame",
	.run = vm_memory_run,
};
