// GPT-2 byte-level BPE encoding, as tiktoken does it: split the text into pre-tokens with
// the GPT-2 pattern (PCRE2, UTF mode, JIT), then merge each pre-token's bytes, lowest rank
// first (leftmost on ties), where a pair's rank is the id of the token its concatenation
// makes. Pre-tokens seen before come from a word cache.
//
// Deliberately not here: special tokens (tokenizer.c splits them out first), loading the
// vocab files (tokenizer.c), thread safety (the match data and cache are per tokenizer).
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "data/bpe.h"
#include "data/bpe_unicode.h"

// tiktoken's gpt2 pattern,
//   '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with `\s` written out as Unicode White_Space (what Rust's regex means by `\s`), and the
// letters and numbers that tiktoken's newer Unicode has beyond PCRE2's added to the classes
// (bpe_unicode.h).
#define WS                                                                                         \
    "\\t\\n\\x{0B}\\f\\r "                                                                         \
    "\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
#define LET "a-zA-Z\\p{L}" ORDO_BPE_EXTRA_L // (ASCII listed first: a faster JIT path)
#define NUM "0-9\\p{N}" ORDO_BPE_EXTRA_N
static const char gpt2_pattern[] = "'s|'t|'re|'ve|'m|'ll|'d| ?[" LET "]+| ?[" NUM
                                   "]+| ?[^" WS LET NUM "]+|[" WS "]+(?![^" WS "])|[" WS "]+";

enum {
    CACHE_SLOTS = 1 << 16,   // entries; cleared when half full
    CACHE_MAX_KEY = 64,      // longer pieces are not cached
    CACHE_KEY_BUF = 1 << 21, // bytes of cached keys
    CACHE_IDS_BUF = 1 << 19, // ids of cached values
    SMALL_PIECE = 96,        // up to this many bytes: O(n^2) merge on the stack
    JIT_STACK_MAX = 8 << 20, // long whitespace runs backtrack through the JIT stack
};

uint64_t ordo_bpe_hash(const uint8_t *p, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xff51afd7ed558ccdULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

int32_t ordo_bpe_lookup(const ordo_tokenizer *t, const uint8_t *p, size_t n) {
    for (size_t i = ordo_bpe_hash(p, n) & t->vocab_mask;; i = (i + 1) & t->vocab_mask) {
        int32_t s = t->vocab_slots[i];
        if (s == 0) return -1;
        int32_t id = s - 1;
        if (t->off[id + 1] - t->off[id] == n && memcmp(t->bytes + t->off[id], p, n) == 0) return id;
    }
}

// Ids are below 2^31, so a + 1 keeps the key nonzero (0 marks an empty slot).
static inline uint64_t pair_key(int32_t a, int32_t b) {
    return ((uint64_t)(uint32_t)a + 1) << 32 | (uint32_t)b;
}

static inline size_t pair_slot(uint64_t key, size_t mask) {
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask;
}

// The merged id of (a, b), or INT32_MAX when their concatenation is not a token.
static inline int32_t pair_rank(const ordo_tokenizer *t, int32_t a, int32_t b) {
    uint64_t key = pair_key(a, b);
    for (size_t i = pair_slot(key, t->pair_mask);; i = (i + 1) & t->pair_mask) {
        uint64_t k = t->pair_keys[i];
        if (k == key) return t->pair_vals[i];
        if (k == 0) return INT32_MAX;
    }
}

static void pair_insert(ordo_tokenizer *t, int32_t a, int32_t b, int32_t merged) {
    uint64_t key = pair_key(a, b);
    size_t i = pair_slot(key, t->pair_mask);
    while (t->pair_keys[i] != 0 && t->pair_keys[i] != key) i = (i + 1) & t->pair_mask;
    t->pair_keys[i] = key;
    t->pair_vals[i] = merged;
}

ordo_status ordo_bpe_prepare(ordo_tokenizer *t) {
    // Every split of every token into two tokens is a pair that merges into it.
    size_t npairs = 0;
    int nord = t->vocab_size - 1; // the last id is the special token
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            size_t cap = 1;
            while (cap < 2 * npairs + 16) cap <<= 1;
            t->pair_mask = cap - 1;
            t->pair_keys = ordo_xcalloc(cap, sizeof *t->pair_keys);
            t->pair_vals = ordo_xcalloc(cap, sizeof *t->pair_vals);
        }
        for (int id = 0; id < nord; id++) {
            const uint8_t *p = t->bytes + t->off[id];
            size_t n = t->off[id + 1] - t->off[id];
            for (size_t k = 1; k < n; k++) {
                int32_t a = ordo_bpe_lookup(t, p, k);
                if (a < 0) continue;
                int32_t b = ordo_bpe_lookup(t, p + k, n - k);
                if (b < 0) continue;
                if (pass == 0)
                    npairs++;
                else
                    pair_insert(t, a, b, id);
            }
        }
    }

    int err;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)gpt2_pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &erroff, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        return ordo_error(ORDO_ERR_STATE, "gpt2 pre-tokenizer pattern: pcre2: %s at offset %zu",
                          (const char *)msg, (size_t)erroff);
    }
    t->re = re;
    t->match_data = pcre2_match_data_create_from_pattern(re, NULL);
    t->jit = pcre2_jit_compile(re, PCRE2_JIT_COMPLETE) == 0;
    if (t->jit) {
        t->jit_stack = pcre2_jit_stack_create(32 << 10, JIT_STACK_MAX, NULL);
        t->mcontext = pcre2_match_context_create(NULL);
        if (!t->match_data || !t->jit_stack || !t->mcontext)
            return ordo_error(ORDO_ERR_NOMEM, "gpt2 pre-tokenizer: pcre2 allocation failed");
        pcre2_jit_stack_assign(t->mcontext, NULL, t->jit_stack);
    } else if (!t->match_data) {
        return ordo_error(ORDO_ERR_NOMEM, "gpt2 pre-tokenizer: pcre2 allocation failed");
    }
    return ORDO_OK;
}

