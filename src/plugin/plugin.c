// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading plug-ins (<nxsim/plugin.h>, docs/plugins.md): dlopen() a shared
 * object, find its nxsim_plugin_init(), and run it with a table whose
 * register functions stage what the plug-in registers; the stage is
 * committed, all or nothing, when the entry returns 0.  Models no kernel
 * code.
 *
 * Left out: unloading (a machine may still run a plug-in's hooks) and
 * symbol versioning beyond the table's size and version.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <nxsim/plugin.h>

#include "core/compiler.h"
#include "mmu/mmu.h"
#include "tlb/tlb.h"
#include "xpfo/xpfo.h"

/* What the plug-in being loaded registered so far (under load_lock). */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct nxsim_xpfo_policy_ops *staged[NXSIM_XPFO_MAX_POLICIES];
static unsigned int nr_staged;
static const struct nxsim_nx_recovery_ops *staged_nx[NXSIM_NX_RECOVERY_MAX];
static unsigned int nr_staged_nx;
static const struct nxsim_tlb_repl_ops *staged_repl[NXSIM_TLB_REPL_MAX];
static unsigned int nr_staged_repl;
static const char *staged_why;
/* The objects loaded, so that a second load of one is a no-op. */
static void *loaded[NXSIM_XPFO_MAX_POLICIES];
static unsigned int nr_loaded;

/*
 * Append @ops to a stage of room @max, or record why not: @rc and @problem
 * are the registry's check of it.  A name given twice is found when the
 * stage is committed (nxsim__registry_add()).
 */
static int stage(const void **arr, unsigned int *nr, unsigned int max,
		 const void *ops, int rc, const char *problem, const char **why)
{
	if (!rc && *nr == max) {
		rc = -ENOSPC;
		problem = "the table of registered names is full";
	}
	if (!rc) {
		arr[(*nr)++] = ops;
		return 0;
	}
	if (!staged_why)
		staged_why = problem;
	if (why)
		*why = problem;
	return rc;
}

/* nxsim_xpfo_policy_register() as a loading plug-in sees it. */
static int stage_xpfo_policy(const struct nxsim_xpfo_policy_ops *ops,
			     const char **why)
{
	const char *problem = NULL;
	int rc = nxsim__xpfo_policy_check(ops, &problem);

	return stage((const void **)staged, &nr_staged, ARRAY_SIZE(staged), ops,
		     rc, problem, why);
}

/* nxsim_nx_recovery_register() as a loading plug-in sees it. */
static int stage_nx_recovery(const struct nxsim_nx_recovery_ops *ops,
			     const char **why)
{
	const char *problem = NULL;
	int rc = nxsim__nx_recovery_check(ops, &problem);

	return stage((const void **)staged_nx, &nr_staged_nx,
		     ARRAY_SIZE(staged_nx), ops, rc, problem, why);
}

/* nxsim_tlb_repl_register() as a loading plug-in sees it. */
static int stage_tlb_repl(const struct nxsim_tlb_repl_ops *ops,
			  const char **why)
{
	const char *problem = NULL;
	int rc = nxsim__tlb_repl_check(ops, &problem);

	return stage((const void **)staged_repl, &nr_staged_repl,
		     ARRAY_SIZE(staged_repl), ops, rc, problem, why);
}

#define API_TABLE(xpfo_register, nx_register, repl_register)         \
	{                                                            \
		.size = sizeof(struct nxsim_plugin_api),             \
		.version = NXSIM_PLUGIN_API_VERSION,                 \
		.xpfo_policy_register = xpfo_register,               \
		.xpfo_flush_local = nxsim_xpfo_policy_flush_local,   \
		.xpfo_ranged = nxsim_xpfo_policy_ranged,             \
		.xpfo_shootdown = nxsim_xpfo_policy_shootdown,       \
		.xpfo_defer = nxsim_xpfo_policy_defer,               \
		.xpfo_run_pending = nxsim_xpfo_policy_run_pending,   \
		.xpfo_charge = nxsim_xpfo_policy_charge,             \
		.xpfo_owe = nxsim_xpfo_policy_owe,                   \
		.xpfo_take_owed = nxsim_xpfo_policy_take_owed,       \
		.xpfo_user_cpus = nxsim_xpfo_policy_user_cpus,       \
		.xpfo_cpu_domain = nxsim_xpfo_policy_cpu_domain,     \
		.xpfo_frame_domain = nxsim_xpfo_policy_frame_domain, \
		.xpfo_machine = nxsim_xpfo_policy_machine,           \
		.xpfo_cpumask = nxsim_xpfo_policy_cpumask,           \
		.xpfo_data = nxsim_xpfo_policy_data,                 \
		.nx_recovery_register = nx_register,                 \
		.tlb_repl_register = repl_register,                  \
	}

/* The table a program hands to an entry it calls itself. */
static const struct nxsim_plugin_api direct_api =
	API_TABLE(nxsim_xpfo_policy_register, nxsim_nx_recovery_register,
		  nxsim_tlb_repl_register);

/* The table nxsim_plugin_load() hands to the entry it found. */
static const struct nxsim_plugin_api staging_api =
	API_TABLE(stage_xpfo_policy, stage_nx_recovery, stage_tlb_repl);

const struct nxsim_plugin_api *nxsim_plugin_api(void)
{
	return &direct_api;
}

/* The detail of this thread's last failed load. */
static __thread char load_why[256];

static int load_fail(int err, const char **why, const char *what,
		     const char *detail)
{
	snprintf(load_why, sizeof(load_why), "%s%s%s", what, detail ? ": " : "",
		 detail ? detail : "");
	if (why)
		*why = load_why;
	return err;
}

/* Run @init with the staging table and commit what it registered. */
static int run_init(nxsim_plugin_init_fn init, const char **why)
{
	const char *reg_why = NULL;
	unsigned int i;
	int rc;

	nr_staged = 0;
	nr_staged_nx = 0;
	nr_staged_repl = 0;
	staged_why = NULL;
	rc = init(&staging_api);
	if (rc > 0 || rc < -4095)
		return load_fail(-EINVAL, why,
				 NXSIM_PLUGIN_INIT
				 "() returned "
				 "something other than 0 or a negative errno",
				 NULL);
	if (rc)
		return load_fail(rc, why, NXSIM_PLUGIN_INIT "() failed",
				 staged_why);
	/* Every kind checked again before any is committed. */
	for (i = 0; !rc && i < nr_staged; i++)
		rc = nxsim__xpfo_policy_check(staged[i], &reg_why);
	for (i = 0; !rc && i < nr_staged_nx; i++)
		rc = nxsim__nx_recovery_check(staged_nx[i], &reg_why);
	for (i = 0; !rc && i < nr_staged_repl; i++)
		rc = nxsim__tlb_repl_check(staged_repl[i], &reg_why);
	if (!rc)
		rc = nxsim__xpfo_policy_register_all(staged, nr_staged,
						     &reg_why);
	if (!rc)
		rc = nxsim__nx_recovery_register_all(staged_nx, nr_staged_nx,
						     &reg_why);
	if (!rc)
		rc = nxsim__tlb_repl_register_all(staged_repl, nr_staged_repl,
						  &reg_why);
	if (rc)
		return load_fail(rc, why, "registering what it gave failed",
				 reg_why);
	return 0;
}

int nxsim_plugin_load(const char *path, const char **why)
{
	nxsim_plugin_init_fn init;
	unsigned int i;
	void *h;
	int rc;

	if (!path || !path[0])
		return load_fail(-EINVAL, why, "no plug-in path", NULL);
	if (access(path, F_OK) && strchr(path, '/'))
		return load_fail(-ENOENT, why, "no such plug-in file", NULL);
	pthread_mutex_lock(&load_lock);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		rc = load_fail(-EINVAL, why, "the plug-in does not load",
			       dlerror());
		goto out;
	}
	for (i = 0; i < nr_loaded; i++) {
		if (loaded[i] == h) {
			/* Already in: drop the reference this dlopen() took. */
			dlclose(h);
			rc = 0;
			goto out;
		}
	}
	if (nr_loaded == ARRAY_SIZE(loaded)) {
		rc = load_fail(-ENOSPC, why, "too many plug-ins loaded", NULL);
		dlclose(h);
		goto out;
	}
	*(void **)&init = dlsym(h, NXSIM_PLUGIN_INIT);
	if (!init) {
		rc = load_fail(-ENOSYS, why,
			       "the plug-in has no " NXSIM_PLUGIN_INIT "()",
			       NULL);
		dlclose(h);
		goto out;
	}
	rc = run_init(init, why);
	if (rc)
		dlclose(h);
	else
		loaded[nr_loaded++] = h;
out:
	pthread_mutex_unlock(&load_lock);
	return rc;
}
