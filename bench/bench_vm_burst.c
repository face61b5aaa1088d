// SPDX-License-Identifier: GPL-2.0-only
/*
 * B3, the VM-creation burst (docs/bench.md): N VMs brought up
 * back to back (KVM_CREATE_VM, KVM_CREATE_VCPU, first KVM_RUN) under each
 * recovery-worker policy:
 *   eager     profile 6.12: a kthread per VM at KVM_CREATE_VM
 *   deferred  profile 6.14: a vhost task per VM at the first KVM_RUN
 *   never     kvm.nx_huge_pages=never: no worker at all
 * on a virtual clock (workers are timers) and on the real clock (workers
 * are threads: the host's own thread-creation floor, not a model of KVM's
 * latency, which bench_vm_bringup.c gives in modelled kernel time).
 * References, interleaved with each policy:
 *   virtual   a no-op loop with the same per-VM timestamps and bookkeeping
 *   real      a raw pthread_create() burst of N parked threads
 *
 * The seed problem (0b210faf3373) is the latency of KVM_CREATE_VM in a
 * burst; deferring the worker moves its cost to the first KVM_RUN.  So the
 * ordering never < deferred < eager is checked where each step of it
 * lives: deferred's KVM_CREATE_VM is cheaper than eager's, and deferred's
 * bring-up costs more than never's.
 *
 * Left out: the kthread's cgroup attach (the 100 ms+ path of 2023) and any
 * vCPU work: libnxsim models neither, so a worker costs what a thread (or
 * a timer) costs here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <nxsim/host.h>
#include <nxsim/vm.h>

#include "harness.h"
#include "nx_env.h"

struct policy {
	const char *name;
	const char *profile;
	const char *cmdline;
};

static const struct policy policies[] = {
	{ "eager", "6.12", NULL },
	{ "deferred", "6.14", NULL },
	{ "never", "6.14", "kvm.nx_huge_pages=never" },
};

enum { EAGER, DEFERRED, NEVER, NR_POLICIES };

/* One libnxsim burst configuration, and what its reps measured. */
struct burst {
	const struct policy *pol;
	enum nxsim_clock_mode time;
	unsigned int n;
	struct nxsim_vm **vms;
	struct bench_samples create_lat; /* KVM_CREATE_VM alone, ns */
};

/* The real-clock reference: N raw threads that park until released. */
struct raw_burst {
	unsigned int n;
	pthread_t *threads;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool release;
};

/* The virtual-clock reference: the same loop around an empty call. */
struct noop_loop {
	unsigned int n;
	void **slots;
};

/* One burst: value = ns per VM, @lat += per-VM bring-up latency (ns). */
static int burst_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct burst *b = arg;
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = b->pol->profile,
		.cmdline = b->pol->cmdline,
		.time = b->time,
	};
	struct nxsim_host *host;
	struct nxsim_vcpu *vcpu;
	uint64_t start, t0, t1, t2;
	unsigned int i;
	int rc;

	rc = nxsim_host_create(&cfg, &host);
	if (rc)
		return rc;
	start = bench_now_ns();
	for (i = 0; i < b->n; i++) {
		t0 = bench_now_ns();
		rc = nxsim_vm_create(host, &b->vms[i]);
		if (rc)
			break;
		t1 = bench_now_ns();
		rc = nxsim_vcpu_create(b->vms[i], 0, &vcpu);
		if (!rc)
			rc = nxsim_vcpu_run(vcpu);
		t2 = bench_now_ns();
		if (!rc)
			rc = bench_samples_add(&b->create_lat,
					       (double)(t1 - t0));
		if (!rc)
			rc = bench_samples_add(lat, (double)(t2 - t0));
		if (rc) {
			i++;
			break;
		}
	}
	*value = (double)(bench_now_ns() - start) / b->n;
	if (nx_vms_destroy(host, b->vms, i) && !rc)
		rc = -EIO;
	return rc;
}

static void *raw_thread(void *arg)
{
	struct raw_burst *r = arg;

	pthread_mutex_lock(&r->lock);
	while (!r->release)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* One raw burst: value = ns per thread, @lat += pthread_create() (ns). */
static int raw_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct raw_burst *r = arg;
	uint64_t start, t0;
	unsigned int i;
	int rc = 0;

	r->release = false;
	start = bench_now_ns();
	for (i = 0; i < r->n; i++) {
		t0 = bench_now_ns();
		if (pthread_create(&r->threads[i], NULL, raw_thread, r)) {
			rc = -EAGAIN;
			break;
		}
		rc = bench_samples_add(lat, (double)(bench_now_ns() - t0));
		if (rc) {
			i++;
			break;
		}
	}
	*value = (double)(bench_now_ns() - start) / r->n;
	pthread_mutex_lock(&r->lock);
	r->release = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	while (i--)
		pthread_join(r->threads[i], NULL);
	return rc;
}

