#!/usr/bin/env bash
# A dynastep sweep as a Slurm job array: array task i runs slice i of the sweep (`--shard K/N`),
# with one thread per CPU Slurm gives the task; after the last task, merge the slices' tables.
#
#   sbatch --array=0-7 --cpus-per-task=4 scripts/slurm-sweep.sh out/andrews-sweep \
#          --example andrews --scheme generalized-alpha,bathe --dt 1e-4,5e-5,2e-5
#   sbatch --dependency=afterok:<array job id> --wrap "dynastep sweep --merge --out out/andrews-sweep"
#
# Arguments: the output folder (shared by all tasks), then the `dynastep sweep` options of the
# sweep (model, --vary, --scheme, --dt, …), identical for every task. Set DYNASTEP to the program's
# path when it is not on PATH. Every task computes the same list of cases and runs its own slice,
# so no code of ours runs between the tasks.
#SBATCH --job-name=dynastep-sweep
#SBATCH --output=dynastep-sweep-%A_%a.log
set -euo pipefail

out=${1:?usage: slurm-sweep.sh OUT_DIR SWEEP_OPTIONS...}
shift
: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-(N-1)}"
count=${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array}
first=${SLURM_ARRAY_TASK_MIN:-0}
k=$((SLURM_ARRAY_TASK_ID - first + 1))

exec "${DYNASTEP:-dynastep}" sweep "$@" --out "$out" --shard "$k/$count" \
    --jobs "${SLURM_CPUS_PER_TASK:-1}" --quiet