void ordo_bpe_release(ordo_tokenizer *t) {
    free(t->pair_keys);
    free(t->pair_vals);
    pcre2_match_data_free(t->match_data);
    pcre2_match_context_free(t->mcontext);
    pcre2_jit_stack_free(t->jit_stack);
    pcre2_code_free(t->re);
    free(t->cache);
    free(t->key_buf);
    free(t->ids_buf);
}

static inline void push_ids(int32_t **ids, size_t *n, size_t *cap, const int32_t *src, size_t k) {
    if (*n + k > *cap) {
        size_t c = *cap ? *cap : 64;
        while (c < *n + k) c *= 2;
        *ids = ordo_xrealloc(*ids, c * sizeof **ids);
        *cap = c;
    }
    memcpy(*ids + *n, src, k * sizeof *src);
    *n += k;
}

// O(n^2) merge for short pieces: find the lowest rank, merge, repeat. Returns the number
// of ids written to out (the merged parts, in order).
static size_t merge_small(const ordo_tokenizer *t, const uint8_t *p, size_t n, int32_t *out) {
    int32_t rank[SMALL_PIECE];
    for (size_t i = 0; i < n; i++) out[i] = t->byte_id[p[i]];
    for (size_t i = 0; i + 1 < n; i++) rank[i] = pair_rank(t, out[i], out[i + 1]);
    size_t m = n;
    while (m > 1) {
        int32_t best = INT32_MAX;
        size_t bi = 0;
        for (size_t i = 0; i + 1 < m; i++)
            if (rank[i] < best) best = rank[i], bi = i;
        if (best == INT32_MAX) break;
        out[bi] = best;
        // drop part bi+1 and pair rank bi+1 (the pair (bi+1, bi+2) now starts at bi)
        memmove(out + bi + 1, out + bi + 2, (m - bi - 2) * sizeof *out);
        if (m >= bi + 3) memmove(rank + bi + 1, rank + bi + 2, (m - bi - 3) * sizeof *rank);
        m--;
        if (bi + 1 < m) rank[bi] = pair_rank(t, out[bi], out[bi + 1]);
        if (bi > 0) rank[bi - 1] = pair_rank(t, out[bi - 1], out[bi]);
    }
    return m;
}

// O(n log n) merge for long pieces (long runs of spaces, digits, base64...): the parts are
// a linked list over byte positions, candidate pairs sit in a min-heap keyed by
// (rank, position), so the pop order is tiktoken's "lowest rank, leftmost". Stale entries
// (a part merged away, or its pair's rank changed) are skipped when popped.
static void heap_push(uint64_t *h, size_t *hn, uint64_t v) {
    size_t i = (*hn)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (h[parent] <= v) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = v;
}

