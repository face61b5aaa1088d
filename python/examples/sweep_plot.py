#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run a sweep with nxsim-sweep and plot it: XPFO's modelled system-time
ratio against CPUs, one line per flush policy.  Standard library only;
with matplotlib installed it also writes the plot.

    python3 python/examples/sweep_plot.py [--out DIR] [--sweep PATH]
        [--cpus 1,2,4,8] [--events N]

nxsim-sweep is --sweep, else $NXSIM_SWEEP, else found on the PATH.
Writes DIR/grid.sweep, DIR/results.jsonl and DIR/sweep.png (with
matplotlib); prints the table on stdout.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

POLICIES = ("eager", "deferred", "none")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="sweep-example")
    ap.add_argument("--sweep", default=os.environ.get("NXSIM_SWEEP") or
                    shutil.which("nxsim-sweep"))
    ap.add_argument("--cpus", default="1,2,4,8,16")
    ap.add_argument("--events", type=int, default=2000)
    args = ap.parse_args()
    if not args.sweep:
        sys.exit("sweep_plot.py: no nxsim-sweep (--sweep, $NXSIM_SWEEP or "
                 "the PATH)")

    os.makedirs(args.out, exist_ok=True)
    grid = os.path.join(args.out, "grid.sweep")
    results = os.path.join(args.out, "results.jsonl")
    with open(grid, "w") as f:
        f.write("# written by python/examples/sweep_plot.py\n"
                "axis cpus %s\n"
                "axis policy %s\n"
                "run xpfo workload compile version=7 policy=${policy} "
                "cpus=${cpus} events=%d seed=${seed}\n" %
                (" ".join(args.cpus.split(",")), " ".join(POLICIES),
                 args.events))
    subprocess.run([args.sweep, "-j", "2", "-o", results, grid], check=True)

    # one result line per job: its params and the answer's figures
    ratio = {}
    with open(results) as f:
        for line in f:
            job = json.loads(line)
            if job["status"] != "ok":
                sys.exit("job %s failed: %s" % (job["id"], line))
            p = job["params"]
            ratio[(p["policy"], int(p["cpus"]))] = \
                job["results"][0]["system_ratio"]
    cpus = sorted({c for _, c in ratio})
    print("cpus " + " ".join("%9s" % p for p in POLICIES))
    for c in cpus:
        print("%4d " % c + " ".join("%9.3f" % ratio[(p, c)]
                                    for p in POLICIES))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plot)", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    for p in POLICIES:
        ax.plot(cpus, [ratio[(p, c)] for c in cpus], marker="o", label=p)
    ax.set_xscale("log", base=2)
    ax.set_xticks(cpus)
    ax.set_xticklabels([str(c) for c in cpus])
    ax.set_xlabel("CPUs")
    ax.set_ylabel("system time / no-XPFO system time")
    ax.set_title("XPFO v7, compile workload: modelled overhead per policy")
    ax.grid(True, alpha=0.3)
    ax.legend()
    png = os.path.join(args.out, "sweep.png")
    fig.savefig(png, dpi=100, bbox_inches="tight")
    print("wrote " + png, file=sys.stderr)


if __name__ == "__main__":
    main()
