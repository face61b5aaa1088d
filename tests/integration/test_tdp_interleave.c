// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two vCPUs' TDP faults under mmu_lock held for read, run in a chosen
 * order: the MMU's scheduling hook (nxsim__mmu_set_sched_hook()) stops a
 * thread at a named point and hands a baton to the other, so each
 * interleaving runs the same way every time, stamped on a virtual clock.
 *
 *   flag_after_link   6.6, exec fault A stops after publishing its new 4K
 *                     table; read fault B in the same 2 MiB region runs.
 *                     Fixed order (61f94478547b): B sees the flag, steps
 *                     down and maps 4K in A's table.  With
 *                     NXSIM_BUG_TDP_FLAG_AFTER_LINK: B replaces the table
 *                     with a huge page (invariant 5), A finds its table
 *                     frozen, retries and splits the huge page again.
 *   link_race         A stops with its table filled but not published; B
 *                     links its own; A's compare-and-exchange fails
 *                     (-EBUSY), A retries and uses B's table; A's page goes
 *                     back to its cache.
 *   invalidate_seq    A stops after reading mmu_invalidate_seq; B remaps
 *                     the host (start, zap, end): A's fault is stale and
 *                     retries (mmu_invalidate_retry_gfn()).
 *   invalidate_range  B stops between invalidate_range_start() and _end();
 *                     A faults in the range, retries, and hands back at
 *                     its retry; B ends; A's second try maps.
 *   memslot_delete    A deletes a slot and stops with it invalid, zapped
 *                     and still in the memslots; B's fault there retries
 *                     (KVM_MEMSLOT_INVALID) until A has removed it, then
 *                     is emulated: legacy and TDP MMU.
 *   determinism       flag_after_link twice: the same events at the same
 *                     virtual times.
 *   lock_mode         which mode of mmu_lock a fault and the dirty-logging
 *                     walks hold, per profile: a hook tries a read lock
 *                     from another thread (it fails under the write lock).
 *   recovery_lock_break  6.18's recovery under the read lock yields
 *                     mmu_lock after each SP (a writer gets in); 6.12's
 *                     does not.
 *   fault_alloc_failures  every allocation of a first fault, under the write
 *                     lock (5.10) and the read lock (6.18), failed in turn:
 *                     -ENOMEM, nothing leaked, no table built.
 */
#include <pthread.h>

#include <nxsim/clock.h>

#include "kvm/vm.h"
#include "mmu/mmu_internal.h"
#include "integration/nx_test.h"

#define REGION(n) (GIB + (n)*MIB2)
#define ANY_LEVEL (-1)
#define DONE NXSIM__NR_SCHED_POINTS /* a thread's last event */

/* When @thread reaches @point at @level, hand the baton to @to. */
struct step {
	int thread;
	enum nxsim__sched_point point;
	int level;
	int to;
};

struct event {
	int thread;
	int point;
	int level;
	uint64_t t;
};

struct sched {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	int turn; /* the thread that may run, -1 when both are done */
	const struct step *script;
	unsigned int nsteps, next;
	struct event log[96];
	unsigned int nlog;
	bool done[2];
	struct nxsim_clock *clock;
};

struct actor {
	struct sched *s;
	int id;
	int (*op)(struct actor *a);
	struct nx_env *e;
	struct nxsim_vcpu *vcpu;
	enum nxsim_access_kind kind;
	uint64_t gpa;
	struct nxsim_access_info info;
	int rc;
};

static _Thread_local int me = -1;

static void record(struct sched *s, int point, int level)
{
	nxsim_clock_advance(s->clock, 1000);
	assert_true(s->nlog < sizeof(s->log) / sizeof(s->log[0]));
	s->log[s->nlog++] =
		(struct event){ me, point, level, nxsim_clock_now(s->clock) };
}

static void wait_turn(struct sched *s)
{
	while (s->turn != me)
		pthread_cond_wait(&s->cv, &s->lock);
}

