// Parity of ordo's gpt2 tokenizer with tiktoken (the real one, WASM under node).
//
//   node parity.js gen DIR         writes DIR/NAME.jsonl, one JSON string per line, for the
//                                  sets NAME = plain, special, codepoints
//   node parity.js compare NAME GOT
//                                  encodes set NAME with tiktoken (plain, codepoints:
//                                  encode_ordinary; special: encode(text, "all"), i.e.
//                                  <|endoftext|> allowed), compares with GOT (one line of ids
//                                  per string), prints the first mismatches, exits 1 on any
//
// The corpus is generated from a fixed seed, so every run (and machine) tests the same
// strings: ASCII prose, whitespace runs, newlines, digits, contractions, accented, CJK and
// other scripts, emoji, Unicode spaces, control characters, random code points, specials.
"use strict";
const fs = require("fs");
const path = require("path");

// mulberry32: small, deterministic PRNG
function rng(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ("the of and to in is was he for it with as his on be at by I had not are but " +
  "from or have an they which one you were her all she there would their we him been has " +
  "when who will more no if out so said what up its about into than them can only other new " +
  "some could time these two may then do first any my now such like our over man me even most " +
  "made after also did many before must through back years where much your way well down " +
  "should because each just those people Mr how too little state good very make world still " +
  "own see men work long get here between both life being under never day same another know " +
  "while last might us great old year off come since against go came right used take three " +
  "Hello World GPT OpenAI tokenizer HTTP JSON iPhone McDonald naïve café résumé Zürich " +
  "São Paulo Ångström façade coöperate jalapeño Übermensch œuvre ÆSIR straße").split(" ");
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'x",
  "'", "''", "'ll've", "n't", "’s", "'s'", "' s"];
const PUNCT = [".", ",", "!", "?", ";", ":", "-", "--", "...", "(", ")", "[", "]", "{", "}",
  "\"", "'", "`", "~", "@", "#", "$", "%", "^", "&", "*", "_", "+", "=", "<", ">", "/", "\\",
  "|", "<|", "|>", "<|endoftext", "endoftext|>", "»", "«", "—", "–", "…", "¿", "¡", "•", "€",
  "£", "¥", "©", "®", "™", "°", "±", "×", "÷", "§", "¶", "†", "‡", "‰", "′", "″", "‹", "›"];
const SPACES = [" ", "  ", "   ", "    ", "        ", "\t", "\t\t", "\n", "\n\n", "\n\n\n",
  "\r\n", "\r", " \n", "\n ", " \n ", "\t\n", "\u000b", "\f", "\u00a0", "\u3000", "\u2028",
  "\u2029", "\u0085", "\u1680", "\u2002", "\u2003", "\u2009", "\u200a", "\u202f", "\u205f",
  "\u180e", "\u200b", "\u2060", "\ufeff", " \u00a0 ", "\u00a0\u00a0"];
const SCRIPTS = ["日本語のテキスト", "中文字符测试", "漢字", "한국어 텍스트", "русский текст",
  "Ελληνικά", "עברית", "العربية", "हिन्दी", "ภาษาไทย", "ქართული", "Հայերեն", "தமிழ்",
  "ᚠᛇᚻ᛫ᛒᛦᚦ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𝟘𝟙𝟚", "①②③", "Ⅻ", "½¾", "٣٤٥", "०१२", "〇一二三",
  "e\u0301", "n\u0303o", "a\u030a\u0323", "\u0301\u0301", "ﬁ", "ǅ", "ǈ", "ß", "İ", "ı",
  "Ꙭ", "ꓯ", "𐐷", "𠜎𠜱𠝹", "\u{20000}\u{2A6D6}", "\u{30000}", "\u{31350}", "\u{11F00}",
  "\u{1E4D0}", "\u{1D2C0}", "\u{1DF25}", "\u{2EBF0}"];
