// Internal to the tokenizer (data/tokenizer.c loads the vocab, data/bpe.c encodes with
// it): the tokenizer's representation, shared by the two files, the tests and the fuzz
// harness (tests/fuzz), and by no one else.
#ifndef ORDO_BPE_H
#define ORDO_BPE_H
#include <stddef.h>
#include <stdint.h>

#include "data/tokenizer.h"

typedef struct ordo_bpe_cache_entry {
    uint64_t hash;
    uint32_t key_off, key_len; // into key_buf; key_len == 0 marks an empty slot
    uint32_t ids_off, ids_len; // into ids_buf
} ordo_bpe_cache_entry;

struct ordo_tokenizer {
    ordo_tokenizer_kind kind;
    int vocab_size;

    // gpt2 only. Token i's bytes are bytes[off[i] .. off[i+1]); the special token's are
    // its text, "<|endoftext|>", so that decode is one copy per id.
    uint8_t *bytes;
    uint32_t *off;        // [vocab_size + 1]
    int32_t byte_id[256]; // the token of each single byte

    // bytes -> id (ordinary tokens only): open addressing, slot = id + 1, 0 = empty
    int32_t *vocab_slots;
    size_t vocab_mask;

    // (left id, right id) -> merged id, for every pair whose concatenation is a token; the
    // merged id is also the merge's rank (tiktoken's rule). Key 0 marks an empty slot.
    uint64_t *pair_keys;
    int32_t *pair_vals;
    size_t pair_mask;

    void *re;         // pcre2_code_8 *
    void *match_data; // pcre2_match_data_8 *
    void *jit_stack;  // pcre2_jit_stack_8 *
    void *mcontext;   // pcre2_match_context_8 *
    int jit;          // the pattern was JIT-compiled

    // word cache: piece bytes -> ids, cleared when full
    ordo_bpe_cache_entry *cache;
    size_t cache_count;
    uint8_t *key_buf;
    size_t key_used;
    int32_t *ids_buf;
    size_t ids_used;
};

// Loads a gpt2-style tokenizer from the contents of encoder.json (encoder[0..elen)) and
// vocab.bpe (merges[0..mlen)); the names are only for messages. vocab_size is
// ORDO_GPT2_VOCAB_SIZE for GPT-2 (ordo_tokenizer_load reads the files and calls this); tests
// and the fuzzer pass smaller ones (257.., the last id being <|endoftext|>) so that a whole
// vocabulary fits in a fuzz input. Checks and errors as ordo_tokenizer_load.
ordo_status ordo_tokenizer_load_gpt2_mem(const char *encoder, size_t elen, const char *enc_name,
                                         const char *merges, size_t mlen, const char *merges_name,
                                         int vocab_size, ordo_tokenizer **out);

// Fast, non-cryptographic hash of a byte string (also used by the loader's vocab table).
uint64_t ordo_bpe_hash(const uint8_t *p, size_t n);

// The id of the ordinary token with exactly these bytes, or -1.
int32_t ordo_bpe_lookup(const ordo_tokenizer *t, const uint8_t *p, size_t n);

// Builds the pair table and compiles the pre-tokenizer; needs bytes/off/byte_id and the
// vocab table filled in. Returns ORDO_ERR_FORMAT/ORDO_ERR_STATE with a message on failure.
ordo_status ordo_bpe_prepare(ordo_tokenizer *t);

// Encodes text[0..len) (no special-token handling) and appends the ids to *ids (capacity
// *cap, length *n), growing it with realloc.
ordo_status ordo_bpe_encode(ordo_tokenizer *t, const uint8_t *text, size_t len, int32_t **ids,
                            size_t *n, size_t *cap);

// ordo_tokenizer_safe_cut for the GPT-2 pattern (see tokenizer.h): the largest p < len that
// is a safe cut of text[0..len), or 0.
size_t ordo_bpe_safe_cut(const uint8_t *text, size_t len);

// Frees what ordo_bpe_prepare and ordo_bpe_encode allocated.
void ordo_bpe_release(ordo_tokenizer *t);

#endif