static void hook(void *ctx, enum nxsim__sched_point p, uint64_t gfn, int level)
{
	struct sched *s = ctx;
	const struct step *st;

	(void)gfn;
	if (me < 0)
		return;
	pthread_mutex_lock(&s->lock);
	record(s, p, level);
	st = s->next < s->nsteps ? &s->script[s->next] : NULL;
	if (st && st->thread == me && st->point == p &&
	    (st->level == ANY_LEVEL || st->level == level)) {
		s->next++;
		s->turn = st->to;
		pthread_cond_broadcast(&s->cv);
		wait_turn(s);
	}
	pthread_mutex_unlock(&s->lock);
}

static void *actor_thread(void *p)
{
	struct actor *a = p;
	struct sched *s = a->s;

	me = a->id;
	pthread_mutex_lock(&s->lock);
	wait_turn(s);
	pthread_mutex_unlock(&s->lock);
	a->rc = a->op(a);
	pthread_mutex_lock(&s->lock);
	record(s, DONE, 0);
	s->done[me] = true;
	s->turn = s->done[!me] ? -1 : !me;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int op_access(struct actor *a)
{
	return nxsim_vcpu_access(a->vcpu, a->kind, a->gpa, &a->info);
}

/* Remap the 2 MiB at REGION(0) with 4K host pages. */
static int op_remap(struct actor *a)
{
	return nxsim_vm_set_host_level(a->e->vm, 0, 0, MIB2, NXSIM_PG_LEVEL_4K);
}

/* Run @a[0] first, then as the script says. */
static void run(struct sched *s, struct nx_env *e, struct actor a[2],
		const struct step *script, unsigned int nsteps)
{
	pthread_t t[2];
	int i;

	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->script = script;
	s->nsteps = nsteps;
	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &s->clock), 0);
	nxsim__mmu_set_sched_hook(e->vm->mmu, hook, s);
	for (i = 0; i < 2; i++) {
		a[i].s = s;
		a[i].id = i;
		a[i].e = e;
		assert_int_equal(
			pthread_create(&t[i], NULL, actor_thread, &a[i]), 0);
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	nxsim__mmu_set_sched_hook(e->vm->mmu, NULL, NULL);
	assert_int_equal(s->next, nsteps); /* every hand-over happened */
	assert_rc(a[0].rc, 0);
	assert_rc(a[1].rc, 0);
	assert_rc(nxsim_clock_destroy(s->clock), 0);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->lock);
}

/* A 6.6 VM with one 1 GiB slot of 2M host pages; REGION(1) read huge. */
static struct nx_env setup(uint64_t bugs, struct nxsim_vcpu **vcpu2)
{
	struct nx_env e = nx_env("6.6", bugs);

	nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
	assert_rc(nxsim_vcpu_create(e.vm, 1, vcpu2), 0);
	assert_int_equal(nx_access(e.vcpu, NXSIM_ACCESS_READ, REGION(1)).level,
			 2);
	return e;
}

static uint64_t retries(struct nx_env *e)
{
	return __atomic_load_n(&e->vm->mmu->fault_retries, __ATOMIC_RELAXED);
}

/* A: exec at REGION(0) + 4K; B: read at REGION(0) + 8K; B after A's link. */
static const struct step flag_script[] = {
	{ 0, NXSIM__SCHED_LINKED, 2, 1 },
};

