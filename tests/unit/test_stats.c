// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters as data (include/nxsim/stats.h): every descriptor table covers
 * its struct whole, in field order, with unique names; values read through
 * a descriptor are the struct's; nxsim_xpfo_rates() computes each rate
 * from the counters it names.
 */
#include <math.h>
#include <string.h>

#include "common/test_util.h"

static const size_t set_size[NXSIM_STATS_NR_SETS] = {
	[NXSIM_STATS_ALLOC] = sizeof(struct nxsim_alloc_stats),
	[NXSIM_STATS_HOST] = sizeof(struct nxsim_host_counters),
	[NXSIM_STATS_VM] = sizeof(struct nxsim_vm_counters),
	[NXSIM_STATS_MMU] = sizeof(struct nxsim_mmu_counters),
	[NXSIM_STATS_TLB] = sizeof(struct nxsim_tlb_stats),
	[NXSIM_STATS_XPFO] = sizeof(struct nxsim_xpfo_stats),
	[NXSIM_STATS_XPFO_ORACLE] = sizeof(struct nxsim_xpfo_oracle),
	[NXSIM_STATS_XPFO_CPU] = sizeof(struct nxsim_xpfo_cpu_info),
	[NXSIM_STATS_XPFO_EXPOSURE] = sizeof(struct nxsim_xpfo_frame_exposure),
	[NXSIM_STATS_XPFO_RESULT] = sizeof(struct nxsim_xpfo_result),
	[NXSIM_STATS_XPFO_RATES] = sizeof(struct nxsim_xpfo_rates),
	[NXSIM_STATS_TRACE] = sizeof(struct nxsim_trace_stats),
	[NXSIM_STATS_TRACE_REPLAY] = sizeof(struct nxsim_trace_replay),
	[NXSIM_STATS_TRACE_TLB_REPLAY] = sizeof(struct nxsim_trace_tlb_replay),
	[NXSIM_STATS_VM_STATS] = sizeof(struct nxsim_vm_stats),
	[NXSIM_STATS_WORKER] = sizeof(struct nxsim_worker_info),
	[NXSIM_STATS_ACCESS] = sizeof(struct nxsim_access_info),
	[NXSIM_STATS_XPFO_FRAME] = sizeof(struct nxsim_xpfo_frame_info),
	[NXSIM_STATS_BRINGUP_COSTS] = sizeof(struct nxsim_bringup_costs),
	/* up to the parts left out: the histogram, the per-VM arrays */
	[NXSIM_STATS_BRINGUP_LATENCY] =
		offsetof(struct nxsim_bringup_stats, hist),
	[NXSIM_STATS_BRINGUP_RESULT] =
		offsetof(struct nxsim_bringup_result, create_ns),
	[NXSIM_STATS_VCPU] = sizeof(struct nxsim_vcpu_stats),
	[NXSIM_STATS_WORKLOAD_RESULT] = sizeof(struct nxsim_workload_result),
	[NXSIM_STATS_XPFO_COSTS] = sizeof(struct nxsim_xpfo_costs),
};

static size_t type_size(enum nxsim_stat_type t)
{
	switch (t) {
	case NXSIM_STAT_U64:
	case NXSIM_STAT_DOUBLE:
	case NXSIM_STAT_TIME:
		return 8;
	case NXSIM_STAT_U32:
	case NXSIM_STAT_ENUM:
	case NXSIM_STAT_INT:
		return 4;
	case NXSIM_STAT_U16:
		return 2;
	case NXSIM_STAT_BOOL:
	case NXSIM_STAT_U8:
		return 1;
	}
	fail_msg("unknown type %d", t);
	return 0;
}

/*
 * Each table: fields in increasing offset order, no overlap, and every
 * byte of the struct a described field or the padding that aligns the
 * next one.  The structs of the two result sets hold three nested sets
 * each; they are left out of them and counted here as covered.
 */
static void test_stats_cover_structs(void **state)
{
	for (unsigned int s = 0; s < NXSIM_STATS_NR_SETS; s++) {
		const struct nxsim_stat_desc *d;
		size_t end = 0, align = 8;
		unsigned int i, j;

		assert_non_null(nxsim_stats_set_name(s));
		if (s == NXSIM_STATS_XPFO_RESULT)
			end = offsetof(struct nxsim_xpfo_result, events);
		else if (s == NXSIM_STATS_BRINGUP_RESULT)
			end = offsetof(struct nxsim_bringup_result,
				       makespan_ns);
		else
			align = 1;
		for (i = 0; (d = nxsim_stats_desc(s, i)); i++) {
			size_t sz = type_size(d->type);

			/* no gap but the alignment padding */
			assert_int_equal(d->offset, (end + sz - 1) / sz * sz);
			end = d->offset + sz;
			align = sz > align ? sz : align;
			assert_non_null(d->meaning);
			assert_true(strlen(d->meaning) > 0);
			/* value names exactly for enums */
			assert_int_equal(d->value_name != NULL,
					 d->type == NXSIM_STAT_ENUM);
			for (j = 0; j < i; j++)
				assert_string_not_equal(
					nxsim_stats_desc(s, j)->name, d->name);
			assert_ptr_equal(nxsim_stats_find(s, d->name), d);
		}
		assert_true(i > 0);
		/* and the tail padding to the largest field's alignment */
		assert_int_equal(set_size[s],
				 (end + align - 1) / align * align);
		assert_null(nxsim_stats_find(s, "no_such_field"));
	}
	assert_null(nxsim_stats_desc(NXSIM_STATS_NR_SETS, 0));
	assert_null(nxsim_stats_set_name(NXSIM_STATS_NR_SETS));
}

