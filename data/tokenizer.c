// Tokenizer front end: the byte tokenizer, loading and checking the GPT-2 vocab files
// (encoder.json through jansson, vocab.bpe line by line), special-token splitting, decode.
// The BPE encoding itself is in bpe.c.
//
// Deliberately not here: checksums of the vocab files (data/fetch.sh verifies them when it
// fetches; the loader checks structure and consistency, which catches truncation and
// corruption with a message that says where), other encodings (r50k/p50k/cl100k), and
// special tokens other than <|endoftext|>.
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/bpe.h"
#include "sys/fileio.h"

#define ENDOFTEXT_TEXT "<|endoftext|>"
// GPT-2's encoder.json is 1.0 MB and vocab.bpe 0.45 MB; anything past this is not a vocab.
#define VOCAB_FILE_MAX ((size_t)64 << 20)

ORDO_NAMES_ENUM(ordo_tokenizer_kind, ordo_tokenizer_parse_kind, ordo_tokenizer_kind_name,
                ordo_tokenizer_kind_names, "tokenizer", ORDO_TOK_GPT2 + 1, "byte", "gpt2");

static int file_exists(const char *path) {
    return access(path, R_OK) == 0;
}

ordo_status ordo_tokenizer_default_vocab_dir(char *buf, size_t cap) {
    const char *env = getenv("ORDO_VOCAB_DIR");
    if (env && *env) return ordo_path(buf, cap, "%s", env);
    char exe[ORDO_PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    // k == sizeof exe - 1 may be a truncated name: then, as without /proc, no guess from it
    if (k > 0 && (size_t)k < sizeof exe - 1) {
        exe[k] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            // a directory whose name does not fit cannot hold encoder.json for us either
            char dir[ORDO_PATH_MAX], probe[ORDO_PATH_MAX];
            if (!ordo_path(dir, sizeof dir, "%s/../.cache/gpt2", exe) &&
                !ordo_path(probe, sizeof probe, "%s/encoder.json", dir) && file_exists(probe))
                return ordo_path(buf, cap, "%s", dir);
        }
    }
    return ordo_path(buf, cap, "./.cache/gpt2");
}

int ordo_tokenizer_vocab_size(const ordo_tokenizer *t) {
    return t->vocab_size;
}

int ordo_tokenizer_kind_vocab_size(ordo_tokenizer_kind kind) {
    return kind == ORDO_TOK_GPT2 ? ORDO_GPT2_VOCAB_SIZE : 256;
}

// Reads a whole vocab file: a regular file of bounded size (a FIFO named encoder.json would
// block forever and /dev/zero never end); *data is malloc'd and NUL-terminated.
static ordo_status read_file(const char *path, char **data, size_t *len) {
    if (access(path, F_OK) != 0 && errno == ENOENT)
        // eval and sample take no --vocab: the variable is their way to another folder
        return ordo_error(ORDO_ERR_IO,
                          "%s: %s (run data/fetch.sh vocab, or pass --vocab DIR or set "
                          "ORDO_VOCAB_DIR to a folder that holds it)",
                          path, strerror(ENOENT));
    return ordo_read_regular_file(path, VOCAB_FILE_MAX, data, len);
}

// GPT-2's bytes_to_unicode, inverted: code point -> byte, -1 for code points it never uses.
// Printable Latin-1 bytes stand for themselves; the other 68 bytes map to U+0100.. in order.
static void byte_decoder(int16_t dec[324]) {
    for (int i = 0; i < 324; i++) dec[i] = -1;
    int extra = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        dec[printable ? b : 256 + extra++] = (int16_t)b;
    }
}

