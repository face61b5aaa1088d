// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-sweep: list, run (a shard of, on N local threads, resuming) and
 * merge the jobs of a sweep file.  See docs/sweep.md.
 */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

static const char usage[] =
	"usage: nxsim-sweep [-j N] [--shard K/N] [-o FILE [--resume]] SWEEP\n"
	"       nxsim-sweep --list [--shard K/N] SWEEP\n"
	"       nxsim-sweep merge [-o FILE] SWEEP RESULT...\n"
	"       nxsim-sweep --help | --version\n";

static int list(const struct nxsim__sweep *s, uint64_t k, uint64_t n)
{
	struct nxsim__sweep_job job;
	uint64_t seq, nr = nxsim__sweep_shard_size(s->nr_jobs, k, n);

	job.sel = calloc(s->nr_axes + 1, sizeof(*job.sel));
	if (!job.sel)
		return -ENOMEM;
	for (seq = 0; seq < nr; seq++) {
		struct nxsim__drv_reply r = { .len = 0 };

		nxsim__sweep_job(s, k + seq * n, &job);
		nxsim__sweep_params(s, &job, &r);
		printf("%016" PRIx64 "%s\n", job.id, r.buf);
	}
	free(job.sel);
	return fflush(stdout) ? -EIO : 0;
}

static int load(struct nxsim__sweep *s, const char *path)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		fprintf(stderr, "nxsim-sweep: %s: %s\n", path, strerror(errno));
		return -EINVAL;
	}
	rc = nxsim__sweep_load(s, f, path, stderr);
	fclose(f);
	return rc;
}

static int bad_arg(const char *arg, const char *why)
{
	fprintf(stderr, "nxsim-sweep: %s: %s\n%s", arg, why, usage);
	return 2;
}

static int merge(int argc, char **argv)
{
	struct nxsim__sweep_merge_stats st;
	struct nxsim__sweep s;
	const char *out = NULL;
	int i = 1, rc;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		out = argv[i + 1];
		i += 2;
	}
	if (argc - i < 2 || argv[i][0] == '-')
		return bad_arg(argc > i ? argv[i] : "merge",
			       "merge needs a SWEEP and RESULT files");
	if (load(&s, argv[i]))
		return 2;
	rc = nxsim__sweep_merge(&s, argv + i + 1, argc - i - 1, out, stderr,
				&st);
	if (!rc)
		fprintf(stderr,
			"merge: %" PRIu64 " of %" PRIu64 " jobs, %" PRIu64
			" missing, %" PRIu64 " "
			"duplicated, %" PRIu64 " not in the sweep\n",
			st.merged, s.nr_jobs, st.missing, st.duplicated,
			st.unknown);
	nxsim__sweep_free(&s);
	if (rc)
		return 2;
	return st.missing || st.duplicated || st.unknown ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nxsim__sweep_done done = { 0 };
	struct nxsim__sweep_pool p = { .n = 1 };
	const char *path = NULL, *out = NULL, *why;
	bool do_list = false, resume = false;
	unsigned long threads = 1;
	struct nxsim__sweep s;
	int i, rc;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge(argc - 1, argv + 1);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("nxsim-sweep %d.%d.%d\n", NXSIM_VERSION_MAJOR,
			       NXSIM_VERSION_MINOR, NXSIM_VERSION_PATCH);
			return 0;
		} else if (!strcmp(a, "--list")) {
			do_list = true;
		} else if (!strcmp(a, "--resume")) {
			resume = true;
		} else if ((!strcmp(a, "--shard") || !strcmp(a, "-o") ||
			    !strcmp(a, "-j")) &&
			   i + 1 == argc) {
			return bad_arg(a, "needs a value");
		} else if (!strcmp(a, "--shard")) {
			if (nxsim__sweep_shard(argv[++i], &p.k, &p.n, &why))
				return bad_arg(argv[i], why);
		} else if (!strcmp(a, "-o")) {
			out = argv[++i];
		} else if (!strncmp(a, "-j", 2)) {
			a = a[2] ? a + 2 : argv[++i];
			errno = 0;
			threads = strtoul(a, &end, 10);
			if (*a < '1' || *a > '9' || *end || errno ||
			    threads > 1024)
				return bad_arg(a, "-j takes 1 to 1024");
		} else if (a[0] == '-') {
			return bad_arg(a, "unknown option");
		} else if (path) {
			return bad_arg(a, "one sweep file at a time");
		} else {
			path = a;
		}
	}
	if (!path)
		return bad_arg("SWEEP", "missing");
	if (resume && !out)
		return bad_arg("--resume", "needs -o FILE");
	if (do_list && (out || resume || threads != 1))
		return bad_arg("--list", "takes --shard only");
	if (load(&s, path))
		return 2;
	if (do_list) {
		rc = list(&s, p.k, p.n);
		nxsim__sweep_free(&s);
		return rc ? 2 : 0;
	}
	p.out = stdout;
	if (out && !(p.out = fopen(out, resume ? "a+" : "w"))) {
		nxsim__sweep_free(&s);
		return bad_arg(out, strerror(errno));
	}
	rc = resume ? nxsim__sweep_done_load(&done, p.out, out, stderr) : 0;
	if (!rc && resume && fseeko(p.out, 0, SEEK_END))
		rc = -EIO;
	if (rc) {
		fclose(p.out);
		nxsim__sweep_free(&s);
		return 2;
	}
	p.s = &s;
	p.done = &done;
	rc = nxsim__sweep_run(&p, threads);
	if (rc)
		fprintf(stderr, "nxsim-sweep: %s\n", strerror(-rc));
	if (p.out != stdout && fclose(p.out) && !rc)
		rc = -EIO;
	free(done.ids);
	nxsim__sweep_free(&s);
	if (rc)
		return 2;
	if (p.failed)
		fprintf(stderr,
			"nxsim-sweep: %" PRIu64 " of %" PRIu64 " jobs failed\n",
			p.failed, p.nr);
	return p.failed ? 1 : 0;
}
