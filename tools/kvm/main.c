// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-kvm: runs an nxsim script on /dev/kvm (docs/kcheck.md).  One
 * answer a line as the driver gives it (docs/driver.md), "OK values" or
 * "ERR -EXXX message", with the kernel's own errno; expect lines are
 * skipped (tools/kcheck compares the answers with the model's).  A verb
 * a real kernel cannot answer is an error naming the line, never a skip.
 *
 * This file holds the objects and the verbs that are plain ioctls or
 * sysfs files; guest.c runs the vCPU, stats.c reads the binary stats.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/kvm.h>

#include "kvm.h"
#include "numarg.h"

#define KT_PARAM_DIRS 2
static const char *const param_dirs[KT_PARAM_DIRS] = {
	"/sys/module/kvm/parameters", "/sys/module/kvm_amd/parameters"
};

/* The parameters as the boot loaded them, restored by a second host. */
#define KT_MAX_PARAMS 64
static struct {
	char path[128];
	char val[64];
} boot_params[KT_MAX_PARAMS];
static int n_boot_params;

static int read_file(const char *path, char *buf, size_t size, size_t *len);

enum kt_kind { KT_HOST, KT_VM, KT_VCPU };

static struct kt_obj {
	char *name;
	enum kt_kind kind;
	void *p;
} objs[256];
static int n_objs;

static int kvm_fd = -1;
/* --check: only whether each line is expressible, no /dev/kvm */
static bool dry;
static int n_hosts;
static unsigned long line_no;

void kt_pre(struct kt_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->pre + o->pre_len, sizeof(o->pre) - o->pre_len, fmt,
		      ap);
	va_end(ap);
	if (n > 0 && o->pre_len + n + 1 < sizeof(o->pre))
		o->pre_len += n;
}

void kt_post(struct kt_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->post + o->post_len, sizeof(o->post) - o->post_len, fmt,
		      ap);
	va_end(ap);
	if (n > 0 && o->post_len + n + 1 < sizeof(o->post))
		o->post_len += n;
}

static int not_expressible(struct kt_out *o, const char *what)
{
	return kt_fail(o, -EOPNOTSUPP, "not expressible on a real kernel: %s",
		       what);
}

static void *find(const char *name, enum kt_kind kind, struct kt_out *o)
{
	static const char *const kinds[] = { "host", "VM", "vCPU" };
	int i;

	for (i = 0; i < n_objs; i++) {
		if (strcmp(objs[i].name, name))
			continue;
		if (objs[i].kind != kind)
			break;
		if (kind == KT_VM && ((struct kt_vm *)objs[i].p)->destroyed) {
			kt_fail(o, -EBADF, "VM \"%s\" was destroyed", name);
			return NULL;
		}
		if (kind == KT_VCPU &&
		    ((struct kt_vcpu *)objs[i].p)->vm->destroyed) {
			kt_fail(o, -EBADF, "the VM of \"%s\" was destroyed",
				name);
			return NULL;
		}
		return objs[i].p;
	}
	kt_fail(o, -ENOENT, "no %s \"%s\"", kinds[kind], name);
	return NULL;
}

static int add_obj(const char *name, enum kt_kind kind, void *p,
		   struct kt_out *o)
{
	int i;

	for (i = 0; i < n_objs; i++)
		if (!strcmp(objs[i].name, name))
			return kt_fail(o, -EEXIST, "name \"%s\" is taken",
				       name);
	if (n_objs == (int)NXSIM__DRV_NELEM(objs))
		return kt_fail(o, -ENOSPC, "too many objects");
	objs[n_objs].name = strdup(name);
	objs[n_objs].kind = kind;
	objs[n_objs++].p = p;
	return 0;
}

bool kt_tdp(void)
{
	static int tdp = -1;
	char buf[8];
	size_t len = 0;

	if (tdp < 0)
		tdp = !read_file("/sys/module/kvm_amd/parameters/npt", buf,
				 sizeof(buf), &len) &&
		      buf[0] == 'Y';
	return tdp;
}

struct kt_slot *kt_slot_of_gpa(struct kt_vm *vm, uint64_t gpa)
{
	int i;

	for (i = 0; i < KT_MAX_SLOTS; i++) {
		struct kt_slot *s = &vm->slots[i];

		if (s->used && gpa >= s->gpa && gpa - s->gpa < s->size)
			return s;
	}
	return NULL;
}

void *kt_hva(struct kt_vm *vm, uint64_t gpa, size_t len)
{
	struct kt_slot *s = kt_slot_of_gpa(vm, gpa);

	if (!s || !s->map || gpa + len - s->gpa > s->size)
		return NULL;
	return (char *)s->map + (gpa - s->gpa);
}

static struct kt_slot *slot_by_id(struct kt_vm *vm, uint32_t id)
{
	int i;

	for (i = 0; i < KT_MAX_SLOTS; i++)
		if (vm->slots[i].used && vm->slots[i].id == id)
			return &vm->slots[i];
	return NULL;
}

/* ---- parameters ---- */

static int read_file(const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*len = (size_t)n;
	return 0;
}

static int write_file(const char *path, const char *buf, size_t len,
		      ssize_t *done)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	if (n < 0)
		return -errno;
	*done = n;
	return 0;
}

static int param_path(const char *name, char *path, size_t size,
		      struct kt_out *o)
{
	int i;

	if (strchr(name, '/') || name[0] == '.')
		return kt_fail(o, -ENOENT, "no parameter \"%s\"", name);
	for (i = 0; i < KT_PARAM_DIRS; i++) {
		snprintf(path, size, "%s/%s", param_dirs[i], name);
		if (!access(path, F_OK))
			return 0;
	}
	return kt_fail(o, -ENOENT, "no parameter \"%s\"", name);
}

