#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The Slurm engine (docs/sweep.md): a one-node cluster on this machine -
# a munge key and munged, slurmctld and slurmd with a minimal slurm.conf,
# everything in a temporary directory - runs a sweep as a 3-task job array
# through tools/slurm/sweep.sbatch; the merged shards must equal the
# single-process run byte for byte.  Everything started is stopped; every
# wait has a timeout.  Where Slurm cannot run (not root, a package
# missing, a daemon that does not come up): "SKIPPED: reason", exit 77.
#   tests/sweep/slurm.sh NXSIM_SWEEP SBATCH_SCRIPT
set -eu
. "$(dirname "$0")/same.sh"
sweep=$(readlink -f "$1")
sbatch_script=$(readlink -f "$2")
skip() {
	echo "SKIPPED: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: slurmd must run as root"
for t in munged mungekey munge slurmctld slurmd sbatch squeue sinfo timeout; do
	command -v "$t" >/dev/null 2>&1 ||
		skip "$t is not installed (tools/deps --sweep)"
done

tmp=$(mktemp -d /tmp/nxsim-slurm.XXXXXX)
chmod 755 "$tmp"
pids=""
cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		# bounded: the daemons were started under timeout(1)
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# start LOG CMD...: a daemon in the foreground, killed after 9 minutes
start() {
	log=$1
	shift
	timeout -s KILL 540 "$@" >"$log" 2>&1 &
	pids="$pids $!"
}
# wait_for SECONDS WHAT CMD...: poll CMD every 0.2 s
wait_for() {
	secs=$1 what=$2
	shift 2
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt $((secs * 5)) ] || return 1
		sleep 0.2
	done
}
logs() {
	for f in "$tmp"/*.log; do
		echo "--- $f"
		tail -n 15 "$f"
	done
}

# munge: a fresh key, its own socket
mkdir -m 755 "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 ||
	skip "mungekey cannot create a key"
sock=$tmp/munge/munge.sock
start "$tmp/munged.log" munged --foreground --force --socket="$sock" \
	--key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
	--seed-file="$tmp/munge/seed" --log-file="$tmp/munge/munged.log"
wait_for 10 munged munge --socket="$sock" -n ||
	{ logs; skip "munged did not start"; }

# slurm: ports from the PID, so two runs on one machine do not meet
port=$((20000 + ($$ % 2000) * 2))
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=nxsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=nxsimnode NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=nxsim Nodes=nxsimnode Default=YES MaxTime=30 State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
start "$tmp/slurmctld.out.log" slurmctld -D -i -f "$SLURM_CONF"
wait_for 20 slurmctld squeue ||
	{ logs; skip "slurmctld did not start"; }
start "$tmp/slurmd.out.log" slurmd -D -N nxsimnode -f "$SLURM_CONF"
node_idle() {
	sinfo -h -n nxsimnode -o %t | grep -q idle
}
wait_for 30 slurmd node_idle || { logs; skip "slurmd did not come up"; }

cat >"$tmp/grid.sweep" <<'SWEEP'
axis policy eager deferred none
axis cpus 1 4
axis seed 1 2
run xpfo workload compile policy=${policy} cpus=${cpus} events=40 seed=${seed}
SWEEP
timeout 300 "$sweep" -o "$tmp/single.jsonl" "$tmp/grid.sweep"

# the array; --wait returns when all three tasks have ended
if ! NXSIM_SWEEP=$sweep timeout 300 sbatch --wait --array=0-2 \
	--chdir="$tmp" --output="$tmp/task-%a.log" --time=5 \
	"$sbatch_script" "$tmp/grid.sweep" "$tmp/out" >"$tmp/sbatch.log" 2>&1; then
	logs
	cat "$tmp/sbatch.log"
	echo "FAIL: the job array did not complete"
	exit 1
fi
same_as_single "$sweep" "$tmp" 12
echo "PASS: a 3-task Slurm array = 1 process, 12 jobs"