const EMOJI = ["😀", "👍", "👍🏽", "👨‍👩‍👧‍👦", "🇺🇸", "🇯🇵", "❤️", "✨", "🔥🔥🔥", "🏳️‍🌈",
  "🧑🏿‍🚀", "☺", "✔", "⚡️", "🥲", "🫠", "🫶🏼", "#️⃣", "©️", "🀄", "🂡"];

function pick(r, a) { return a[Math.floor(r() * a.length)]; }
function int(r, lo, hi) { return lo + Math.floor(r() * (hi - lo + 1)); }

function randomNumber(r) {
  const k = pick(r, [0, 1, 2, 3]);
  if (k === 0) return String(int(r, 0, 99));
  if (k === 1) return String(int(r, 0, 1e9));
  if (k === 2) return int(r, 0, 9999) + "." + int(r, 0, 999);
  let s = "";
  const n = int(r, 5, 60);
  for (let i = 0; i < n; i++) s += String(int(r, 0, 9));
  return s;
}

// A code point from anywhere (no surrogates), weighted towards the blocks text uses.
function randomCodePoint(r) {
  const ranges = [[0x20, 0x7e], [0x00, 0x1f], [0x80, 0x24f], [0x300, 0x36f], [0x370, 0x52f],
    [0x590, 0x6ff], [0x900, 0xdff], [0xe00, 0xeff], [0x1000, 0x1fff], [0x2000, 0x2bff],
    [0x3000, 0x30ff], [0x3400, 0x9fff], [0xac00, 0xd7a3], [0xe000, 0xf8ff], [0xf900, 0xfffd],
    [0x10000, 0x1ffff], [0x1f300, 0x1faff], [0x20000, 0x3134f], [0xe0000, 0xe01ef],
    [0xf0000, 0x10ffff]];
  const [lo, hi] = pick(r, ranges);
  return int(r, lo, hi);
}

function randomText(r, specials) {
  let s = "";
  const parts = int(r, 1, 40);
  for (let i = 0; i < parts; i++) {
    const k = r();
    if (k < 0.30) s += pick(r, WORDS);
    else if (k < 0.45) s += pick(r, SPACES);
    else if (k < 0.52) s += pick(r, CONTRACTIONS);
    else if (k < 0.62) s += pick(r, PUNCT);
    else if (k < 0.69) s += randomNumber(r);
    else if (k < 0.76) s += pick(r, SCRIPTS);
    else if (k < 0.81) s += pick(r, EMOJI);
    else if (k < 0.86) s += String.fromCodePoint(randomCodePoint(r));
    else if (k < 0.89) s += " ".repeat(int(r, 2, 40)) + pick(r, ["", "x", "\n", "1", "!"]);
    else if (k < 0.91) s += pick(r, SPACES).repeat(int(r, 2, 30));
    else if (k < 0.93) s += pick(r, WORDS).toUpperCase();
    else if (k < 0.95) s += "<|endoftext|>";
    else if (specials && k < 0.98) s += pick(r, ["<|endoftext|>", " <|endoftext|>",
      "<|endoftext|>\n", "<|endoftext|><|endoftext|>", "<|endoftext|> ", "x<|endoftext|>y"]);
    else s += pick(r, WORDS) + pick(r, CONTRACTIONS);
    if (r() < 0.5) s += " ";
  }
  return s;
}