static void record_boot_params(void)
{
	char path[128], val[64];
	size_t len = 0;
	int i, j;
	static const char *const names[] = { "nx_huge_pages",
					     "nx_huge_pages_recovery_ratio",
					     "nx_huge_pages_recovery_period_ms",
					     "eager_page_split" };

	for (i = 0; i < KT_PARAM_DIRS; i++) {
		for (j = 0; j < (int)NXSIM__DRV_NELEM(names); j++) {
			snprintf(path, sizeof(path), "%s/%s", param_dirs[i],
				 names[j]);
			if (read_file(path, val, sizeof(val), &len) ||
			    n_boot_params == KT_MAX_PARAMS)
				continue;
			snprintf(boot_params[n_boot_params].path,
				 sizeof(boot_params[0].path), "%s", path);
			snprintf(boot_params[n_boot_params++].val,
				 sizeof(boot_params[0].val), "%s", val);
		}
	}
}

/* A new host starts from the boot's values, as a new model host does. */
static int restore_boot_params(struct kt_out *o)
{
	char val[64];
	size_t len = 0;
	ssize_t done;
	int i, rc;

	for (i = 0; i < n_boot_params; i++) {
		if (!read_file(boot_params[i].path, val, sizeof(val), &len) &&
		    !strcmp(val, boot_params[i].val))
			continue;
		rc = write_file(boot_params[i].path, boot_params[i].val,
				strlen(boot_params[i].val), &done);
		if (rc)
			return kt_fail(o, -EOPNOTSUPP,
				       "not expressible on a real kernel: a "
				       "second host, %s cannot be reset (%s)",
				       boot_params[i].path, strerror(-rc));
	}
	return 0;
}

static int v_param_get(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	char path[160], buf[512];
	size_t len = 0;
	int rc;

	if (!n_hosts)
		return kt_fail(o, -ENOENT, "no current host");
	rc = param_path(argv[0].s, path, sizeof(path), o);
	if (!rc)
		rc = read_file(path, buf, sizeof(buf), &len);
	if (!rc)
		nxsim__drv_quote(&o->r, NULL, buf, len);
	return rc;
}

static int v_param_set(int argc, struct nxsim__drv_tok *argv, struct kt_out *o,
		       bool show_count)
{
	char path[160];
	ssize_t done = 0;
	size_t len = argv[1].len;
	int rc;

	if (!n_hosts)
		return kt_fail(o, -ENOENT, "no current host");
	/* param set passes the setter the bytes up to a NUL (a C string) */
	if (!show_count)
		len = strlen(argv[1].s);
	rc = param_path(argv[0].s, path, sizeof(path), o);
	if (!rc)
		rc = write_file(path, argv[1].s, len, &done);
	if (!rc && show_count)
		kt_add(o, " %zd", done);
	return rc;
}

/* ---- hosts ---- */

static bool in_proc_cmdline(const char *word)
{
	char buf[4096], *w, *save;
	size_t len = 0;

	if (read_file("/proc/cmdline", buf, sizeof(buf), &len))
		return false;
	for (w = strtok_r(buf, " \n", &save); w;
	     w = strtok_r(NULL, " \n", &save))
		if (!strcmp(w, word))
			return true;
	return false;
}

static int check_param(const char *path, char want, const char *flag,
		       struct kt_out *o)
{
	char buf[16];
	size_t len = 0;

	if (read_file(path, buf, sizeof(buf), &len))
		return kt_fail(o, -ENOENT,
			       "%s: no such file (is kvm_amd "
			       "loaded?)",
			       path);
	if (buf[0] != want)
		return kt_fail(o, -EOPNOTSUPP,
			       "not expressible on this boot: %s reads %c "
			       "(cpu=%s wants %c; tools/kcheck boots it)",
			       path, buf[0], flag, want);
	return 0;
}

/* Whether /proc/cpuinfo's flags name @flag. */
static bool cpu_has(const char *flag)
{
	static char buf[16384];
	static size_t len;
	char want[64];
	char *p;

	if (!len && read_file("/proc/cpuinfo", buf, sizeof(buf), &len))
		return false;
	snprintf(want, sizeof(want), " %s", flag);
	for (p = strstr(buf, want); p; p = strstr(p + 1, want))
		if (p[strlen(want)] == ' ' || p[strlen(want)] == '\n')
			return true;
	return false;
}

/* A CPU feature the model's flag @name must state as it is. */
static int check_feature(bool flag, bool is, const char *name, struct kt_out *o)
{
	if (flag == is)
		return 0;
	return kt_fail(o, -EOPNOTSUPP,
		       "not expressible on this CPU: %s the cpu= flag %s "
		       "(tools/kcheck boots a CPU to match)",
		       is ? "it needs" : "it does not take", name);
}