static void flag_after_link(uint64_t bugs, struct sched *s)
{
	struct nxsim_vcpu *vcpu2;
	struct nx_env e = setup(bugs, &vcpu2);
	struct actor a[2] = {
		{ .op = op_access,
		  .vcpu = e.vcpu,
		  .kind = NXSIM_ACCESS_EXEC,
		  .gpa = REGION(0) + 0x1000 },
		{ .op = op_access,
		  .vcpu = vcpu2,
		  .kind = NXSIM_ACCESS_READ,
		  .gpa = REGION(0) + 0x2000 },
	};

	run(s, &e, a, flag_script, 1);
	assert_int_equal(a[0].info.level, 1);
	if (!bugs) {
		assert_int_equal(a[0].info.outcome, NXSIM_ACCESS_FAULT);
		/* B stepped down at the flagged table: 4K in A's table */
		assert_int_equal(a[1].info.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(a[1].info.level, 1);
		assert_int_equal(a[1].info.goal_level, 1);
		assert_int_equal(retries(&e), 0);
		/* REGION(1) huge; A's and B's 4K leaves; A's table tracked */
		nx_expect(e.vm, 2, 1, 0, 1);
	} else {
		/* B kept its 2M goal and replaced the table */
		assert_int_equal(a[1].info.outcome, NXSIM_ACCESS_FAULT);
		assert_int_equal(a[1].info.level, 2);
		/*
		 * A walked into its frozen table, retried and split B's page:
		 * the split made the 4K children executable, so the fetch
		 * needed nothing more
		 */
		assert_int_equal(retries(&e), 1);
		assert_int_equal(a[0].info.splits, 1);
		assert_int_equal(a[0].info.outcome, NXSIM_ACCESS_SPURIOUS);
		assert_int_equal(nx_caught(e.vm, "invariant 5: huge SPTE at "
						 "level 2 gfn 0x40002 replaced "
						 "a table flagged"),
				 1);
		/* the split left 512 4K leaves; its table is tracked */
		nx_expect(e.vm, 512, 1, 0, 1);
	}
	nx_env_destroy(&e);
}

static void test_flag_after_link(void **state)
{
	struct sched s = { 0 };

	(void)state;
	flag_after_link(0, &s);
	/* A: FAULTIN, WALK 4, 3, 2, LINK 2, LINKED 2 -> B: FAULTIN ... */
	assert_int_equal(s.log[5].thread, 0);
	assert_int_equal(s.log[5].point, NXSIM__SCHED_LINKED);
	assert_int_equal(s.log[6].thread, 1);
	assert_int_equal(s.log[6].point, NXSIM__SCHED_FAULTIN);
}

static void test_flag_after_link_bug(void **state)
{
	struct sched s = { 0 };

	(void)state;
	flag_after_link(NXSIM_BUG_TDP_FLAG_AFTER_LINK, &s);
}

/* Same seed, same script: the same events at the same virtual times. */
static void test_determinism(void **state)
{
	struct sched s1 = { 0 }, s2 = { 0 };
	unsigned int i;

	(void)state;
	flag_after_link(NXSIM_BUG_TDP_FLAG_AFTER_LINK, &s1);
	flag_after_link(NXSIM_BUG_TDP_FLAG_AFTER_LINK, &s2);
	assert_int_equal(s1.nlog, s2.nlog);
	for (i = 0; i < s1.nlog; i++) {
		assert_int_equal(s1.log[i].thread, s2.log[i].thread);
		assert_int_equal(s1.log[i].point, s2.log[i].point);
		assert_int_equal(s1.log[i].level, s2.log[i].level);
		assert_int_equal(s1.log[i].t, s2.log[i].t);
	}
	assert_int_equal(s1.log[s1.nlog - 1].t, s1.nlog * 1000ull);
}

/* A stops with its table built; B links its own first. */
static const struct step link_script[] = {
	{ 0, NXSIM__SCHED_LINK, 2, 1 },
};

static void test_link_race(void **state)
{
	struct nxsim_vcpu *vcpu2;
	struct nx_env e = setup(0, &vcpu2);
	struct actor a[2] = {
		{ .op = op_access,
		  .vcpu = e.vcpu,
		  .kind = NXSIM_ACCESS_EXEC,
		  .gpa = REGION(0) + 0x1000 },
		{ .op = op_access,
		  .vcpu = vcpu2,
		  .kind = NXSIM_ACCESS_EXEC,
		  .gpa = REGION(0) + 0x2000 },
	};
	struct sched s = { 0 };
	long pages;

	(void)state;
	pages = nxsim_vm_nr_mmu_pages(e.vm);
	run(&s, &e, a, link_script, 1);
	assert_int_equal(retries(&e), 1);
	assert_int_equal(a[0].info.level, 1);
	assert_int_equal(a[1].info.level, 1);
	/* one new table, B's; A's page went back to its vCPU's cache */
	assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), pages + 1);
	assert_int_equal(e.vcpu->mmu.mmu_cache.nobjs,
			 (unsigned int)e.vm->mmu->root_level);
	nx_expect(e.vm, 2, 1, 0, 1);
	nx_env_destroy(&e);
}

