// The fuzz targets' bodies (see fuzz.h). Each drives one reader as ordo does and checks
// the properties that must hold on every input: a refused input leaves an error message, an
// accepted one is self-consistent (tensors inside the file, configs that round-trip,
// decode(encode(x)) == x). Files are handed over through a memfd, so a run does no disk I/O.
// Deliberately not here: anything that trains (forward runs one step's forward and backward,
// without an update), or allocates a model of more than a few hundred thousand parameters
// (ckpt_header builds and loads small ones only, forward a 2-layer C 16 one), and mutation
// logic (libFuzzer's job).
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "data/bpe.h"
#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/tokenizer.h"
#include "data/tokfile.h"
#include "eval/evaluate.h"
#include "sys/hash.h"
#include "framework/safetensors.h"
#include "fuzz.h"
#include "models/gpt.h"
#include "run/checkpoint.h"
#include "run/config.h"

const ordo_fuzz_target ordo_fuzz_targets[] = {
    {"safetensors", ordo_fuzz_safetensors}, {"checkpoint", ordo_fuzz_checkpoint},
    {"config", ordo_fuzz_config},           {"vocab", ordo_fuzz_vocab},
    {"encode", ordo_fuzz_encode},           {"decode", ordo_fuzz_decode},
    {"tokfile", ordo_fuzz_tokfile},         {"ckpt_header", ordo_fuzz_ckpt_header},
    {"forward", ordo_fuzz_forward},         {NULL, NULL},
};

