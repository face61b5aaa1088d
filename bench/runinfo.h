/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a result needs to be reproduced and compared: the machine (CPU
 * count, CPU model, kernel), the git commit, the build, the seed and the
 * mode.  Every JSON line carries it.
 */
#ifndef NXSIM_BENCH_RUNINFO_H
#define NXSIM_BENCH_RUNINFO_H

#include <stdio.h>

#include "harness.h"

/* Read the machine and the commit once, before the first result. */
void bench_runinfo_init(void);

/* The run's fields as JSON members (no braces): "run":{...} */
void bench_runinfo_json(const struct bench_ctx *ctx, FILE *f);

/* One line for the top of the table. */
void bench_runinfo_print(const struct bench_ctx *ctx, FILE *f);

/* A JSON string literal, quoted and escaped. */
void bench_json_str(FILE *f, const char *s);

#endif /* NXSIM_BENCH_RUNINFO_H */
