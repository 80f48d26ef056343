// Built-in corpora, generated from a seed (no download), each with its own small word
// vocabulary. They are what `ordo train` learns on by default.
//
//   order    English-like "who did what to whom" stories, without articles. A story is a
//            chain of 1..3 transitive sentences over distinct nouns, each sentence's subject
//            being the previous sentence's object, closed by an intransitive sentence about
//            the last object: "cat chased dog . dog bit fox . fox ran ."
//            The subject of every sentence after the first is order-dependent: at that
//            point the bag of words of the story holds two nouns exactly once (the first
//            subject and the last object), so a model that ignores order can only guess
//            between them, while one that sees order knows it is the last object.
//   copy     "<bos> x1..xn <sep> x1..xn <eos>" over a small alphabet, n uniform in
//   reverse  [min_len, max_len]; reverse writes xn..x1 after <sep>.
//   add      "<bos> a0..a(n-1) + b0..b(n-1) = c0..cn <eos>": two n-digit numbers and their sum,
//            every number least significant digit first (the reversed order of the length
//            generalisation literature, in which the digits come out in the order a carry
//            is computed); a and b may have leading zeros, c has n+1 digits.
//            Each example of these three is padded with <pad> to the example length
//            (ordo_seq_len at max_len; --pack none: the window, opts.example_len) so windows
//            can start on example boundaries. Only the answer (the tokens after <sep> or "=",
//            and <eos>) counts in the loss.
//   passkey  filler text with a random key at a random depth and the question at the end
//            (data/passkey.h), in the ids of a text tokenizer (opts.tok): examples of up to
//            opts.example_len tokens, padded to it. Only the answer counts in the loss.
//   mqar     multi-query associative recall (data/mqar.h), examples of opts.example_len
//            tokens: key-value pairs, then queries; only the values after queries count.
//   flipflop write/ignore/read instructions with bits (data/flipflop.h), examples of
//            opts.example_len tokens; only the bits after a read count.
//   selective-copy  data tokens scattered in noise, then a marker and the data in order
//            (data/selcopy.h), examples of opts.example_len tokens; the copy counts.
//   count    set/increment/pass statements over a few variables, then "print x" and x's value
//            (data/count.h), examples of opts.example_len tokens; the value counts.
#ifndef ORDO_CORPUS_H
#define ORDO_CORPUS_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"
#include "framework/names.h"
#include "framework/rng.h"
#include "data/tokenizer.h"

typedef enum ordo_task {
    ORDO_TASK_ORDER,
    ORDO_TASK_COPY,
    ORDO_TASK_REVERSE,
    ORDO_TASK_PASSKEY,
    ORDO_TASK_MQAR,
    ORDO_TASK_FLIPFLOP,
    ORDO_TASK_ADD,
    ORDO_TASK_SELECTIVE_COPY,
    ORDO_TASK_COUNT
} ordo_task;

// Special ids of copy/reverse/add; the alphabet follows them (add: the digits 0..9, then "+",
// and its <sep> is written "=").
enum { ORDO_SEQ_PAD = 0, ORDO_SEQ_BOS = 1, ORDO_SEQ_SEP = 2, ORDO_SEQ_EOS = 3, ORDO_SEQ_FIRST = 4 };
#define ORDO_SEQ_MAX_ALPHABET 26
enum { ORDO_ADD_PLUS = ORDO_SEQ_FIRST + 10, ORDO_ADD_VOCAB };

// How examples of copy/reverse/add fill the training windows (--pack): EXAMPLES back to back,
// each padded to the longest example, several to a window when the context holds them; NONE
// one example per window, at its start, padded to the window (Kazemnejad et al. 2023 and Ruoss
// et al. 2023 train so). The other tasks' examples are one per window either way.
typedef enum ordo_pack { ORDO_PACK_EXAMPLES, ORDO_PACK_NONE } ordo_pack;
extern const ordo_names ordo_pack_names; // "examples", "none": in enum order
ordo_status ordo_pack_parse(const char *name, ordo_pack *out);