// data[0..size) as a file: one memfd per process, rewritten for each input. Returns its
// /proc/self/fd path, which every reader can open like any regular file.
static const char *as_file(const void *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("ordo-fuzz", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_CHECK(ftruncate(fd, 0) == 0);
    const char *p = data;
    for (size_t done = 0; done < size;) {
        ssize_t w = pwrite(fd, p + done, size - done, (off_t)done);
        FUZZ_CHECK(w > 0);
        done += (size_t)w;
    }
    return path;
}

static char last_refusal[512];
const char *ordo_fuzz_last_refusal(void) {
    return last_refusal;
}

// A refused input must say why.
static int refused(ordo_status s) {
    FUZZ_CHECK(s != ORDO_OK);
    FUZZ_CHECK(ordo_error_message()[0] != 0);
    snprintf(last_refusal, sizeof last_refusal, "%s", ordo_error_message());
    ordo_error_clear();
    return 1;
}

// ---- safetensors: the raw file

int ordo_fuzz_safetensors(const uint8_t *data, size_t size) {
    ordo_safetensors *f;
    ordo_status s = ordo_safetensors_open(as_file(data, size), &f);
    if (s) return refused(s);
    unsigned sum = 0;
    for (int i = 0; i < ordo_safetensors_count(f); i++) {
        const ordo_st_tensor *t = ordo_safetensors_at(f, i);
        FUZZ_CHECK(t && t->name && ordo_safetensors_find(f, t->name) == t);
        FUZZ_CHECK(t->offset <= size && t->nbytes <= size - t->offset);
        const unsigned char *b = ordo_safetensors_data(f, t);
        for (size_t k = 0; k < t->nbytes; k++) sum += b[k]; // every byte must be readable
        if (t->dtype != ORDO_DTYPE_F32 || t->ndim > 4) continue;
        int want[4] = {0}, fits = 1;
        for (int d = 0; d < t->ndim; d++) {
            fits &= t->shape[d] <= INT32_MAX;
            want[d] = (int)t->shape[d];
        }
        if (!fits) continue;
        float *dst = malloc(t->nbytes ? t->nbytes : 1);
        FUZZ_CHECK(dst);
        FUZZ_CHECK(ordo_safetensors_read_f32(f, t->name, want, t->ndim, dst) == ORDO_OK);
        FUZZ_CHECK(t->nbytes == 0 || memcmp(dst, b, t->nbytes) == 0);
        // the same tensor asked for with another shape is a clean error
        int other[5] = {want[0], want[1], want[2], want[3], 7};
        if (t->ndim > 0) other[0] = want[0] + 1;
        FUZZ_CHECK(
            refused(ordo_safetensors_read_f32(f, t->name, other, t->ndim > 0 ? t->ndim : 1, dst)));
        free(dst);
    }
    for (int i = 0; i < ordo_safetensors_meta_count(f); i++) {
        const char *k = ordo_safetensors_meta_key(f, i), *v = ordo_safetensors_meta_value(f, i);
        FUZZ_CHECK(k && v && ordo_safetensors_meta(f, k) == v);
    }
    FUZZ_CHECK(refused(ordo_safetensors_read_f32(f, "no such tensor \x01", NULL, 0, NULL)));
    // the checksums (ordo's data and header entries, when present): checked or refused cleanly
    int checked;
    s = ordo_safetensors_verify(f, &checked);
    FUZZ_CHECK(s == ORDO_OK || refused(s));
    ordo_safetensors_close(f);
    return sum == 0xFFFFFFFFu ? 0 : 0; // (sum keeps the reads from being optimised away)
}

// The loader position of a checkpoint's state restored as --resume does, then 40 batches
// (into the next epoch from any valid position); 0 when the position is refused.
static int resume_loader(const ordo_train_state *st) {
    int32_t ids[100];
    for (int i = 0; i < 100; i++) ids[i] = i;
    ordo_dataset ds;
    ordo_dataloader dl;
    FUZZ_CHECK(ordo_dataset_init(&ds, ids, 100, 4, 1) == ORDO_OK);
    FUZZ_CHECK(ordo_dataloader_init(&dl, &ds, 3, 1, 7, 1) == ORDO_OK);
    ordo_status s = ordo_dataloader_set_state(&dl, st->loader);
    if (s) refused(s);
    for (int k = 0; !s && k < 40; k++) {
        int32_t in[12], tg[12];
        FUZZ_CHECK(ordo_dataloader_next(&dl, in, tg) == 3);
        for (int i = 0; i < 12; i++) FUZZ_CHECK(in[i] >= 0 && in[i] < 99 && tg[i] == in[i] + 1);
    }
    ordo_dataloader_free(&dl);
    return !s;
}

// What --resume does with the checkpoint at path: open it (checksums, state), the config
// (from_json + check), with build_model a model of that config (small ones only) loaded from
// its tensors, then the loader position. 0 accepted, 1 refused with a message.
enum { CKPT_DATA = 64 << 10, CKPT_MAX_PARAMS = 400000 };

// A model of config c, its vocabulary from the token table of f (a run's data is not at hand),
// loaded from f's tensors, when it has at most CKPT_MAX_PARAMS parameters.
static ordo_status load_small_model(ordo_safetensors *f, const ordo_train_config *c,
                                    const char *path) {
    const ordo_st_tensor *wte = ordo_safetensors_find(f, "wte.weight");
    if (!(wte && wte->ndim == 2 && wte->shape[0] >= 1 && wte->shape[0] <= 65536))
        return ordo_error(ORDO_ERR_FORMAT, "%s: no usable wte.weight", path);
    ordo_gpt_config g;
    ordo_status s = ordo_train_config_model(c, (int)wte->shape[0], &g);
    double params =
        (double)g.V * g.C + (double)g.T_max * g.C + (double)g.L * (12.0 * g.C * g.C + 13.0 * g.C);
    if (s || params > CKPT_MAX_PARAMS) return s;
    ordo_gpt m;
    memset(&m, 0, sizeof m);
    s = ordo_gpt_init(&m, &g, 0);
    if (!s) s = ordo_checkpoint_load(f, &m, NULL); // names, shapes, finiteness checked
    ordo_gpt_free(&m);
    return s;
}

static int resume_checkpoint(const char *path, int build_model) {
    ordo_safetensors *f;
    json_t *cj;
    ordo_train_state st;
    ordo_status s = ordo_checkpoint_open(path, &f, &cj, &st);
    if (s) {
        FUZZ_CHECK(!f && !cj);
        return refused(s);
    }
    FUZZ_CHECK(st.step >= 0 && st.optim_t >= 0);
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    s = ordo_train_config_from_json(&c, cj, path, 0, NULL);
    if (!s) s = ordo_train_config_check(&c);
    if (!s && build_model) s = load_small_model(f, &c, path);
    int ok = !s;
    if (s) refused(s);
    if (!resume_loader(&st)) ok = 0;
    json_decref(cj);
    ordo_safetensors_close(f);
    ordo_config_strings_free();
    return ok ? 0 : 1;
}

// ---- checkpoint metadata: "key=value" lines, written as the __metadata__ of a small file

int ordo_fuzz_checkpoint(const uint8_t *data, size_t size) {
    json_t *meta = json_object();
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        const char *eq = memchr(p, '=', (size_t)(e - p));
        if (eq) {
            json_t *v = json_stringn(eq + 1, (size_t)(e - eq - 1));
            // keys and values that are not UTF-8 cannot be in a JSON header: skip them
            if (v) json_object_setn_new(meta, p, (size_t)(eq - p), v);
        }
        p = nl ? nl + 1 : end;
    }
    json_t *hdr = json_pack("{s:o, s:{s:s, s:[i], s:[i,i]}}", "__metadata__", meta, "wte.weight",
                            "dtype", "F32", "shape", 1, "data_offsets", 0, 4);
    char *text = json_dumps(hdr, JSON_COMPACT);
    json_decref(hdr);
    if (!text) return 1; // a key with an embedded NUL: not representable
    size_t hn = strlen(text), total = 8 + hn + 4;
    unsigned char *file = calloc(1, total);
    FUZZ_CHECK(file);
    for (int i = 0; i < 8; i++) file[i] = (unsigned char)((uint64_t)hn >> (8 * i));
    memcpy(file + 8, text, hn);
    free(text);
    const char *path = as_file(file, total);
    free(file);

    return resume_checkpoint(path, 0);
}

