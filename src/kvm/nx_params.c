// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kvm.ko parameters of the NX-huge-page mitigation, as in
 * arch/x86/kvm/mmu/mmu.c: set_nx_huge_pages(), get_nx_huge_pages(),
 * set_nx_huge_pages_recovery_param(), calc_nx_huge_pages_recovery_period(),
 * get_nx_auto_mode() and kvm_mmu_x86_module_init(); and the sysfs plumbing
 * around them from kernel/params.c (param_attr_store/show under the module's
 * parameter lock) and fs/kernfs/file.c (a write is cut to one page).
 *
 * The sticky "never" (0b210faf3373) takes kvm_lock, fails with -EBUSY while
 * any VM exists, and then makes every later write return -EPERM until the
 * module is unloaded.  Before the profile has it, "never" is just a
 * kstrtobool 'n'.  Before 5.16 there is no period parameter and the period
 * is a fixed 60 s.
 *
 * With them, kvm.eager_page_split of arch/x86/kvm/x86.c (a plain bool,
 * default on, read when dirty logging is turned on and by
 * KVM_CLEAR_DIRTY_LOG under KVM_DIRTY_LOG_INITIALLY_SET), where the profile
 * has it.
 *
 * After a change the setter zaps every VM (nxsim__host_zap_all_and_wake()):
 * without holding kvm_lock across each VM's slots_lock, as Sean
 * Christopherson's vm_list_srcu proposal of Jan 2025 does, unless
 * NXSIM_BUG_SETTER_LOCK_ORDER restores the released trees' order.
 *
 * And the MMU's read-only choices: kvm.tdp_mmu (tdp_mmu.c's 0644 bool
 * until 3af15ff47c4d made it mmu.c's 0444 one in 6.3, reading N without
 * TDP since), kvm_amd.npt and kvm_intel.ept (0444, arch/x86/kvm/svm/svm.c
 * and vmx/vmx.c).  A
 * read-only parameter takes its value from the command line only: its
 * sysfs file cannot be opened for writing (kernfs_fop_open(): -EACCES).
 *
 * Left out: the itlb_multihit sysfs text beyond what nxsim_host_vulnerability
 * reports, and the unresolved -1 visible before 5.18 (1d0e84806047): a host
 * always resolves it at load, as kvm.ko does since then.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <nxsim/param.h>

#include "core/compiler.h"
#include "kvm/profile.h"
#include "kvm/host.h"
#include "params/cmdline.h"
#include "params/kstrtox.h"
#include "kvm/nx_params.h"

#define PAGE_SIZE 4096

struct nx_param {
	const char *name;
	int (*set)(struct nxsim_host *host, const struct nx_param *p,
		   const char *val);
	int (*get)(struct nxsim_host *host, const struct nx_param *p,
		   char *buf);
	size_t offset;		 /* of the unsigned int storage in nx */
	bool needs_period_param; /* exists only from 5.16 */
	bool needs_eager_split;	 /* exists only from a3fe5dbda0a4 */
	bool noarg;	    /* KERNEL_PARAM_OPS_FL_NOARG: bare name is "y" */
	bool needs_tdp_mmu; /* kvm.tdp_mmu exists only from 5.10 */
	const char *module; /* "kvm_amd", "kvm_intel"; NULL: kvm */
	/* 0444 (on this host) */
	bool (*read_only)(const struct nxsim_host *host);
};

static bool get_nx_auto_mode(struct nxsim_host *host)
{
	return host->cpu.itlb_multihit && !host->cpu.mitigations_off;
}

/* __set_nx_huge_pages(): both variables are written together. */
static void __set_nx_huge_pages(struct nxsim_host *host, bool val)
{
	WRITE_ONCE(host->nx.nx_huge_pages, val);
	WRITE_ONCE(host->nx.itlb_multihit_kvm_mitigation, val);
}

bool nxsim__nx_huge_pages(struct nxsim_host *host)
{
	return READ_ONCE(host->nx.nx_huge_pages) != 0;
}

