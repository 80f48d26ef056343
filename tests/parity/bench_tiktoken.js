// tiktoken's gpt2 encode throughput on one file, for bench/tokenize.sh:
//   node bench_tiktoken.js FILE REPS [IDS_OUT]
// Times encode_ordinary on the whole text REPS times (after one untimed warm-up, which
// compiles the WASM paths) and prints every repetition and the median in MB/s (10^6 bytes
// of UTF-8 input per second); IDS_OUT gets the ids, space-separated.
"use strict";
const fs = require("fs");
const { get_encoding } = require("tiktoken");
const [file, repsArg, idsOut] = process.argv.slice(2);
const reps = Number(repsArg || 5);
const buf = fs.readFileSync(file);
const text = buf.toString("utf8");
const enc = get_encoding("gpt2");
let ids = enc.encode_ordinary(text);
const mbs = [];
for (let r = 0; r < reps; r++) {
  const t0 = process.hrtime.bigint();
  ids = enc.encode_ordinary(text);
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  mbs.push(buf.length / dt / 1e6);
  console.log(`rep ${r}: ${dt.toFixed(4)} s, ${mbs[r].toFixed(2)} MB/s`);
}
const sorted = mbs.slice().sort((a, b) => a - b);
console.log(`tiktoken gpt2 encode: ${buf.length} bytes -> ${ids.length} ids; median ` +
  `${sorted[Math.floor(reps / 2)].toFixed(2)} MB/s over ${reps} reps`);
if (idsOut) fs.writeFileSync(idsOut, Array.from(ids).join(" ") + "\n");
enc.free();