/* A read mmu_invalidate_seq; B's whole remap runs before A locks. */
static const struct step seq_script[] = {
	{ 0, NXSIM__SCHED_FAULTIN, 0, 1 },
};

static void test_invalidate_seq(void **state)
{
	struct nxsim_vcpu *vcpu2;
	struct nx_env e = setup(0, &vcpu2);
	struct actor a[2] = {
		{ .op = op_access,
		  .vcpu = e.vcpu,
		  .kind = NXSIM_ACCESS_READ,
		  .gpa = REGION(0) },
		{ .op = op_remap },
	};
	struct sched s = { 0 };

	(void)state;
	run(&s, &e, a, seq_script, 1);
	/* stale: one retry, then 4K as the host now maps */
	assert_int_equal(retries(&e), 1);
	assert_int_equal(a[0].info.level, 1);
	assert_int_equal(e.vm->mmu->mmu_invalidate_seq, 1);
	nx_expect(e.vm, 1, 1, 0, 0);
	nx_env_destroy(&e);
}

/*
 * B stops inside its invalidation; A faults in the range and retries, at
 * each retry handing back, until B's invalidation ends.
 */
static const struct step range_script[] = {
	{ 0, NXSIM__SCHED_FAULTIN, 0, 1 },
	{ 1, NXSIM__SCHED_INVALIDATE, NXSIM_PG_LEVEL_4K, 0 },
	{ 0, NXSIM__SCHED_RETRY, 0, 1 },
};

static void test_invalidate_range(void **state)
{
	struct nxsim_vcpu *vcpu2;
	struct nx_env e = setup(0, &vcpu2);
	struct actor a[2] = {
		{ .op = op_access,
		  .vcpu = e.vcpu,
		  .kind = NXSIM_ACCESS_READ,
		  .gpa = REGION(0) + 0x3000 },
		{ .op = op_remap },
	};
	struct sched s = { 0 };

	(void)state;
	run(&s, &e, a, range_script, 3);
	/* in progress at the first try; the retry reads the new sequence */
	assert_int_equal(retries(&e), 1);
	assert_int_equal(a[0].info.level, 1);
	assert_int_equal(e.vm->mmu->mmu_invalidate_in_progress, 0);
	nx_expect(e.vm, 1, 1, 0, 0);
	nx_env_destroy(&e);
}

/* Delete slot 0 (KVM_MR_DELETE). */
static int op_delete(struct actor *a)
{
	struct nxsim_memory_region mr = { .slot = 0 };

	return nxsim_vm_set_memory_region(a->e->vm, &mr);
}

/*
 * A deletes the slot and stops with it invalid and zapped but still in
 * the memslots (6.1 virt/kvm/kvm_main.c kvm_invalidate_memslot()); B
 * faults in it and retries (KVM_MEMSLOT_INVALID in kvm_faultin_pfn()),
 * handing back; A removes the slot; B's retry finds no slot: emulated.
 */
static const struct step memslot_script[] = {
	{ 0, NXSIM__SCHED_MEMSLOT, ANY_LEVEL, 1 },
	{ 1, NXSIM__SCHED_RETRY, ANY_LEVEL, 0 },
};

