#!/usr/bin/env bash
# One writer per run directory (sys/dirlock.h), through the real CLI. While a run
# trains: a second `train --out` and a `train --resume` on it fail at once, non-zero, naming
# the holder's pid, and change nothing in it; eval, sample and compare work beside it; the
# lock descriptor is close-on-exec. The first run then stops cleanly and its directory
# resumes. After kill -9 of the holder, --resume works at once (no stale lock). A sweep
# whose run is held by another process says so and leaves that run alone, and a second
# sweep on a live sweep directory is refused. Under mpirun, every rank stops when rank 0
# cannot lock (skipped without mpirun or an MPI build).
# Nothing is timed: each step waits (polling, bounded) for the state it needs, such as the
# holder's pid in DIR/.lock or its first metrics line, and every live run is made far longer
# than the test and stopped by the test itself.
set -u
. "$(dirname "$0")/../lib.sh"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT

tiny=(--task order --corpus-tokens 4000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4
      --eval-every 0 --threads 1)
long=("${tiny[@]}" --steps 100000000 --ckpt-every 2000 --keep 3 --log-every 1)

# until FILE matches PATTERN (grep -E), for at most 120 s; the run may be slow, never this slow
wait_for() {
  for _ in $(seq 1 1200); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# until DIR holds a checkpoint (the step's metrics line comes before its checkpoint)
wait_ckpt() {
  for _ in $(seq 1 1200); do compgen -G "$1/ckpt-*.safetensors" > /dev/null && return 0; sleep 0.1; done
  return 1
}
# start_live DIR [args]: a run far longer than the test in DIR, its pid in $live, once it holds
# the lock (its pid is in DIR/.lock) and has written a checkpoint
start_live() {
  local d=$1; shift
  "$ORDO" train "$@" --out "$d" > "$d.out" 2>&1 &
  live=$!; pids+=("$live")
  wait_for "$d/.lock" "\"pid\": $live[,}]" && wait_for "$d/metrics.jsonl" '"step":' &&
    wait_ckpt "$d" || { bad "the live run in $d did not start: $(tail -3 "$d.out")"; return 1; }
}
# expect_busy NAME PID CMD...: exits 1 (not a signal), names the dir and the holder's pid
expect_busy() {
  local name=$1 pid=$2; shift 2
  local out rc
  out=$(timeout 60 "$@" 2>&1); rc=$?
  if [ $rc -ne 1 ]; then bad "$name: exit status $rc, expected 1: $(tail -2 <<<"$out")"
  elif ! grep -qE "is in use by ordo pid $pid \(since [0-9]{4}-[0-9]{2}-[0-9]{2} .*\); wait for it or stop it" <<<"$out"; then
    bad "$name: no message naming pid $pid: $out"
  else ok; fi
}
snap() { (cd "$1" && sha256sum config.json && ls -a | grep -v '^ckpt-\|\.tmp\.\|^metrics.jsonl$') | sha256sum; }

# --- 1. a live run refuses other writers and admits readers
R="$dir/run"
if start_live "$R" "${long[@]}"; then
  A=$live
  before=$(snap "$R")
  expect_busy "second train on the same --out" "$A" "$ORDO" train "${tiny[@]}" --steps 5 --out "$R"
  expect_busy "--resume while it trains" "$A" "$ORDO" train --resume "$R" --steps 5
  # the refusal holds with any trailing slash, and for a resume that would change nothing
  expect_busy "--resume DIR/ while it trains" "$A" "$ORDO" train --resume "$R/" --steps 100000000
  [ "$(snap "$R")" = "$before" ] && ok || bad "refused writers changed the run's files"
  grep -q "\"pid\": $A," "$R/.lock" && ok || bad "the lock file no longer names the holder: $(cat "$R/.lock")"
  # readers take no lock, and the files they read are replaced atomically
  "$ORDO" eval "$R" > "$dir/eval.out" 2>&1 && grep -q "val_loss\|loss" "$dir/eval.out" && ok || bad "eval beside a live run: $(tail -3 "$dir/eval.out")"
  "$ORDO" sample "$R" --prompt "cat chased" --tokens 5 > "$dir/sample.out" 2>&1 && ok || bad "sample beside a live run: $(tail -3 "$dir/sample.out")"
  "$ORDO" compare "$R" --out "$dir/cmp" > "$dir/cmp.out" 2>&1 && ok || bad "compare beside a live run: $(tail -3 "$dir/cmp.out")"
  # the lock's descriptor is close-on-exec (O_CLOEXEC = 02000000 in fdinfo's octal flags)
  fd=$(for f in /proc/$A/fd/*; do [ "$(readlink "$f")" = "$(realpath "$R")/.lock" ] && basename "$f"; done)
  if [ -n "$fd" ]; then
    flags=$(awk '/^flags:/ {print $2}' "/proc/$A/fdinfo/$fd")
    (( 8#$flags & 8#2000000 )) && ok || bad "the lock fd has flags $flags, not O_CLOEXEC"
  else
    bad "the live run holds no descriptor of $R/.lock"
  fi
  # the first run stops cleanly (a checkpoint, status 130), and its directory then resumes
  kill -INT "$A"; wait "$A"; rc=$?
  [ $rc -eq 130 ] && ok || bad "the live run exited $rc after SIGINT, expected 130"
  last=$(ls "$R" | sed -n 's/^ckpt-\([0-9]*\)\.safetensors$/\1/p' | sort -n | tail -1)
  "$ORDO" train --resume "$R" --steps $((last + 3)) > "$dir/res.out" 2>&1 && [ -f "$R/ckpt-$((last + 3)).safetensors" ] \
    && ok || bad "the run did not resume after its holder stopped: $(tail -3 "$dir/res.out")"
  grep -q "\"pid\": $A," "$R/.lock" && bad "the lock file still names the old holder" || ok
fi

# --- 2. kill -9 of the holder leaves no stale lock: --resume works at once
if start_live "$dir/k9" "${long[@]}"; then
  kill -9 "$live"; wait "$live" 2>/dev/null
  out=$(timeout 60 "$ORDO" train --resume "$dir/k9" --stop-after 1 2>&1); rc=$?
  # --stop-after 1 with a run past step 1: it stops after its first step, as on Ctrl-C
  [ $rc -eq 130 ] && grep -q "resuming $dir/k9 from step" <<<"$out" && ok || bad "resume after kill -9: status $rc: $out"
fi

# --- 3. a refused new run leaves no trace (nothing created, not even the lock file)
out=$("$ORDO" train "${tiny[@]}" --data "$dir/none.txt" --tokenizer byte --out "$dir/new/sub/run" 2>&1); rc=$?
[ $rc -eq 1 ] && [ ! -e "$dir/new" ] && ok || bad "a refused new run left $(ls -R "$dir/new" 2>&1 | head -3) (status $rc)"
mkdir "$dir/empty"
"$ORDO" train --resume "$dir/empty" > /dev/null 2>&1
[ -z "$(ls -A "$dir/empty")" ] && ok || bad "a refused --resume left $(ls -A "$dir/empty") in the run dir"

# --- 4. sweeps: a run held by another process is left alone and said so; a live sweep
# directory refuses a second sweep
S="$dir/sweep"
sw=(--pos learned,alibi --seeds 1 --corpus-tokens 4000 --context 16 --d-model 16 --heads 2 --layers 1
    --batch 4 --eval-every 0 --threads 1 --eval-lengths 1 --jobs 1)
mkdir -p "$S"
if start_live "$S/learned-s1" "${long[@]}" --pos learned --seed 1; then
  H=$live
  before=$(snap "$S/learned-s1")
  out=$(timeout 300 "$ORDO" sweep "${sw[@]}" --steps 4 --out "$S" 2>&1); rc=$?
  [ $rc -eq 1 ] && ok || bad "sweep with a busy run: status $rc: $(tail -3 <<<"$out")"
  grep -q "learned-s1.*is in use by ordo pid $H " <<<"$out" && grep -q "learned-s1 *BUSY" <<<"$out" &&
    grep -q "1 of 2 runs are in use by another process" <<<"$out" && ok || bad "sweep does not say the run is busy: $out"
  [ -f "$S/alibi-s1/eval.json" ] && ok || bad "the sweep's free run was not done"
  [ "$(snap "$S/learned-s1")" = "$before" ] && [ ! -e "$S/learned-s1/train.log" ] && ok || bad "the sweep touched the busy run"
  kill -INT "$H"; wait "$H"
  # once it is free, the same sweep takes it over (it is past the budget: kept, evaluated)
  "$ORDO" sweep "${sw[@]}" --steps 4 --out "$S" > "$dir/sweep2.out" 2>&1 && [ -f "$S/learned-s1/eval.json" ] \
    && ok || bad "the sweep did not finish once the run was free: $(tail -3 "$dir/sweep2.out")"
fi
# a live sweep: its children lock their runs under the sweep's own lock (no deadlock), and
# a second sweep on its directory is refused before it writes anything
"$ORDO" sweep "${sw[@]}" --steps 100000000 --ckpt-every 2000 --out "$dir/live" > "$dir/live.out" 2>&1 &
L=$!; pids+=("$L")
if wait_for "$dir/live/.lock" "\"pid\": $L[,}]" && wait_for "$dir/live/learned-s1/metrics.jsonl" '"step":'; then
  before=$(sha256sum "$dir/live/sweep.json")
  expect_busy "a second sweep on a live sweep dir" "$L" "$ORDO" sweep "${sw[@]}" --pos rope --steps 4 --out "$dir/live"
  [ "$(sha256sum "$dir/live/sweep.json")" = "$before" ] && ok || bad "the refused sweep rewrote sweep.json"
  C=$(sed -n 's/.*"pid": \([0-9]*\).*/\1/p' "$dir/live/learned-s1/.lock")
  [ -n "$C" ] && [ "$C" != "$L" ] && ok || bad "the sweep's run is not locked by its own process ($C)"
  expect_busy "train --resume of a live sweep's run" "$C" "$ORDO" train --resume "$dir/live/learned-s1" --steps 5
  kill -INT "$L"; wait "$L"; rc=$?
  [ $rc -eq 130 ] && ok || bad "the live sweep exited $rc after SIGINT, expected 130"
else
  bad "the live sweep did not start: $(tail -3 "$dir/live.out")"
fi

# --- 5. under mpirun: rank 0 cannot lock, every rank stops, one message
if command -v mpirun > /dev/null 2>&1 && "$ORDO" --version | grep -q MPI; then
  root=(); [ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
  MPIRUN=(mpirun "${root[@]}" --oversubscribe --bind-to none --mca btl self,tcp
          --mca btl_tcp_if_include lo -x OMP_NUM_THREADS=1)
  if start_live "$dir/mpi" "${long[@]}"; then
    for mode in "--resume $dir/mpi" "--out $dir/mpi ${tiny[*]}"; do
      timeout 120 "${MPIRUN[@]}" -np 2 "$ORDO" train $mode --steps 5 > /dev/null 2> "$dir/mpi.err"; rc=$?
      [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(grep -c "^ordo: train: run directory .* is in use by ordo pid $live " "$dir/mpi.err")" -eq 1 ] \
        && ok || { bad "np=2 train ${mode%% *} of a busy dir: status $rc"; cat "$dir/mpi.err"; }
    done
    kill -9 "$live"; wait "$live" 2>/dev/null
  fi
else
  echo "SKIP: the mpirun case (no mpirun, or ordo built without MPI)"
fi

finish