/* Reading through a descriptor gives the field, for every type. */
static void test_stats_values(void **state)
{
	struct nxsim_tlb_stats t = { .hits = { 1, 2, 3 }, .broadcasts = 99 };
	struct nxsim_xpfo_cpu_info ci = { .domain = 65535,
					  .pending_flush = true,
					  .exposure_sum_ns = UINT64_MAX };
	struct nxsim_xpfo_result res = { .system_ratio = 2.5,
					 .wall_ratio = NAN };
	char buf[32];

	assert_int_equal(
		nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_TLB, "hits_l1i"),
			       &t),
		2);
	assert_int_equal(
		nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_TLB, "hits_l2"),
			       &t),
		3);
	assert_int_equal(
		nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_TLB, "broadcasts"),
			       &t),
		99);
	assert_int_equal(
		nxsim_stat_u64(nxsim_stats_desc(NXSIM_STATS_XPFO_CPU, 0), &ci),
		65535);
	assert_int_equal(nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_XPFO_CPU,
							 "pending_flush"),
					&ci),
			 1);
	assert_int_equal(
		nxsim_stat_format(nxsim_stats_find(NXSIM_STATS_XPFO_CPU,
						   "exposure_sum_ns"),
				  &ci, buf, sizeof(buf)),
		20);
	assert_string_equal(buf, "18446744073709551615");
	nxsim_stat_format(nxsim_stats_find(NXSIM_STATS_XPFO_RESULT,
					   "system_ratio"),
			  &res, buf, sizeof(buf));
	assert_string_equal(buf, "2.5");
	assert_true(nxsim_stat_double(nxsim_stats_find(NXSIM_STATS_XPFO_RESULT,
						       "system_ratio"),
				      &res) == 2.5);
	assert_int_equal(
		nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_XPFO_RESULT,
						"system_ratio"),
			       &res),
		2);
	/* NAN has no integer value */
	assert_int_equal(
		nxsim_stat_u64(nxsim_stats_find(NXSIM_STATS_XPFO_RESULT,
						"wall_ratio"),
			       &res),
		0);
	nxsim_stat_format(nxsim_stats_find(NXSIM_STATS_XPFO_RESULT,
					   "wall_ratio"),
			  &res, buf, sizeof(buf));
	assert_string_equal(buf, "nan");
}

/*
 * An enum formats as its value's name (its number past the last name), a
 * time as its number or "never"; both read as numbers.  An int is signed.
 * The VM stats have the kernel's names, in kvm_vm_stats_desc's order.
 */