// ---- a checkpoint's header as a whole: the input is the JSON header (the tensors' names,
// dtypes, shapes and data_offsets, and __metadata__ with the config and the training state)
// before a data section of zero bytes, as long as the header's tensors say (CKPT_DATA at most).
// ordo's two checksums, where the header has their keys, are set right over the input's digits, so
// that mutations reach what is read after them (the safetensors target checks the checksums
// themselves). Then what resume does: open, the config checked, a model of that config (small ones
// only) loaded from the tensors, the loader position restored.

// Writes the 16 hex digits of h after the first `key` in t[0..n), when they fit there.
static void set_digits(unsigned char *t, size_t n, const char *key, uint64_t h) {
    size_t k = strlen(key);
    for (size_t i = 0; i + k + 16 <= n; i++)
        if (memcmp(t + i, key, k) == 0) {
            char hex[17];
            ordo_hash_hex(h, hex);
            memcpy(t + i + k, hex, 16);
            return;
        }
}

// The end of the tensors' data the header describes (its largest data_offsets end), capped
// at CKPT_DATA; 0 when it does not parse: the file then has no data section.
static size_t data_extent(const uint8_t *data, size_t size) {
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    size_t end = 0;
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v) {
        json_int_t e = json_integer_value(json_array_get(json_object_get(v, "data_offsets"), 1));
        if (e > 0 && (size_t)e > end) end = (size_t)e;
    }
    json_decref(j);
    return end < CKPT_DATA ? end : CKPT_DATA;
}

int ordo_fuzz_ckpt_header(const uint8_t *data, size_t size) {
    if (size > (1 << 20)) return 1;
    size_t nd = data_extent(data, size), total = 8 + size + nd;
    unsigned char *file = calloc(1, total);
    FUZZ_CHECK(file);
    for (int i = 0; i < 8; i++) file[i] = (unsigned char)((uint64_t)size >> (8 * i));
    memcpy(file + 8, data, size);
    unsigned char *hdr = file + 8;
    set_digits(hdr, size, "\"" ORDO_ST_HASH_KEY "\":\"", ordo_hash64(hdr + size, nd));
    // the header's own: computed with its digits as sixteen '0' (safetensors.h)
    const char *hk = "\"" ORDO_ST_HEADER_HASH_KEY "\":\"";
    size_t k = strlen(hk);
    for (size_t i = 0; i + k + 16 <= size; i++)
        if (memcmp(hdr + i, hk, k) == 0) {
            memset(hdr + i + k, '0', 16);
            set_digits(hdr, size, hk, ordo_hash64(file, 8 + size));
            break;
        }
    const char *path = as_file(file, total);
    free(file);

    return resume_checkpoint(path, 1);
}

// ---- config: a --config JSON file