static __attribute__((noinline)) void *noop(void **slot)
{
	__asm__ volatile("" : : "r"(slot) : "memory");
	return slot;
}

/* The no-op loop: value = ns per iteration, @lat += per-iteration ns. */
static int noop_rep(void *arg, double *value, struct bench_samples *lat)
{
	struct noop_loop *l = arg;
	uint64_t start, t0;
	int rc = 0;

	start = bench_now_ns();
	for (unsigned int i = 0; i < l->n && !rc; i++) {
		t0 = bench_now_ns();
		l->slots[i] = noop(&l->slots[i]);
		rc = bench_samples_add(lat, (double)(bench_now_ns() - t0));
	}
	*value = (double)(bench_now_ns() - start) / l->n;
	return rc;
}

/* What one policy gave, kept for the ordering check and the plots. */
struct outcome {
	double create_p50, bringup_p50;
	struct bench_samples lat;     /* bring-up latencies, ns */
	struct bench_samples ref_lat; /* the reference's, ns */
};

/*
 * Record @nr figures of one burst: each @figs[i].figure is the last part of
 * the name, "<clock>.<policy>.N<n>." goes before it.
 */
static int report_burst(struct bench_ctx *ctx, const struct burst *b,
			const struct bench_pair *p, const char *params,
			struct bench_figure *figs, size_t nr)
{
	char fig[96];
	int rc = 0;

	for (size_t i = 0; i < nr && !rc; i++) {
		snprintf(fig, sizeof(fig), "%s.%s.N%u.%s",
			 b->time == NXSIM_CLOCK_REAL ? "real" : "virtual",
			 b->pol->name, b->n, figs[i].figure);
		figs[i].figure = fig;
		figs[i].params = params;
		figs[i].reps = (unsigned int)p->val[0].n;
		rc = bench_report(ctx, &figs[i]);
	}
	return rc;
}

static int report_virtual(struct bench_ctx *ctx, const struct burst *b,
			  struct bench_pair *p, const char *params,
			  struct outcome *o)
{
	const char *ref_lat = "no-op loop iteration, same percentile (ns)";
	struct bench_figure figs[] = {
		{ .figure = "bringups_per_s",
		  .unit = "VM/s",
		  .ref_name = "no-op loop with the same per-VM bookkeeping "
			      "(iterations/s)",
		  .target = { BENCH_TARGET_VALUE_MIN, 1.5e6 },
		  .from = p,
		  .mul = 1e9,
		  .inv = true },
		{ .figure = "bringup_p99",
		  .unit = "ns",
		  .ref_name = ref_lat,
		  .from = p,
		  .lat = true,
		  .pct = 99 },
		{ .figure = "create_p50",
		  .unit = "ns",
		  .value = o->create_p50,
		  .ref_name = ref_lat,
		  .ref = bench_samples_pct(&p->lat[1], 50) },
	};

	return report_burst(ctx, b, p, params, figs, ARRAY_SIZE(figs));
}

static int report_real(struct bench_ctx *ctx, const struct burst *b,
		       struct bench_pair *p, const char *params,
		       struct outcome *o)
{
	const char *ref_lat = "raw pthread_create() of a parked thread, "
			      "same N (us)";
	double ref_p50 = bench_samples_pct(&p->lat[1], 50) / 1e3;
	struct bench_figure figs[] = {
		{ .figure = "bringup_p50",
		  .unit = "us",
		  .ref_name = ref_lat,
		  .target = { BENCH_TARGET_RATIO_MAX, 1.2 },
		  .from = p,
		  .lat = true,
		  .pct = 50,
		  .mul = 1e-3 },
		{ .figure = "bringup_p99",
		  .unit = "us",
		  .ref_name = ref_lat,
		  .target = { BENCH_TARGET_RATIO_MAX, 1.2 },
		  .from = p,
		  .lat = true,
		  .pct = 99,
		  .mul = 1e-3 },
		{ .figure = "create_p50",
		  .unit = "us",
		  .value = o->create_p50 / 1e3,
		  .ref_name = ref_lat,
		  .ref = ref_p50 },
		{ .figure = "vms_per_s",
		  .unit = "VM/s",
		  .ref_name = "raw pthread_create() burst of N parked threads "
			      "(threads/s)",
		  .target = { BENCH_TARGET_RATIO_MIN, 1 / 1.2 },
		  .from = p,
		  .mul = 1e9,
		  .inv = true },
	};

	return report_burst(ctx, b, p, params, figs, ARRAY_SIZE(figs));
}