static void test_stats_enum_time(void **state)
{
	static const char *const states[] = { "none", "running", "killed",
					      "stopped" };
	static const char *const kernel[] = { "pages_4k", "pages_2m",
					      "pages_1g", "nx_lpage_splits" };
	const struct nxsim_stat_desc *st =
		nxsim_stats_find(NXSIM_STATS_WORKER, "state");
	const struct nxsim_stat_desc *dl =
		nxsim_stats_find(NXSIM_STATS_WORKER, "deadline_ns");
	struct nxsim_worker_info wi = { .deadline_ns = NXSIM_NEVER };
	char buf[32];

	assert_int_equal(st->type, NXSIM_STAT_ENUM);
	for (unsigned int i = 0; i < ARRAY_SIZE(states); i++) {
		wi.state = (enum nxsim_worker_state)i;
		assert_int_equal(nxsim_stat_u64(st, &wi), i);
		assert_int_equal(nxsim_stat_format(st, &wi, buf, sizeof(buf)),
				 strlen(states[i]));
		assert_string_equal(buf, states[i]);
		assert_string_equal(st->value_name(i), states[i]);
	}
	assert_null(st->value_name(ARRAY_SIZE(states)));
	wi.state = (enum nxsim_worker_state)9;
	nxsim_stat_format(st, &wi, buf, sizeof(buf));
	assert_string_equal(buf, "9");

	assert_int_equal(dl->type, NXSIM_STAT_TIME);
	assert_true(nxsim_stat_u64(dl, &wi) == NXSIM_NEVER);
	nxsim_stat_format(dl, &wi, buf, sizeof(buf));
	assert_string_equal(buf, "never");
	wi.deadline_ns = NXSIM_NEVER - 1;
	nxsim_stat_format(dl, &wi, buf, sizeof(buf));
	assert_string_equal(buf, "18446744073709551614");
	wi.deadline_ns = 0;
	nxsim_stat_format(dl, &wi, buf, sizeof(buf));
	assert_string_equal(buf, "0");

	/* an int reads as its two's complement and formats signed */
	struct nxsim_access_info ai = { .outcome = NXSIM_ACCESS_EMULATE,
					.req_level = -2 };
	struct nxsim_xpfo_frame_info fi = { .owner = NXSIM_XPFO_USER,
					    .physmap_shift = 30 };

	st = nxsim_stats_find(NXSIM_STATS_ACCESS, "req_level");
	assert_int_equal(st->type, NXSIM_STAT_INT);
	assert_true(nxsim_stat_u64(st, &ai) == (uint64_t)-2);
	assert_true(nxsim_stat_double(st, &ai) == -2.0);
	nxsim_stat_format(st, &ai, buf, sizeof(buf));
	assert_string_equal(buf, "-2");
	nxsim_stat_format(nxsim_stats_desc(NXSIM_STATS_ACCESS, 0), &ai, buf,
			  sizeof(buf));
	assert_string_equal(buf, "emulate");
	nxsim_stat_format(nxsim_stats_desc(NXSIM_STATS_XPFO_FRAME, 0), &fi, buf,
			  sizeof(buf));
	assert_string_equal(buf, "user");
	st = nxsim_stats_find(NXSIM_STATS_XPFO_FRAME, "physmap_shift");
	assert_int_equal(st->type, NXSIM_STAT_U8);
	assert_int_equal(nxsim_stat_u64(st, &fi), 30);

	for (unsigned int i = 0; i < ARRAY_SIZE(kernel); i++) {
		assert_string_equal(
			nxsim_stats_desc(NXSIM_STATS_VM_STATS, i)->name,
			kernel[i]);
		assert_string_equal(nxsim_vm_stat_name(i), kernel[i]);
	}
	assert_null(nxsim_stats_desc(NXSIM_STATS_VM_STATS, ARRAY_SIZE(kernel)));
	assert_null(nxsim_vm_stat_name(ARRAY_SIZE(kernel)));
}

/* Each rate is its counters per 1000 allocations and frees. */
/* The XPFO cost set names the rows of nxsim_xpfo_cost_info(), in order. */
static void test_xpfo_costs_set(void **state)
{
	const struct nxsim_stat_desc *d;
	struct nxsim_xpfo_costs c;
	const char *name;
	uint32_t cycles;
	unsigned int i;

	(void)state;
	nxsim_xpfo_costs_default(&c);
	for (i = 0; !nxsim_xpfo_cost_info(i, &name, &cycles, NULL); i++) {
		d = nxsim_stats_desc(NXSIM_STATS_XPFO_COSTS, i);
		assert_non_null(d);
		assert_string_equal(d->name, name);
		assert_int_equal(nxsim_stat_u64(d, &c), cycles);
	}
	assert_null(nxsim_stats_desc(NXSIM_STATS_XPFO_COSTS, i));
}

static void test_xpfo_rates(void **state)
{
	struct nxsim_xpfo_result res = {
		.xpfo = { .alloc_kernel = 100,
			  .alloc_user = 150,
			  .frees = 250,
			  .policy_flushes = 40 },
		.tlb = { .range_flushes = 7,
			 .full_flushes = 3,
			 .invlpg = 20,
			 .cr3_flush = 4,
			 .global_flush = 1,
			 .ipis_sent = 9,
			 .ipi_targets = 27,
			 .broadcasts = 5 },
	};
	struct nxsim_xpfo_rates r;

	assert_rc(nxsim_xpfo_rates(&res, &r), 0);
	assert_int_equal(r.ownership_changes, 500);
	assert_true(r.shootdowns_per_1k == 20.0);
	assert_true(r.local_flushes_per_1k == 50.0);
	assert_true(r.ipis_per_1k == 18.0);
	assert_true(r.ipi_targets_per_1k == 54.0);
	assert_true(r.broadcasts_per_1k == 10.0);
	assert_true(r.policy_flushes_per_1k == 80.0);

	memset(&res.xpfo, 0, sizeof(res.xpfo));
	assert_rc(nxsim_xpfo_rates(&res, &r), 0);
	assert_int_equal(r.ownership_changes, 0);
	assert_true(isnan(r.shootdowns_per_1k));
	assert_true(isnan(r.policy_flushes_per_1k));

	assert_rc(nxsim_xpfo_rates(NULL, &r), -EINVAL);
	assert_rc(nxsim_xpfo_rates(&res, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_cover_structs),
		cmocka_unit_test(test_stats_values),
		cmocka_unit_test(test_stats_enum_time),
		cmocka_unit_test(test_xpfo_costs_set),
		cmocka_unit_test(test_xpfo_rates),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
