// The passkey retrieval task of Mohtashami and Jaggi (2023, "Landmark Attention"), the test
// that position interpolation, YaRN and the other context-extension papers report: filler
// text with a random key at a chosen depth, and the question at the end.
//
//   <filler> The pass key is 71432. Remember it. 71432 is the pass key. <filler>
//   What is the pass key? The pass key is 71432
//
// The filler is the papers' "The grass is green. The sky is blue. The sun is yellow. Here we
// go. There and back again." repeated (cut at a token to reach the length asked for), the key
// `digits` decimal digits, each uniform in 0..9. The text is ASCII and is tokenized with the
// run's tokenizer (byte or gpt2) piece by piece: each piece starts with a space after a
// non-space, a point where the GPT-2 pre-tokens split, so the pieces' ids are the ids of the
// whole text (except where the filler is cut).
//
// Only the answer (the key's tokens after the question) is a target: the papers fine-tune on
// the plain LM loss over such text, but their models already read; a small model trained
// from scratch on CPU would spend nearly all its loss on the filler, which carries no
// information about positions. Scoring the answer alone makes retrieval learnable in minutes.
#ifndef ORDO_PASSKEY_H
#define ORDO_PASSKEY_H
#include <stddef.h>
#include <stdint.h>

#include "data/tokenizer.h"
#include "sys/error.h"
#include "framework/rng.h"

#define ORDO_PASSKEY_MAX_DIGITS     20
#define ORDO_PASSKEY_DEFAULT_DIGITS 5

// The template's pieces as ids of one tokenizer (ordo_passkey_init); read-only after that.
typedef struct ordo_passkey {
    int digits;
    int32_t *filler; // one round of the filler text
    int nfiller;
    int32_t *pad; // the id examples are padded with in the training stream ("\n")
    // the needle around the key, and the question, in ids ("%s" = the key, " " before it)
    int32_t *needle_a, *needle_b, *needle_c, *question;
    int nneedle_a, nneedle_b, nneedle_c, nquestion;
    ordo_tokenizer *tok; // borrowed: encodes each key
} ordo_passkey;

// Where the parts of one example lie (token indices into it).
typedef struct ordo_passkey_layout {
    int len;                               // tokens in the example
    int needle_at;                         // the needle's first token (after the filler)
    int key_at, nkey;                      // the key's first token in the needle, its count
    int answer_at, nanswer;                // the answer: the example's last nanswer tokens
    int filler;                            // filler tokens in all (before + after)
    char key[ORDO_PASSKEY_MAX_DIGITS + 1]; // the key's digits
} ordo_passkey_layout;

// Encodes the template with tok (kept, borrowed, for the keys). ORDO_ERR_ARG when digits is
// outside 1..ORDO_PASSKEY_MAX_DIGITS, naming --passkey-digits. Free with ordo_passkey_free.
ordo_status ordo_passkey_init(ordo_passkey *pk, ordo_tokenizer *tok, int digits);
void ordo_passkey_free(ordo_passkey *pk);

// The most tokens a key of `digits` digits takes, as the answer: the space before it and one
// per digit (the byte tokenizer: exactly that; GPT-2's BPE: fewer).
int ordo_passkey_answer_max(int digits);

// Tokens of the shortest example (no filler): the needle, the question and the longest answer.
int ordo_passkey_min_len(const ordo_passkey *pk);

// One example of exactly len tokens with the needle after round(depth * F) of its F filler
// tokens (depth in [0, 1]: 0 at the start, 1 right before the question); draws the key's
// digits from r. Writes ids into out[len] and, if mask is not NULL, 1 at the answer's tokens
// and 0 elsewhere; *at receives the layout. ORDO_ERR_ARG when len < ordo_passkey_min_len
// (naming the length and the minimum) or depth is outside [0, 1].
ordo_status ordo_passkey_example(const ordo_passkey *pk, int len, double depth, ordo_rng *r,
                                 int32_t *out, uint8_t *mask, ordo_passkey_layout *at);

// The training stream: examples of lengths uniform in [ordo_passkey_min_len, example_len] at
// depths uniform in [0, 1], each padded with pk->pad (not a target) to example_len tokens so
// that windows of example_len start on examples; at least n_tokens in all, from seed.
// tokens and mask are malloc'd [*n]. ORDO_ERR_ARG when example_len < the shortest example.
ordo_status ordo_passkey_stream(const ordo_passkey *pk, int example_len, size_t n_tokens,
                                uint64_t seed, int32_t **tokens, uint8_t **mask, size_t *n);

// A predictor for ordo_passkey_score: for rows examples of T input tokens each (in, (rows,
// T)), the id it predicts next at positions from[i]..T-1 of row i into pred (rows, T): the
// answer's, the last ones of each row. The positions before from[i] are never read, so that a
// model need not compute their logits. ctx is the caller's.
typedef ordo_status (*ordo_passkey_predict)(void *ctx, const int32_t *in, int rows, int T,
                                            const int *from, int32_t *pred);

// Retrieval accuracy at length len and depth: `examples` fresh examples (drawn from seed, len
// and depth alone), fed to predict `chunk` at a time with the inputs the first len - 1 tokens;
// an example is right when the prediction at every answer token is that token (exact match,
// teacher-forced: the same as greedy decoding writing the whole key). *right receives the
// count. Errors: ordo_passkey_example's and predict's.
ordo_status ordo_passkey_score(const ordo_passkey *pk, int len, double depth, int examples,
                               uint64_t seed, int chunk, ordo_passkey_predict predict, void *ctx,
                               int *right);

// Parses a comma-separated list of depths in [0, 1] ("0,0.25,0.5") into out[cap]; *n gets the
// count. ORDO_ERR_ARG naming `option`, the value and what is expected.
ordo_status ordo_passkey_parse_depths(const char *option, const char *list, double *out, int cap,
                                      int *n);

#endif
