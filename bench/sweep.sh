#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# nxsim-sweep's costs (docs/sweep.md), each beside a reference measured in
# the same run, interleaved A,B,A,B over 5 reps, medians, as ratios:
#   overhead  per-job time of a 1000-job sweep on one thread against the
#             nxsim driver running the same 2000 commands as one script;
#             the difference per job against the 1 ms budget
#   scaling   a 256-job grid of equal jobs on -j 2 against -j 1: speedup / 2
#             (target >= 0.9) and the CPUs the process got (CPU / wall:
#             2 on two idle cores; on a loaded machine with autogroup
#             scheduling, a session's share, whatever its thread count);
#             and what load does not move: the CPU time per job (~1: the
#             threads do not slow each other down) beside the same for two
#             one-thread processes running half the grid each at once
#             (what two jobs on the two cores cost each other with no
#             process shared), page faults per job, and the times the
#             threads blocked (voluntary context switches) in a run
#   memory    peak RSS of --list and of a run over 10^5 jobs against the
#             same over 10^3 (target: flat, ratio ~1)
# Wall times on a shared machine drift; the ratios are what to read.
#   bench/sweep.sh [BUILD]         (default build/release)
#   bench/sweep.sh --help          this text, and nothing else
set -eu
case "${1:-}" in
-h | --help)
	sed -n 's/^#   bench/bench/p' "$0"
	exit 0
	;;
-*)
	sed -n 's/^#   bench/bench/p' "$0" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
build=${1:-build/release}
sweep=$build/tools/nxsim-sweep
nxsim=$build/tools/nxsim
for t in "$sweep" "$nxsim" /usr/bin/time; do
	[ -x "$t" ] || {
		echo "bench/sweep.sh: $t missing (cmake --build --preset release;" \
			"tools/deps --sweep)" >&2
		exit 2
	}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
reps=5

now() {
	date +%s.%N
}
# calc EXPR: EXPR evaluated by awk
calc() {
	awk "BEGIN { printf \"%.6f\", $* }"
}
# secs CMD...: the wall time of CMD, output discarded
secs() {
	t0=$(now)
	"$@" >/dev/null 2>&1
	t1=$(now)
	calc "$t1 - $t0"
	echo
}
# rss CMD...: the peak RSS of CMD in KiB
rss() {
	/usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1
}
median() {
	sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# col N FILE: the median of column N of FILE
col() {
	awk -v n="$1" '{ print $n }' "$2" | median
}
# interleave NAME A_CMD B_CMD: 5 reps of A then B, medians to NAME.a/.b
interleave() {
	name=$1 a=$2 b=$3
	: >"$tmp/$name.a"
	: >"$tmp/$name.b"
	i=0
	while [ $i -lt $reps ]; do
		eval "$a" >>"$tmp/$name.a"
		eval "$b" >>"$tmp/$name.b"
		i=$((i + 1))
	done
	ma=$(median <"$tmp/$name.a")
	mb=$(median <"$tmp/$name.b")
}

ten="0 1 2 3 4 5 6 7 8 9"
# axes AXIS...: "axis A 0 1 ... 9" for each; a product of 10^count jobs
axes() {
	for a in "$@"; do
		echo "axis $a $ten"
	done
}

# overhead: 1000 short jobs, each making and freeing a 4-CPU machine
cmd="xpfo create m cpus=4 frames=256"
for i in $(seq 0 999); do
	echo "$cmd seed=$((1000 + i))"
	echo "xpfo destroy m"
done >"$tmp/alone.nxs"
{
	axes a b c
	echo "run $cmd seed=1\${a}\${b}\${c}"
	echo "run xpfo destroy m"
} >"$tmp/overhead.sweep"
interleave overhead "secs $nxsim $tmp/alone.nxs" \
	"secs $sweep -o /dev/null $tmp/overhead.sweep"
alone_us=$(calc "$ma * 1000")
swept_us=$(calc "$mb * 1000")
over_us=$(calc "$swept_us - $alone_us")

# scaling: 256 equal jobs of about 5 ms of CPU
{
	echo "axis a 1 2 3 4 5 6 7 8"
	echo "axis b 1 2 3 4 5 6 7 8"
	echo "axis c 1 2 3 4"
	echo "run xpfo workload compile cpus=4 events=3000 seed=\${a}\${b}\${c}"
} >"$tmp/grid.sweep"
# scaled j1|j2|procs: "wall CPU faults waits" of one run of the grid
scaled() {
	case $1 in
	j1 | j2) set -- "$sweep" -j "${1#j}" -o /dev/null "$tmp/grid.sweep" ;;
	procs) # shellcheck disable=SC2016 # expanded by the inner sh
		set -- sh -c '"$0" --shard 0/2 -o /dev/null "$1" &
			"$0" --shard 1/2 -o /dev/null "$1" & wait' \
			"$sweep" "$tmp/grid.sweep"
		;;
	esac
	t0=$(now)
	/usr/bin/time -o "$tmp/time" -f "%U %S %R %w" "$@" >/dev/null 2>&1
	t1=$(now)
	awk -v w="$(calc "$t1 - $t0")" \
		'{ printf "%s %.6f %d %d\n", w, $1 + $2, $3, $4 }' "$tmp/time"
}
load0=$(cut -d' ' -f1 /proc/loadavg)
i=0
while [ $i -lt $reps ]; do
	for m in j1 j2 procs; do
		scaled $m >>"$tmp/scaled.$m"
	done
	i=$((i + 1))
