// SPDX-License-Identifier: GPL-2.0-only
/*
 * The never-vs-create window, made deterministic.  Up to 6.13,
 * kvm_create_vm() calls kvm_arch_post_init_vm(), which reads
 * nx_hugepage_mitigation_hard_disabled and makes the recovery worker,
 * before it adds the VM to vm_list under kvm_lock; set_nx_huge_pages()
 * lets "never" through when vm_list is empty.  A "never" written between
 * the two steps therefore succeeds and leaves a VM with a worker.
 *
 * The create-window hook stops the creating thread between the two steps
 * while a second thread writes "never", then lets creation finish.  With
 * NXSIM_BUG_NEVER_CREATE_RACE (the kernel's order) the write succeeds and
 * the new VM has a running worker: the violation.  Without it (the VM is
 * listed first) the write gets -EBUSY and the guarantee holds.  No timing:
 * the two threads hand over through semaphores.
 */
#include <pthread.h>
#include <semaphore.h>

#include "common/test_util.h"
#include "kvm/host.h"

struct window {
	sem_t opened;	/* the creator is inside the window */
	sem_t written;	/* the writer is done */
	int hook_calls; /* written by the creator only */
	int never_rc;	/* written by the writer before "written" */
	struct nxsim_host *host;
};

/* The creator, between kvm_arch_post_init_vm() and the vm_list insert. */
static void in_window(struct nxsim_host *host, void *ctx)
{
	struct window *w = ctx;

	(void)host;
	w->hook_calls++;
	sem_post(&w->opened);
	while (sem_wait(&w->written))
		;
}

static void *never_writer(void *arg)
{
	struct window *w = arg;

	while (sem_wait(&w->opened))
		;
	w->never_rc = nxsim_param_set(w->host, "nx_huge_pages", "never");
	sem_post(&w->written);
	return NULL;
}

struct window_case {
	const char *profile;
	bool race_bug;
	int never_rc;	   /* "never" written inside the window */
	const char *after; /* nx_huge_pages read after the creation */
	bool violation;	   /* a VM with a worker after "never" succeeded */
};

static void run_case(const struct window_case *c)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = c->profile,
		.bugs = c->race_bug ? NXSIM_BUG_NEVER_CREATE_RACE : 0,
	};
	struct window w = { .never_rc = 1 };
	struct nxsim_worker_info wi;
	struct nxsim_vm *vm;
	pthread_t writer;
	bool violation;

	print_message("# %s race switch %s\n", c->profile,
		      c->race_bug ? "on" : "off");
	assert_rc(nxsim_host_create(&cfg, &w.host), 0);
	assert_rc(sem_init(&w.opened, 0, 0), 0);
	assert_rc(sem_init(&w.written, 0, 0), 0);
	nxsim__host_set_create_window(w.host, in_window, &w);
	assert_rc(pthread_create(&writer, NULL, never_writer, &w), 0);

	assert_rc(nxsim_vm_create(w.host, &vm), 0);
	assert_rc(pthread_join(writer, NULL), 0);
	nxsim__host_set_create_window(w.host, NULL, NULL);

	assert_int_equal(w.hook_calls, 1);
	assert_int_equal(w.never_rc, c->never_rc);
	assert_string_equal(test_param(w.host, "nx_huge_pages"), c->after);
	assert_rc(nxsim_vm_worker_info(vm, &wi), 0);
	/* kvm_arch_post_init_vm() ran before "never" in both orders. */
	assert_int_equal(wi.state, NXSIM_WORKER_RUNNING);
	violation = w.never_rc == 0 && wi.state != NXSIM_WORKER_NONE;
	assert_int_equal(violation, c->violation);

	/* Once the VM is gone, "never" goes through (or already has). */
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_param_set(w.host, "nx_huge_pages", "never"),
		  c->never_rc ? 0 : -EPERM);
	assert_rc(nxsim_host_destroy(w.host), 0);
	sem_destroy(&w.opened);
	sem_destroy(&w.written);
}

/* Every profile whose worker is made by KVM_CREATE_VM and has "never". */
static void test_never_inside_create_window(void **state)
{
	static const struct window_case cases[] = {
		{ "6.1", true, 0, "never\n", true },
		{ "6.1", false, -EBUSY, "Y\n", false },
		{ "6.12", true, 0, "never\n", true },
		{ "6.12", false, -EBUSY, "Y\n", false },
		{ "6.13", true, 0, "never\n", true },
		{ "6.13", false, -EBUSY, "Y\n", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		run_case(&cases[i]);
}

/* 6.14 makes the worker at the first KVM_RUN: there is no window. */
static void test_no_window_when_worker_at_first_run(void **state)
{
	struct nxsim_host_config cfg = {
		.cpu.itlb_multihit = true,
		.profile = "6.14",
		.bugs = NXSIM_BUG_NEVER_CREATE_RACE,
	};
	struct window w = { 0 };
	struct nxsim_host *host;
	struct nxsim_vm *vm;

	(void)state;
	assert_rc(nxsim_host_create(&cfg, &host), 0);
	nxsim__host_set_create_window(host, in_window, &w);
	assert_rc(nxsim_vm_create(host, &vm), 0);
	assert_int_equal(w.hook_calls, 0);
	assert_rc(nxsim_param_set(host, "nx_huge_pages", "never"), -EBUSY);
	assert_rc(nxsim_vm_destroy(vm), 0);
	assert_rc(nxsim_host_destroy(host), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_never_inside_create_window),
		cmocka_unit_test(test_no_window_when_worker_at_first_run),
	};

	return cmocka_run_group_tests_name("never_create_window", tests, NULL,
					   NULL);
}