static int check_cpu(const char *flags, const char *cmdline, struct kt_out *o)
{
	char *copy = strdup(flags), *f, *save;
	bool amd = false, no_tdp = false, no_tdp_mmu = false, la57 = false,
	     no_gbpages = false;
	int rc = 0;

	for (f = strtok_r(copy, ",", &save); f && !rc;
	     f = strtok_r(NULL, ",", &save)) {
		if (!strcmp(f, "amd"))
			amd = true;
		else if (!strcmp(f, "no_tdp"))
			no_tdp = true;
		else if (!strcmp(f, "no_tdp_mmu"))
			no_tdp_mmu = true;
		else if (!strcmp(f, "la57"))
			la57 = true;
		else if (!strcmp(f, "no_gbpages"))
			no_gbpages = true;
		else
			rc = kt_fail(o, -EOPNOTSUPP,
				     "not expressible on a real kernel: "
				     "cpu=%s (the CPU is what it is: an AMD "
				     "CPU, cpu= takes amd, no_tdp, no_tdp_mmu, "
				     "la57, no_gbpages)",
				     f);
	}
	free(copy);
	if (!rc && !amd)
		rc = kt_fail(o, -EOPNOTSUPP,
			     "not expressible on a real kernel: the kernel "
			     "runs on an AMD CPU, say cpu=amd");
	if (dry)
		return rc;
	if (!rc)
		rc = check_feature(la57, cpu_has("la57"), "la57", o);
	if (!rc)
		rc = check_feature(no_gbpages, !cpu_has("pdpe1gb"),
				   "no_gbpages", o);
	/* kvm_amd.npt= and kvm.tdp_mmu= on the command line say it too */
	if (!rc && !strstr(cmdline, "kvm_amd.npt="))
		rc = check_param("/sys/module/kvm_amd/parameters/npt",
				 no_tdp ? 'N' : 'Y', "no_tdp", o);
	if (!rc && !no_tdp && !strstr(cmdline, "kvm.tdp_mmu="))
		rc = check_param("/sys/module/kvm/parameters/tdp_mmu",
				 no_tdp_mmu ? 'N' : 'Y', "no_tdp_mmu", o);
	return rc;
}

static int v_host_create(int argc, struct nxsim__drv_tok *argv,
			 struct kt_out *o)
{
	const char *profile = NULL, *cpu = "", *cmdline = "", *v;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if ((v = nxsim__drv_opt(&argv[i], "profile"))) {
			profile = v;
		} else if ((v = nxsim__drv_opt(&argv[i], "cpu"))) {
			cpu = v;
		} else if ((v = nxsim__drv_opt(&argv[i], "cmdline"))) {
			char *copy = strdup(v), *w, *save;

			rc = 0;
			for (w = strtok_r(copy, " ", &save); w && !rc && !dry;
			     w = strtok_r(NULL, " ", &save))
				if (!in_proc_cmdline(w))
					rc = kt_fail(o, -EOPNOTSUPP,
						     "not expressible on this "
						     "boot: \"%s\" is not on "
						     "its command line "
						     "(tools/kcheck boots it)",
						     w);
			free(copy);
			if (rc)
				return rc;
			cmdline = v;
		} else if ((v = nxsim__drv_opt(&argv[i], "clock")) &&
			   (!strcmp(v, "virtual") || !strcmp(v, "real"))) {
			/* the kernel's clock is real whatever the model's */
		} else {
			return not_expressible(o, argv[i].s);
		}
	}
	if (!profile || strcmp(profile, "6.1"))
		return kt_fail(o, -EOPNOTSUPP,
			       "not expressible on this kernel: it is 6.1, "
			       "say profile=6.1");
	rc = check_cpu(cpu, cmdline, o);
	if (!rc && n_hosts && !dry)
		rc = restore_boot_params(o);
	if (!rc)
		rc = add_obj(argv[0].s, KT_HOST, NULL, o);
	if (!rc) {
		n_hosts++;
		kt_add(o, " profile=6.1");
	}
	return rc;
}

static int v_host_vuln(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	char buf[256];
	size_t len = 0;
	int rc;

	rc = read_file("/sys/devices/system/cpu/vulnerabilities/itlb_multihit",
		       buf, sizeof(buf), &len);
	if (!rc)
		nxsim__drv_quote(&o->r, NULL, buf, len);
	return rc;
}

/* ---- VMs ---- */

static int v_vm_create(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vm *vm;
	int rc;

	if (!n_hosts)
		return kt_fail(o, -ENOENT, "no current host");
	if (argc > 1 && !find(argv[1].s, KT_HOST, o))
		return o->r.rc;
	vm = calloc(1, sizeof(*vm));
	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0) {
		rc = -errno;
		free(vm);
		return rc;
	}
	vm->stats_fd = ioctl(vm->fd, KVM_GET_STATS_FD, NULL);
	vm->name = strdup(argv[0].s);
	rc = add_obj(argv[0].s, KT_VM, vm, o);
	if (!rc)
		rc = kt_code_slot(vm, o);
	return rc;
}

static void unmap_slot(struct kt_slot *s)
{
	if (s->map)
		munmap(s->map, s->maplen);
	memset(s, 0, sizeof(*s));
}

static int v_vm_destroy(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	int i;

	if (!vm)
		return o->r.rc;
	for (i = 0; i < n_objs; i++) {
		struct kt_vcpu *c = objs[i].p;

		if (objs[i].kind != KT_VCPU || c->vm != vm)
			continue;
		munmap(c->run, c->run_size);
		close(c->stats_fd);
		close(c->fd);
	}
	close(vm->stats_fd);
	close(vm->fd);
	for (i = 0; i < KT_MAX_SLOTS; i++)
		unmap_slot(&vm->slots[i]);
	vm->destroyed = true;
	return 0;
}

static int cap_number(const struct nxsim__drv_tok *t, uint64_t *cap,
		      struct kt_out *o)
{
	if (!strcmp(t->s, "disable_nx_huge_pages")) {
		*cap = 220; /* KVM_CAP_VM_DISABLE_NX_HUGE_PAGES */
		return 0;
	}
	if (!strcmp(t->s, "manual_dirty_log_protect2")) {
		*cap = KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2;
		return 0;
	}
	return nxsim__drv_u64(t, UINT32_MAX, cap, &o->r);
}