// Decodes a byte-level key ("Ġthe") into raw bytes; returns the length or -1 when the key
// holds a character outside GPT-2's byte alphabet.
static long decode_key(const int16_t dec[324], const char *key, size_t klen, uint8_t *out) {
    const uint8_t *s = (const uint8_t *)key;
    long n = 0;
    for (size_t i = 0; i < klen;) {
        uint32_t cp;
        if (s[i] < 0x80) {
            cp = s[i++];
        } else if ((s[i] & 0xE0) == 0xC0 && i + 1 < klen) {
            cp = (uint32_t)(s[i] & 0x1F) << 6 | (s[i + 1] & 0x3F);
            i += 2;
        } else {
            return -1; // 3+ byte sequences are beyond U+0143
        }
        if (cp >= 324 || dec[cp] < 0) return -1;
        out[n++] = (uint8_t)dec[cp];
    }
    return n;
}

// Parses encoder.json (data[0..len), `path` names it in messages) into t's token table.
static ordo_status load_encoder(ordo_tokenizer *t, const char *path, const char *data, size_t len,
                                const int16_t dec[324]) {
    json_error_t jerr;
    json_t *root = json_loadb(data, len, 0, &jerr);
    if (!root)
        return ordo_error(ORDO_ERR_FORMAT, "%s: not valid JSON (line %d, column %d: %s)", path,
                          jerr.line, jerr.column, jerr.text);
    ordo_status s = ORDO_OK;
    const int V = t->vocab_size;
    const char **keys = NULL;
    size_t *klens = NULL;
    if (!json_is_object(root)) {
        s = ordo_error(ORDO_ERR_FORMAT, "%s: expected a JSON object of token -> id", path);
        goto done;
    }
    if (json_object_size(root) != (size_t)V) {
        s = ordo_error(ORDO_ERR_FORMAT, "%s: %zu entries, expected %d (GPT-2's vocabulary)", path,
                       json_object_size(root), V);
        goto done;
    }
    keys = ordo_xcalloc(V, sizeof *keys);
    klens = ordo_xcalloc(V, sizeof *klens);
    const char *key;
    json_t *val;
    size_t total = 0;
    json_object_foreach(root, key, val) {
        json_int_t id = json_is_integer(val) ? json_integer_value(val) : -1;
        if (id < 0 || id >= V) {
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: token \"%s\" has id %s, expected an integer "
                           "in 0..%d",
                           path, key, json_is_integer(val) ? "out of range" : "not an integer",
                           V - 1);
            goto done;
        }
        if (keys[id]) {
            s = ordo_error(ORDO_ERR_FORMAT, "%s: id %d is given to both \"%s\" and \"%s\"", path,
                           (int)id, keys[id], key);
            goto done;
        }
        keys[id] = key;
        klens[id] = strlen(key);
        total += klens[id];
    }
    if (strcmp(keys[V - 1], ENDOFTEXT_TEXT) != 0) {
        s = ordo_error(ORDO_ERR_FORMAT, "%s: id %d is \"%s\", expected \"%s\"", path, V - 1,
                       keys[V - 1], ENDOFTEXT_TEXT);
        goto done;
    }
    t->bytes = ordo_xmalloc(total + 1);
    t->off = ordo_xmalloc((V + 1) * sizeof *t->off);
    uint32_t pos = 0;
    for (int id = 0; id < V; id++) {
        t->off[id] = pos;
        long n;
        if (id == V - 1) {
            n = (long)klens[id];
            memcpy(t->bytes + pos, keys[id], klens[id]);
        } else {
            n = decode_key(dec, keys[id], klens[id], t->bytes + pos);
        }
        if (n <= 0) {
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: token \"%s\" (id %d) is not in GPT-2's "
                           "byte-level alphabet",
                           path, keys[id], id);
            goto done;
        }
        pos += (uint32_t)n;
    }
    t->off[V] = pos;
    for (int b = 0; b < 256; b++) t->byte_id[b] = -1;
    size_t cap = 1;
    while (cap < 2 * (size_t)V) cap <<= 1;
    t->vocab_mask = cap - 1;
    t->vocab_slots = ordo_xcalloc(cap, sizeof *t->vocab_slots);
    for (int id = 0; id < V - 1; id++) {
        const uint8_t *p = t->bytes + t->off[id];
        size_t n = t->off[id + 1] - t->off[id];
        if (n == 1) t->byte_id[p[0]] = id;
        size_t i = ordo_bpe_hash(p, n) & t->vocab_mask;
        while (t->vocab_slots[i]) i = (i + 1) & t->vocab_mask;
        t->vocab_slots[i] = id + 1;
    }
    for (int b = 0; b < 256; b++)
        if (t->byte_id[b] < 0) {
            s = ordo_error(ORDO_ERR_FORMAT, "%s: no token for the single byte 0x%02x", path, b);
            goto done;
        }
