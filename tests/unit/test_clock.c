// SPDX-License-Identifier: GPL-2.0-only
/*
 * The virtual clock: events run in deadline order, ties in arming order,
 * each at its own time; advance(0) runs only what is due; jiffies maths.
 */
#include "common/test_util.h"
#include "core/clock.h"

struct ev {
	struct nxsim__timer t;
	struct nxsim_clock *clock;
	int id;
	int *log;
	int *n;
	uint64_t *when;
};

static void ev_fn(struct nxsim__timer *t)
{
	struct ev *e = (struct ev *)t;

	e->when[*e->n] = nxsim_clock_now(e->clock);
	e->log[(*e->n)++] = e->id;
}

static void test_clock_order(void **state)
{
	struct nxsim_clock *c;
	struct ev ev[4];
	int log[8], n = 0;
	uint64_t when[8];
	const uint64_t at[4] = { 300, 100, 300, 200 };
	int i;

	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &c), 0);
	for (i = 0; i < 4; i++) {
		ev[i] = (struct ev){
			.clock = c, .id = i, .log = log, .n = &n, .when = when
		};
		nxsim__timer_init(&ev[i].t, ev_fn);
		nxsim__timer_mod(c, &ev[i].t, at[i]);
	}
	assert_int_equal(nxsim_clock_next_event(c), 100);
	assert_rc(nxsim_clock_advance(c, 99), 0);
	assert_int_equal(nxsim_clock_now(c), 99);
	assert_rc(nxsim_clock_advance(c, 1), 1);
	assert_int_equal(log[0], 1);
	assert_int_equal(when[0], 100);
	assert_rc(nxsim_clock_advance(c, 1000), 3);
	/* 200, then the two at 300 in the order they were armed. */
	assert_int_equal(log[1], 3);
	assert_int_equal(log[2], 0);
	assert_int_equal(log[3], 2);
	assert_int_equal(when[1], 200);
	assert_int_equal(when[3], 300);
	assert_int_equal(nxsim_clock_now(c), 1100);
	assert_int_equal(nxsim_clock_next_event(c), NXSIM_NEVER);
	assert_rc(nxsim_clock_destroy(c), 0);
}

/* A new virtual clock with one unarmed event @e (number @id) for it. */
static struct nxsim_clock *one_event(struct ev *e, int id, int *log, int *n,
				     uint64_t *when)
{
	struct nxsim_clock *c;

	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &c), 0);
	*e = (struct ev){
		.clock = c, .id = id, .log = log, .n = n, .when = when
	};
	nxsim__timer_init(&e->t, ev_fn);
	return c;
}

static void test_clock_del_and_rearm(void **state)
{
	struct ev e;
	int log[4], n = 0;
	uint64_t when[4];
	struct nxsim_clock *c = one_event(&e, 7, log, &n, when);

	nxsim__timer_mod(c, &e.t, 50);
	nxsim__timer_mod(c, &e.t, 80);
	assert_rc(nxsim_clock_advance(c, 60), 0);
	nxsim__timer_del_sync(c, &e.t);
	assert_rc(nxsim_clock_advance(c, 100), 0);
	nxsim__timer_mod(c, &e.t, nxsim_clock_now(c));
	assert_rc(nxsim_clock_advance(c, 0), 1);
	assert_int_equal(when[0], 160);
	assert_rc(nxsim_clock_destroy(c), 0);
}

/* An event that re-arms itself 10 ns later, until @n reaches 3. */
static void rearm_fn(struct nxsim__timer *t)
{
	struct ev *e = (struct ev *)t;

	ev_fn(t);
	if (*e->n < 3)
		nxsim__timer_mod(e->clock, t, nxsim_clock_now(e->clock) + 10);
}

/*
 * nxsim_clock_next_event() is the earliest armed deadline through every
 * change of the tree: a move later or earlier, a delete of the first of
 * two equal deadlines and of the last one, a callback that re-arms; and
 * an advance that reaches none runs nothing.
 */