/* capset(2): CAP_SYS_BOOT in the effective set or not. */
static int set_sys_boot(bool on)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (on)
		d[0].effective |= 1u << CAP_SYS_BOOT;
	else
		d[0].effective &= ~(1u << CAP_SYS_BOOT);
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static int v_vm_cap(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	struct kvm_enable_cap cap = { 0 };
	uint64_t v, sys_boot = 1;
	const char *s;
	int i, rc;

	if (!vm)
		return o->r.rc;
	rc = cap_number(&argv[1], &v, o);
	cap.cap = (uint32_t)v;
	for (i = 2; !rc && i < argc; i++) {
		static const char *const keys[] = { "arg0", "arg1", "arg2",
						    "arg3" };
		int k;

		for (k = 0; k < 4; k++)
			if ((s = nxsim__drv_opt(&argv[i], keys[k])))
				break;
		if (k < 4)
			rc = nxsim__drv_opt_u64(s, UINT64_MAX, &v, &o->r),
			cap.args[k] = v;
		else if ((s = nxsim__drv_opt(&argv[i], "flags")))
			rc = nxsim__drv_opt_u64(s, UINT32_MAX, &v, &o->r),
			cap.flags = v;
		else if ((s = nxsim__drv_opt(&argv[i], "sys_boot")))
			rc = nxsim__drv_opt_u64(s, 1, &sys_boot, &o->r);
		else
			rc = kt_fail(o, -EINVAL, "unknown cap option \"%s\"",
				     argv[i].s);
	}
	if (rc)
		return rc;
	if (!sys_boot && (rc = set_sys_boot(false)))
		return rc;
	rc = ioctl(vm->fd, KVM_ENABLE_CAP, &cap) ? -errno : 0;
	if (!sys_boot)
		set_sys_boot(true);
	return rc;
}

static int v_vm_check(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	uint64_t cap;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = cap_number(&argv[1], &cap, o);
	if (rc)
		return rc;
	rc = ioctl(vm->fd, KVM_CHECK_EXTENSION, (long)cap);
	if (rc < 0)
		return -errno;
	kt_add(o, " %d", rc);
	return 0;
}

static int v_vcpu_create(int argc, struct nxsim__drv_tok *argv,
			 struct kt_out *o)
{
	struct kt_vm *vm = find(argv[1].s, KT_VM, o);
	struct kt_vcpu *c;
	uint64_t id;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[2], UINT32_MAX, &id, &o->r);
	if (rc)
		return rc;
	c = calloc(1, sizeof(*c));
	c->vm = vm;
	c->fd = ioctl(vm->fd, KVM_CREATE_VCPU, (unsigned long)id);
	if (c->fd < 0) {
		rc = -errno;
		free(c);
		return rc;
	}
	c->name = strdup(argv[0].s);
	rc = kt_vcpu_setup(c, kvm_fd, o);
	if (!rc)
		rc = add_obj(argv[0].s, KT_VCPU, c, o);
	return rc;
}

static int v_vcpu_run(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vcpu *c = find(argv[0].s, KT_VCPU, o);

	return c ? kt_run_hlt(c, o) : o->r.rc;
}

/* ---- memory slots ---- */

static const char *const level_names[] = { "4k", "2m", "1g" };

static int parse_region(int argc, struct nxsim__drv_tok *argv,
			struct kt_slot *s, struct kt_out *o)
{
	uint64_t v;
	const char *x;
	int i, rc;

	memset(s, 0, sizeof(*s));
	rc = nxsim__drv_u64(&argv[1], UINT32_MAX, &v, &o->r);
	s->id = (uint32_t)v;
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &s->gpa, &o->r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[3], UINT64_MAX, &s->size, &o->r);
	s->hva = ((uint64_t)(s->id & 0xffff) + 1) << 32;
	for (i = 4; !rc && i < argc; i++) {
		if ((x = nxsim__drv_opt(&argv[i], "hva"))) {
			rc = nxsim__drv_opt_u64(x, UINT64_MAX, &s->hva, &o->r);
		} else if ((x = nxsim__drv_opt(&argv[i], "level"))) {
			for (s->level = 0; s->level < 3; s->level++)
				if (!strcmp(x, level_names[s->level]))
					break;
			if (s->level == 3)
				rc = kt_fail(o, -EINVAL,
					     "a level is 4k, 2m or 1g, not "
					     "\"%s\"",
					     x);
		} else if ((x = nxsim__drv_opt(&argv[i], "dirty"))) {
			rc = nxsim__drv_opt_u64(x, 1, &v, &o->r);
			if (v)
				s->flags |= KVM_MEM_LOG_DIRTY_PAGES;
		} else if ((x = nxsim__drv_opt(&argv[i], "readonly"))) {
			rc = nxsim__drv_opt_u64(x, 1, &v, &o->r);
			if (v)
				s->flags |= KVM_MEM_READONLY;
		} else {
			rc = kt_fail(o, -EINVAL,
				     "unknown memslot option \"%s\"",
				     argv[i].s);
		}
	}
	return rc;
}

/*
 * The memory under a slot: hugetlb pages of the level's size, or 4K
 * pages THP leaves alone, populated now so that no later first touch
 * (by the VMM's guest write, say) goes through an MMU notifier.  It lies
 * wherever the tool finds room at the script's hva modulo 1 GiB: KVM
 * looks only at the hva's offset within a huge page
 * (__kvm_set_memory_region()'s alignment checks, host_pfn_mapping_level()),
 * and two VMs of one script may use the same hvas.
 */
