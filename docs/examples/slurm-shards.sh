#!/bin/bash
# fcbench on a Slurm array: 8 shards, one GPU each, each serving the model with vLLM and
# asking its part of every category; then one job merges the shards and scores them.
#
#   bash docs/examples/slurm-shards.sh     # submits the array, and the merge after it
#
# Each task writes shards/<folder>.shard-K-of-8, K from SLURM_ARRAY_TASK_ID (--shard auto;
# the count from SLURM_ARRAY_TASK_COUNT). A task that fails or is preempted is run again with
# the same K and resumes where it stopped (--requeue does it by itself). Install fcbench and
# vLLM on every node, and fetch the data once onto shared storage (FCBENCH_HOME).
#SBATCH --job-name=fcbench
#SBATCH --array=0-7
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=8
#SBATCH --time=04:00:00
#SBATCH --requeue
#SBATCH --output=fcbench-%A_%a.log
set -euo pipefail

MODEL=Qwen/Qwen3-8B
FOLDER=Qwen_Qwen3-8B-FC   # fcbench's folder for MODEL in FC mode (/ -> _, -FC)

if [[ -z "${SLURM_ARRAY_TASK_ID:-}" ]]; then
  # run by hand: submit this script as the array, then the merge once every task has ended
  # (afterany: a failed task's cases are listed as missing, and the merge says so)
  array=$(sbatch --parsable "$0")
  sbatch --dependency=afterany:"$array" --job-name=fcbench-merge --time=01:00:00 \
    --output=fcbench-merge-%j.log \
    --wrap "fcbench merge shards/$FOLDER.shard-*-of-8 --into results/$FOLDER && fcbench evaluate --result-dir results --score-dir scores"
  exit 0
fi

fcbench generate --model "$MODEL" --serve vllm --categories all --shard auto \
  --result-dir shards --concurrency 64
