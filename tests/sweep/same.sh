# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by the engine tests (parallel.sh, slurm.sh): the check they
# share.  same_as_single SWEEP DIR JOBS merges DIR/out.*.jsonl, the
# shards an engine wrote for DIR/grid.sweep, and fails unless the result
# equals DIR/single.jsonl, the one-process run of JOBS jobs, byte for byte
# (job by job: both are in job order).
same_as_single() {
	timeout 60 "$1" merge -o "$2/merged.jsonl" "$2/grid.sweep" \
		"$2"/out.*.jsonl || {
		echo "FAIL: merge"
		exit 1
	}
	[ "$(wc -l <"$2/single.jsonl")" = "$3" ] || {
		echo "FAIL: the single run does not hold $3 jobs"
		exit 1
	}
	if ! cmp "$2/merged.jsonl" "$2/single.jsonl"; then
		diff "$2/merged.jsonl" "$2/single.jsonl" | head -20
		echo "FAIL: the merged shards differ from the single run"
		exit 1
	fi
}