static int map_slot(struct kt_slot *s, struct kt_out *o)
{
	static const size_t page[] = { 4096, 2ul << 20, 1ul << 30 };
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	size_t len = (s->size + page[s->level] - 1) & ~(page[s->level] - 1);
	const uint64_t gib = 1ull << 30;
	uint64_t base, at;
	void *area, *p;

	if (!len)
		return 0;
	area = mmap(NULL, len + gib, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		return kt_fail(o, -errno, "no room for %zu bytes: %s", len,
			       strerror(errno));
	base = (uintptr_t)area;
	at = (base & ~(gib - 1)) + (s->hva & (gib - 1));
	if (at < base)
		at += gib;
	if (s->level == 1)
		flags |= MAP_HUGETLB | (21 << MAP_HUGE_SHIFT);
	else if (s->level == 2)
		flags |= MAP_HUGETLB | (30 << MAP_HUGE_SHIFT);
	p = mmap((void *)(uintptr_t)at, len, PROT_READ | PROT_WRITE, flags, -1,
		 0);
	if (p == MAP_FAILED) {
		munmap(area, len + gib);
		return kt_fail(o, -errno,
			       "mmap of %zu bytes (level=%s) failed: %s%s", len,
			       level_names[s->level], strerror(errno),
			       s->level ? " (hugetlb pages reserved at boot: "
					  "hugepages=)" :
					  "");
	}
	if (at > base)
		munmap(area, at - base);
	if (base + len + gib > at + len)
		munmap((void *)(uintptr_t)(at + len),
		       base + len + gib - at - len);
	if (!s->level)
		madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0, len); /* populate */
	s->map = p;
	s->maplen = len;
	return 0;
}

static int set_region(struct kt_vm *vm, const struct kt_slot *s)
{
	struct kvm_userspace_memory_region mr = {
		.slot = s->id,
		.flags = s->flags,
		.guest_phys_addr = s->gpa,
		.memory_size = s->size,
		.userspace_addr = (uintptr_t)s->map,
	};

	return ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &mr) ? -errno : 0;
}

/* memslot add and set: KVM_SET_USER_MEMORY_REGION with new memory */
static int add_region(struct kt_vm *vm, struct kt_slot *n, struct kt_out *o)
{
	struct kt_slot *old = slot_by_id(vm, n->id), *s;
	int i, rc;

	if (old && old->hva == n->hva) {
		/* the same memory: KVM decides on the change */
		n->map = old->map;
		rc = set_region(vm, n);
		if (!rc && !n->size)
			unmap_slot(old);
		else if (!rc)
			old->gpa = n->gpa, old->flags = n->flags;
		return rc;
	}
	if (!n->size) /* a delete of a slot the tool does not know */
		return set_region(vm, n);
	for (i = 0; i < KT_MAX_SLOTS && vm->slots[i].used; i++)
		;
	if (i == KT_MAX_SLOTS)
		return kt_fail(o, -ENOSPC, "too many slots in one VM");
	s = &vm->slots[i];
	*s = *n;
	rc = map_slot(s, o);
	if (!rc)
		rc = set_region(vm, s);
	if (rc) {
		unmap_slot(s);
		return rc;
	}
	if (old) /* replaced at another hva */
		unmap_slot(old);
	s->used = true;
	return 0;
}

int kt_add_slot(struct kt_vm *vm, struct kt_slot *n, struct kt_out *o)
{
	return add_region(vm, n, o);
}

static int v_memslot_add(int argc, struct nxsim__drv_tok *argv,
			 struct kt_out *o, bool add_only)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	struct kt_slot n;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = parse_region(argc, argv, &n, o);
	if (rc)
		return rc;
	if (add_only && !n.size)
		return kt_fail(o, -EINVAL,
			       "size 0 deletes: use memslot delete");
	if (add_only && slot_by_id(vm, n.id))
		return kt_fail(o, -EEXIST,
			       "slot %u exists: memslot move, dirty-log or set "
			       "change it",
			       n.id);
	return add_region(vm, &n, o);
}

static struct kt_slot *known_slot(struct nxsim__drv_tok *argv,
				  struct kt_vm **vmp, struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	struct kt_slot *s;
	uint64_t id;

	if (!vm || nxsim__drv_u64(&argv[1], UINT32_MAX, &id, &o->r))
		return NULL;
	*vmp = vm;
	s = slot_by_id(vm, (uint32_t)id);
	if (!s)
		kt_fail(o, -ENOENT,
			"%s has no slot %" PRIu64 " from this script",
			argv[0].s, id);
	return s;
}

static int v_memslot_delete(int argc, struct nxsim__drv_tok *argv,
			    struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	struct kt_slot n = { 0 }, *s;
	uint64_t id;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[1], UINT32_MAX, &id, &o->r);
	if (rc)
		return rc;
	n.id = (uint32_t)id;
	rc = set_region(vm, &n);
	s = slot_by_id(vm, n.id);
	if (!rc && s)
		unmap_slot(s);
	return rc;
}

/* memslot move (a new gpa) and memslot dirty-log (the flag): the whole
 * region again, as KVM wants it */
static int v_memslot_change(int argc, struct nxsim__drv_tok *argv,
			    struct kt_out *o, bool move)
{
	struct kt_vm *vm;
	struct kt_slot *s = known_slot(argv, &vm, o), n;
	int rc = 0;

	if (!s)
		return o->r.rc;
	n = *s;
	if (move)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &n.gpa, &o->r);
	else if (!strcmp(argv[2].s, "on"))
		n.flags |= KVM_MEM_LOG_DIRTY_PAGES;
	else if (!strcmp(argv[2].s, "off"))
		n.flags &= ~KVM_MEM_LOG_DIRTY_PAGES;
	else
		rc = kt_fail(o, -EINVAL, "on or off, not \"%s\"", argv[2].s);
	if (!rc)
		rc = set_region(vm, &n);
	if (!rc)
		*s = n;
	return rc;
}

/* ---- the dirty log ---- */

static void add_pages(struct kt_out *o, const uint64_t *bm, uint64_t n)
{
	uint64_t i, count = 0, start;
	bool first = true;

	for (i = 0; i < n; i++)
		count += (bm[i / 64] >> (i % 64)) & 1;
	kt_add(o, " dirty=%" PRIu64 " pages=", count);
	if (!count) {
		kt_add(o, "-");
		return;
	}
	for (i = 0; i < n; i++) {
		if (!((bm[i / 64] >> (i % 64)) & 1))
			continue;
		start = i;
		while (i + 1 < n && ((bm[(i + 1) / 64] >> ((i + 1) % 64)) & 1))
			i++;
		kt_add(o, "%s%" PRIu64, first ? "" : ",", start);
		if (i > start)
			kt_add(o, "-%" PRIu64, i);
		first = false;
	}
}

