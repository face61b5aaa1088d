/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload runner's internals: a run (host, VM, vCPUs, the batch
 * buffer) and the generator interface its workloads implement.
 */
#ifndef NXSIM_WORKLOAD_WORKLOAD_H
#define NXSIM_WORKLOAD_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <nxsim/workload.h>

/**
 * struct nxsim__run - one workload run
 * @cfg: the config, with defaults filled in
 * @host: its own host
 * @vm: the VM
 * @vcpu: the vCPUs, @cfg.nr_vcpus
 * @buf: one chunk of accesses
 * @chunk: accesses per turn
 * @ghz: cycles per ns
 * @mem_bytes: the slot's size, from gpa 0
 * @cycles: modelled cycles the clock has been moved by
 * @next_sample: access count of the next huge-fraction sample
 */
struct nxsim__run {
	struct nxsim_workload_config cfg;
	struct nxsim_host *host;
	struct nxsim_vm *vm;
	struct nxsim_vcpu **vcpu;
	struct nxsim_guest_access *buf;
	size_t chunk;
	unsigned int ghz;
	uint64_t mem_bytes;
	uint64_t cycles;
	uint64_t next_sample;
};

/*
 * Fill up to @max accesses of vCPU @vcpu into @buf; 0 when the vCPU has
 * no more in this phase.
 */
typedef size_t (*nxsim__gen_fn)(void *ctx, unsigned int vcpu,
				struct nxsim_guest_access *buf, size_t max);

/* Host, VM, vCPUs and a slot of @mem_bytes; 0 or a negative errno. */
int nxsim__run_create(struct nxsim__run *r,
		      const struct nxsim_workload_config *cfg,
		      uint64_t mem_bytes);
void nxsim__run_destroy(struct nxsim__run *r);
/* Round after round until @gen has nothing for any vCPU. */
int nxsim__run_phase(struct nxsim__run *r, nxsim__gen_fn gen, void *ctx);
/* The result; @phase_start: @r->cycles when the measured phase began. */
int nxsim__run_finish(struct nxsim__run *r, struct nxsim_workload_result *res,
		      uint64_t phase_start);

#endif /* NXSIM_WORKLOAD_WORKLOAD_H */
