/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Plug-ins (docs/plugins.md): a shared object with one entry,
 * nxsim_plugin_init(), that receives a versioned table of the register
 * functions and of the primitives a policy calls.  A plug-in needs only
 * libnxsim's headers, not the library: it reaches the library that loaded
 * it through the table, so that it works in a program linked with the
 * static library (the driver, nxsim-sweep) as in one linked with the
 * shared one.  A program linked with libnxsim may also call the register
 * functions directly, or hand nxsim_plugin_api() to the same entry.
 *
 * Thread safety: every call is safe from many threads; loads are
 * serialised.
 */
#ifndef NXSIM_PLUGIN_H
#define NXSIM_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include <nxsim/common.h>
#include <nxsim/nx_recovery.h>
#include <nxsim/xpfo.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NXSIM_PLUGIN_API_VERSION 1

/* The entry a plug-in defines (with default visibility). */
#define NXSIM_PLUGIN_INIT "nxsim_plugin_init"

/**
 * struct nxsim_plugin_api - what a plug-in may call
 * @size: sizeof(struct nxsim_plugin_api) of the library
 * @version: NXSIM_PLUGIN_API_VERSION of the library; a later version only
 *	appends fields, so a plug-in checks @size covers what it calls
 * @xpfo_policy_register: nxsim_xpfo_policy_register()
 * @xpfo_*: the nxsim_xpfo_policy_*() primitive of the same name
 * @nx_recovery_register: nxsim_nx_recovery_register()
 * @tlb_repl_register: nxsim_tlb_repl_register()
 */
struct nxsim_plugin_api {
	uint32_t size;
	uint32_t version;
	int (*xpfo_policy_register)(const struct nxsim_xpfo_policy_ops *ops,
				    const char **why);
	int (*xpfo_flush_local)(struct nxsim_xpfo *m, unsigned int cpu,
				uint64_t va, uint64_t pages);
	bool (*xpfo_ranged)(const struct nxsim_xpfo *m, uint64_t pages);
	int (*xpfo_shootdown)(struct nxsim_xpfo *m, unsigned int cpu,
			      const uint64_t *mask, uint64_t va,
			      uint64_t pages);
	int (*xpfo_defer)(struct nxsim_xpfo *m, unsigned int cpu,
			  const uint64_t *mask);
	int (*xpfo_run_pending)(struct nxsim_xpfo *m, unsigned int cpu);
	int (*xpfo_charge)(struct nxsim_xpfo *m, unsigned int cpu,
			   uint64_t cycles);
	int (*xpfo_owe)(struct nxsim_xpfo *m, uint64_t pfn, uint64_t nr);
	int (*xpfo_take_owed)(struct nxsim_xpfo *m, uint64_t pfn);
	int (*xpfo_user_cpus)(const struct nxsim_xpfo *m, uint64_t *mask);
	int (*xpfo_cpu_domain)(const struct nxsim_xpfo *m, unsigned int cpu);
	int (*xpfo_frame_domain)(const struct nxsim_xpfo *m, uint64_t pfn);
	int (*xpfo_machine)(const struct nxsim_xpfo *m, unsigned int *nr_cpus,
			    uint64_t *nr_frames,
			    const struct nxsim_xpfo_costs **costs);
	uint64_t *(*xpfo_cpumask)(struct nxsim_xpfo *m);
	void *(*xpfo_data)(const struct nxsim_xpfo *m);
	int (*nx_recovery_register)(const struct nxsim_nx_recovery_ops *ops,
				    const char **why);
	int (*tlb_repl_register)(const struct nxsim_tlb_repl_ops *ops,
				 const char **why);
};

/* The type of a plug-in's nxsim_plugin_init(). */
typedef int (*nxsim_plugin_init_fn)(const struct nxsim_plugin_api *api);

#if defined(__GNUC__)
#define NXSIM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define NXSIM_PLUGIN_EXPORT
#endif

/**
 * nxsim_plugin_init() - what a plug-in defines, with NXSIM_PLUGIN_EXPORT
 * (the library defines none): register its policies through @api
 * @api: the library's table; check @api->size covers what is called
 *
 * Return: 0, or a negative errno, which fails the load with nothing
 * registered.
 */
int nxsim_plugin_init(const struct nxsim_plugin_api *api);

/** nxsim_plugin_api() - the table this library hands to plug-ins */
NXSIM_API const struct nxsim_plugin_api *nxsim_plugin_api(void);

/**
 * nxsim_plugin_load() - dlopen() @path and run its nxsim_plugin_init()
 * @path: a shared object (as dlopen() takes it: with a '/', a path)
 * @why: on failure, receives a text naming the problem, owned by the
 *	library and valid until this thread's next load (may be NULL)
 *
 * All or nothing: what the entry registers takes effect only when it
 * returns 0 and every registration can be made; otherwise nothing is
 * registered and the object is closed.  A loaded plug-in stays loaded;
 * loading it again does nothing and returns 0.
 *
 * Return: 0; -EINVAL for a NULL or empty @path or a file dlopen() refuses;
 * -ENOENT for no such file; -ENOSYS when the object has no
 * nxsim_plugin_init(); the entry's own negative errno (a positive or
 * out-of-range one is -EINVAL); a registration's errno (-EEXIST, ...);
 * -ENOSPC past NXSIM_XPFO_MAX_POLICIES plug-ins.
 */
NXSIM_API int nxsim_plugin_load(const char *path, const char **why);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_PLUGIN_H */