bool nxsim__nx_hard_disabled(struct nxsim_host *host)
{
	return READ_ONCE(host->nx.hard_disabled);
}

void nxsim__nx_params_init(struct nxsim_host *host)
{
	host->nx.nx_huge_pages = -1;
	host->nx.hard_disabled = false;
	host->nx.itlb_multihit_kvm_mitigation = false;
	/* A PREEMPT_RT kernel starts with recovery off: latency spikes. */
	host->nx.recovery_ratio = host->cpu.preempt_rt ? 0 : 60;
	host->nx.recovery_period_ms = 0;
	host->nx.eager_page_split = host->prof->eager_split_param;
	host->tdp_mmu_param = host->prof->mmu.tdp_mmu_default ?
				      !host->cpu.no_tdp_mmu :
				      host->cpu.tdp_mmu;
}

void nxsim__kvm_mmu_x86_module_init(struct nxsim_host *host)
{
	if (host->nx.nx_huge_pages == -1)
		__set_nx_huge_pages(host, get_nx_auto_mode(host));
}

/* set_nx_huge_pages() */
static int set_nx_huge_pages(struct nxsim_host *host, const struct nx_param *p,
			     const char *val)
{
	bool old_val = READ_ONCE(host->nx.nx_huge_pages) != 0;
	bool new_val;

	if (READ_ONCE(host->nx.hard_disabled))
		return -EPERM;

	if (nxsim__sysfs_streq(val, "off")) {
		new_val = false;
	} else if (nxsim__sysfs_streq(val, "force")) {
		new_val = true;
	} else if (nxsim__sysfs_streq(val, "auto")) {
		new_val = get_nx_auto_mode(host);
	} else if (host->prof->never && nxsim__sysfs_streq(val, "never")) {
		new_val = false;
		nxsim__mutex_lock(&host->kvm_lock, NXSIM__LOCK_KVM);
		if (!nxsim__host_no_vms_locked(host)) {
			nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
			return -EBUSY;
		}
		WRITE_ONCE(host->nx.hard_disabled, true);
		nxsim__mutex_unlock(&host->kvm_lock, NXSIM__LOCK_KVM);
	} else if (nxsim__kstrtobool(&host->prof->kstrtox, val, &new_val) < 0) {
		return -EINVAL;
	}

	__set_nx_huge_pages(host, new_val);
	if (new_val != old_val)
		nxsim__host_zap_all_and_wake(host);
	return 0;
}

/* get_nx_huge_pages(): "never", else param_get_bool(). */
static int get_nx_huge_pages(struct nxsim_host *host, const struct nx_param *p,
			     char *buf)
{
	if (READ_ONCE(host->nx.hard_disabled))
		return sprintf(buf, "never\n");
	return sprintf(buf, "%c\n",
		       READ_ONCE(host->nx.nx_huge_pages) ? 'Y' : 'N');
}

/* param_set_bool() of eager_page_split */
static int set_eager_page_split(struct nxsim_host *host,
				const struct nx_param *p, const char *val)
{
	bool v;

	(void)p;
	if (nxsim__kstrtobool(&host->prof->kstrtox, val, &v) < 0)
		return -EINVAL;
	WRITE_ONCE(host->nx.eager_page_split, v);
	return 0;
}

/* param_get_bool() of eager_page_split */
static int get_eager_page_split(struct nxsim_host *host,
				const struct nx_param *p, char *buf)
{
	(void)p;
	return sprintf(buf, "%c\n",
		       READ_ONCE(host->nx.eager_page_split) ? 'Y' : 'N');
}

/* param_set_bool() of a bool the host keeps at @p->offset */
static bool *host_bool(struct nxsim_host *host, const struct nx_param *p)
{
	return (bool *)((char *)host + p->offset);
}