static int v_dirty_get(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	struct kvm_dirty_log log = { 0 };
	struct kt_slot *s;
	uint64_t id, n;
	uint64_t *bm;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[1], UINT32_MAX, &id, &o->r);
	if (rc)
		return rc;
	s = slot_by_id(vm, (uint32_t)id);
	n = s ? s->size / 4096 : 0;
	bm = calloc((n + 63) / 64 + 1, 8);
	log.slot = (uint32_t)id;
	log.dirty_bitmap = bm;
	rc = ioctl(vm->fd, KVM_GET_DIRTY_LOG, &log) ? -errno : 0;
	if (!rc)
		add_pages(o, bm, n);
	free(bm);
	return rc;
}

static int v_dirty_clear(int argc, struct nxsim__drv_tok *argv,
			 struct kt_out *o)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	struct kvm_clear_dirty_log log = { 0 };
	uint64_t id, first, n, *bm = NULL;
	const char *p = NULL;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[1], UINT32_MAX, &id, &o->r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &first, &o->r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[3], UINT32_MAX, &n, &o->r);
	if (!rc && argc > 4 && strcmp(argv[4].s, "null") &&
	    !(p = nxsim__drv_opt(&argv[4], "pages")))
		rc = kt_fail(o, -EINVAL, "pages=LIST or null");
	if (rc)
		return rc;
	if (argc <= 4 || p) {
		bm = calloc((n + 63) / 64 + 1, 8);
		if (!bm)
			return kt_fail(o, -ENOMEM, "bitmap");
		if (!p)
			memset(bm, 0xff, (n + 7) / 8);
		else if ((rc = nxsim__drv_pages(p, bm, n, &o->r))) {
			free(bm);
			return rc;
		}
	}
	log.slot = (uint32_t)id;
	log.first_page = first;
	log.num_pages = (uint32_t)n;
	log.dirty_bitmap = bm;
	rc = ioctl(vm->fd, KVM_CLEAR_DIRTY_LOG, &log) ? -errno : 0;
	free(bm);
	return rc;
}

/* ---- accesses, guest memory ---- */

static int v_access(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vcpu *c = find(argv[0].s, KT_VCPU, o);
	uint64_t addr;
	int rc;

	if (!c)
		return o->r.rc;
	if (strcmp(argv[1].s, "read") && strcmp(argv[1].s, "write") &&
	    strcmp(argv[1].s, "exec"))
		return kt_fail(o, -EINVAL, "read, write or exec, not \"%s\"",
			       argv[1].s);
	rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &addr, &o->r);
	return rc ? rc : kt_access(c, argv[1].s, addr, o);
}

static int size_opt(int argc, struct nxsim__drv_tok *argv, int i,
		    unsigned int *size, struct kt_out *o)
{
	const char *v;
	uint64_t n;
	int rc;

	if (argc <= i)
		return 0;
	if (!(v = nxsim__drv_opt(&argv[i], "size")))
		return kt_fail(o, -EINVAL, "unknown option \"%s\"", argv[i].s);
	rc = nxsim__drv_opt_u64(v, 8, &n, &o->r);
	if (!rc && n != 1 && n != 2 && n != 4 && n != 8)
		rc = kt_fail(o, -EINVAL, "size is 1, 2, 4 or 8");
	*size = (unsigned int)n;
	return rc;
}

static int v_guest_rw(int argc, struct nxsim__drv_tok *argv, struct kt_out *o,
		      bool write)
{
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);
	unsigned int size = 8;
	uint64_t gpa, val = 0;
	void *p;
	int rc;

	if (!vm)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gpa, &o->r);
	if (!rc && write)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &val, &o->r);
	if (!rc)
		rc = size_opt(argc, argv, write ? 3 : 2, &size, o);
	if (rc)
		return rc;
	if (write && size < 8 && val >> (8 * size))
		return -ERANGE;
	p = kt_hva(vm, gpa, size);
	if (!p)
		return -EFAULT;
	if (write) {
		memcpy(p, &val, size);
	} else {
		memcpy(&val, p, size);
		kt_add(o, " value=0x%" PRIx64, val);
	}
	return 0;
}

static int v_guest_pte(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_vcpu *c = find(argv[0].s, KT_VCPU, o);
	unsigned int size = 8;
	uint64_t gpa, val;
	int rc;

	if (!c)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gpa, &o->r);
	if (!rc)
		rc = nxsim__drv_u64(&argv[2], UINT64_MAX, &val, &o->r);
	if (!rc)
		rc = size_opt(argc, argv, 3, &size, o);
	if (rc)
		return rc;
	if ((size != 4 && size != 8) || gpa % size || (size == 4 && val >> 32))
		return -EINVAL;
	return kt_store(c, gpa, val, size, o);
}

static int v_guest_invlpg(int argc, struct nxsim__drv_tok *argv,
			  struct kt_out *o)
{
	struct kt_vcpu *c = find(argv[0].s, KT_VCPU, o);
	uint64_t gva;
	int rc;

	if (!c)
		return o->r.rc;
	rc = nxsim__drv_u64(&argv[1], UINT64_MAX, &gva, &o->r);
	return rc ? rc : kt_invlpg(c, gva, o);
}

static int v_guest_paging(int argc, struct nxsim__drv_tok *argv,
			  struct kt_out *o)
{
	struct kt_vcpu *c = find(argv[0].s, KT_VCPU, o);

	return c ? kt_paging(c, argc - 1, argv + 1, o) : o->r.rc;
}

/* ---- clock, stats ---- */

