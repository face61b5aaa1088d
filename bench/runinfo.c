// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run identity for benchmark results: nproc, the CPU model from
 * /proc/cpuinfo, the kernel from uname(2), the git commit (asked of git at
 * run time, else the one seen at configure time, else "unknown"), the
 * build type and allocator backend, the seed and the mode.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <nxsim/alloc.h>
#include <nxsim/common.h>

#include "runinfo.h"

static struct {
	long nproc;
	char cpu[128];
	char kernel[200];
	char commit[64];
} info;

static const char *const mode_names[] = {
	[BENCH_TINY] = "tiny",
	[BENCH_QUICK] = "quick",
	[BENCH_FULL] = "full",
};

static void read_cpu_model(void)
{
	char line[256], *colon, *nl;
	FILE *f = fopen("/proc/cpuinfo", "r");

	strcpy(info.cpu, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10))
			continue;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		nl = strchr(colon, '\n');
		if (nl)
			*nl = '\0';
		snprintf(info.cpu, sizeof(info.cpu), "%s", colon + 2);
		break;
	}
	fclose(f);
}

/* The source tree's HEAD, "+dirty" if it has local changes. */
static void read_commit(void)
{
	char buf[64] = "";
	FILE *p;

	snprintf(info.commit, sizeof(info.commit), "%s",
		 NXSIM_BENCH_CONFIGURE_COMMIT[0] ?
			 NXSIM_BENCH_CONFIGURE_COMMIT :
			 "unknown");
	p = popen("git -C '" NXSIM_BENCH_SOURCE_DIR "' rev-parse HEAD "
		  "2>/dev/null",
		  "r");
	if (!p)
		return;
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = '\0';
	if (pclose(p) || strlen(buf) < 40)
		return;
	buf[40] = '\0';
	snprintf(info.commit, sizeof(info.commit), "%s", buf);
	p = popen("git -C '" NXSIM_BENCH_SOURCE_DIR "' status --porcelain "
		  "--untracked-files=no 2>/dev/null",
		  "r");
	if (!p)
		return;
	if (fgets(buf, sizeof(buf), p))
		strcat(info.commit, "+dirty");
	pclose(p);
}

void bench_runinfo_init(void)
{
	struct utsname u;

	info.nproc = sysconf(_SC_NPROCESSORS_ONLN);
	read_cpu_model();
	if (uname(&u) == 0)
		snprintf(info.kernel, sizeof(info.kernel), "%s %s", u.sysname,
			 u.release);
	else
		strcpy(info.kernel, "unknown");
	read_commit();
}

void bench_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void bench_runinfo_json(const struct bench_ctx *ctx, FILE *f)
{
	fprintf(f, "\"run\":{\"mode\":\"%s\",\"seed\":%" PRIu64 ",\"commit\":",
		mode_names[ctx->mode], ctx->seed);
	bench_json_str(f, info.commit);
	fprintf(f, ",\"version\":\"%d.%d.%d\",\"build\":", NXSIM_VERSION_MAJOR,
		NXSIM_VERSION_MINOR, NXSIM_VERSION_PATCH);
	bench_json_str(f, NXSIM_BENCH_BUILD_TYPE);
	fputs(",\"alloc\":", f);
	bench_json_str(f, nxsim_alloc_backend());
	fprintf(f, ",\"machine\":{\"nproc\":%ld,\"cpu\":", info.nproc);
	bench_json_str(f, info.cpu);
	fputs(",\"kernel\":", f);
	bench_json_str(f, info.kernel);
	fputs("}}", f);
}

void bench_runinfo_print(const struct bench_ctx *ctx, FILE *f)
{
	fprintf(f,
		"nxsim-bench %s: seed %" PRIu64 ", commit %s, %s build, %s "
		"allocator\nmachine: %ld CPUs, %s, %s\n",
		mode_names[ctx->mode], ctx->seed, info.commit,
		NXSIM_BENCH_BUILD_TYPE, nxsim_alloc_backend(), info.nproc,
		info.cpu, info.kernel);
}