done:
    free(keys);
    free(klens);
    json_decref(root);
    return s;
}

// Checks vocab.bpe against encoder.json: merge i ("a b" on line i+2) must join two tokens
// into the token with id 256 + i, which is how GPT-2's ids (and tiktoken's ranks) are made.
static ordo_status check_merges(const ordo_tokenizer *t, const char *path, const char *data,
                                size_t len, const int16_t dec[324]) {
    ordo_status s = ORDO_OK;
    const int want = t->vocab_size - 256 - 1;
    uint8_t a[512], b[512];
    int merges = 0, line = 0;
    const char *p = data, *end = data + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        line++;
        size_t n = (size_t)(e - p);
        if (n && p[n - 1] == '\r') n--;
        if (line == 1 && n >= 8 && memcmp(p, "#version", 8) == 0) goto next;
        if (n == 0) goto next;
        const char *sp = memchr(p, ' ', n);
        if (!sp || sp == p || sp == p + n - 1 || memchr(sp + 1, ' ', n - (size_t)(sp + 1 - p))) {
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: line %d: expected two tokens separated by "
                           "one space, got \"%.*s\"",
                           path, line, (int)(n < 80 ? n : 80), p);
            goto done;
        }
        size_t la = (size_t)(sp - p), lb = n - la - 1;
        long na = la < 256 ? decode_key(dec, p, la, a) : -1;
        long nb = lb < 256 ? decode_key(dec, sp + 1, lb, b) : -1;
        if (na <= 0 || nb <= 0) {
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: line %d: \"%.*s\" is not in GPT-2's byte-level "
                           "alphabet",
                           path, line, (int)(n < 80 ? n : 80), p);
            goto done;
        }
        memcpy(a + na, b, (size_t)nb);
        int32_t id = ordo_bpe_lookup(t, a, (size_t)(na + nb));
        if (id != 256 + merges) {
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: line %d: merge \"%.*s\" makes %s%d, expected "
                           "id %d (vocab.bpe and encoder.json do not belong together)",
                           path, line, (int)n, p, id < 0 ? "no token in encoder.json, " : "id ",
                           id < 0 ? 0 : id, 256 + merges);
            goto done;
        }
        merges++;
    next:
        p = nl ? nl + 1 : end;
    }
    if (merges != want)
        s = ordo_error(ORDO_ERR_FORMAT, "%s: %d merges, expected %d (truncated file?)", path,
                       merges, want);
done:
    return s;
}