static void test_memslot_delete(void **state)
{
	static const struct {
		const char *profile;
		bool no_tdp_mmu;
	} cases[] = {
		{ "6.1", true },  /* the legacy MMU: kvm.tdp_mmu=0 */
		{ "6.1", false }, /* the TDP MMU */
		{ "5.10", true },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu = { .itlb_multihit = true,
				 .no_tdp_mmu = cases[i].no_tdp_mmu },
			.profile = cases[i].profile,
		};
		struct nx_env e = nx_env_config(&cfg);
		struct nxsim_vcpu *vcpu2;
		struct actor a[2] = {
			{ .op = op_delete },
			{ .op = op_access,
			  .kind = NXSIM_ACCESS_READ,
			  .gpa = REGION(1) },
		};
		struct sched s = { 0 };

		nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
		assert_rc(nxsim_vcpu_create(e.vm, 1, &vcpu2), 0);
		a[1].vcpu = vcpu2;
		assert_int_equal(
			nx_access(e.vcpu, NXSIM_ACCESS_READ, REGION(0)).level,
			2);
		run(&s, &e, a, memslot_script, 2);
		assert_int_equal(retries(&e), 1);
		assert_int_equal(a[1].info.outcome, NXSIM_ACCESS_EMULATE);
		nx_expect(e.vm, 0, 0, 0, 0);
		nx_env_destroy(&e);
	}
}

struct lock_probe {
	struct nxsim__vm_mmu *mmu;
	enum nxsim__sched_point point;
	int seen;     /* hook calls at @point */
	int readable; /* of those, with another reader let in */
};

/* A reader gets in: this thread's slot of mmu_lock lets it read. */
static void *try_read(void *p)
{
	struct lock_probe *lp = p;
	pthread_rwlock_t *slot =
		&nxsim__rwlock_reader_slot(&lp->mmu->mmu_lock)->lock;

	if (pthread_rwlock_tryrdlock(slot))
		return NULL;
	pthread_rwlock_unlock(slot);
	return lp;
}

static void probe(void *ctx, enum nxsim__sched_point p, uint64_t gfn, int level)
{
	struct lock_probe *lp = ctx;
	pthread_t t;
	void *rc;

	(void)gfn;
	(void)level;
	if (p != lp->point)
		return;
	assert_int_equal(pthread_create(&t, NULL, try_read, lp), 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	lp->seen++;
	lp->readable += rc != NULL;
}

static void test_lock_mode(void **state)
{
	static const struct {
		const char *profile;
		bool fault_read, dirty_log_read;
		unsigned int
			walks; /* eager split (kvm.eager_page_split), wrprot */
	} cases[] = {
		{ "5.10", false, false, 1 },
		{ "6.1", true, true, 2 },
		{ "6.18", true, true, 2 },
	};
	struct nxsim_memory_region mr = {
		.slot = 0,
		.flags = NXSIM_MEM_LOG_DIRTY_PAGES,
		.guest_phys_addr = GIB,
		.memory_size = GIB,
		.userspace_addr = HVA_BASE,
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nxsim_host_config cfg = {
			.cpu = { .itlb_multihit = true, .tdp_mmu = true },
			.profile = cases[i].profile,
		};
		struct lock_probe lp = { .point = NXSIM__SCHED_WALK };
		struct nx_env e = nx_env_config(&cfg);

		lp.mmu = e.vm->mmu;
		nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
		nx_access(e.vcpu, NXSIM_ACCESS_READ, GIB);
		nxsim__mmu_set_sched_hook(lp.mmu, probe, &lp);
		/* a fault: one WALK point per level down to 2M */
		nx_access(e.vcpu, NXSIM_ACCESS_EXEC, GIB + MIB2);
		assert_int_equal(lp.seen, 4);
		assert_int_equal(lp.readable, cases[i].fault_read ? 4 : 0);
		/*
		 * dirty logging on: the yield points of the eager split's
		 * walk (under the read lock, as
		 * kvm_mmu_slot_try_split_huge_pages() takes it) and of the
		 * write-protect walk, one root entry each
		 */
		lp = (struct lock_probe){ .mmu = lp.mmu,
					  .point = NXSIM__SCHED_RESCHED };
		assert_rc(nxsim_vm_set_memory_region(e.vm, &mr), 0);
		assert_int_equal(lp.seen, cases[i].walks);
		assert_int_equal(lp.readable,
				 cases[i].dirty_log_read ? cases[i].walks : 0);
		nxsim__mmu_set_sched_hook(lp.mmu, NULL, NULL);
		nx_env_destroy(&e);
	}
}

/* A writer gets in: every slot of mmu_lock lets it write. */
static void *try_write(void *p)
{
	struct lock_probe *lp = p;
	struct nxsim__rwlock *l = &lp->mmu->mmu_lock;
	unsigned int i, got = 0;

	while (got <= l->mask && !pthread_rwlock_trywrlock(&l->slot[got].lock))
		got++;
	for (i = 0; i < got; i++)
		pthread_rwlock_unlock(&l->slot[i].lock);
	return got > l->mask ? lp : NULL;
}

static void probe_write(void *ctx, enum nxsim__sched_point p, uint64_t gfn,
			int level)
{
	struct lock_probe *lp = ctx;
	pthread_t t;
	void *rc;

	(void)gfn;
	(void)level;
	if (p != lp->point)
		return;
	assert_int_equal(pthread_create(&t, NULL, try_write, lp), 0);
	assert_int_equal(pthread_join(t, &rc), 0);
	lp->seen++;
	lp->readable += rc != NULL;
}

/*
 * Recovery of three split regions: 6.18 runs it under the read lock and
 * breaks the lock after each SP (a writer gets in there); 6.12 holds the
 * write lock throughout, with no such yield.
 */
static void test_recovery_lock_break(void **state)
{
	static const struct {
		const char *profile;
		int yields;
	} cases[] = { { "6.12", 0 }, { "6.18", 3 } };
	unsigned int i, r;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct nx_env e = nx_env(cases[i].profile, 0);
		struct lock_probe lp = { .mmu = e.vm->mmu,
					 .point = NXSIM__SCHED_RESCHED };

		nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
		for (r = 0; r < 3; r++)
			nx_access(e.vcpu, NXSIM_ACCESS_EXEC, REGION(r));
		nx_expect(e.vm, 3, 0, 0, 3);
		nxsim__mmu_set_sched_hook(lp.mmu, probe_write, &lp);
		nxsim__mmu_recover_nx_huge_pages(lp.mmu);
		nxsim__mmu_set_sched_hook(lp.mmu, NULL, NULL);
		assert_int_equal(lp.seen, cases[i].yields);
		assert_int_equal(lp.readable, cases[i].yields);
		nx_expect(e.vm, 0, 0, 0, 0);
		nx_env_destroy(&e);
	}
}

