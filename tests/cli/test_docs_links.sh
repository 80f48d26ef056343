#!/usr/bin/env bash
# The documentation's links hold: every relative link in README.md and docs/*.md names a file
# that exists, and every #anchor names a heading of its file (GitHub's slugs: lower case,
# punctuation dropped, spaces to hyphens, a repeated heading gets -1, -2, ...). Links inside
# code (fenced blocks, `spans`) and web links (http:, https:, mailto:) are not checked.
# Also: README.md stays a front page, at most 220 lines.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
cd "$src" || exit 1
fails=0 checks=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# anchors FILE: the anchor of each heading of FILE, one a line (outside fenced blocks)
anchors() {
  awk '/^```/ {code = !code; next} !code && /^#+ / {sub(/^#+ +/, ""); sub(/ +#* *$/, ""); print}' "$1" |
    tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g' |
    awk '{n = seen[$0]++; print (n ? $0 "-" n : $0)}'
  grep -o '<a \(id\|name\)="[^"]*"' "$1" | sed 's/.*="\(.*\)"/\1/'
  return 0
}

# links FILE: the targets of FILE's inline links, one a line, outside code
links() {
  awk '/^```/ {code = !code; next} !code' "$1" | sed 's/`[^`]*`//g' |
    grep -o '\](\([^)]*\))' | sed 's/^](\(.*\))$/\1/; s/ .*//'
}

files=(README.md docs/*.md)
for f in "${files[@]}"; do
  fdir=$(dirname "$f")
  while IFS= read -r link; do
    [ -n "$link" ] || continue
    case $link in http:* | https:* | mailto:*) continue ;; esac
    checks=$((checks + 1))
    path=${link%%#*}
    anchor=
    [[ $link == *"#"* ]] && anchor=${link#*#}
    if [ -z "$path" ]; then
      target=$f
    else
      target=$fdir/$path
      target=${target#./}
    fi
    if [ ! -e "$target" ]; then
      fail "$f: link to $link: no file $target"
      continue
    fi
    if [ -n "$anchor" ]; then
      if [ -d "$target" ] || [[ $target != *.md ]]; then
        fail "$f: link to $link: an anchor into something that is not a Markdown file"
      elif ! grep -qxF -- "$anchor" <<<"$(anchors "$target")"; then
        fail "$f: link to $link: no heading in $target has the anchor #$anchor"
      fi
    fi
  done < <(links "$f")
done

checks=$((checks + 1))
n=$(wc -l < README.md)
[ "$n" -le 220 ] || fail "README.md has $n lines; a front page has at most 220 (move detail to docs/)"

echo "$checks checks, $fails failed"
[ "$fails" = 0 ]
