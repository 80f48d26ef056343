#!/usr/bin/env bash
# Runs that stand on their own, through the real CLI:
# - a run started in dir A works from dir B (resume, eval, sample, viz): config.json records
#   the data file absolute, and relative to the run dir (tried when the absolute path is gone:
#   the run and its data moved together); the hash decides as before; runs of an older ordo
#   (a relative path) are found from the working directory, then from the run dir;
# - sample needs the tokenizer only (the data file may be gone);
# - eval --data FILE scores any text, and says so; train --val-data FILE holds out a file,
#   recorded with its hash and checked on resume;
# - eval, sample and viz take --step N or a checkpoint file.
set -u
. "$(dirname "$0")/../lib.sh"

mkdir -p "$dir/tree/A" "$dir/tree/B" "$dir/tree/data"
python3 - "$dir/tree/data" <<'EOF'
import random, sys
random.seed(3)
w = "the cat sat on a mat and the dog ran far away from home".split()
for name, n in (("t.txt", 4000), ("v.txt", 800), ("other.txt", 600)):
    open(sys.argv[1] + "/" + name, "w").write(" ".join(random.choice(w) for _ in range(n)) + "\n")
EOF
tiny=(--tokenizer byte --context 16 --d-model 16 --layers 1 --heads 2 --batch 4 --warmup 2
      --eval-every 4 --ckpt-every 4 --keep 5 --threads 1)

# --- started in A with a relative --data, used from B
(cd "$dir/tree/A" && "$ORDO" train "${tiny[@]}" --data ../data/t.txt --steps 8 --out runs/r > /dev/null 2>&1) || bad "train in A"
run=../A/runs/r
python3 - "$dir/tree/A/runs/r/config.json" "$dir/tree/data/t.txt" <<'EOF' && ok || bad "config.json does not record the data absolute and relative to the run dir"
import json, os, sys
c = json.load(open(sys.argv[1]))
assert c["data"] == os.path.realpath(sys.argv[2]), c["data"]
assert c["data_file"]["run_relative"] == "../../../data/t.txt", c["data_file"]
EOF
cd "$dir/tree/B"
out=$("$ORDO" train --resume $run --steps 12 2>&1) && ok || bad "resume from B: $out"
[ -f "$dir/tree/A/runs/r/ckpt-12.safetensors" ] && ok || bad "resume from B wrote no ckpt-12"
out=$("$ORDO" eval $run 2>&1) && ok || bad "eval from B: $out"
grep -qF "eval set: the run's validation split" <<<"$out" && ok || bad "eval does not say what it scored: $out"
out=$("$ORDO" sample $run --prompt "the cat" --tokens 4 2>&1) && ok || bad "sample from B: $out"
out=$("$ORDO" viz $run --out "$dir/viz" 2>&1) && ok || bad "viz from B: $out"
[ -f "$dir/viz/index.html" ] && ok || bad "viz from B wrote no index.html"

# --- --step N and a checkpoint file, in eval, sample and viz
out=$("$ORDO" eval $run --step 4 --json 2>&1) && ok || bad "eval --step 4: $out"
grep -q '"step": 4,' <<<"$out" && ok || bad "eval --step 4 evaluated another step: $(head -4 <<<"$out")"
grep -qF '"checkpoint": "../A/runs/r/ckpt-4.safetensors"' <<<"$out" && ok || bad "eval --step 4 does not name its checkpoint"
out=$("$ORDO" eval $run/ckpt-8.safetensors --json 2>&1) && ok || bad "eval FILE: $out"
grep -q '"step": 8,' <<<"$out" && ok || bad "eval ckpt-8.safetensors evaluated another step"
cp "$dir/tree/A/runs/r/ckpt-4.safetensors" "$dir/elsewhere.safetensors"
out=$("$ORDO" eval "$dir/elsewhere.safetensors" --json 2>&1) && ok || bad "eval of a checkpoint copied out of its run: $out"
grep -q '"step": 4,' <<<"$out" && ok || bad "eval of a copied checkpoint: wrong step"
a=$("$ORDO" sample $run --step 4 --prompt "the" --tokens 8 --temperature 0 2>&1)
b=$("$ORDO" sample $run/ckpt-4.safetensors --prompt "the" --tokens 8 --temperature 0 2>&1)
c=$("$ORDO" sample $run --prompt "the" --tokens 8 --temperature 0 2>&1)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "sample --step 4 and sample ckpt-4.safetensors differ"
[ "$a" != "$c" ] && ok || bad "sample --step 4 gives the newest checkpoint's text (a run of 12 steps)"
out=$("$ORDO" viz $run --step 4 --out "$dir/viz4" 2>&1) && ok || bad "viz --step 4: $out"
grep -qF "step 4," <<<"$out" && ok || bad "viz --step 4 drew another step: $out"
out=$("$ORDO" viz $run/ckpt-8.safetensors --out "$dir/viz8" 2>&1) && ok || bad "viz FILE: $out"
grep -qF "step 8," <<<"$out" && ok || bad "viz ckpt-8.safetensors drew another step: $out"
out=$("$ORDO" eval $run --step 5 2>&1) && bad "eval --step 5 (none) succeeded" || ok
grep -qF "no checkpoint of step 5 (ckpt-5.safetensors); the run has checkpoints at steps 12 (milestone), 8 (milestone), 4" <<<"$out" && ok || bad "--step 5: $out"