/* param_set_bool() of kvm.tdp_mmu */
static int set_tdp_mmu(struct nxsim_host *host, const struct nx_param *p,
		       const char *val)
{
	bool v;

	if (nxsim__kstrtobool(&host->prof->kstrtox, val, &v) < 0)
		return -EINVAL;
	WRITE_ONCE(*host_bool(host, p), v);
	return 0;
}

/* param_get_bool(): from 6.3, tdp_mmu_enabled = tdp_mmu_allowed &&
 * tdp_enabled (kvm_configure_mmu()) */
static int get_tdp_mmu(struct nxsim_host *host, const struct nx_param *p,
		       char *buf)
{
	bool v = READ_ONCE(*host_bool(host, p));

	if (host->prof->tdp_mmu_param_ro && host->cpu.no_tdp)
		v = false;
	return sprintf(buf, "%c\n", v ? 'Y' : 'N');
}

/* param_set_bool() of npt_enabled / enable_ept: TDP off is no_tdp */
static int set_tdp(struct nxsim_host *host, const struct nx_param *p,
		   const char *val)
{
	bool v;

	(void)p;
	if (nxsim__kstrtobool(&host->prof->kstrtox, val, &v) < 0)
		return -EINVAL;
	host->cpu.no_tdp = !v;
	return 0;
}

static int get_tdp(struct nxsim_host *host, const struct nx_param *p, char *buf)
{
	(void)p;
	return sprintf(buf, "%c\n", host->cpu.no_tdp ? 'N' : 'Y');
}

static bool tdp_mmu_ro(const struct nxsim_host *host)
{
	return host->prof->tdp_mmu_param_ro;
}

static bool always_ro(const struct nxsim_host *host)
{
	(void)host;
	return true;
}

bool nxsim__calc_nx_huge_pages_recovery_period(struct nxsim_host *host,
					       unsigned int *period)
{
	bool enabled = READ_ONCE(host->nx.nx_huge_pages) != 0;
	unsigned int ratio = READ_ONCE(host->nx.recovery_ratio);

	if (!enabled || !ratio)
		return false;
	if (!host->prof->period_param) {
		/* v5.4 to 5.15: start_time + 60 * HZ */
		*period = 60 * 1000;
	} else {
		*period = READ_ONCE(host->nx.recovery_period_ms);
	}
	if (!*period) {
		/* A halving time of one hour, and never below one second. */
		ratio = MIN(ratio, 3600u);
		*period = 60 * 60 * 1000 / ratio;
	}
	/* A host's recovery rule may have its own (<nxsim/nx_recovery.h>). */
	if (host->nx_recovery && host->nx_recovery->period_ms)
		*period = MAX(host->nx_recovery->period_ms(*period), 1u);
	return true;
}

static unsigned int *param_arg(struct nxsim_host *host,
			       const struct nx_param *p)
{
	return (unsigned int *)((char *)&host->nx + p->offset);
}

/*
 * Before f47491d7f30b the wake test looked at the raw parameters: recovery
 * "enabled" meant a non-zero ratio, and the periods compared were the raw
 * period_ms values, 0 included.
 */
static bool raw_recovery_state(struct nxsim_host *host, unsigned int *period)
{
	*period = READ_ONCE(host->nx.recovery_period_ms);
	return READ_ONCE(host->nx.recovery_ratio) != 0;
}

/* set_nx_huge_pages_recovery_param() */
static int set_nx_huge_pages_recovery_param(struct nxsim_host *host,
					    const struct nx_param *p,
					    const char *val)
{
	bool raw = nxsim__host_has_bug(host, NXSIM_BUG_RAW_PERIOD_WAKE) &&
		   host->prof->period_param;
	bool was_enabled, is_enabled;
	unsigned int old_period = 0, new_period = 0, v;
	int err;

	if (READ_ONCE(host->nx.hard_disabled))
		return -EPERM;

	was_enabled = raw ? raw_recovery_state(host, &old_period) :
			    nxsim__calc_nx_huge_pages_recovery_period(
				    host, &old_period);

	/* param_set_uint() */
	err = nxsim__kstrtouint(val, 0, &v);
	if (err)
		return err;
	WRITE_ONCE(*param_arg(host, p), v);

	if (raw)
		is_enabled = nxsim__nx_huge_pages(host) &&
			     raw_recovery_state(host, &new_period);
	else
		is_enabled = nxsim__calc_nx_huge_pages_recovery_period(
			host, &new_period);

	if (is_enabled && (!was_enabled || old_period > new_period))
		nxsim__host_wake_all(host);
	return 0;
}