static int op_exec(void *ctx)
{
	struct nx_env *e = ctx;

	return nxsim_vcpu_access(e->vcpu, NXSIM_ACCESS_EXEC, GIB + 0x5000,
				 NULL);
}

static void no_tables(void *ctx)
{
	struct nx_env *e = ctx;

	assert_int_equal(nxsim_vm_nr_mmu_pages(e->vm), 0);
	assert_int_equal(e->vcpu->mmu.mmu_cache.nobjs, 0);
	nx_check_ok(e->vm);
}

static void test_fault_alloc_failures(void **state)
{
	static const char *const profiles[] = { "5.10", "6.18" };
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(profiles); i++) {
		struct nxsim_host_config cfg = {
			.cpu = { .itlb_multihit = true, .tdp_mmu = true },
			.profile = profiles[i],
		};
		struct nx_env e = nx_env_config(&cfg);

		nx_slot(e.vm, 0, GIB, GIB, HVA_BASE, 2, 0);
		/*
		 * five pages (two blocks each), the table of frame chunks
		 * and its first chunk
		 */
		assert_int_equal(
			test_alloc_failures(op_exec, NULL, no_tables, &e), 12);
		/* root, PDPT, PD and the PT the fetch needs */
		assert_int_equal(nxsim_vm_nr_mmu_pages(e.vm), 4);
		nx_env_destroy(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_after_link),
		cmocka_unit_test(test_flag_after_link_bug),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_link_race),
		cmocka_unit_test(test_invalidate_seq),
		cmocka_unit_test(test_invalidate_range),
		cmocka_unit_test(test_memslot_delete),
		cmocka_unit_test(test_lock_mode),
		cmocka_unit_test(test_fault_alloc_failures),
		cmocka_unit_test(test_recovery_lock_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
