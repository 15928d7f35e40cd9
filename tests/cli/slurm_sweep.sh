#!/usr/bin/env bash
# A one-node Slurm cluster on localhost (munged, slurmctld, slurmd from Debian's slurm-wlm and
# munge, as root, everything in a temporary directory, stopped at the end) runs a study as a
# 3-task job array plus the dependent merge; the merged output must equal the local run
# (every column but host_seconds). Exit 77 (skipped) only when NPUSIM_SKIP_SLURM=1.
#   slurm_sweep.sh NPUSIM SOURCE_DIR
set -euo pipefail
npusim=$(realpath "$1")
source_dir=$(realpath "$2")
if [[ ${NPUSIM_SKIP_SLURM:-0} == 1 ]]; then
  echo "skipped: NPUSIM_SKIP_SLURM=1"
  exit 77
fi
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool missing (tools/bootstrap.sh installs slurm-wlm and munge)"; exit 1; }
done
[[ $(id -u) == 0 ]] || { echo "FAIL: the Slurm test runs its daemons as root"; exit 1; }

dir=$(mktemp -d /tmp/npusim-slurm.XXXXXX)
chmod 755 "$dir"
stop() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [[ -f $pidfile ]] && kill -9 "$(cat "$pidfile")" 2>/dev/null || true
  done
  rm -rf "$dir"
}
trap stop EXIT

# munge
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" -f

# slurm.conf
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
base_port=$((20000 + RANDOM % 20000))
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<CONF
ClusterName=npusimtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldPort=$base_port
SlurmdPort=$((base_port + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
  sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix)' && break
  sleep 0.5
done
sinfo -h -o %t | grep -qE '^(idle|mix)' || { echo "FAIL: the node never became idle"; sinfo; cat "$dir"/slurm*.log; exit 1; }

# The study: a small sweep of a shipped scenario.
study=$source_dir/configs/scenarios/syncall_reduction_hard.json
axes=(--set /blocks=2:12:2 --set /params/elements=32,64)
NPUSIM=$npusim "$source_dir/tools/slurm/submit_study.sh" "$study" "$dir/out" 3 "${axes[@]}"
for _ in $(seq 1 240); do
  [[ -f $dir/out/study.csv ]] && break
  sleep 0.5
done
[[ -f $dir/out/study.csv ]] || { echo "FAIL: no merged output"; cat "$dir"/out/slurm-* 2>/dev/null; squeue; exit 1; }
"$npusim" sweep "$study" "${axes[@]}" -j 2 --quiet --out "$dir/local.csv"

# Compare without host_seconds (the last column): the one value that varies between runs.
drop_time() { sed -E 's/,[^,]*$//' "$1"; }
if ! diff <(drop_time "$dir/local.csv") <(drop_time "$dir/out/study.csv"); then
  echo "FAIL: the merged Slurm output differs from the local run"
  exit 1
fi
rows=$(($(wc -l <"$dir/local.csv") - 2))
echo "ok: Slurm array of 3 shards + merge gives the local run's $rows rows"