done
load1=$(cut -d' ' -f1 /proc/loadavg)
wall_j1=$(col 1 "$tmp/scaled.j1")
wall_j2=$(col 1 "$tmp/scaled.j2")
cpu_j1=$(col 2 "$tmp/scaled.j1")
cpu_j2=$(col 2 "$tmp/scaled.j2")
cpu_procs=$(col 2 "$tmp/scaled.procs")
flt_j1=$(col 3 "$tmp/scaled.j1")
flt_j2=$(col 3 "$tmp/scaled.j2")
wait_j1=$(col 4 "$tmp/scaled.j1")
wait_j2=$(col 4 "$tmp/scaled.j2")

# memory: 10^5 jobs against 10^3, listed and run (a cheap command)
{
	axes a b c d e
	echo "run clock create c\${a}\${b}\${c}\${d}\${e}"
} >"$tmp/big.sweep"
{
	axes a b c
	echo "run clock create c\${a}\${b}\${c}"
} >"$tmp/small.sweep"
list_small=$(rss "$sweep" --list "$tmp/small.sweep")
list_big=$(rss "$sweep" --list "$tmp/big.sweep")
run_small=$(rss "$sweep" -j 2 -o /dev/null "$tmp/small.sweep")
run_big=$(rss "$sweep" -j 2 -o /dev/null "$tmp/big.sweep")

printf '%-34s %14s %14s %8s  %s\n' figure value reference ratio target
printf '%-34s %11.1f us %11.1f us %8.3f  %s\n' \
	"per-job time, sweep vs script" "$swept_us" "$alone_us" \
	"$(calc "$swept_us / $alone_us")" "-"
printf '%-34s %11.1f us %11.1f us %8.3f  %s\n' \
	"runner overhead per job" "$over_us" 1000 \
	"$(calc "$over_us / 1000")" "< 1"
printf '%-34s %12.2f s %12.2f s %8.3f  %s\n' \
	"-j 2 vs -j 1, 256 jobs (speedup/2)" "$wall_j2" "$wall_j1" \
	"$(calc "$wall_j1 / $wall_j2 / 2")" ">= 0.9"
printf '%-34s %14.2f %14.2f %8.3f  %s\n' \
	"CPUs used (CPU / wall), -j 2, -j 1" "$(calc "$cpu_j2 / $wall_j2")" \
	"$(calc "$cpu_j1 / $wall_j1")" \
	"$(calc "$cpu_j2 / $wall_j2 / ($cpu_j1 / $wall_j1)")" "2 if idle"
printf '%-34s %11.2f ms %11.2f ms %8.3f  %s\n' \
	"CPU per job, -j 2 vs -j 1" "$(calc "$cpu_j2 * 1000 / 256")" \
	"$(calc "$cpu_j1 * 1000 / 256")" "$(calc "$cpu_j2 / $cpu_j1")" "~1"
printf '%-34s %11.2f ms %11.2f ms %8.3f  %s\n' \
	"CPU per job, 2 processes vs -j 1" \
	"$(calc "$cpu_procs * 1000 / 256")" \
	"$(calc "$cpu_j1 * 1000 / 256")" "$(calc "$cpu_procs / $cpu_j1")" "-"
printf '%-34s %14.1f %14.1f %8.3f  %s\n' \
	"page faults per job, -j 2 vs -j 1" "$(calc "$flt_j2 / 256")" \
	"$(calc "$flt_j1 / 256")" "$(calc "$flt_j2 / $flt_j1")" "-"
printf '%-34s %14d %14d %8.3f  %s\n' \
	"waits (voluntary switches), run" "$wait_j2" "$wait_j1" \
	"$(calc "$wait_j2 / $wait_j1")" "-"
printf '%-34s %14s %14s %8s  %s\n' \
	"load average (1 min), start/end" "$load0" "$load1" "" ""
printf '%-34s %11d KiB %10d KiB %8.3f  %s\n' \
	"--list RSS, 10^5 vs 10^3 jobs" "$list_big" "$list_small" \
	"$(calc "$list_big / $list_small")" "~1"
printf '%-34s %11d KiB %10d KiB %8.3f  %s\n' \
	"run RSS, 10^5 vs 10^3 jobs, -j 2" "$run_big" "$run_small" \
	"$(calc "$run_big / $run_small")" "~1"
