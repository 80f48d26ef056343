#!/usr/bin/env bash
# No files call each other in a loop. From the object files of the nine
# libraries (CMake's build tree), an edge A -> B for every symbol A uses that B defines;
# tsort then finds any loop (two files that call each other, or a longer ring). The layers'
# own order (no call upward) is layer_check's job at link time; this one is within a layer too.
set -u
. "$(dirname "$0")/../lib.sh"
objs=$(find "$BUILD/CMakeFiles" -path '*ordo_*.dir/*' -name '*.o' 2>/dev/null | sort)
[ -n "$objs" ] || { echo "no object files of the libraries under $BUILD/CMakeFiles (build first)"; exit 1; }
defs="$dir/defs" uses="$dir/uses"
for o in $objs; do
  f=${o#*.dir/}; f=${f%.o}
  nm "$o" | awk -v f="$f" 'NF == 3 && $2 ~ /^[TDBR]$/ {print $3, f}' >> "$defs"
  nm "$o" | awk -v f="$f" 'NF == 2 && $1 == "U" {print $2, f}' >> "$uses"
done
# edges "user definer" between different files
awk 'NR == FNR {def[$1] = $2; next} ($1 in def) && def[$1] != $2 {print $2, def[$1]}' "$defs" "$uses" | sort -u > "$dir/edges"
n=$(wc -l < "$dir/edges")
[ "$n" -gt 50 ] && ok || bad "only $n call edges between files: the object files were not read"
if tsort "$dir/edges" > /dev/null 2> "$dir/loops"; then ok; else bad "files that call each other in a loop: $(grep -v '^tsort: input contains a loop' "$dir/loops" | sed 's/^tsort: //' | tr '\n' ' ')"; fi
finish test_file_cycles
