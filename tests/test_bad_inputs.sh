#!/usr/bin/env bash
# The bad-input catalogue: everything a user can get wrong, run through the real `ordo` CLI.
# Each case must exit non-zero but not by a signal (status 1..127), print a message naming
# the problem (a distinctive substring per case), leave every existing run and input file
# byte-identical (a checksum of all of $dir/runs and $dir/data before and after), and not
# create the --out it was given. The few cases meant to write say so and check what they
# must. Cases already in test_cli.sh, test_tokenize_cli.sh and test_train_cli.sh are not
# repeated here (e.g. --heads 3 with --d-model 64, a missing --resume dir, --decode 256).
#
# Read-only and full output dirs need root (a read-only bind mount, a small tmpfs); without
# it the read-only cases run as user nobody (setpriv) when that is possible, and the full-disk
# cases are skipped with a message.
set -u
ORDO=${ORDO_BIN:-build/ordo}
ORDO=$(cd "$(dirname "$ORDO")" && pwd)/$(basename "$ORDO")
VOCAB=${ORDO_VOCAB_DIR:-.cache/gpt2}
dir=$(mktemp -d)
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }

# Every file under the guarded dirs, names and contents, as one checksum.
snapshot() {
  (cd "$dir" && find runs data -printf '%y %m %p\n' | sort
   find runs data -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum
}

# check NAME PATTERN CMD...: non-zero exit below 128, PATTERN in the output, nothing
# guarded changed, $dir/fresh not created
check() {
  local name=$1 pat=$2; shift 2
  local before after out rc
  before=$(snapshot)
  out=$(cd "$dir" && timeout 120 "$@" 2>&1 </dev/null); rc=$?
  after=$(snapshot)
  if [ $rc -eq 0 ] || [ $rc -ge 124 ]; then
    bad "$name: exit status $rc (want 1..123): $(head -3 <<<"$out")"
  elif ! grep -qF -- "$pat" <<<"$out"; then
    bad "$name: output lacks '$pat': $(head -3 <<<"$out")"
  elif [ "$before" != "$after" ]; then
    bad "$name: changed files under runs/ or data/"
  elif [ -e "$dir/fresh" ]; then
    bad "$name: created its --out"; rm -rf "$dir/fresh"
  else
    ok
  fi
}

# --- fixtures: two small finished runs (learned, rope) and some input files
mkdir -p "$dir/runs" "$dir/data" "$dir/work"
tiny=(--task order --corpus-tokens 3000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4
      --steps 4 --ckpt-every 2 --keep 5 --eval-every 0 --threads 1)
"$ORDO" train "${tiny[@]}" --out "$dir/runs/good" > /dev/null 2>&1 || { echo "FAIL: fixture run"; exit 1; }
"$ORDO" train "${tiny[@]}" --pos rope --out "$dir/runs/rope" > /dev/null 2>&1 || { echo "FAIL: fixture run"; exit 1; }
mkdir -p "$dir/runs/empty"                                      # no checkpoint, no config.json
cp -r "$dir/runs/good" "$dir/runs/alltrunc"                     # every checkpoint truncated
truncate -s 100 "$dir/runs/alltrunc/ckpt-2.safetensors"
truncate -s 3000 "$dir/runs/alltrunc/ckpt-4.safetensors"
cp -r "$dir/runs/good" "$dir/runs/foreign"                      # checkpoints of the rope run
cp "$dir/runs/rope"/ckpt-*.safetensors "$dir/runs/foreign/"
printf 'abc' > "$dir/data/small.txt"
: > "$dir/data/empty.txt"
head -c 4096 /dev/urandom > "$dir/data/binary.dat"; printf '\0' >> "$dir/data/binary.dat"
printf 'the cat sat on the mat. %.0s' $(seq 1 200) > "$dir/data/text.txt"
echo '{"steps": 5,' > "$dir/data/broken.json"
echo '{"stepz": 5}' > "$dir/data/unknown.json"
echo '{"steps": "many"}' > "$dir/data/type.json"
echo '{"steps": 5, "steps": 6}' > "$dir/data/dup.json"
mkdir -p "$dir/data/bert" "$dir/data/zero"                      # vocab dirs of other tokenizers
printf '{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "the": 3}' > "$dir/data/bert/encoder.json"
printf '#version: 0.2\nt h\n' > "$dir/data/bert/vocab.bpe"
ln -s /dev/zero "$dir/data/zero/encoder.json"
ln -s /dev/zero "$dir/data/zero/vocab.bpe"
touch "$dir/data/plainfile"
F="$dir/fresh"
G="$dir/runs/good"

# --- command line
check "unknown train flag"       "unknown option '--frobnicate'" "$ORDO" train --frobnicate 3 --out "$F"
check "unknown eval flag"        "unknown option '--bogus'"      "$ORDO" eval "$G" --bogus
check "unknown sample flag"      "unknown option '--temp'"       "$ORDO" sample "$G" --temp 1
check "short option"             "unknown option '-s'"           "$ORDO" train -s 5 --out "$F"
check "missing value at end"     "--steps needs a value"         "$ORDO" train --out "$F" --steps
check "flag given a value"       "--no-decay-pos takes no value" "$ORDO" train --no-decay-pos=1 --out "$F"
check "stray argument"           "unexpected argument 'extra'"   "$ORDO" train extra --out "$F"
check "malformed integer"        "'12abc' is not an integer"     "$ORDO" train --steps 12abc --out "$F"
check "integer overflow"         "is not an integer"             "$ORDO" train --steps 99999999999999999999 --out "$F"
check "NaN learning rate"        "'nan' is not a finite number"  "$ORDO" train --lr nan --out "$F"
check "negative d-model"         "--d-model is -8, expected 1.." "$ORDO" train --d-model -8 --out "$F"
check "zero batch"               "--batch is 0, expected 1.."    "$ORDO" train --batch 0 --out "$F"
check "zero layers"              "--layers is 0, expected 1.."   "$ORDO" train --layers 0 --out "$F"
check "zero context"             "--context is 0, expected 1.."  "$ORDO" train --context 0 --out "$F"
check "zero steps"               "--steps is 0, expected 1.."    "$ORDO" train --steps 0 --out "$F"
check "negative threads"         "--threads is -1"               "$ORDO" train --threads -1 --out "$F"
check "keep zero checkpoints"    "--keep is 0"                   "$ORDO" train --keep 0 --out "$F"
check "val-frac 1"               "--val-frac is 1, expected strictly between 0 and 1" "$ORDO" train --val-frac 1 --out "$F"
check "empty --out"              "--out is empty"                "$ORDO" train --out ""
check "unknown tokenizer"        "--tokenizer: unknown tokenizer 'bpe' (expected byte or gpt2)" "$ORDO" train --tokenizer bpe --out "$F"
check "unknown task"             "--task: unknown task 'sort' (expected order, copy or reverse)" "$ORDO" train --task sort --out "$F"
check "heads not dividing"       "--heads 4 does not divide --d-model 30" "$ORDO" train --d-model 30 --heads 4 --out "$F"
check "odd head dim with rope"   "even head size, but d-model/heads = 30/2 = 15" "$ORDO" train --pos rope --d-model 30 --heads 2 --out "$F"
check "odd d-model sinusoidal"   "needs an even --d-model, got 15" "$ORDO" train --pos sinusoidal --d-model 15 --heads 3 --out "$F"
check "terabytes of attention"   "of memory of this machine"     "$ORDO" train --corpus-tokens 2000000 --context 65536 --pos alibi --heads 256 --d-model 256 --layers 1 --batch 1 --out "$F"
check "eval context garbage"     "expected positive lengths like 64,128" "$ORDO" eval "$G" --context 32,abc
check "sample negative tokens"   "--tokens -1, expected 0.."     "$ORDO" sample "$G" --tokens -1 --prompt the
check "sample unknown word"      "'zebra' is not a word of the order corpus" "$ORDO" sample "$G" --prompt zebra

# --- data files
check "context larger than data" "one window of max_length 64 needs at least 65" "$ORDO" train --data data/small.txt --tokenizer byte --context 64 --out "$F"
check "empty data file"          "the data file is empty"        "$ORDO" train --data data/empty.txt --tokenizer byte --out "$F"
check "binary data file"         "not a text file (a NUL byte at offset" "$ORDO" train --data data/binary.dat --tokenizer byte --out "$F"
check "data is a directory"      "is a directory"                "$ORDO" train --data data --tokenizer byte --out "$F"
check "data file missing"        "nope.txt: cannot open: No such file" "$ORDO" train --data data/nope.txt --tokenizer byte --out "$F"
check "vocab of another tokenizer" "entries, expected 50257"     "$ORDO" train --data data/text.txt --tokenizer gpt2 --vocab data/bert --out "$F"
check "vocab files are /dev/zero" "more than the limit"          "$ORDO" tokenize --vocab data/zero data/text.txt
check "vocab dir missing"        "run data/fetch.sh vocab, or pass --vocab DIR" "$ORDO" train --data data/text.txt --vocab data/novocab --out "$F"
if [ -f "$VOCAB/encoder.json" ] && [ -f "$VOCAB/vocab.bpe" ]; then
  mkdir -p "$dir/data/swapped"
  cp "$VOCAB/encoder.json" "$dir/data/swapped/"
  # the merges of another vocabulary: same format, lines 2 and 3 in another order
  awk 'NR==2 {l=$0; next} NR==3 {print; print l; next} {print}' "$VOCAB/vocab.bpe" > "$dir/data/swapped/vocab.bpe"
  check "merges of another vocab" "do not belong together"       "$ORDO" train --data data/text.txt --vocab data/swapped --out "$F"
else
  echo "SKIP: merges of another vocab (no gpt2 vocab in $VOCAB)"; skip=$((skip+1))
fi

# --- --config files
check "corrupt config JSON"      "broken.json: line 2:"          "$ORDO" train --config data/broken.json --out "$F"
check "unknown config key"       "unknown key \"stepz\""         "$ORDO" train --config data/unknown.json --out "$F"
check "config value of wrong type" "\"steps\" must be an integer" "$ORDO" train --config data/type.json --out "$F"
check "duplicate config key"     "duplicate object key"          "$ORDO" train --config data/dup.json --out "$F"
check "config file missing"      "unable to open data/nope.json" "$ORDO" train --config data/nope.json --out "$F"
check "config with resume"       "--config and --resume do not go together" "$ORDO" train --config data/unknown.json --resume "$G"

# --- --init weights
check "init with wrong shapes"   "has shape [16,16], config wants [16,32]"          "$ORDO" train "${tiny[@]}" --d-model 32 --init runs/good/ckpt-4.safetensors --out "$F"
check "init of another scheme"   "tensor wpe.weight not found"   "$ORDO" train "${tiny[@]}" --init runs/rope/ckpt-4.safetensors --out "$F"
check "init from a text file"    "too short for the 8-byte header length" "$ORDO" train "${tiny[@]}" --init data/small.txt --out "$F"
check "init file missing"        "cannot open"                   "$ORDO" train "${tiny[@]}" --init data/none.safetensors --out "$F"

# --- resuming and reading runs
check "resume without checkpoint or config" "no usable checkpoint and no readable config.json" "$ORDO" train --resume runs/empty
check "resume, every checkpoint truncated" "none of its 2 checkpoint(s) could be loaded" "$ORDO" train --resume runs/alltrunc --steps 8
check "resume, checkpoints of another scheme" "not a checkpoint of this run" "$ORDO" train --resume runs/foreign --steps 8
check "eval without checkpoint"  "no checkpoint (ckpt-<step>.safetensors) in the run" "$ORDO" eval runs/empty
check "eval, every checkpoint truncated" "file truncated?"      "$ORDO" eval runs/alltrunc
check "sample, every checkpoint truncated" "file truncated?"    "$ORDO" sample runs/alltrunc --prompt the
if command -v python3 >/dev/null 2>&1; then
  # a hand-edited run: config.json and the checkpoint's metadata ask for terabytes
  cp -r "$G" "$dir/runs/edited"
  python3 - "$dir/runs/edited" <<'EOF'
import json, os, struct, sys
d = sys.argv[1]
big = {"context": 65536, "pos": "alibi", "heads": 256, "d-model": 256, "corpus-tokens": 2000000}
c = json.load(open(os.path.join(d, "config.json"))); c.update(big)
json.dump(c, open(os.path.join(d, "config.json"), "w"))
for name in os.listdir(d):
    if not name.startswith("ckpt-"): continue
    p = os.path.join(d, name); b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
    cfg = json.loads(h["__metadata__"]["config"]); cfg.update(big)
    h["__metadata__"]["config"] = json.dumps(cfg)
    nh = json.dumps(h).encode(); nh += b" " * (-len(nh) % 8)
    open(p, "wb").write(struct.pack("<Q", len(nh)) + nh + b[8 + n:])
EOF
  check "resume of a hand-edited huge config" "of memory of this machine" "$ORDO" train --resume runs/edited --steps 8
  check "eval of a hand-edited huge config"   "of memory of this machine" "$ORDO" eval runs/edited
  # a checkpoint from a newer ordo with an option this one does not know (once a segfault)
  cp -r "$G" "$dir/runs/newer"
  python3 - "$dir/runs/newer" <<'EOF'
import json, os, struct, sys
d = sys.argv[1]
for name in os.listdir(d):
    if not name.startswith("ckpt-"): continue
    p = os.path.join(d, name); b = open(p, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]; h = json.loads(b[8:8 + n])
    cfg = json.loads(h["__metadata__"]["config"]); cfg["colour"] = "blue"
    h["__metadata__"]["config"] = json.dumps(cfg)
    nh = json.dumps(h).encode(); nh += b" " * (-len(nh) % 8)
    open(p, "wb").write(struct.pack("<Q", len(nh)) + nh + b[8 + n:])
EOF
  check "eval, checkpoint config with an unknown key"   "unknown key \"colour\"" "$ORDO" eval runs/newer
  check "sample, checkpoint config with an unknown key" "unknown key \"colour\"" "$ORDO" sample runs/newer --prompt the
else
  echo "SKIP: hand-edited config cases (no python3)"; skip=$((skip+4))
fi

# --- tokenize --decode
printf -- '-1\n' > "$dir/data/neg.ids"
printf '5 99999999999\n' > "$dir/data/huge.ids"
check "decode negative id"       "token id -1 (at index 0) is not in the byte vocabulary" "$ORDO" tokenize --tokenizer byte --decode data/neg.ids
check "tokenize an endless input" "too long to tokenize at once" "$ORDO" tokenize --tokenizer byte --count /dev/zero
check "decode id past int32"     "'99999999999' is not an integer token id" "$ORDO" tokenize --tokenizer byte --decode data/huge.ids

# --- paths longer than ORDO_PATH_MAX (4096 bytes with the NUL): refused with the start of the
# path quoted, before anything is made. snprintf into fixed buffers used to cut them quietly,
# and ordo went on with the cut name (opening, or when pruning checkpoints deleting, a file
# of another name), or made part of --out and failed later on the kernel's ENAMETOOLONG.
# longpath BASE LEN: BASE/ppp.../ppp, exactly LEN bytes, in names of at most 99 bytes (so the
# kernel's limit on one name is never what refuses it)
longpath() {
  local p=$1 n
  while [ ${#p} -lt "$2" ]; do
    n=$(( $2 - ${#p} - 1 ))
    if [ $n -gt 99 ]; then n=99; [ $(( $2 - ${#p} - 100 )) -eq 1 ] && n=98; fi
    p+=/$(head -c $n /dev/zero | tr '\0' p)
  done
  printf '%s' "$p"
}
over=$(longpath fresh 4200)   # over the limit itself
near=$(longpath fresh 4070)   # fits, DIR/ckpt-4.safetensors and the like do not
toolong="path too long: 'fresh/ppppp"
check "--out over ORDO_PATH_MAX"       "$toolong" "$ORDO" train "${tiny[@]}" --out "$over"
check "--out its files do not fit in"  "is over 4095 bytes" "$ORDO" train "${tiny[@]}" --out "$near"
check "sweep --out over ORDO_PATH_MAX" "$toolong" "$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out "$over"
check "sweep --out its runs do not fit in" "$toolong" "$ORDO" sweep "${tiny[@]}" --pos learned --seeds 1 --out "$near"
check "compare --out over ORDO_PATH_MAX" "$toolong" "$ORDO" compare runs/good --out "$over"
check "compare --out its files do not fit in" "$toolong" "$ORDO" compare runs/good --out "$near"
check "viz --out over ORDO_PATH_MAX"   "$toolong" "$ORDO" viz runs/good --out "$over"
check "viz --out its maps do not fit in" "$toolong" "$ORDO" viz runs/good --out "$near"
check "eval of a run dir over ORDO_PATH_MAX"   "$toolong" "$ORDO" eval "$over"
check "sample of a run dir over ORDO_PATH_MAX" "$toolong" "$ORDO" sample "$over" --prompt the
check "resume of a run dir over ORDO_PATH_MAX" "$toolong" "$ORDO" train --resume "$over"
check "compare of run dirs over ORDO_PATH_MAX" "$toolong" "$ORDO" compare runs/good "$over"
check "ORDO_VOCAB_DIR over ORDO_PATH_MAX" "$toolong" env ORDO_VOCAB_DIR="$over" "$ORDO" tokenize --tokenizer gpt2 data/text.txt
# a real run in a dir where config.json fits but ckpt-4.safetensors does not (4080 + 20 bytes):
# it is refused as it is, nothing in it changes and nothing appears beside it
deep=$(longpath work/deep 4080)
mkdir -p "$dir/$deep" &&
  (cd "$dir" && IFS=/ && for c in $deep; do cd "$c" || exit 1; done &&
   cp "$G/config.json" "$G/metrics.jsonl" "$G/ckpt-4.safetensors" .) || bad "copying a run into a deep dir"
listing() { (cd "$dir/work" && find deep -printf '%s %p\n' | sort | sha256sum); }
before=$(listing)
check "eval of a run whose checkpoint path does not fit"   "is over 4095 bytes" "$ORDO" eval "$deep" --save
check "sample of a run whose checkpoint path does not fit" "is over 4095 bytes" "$ORDO" sample "$deep" --prompt the
check "resume of a run whose checkpoint path does not fit" "is over 4095 bytes" "$ORDO" train --resume "$deep" --steps 8
check "viz of a run whose checkpoint path does not fit"    "is over 4095 bytes" "$ORDO" viz "$deep"
[ "$before" = "$(listing)" ] && ok || bad "a run whose paths do not fit: files under it changed"

# --- output dirs that cannot be written
check "--out under a regular file" "exists and is not a directory"            "$ORDO" train "${tiny[@]}" --out data/plainfile/run

ro_mode=""
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$dir/ro" && cp -r "$G" "$dir/runs/ro_run"
  if mount --bind "$dir/ro" "$dir/ro" 2>/dev/null; then
    mounts=("$dir/ro" "${mounts[@]}")
    mount -o remount,bind,ro "$dir/ro" 2>/dev/null && ro_mode=mount
  fi
  if [ "$ro_mode" = mount ] && mount --bind "$dir/runs/ro_run" "$dir/runs/ro_run" 2>/dev/null; then
    mounts=("$dir/runs/ro_run" "${mounts[@]}")
    mount -o remount,bind,ro "$dir/runs/ro_run" 2>/dev/null || ro_mode=""
  fi
fi
if [ "$ro_mode" = mount ]; then
  check "read-only output dir"   "Read-only file system"         "$ORDO" train "${tiny[@]}" --out ro/run
  check "resume of a read-only run" "Read-only file system"      "$ORDO" train --resume runs/ro_run --steps 8
elif command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
  chmod 755 "$dir" "$dir/runs" "$dir/data"; mkdir -p "$dir/ro"; chmod 755 "$dir/ro"
  [ -d "$dir/runs/ro_run" ] || cp -r "$G" "$dir/runs/ro_run"
  chmod -R a+rX "$dir/runs/ro_run"
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  check "read-only output dir (as nobody)" "Permission denied"   "${nobody[@]}" "$ORDO" train "${tiny[@]}" --out ro/run
  check "resume of a read-only run (as nobody)" "Permission denied" "${nobody[@]}" "$ORDO" train --resume runs/ro_run --steps 8
else
  echo "SKIP: read-only output dir (needs root for a read-only mount or setpriv)"; skip=$((skip+2))
fi

full=""
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$dir/full" "$dir/nearlyfull"
  # 32 KiB: room for config.json and metrics, not for a 50 KB checkpoint
  if mount -t tmpfs -o size=32k tmpfs "$dir/full" 2>/dev/null; then
    mounts=("$dir/full" "${mounts[@]}"); full=1
  fi
fi
if [ -n "$full" ]; then
  check "full output dir"        "No space left on device"       "$ORDO" train "${tiny[@]}" --out full/run
  ls "$dir/full/run" 2>/dev/null | grep -q 'ckpt-\|\.tmp\.' && bad "full output dir: left a checkpoint or temporary file" || ok
  # a finished run on a disk with room for its files and no more: --resume cannot checkpoint
  used=$(du -sk "$G" | cut -f1)
  if mount -t tmpfs -o size=$((used + 24))k tmpfs "$dir/nearlyfull" 2>/dev/null; then
    mounts=("$dir/nearlyfull" "${mounts[@]}")
    cp -r "$G" "$dir/nearlyfull/run"
    sums=$(cd "$dir/nearlyfull/run" && sha256sum ckpt-*.safetensors)
    out=$(cd "$dir" && "$ORDO" train --resume nearlyfull/run --steps 8 2>&1); rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 124 ] || ! grep -qF "No space left on device" <<<"$out"; then
      bad "resume on a full disk: status $rc: $(tail -2 <<<"$out")"
    elif [ "$sums" != "$(cd "$dir/nearlyfull/run" && sha256sum ckpt-*.safetensors)" ] ||
         ls "$dir/nearlyfull/run" | grep -q '\.tmp\.'; then
      bad "resume on a full disk: checkpoints changed or a temporary file was left"
    else
      ok
    fi
  else
    echo "SKIP: resume on a full disk (second tmpfs mount failed)"; skip=$((skip+1))
  fi
else
  echo "SKIP: full output dir (needs root to mount a small tmpfs)"; skip=$((skip+3))
fi

# --- meant to write: a truncated newest checkpoint is skipped with a warning, the previous
# one resumes, and the truncated file is replaced by the new run's own. A temporary file a
# killed writer left is removed; a user's file that merely looks like one is not.
cp -r "$G" "$dir/work/trunc"
truncate -s 2000 "$dir/work/trunc/ckpt-4.safetensors"
echo notes > "$dir/work/trunc/notes.tmp.txt"
echo litter > "$dir/work/trunc/ckpt-6.safetensors.tmp.4242"
out=$("$ORDO" train --resume "$dir/work/trunc" --steps 6 2>&1); rc=$?
if [ $rc -ne 0 ] || ! grep -qF "ckpt-4.safetensors: header length" <<<"$out" ||
   ! grep -qF "resuming $dir/work/trunc from step 2" <<<"$out"; then
  bad "truncated newest checkpoint: status $rc: $(head -3 <<<"$out")"
else
  ok
fi
[ -f "$dir/work/trunc/notes.tmp.txt" ] && ok || bad "resume deleted a user's notes.tmp.txt"
[ ! -e "$dir/work/trunc/ckpt-6.safetensors.tmp.4242" ] && ok || bad "resume left a stale temporary file"

# --- issue 16, bf16 matmuls: --precision names, the refusal where oneDNN runs no bf16 (forced
# with ONEDNN_MAX_CPU_ISA, which oneDNN reads), a config value of the wrong type, and a
# resume in another precision (precision is fixed for a run, as the model's shape is)
echo '{"precision": 16}' > "$dir/data/prec.json"
check "unknown precision"        "--precision: unknown precision 'fp16' (expected fp32 or bf16)" "$ORDO" train --precision fp16 --out "$F"
check "bf16 on a CPU without it" "--precision bf16: this CPU has no bf16 arithmetic that oneDNN" env ONEDNN_MAX_CPU_ISA=AVX2 "$ORDO" train --precision bf16 --out "$F"
check "precision of wrong type"  "\"precision\" must be a string" "$ORDO" train --config data/prec.json --out "$F"
check "resume asking for bf16 without it" "--precision bf16: this CPU has no bf16 arithmetic" env ONEDNN_MAX_CPU_ISA=AVX2 "$ORDO" train --resume "$G" --precision bf16
if "$ORDO" --version | grep -q "^--precision bf16: available"; then
  "$ORDO" train "${tiny[@]}" --precision bf16 --out "$dir/runs/bf16" > /dev/null 2>&1 || bad "bf16 fixture run"
  check "resume of bf16 in fp32" "--precision is \"fp32\" but the checkpoint was trained with \"bf16\"" "$ORDO" train --resume "$dir/runs/bf16" --precision fp32
  check "resume of fp32 in bf16" "--precision is \"bf16\" but the checkpoint was trained with \"fp32\"" "$ORDO" train --resume "$G" --precision bf16
  # a bf16 run carried to a machine without bf16 (its config asks for bf16 by itself)
  check "resume of bf16 without it" "--precision bf16: this CPU has no bf16 arithmetic" env ONEDNN_MAX_CPU_ISA=AVX2 "$ORDO" train --resume "$dir/runs/bf16" --steps 8
else
  echo "SKIP: resuming a bf16 run (this CPU runs no bf16)"; skip=$((skip+3))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