const FIXED = ["", " ", "  ", "\n", "a", "Hello, world!", "Hello world", " Hello", "hello  world",
  "hello   world", "hello\n\nworld", "hello \n world", "  \n  ", "\t\t\tx", "x   ", "x \n",
  "I'm", "you'll", "it's", "They've", "we'd", "I'M", "don't", "'s", " 's", "''s", "'''",
  "12345678901234567890", "1,000,000.00", "3.14159", "x1y2z3", "2024-01-01T00:00:00Z",
  "café", "naïve façade", "日本語", "你好，世界", "😀😀😀", "👨‍👩‍👧‍👦 family",
  "<|endoftext|>", "a<|endoftext|>b", "<|endoftext|><|endoftext|>", "<|endoftext", "<|end",
  " ".repeat(1000), " ".repeat(1000) + "x", "\n".repeat(500), "\t ".repeat(300) + "y",
  "a".repeat(2000), "ab".repeat(500), "1".repeat(777), "!".repeat(999), "é".repeat(400),
  "日".repeat(300), "😀".repeat(200), "\u00a0".repeat(50) + "x", "\u3000\u3000漢字",
  "x\u2028y", "x\u0085y", "x\u180ey", "x \u180e y", "x\u200by", "\u0000", "a\u0000b",
  "\u0001\u0002\u0003\u007f", "\ufeffBOM", "\ufffd", "\u{10ffff}", "\u{e0001}\u{e0041}",
  "${var} $(cmd) `tick`", "function f(x) { return x * 2; }\n", "<html><body>Hi</body></html>",
  "SELECT * FROM t WHERE a = 'b';", "https://example.com/path?q=1&r=2#frag",
  "QmFzZTY0IGVuY29kZWQgdGV4dCBoZXJlIQ==", "The quick brown fox jumps over the lazy dog."];

function corpus(specials) {
  const r = rng(specials ? 0x5eed5 : 0x0bd0);
  const out = FIXED.slice();
  const n = specials ? 1500 : 3500;
  for (let i = 0; i < n; i++) {
    if (i % 10 === 9) { // pure random code points
      let s = "";
      const m = int(r, 1, 30);
      for (let j = 0; j < m; j++) s += String.fromCodePoint(randomCodePoint(r));
      out.push(s);
    } else {
      out.push(randomText(r, specials));
    }
  }
  return out;
}

// Every code point (surrogates aside) in contexts that expose its class: "c's" (a
// punctuation run would swallow the apostrophe), "sc1" and " c" (letter, number, space or
// other), 128 code points to a string.
function codepoints() {
  const out = [];
  let s = "", k = 0;
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCodePoint(c);
    s += ch + "'s" + ch + "1 ";
    if (++k % 128 === 0) {
      out.push(s);
      s = "";
    }
  }
  if (s) out.push(s);
  return out;
}

const SETS = ["plain", "special", "codepoints"];

function texts(name) {
  return name === "codepoints" ? codepoints() : corpus(name === "special");
}

function gen(dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const name of SETS) {
    const t = texts(name);
    fs.writeFileSync(path.join(dir, name + ".jsonl"), t.map((x) => JSON.stringify(x)).join("\n") + "\n");
    console.log(`parity: ${name}: ${t.length} strings`);
  }
}

// Encodes set NAME with tiktoken and compares with GOT (one line of ids per string).
function compare(name, gotFile) {
  const { get_encoding } = require("tiktoken");
  const enc = get_encoding("gpt2");
  const t = texts(name);
  const got = fs.readFileSync(gotFile, "utf8").split("\n");
  if (got.length && got[got.length - 1] === "") got.pop();
  let bad = 0, ids = 0;
  if (got.length !== t.length)
    console.log(`parity: ${name}: ordo gave ${got.length} lines for ${t.length} strings`);
  for (let i = 0; i < t.length; i++) {
    const e = name === "special" ? enc.encode(t[i], "all") : enc.encode_ordinary(t[i]);
    ids += e.length;
    const exp = Array.from(e).join(" ");
    if (exp === got[i]) continue;
    if (++bad <= 10)
      console.log(`MISMATCH ${name} #${i + 1}: ${JSON.stringify(t[i]).slice(0, 400)}\n` +
        `  tiktoken: ${exp.slice(0, 400)}\n  ordo:     ${(got[i] || "(none)").slice(0, 400)}`);
  }
  enc.free();
  console.log(`parity: ${name}: ${t.length} strings, ${ids} tiktoken ids, ${bad} mismatching`);
  process.exit(bad || got.length !== t.length ? 1 : 0);
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "gen" && args.length === 1) gen(args[0]);
else if (cmd === "compare" && args.length === 2 && SETS.includes(args[0])) compare(...args);
else {
  console.error("usage: node parity.js gen DIR | compare plain|special|codepoints GOT");
  process.exit(2);
}
