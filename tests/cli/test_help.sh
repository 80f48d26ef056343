#!/usr/bin/env bash
# Help that reads the same everywhere: every command's --help gives each
# option exactly one "(default: ...)"; a boolean option is a flag with a --no- form, shown as
# --[no-]name, and both forms work on the command line while config files keep true/false
# and 1/0; eval's sliding-window step is --sliding-stride (train's --stride is another thing),
# with --stride kept as a deprecated alias that warns.
set -u
. "$(dirname "$0")/../lib.sh"
cd "$dir"

# --- one default per option, for every command `ordo --help` lists
commands=$("$ORDO" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on=0}')
[ "$(wc -w <<<"$commands")" -ge 7 ] && ok || bad "ordo --help lists too few commands: $commands"
for c in $commands; do
  out=$("$ORDO" "$c" --help 2>&1) || { bad "ordo $c --help exited non-zero"; continue; }
  grep -q "^usage: ordo $c" <<<"$out" && ok || bad "ordo $c --help: no usage line"
  # an option's entry: its "  --name" line and the deeper-indented lines that continue it
  entries=$(awk '/^  --/ {if (e != "") print e; e = $0; next}
                 /^                         / && e != "" {e = e " " $0; next}
                 {if (e != "") print e; e = ""}
                 END {if (e != "") print e}' <<<"$out" | grep -v '^  --help ')
  n=$(grep -c . <<<"$entries")
  [ "$n" -ge 1 ] && ok || bad "ordo $c --help: no options found"
  while IFS= read -r e; do
    d=$(grep -o "(default: " <<<"$e" | wc -l)
    w=$(grep -oi "default" <<<"$e" | wc -l)
    [ "$d" -eq 1 ] && [ "$w" -eq 1 ] && ok || bad "ordo $c --help: not one '(default: ...)' in: $e"
  done <<<"$entries"
  # a flag reads --[no-]name (or "--no-x, --x" for a flag named no-x), never as taking 1/0
  grep -qE '\(1/0\)|\(0/1\)' <<<"$out" && bad "ordo $c --help still documents a 1/0 option" || ok
done
h=$("$ORDO" train --help)
grep -qE '^  --\[no-\]shuffle +shuffle windows each epoch \(default: --shuffle\)$' <<<"$h" && ok || bad "train --help: --[no-]shuffle line: $(grep shuffle <<<"$h")"
grep -qE '^  --\[no-\]drop-last .*\(default: --drop-last\)$' <<<"$h" && ok || bad "train --help: --[no-]drop-last line"
grep -qE '^  --no-decay-pos, --decay-pos .*\(default: --decay-pos\)$' <<<"$h" && ok || bad "train --help: --no-decay-pos line"
"$ORDO" eval --help | grep -qE '^  --\[no-\]json .*\(default: --no-json\)$' && ok || bad "eval --help: --[no-]json line"
"$ORDO" eval --help | grep -qE '^  --sliding-stride N .*--mode sliding' && ok || bad "eval --help: no --sliding-stride"

# --- the --no- forms work, and config files keep true/false and 1/0
tiny=(--corpus-tokens 3000 --context 16 --d-model 16 --heads 2 --layers 1 --batch 4 --steps 2
      --eval-every 0 --threads 1 --progress off)
key() { sed -n "s/.*\"$2\": \([a-z0-9]*\).*/\1/p" "$1/config.json"; }
"$ORDO" train "${tiny[@]}" --out r_default > /dev/null || bad "train with the defaults"
"$ORDO" train "${tiny[@]}" --no-shuffle --no-drop-last --no-decay-pos --out r_no > /dev/null || bad "train --no-shuffle"
[ "$(key r_default shuffle)$(key r_default drop-last)$(key r_default no-decay-pos)" = 110 ] && ok \
  || bad "defaults in config.json: shuffle $(key r_default shuffle) drop-last $(key r_default drop-last)"
[ "$(key r_no shuffle)$(key r_no drop-last)$(key r_no no-decay-pos)" = 001 ] && ok \
  || bad "--no-shuffle --no-drop-last --no-decay-pos: config.json has $(key r_no shuffle) $(key r_no drop-last) $(key r_no no-decay-pos)"
# the last of two forms wins; --decay-pos undoes --no-decay-pos
"$ORDO" train "${tiny[@]}" --no-shuffle --shuffle --no-decay-pos --decay-pos --out r_last > /dev/null || bad "train --no-shuffle --shuffle"
[ "$(key r_last shuffle)$(key r_last no-decay-pos)" = 10 ] && ok || bad "the last form given does not win"
# the windows really come in order without the shuffle: the same losses as with shuffle off in a config
for v in false 0; do
  echo "{\"shuffle\": $v, \"drop-last\": $v}" > "c_$v.json"
  "$ORDO" train "${tiny[@]}" --config "c_$v.json" --out "r_cfg_$v" > /dev/null || bad "a config with shuffle $v"
  [ "$(key "r_cfg_$v" shuffle)$(key "r_cfg_$v" drop-last)" = 00 ] && ok || bad "config shuffle $v not read as off"
done
echo '{"shuffle": true}' > c_true.json
"$ORDO" train "${tiny[@]}" --config c_true.json --no-shuffle --out r_over > /dev/null || bad "--no-shuffle over a config"
[ "$(key r_over shuffle)" = 0 ] && ok || bad "--no-shuffle does not override the config's true"
losses() { grep -o '"train_loss":[^,]*' "$1/metrics.jsonl"; }
"$ORDO" train "${tiny[@]}" --no-shuffle --no-drop-last --out r_ns > /dev/null || bad "train --no-shuffle --no-drop-last"
cmp -s <(losses r_ns) <(losses r_cfg_0) && ok || bad "--no-shuffle --no-drop-last and a config with 0 train differently"
cmp -s <(losses r_ns) <(losses r_default) && bad "--no-shuffle trains as the shuffled default" || ok
grep -q '"step":2,' r_default/metrics.jsonl && ok || bad "no metrics in the default run"
# eval's flags have --no- forms too
"$ORDO" eval r_default --json --no-json | grep -q '^run r_default, step 2' && ok || bad "eval --json --no-json is not the table"

# --- eval --sliding-stride, and --stride as its deprecated name
a=$("$ORDO" eval r_default --mode sliding --sliding-stride 4 --json 2>&1)
b=$("$ORDO" eval r_default --mode sliding --stride 4 --json 2>err)
grep -q '"stride": 4' <<<"$a" && ok || bad "--sliding-stride 4 is not the report's stride: $a"
[ "$a" = "$b" ] && ok || bad "--stride 4 and --sliding-stride 4 differ"
grep -qF "ordo: warning: eval --stride is deprecated, use --sliding-stride" err && ok || bad "no deprecation warning: $(cat err)"
"$ORDO" eval r_default --mode sliding --sliding-stride 4 > /dev/null 2>err; [ -s err ] && bad "--sliding-stride warns: $(cat err)" || ok

finish