static void test_clock_next_event(void **state)
{
	struct nxsim_clock *c;
	struct ev ev[3];
	int log[8], n = 0;
	uint64_t when[8];
	int i;

	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, &c), 0);
	for (i = 0; i < 3; i++) {
		ev[i] = (struct ev){
			.clock = c, .id = i, .log = log, .n = &n, .when = when
		};
		nxsim__timer_init(&ev[i].t, i == 2 ? rearm_fn : ev_fn);
	}
	nxsim__timer_mod(c, &ev[0].t, 40);
	nxsim__timer_mod(c, &ev[1].t, 40);
	assert_int_equal(nxsim_clock_next_event(c), 40);
	nxsim__timer_del_sync(c, &ev[0].t);
	assert_int_equal(nxsim_clock_next_event(c), 40);
	nxsim__timer_mod(c, &ev[1].t, 70);
	assert_int_equal(nxsim_clock_next_event(c), 70);
	nxsim__timer_mod(c, &ev[0].t, 90);
	nxsim__timer_mod(c, &ev[1].t, 20);
	assert_int_equal(nxsim_clock_next_event(c), 20);
	nxsim__timer_del_sync(c, &ev[1].t);
	assert_int_equal(nxsim_clock_next_event(c), 90);
	assert_rc(nxsim_clock_advance(c, 89), 0);
	assert_int_equal(nxsim_clock_now(c), 89);
	assert_int_equal(n, 0);
	nxsim__timer_del_sync(c, &ev[0].t);
	assert_int_equal(nxsim_clock_next_event(c), NXSIM_NEVER);
	/* 100, 110, 120: the callback's own re-arm is its next deadline */
	nxsim__timer_mod(c, &ev[2].t, 100);
	assert_rc(nxsim_clock_advance(c, 15), 1);
	assert_int_equal(nxsim_clock_next_event(c), 110);
	assert_rc(nxsim_clock_advance(c, 100), 2);
	assert_int_equal(when[1], 110);
	assert_int_equal(when[2], 120);
	assert_int_equal(nxsim_clock_next_event(c), NXSIM_NEVER);
	assert_int_equal(nxsim_clock_now(c), 204);
	assert_rc(nxsim_clock_destroy(c), 0);
}

static void test_clock_bad_input(void **state)
{
	struct nxsim_clock *c;

	assert_rc(nxsim_clock_create((enum nxsim_clock_mode)7, &c), -EINVAL);
	assert_rc(nxsim_clock_create(NXSIM_CLOCK_VIRTUAL, NULL), -EINVAL);
	assert_rc(nxsim_clock_destroy(NULL), -EINVAL);
	assert_rc(nxsim_clock_create(NXSIM_CLOCK_REAL, &c), 0);
	assert_rc(nxsim_clock_advance(c, 5), -EINVAL);
	assert_int_equal(nxsim_clock_next_event(c), NXSIM_NEVER);
	nxsim__clock_get(c);
	assert_rc(nxsim_clock_destroy(c), -EBUSY);
	nxsim__clock_put(c);
	assert_rc(nxsim_clock_destroy(c), 0);
}

static void test_clock_jiffies(void **state)
{
	/* HZ=250: 4 ms a jiffy. */
	assert_int_equal(nxsim__ns_to_jiffies(3999999, 250), 0);
	assert_int_equal(nxsim__ns_to_jiffies(4000000, 250), 1);
	assert_int_equal(nxsim__jiffies_to_ns(25, 250), 100000000);
	assert_int_equal(nxsim__msecs_to_jiffies(100, 250), 25);
	/* 514285 ms (ratio 7) is 128571.25 jiffies: rounded up. */
	assert_int_equal(nxsim__msecs_to_jiffies(514285, 250), 128572);
	assert_int_equal(nxsim__msecs_to_jiffies(1, 100), 1);
	assert_int_equal(nxsim__msecs_to_jiffies(1, 1000), 1);
	/* HZ=300 does not divide a second in whole ns: round up. */
	assert_int_equal(nxsim__jiffies_to_ns(1, 300), 3333334);
	assert_int_equal(nxsim__ns_to_jiffies(3333334, 300), 1);
	assert_int_equal(nxsim__ns_to_jiffies(3333333, 300), 0);
}

/*
 * Each CONFIG_HZ at the end of time: the last jiffy that has a clock time,
 * the first that has none, and the jiffy at the last ns.
 */