ordo_status ordo_tokenizer_load(ordo_tokenizer_kind kind, const char *vocab_dir,
                                ordo_tokenizer **out) {
    *out = NULL;
    if (kind == ORDO_TOK_BYTE) {
        ordo_tokenizer *t = ordo_xcalloc(1, sizeof *t);
        t->kind = kind;
        t->vocab_size = 256;
        *out = t;
        return ORDO_OK;
    }
    if (kind != ORDO_TOK_GPT2)
        return ordo_error(ORDO_ERR_ARG, "unknown tokenizer kind %d", (int)kind);
    char dirbuf[ORDO_PATH_MAX], enc[ORDO_PATH_MAX], merges[ORDO_PATH_MAX];
    const char *dir = vocab_dir ? vocab_dir : dirbuf;
    ordo_status s = vocab_dir ? ORDO_OK : ordo_tokenizer_default_vocab_dir(dirbuf, sizeof dirbuf);
    if (!s) s = ordo_path(enc, sizeof enc, "%s/encoder.json", dir);
    if (!s) s = ordo_path(merges, sizeof merges, "%s/vocab.bpe", dir);
    if (s) return ordo_error_wrap(s, "gpt2 tokenizer");
    char *edata = NULL, *mdata = NULL;
    size_t elen = 0, mlen = 0;
    s = read_file(enc, &edata, &elen);
    if (!s) s = read_file(merges, &mdata, &mlen);
    if (!s)
        s = ordo_tokenizer_load_gpt2_mem(edata, elen, enc, mdata, mlen, merges,
                                         ORDO_GPT2_VOCAB_SIZE, out);
    else
        s = ordo_error_wrap(s, "gpt2 tokenizer");
    free(edata);
    free(mdata);
    return s;
}

ordo_status ordo_tokenizer_load_gpt2_mem(const char *encoder, size_t elen, const char *enc_name,
                                         const char *merges, size_t mlen, const char *merges_name,
                                         int vocab_size, ordo_tokenizer **out) {
    *out = NULL;
    if (vocab_size < 257 || vocab_size > ORDO_GPT2_VOCAB_SIZE)
        return ordo_error(ORDO_ERR_ARG, "gpt2 tokenizer: vocab size %d, expected 257..%d",
                          vocab_size, ORDO_GPT2_VOCAB_SIZE);
    ordo_tokenizer *t = ordo_xcalloc(1, sizeof *t);
    t->kind = ORDO_TOK_GPT2;
    t->vocab_size = vocab_size;
    int16_t dec[324];
    byte_decoder(dec);
    ordo_status s = load_encoder(t, enc_name, encoder, elen, dec);
    if (!s) s = check_merges(t, merges_name, merges, mlen, dec);
    if (!s) s = ordo_bpe_prepare(t);
    if (s) {
        ordo_tokenizer_free(t);
        return ordo_error_wrap(s, "gpt2 tokenizer");
    }
    *out = t;
    return ORDO_OK;
}

void ordo_tokenizer_free(ordo_tokenizer *t) {
    if (!t) return;
    if (t->kind == ORDO_TOK_GPT2) ordo_bpe_release(t);
    free(t->bytes);
    free(t->off);
    free(t->vocab_slots);
    free(t);
}

ordo_status ordo_tokenizer_encode(ordo_tokenizer *t, const char *text, size_t len,
                                  int allow_special, int32_t **ids, size_t *n) {
    *ids = NULL;
    *n = 0;
    if (len > (size_t)INT32_MAX)
        return ordo_error(ORDO_ERR_ARG,
                          "text of %zu bytes is too long to encode at once "
                          "(at most %d; split it)",
                          len, INT32_MAX);
    if (t->kind == ORDO_TOK_BYTE) {
        int32_t *out = ordo_xmalloc((len ? len : 1) * sizeof *out);
        for (size_t i = 0; i < len; i++) out[i] = (uint8_t)text[i];
        *ids = out;
        *n = len;
        return ORDO_OK;
    }
    size_t cap = len / 3 + 16, cnt = 0;
    int32_t *out = ordo_xmalloc(cap * sizeof *out);
    const uint8_t *p = (const uint8_t *)text, *end = p + len;
    const size_t slen = sizeof ENDOFTEXT_TEXT - 1;
    while (p < end) {
        const uint8_t *sp =
            allow_special ? memmem(p, (size_t)(end - p), ENDOFTEXT_TEXT, slen) : NULL;
        const uint8_t *stop = sp ? sp : end;
        ordo_status s = ordo_bpe_encode(t, p, (size_t)(stop - p), &out, &cnt, &cap);
        if (s) {
            free(out);
            return s;
        }
        if (!sp) break;
        int32_t eot = t->vocab_size - 1; // ORDO_GPT2_ENDOFTEXT for the real vocab
        if (cnt == cap) out = ordo_xrealloc(out, (cap *= 2) * sizeof *out);
        out[cnt++] = eot;
        p = sp + slen;
    }
    *ids = out;
    *n = cnt;
    return ORDO_OK;
}