/* never < deferred < eager, each step where it lives. */
static int report_ordering(struct bench_ctx *ctx, const char *mode,
			   unsigned int n, const struct outcome *o,
			   double scale, const char *unit)
{
	char fig[64], text[256];
	bool met = o[NEVER].bringup_p50 < o[DEFERRED].bringup_p50 &&
		   o[DEFERRED].create_p50 < o[EAGER].create_p50;

	snprintf(fig, sizeof(fig), "%s.N%u.ordering", mode, n);
	snprintf(text, sizeof(text),
		 "never < deferred < eager: bring-up p50 never %.3g < "
		 "deferred %.3g %s; KVM_CREATE_VM p50 deferred %.3g < "
		 "eager %.3g %s",
		 o[NEVER].bringup_p50 / scale, o[DEFERRED].bringup_p50 / scale,
		 unit, o[DEFERRED].create_p50 / scale,
		 o[EAGER].create_p50 / scale, unit);
	return bench_report_check(ctx, fig, text, met);
}

static int plot_latencies(struct bench_ctx *ctx, const char *mode,
			  unsigned int n, struct outcome *o,
			  const char *ref_title)
{
	struct bench_samples s[NR_POLICIES + 1];
	const char *titles[NR_POLICIES + 1];
	char name[64], title[160];

	for (int i = 0; i < NR_POLICIES; i++) {
		s[i] = o[i].lat;
		titles[i] = policies[i].name;
		for (size_t j = 0; j < s[i].n; j++)
			s[i].v[j] /= 1e3;
	}
	s[NR_POLICIES] = o[EAGER].ref_lat;
	titles[NR_POLICIES] = ref_title;
	for (size_t j = 0; j < s[NR_POLICIES].n; j++)
		s[NR_POLICIES].v[j] /= 1e3;
	snprintf(name, sizeof(name), "burst_latency_%s_N%u", mode, n);
	/* on the real clock a worker is a thread: this host's thread
	 * creation is what is measured, not KVM's bring-up */
	if (!strcmp(mode, "real"))
		snprintf(title, sizeof(title),
			 "this host's thread creation under a burst of %u "
			 "libnxsim VMs (real clock; KVM's latency: "
			 "bringup_*)",
			 n);
	else
		snprintf(title, sizeof(title),
			 "VM bring-up latency in a burst of %u VMs (virtual "
			 "clock: workers are timers)",
			 n);
	return bench_plot_cdf(ctx, name, title, "latency (us)", s, titles,
			      NR_POLICIES + 1);
}

/* Unrecorded bursts before the reps (see warm_up()). */
#define WARM_UP_BURSTS 3

/*
 * Bursts not recorded, before the reps: the first bursts of a process map
 * the memory the allocator then reuses.  A page fault costs 15-60 us on
 * the reference machine, 50x a virtual bring-up; the first burst takes
 * about one per VM, the second and third a few, when their slabs spill
 * past the first one's memory, and the fourth none.  Without these the
 * median of five reps at N=200 was a cold one.
 */
static int warm_up(struct burst *b, struct bench_pair *p)
{
	double value;
	int rc = 0;

	for (int k = 0; k < WARM_UP_BURSTS && !rc; k++)
		rc = burst_rep(b, &value, &p->lat[0]);
	bench_samples_free(&b->create_lat);
	bench_samples_free(&p->lat[0]);
	return rc;
}

