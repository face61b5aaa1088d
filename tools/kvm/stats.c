// SPDX-License-Identifier: GPL-2.0-only
/*
 * The binary stats of a VM or vCPU fd (KVM_GET_STATS_FD,
 * Documentation/virt/kvm/api.rst "KVM_GET_STATS_FD"; virt/kvm/binary_stats.c):
 * the header, the descriptors with their names, the data.  Only scalar
 * stats (size 1) are answered; the halt-polling histograms are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "kvm.h"

struct stats {
	struct kvm_stats_header h;
	char *descs;
	uint64_t *data;
	size_t desc_size;
	uint64_t data_len;
};

static int load(int fd, struct stats *st)
{
	size_t i, n;
	uint64_t end = 0;

	if (fd < 0)
		return -EBADF;
	if (pread(fd, &st->h, sizeof(st->h), 0) != sizeof(st->h))
		return -EIO;
	st->desc_size = sizeof(struct kvm_stats_desc) + st->h.name_size;
	n = st->h.num_desc;
	st->descs = calloc(n, st->desc_size);
	if (pread(fd, st->descs, n * st->desc_size, st->h.desc_offset) !=
	    (ssize_t)(n * st->desc_size)) {
		free(st->descs);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		struct kvm_stats_desc *d =
			(void *)(st->descs + i * st->desc_size);
		uint64_t e = d->offset + (uint64_t)d->size * 8;

		if (e > end)
			end = e;
	}
	st->data = calloc(1, end + 8);
	st->data_len = end;
	if (pread(fd, st->data, end, st->h.data_offset) != (ssize_t)end) {
		free(st->descs);
		free(st->data);
		return -EIO;
	}
	return 0;
}

static struct kvm_stats_desc *desc(struct stats *st, size_t i)
{
	return (void *)(st->descs + i * st->desc_size);
}

int kt_stats(int fd, int argc, struct nxsim__drv_tok *argv, bool bare,
	     struct kt_out *o)
{
	struct stats st;
	size_t i;
	int a, rc = load(fd, &st);

	if (rc)
		return kt_fail(o, rc, "KVM_GET_STATS_FD: cannot read");
	if (!argc) {
		for (i = 0; i < st.h.num_desc; i++) {
			struct kvm_stats_desc *d = desc(&st, i);

			if (d->size == 1)
				kt_add(o, " %s=%" PRIu64, d->name,
				       st.data[d->offset / 8]);
		}
	}
	for (a = 0; a < argc && !rc; a++) {
		for (i = 0; i < st.h.num_desc; i++)
			if (!strcmp(desc(&st, i)->name, argv[a].s) &&
			    desc(&st, i)->size == 1)
				break;
		if (i == st.h.num_desc) {
			rc = kt_fail(o, -ENOENT, "no stat \"%s\"", argv[a].s);
			break;
		}
		if (bare)
			kt_add(o, " %" PRIu64,
			       st.data[desc(&st, i)->offset / 8]);
		else
			kt_add(o, " %s=%" PRIu64, argv[a].s,
			       st.data[desc(&st, i)->offset / 8]);
	}
	free(st.descs);
	free(st.data);
	return rc;
}