size_t ordo_tokenizer_safe_cut(const ordo_tokenizer *t, const char *text, size_t len) {
    if (t->kind == ORDO_TOK_BYTE) return len; // one id per byte: any point will do
    return ordo_bpe_safe_cut((const uint8_t *)text, len);
}

// The most ordo_tokenizer_encode takes at once, so the most a piece may be.
#define PIECE_MAX ((size_t)INT32_MAX)

ordo_status ordo_tokenizer_encode_fd(ordo_tokenizer *t, int fd, const char *name, size_t chunk,
                                     int allow_special, ordo_ids_sink sink, void *ctx,
                                     uint64_t *bytes) {
    *bytes = 0;
    ORDO_ASSERT(chunk > 0);
    size_t cap = chunk < PIECE_MAX ? chunk : PIECE_MAX, have = 0;
    char *buf = ordo_xmalloc(cap);
    ordo_status s = ORDO_OK;
    int eof = 0;
    while (!s && (!eof || have > 0)) {
        while (!eof && have < cap) {
            ssize_t r = read(fd, buf + have, cap - have);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                s = ordo_error(ORDO_ERR_IO, "%s: read failed: %s", name, strerror(errno));
                break;
            }
            if (r == 0) eof = 1;
            have += (size_t)r;
            *bytes += (uint64_t)r;
        }
        if (s || have == 0) break; // (the input ended right after the last piece)
        size_t cut = eof ? have : ordo_tokenizer_safe_cut(t, buf, have);
        if (cut == 0) { // no safe point anywhere in the buffer: read on with a larger one
            if (cap >= PIECE_MAX) {
                s = ordo_error(ORDO_ERR_ARG,
                               "%s: %zu bytes in a row without a point where the text can be "
                               "split (ASCII whitespace after a non-space, or a letter next to "
                               "a digit); too long to tokenize",
                               name, cap);
                break;
            }
            cap = cap < PIECE_MAX / 2 ? 2 * cap : PIECE_MAX;
            buf = ordo_xrealloc(buf, cap);
            continue;
        }
        int32_t *ids;
        size_t n;
        s = ordo_tokenizer_encode(t, buf, cut, allow_special, &ids, &n);
        if (s) {
            s = ordo_error_wrap(s, "%s", name);
            break;
        }
        s = sink(ctx, ids, n);
        free(ids);
        memmove(buf, buf + cut, have - cut);
        have -= cut;
    }
    free(buf);
    return s;
}

ordo_status ordo_tokenizer_decode(const ordo_tokenizer *t, const int32_t *ids, size_t n,
                                  char **text, size_t *len) {
    *text = NULL;
    *len = 0;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= t->vocab_size)
            return ordo_error(ORDO_ERR_ARG,
                              "token id %d (at index %zu) is not in the %s "
                              "vocabulary (valid ids: 0..%d)",
                              (int)ids[i], i, ordo_tokenizer_kind_name(t->kind), t->vocab_size - 1);
        total += t->kind == ORDO_TOK_BYTE ? 1 : t->off[ids[i] + 1] - t->off[ids[i]];
    }
    char *out = ordo_xmalloc(total + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (t->kind == ORDO_TOK_BYTE) {
            out[k++] = (char)ids[i];
        } else {
            size_t m = t->off[ids[i] + 1] - t->off[ids[i]];
            memcpy(out + k, t->bytes + t->off[ids[i]], m);
            k += m;
        }
    }
    out[k] = 0;
    *text = out;
    *len = k;
    return ORDO_OK;
}
