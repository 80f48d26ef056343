// A run, rebuilt from its config and its checkpoints: what every command that works on a
// run directory shares.
// - Its data (ordo_rundata), from the config alone, so that train, eval, sample and resume
//   all see the same tokens: a built-in corpus generated from its seed, or a text file
//   tokenized with byte or gpt2; the token stream, the target stream (masked tokens = -1),
//   the train/val split, and the means to turn a prompt into ids and ids back into text.
// - Its model shape (ordo_run_model_config) and its newest valid checkpoint, opened for
//   eval, sample and viz (ordo_run_open).
#ifndef ORDO_RUN_H
#define ORDO_RUN_H
#include <stdint.h>

#include "data/corpus.h"
#include "data/tokenizer.h"
#include "models/gpt.h"
#include "train/config.h"

typedef struct ordo_rundata {
    int vocab_size;
    int32_t *tokens;   // [n]
    int32_t *targets;  // [n] or NULL: tokens[k] if counted as a target, else -1
    size_t n, n_train; // validation is tokens[n_train..n)
    int example_len;   // copy/reverse: windows start on example boundaries (0 otherwise)
    int is_corpus;
    ordo_corpus corpus;
    ordo_tokenizer *tok;
} ordo_rundata;

// Generates or reads and tokenizes the data of cfg. Errors name the file or option.
ordo_status ordo_rundata_load(ordo_rundata *d, const ordo_train_config *cfg);
// Text to ids (corpus: space-separated words; files: the tokenizer). *ids malloc'd.
ordo_status ordo_rundata_encode(ordo_rundata *d, const char *text, int32_t **ids, size_t *n);
// Ids to text (malloc'd, NUL-terminated).
ordo_status ordo_rundata_decode(ordo_rundata *d, const int32_t *ids, size_t n, char **text);
void ordo_rundata_free(ordo_rundata *d);

// The model of a run of config c over a vocabulary of V ids. ORDO_ERR_ARG for an unknown --pos.
ordo_status ordo_run_model_config(const ordo_train_config *c, int V, ordo_gpt_config *g);

// Loads a run for evaluation or sampling: the config and newest valid checkpoint of dir, the
// model and data rebuilt from that config (a checkpoint that does not open or load is skipped
// with a warning). *step receives the checkpoint's step; free m and data with ordo_gpt_free
// and ordo_rundata_free. ORDO_ERR_ARG when dir has no checkpoint.
ordo_status ordo_run_open(const char *dir, ordo_train_config *cfg, ordo_rundata *data, ordo_gpt *m,
                          int64_t *step);

#endif