static uint64_t heap_pop(uint64_t *h, size_t *hn) {
    uint64_t top = h[0], v = h[--(*hn)];
    size_t i = 0, n = *hn;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1] < h[c]) c++;
        if (v <= h[c]) break;
        h[i] = h[c];
        i = c;
    }
    if (n) h[i] = v;
    return top;
}

static void merge_large(const ordo_tokenizer *t, const uint8_t *p, size_t n, int32_t **ids,
                        size_t *nids, size_t *cap) {
    int32_t *part = ordo_xmalloc(n * sizeof *part);
    int32_t *rank = ordo_xmalloc(n * sizeof *rank); // rank of the pair starting at i
    uint32_t *next = ordo_xmalloc(n * sizeof *next), *prev = ordo_xmalloc(n * sizeof *prev);
    uint64_t *heap = ordo_xmalloc(2 * n * sizeof *heap); // n initial + at most 2 per merge
    size_t hn = 0;
    const uint32_t END = (uint32_t)n, NONE = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        part[i] = t->byte_id[p[i]];
        next[i] = (uint32_t)(i + 1);
        prev[i] = i ? (uint32_t)(i - 1) : NONE;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        rank[i] = pair_rank(t, part[i], part[i + 1]);
        if (rank[i] != INT32_MAX) heap_push(heap, &hn, (uint64_t)rank[i] << 32 | i);
    }
    rank[n - 1] = INT32_MAX;
    while (hn) {
        uint64_t e = heap_pop(heap, &hn);
        uint32_t i = (uint32_t)e, r = (uint32_t)(e >> 32);
        if (part[i] < 0 || (uint32_t)rank[i] != r) continue; // stale
        uint32_t j = next[i];
        part[i] = (int32_t)r;
        part[j] = -1;
        next[i] = next[j];
        if (next[j] != END) prev[next[j]] = i;
        rank[i] = next[i] != END ? pair_rank(t, part[i], part[next[i]]) : INT32_MAX;
        if (rank[i] != INT32_MAX) heap_push(heap, &hn, (uint64_t)rank[i] << 32 | i);
        if (prev[i] != NONE) {
            uint32_t q = prev[i];
            rank[q] = pair_rank(t, part[q], part[i]);
            if (rank[q] != INT32_MAX) heap_push(heap, &hn, (uint64_t)rank[q] << 32 | q);
        }
    }
    for (uint32_t i = 0; i != END; i = next[i]) push_ids(ids, nids, cap, &part[i], 1);
    free(part);
    free(rank);
    free(next);
    free(prev);
    free(heap);
}

static void cache_clear(ordo_tokenizer *t) {
    memset(t->cache, 0, CACHE_SLOTS * sizeof *t->cache);
    t->cache_count = t->key_used = t->ids_used = 0;
}

