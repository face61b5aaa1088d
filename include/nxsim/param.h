/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm.ko's NX-huge-page module parameters, read and written as through
 * /sys/module/kvm/parameters/<name>:
 *
 *   nx_huge_pages                     Y / N / never
 *   nx_huge_pages_recovery_ratio      unsigned
 *   nx_huge_pages_recovery_period_ms  unsigned (5.16 and later)
 *   eager_page_split                  Y / N (kvm.eager_page_split of
 *                                     x86.c, default Y; profiles 6.1 on)
 *
 * Input is parsed exactly as the modelled kernel does (sysfs_streq,
 * kstrtobool of the profile's era, kstrtouint with base 0), with the same
 * return codes and side effects.
 *
 * Thread safety: as <nxsim/host.h>: every call is safe from many threads
 * (each setter runs under kvm_lock, as the kernel's do).
 */
#ifndef NXSIM_PARAM_H
#define NXSIM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nxsim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct nxsim_host;

/**
 * nxsim_param_set() - call a parameter's setter, as a sysfs store does
 * @host: the host
 * @name: parameter name
 * @val: the bytes written, NUL-terminated ("force\n" for echo force)
 *
 * Return: 0; -ENOENT (no such parameter in this profile); -EINVAL;
 * -ERANGE; -EPERM (after "never"); -EBUSY ("never" while VMs exist);
 * -E2BIG (longer than a page, which no sysfs write delivers);
 * -ENODEV (the host is being unloaded).
 */
NXSIM_API int nxsim_param_set(struct nxsim_host *host, const char *name,
			      const char *val);

/**
 * nxsim_param_write() - write(2) to the parameter's sysfs file
 * @host: the host
 * @name: parameter name
 * @buf: the bytes
 * @len: how many
 *
 * Models kernfs: an empty write returns 0 and calls nothing; a write longer
 * than a page is cut to one page; the setter sees the bytes up to the first
 * NUL.
 *
 * Return: bytes consumed, or the setter's negative errno.
 */
NXSIM_API int64_t nxsim_param_write(struct nxsim_host *host, const char *name,
				    const void *buf, size_t len);

/**
 * nxsim_param_get() - read the parameter's sysfs file
 * @host: the host
 * @name: parameter name
 * @buf: receives the text ("Y\n", "never\n", "60\n"), NUL-terminated
 * @size: size of @buf
 *
 * Return: the text's length; -ENOENT; -ENOSPC if @buf is too small.
 */
NXSIM_API int64_t nxsim_param_get(struct nxsim_host *host, const char *name,
				  char *buf, size_t size);

/**
 * nxsim_param_name() - the host's parameters
 * @host: the host
 * @i: index from 0
 *
 * Return: the i-th parameter name, or NULL past the end (and for a NULL
 * @host).
 */
NXSIM_API const char *nxsim_param_name(const struct nxsim_host *host,
				       unsigned int i);

/**
 * nxsim_param_recovery_period() - calc_nx_huge_pages_recovery_period()
 * @host: the host
 * @enabled: receives whether recovery is enabled
 * @period_ms: receives the effective period when it is
 *
 * Return: 0, or -EINVAL for a NULL argument.
 */
NXSIM_API int nxsim_param_recovery_period(struct nxsim_host *host,
					  bool *enabled,
					  unsigned int *period_ms);

#ifdef __cplusplus
}
#endif

#endif /* NXSIM_PARAM_H */