/* param_get_uint() */
static int param_get_uint(struct nxsim_host *host, const struct nx_param *p,
			  char *buf)
{
	return sprintf(buf, "%u\n", READ_ONCE(*param_arg(host, p)));
}

static const struct nx_param nx_params[] = {
	{
		.name = "nx_huge_pages",
		.set = set_nx_huge_pages,
		.get = get_nx_huge_pages,
	},
	{
		.name = "nx_huge_pages_recovery_ratio",
		.set = set_nx_huge_pages_recovery_param,
		.get = param_get_uint,
		.offset = offsetof(struct nxsim__nx_params, recovery_ratio),
	},
	{
		.name = "nx_huge_pages_recovery_period_ms",
		.set = set_nx_huge_pages_recovery_param,
		.get = param_get_uint,
		.offset = offsetof(struct nxsim__nx_params, recovery_period_ms),
		.needs_period_param = true,
	},
	{
		.name = "eager_page_split",
		.set = set_eager_page_split,
		.get = get_eager_page_split,
		.needs_eager_split = true,
		.noarg = true,
	},
	{
		.name = "tdp_mmu",
		.set = set_tdp_mmu,
		.get = get_tdp_mmu,
		.offset = offsetof(struct nxsim_host, tdp_mmu_param),
		.noarg = true,
		.needs_tdp_mmu = true,
		.read_only = tdp_mmu_ro,
	},
	{
		.name = "npt",
		.set = set_tdp,
		.get = get_tdp,
		.noarg = true,
		.module = "kvm_amd",
		.read_only = always_ro,
	},
	{
		.name = "ept",
		.set = set_tdp,
		.get = get_tdp,
		.noarg = true,
		.module = "kvm_intel",
		.read_only = always_ro,
	},
};

/* A vendor module's parameter exists on that vendor's host. */
static bool param_exists(const struct nxsim_host *host,
			 const struct nx_param *p)
{
	const char *vendor = host->cpu.amd ? "kvm_amd" : "kvm_intel";

	return (!p->needs_period_param || host->prof->period_param) &&
	       (!p->needs_eager_split || host->prof->eager_split_param) &&
	       (!p->needs_tdp_mmu || host->prof->mmu.tdp_mmu) &&
	       (!p->module || !strcmp(p->module, vendor));
}

/*
 * @name as sysfs spells it, or (@cmdline) as the command line does, with
 * a module prefix for the vendor modules ("kvm_amd.npt") and without one
 * for kvm.ko's ("nx_huge_pages": host.c takes "kvm." off).
 */
static const struct nx_param *find_param(const struct nxsim_host *host,
					 const char *name, bool cmdline)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(nx_params); i++) {
		const struct nx_param *p = &nx_params[i];
		const char *s = name;

		if (!param_exists(host, p))
			continue;
		if (cmdline && p->module) {
			n = strlen(p->module);
			if (strncmp(s, p->module, n) || s[n] != '.')
				continue;
			s += n + 1;
		} else if (cmdline && strchr(s, '.')) {
			continue;
		}
		if (cmdline ? nxsim__parameq(s, p->name) : !strcmp(s, p->name))
			return p;
	}
	return NULL;
}