int ordo_fuzz_config(const uint8_t *data, size_t size) {
    json_error_t err;
    // as `ordo train --config` reads it
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &err);
    if (!j) return 1;
    ordo_train_config c;
    ordo_train_config_defaults(&c);
    ordo_status s = ordo_train_config_from_json(&c, j, "fuzz.json", 0, NULL);
    if (!s) s = ordo_train_config_check(&c);
    int ok = !s;
    if (s) {
        refused(s);
    } else {
        // an accepted config survives config.json / checkpoint metadata unchanged
        json_t *o = ordo_train_config_to_json(&c);
        char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
        FUZZ_CHECK(text);
        json_t *back = json_loads(text, JSON_REJECT_DUPLICATES, &err);
        FUZZ_CHECK(back);
        ordo_train_config d;
        ordo_train_config_defaults(&d);
        FUZZ_CHECK(ordo_train_config_from_json(&d, back, "round trip", 0, NULL) == ORDO_OK);
        FUZZ_CHECK(ordo_train_config_check(&d) == ORDO_OK);
        FUZZ_CHECK(ordo_train_config_compare(&c, &d) == ORDO_OK);
        free(text);
        json_decref(back);
        json_decref(o);
    }
    // the command-line path: flags given by the user are kept over the file's values
    ordo_train_config e;
    ordo_train_config_defaults(&e);
    ordo_opt *opts = ordo_train_config_options(&e);
    ordo_options_find(opts, "steps")->seen = 1;
    ordo_options_find(opts, "pos")->seen = 1;
    e.steps = 5;
    e.pos = "rope";
    s = ordo_train_config_from_json(&e, j, "fuzz.json", 1, opts);
    if (s)
        refused(s);
    else
        FUZZ_CHECK(e.steps == 5 && strcmp(e.pos, "rope") == 0);
    free(opts);
    json_decref(j);
    ordo_config_strings_free();
    return ok ? 0 : 1;
}

// ---- tokenizers

// decode(encode(text)) == text, every id in range, for both special-token modes.
static void check_roundtrip(ordo_tokenizer *t, const char *text, size_t len, int allow_special) {
    int32_t *ids;
    size_t n;
    FUZZ_CHECK(ordo_tokenizer_encode(t, text, len, allow_special, &ids, &n) == ORDO_OK);
    FUZZ_CHECK(ids != NULL);
    int V = ordo_tokenizer_vocab_size(t);
    for (size_t i = 0; i < n; i++) FUZZ_CHECK(ids[i] >= 0 && ids[i] < V);
    char *back;
    size_t blen;
    FUZZ_CHECK(ordo_tokenizer_decode(t, ids, n, &back, &blen) == ORDO_OK);
    FUZZ_CHECK(blen == len && memcmp(back, text, len) == 0 && back[blen] == 0);
    free(back);
    free(ids);
}