typedef struct ordo_corpus_opts {
    uint64_t seed;
    size_t n_tokens;      // at least this many tokens (whole stories / examples)
    int min_len, max_len; // copy/reverse/add: range of n
    int alphabet;         // copy/reverse: symbols (<= ORDO_SEQ_MAX_ALPHABET)
    ordo_pack pack;       // copy/reverse/add: NONE pads each example to example_len
    ordo_tokenizer *tok;  // passkey: the text's tokenizer (borrowed)
    int digits;           // passkey: digits of the key
    int example_len;      // passkey: the longest example, and what each is padded to;
                          // mqar, flipflop: every example's length; copy/reverse/add with
                          // pack NONE: what each is padded to (the context)
    int mqar_vocab;       // mqar: ids 0..V-1 (keys below V/2, values above)
    int mqar_pairs;       // mqar: key-value pairs per example
    double mqar_power;    // mqar: a of the queries' power law over slots
    double ff_ignore;     // flipflop: probability of an ignore instruction, p_i
    int sc_vocab;         // selective-copy: ids (noise 0, data 1..A-2, marker A-1)
    int sc_tokens;        // selective-copy: data tokens to copy, K
    int count_vars;       // count: variables
} ordo_corpus_opts;

typedef struct ordo_corpus {
    ordo_task task;
    int vocab_size;
    const char *const *words; // [vocab_size], static; NULL for passkey (a text tokenizer's ids);
                              // mqar's are the ids in decimal
    size_t n;
    int32_t *tokens; // [n]
    uint8_t *mask;   // [n]: 1 if token k is a prediction target (counted in the loss)
    uint8_t *dep;    // [n]: order: 1 if token k is order-dependent; NULL for other tasks
    int example_len; // the padded example length (every task's but order's; 0 for order)
    int max_len;     // copy/reverse/add: the longest n generated
} ordo_corpus;

// The tasks' names in enum order: "order", "copy", "reverse", "passkey", "mqar", "flipflop",
// "add", "selective-copy", "count" (parse, name, lists of choices).
extern const ordo_names ordo_task_names;
// The task named `name`; ORDO_ERR_ARG otherwise, the message naming the value and the choices.
ordo_status ordo_task_parse(const char *name, ordo_task *out);
// The task's name ("?" for a value out of range).
const char *ordo_task_name(ordo_task t);

// Defaults: 200,000 tokens, n in 1..16, alphabet 10, seed 1234, a 5-digit key, MQAR's 4 pairs
// over 256 ids with a = 0.01, flip-flop's p_i = 0.8, Mamba's 16 data tokens over 16 ids for
// selective copying, 3 variables to count. The one place for them: `ordo train`'s
// --corpus-tokens, --data-seed, --min-len, --max-len defaults come from here.
void ordo_corpus_default_opts(ordo_task t, ordo_corpus_opts *o);

// Generates the corpus (deterministic in opts). ORDO_ERR_ARG for sizes out of range.
// Free with ordo_corpus_free.
ordo_status ordo_corpus_generate(ordo_task t, const ordo_corpus_opts *o, ordo_corpus *c);

// Whether t is copy, reverse or add: examples of a size n, scored by exact match.
int ordo_seq_task(ordo_task t);
// The tokens of a copy/reverse (2n+3) or add (3n+5) example of size n, unpadded.
int ordo_seq_len(ordo_task t, int n);
// The index of its first answer token (after <sep>: n+2; add, after "=": 2n+3).
int ordo_seq_answer(ordo_task t, int n);

// One copy/reverse/add example of size n, unpadded: writes ordo_seq_len(t, n) ids into out
// (and the loss mask into mask, if not NULL) and returns that length. Draws n symbols (add:
// 2n digits, a's then b's) from r; alphabet is copy/reverse's (add's is the digits).
int ordo_seq_example(ordo_task t, int alphabet, int n, ordo_rng *r, int32_t *out, uint8_t *mask);

// Whether t is one of the tasks of fixed-length examples with answers at known places (mqar,
// flipflop, selective-copy, count: data/answers.h scores them).
int ordo_answers_task(ordo_task t);

// Ids to words separated by spaces (*text malloc'd, NUL-terminated). An id out of range is
// ORDO_ERR_ARG naming it, as is a passkey corpus (its ids are the tokenizer's to decode).
ordo_status ordo_corpus_decode(const ordo_corpus *c, const int32_t *ids, size_t n, char **text);

void ordo_corpus_free(ordo_corpus *c);

#endif