int nxsim__nx_param_store(struct nxsim_host *host, const char *name,
			  const char *val, bool cmdline)
{
	const struct nx_param *p = find_param(host, name, cmdline);
	int rc;

	if (!p)
		return -ENOENT;
	/* kernfs_fop_open(): no write access to a 0444 file */
	if (!cmdline && p->read_only && p->read_only(host))
		return -EACCES;
	/* parse_one(): a bare name is "true" only for NOARG ops (bool). */
	if (!val && !p->noarg)
		return -EINVAL;
	if (!val)
		val = "1";
	nxsim__mutex_lock(&host->param_lock, NXSIM__LOCK_PARAM);
	rc = p->set(host, p, val);
	nxsim__mutex_unlock(&host->param_lock, NXSIM__LOCK_PARAM);
	ATOMIC_INC(host->counters.param_sets);
	return rc;
}

static int enter(struct nxsim_host *host)
{
	if (!host)
		return -EINVAL;
	assert(host->magic == NXSIM_HOST_MAGIC);
	return nxsim__gate_enter(&host->gate);
}

int nxsim_param_set(struct nxsim_host *host, const char *name, const char *val)
{
	int rc;

	if (!name || !val)
		return -EINVAL;
	/* kernfs never hands a store more than a page. */
	if (strnlen(val, PAGE_SIZE + 1) > PAGE_SIZE)
		return -E2BIG;
	rc = enter(host);
	if (rc)
		return rc;
	rc = nxsim__nx_param_store(host, name, val, false);
	nxsim__gate_exit(&host->gate);
	return rc;
}

int64_t nxsim_param_write(struct nxsim_host *host, const char *name,
			  const void *buf, size_t len)
{
	char page[PAGE_SIZE + 1];
	const struct nx_param *p;
	int rc;

	if (!name || (!buf && len))
		return -EINVAL;
	rc = enter(host);
	if (rc)
		return rc;
	p = find_param(host, name, false);
	if (!p) {
		rc = -ENOENT;
		goto out;
	}
	/* the open for writing fails before any write */
	if (p->read_only && p->read_only(host)) {
		rc = -EACCES;
		goto out;
	}
	/* sysfs_kf_write(): an empty write stores nothing. */
	if (len == 0)
		goto out;
	len = MIN(len, (size_t)PAGE_SIZE);
	memcpy(page, buf, len);
	page[len] = '\0';
	rc = nxsim__nx_param_store(host, name, page, false);
out:
	nxsim__gate_exit(&host->gate);
	return rc ? rc : (ssize_t)len;
}

int64_t nxsim_param_get(struct nxsim_host *host, const char *name, char *buf,
			size_t size)
{
	const struct nx_param *p;
	char text[32];
	int rc, len;

	if (!name || !buf)
		return -EINVAL;
	rc = enter(host);
	if (rc)
		return rc;
	p = find_param(host, name, false);
	if (!p) {
		rc = -ENOENT;
		goto out;
	}
	nxsim__mutex_lock(&host->param_lock, NXSIM__LOCK_PARAM);
	len = p->get(host, p, text);
	nxsim__mutex_unlock(&host->param_lock, NXSIM__LOCK_PARAM);
	if ((size_t)len >= size) {
		rc = -ENOSPC;
		goto out;
	}
	memcpy(buf, text, (size_t)len + 1);
	rc = len;
out:
	nxsim__gate_exit(&host->gate);
	return rc;
}

const char *nxsim_param_name(const struct nxsim_host *host, unsigned int i)
{
	size_t k;

	if (!host)
		return NULL;
	for (k = 0; k < ARRAY_SIZE(nx_params); k++) {
		if (!param_exists(host, &nx_params[k]))
			continue;
		if (i-- == 0)
			return nx_params[k].name;
	}
	return NULL;
}

int nxsim_param_recovery_period(struct nxsim_host *host, bool *enabled,
				unsigned int *period_ms)
{
	unsigned int period;

	if (!host || !enabled || !period_ms)
		return -EINVAL;
	*enabled = nxsim__calc_nx_huge_pages_recovery_period(host, &period);
	if (*enabled)
		*period_ms = period;
	return 0;
}
