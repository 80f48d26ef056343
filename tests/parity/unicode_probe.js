// Asks tiktoken (not the Unicode tables of node or PCRE2) which code points its gpt2
// pre-tokenizer treats as letters, numbers or spaces: for each code point c, "c's" ends
// in the token "'s" (338) exactly when c is not matched by [^\s\p{L}\p{N}] (a punctuation
// run would swallow the apostrophe). Node's own Unicode data then says whether such a c
// is L or N. Prints "L <hex>" / "N <hex>" / "W <hex>" for every such code point beyond
// ASCII, and "?" lines for code points tiktoken and node disagree on.
//
// Used to make data/bpe_unicode.h (the code points that tiktoken's regex, on a newer
// Unicode, counts as letters or numbers but PCRE2 10.42's Unicode 14 does not):
//   node unicode_probe.js > probe.txt && python3 gen_bpe_unicode.py probe.txt > ../../data/bpe_unicode.h
"use strict";
const { get_encoding } = require("tiktoken");
const enc = get_encoding("gpt2");
const L = /^\p{L}$/u, N = /^\p{N}$/u, W = /^\s$/u;
const out = [];
for (let c = 0x80; c <= 0x10ffff; c++) {
  if (c >= 0xd800 && c <= 0xdfff) continue;
  const ch = String.fromCodePoint(c);
  const ids = enc.encode_ordinary(ch + "'s");
  const lnw = ids[ids.length - 1] === 338;
  const cls = L.test(ch) ? "L" : N.test(ch) ? "N" : W.test(ch) ? "W" : "";
  if (lnw && cls) out.push(cls + " " + c.toString(16));
  else if (lnw) out.push("? " + c.toString(16) + " tiktoken:LNW node:other");
}
enc.free();
process.stdout.write(out.join("\n") + "\n");
