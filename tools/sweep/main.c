// SPDX-License-Identifier: GPL-2.0-only
/*
 * nxsim-sweep: list, run (a shard of, on N local threads, resuming) and
 * merge the jobs of a sweep file.  Options are GNU-style (getopt_long():
 * --shard=0/3 or --shard 0/3, -j4 or -j 4).  See docs/sweep.md.
 */
#include <inttypes.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

static const char usage[] =
	"usage: nxsim-sweep [-j N] [--shard K/N] [-o FILE [--resume]] "
	"[--progress] SWEEP\n"
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
		nxsim__sweep_job(s, k + seq * n, &job);
		printf("%016" PRIx64, job.id);
		nxsim__sweep_params(s, &job, stdout);
		putchar('\n');
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

/* getopt_long()'s own message is out already: the usage, status 2. */
static int bad_option(void)
{
	fputs(usage, stderr);
	return 2;
}

static int merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct nxsim__sweep_merge_stats st;
	struct nxsim__sweep s;
	const char *out = NULL;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:", opts, NULL)) != -1) {
		if (c != 'o')
			return bad_option();
		out = optarg;
	}
	if (argc - optind < 2)
		return bad_arg(argc > optind ? argv[optind] : "merge",
			       "merge needs a SWEEP and RESULT files");
	if (load(&s, argv[optind]))
		return 2;
	rc = nxsim__sweep_merge(&s, argv + optind + 1, argc - optind - 1, out,
				stderr, &st);
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

enum { OPT_LIST = 256, OPT_PROGRESS, OPT_RESUME, OPT_SHARD, OPT_VERSION };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "output", required_argument, NULL, 'o' },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "resume", no_argument, NULL, OPT_RESUME },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct nxsim__sweep_done done = { 0 };
	struct nxsim__sweep_pool p = { .n = 1 };
	const char *path = NULL, *out = NULL, *why;
	bool do_list = false, resume = false, progress = false;
	unsigned long threads = 1;
	struct nxsim__sweep s;
	int c, rc;
	char *end;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "hj:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return 0;
		case OPT_VERSION:
			printf("nxsim-sweep %d.%d.%d\n", NXSIM_VERSION_MAJOR,
			       NXSIM_VERSION_MINOR, NXSIM_VERSION_PATCH);
			return 0;
		case OPT_LIST:
			do_list = true;
			break;
		case OPT_PROGRESS:
			progress = true;
			break;
		case OPT_RESUME:
			resume = true;
			break;
		case OPT_SHARD:
			if (nxsim__sweep_shard(optarg, &p.k, &p.n, &why))
				return bad_arg(optarg, why);
			break;
		case 'o':
			out = optarg;
			break;
		case 'j':
			errno = 0;
			threads = strtoul(optarg, &end, 10);
			if (*optarg < '1' || *optarg > '9' || *end || errno ||
			    threads > 1024)
				return bad_arg(optarg, "-j takes 1 to 1024");
			break;
		default:
			return bad_option();
		}
	}
	if (optind < argc)
		path = argv[optind];
	if (argc - optind > 1)
		return bad_arg(argv[optind + 1], "one sweep file at a time");
	if (!path)
		return bad_arg("SWEEP", "missing");
	if (resume && !out)
		return bad_arg("--resume", "needs -o FILE");
	if (do_list && (out || resume || progress || threads != 1))
		return bad_arg("--list", "takes --shard only");
	if (load(&s, path))
		return 2;
	if (do_list) {
		rc = list(&s, p.k, p.n);
		nxsim__sweep_free(&s);
		return rc ? 2 : 0;
	}
	p.out = stdout;
	p.progress = progress ? stderr : NULL;
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
