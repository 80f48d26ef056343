// The fuzz harness: one function per reader of outside bytes. Each takes arbitrary bytes,
// drives the reader the way ordo does, checks what must hold (no crash, a clean error with
// a message, round trips), and returns 0 when the input was accepted, 1 when it was refused
// with an error. Broken properties abort (FUZZ_CHECK), which libFuzzer reports as a crash.
// Linked into the libFuzzer executables (fuzz_main.c, -DORDO_FUZZ=ON with clang) and into
// tests/fuzz/test_fuzz_regressions.c, which replays the seeds and tests/fuzz/regressions/ in the
// normal and sanitizer builds.
#ifndef ORDO_FUZZ_H
#define ORDO_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(c)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, #c);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int ordo_fuzz_safetensors(const uint8_t *data, size_t size); // a .safetensors file
int ordo_fuzz_checkpoint(const uint8_t *data, size_t size);  // checkpoint metadata lines
int ordo_fuzz_config(const uint8_t *data, size_t size);      // a --config JSON file
int ordo_fuzz_vocab(const uint8_t *data, size_t size);       // encoder.json \0 vocab.bpe
int ordo_fuzz_encode(const uint8_t *data, size_t size);      // text for the tokenizers
int ordo_fuzz_decode(const uint8_t *data, size_t size);      // int32 ids for the tokenizers
int ordo_fuzz_tokfile(const uint8_t *data, size_t size);     // a token file (tokenize --out)
int ordo_fuzz_ckpt_header(const uint8_t *data, size_t size); // a checkpoint's JSON header
int ordo_fuzz_forward(const uint8_t *data, size_t size);     // weights that overflow

typedef struct ordo_fuzz_target {
    const char *name; // also the seed directory tests/fuzz/<name>/
    int (*fn)(const uint8_t *, size_t);
} ordo_fuzz_target;
extern const ordo_fuzz_target ordo_fuzz_targets[]; // NULL-terminated

// 1 when the gpt2 vocab (ORDO_VOCAB_DIR or the default dir) loaded; the encode and decode
// targets then check gpt2 as well as byte. The fuzz executables insist on it.
int ordo_fuzz_have_gpt2(void);
// The message of the last refusal (for the regression test's verbose listing).
const char *ordo_fuzz_last_refusal(void);

#endif
