#!/usr/bin/env bash
# Ranks vs threads on one machine: training tokens/s of np=1 x 2 threads (plain ordo) and
# np=2 x 1 thread (mpirun, one core per rank), same model, data and global batch, run
# alternately REPS times; plus the gradient allreduce alone (bench_allreduce) at the model's
# parameter count, for the communication model of docs/distributed.md. Prints the medians
# and the load average before and after (the numbers mean little on a busy machine).
#
# usage: bench/mpi.sh [REPS] [STEPS]   (defaults 3 and 8; model: d-model 256, 4 layers,
#        4 heads, context 256, batch 8, byte tokens of tinyshakespeare)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${ORDO_BUILD_DIR:-$repo/build}
reps=${1:-3}
steps=${2:-8}
command -v mpirun > /dev/null || { echo "bench: mpirun not found (apt-get install openmpi-bin)" >&2; exit 1; }
"$build/ordo" --version | grep -q MPI || { echo "bench: $build/ordo was built without MPI" >&2; exit 1; }
file=$repo/../shared/data/tinyshakespeare.txt
if [ ! -f "$file" ]; then
  "$repo/data/fetch.sh" shakespeare
  file=${ORDO_CACHE:-$repo/.cache}/data/tinyshakespeare.txt
fi
root=(); [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
mpirun=(mpirun "${root[@]}" --oversubscribe --bind-to core)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args=(--data "$file" --tokenizer byte --d-model 256 --layers 4 --heads 4 --context 256 --batch 8
      --steps "$steps" --log-every 1 --eval-every 0 --eval-batches 1 --ckpt-every 1000000)

# median of the per-step tokens/s of one run, leaving out step 1 (first-touch and warm-up)
run_tps() {
  sed -n 's/.*"step":\([0-9]*\),.*"tokens_per_s":\([0-9.]*\)}/\1 \2/p' "$1/metrics.jsonl" |
    awk '$1 > 1 { print $2 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load before: $(uptime)"
echo "model: d-model 256, 4 layers, context 256, batch 8 (2048 tokens per step), byte tokens; $steps steps x $reps runs each"
for r in $(seq 1 "$reps"); do
  "$build/ordo" train "${args[@]}" --threads 2 --out "$tmp/a$r" > /dev/null
  echo "run $r: np=1 x 2 threads: $(run_tps "$tmp/a$r") tokens/s" | tee -a "$tmp/a.log"
  "${mpirun[@]}" -np 2 "$build/ordo" train "${args[@]}" --threads 1 --out "$tmp/b$r" > "$tmp/b$r.out"
  ar=$(sed -n 's/.*per step, \([0-9.]*\) ms per step on average.*/\1/p' "$tmp/b$r.out")
  echo "run $r: np=2 x 1 thread:  $(run_tps "$tmp/b$r") tokens/s (allreduce $ar ms/step)" | tee -a "$tmp/b.log"
  echo "$ar" >> "$tmp/ar.log"
done
params=$(sed -n 's/.*gradient allreduce: \([0-9]*\) floats.*/\1/p' "$tmp/b1.out")
a=$(sed -n 's/.*: *\([0-9.]*\) tokens\/s.*/\1/p' "$tmp/a.log" | median)
b=$(sed -n 's/.*: *\([0-9.]*\) tokens\/s.*/\1/p' "$tmp/b.log" | median)
echo "median tokens/s: np=1 x 2 threads $a, np=2 x 1 thread $b (ratio np2/np1 $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }'))"
echo "gradient block: $params floats = $((4 * params)) bytes per allreduce; median allreduce inside training $(median < "$tmp/ar.log") ms/step"
echo "allreduce alone (no training running), shared memory (vader) then TCP loopback:"
"${mpirun[@]}" -np 2 "$build/bench_allreduce" "$params"
"${mpirun[@]}" -np 2 --mca btl self,tcp --mca btl_tcp_if_include lo "$build/bench_allreduce" "$params"
echo "load after: $(uptime)"
