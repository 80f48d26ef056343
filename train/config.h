// The training configuration: one table of fields drives the command-line options, the
// --config JSON file, config.json in the run directory, the checkpoint metadata, and the
// conflict check on --resume (fields marked `resumable` may change on resume, others not).
#ifndef ORDO_CONFIG_H
#define ORDO_CONFIG_H
#include <jansson.h>

#include "train/options.h"

typedef struct ordo_train_config {
    // data
    const char *task;      // built-in corpus: order | copy | reverse (when no --data)
    const char *data;      // a text file instead of a built-in corpus
    const char *tokenizer; // byte | gpt2 (for --data)
    const char *vocab;     // gpt2 vocab dir (encoder.json, vocab.bpe)
    long long corpus_tokens, data_seed, min_len, max_len;
    // model
    const char *pos;
    long long context, d_model, layers, heads;
    // token-embedding convention: a preset, and overrides of its two values (unset: NULL, 0)
    const char *embed_style; // gpt2 | vaswani
    const char *embed_scale; // a number, or "sqrt" = sqrt(d_model)
    double embed_std;        // init std of the token (and learned position) table
    // loader
    long long batch, stride, shuffle, drop_last;
    double val_frac;
    // optimizer
    const char *optimizer, *schedule;
    double lr, min_lr, beta1, beta2, eps, weight_decay, momentum, clip;
    long long warmup;
    int no_decay_pos;
    // run
    long long steps, eval_every, eval_batches, ckpt_every, keep, log_every, seed, threads;
    const char *init, *out;
} ordo_train_config;

void ordo_train_config_defaults(ordo_train_config *c);
// The option table over c (NULL-terminated); `resumable` per option via ordo_config_resumable.
ordo_opt *ordo_train_config_options(ordo_train_config *c);
int ordo_config_resumable(const char *key);
// The embedding convention of c resolved to numbers: *scale multiplies the token embeddings
// (1 for gpt2, sqrt(d_model) for vaswani, unless --embed-scale), *std is the init std of the
// token table and the learned position table (0.02 for gpt2, d_model^-0.5 for vaswani, unless
// --embed-std). ORDO_ERR_ARG naming the option for an unknown style or a malformed value.
ordo_status ordo_train_config_embed(const ordo_train_config *c, double *scale, double *std);
// Range and consistency checks; messages name the option, the value and what was expected.
// Also refuses a run whose estimated memory (ordo_train_config_bytes) exceeds the machine's.
ordo_status ordo_train_config_check(const ordo_train_config *c);
// Estimated bytes of the model, its optimizer state and one training step (an upper bound).
double ordo_train_config_bytes(const ordo_train_config *c);
// The config as a JSON object (every option; null for unset strings). Caller decrefs.
json_t *ordo_train_config_to_json(ordo_train_config *c);
// Sets every key of obj on c (keys are option names); unknown keys, wrong types: ORDO_ERR_ARG
// naming `source`. With skip_seen, options the user gave on the command line are kept.
// String values are duplicated into *arena (a list freed by ordo_config_strings_free).
ordo_status ordo_train_config_from_json(ordo_train_config *c, json_t *obj, const char *source,
                                        int skip_seen, ordo_opt *opts);
// Compares a resumed run's config with its checkpoint's: any difference in a field that is
// not resumable is an ORDO_ERR_ARG naming the field and both values.
ordo_status ordo_train_config_compare(ordo_train_config *ckpt, ordo_train_config *now);
// Frees the strings duplicated by from_json (process-lifetime otherwise).
void ordo_config_strings_free(void);

#endif