# --- eval --data: any text, scored whole with the run's tokenizer
out=$("$ORDO" eval $run --data ../data/other.txt 2>&1) && ok || bad "eval --data: $out"
grep -qF "eval set: ../data/other.txt, the whole file (" <<<"$out" && ok || bad "eval --data does not say what it scored: $out"
out=$("$ORDO" eval $run --data ../data/other.txt --json 2>&1)
python3 - <<EOF && ok || bad "eval --data JSON: $out"
import json
r = json.loads('''$out''')
s = r["eval_set"]
assert s["kind"] == "file" and s["file"] == "../data/other.txt" and s["tokens"] == $(wc -c < ../data/other.txt), s
assert len(s["xxh3"]) == 16
assert r["results"][0]["targets"] > 0
EOF

# --- sample needs the tokenizer only: the data file may be gone; eval then says where it looked
mv ../data/t.txt ../data/t.away
out=$("$ORDO" sample $run --prompt "the" --tokens 4 2>&1) && ok || bad "sample without the data file: $out"
out=$("$ORDO" eval $run 2>&1) && bad "eval without the data file succeeded" || ok
grep -qF "the run's file is not there (tried $dir/tree/data/t.txt, ../A/runs/r/../../../data/t.txt)" <<<"$out" && ok || bad "eval without data: $out"
mv ../data/t.away ../data/t.txt

# --- the run and its data moved together: found relative to the run dir, with a note
cd "$dir" && mv tree moved && cd moved/B
out=$("$ORDO" eval $run 2>&1) && ok || bad "eval after the move: $out"
grep -qF "ordo: note: --data $dir/tree/data/t.txt is not there; using ../A/runs/r/../../../data/t.txt (relative to the run directory)" <<<"$out" && ok || bad "no note on the move: $out"
out=$("$ORDO" train --resume $run --steps 14 2>&1) && ok || bad "resume after the move: $out"
python3 -c "
import json, os; c = json.load(open('$run/config.json'))
assert c['data'] == os.path.realpath('../data/t.txt'), c['data']" && ok || bad "config.json does not record the data's new place"
cd "$dir" && mv moved tree && cd tree/B

# --- train --val-data: the whole file is the validation set; recorded and checked on resume
(cd "$dir/tree/A" && "$ORDO" train "${tiny[@]}" --data ../data/t.txt --val-data ../data/v.txt --steps 4 --out runs/v > /dev/null 2>&1) || bad "train --val-data"
python3 - "$dir/tree/A/runs/v/config.json" "$dir/tree/data/v.txt" <<'EOF' && ok || bad "config.json does not record --val-data with its hash"
import json, os, sys
c = json.load(open(sys.argv[1]))
assert c["val-data"] == os.path.realpath(sys.argv[2]), c["val-data"]
assert c["val_data_file"]["size"] == os.path.getsize(sys.argv[2]) and len(c["val_data_file"]["xxh3"]) == 16
EOF
out=$("$ORDO" eval ../A/runs/v --json 2>&1)
grep -qF '"kind": "val-data"' <<<"$out" && grep -q "\"tokens\": $(wc -c < ../data/v.txt)" <<<"$out" && ok || bad "eval of a --val-data run: $(head -12 <<<"$out")"
cp ../data/v.txt ../data/v.keep && echo " and more" >> ../data/v.txt
out=$("$ORDO" train --resume ../A/runs/v --steps 6 2>&1) && bad "resume on a changed --val-data file succeeded" || ok
grep -qF -- "--val-data file $dir/tree/data/v.txt changed since the run started" <<<"$out" && ok || bad "changed --val-data: $out"
out=$("$ORDO" train --resume ../A/runs/v --steps 6 --data-changed ok 2>&1) && ok || bad "--data-changed ok with --val-data: $out"
mv ../data/v.keep ../data/v.txt

# --- a run of an older ordo: a relative --data in its checkpoints, no run_relative; found from
# the working directory it was started in, else from the run dir
(cd "$dir/tree/A" && "$ORDO" train "${tiny[@]}" --data ../data/t.txt --steps 4 --out runs/old > /dev/null 2>&1) || bad "train runs/old"
python3 - "$dir/tree/A/runs/old" <<'EOF' || bad "could not make the old-style run"
import glob, json, struct, sys
d = sys.argv[1]
for path in glob.glob(d + "/ckpt-*.safetensors"):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    h = json.loads(raw[8:8 + n])
    c = json.loads(h["__metadata__"]["config"])
    c["data"] = "data.txt"  # relative, as an older ordo recorded it
    del c["data_file"]["run_relative"]
    h["__metadata__"]["config"] = json.dumps(c, sort_keys=True, separators=(",", ":"))
    h["__metadata__"].pop("ordo_header_xxh3", None)  # an older ordo wrote no header checksum
    text = json.dumps(h).encode()
    text += b" " * (-len(text) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + raw[8 + n:])
EOF
cp ../data/t.txt "$dir/tree/A/runs/old/data.txt"
out=$("$ORDO" eval ../A/runs/old 2>&1) && ok || bad "old-style run from elsewhere: $out"
grep -qF "ordo: note: --data data.txt is not there; using ../A/runs/old/data.txt (relative to the run directory)" <<<"$out" && ok || bad "old-style run: no note: $out"
cp ../data/t.txt data.txt
out=$("$ORDO" eval ../A/runs/old 2>&1) && ok || bad "old-style run from its working directory: $out"
grep -qF "ordo: note: --data" <<<"$out" && bad "old-style run: the working directory's file was not tried first: $out" || ok

finish test_run_standalone