static void test_clock_jiffies_end(void **state)
{
	static const struct {
		unsigned int hz;
		uint64_t last_j, last_ns;
	} hz[] = {
		{ 100, 1844674407370ull, 18446744073700000000ull },
		{ 250, 4611686018427ull, 18446744073708000000ull },
		{ 300, 5534023222112ull, 18446744073706666667ull },
		{ 1000, 18446744073709ull, 18446744073709000000ull },
	};

	for (size_t i = 0; i < ARRAY_SIZE(hz); i++) {
		assert_int_equal(nxsim__jiffies_to_ns(hz[i].last_j, hz[i].hz),
				 hz[i].last_ns);
		assert_int_equal(nxsim__jiffies_to_ns(hz[i].last_j + 1,
						      hz[i].hz),
				 NXSIM_NEVER);
		assert_int_equal(nxsim__ns_to_jiffies(NXSIM_CLOCK_MAX,
						      hz[i].hz),
				 hz[i].last_j);
	}
}

/*
 * Time ends at NXSIM_CLOCK_MAX: an advance past it is refused with -ERANGE
 * and changes nothing; an advance up to it runs what is due on the way.
 */
static void test_clock_end_of_time(void **state)
{
	struct ev e;
	int log[4], n = 0;
	uint64_t when[4];
	struct nxsim_clock *c = one_event(&e, 1, log, &n, when);

	nxsim__timer_mod(c, &e.t, NXSIM_CLOCK_MAX);
	assert_rc(nxsim_clock_advance(c, UINT64_MAX), -ERANGE);
	assert_int_equal(nxsim_clock_now(c), 0);
	assert_rc(nxsim_clock_advance(c, NXSIM_CLOCK_MAX - 10), 0);
	assert_rc(nxsim_clock_advance(c, 11), -ERANGE);
	assert_int_equal(nxsim_clock_now(c), NXSIM_CLOCK_MAX - 10);
	assert_rc(nxsim_clock_advance(c, 10), 1);
	assert_int_equal(when[0], NXSIM_CLOCK_MAX);
	assert_rc(nxsim_clock_advance(c, 0), 0);
	assert_rc(nxsim_clock_advance(c, 1), -ERANGE);
	assert_int_equal(nxsim_clock_now(c), NXSIM_CLOCK_MAX);
	assert_rc(nxsim_clock_destroy(c), 0);
}

/*
 * A recovery worker near the end of time: a deadline the clock cannot
 * reach is never (not a wrapped time in the past), so advancing to the
 * end runs no pass and returns.
 */
static void test_clock_worker_near_the_end(void **state)
{
	struct nxsim_host *host = test_host("6.1", true, NULL, 0);
	struct nxsim_clock *c = nxsim_host_clock(host);
	struct nxsim_worker_info wi;
	struct nxsim_vm *vm;

	assert_rc(nxsim_clock_advance(c, NXSIM_CLOCK_MAX - 1000), 0);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_rc(nxsim_vm_worker_info(vm, &wi), 0);
	assert_int_equal(wi.deadline_ns, NXSIM_NEVER);
	assert_int_equal(nxsim_clock_next_event(c), NXSIM_NEVER);
	assert_rc(nxsim_clock_advance(c, 1000), 0);
	assert_rc(nxsim_vm_worker_info(vm, &wi), 0);
	assert_int_equal(wi.passes, 0);
	/* a wake-up runs the loop now, and the deadline stays out of reach */
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "0"),
		  0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages_recovery_ratio", "4"),
		  0);
	assert_rc(nxsim_clock_advance(c, 0), 1);
	assert_rc(nxsim_vm_worker_info(vm, &wi), 0);
	assert_int_equal(wi.deadline_ns, NXSIM_NEVER);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_order),
		cmocka_unit_test(test_clock_del_and_rearm),
		cmocka_unit_test(test_clock_next_event),
		cmocka_unit_test(test_clock_bad_input),
		cmocka_unit_test(test_clock_jiffies),
		cmocka_unit_test(test_clock_jiffies_end),
		cmocka_unit_test(test_clock_end_of_time),
		cmocka_unit_test(test_clock_worker_near_the_end),
	};

	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