static int v_clock_advance(int argc, struct nxsim__drv_tok *argv,
			   struct kt_out *o)
{
	struct timespec ts;
	uint64_t v;
	int rc;

	if (argc > 1)
		return not_expressible(o, "a named clock");
	rc = nxsim__drv_duration(&argv[0], &v, &o->r);
	if (rc)
		return rc;
	/* the recovery worker is the kernel's kthread: real time passes */
	ts.tv_sec = v / 1000000000;
	ts.tv_nsec = v % 1000000000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	kt_add(o, " slept_ns=%" PRIu64, v);
	return 0;
}

static int v_stat(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	static struct nxsim__drv_tok names[] = {
		{ "pages_4k", 8 },
		{ "pages_2m", 8 },
		{ "pages_1g", 8 },
		{ "nx_lpage_splits", 15 },
	};
	struct kt_vm *vm = find(argv[0].s, KT_VM, o);

	if (!vm)
		return o->r.rc;
	if (argc > 1)
		return kt_stats(vm->stats_fd, 1, argv + 1, true, o);
	return kt_stats(vm->stats_fd, 4, names, false, o);
}

static int v_kstat(int argc, struct nxsim__drv_tok *argv, struct kt_out *o)
{
	struct kt_out scratch = { 0 };
	struct kt_vcpu *c;
	struct kt_vm *vm;

	vm = find(argv[0].s, KT_VM, &scratch);
	if (vm)
		return kt_stats(vm->stats_fd, argc - 1, argv + 1, false, o);
	if (scratch.r.err[0] && strncmp(scratch.r.err, "no ", 3)) {
		o->r = scratch.r;
		return -EBADF;
	}
	c = find(argv[0].s, KT_VCPU, o);
	return c ? kt_stats(c->stats_fd, argc - 1, argv + 1, false, o) :
		   o->r.rc;
}

/* ---- the interpreter ---- */

enum {
	V_HOST_CREATE,
	V_HOST_DESTROY,
	V_HOST_USE,
	V_HOST_VULN,
	V_PARAM_GET,
	V_PARAM_SET,
	V_PARAM_WRITE,
	V_VM_CREATE,
	V_VM_DESTROY,
	V_VM_CAP,
	V_VM_CHECK,
	V_VCPU_CREATE,
	V_VCPU_RUN,
	V_MEMSLOT_ADD,
	V_MEMSLOT_SET,
	V_MEMSLOT_DELETE,
	V_MEMSLOT_MOVE,
	V_MEMSLOT_DIRTY,
	V_DIRTY_GET,
	V_DIRTY_CLEAR,
	V_ACCESS,
	V_GUEST_WRITE,
	V_GUEST_READ,
	V_GUEST_PTE,
	V_GUEST_PAGING,
	V_GUEST_INVLPG,
	V_CLOCK_ADVANCE,
	V_STAT,
	V_KSTAT
};

static const struct {
	const char *group, *name;
	int min, max, id;
} verbs[] = {
	{ "host", "create", 1, 8, V_HOST_CREATE },
	{ "host", "destroy", 1, 1, V_HOST_DESTROY },
	{ "host", "use", 1, 1, V_HOST_USE },
	{ "host", "vuln", 0, 1, V_HOST_VULN },
	{ "param", "get", 1, 1, V_PARAM_GET },
	{ "param", "set", 2, 2, V_PARAM_SET },
	{ "param", "write", 2, 2, V_PARAM_WRITE },
	{ "vm", "create", 1, 2, V_VM_CREATE },
	{ "vm", "destroy", 1, 1, V_VM_DESTROY },
	{ "vm", "cap", 2, 7, V_VM_CAP },
	{ "vm", "check", 2, 2, V_VM_CHECK },
	{ "vcpu", "create", 3, 3, V_VCPU_CREATE },
	{ "vcpu", "run", 1, 1, V_VCPU_RUN },
	{ "memslot", "add", 4, 8, V_MEMSLOT_ADD },
	{ "memslot", "set", 4, 8, V_MEMSLOT_SET },
	{ "memslot", "delete", 2, 2, V_MEMSLOT_DELETE },
	{ "memslot", "move", 3, 3, V_MEMSLOT_MOVE },
	{ "memslot", "dirty-log", 3, 3, V_MEMSLOT_DIRTY },
	{ "dirty-log", "get", 2, 2, V_DIRTY_GET },
	{ "dirty-log", "clear", 4, 5, V_DIRTY_CLEAR },
	{ "access", NULL, 3, 3, V_ACCESS },
	{ "guest", "write", 3, 4, V_GUEST_WRITE },
	{ "guest", "read", 2, 3, V_GUEST_READ },
	{ "guest", "pte", 3, 4, V_GUEST_PTE },
	{ "guest", "paging", 1, 9, V_GUEST_PAGING },
	{ "guest", "invlpg", 2, 2, V_GUEST_INVLPG },
	{ "clock", "advance", 1, 2, V_CLOCK_ADVANCE },
	{ "stat", NULL, 1, 2, V_STAT },
	{ "kstat", NULL, 1, 64, V_KSTAT },
};