// input: byte 0 = vocab size - 257 (mod 64), then encoder.json, a NUL, then vocab.bpe
int ordo_fuzz_vocab(const uint8_t *data, size_t size) {
    if (size < 1) return 1;
    int V = 257 + data[0] % 64;
    const char *enc = (const char *)data + 1, *end = (const char *)data + size;
    const char *nul = memchr(enc, 0, (size_t)(end - enc));
    const char *merges = nul ? nul + 1 : end;
    ordo_tokenizer *t;
    ordo_status s =
        ordo_tokenizer_load_gpt2_mem(enc, (size_t)((nul ? nul : end) - enc), "encoder.json", merges,
                                     (size_t)(end - merges), "vocab.bpe", V, &t);
    if (s) {
        FUZZ_CHECK(!t);
        return refused(s);
    }
    FUZZ_CHECK(ordo_tokenizer_vocab_size(t) == V);
    static const char *texts[] = {
        "Hello world! It's 2024, isn't it?  \n\n  ok",
        "<|endoftext|>the cat<|endoftext|>",
        "\xff\xfe\x80 caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac 123456789 \t\t\t      x",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (int sp = 0; sp < 2; sp++) check_roundtrip(t, texts[i], strlen(texts[i]), sp);
    check_roundtrip(t, (const char *)data, size, 0); // the input itself, as text
    ordo_tokenizer_free(t);
    return 0;
}

static ordo_tokenizer *gpt2_tok(void) {
    static int tried;
    static ordo_tokenizer *t;
    if (!tried) {
        tried = 1;
        if (ordo_tokenizer_load(ORDO_TOK_GPT2, NULL, &t)) {
            fprintf(stderr, "fuzz: gpt2 tokenizer not available: %s\n", ordo_error_message());
            t = NULL;
        }
    }
    return t;
}

static ordo_tokenizer *byte_tok(void) {
    static ordo_tokenizer *t;
    if (!t) FUZZ_CHECK(ordo_tokenizer_load(ORDO_TOK_BYTE, NULL, &t) == ORDO_OK);
    return t;
}

int ordo_fuzz_have_gpt2(void) {
    return gpt2_tok() != NULL;
}

// input: byte 0 bit 0 = allow_special, the rest is the text
int ordo_fuzz_encode(const uint8_t *data, size_t size) {
    int sp = size ? data[0] & 1 : 0;
    const char *text = size ? (const char *)data + 1 : "";
    size_t len = size ? size - 1 : 0;
    check_roundtrip(byte_tok(), text, len, sp);
    if (gpt2_tok()) check_roundtrip(gpt2_tok(), text, len, sp);
    return 0;
}

// input: little-endian int32 ids (a trailing partial id is dropped)
int ordo_fuzz_decode(const uint8_t *data, size_t size) {
    size_t n = size / 4;
    int32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    FUZZ_CHECK(ids);
    if (n) memcpy(ids, data, n * 4);
    ordo_tokenizer *toks[2] = {byte_tok(), gpt2_tok()};
    int ok = 0;
    for (int k = 0; k < 2; k++) {
        ordo_tokenizer *t = toks[k];
        if (!t) continue;
        int V = ordo_tokenizer_vocab_size(t), bad = 0;
        for (size_t i = 0; i < n; i++) bad |= ids[i] < 0 || ids[i] >= V;
        char *text;
        size_t len;
        ordo_status s = ordo_tokenizer_decode(t, ids, n, &text, &len);
        if (bad) {
            FUZZ_CHECK(!text);
            refused(s);
            continue;
        }
        FUZZ_CHECK(s == ORDO_OK && text && text[len] == 0);
        // the whole is the concatenation of the parts
        size_t at = 0;
        for (size_t i = 0; i < n && i < 64; i++) {
            char *one;
            size_t olen;
            FUZZ_CHECK(ordo_tokenizer_decode(t, &ids[i], 1, &one, &olen) == ORDO_OK);
            FUZZ_CHECK(at + olen <= len && memcmp(text + at, one, olen) == 0);
            at += olen;
            free(one);
        }
        FUZZ_CHECK(n > 64 || at == len);
        // and whatever it decodes to encodes back to the same bytes
        check_roundtrip(t, text, len, 1);
        free(text);
        ok = 1;
    }
    free(ids);
    return ok ? 0 : 1;
}

// ---- token files: the raw file, as `ordo train --data FILE.bin` maps it

int ordo_fuzz_tokfile(const uint8_t *data, size_t size) {
    const char *path = as_file(data, size);
    int magic = size >= 8 && memcmp(data, ORDO_TOKFILE_MAGIC, 8) == 0, is_tokfile = -1;
    FUZZ_CHECK(ordo_tokfile_probe(path, &is_tokfile) == ORDO_OK && is_tokfile == magic);
    ordo_tokfile_header h;
    ordo_status hs = ordo_tokfile_read_header(path, &h);
    if (hs) refused(hs);
    ordo_tokfile f;
    ordo_status s = ordo_tokfile_open(path, &f);
    if (s) {
        FUZZ_CHECK(!f.ids && !f.map.data);
        return refused(s);
    }
    // accepted: the header alone was fine too, and everything it promises holds
    FUZZ_CHECK(hs == ORDO_OK && h.version == f.h.version && h.width == f.h.width &&
               h.vocab_size == f.h.vocab_size && h.count == f.h.count && h.hash == f.h.hash &&
               strcmp(h.tokenizer, f.h.tokenizer) == 0);
    FUZZ_CHECK(f.h.count >= 1 && (int)f.h.width == ordo_tokfile_width((int)f.h.vocab_size));
    FUZZ_CHECK(f.file_bytes == size && ORDO_TOKFILE_HEADER + f.h.count * f.h.width == size);
    FUZZ_CHECK(ordo_hash64(data + ORDO_TOKFILE_HEADER, size - ORDO_TOKFILE_HEADER) == f.h.hash);
    for (uint64_t i = 0; i < f.h.count; i++) {
        uint32_t id = f.h.width == 2 ? ((const uint16_t *)f.ids)[i] : ((const uint32_t *)f.ids)[i];
        FUZZ_CHECK(id < f.h.vocab_size);
    }
    ordo_tokfile_close(&f);
    return 0;
}

// ---- forward: a model whose weights are finite but overflow in the forward pass
//
// What `ordo eval`, `sample` and a resumed training step do with a checkpoint whose weights
// are finite (the loader refuses others) but large enough that attention scores, the
// residual stream or the logits overflow: every scheme must finish with a loss that is a
// number or inf/NaN (which eval and train then report), or refuse with a message; never
// crash. No scheme may use an overflowed or NaN value as an index (CoPE once did). Input:
//   byte 0  the scheme (mod the number of schemes)
//   byte 1  bit 0: the materialized attention (else fused); bits 1-2: T = 3, 16, 37 or 64;
//           bit 3: sliding windows (else nonoverlap)
//   bytes 2-7  the scale of each kind of parameter, 2^(b % 128 - 40): the embeddings, the
//           layernorms, attention's c_attn, attention's c_proj, the MLP, and the rest (the
//           scheme's own parameters, an untied head); a kind past the input keeps its init
//   byte 8+k  a further factor 2^(b % 64 - 32) for parameter k alone
// Values that would overflow a float are clamped to +-FLT_MAX. (A large layernorm gain and
// c_attn make the scores overflow; scaling everything makes the residual stream's variance
// inf, and layernorm then outputs its bias: a finite, uniform model.)

// The kind of parameter `name` for the forward target's scales (bytes 2-7).
static int param_kind(const char *name) {
    if (strncmp(name, "wte.", 4) == 0 || strncmp(name, "wpe.", 4) == 0) return 0;
    if (strstr(name, ".ln_") || strncmp(name, "ln_f.", 5) == 0) return 1;
    if (strstr(name, ".attn.c_attn.")) return 2;
    if (strstr(name, ".attn.c_proj.")) return 3;
    if (strstr(name, ".mlp.")) return 4;
    return 5;
}

enum { FWD_V = 16, FWD_C = 16, FWD_L = 2, FWD_NH = 2, FWD_TMAX = 64 };

int ordo_fuzz_forward(const uint8_t *data, size_t size) {
    if (size < 2) return 1;
    static const int Ts[4] = {3, 16, 37, 64};
    ordo_pos pos = (ordo_pos)(data[0] % ORDO_POS_COUNT);
    int T = Ts[(data[1] >> 1) & 3];
    ordo_gpt_config cfg = {.V = FWD_V,
                           .C = FWD_C,
                           .L = FWD_L,
                           .NH = FWD_NH,
                           .T_max = FWD_TMAX,
                           .pos = pos,
                           .ln_eps = 1e-5f};
    ordo_gpt m;
    FUZZ_CHECK(ordo_gpt_init(&m, &cfg, 5) == ORDO_OK);
    m.attention = data[1] & 1 ? ORDO_ATTN_MATERIALIZED : ORDO_ATTN_FUSED;
    for (int k = 0; k < m.params.count; k++) {
        ordo_tensor *t = m.params.t[k];
        size_t at = 2 + (size_t)param_kind(t->name);
        int e = at < size ? (int)(data[at] % 128) - 40 : 0;
        if (8 + (size_t)k < size) e += (int)(data[8 + k] % 64) - 32;
        float s = ldexpf(1.0f, e);
        for (size_t i = 0; i < t->n; i++)
            t->data[i] = fmaxf(-FLT_MAX, fminf(FLT_MAX, t->data[i] * s));
    }
    ordo_gpt_refresh_bf16(&m);

    // eval's loop: windows of T over a stream, the loss by position
    enum { N = 3 * FWD_TMAX + 1 };
    int32_t ids[N];
    for (int i = 0; i < N; i++) ids[i] = (int32_t)((i * 7 + 3) % FWD_V);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_eval_result r;
    ordo_eval_mode mode = data[1] & 8 ? ORDO_EVAL_SLIDING : ORDO_EVAL_NONOVERLAP;
    int stride = mode == ORDO_EVAL_SLIDING ? (T + 3) / 4 : 0;
    ordo_status s = ordo_eval_stream(&m, &ctx, ids, NULL, N, T, mode, stride, 2, 0, NULL, &r);
    int ok = !s;
    if (s) {
        refused(s);
    } else {
        size_t counted = 0;
        for (int t = 0; t < T; t++) counted += r.pos_count[t];
        FUZZ_CHECK(counted == r.targets && r.targets > 0);
        ordo_eval_result_free(&r);
    }

    // a training step's forward and backward, and sample's logits: a next token in 0..V-1
    ordo_ctx_reset(&ctx);
    ordo_tensor *logits = NULL, *loss = NULL;
    s = ordo_gpt_forward(&m, &ctx, ids, ids + 1, 2, T, &logits, &loss);
    if (s) {
        ok = 0;
        refused(s);
    } else {
        ordo_backward(&ctx, loss);
        int best = 0;
        const float *last = logits->data + (size_t)(T - 1) * FWD_V;
        for (int v = 1; v < FWD_V; v++)
            if (last[v] > last[best]) best = v;
        FUZZ_CHECK(best >= 0 && best < FWD_V);
    }
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    return ok ? 0 : 1;
}