// Encodes one pre-token (or one run of ill-formed bytes) and appends its ids.
static void encode_piece(ordo_tokenizer *t, const uint8_t *p, size_t n, int32_t **ids, size_t *nids,
                         size_t *cap) {
    if (n == 1) {
        push_ids(ids, nids, cap, &t->byte_id[p[0]], 1);
        return;
    }
    if (n > SMALL_PIECE) {
        int32_t id = ordo_bpe_lookup(t, p, n);
        if (id >= 0)
            push_ids(ids, nids, cap, &id, 1);
        else
            merge_large(t, p, n, ids, nids, cap);
        return;
    }
    ordo_bpe_cache_entry *slot = NULL;
    uint64_t h = 0;
    if (n <= CACHE_MAX_KEY) {
        if (!t->cache) {
            t->cache = ordo_xcalloc(CACHE_SLOTS, sizeof *t->cache);
            t->key_buf = ordo_xmalloc(CACHE_KEY_BUF);
            t->ids_buf = ordo_xmalloc(CACHE_IDS_BUF * sizeof *t->ids_buf);
        }
        h = ordo_bpe_hash(p, n);
        for (size_t i = h & (CACHE_SLOTS - 1);; i = (i + 1) & (CACHE_SLOTS - 1)) {
            ordo_bpe_cache_entry *e = &t->cache[i];
            if (e->key_len == 0) {
                slot = e;
                break;
            }
            if (e->hash == h && e->key_len == n && memcmp(t->key_buf + e->key_off, p, n) == 0) {
                push_ids(ids, nids, cap, t->ids_buf + e->ids_off, e->ids_len);
                return;
            }
        }
    }
    int32_t out[SMALL_PIECE];
    size_t m;
    int32_t id = ordo_bpe_lookup(t, p, n);
    if (id >= 0) {
        out[0] = id;
        m = 1;
    } else {
        m = merge_small(t, p, n, out);
    }
    push_ids(ids, nids, cap, out, m);
    if (!slot) return;
    if (t->cache_count >= CACHE_SLOTS / 2 || t->key_used + n > CACHE_KEY_BUF ||
        t->ids_used + m > CACHE_IDS_BUF) {
        cache_clear(t);
        for (size_t i = h & (CACHE_SLOTS - 1);; i = (i + 1) & (CACHE_SLOTS - 1))
            if (t->cache[i].key_len == 0) {
                slot = &t->cache[i];
                break;
            }
    }
    slot->hash = h;
    slot->key_off = (uint32_t)t->key_used;
    slot->key_len = (uint32_t)n;
    slot->ids_off = (uint32_t)t->ids_used;
    slot->ids_len = (uint32_t)m;
    memcpy(t->key_buf + t->key_used, p, n);
    memcpy(t->ids_buf + t->ids_used, out, m * sizeof *out);
    t->key_used += n;
    t->ids_used += m;
    t->cache_count++;
}

// ASCII bytes the pattern's \s (WS above) matches.
static inline int ascii_space(unsigned c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static inline int ascii_letter(unsigned c) {
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static inline int ascii_digit(unsigned c) {
    return c >= '0' && c <= '9';
}

// Why these points (tokenizer.h has the rule): with a = text[p-1] and b = text[p] ASCII,
// - a not a space, b a space: every alternative that can hold a stops before a space (the
//   optional space of ` ?X` leads a pre-token, it never ends one), so a pre-token ends at p,
//   and the one holding a ends there whether b follows or the text ends;
// - a letter and b a digit, or the reverse: ` ?\p{L}+`, ` ?\p{N}+` and the contractions
//   ('s ...) each hold one of the two classes only, so the same holds.
// The match at p reads only text[p..] (the pattern has no lookbehind), and runs of ill-formed
// UTF-8 never hold an ASCII byte, so what follows p is split the same way too.
size_t ordo_bpe_safe_cut(const uint8_t *text, size_t len) {
    for (size_t p = len ? len - 1 : 0; p >= 1; p--) {
        unsigned a = text[p - 1], b = text[p];
        if (a >= 0x80 || b >= 0x80) continue;
        if (ascii_space(b) && !ascii_space(a)) return p;
        if ((ascii_letter(a) && ascii_digit(b)) || (ascii_digit(a) && ascii_letter(b))) return p;
    }
    return 0;
}

ordo_status ordo_bpe_encode(ordo_tokenizer *t, const uint8_t *text, size_t len, int32_t **ids,
                            size_t *n, size_t *cap) {
    pcre2_match_data *md = t->match_data;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    size_t pos = 0;
    while (pos < len) {
        int rc = t->jit ? pcre2_jit_match(t->re, text, len, pos, 0, md, t->mcontext)
                        : pcre2_match(t->re, text, len, pos, 0, md, NULL);
        if (rc == PCRE2_ERROR_NOMATCH) { // only ill-formed bytes remain
            encode_piece(t, text + pos, len - pos, ids, n, cap);
            break;
        }
        if (rc < 0) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof msg);
            return ordo_error(ORDO_ERR_STATE, "gpt2 pre-tokenizer: pcre2 at byte %zu: %s", pos,
                              (const char *)msg);
        }
        size_t ms = ov[0], me = ov[1];
        ORDO_ASSERT(me > ms && ms >= pos); // every alternative consumes at least one char
        if (ms > pos) encode_piece(t, text + pos, ms - pos, ids, n, cap); // ill-formed run
        encode_piece(t, text + ms, me - ms, ids, n, cap);
        pos = me;
    }
    return ORDO_OK;
}