/* Every policy at one (clock, N), each interleaved with its reference. */
static int run_config(struct bench_ctx *ctx, enum nxsim_clock_mode time,
		      unsigned int n, unsigned int reps)
{
	const char *mode = time == NXSIM_CLOCK_REAL ? "real" : "virtual";
	struct outcome o[NR_POLICIES] = { 0 };
	struct raw_burst raw = { .n = n };
	struct noop_loop loop = { .n = n };
	struct nxsim_vm **vms = calloc(n, sizeof(*vms));
	char what[64], params[192];
	int rc = -ENOMEM;

	raw.threads = calloc(n, sizeof(*raw.threads));
	loop.slots = calloc(n, sizeof(*loop.slots));
	pthread_mutex_init(&raw.lock, NULL);
	pthread_cond_init(&raw.cond, NULL);
	if (!vms || !raw.threads || !loop.slots)
		goto out;

	for (int i = 0; i < NR_POLICIES; i++) {
		struct burst b = {
			.pol = &policies[i], .time = time, .n = n, .vms = vms
		};
		struct bench_side sides[2] = {
			{ policies[i].name, burst_rep, &b },
			time == NXSIM_CLOCK_REAL ?
				(struct bench_side){ "raw pthread burst",
						     raw_rep, &raw } :
				(struct bench_side){ "no-op loop", noop_rep,
						     &loop },
		};
		struct bench_pair p = { 0 };

		snprintf(what, sizeof(what), "%s %s N=%u", mode,
			 policies[i].name, n);
		rc = warm_up(&b, &p);
		if (!rc)
			rc = bench_interleave(ctx, what, reps, sides, &p);
		if (!rc) {
			snprintf(params, sizeof(params),
				 "{\"clock\":\"%s\",\"policy\":\"%s\","
				 "\"profile\":\"%s\",\"cmdline\":\"%s\","
				 "\"N\":%u,\"itlb_multihit\":true}",
				 mode, policies[i].name, policies[i].profile,
				 policies[i].cmdline ? policies[i].cmdline : "",
				 n);
			o[i].create_p50 = bench_samples_pct(&b.create_lat, 50);
			o[i].bringup_p50 = bench_samples_pct(&p.lat[0], 50);
			rc = time == NXSIM_CLOCK_REAL ?
				     report_real(ctx, &b, &p, params, &o[i]) :
				     report_virtual(ctx, &b, &p, params, &o[i]);
		}
		/* keep the latencies for the plot */
		o[i].lat = p.lat[0];
		o[i].ref_lat = p.lat[1];
		p.lat[0] = p.lat[1] = (struct bench_samples){ 0 };
		bench_pair_free(&p);
		bench_samples_free(&b.create_lat);
		if (rc)
			goto out;
	}
	rc = report_ordering(ctx, mode, n, o,
			     time == NXSIM_CLOCK_REAL ? 1e3 : 1,
			     time == NXSIM_CLOCK_REAL ? "us" : "ns");
	if (!rc)
		rc = plot_latencies(ctx, mode, n, o,
				    time == NXSIM_CLOCK_REAL ?
					    "raw pthread_create" :
					    "no-op loop");
out:
	for (int i = 0; i < NR_POLICIES; i++) {
		bench_samples_free(&o[i].lat);
		bench_samples_free(&o[i].ref_lat);
	}
	pthread_cond_destroy(&raw.cond);
	pthread_mutex_destroy(&raw.lock);
	free(loop.slots);
	free(raw.threads);
	free(vms);
	return rc;
}

static int report_published(struct bench_ctx *ctx)
{
	static const struct {
		const char *figure, *text, *source;
	} pub[] = {
		{ "kvm_create_vm_kthread",
		  "KVM_CREATE_VM 23.6 / 76.7 / 109.1 ms with the per-VM "
		  "kthread, 0.518 / 0.495 / 0.513 ms with "
		  "nx_huge_pages=never (kvmtool, strace -T)",
		  "Luiz Capitulino, reply to lore 20230602005859.784190-1-"
		  "seanjc@google.com, June 2023 (docs/sources.md)" },
		{ "kthread_create_histogram",
		  "kvm_vm_create_worker_thread under 800-900 idle VMs: "
		  "p50 ~65 us, p99 in the 8-17 ms bucket, avg 815 us",
		  "zhuangel/misc test/kvm_irqfd_fork/test.log, 2023 "
		  "(docs/sources.md; percentiles computed from it)" },
		{ "pthread_burst_reference_machine",
		  "parked pthread burst, 8 MiB stacks: create() p50 34-38 us, "
		  "p99 84-122 us, 37.6-44.3 ms per 1000 threads",
		  "pthread-burst probe on the 2-core reference machine, not "
		  "this run (docs/bench.md)" },
		{ "firecracker_rate", "up to 150 microVMs per second per host",
		  "Agache et al., Firecracker, NSDI 2020" },
	};
	int rc = 0;

	for (size_t i = 0; i < ARRAY_SIZE(pub) && !rc; i++)
		rc = bench_report_published(ctx, pub[i].figure, pub[i].text,
					    pub[i].source);
	return rc;
}

static int vm_burst_run(struct bench_ctx *ctx)
{
	/* burst sizes per mode, 0-terminated */
	static const unsigned int sizes[][4] = {
		[BENCH_TINY] = { 20 },
		[BENCH_QUICK] = { 200, 1000 },
		[BENCH_FULL] = { 200, 500, 1000 },
	};
	const unsigned int *ns = sizes[ctx->mode];
	unsigned int reps = bench_reps(ctx);
	int rc = 0;

	for (size_t i = 0; i < 4 && ns[i] && !rc; i++)
		rc = run_config(ctx, NXSIM_CLOCK_VIRTUAL, ns[i], reps);
	for (size_t i = 0; i < 4 && ns[i] && !rc; i++)
		rc = run_config(ctx, NXSIM_CLOCK_REAL, ns[i], reps);
	return rc ? rc : report_published(ctx);
}

const struct bench bench_vm_burst = {
	.name = "vm_burst",
	.title = "B3: VM-creation burst per worker policy (eager, deferred, "
		 "never), virtual and real clock",
	.run = vm_burst_run,
};
