#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The GNU parallel engine (docs/sweep.md): a 24-job sweep run as 3 shards
# through parallel, merged, equals the single-process run job by job,
# byte for byte.  Without parallel: SKIPPED and exit 77 (ctest's skip).
#   tests/sweep/parallel.sh NXSIM_SWEEP
set -eu
. "$(dirname "$0")/same.sh"
sweep=$1
if ! command -v parallel >/dev/null 2>&1; then
	echo "SKIPPED: GNU parallel is not installed (tools/deps --sweep)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

cat >"$tmp/grid.sweep" <<'SWEEP'
axis policy eager deferred none
axis cpus 1 4
axis seed 1 2 3 4
run xpfo workload compile policy=${policy} cpus=${cpus} events=40 seed=${seed}
SWEEP

timeout 300 "$sweep" -o "$tmp/single.jsonl" "$tmp/grid.sweep"
timeout 300 parallel --will-cite -j 3 --halt now,fail=1 \
	"$sweep" --shard {}/3 -o "$tmp/out.{}.jsonl" "$tmp/grid.sweep" \
	::: 0 1 2
for k in 0 1 2; do
	[ "$(wc -l <"$tmp/out.$k.jsonl")" = 8 ] || {
		echo "FAIL: shard $k does not hold 8 jobs"
		exit 1
	}
done
same_as_single "$sweep" "$tmp" 24
echo "PASS: 3 shards through parallel = 1 process, 24 jobs"