static int dispatch(int id, int argc, struct nxsim__drv_tok *argv,
		    struct kt_out *o)
{
	switch (id) {
	case V_HOST_CREATE:
		return v_host_create(argc, argv, o);
	case V_HOST_DESTROY:
	case V_HOST_USE:
		return find(argv[0].s, KT_HOST, o) ? 0 : o->r.rc;
	case V_HOST_VULN:
		return v_host_vuln(argc, argv, o);
	case V_PARAM_GET:
		return v_param_get(argc, argv, o);
	case V_PARAM_SET:
		return v_param_set(argc, argv, o, false);
	case V_PARAM_WRITE:
		return v_param_set(argc, argv, o, true);
	case V_VM_CREATE:
		return v_vm_create(argc, argv, o);
	case V_VM_DESTROY:
		return v_vm_destroy(argc, argv, o);
	case V_VM_CAP:
		return v_vm_cap(argc, argv, o);
	case V_VM_CHECK:
		return v_vm_check(argc, argv, o);
	case V_VCPU_CREATE:
		return v_vcpu_create(argc, argv, o);
	case V_VCPU_RUN:
		return v_vcpu_run(argc, argv, o);
	case V_MEMSLOT_ADD:
		return v_memslot_add(argc, argv, o, true);
	case V_MEMSLOT_SET:
		return v_memslot_add(argc, argv, o, false);
	case V_MEMSLOT_DELETE:
		return v_memslot_delete(argc, argv, o);
	case V_MEMSLOT_MOVE:
		return v_memslot_change(argc, argv, o, true);
	case V_MEMSLOT_DIRTY:
		return v_memslot_change(argc, argv, o, false);
	case V_DIRTY_GET:
		return v_dirty_get(argc, argv, o);
	case V_DIRTY_CLEAR:
		return v_dirty_clear(argc, argv, o);
	case V_ACCESS:
		return v_access(argc, argv, o);
	case V_GUEST_WRITE:
		return v_guest_rw(argc, argv, o, true);
	case V_GUEST_READ:
		return v_guest_rw(argc, argv, o, false);
	case V_GUEST_PTE:
		return v_guest_pte(argc, argv, o);
	case V_GUEST_PAGING:
		return v_guest_paging(argc, argv, o);
	case V_GUEST_INVLPG:
		return v_guest_invlpg(argc, argv, o);
	case V_CLOCK_ADVANCE:
		return v_clock_advance(argc, argv, o);
	case V_STAT:
		return v_stat(argc, argv, o);
	case V_KSTAT:
		return v_kstat(argc, argv, o);
	}
	return -EINVAL;
}

static int command(int n, struct nxsim__drv_tok *t, struct kt_out *o)
{
	size_t i;

	for (i = 0; i < NXSIM__DRV_NELEM(verbs); i++) {
		int skip = verbs[i].name ? 2 : 1;

		if (strcmp(t[0].s, verbs[i].group) ||
		    (verbs[i].name && (n < 2 || strcmp(t[1].s, verbs[i].name))))
			continue;
		if (n - skip < verbs[i].min || n - skip > verbs[i].max)
			return kt_fail(o, -EINVAL, "wrong number of arguments");
		if (dry && verbs[i].id != V_HOST_CREATE)
			return 0;
		if (dry && verbs[i].id == V_HOST_CREATE)
			n_objs = 0; /* names are not checked */
		return dispatch(verbs[i].id, n - skip, t + skip, o);
	}
	return kt_fail(o, -EOPNOTSUPP,
		       "not expressible on a real kernel: \"%s%s%s\"", t[0].s,
		       n > 1 ? " " : "", n > 1 ? t[1].s : "");
}

static void answer(int rc, struct kt_out *o)
{
	const char *name = nxsim_errname(rc), *text = nxsim_strerror(rc);
	const char *colon = strstr(text, ": ");

	fwrite(o->pre, 1, o->pre_len, stdout);
	if (!name) {
		name = strerrorname_np(-rc);
		text = strerror(-rc);
	} else if (colon) {
		text = colon + 2;
	}
	if (rc >= 0)
		printf("OK%s\n", o->r.buf);
	else if (o->r.err[0])
		printf("ERR %s%s line %lu: %s\n",
		       name && name[0] == '-' ? "" : "-", name ? name : "?",
		       line_no, o->r.err);
	else
		printf("ERR %s%s %s\n", name && name[0] == '-' ? "" : "-",
		       name ? name : "?", text);
	fwrite(o->post, 1, o->post_len, stdout);
	fflush(stdout);
}

static int run(FILE *in)
{
	struct nxsim__drv_tok toks[NXSIM__DRV_MAX_TOKS];
	char *line = NULL, *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, in)) >= 0) {
		struct kt_out *o = calloc(1, sizeof(*o));
		const char *why = "";
		int n, rc;

		line_no++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		buf = realloc(buf, 2 * len + 1);
		n = nxsim__drv_lex(line, len, toks, buf, &why);
		if (n == 0 || (n > 0 && !strcmp(toks[0].s, "expect"))) {
			free(o);
			continue;
		}
		rc = n < 0 ? kt_fail(o, n, "%s", why) : command(n, toks, o);
		answer(rc, o);
		free(o);
	}
	free(line);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	FILE *in = stdin;

	if (argc > 1 && !strcmp(argv[1], "--check")) {
		dry = true; /* --check SCRIPT: answers, with no kernel */
		argv++;
		argc--;
	}
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf("nxsim-kvm %s\n", nxsim_version());
		return 0;
	}
	if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "--help") ||
				       !strcmp(argv[1], "-h")))) {
		fprintf(argc > 2 ? stderr : stdout,
			"usage: nxsim-kvm [--check] [SCRIPT|-] | --version\n"
			"runs an nxsim script on /dev/kvm (docs/kcheck.md); "
			"--check answers\n"
			"each line OK, or the error of a line a real kernel "
			"cannot answer\n");
		return argc > 2 ? 2 : 0;
	}
	if (argc == 2 && strcmp(argv[1], "-")) {
		in = fopen(argv[1], "r");
		if (!in) {
			fprintf(stderr, "nxsim-kvm: %s: %s\n", argv[1],
				strerror(errno));
			return 2;
		}
	}
	if (dry)
		return run(in);
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0) {
		fprintf(stderr,
			"nxsim-kvm: /dev/kvm: %s (are kvm and kvm_amd "
			"or kvm_intel loaded?)\n",
			strerror(errno));
		return 2;
	}
	record_boot_params();
	return run(in);
}
