// The training configuration: one table of options (ordo_train_config_options) drives the
// command-line flags of `ordo train`, the --config JSON file, config.json in the run
// directory, the config in the checkpoint metadata, and the conflict check on --resume.
// An option's name is its flag without "--" and its key in every JSON form.
#ifndef ORDO_CONFIG_H
#define ORDO_CONFIG_H
#include <jansson.h>
#include <stdint.h>

#include "framework/names.h"
#include "models/gpt.h"
#include "run/options.h"

// What a data file was when a run trained on it: recorded in config.json and in every
// checkpoint's config (key ORDO_CONFIG_DATA_KEY), compared when the run is resumed or read.
// A fact found by ordo_rundata_load, not an option: no flag sets it, and a --config file's is
// ignored (a new run records its own).
typedef struct ordo_data_record {
    int have;       // 0: no record (a built-in corpus, or a run from an older ordo)
    long long size; // the file's size in bytes
    uint64_t hash;  // XXH3-64 of the text file's bytes; of a token file, its header's hash
    // XXH3-64 of the token ids as a token file stores them (little-endian, 2 bytes each for a
    // vocabulary of up to 65535, else 4): a token file's header hash, and for a text the hash
    // its `ordo tokenize --out` file would carry; so that moving a run from its text to the
    // .bin made from it (or back) is recognised as the same data. have_ids 0: not recorded
    // (an older ordo's run).
    int have_ids;
    uint64_t ids_hash;
    // The file's path relative to the run directory (NULL: not recorded), tried when the
    // absolute path of the config does not exist (the run and its data moved together).
    const char *rel;
} ordo_data_record;

// The learning-rate curve after warmup, as it stands after any resume that changed --steps
// (run/resume.h, ordo_resume_schedule): the decay (cosine or linear; none for constant) goes
// from from_lr at step from_step to min-lr at step to_step, then stays at min-lr. A new run's
// is from_lr = lr over [warmup, steps - 1], which is ordo_lr_at's. Recorded in config.json and
// every checkpoint's config (key ORDO_CONFIG_PLAN_KEY); a fact, not an option.
typedef struct ordo_lr_plan {
    int have; // 0: not recorded (a new run, or an older ordo's): the one the options give
    long long from_step, to_step;
    double from_lr;
    const char *history; // JSON array text: one object per resume that changed --steps, or NULL
} ordo_lr_plan;

// What `--resume-schedule` does when --steps changes on resume (see README "Resuming").
typedef enum ordo_resume_sched {
    ORDO_RESUME_CONTINUE,     // keep the curve; past its end, min-lr (default)
    ORDO_RESUME_REPLAN_DECAY, // decay from the current lr to min-lr over the new remaining steps
    ORDO_RESUME_REPLAN,       // the schedule of a new run of the new --steps (the lr may jump)
} ordo_resume_sched;
extern const ordo_names ordo_resume_sched_names; // in enum order: continue, replan-decay, replan
// Where a run's weights came from (`ordo train --init`): recorded in config.json and every
// checkpoint's config (key ORDO_CONFIG_INIT_KEY). A fact found by ordo_init_resolve
// (run/init.h), not an option; a --config file's is ignored (a new run records its own).
typedef struct ordo_init_record {
    int have;          // 0: no --init, or a run from an older ordo
    const char *file;  // the weights file read (a run directory's checkpoint, resolved)
    const char *run;   // the run directory it belongs to, or NULL for a file outside a run
    long long step;    // its training step, -1 when it is not an ordo checkpoint
    long long context; // the context it was trained at (its T_max), 0 when unknown
    char sha256[65];   // SHA-256 of the whole file, as sha256sum prints it
} ordo_init_record;

// What ordo_rundata_load does when the data file differs from the run's record. Not saved.
typedef enum ordo_data_check {
    ORDO_DATA_NEW,    // a new run: nothing to compare (the record is the file's, once loaded)
    ORDO_DATA_REFUSE, // --resume: an error saying what changed; no record: a note
    ORDO_DATA_ACCEPT, // --resume --data-changed ok: a note, and the run goes on with the file
    ORDO_DATA_WARN,   // eval, sample, viz: a warning (the val loss is on other text)
} ordo_data_check;

// Strings are not owned: defaults are literals, flags point into argv, JSON values into the
// list that ordo_config_strings_free frees. Names (task, tokenizer, pos, optimizer, schedule)
// are those of the layers' tables (ordo_task_names, ordo_pos_names, ...).
typedef struct ordo_train_config {
    // data
    const char *task;      // built-in corpus (data/corpus.h), used when data is NULL
    const char *data;      // a text file instead of a built-in corpus
    const char *tokenizer; // for data and the passkey task's text (data/tokenizer.h)
    const char *vocab;     // gpt2 vocab dir (encoder.json, vocab.bpe); NULL: the default
    long long corpus_tokens, data_seed, min_len, max_len;
    long long passkey_digits;         // passkey: digits of the key (data/passkey.h)
    long long mqar_pairs, mqar_vocab; // mqar: pairs per example, ids (data/mqar.h)
    double mqar_power;                // mqar: a of the queries' power law
    double ff_ignore;                 // flipflop: p_i of the training examples (data/flipflop.h)
    const char *pack;                 // copy/reverse/add: ordo_pack_names (data/corpus.h)
    long long sc_vocab, sc_tokens;    // selective-copy: ids, data tokens (data/selcopy.h)
    long long count_vars;             // count: variables (data/count.h)
    // model
    const char *pos; // position scheme (models/positional.h)
    long long context, d_model, layers, heads;
    // token-embedding convention: a preset, and overrides of its two values (unset: NULL, 0)
    const char *embed_style; // gpt2 | vaswani
    const char *embed_scale; // a number, or "sqrt" = sqrt(d_model)
    double embed_std;        // init std of the token (and learned position) table
    // loader
    long long batch, stride;
    int shuffle, drop_last; // flags (--no-shuffle); JSON true/false or 1/0
    double val_frac;
    // optimizer
    const char *optimizer, *schedule;
    double lr, min_lr, beta1, beta2, eps, weight_decay, momentum, clip;
    long long warmup;
    int no_decay_pos;
    // run
    const char *precision; // of the matmuls: fp32 | bf16 (framework/bf16.h); must match on resume
    // fused | materialized (ordo_attn_impl_names, models/gpt.h). May change on resume: the
    // run then continues to float rounding, not bit for bit; a config without it (runs of an
    // older ordo, which computed materialized) reads as fused, the default
    const char *attention;
    long long steps, eval_every, eval_batches, ckpt_every, keep, log_every, seed, threads;
    const char *init, *out;
    // runs that stand on their own; resume says what it does
    const char *val_data;        // a text or token file held out whole as the validation set
    const char *resume_schedule; // ordo_resume_sched_names
    // model options: dropout rates (the three per-place ones < 0 take --dropout),
    // a separate LM head, micro-batches of --batch rows per optimizer step
    double dropout, dropout_embd, dropout_attn, dropout_resid;
    int untied_head;
    long long grad_accum;
    // RoPE scaling and context extension: a scaling of the rotation (models/
    // positional.h), its factor (0: the context over rope_orig_context), YaRN's original
    // length (0: the --init run's context with a scaling, else the context), and how --init
    // grows a learned table to a longer context (interpolate | fresh)
    const char *rope_scaling;
    double rope_factor;
    long long rope_orig_context;
    // YaRN's ramp (beta_slow alpha, beta_fast beta; the paper's 1 and 32) and its temperature
    double yarn_alpha, yarn_beta;
    int yarn_no_temperature;
    const char *extend_pos;
    // partial rotary (the fraction of each head's dims rope rotates), rope and alibi
    // on the first k heads only (0: all), and a scale on the absolute position signal
    // ("fixed:X", "learned", "learned:INIT"; NULL: none). models/gpt.h has their meaning.
    double rope_fraction;
    long long rope_heads, alibi_heads;
    const char *pos_scale;
    // --pos dpb: the MLP's hidden width and depth, and log(d + 1) as its input
    long long dpb_dim, dpb_depth;
    int dpb_log_distance;
    // --pos cope: the positions of its embeddings (0: --context + 1)
    long long cope_max;
    long long t5_max_distance;
    // --pos fox: the forget gates' initial bias (0: the paper's)
    double fox_gate_bias;
    // --pos-random: train at a sorted random subset of [0, pos_random) per sequence (0: off)
    long long pos_random;
    // not options (not in the table)
    ordo_data_record data_record; // the data file's record (see above)
    ordo_init_record init_record; // where the weights came from (see above)
    ordo_data_check data_check;   // set by whoever opens the run (ORDO_DATA_NEW by default)
    ordo_data_record val_record;  // the --val-data file's record (key ORDO_CONFIG_VAL_DATA_KEY)
    ordo_lr_plan plan;            // the lr curve in force (see above)
} ordo_train_config;

// Every field's default. The optimizer's (betas, eps, weight decay, momentum) are
// ordo_optim_defaults' and the built-in corpus's are ordo_corpus_default_opts'.
void ordo_train_config_defaults(ordo_train_config *c);
// The option table over c: one entry per field, dst pointing into *c, ended by an entry
// whose name is NULL. One malloc'd block; the caller frees it (help texts are static).
ordo_opt *ordo_train_config_options(ordo_train_config *c);
// 1 if option `key` may differ between a checkpoint's config and the run that resumes it
// (steps, eval-every, eval-batches, ckpt-every, keep, log-every, threads, out, vocab, init,
// data: a fixed list in config.c); 0 for every other option, which must match.
int ordo_config_resumable(const char *key);
// The embedding convention of c resolved to numbers: *scale multiplies the token embeddings
// (1 for gpt2, sqrt(d_model) for vaswani, unless --embed-scale), *std is the init std of the
// token table and the learned position table (0.02 for gpt2, d_model^-0.5 for vaswani, unless
// --embed-std). ORDO_ERR_ARG naming the option for an unknown style or a malformed value.
ordo_status ordo_train_config_embed(const ordo_train_config *c, double *scale, double *std);
// Checks c and returns ORDO_ERR_ARG at the first problem, with a message naming the option,
// the value and what was expected: names through the layers' parse functions, ranges, the
// embedding convention, the model's rules through ordo_gpt_config_check, and a run whose
// estimated memory (ordo_train_config_bytes) exceeds the machine's.
ordo_status ordo_train_config_check(const ordo_train_config *c);
// The model config of c for a vocabulary of V tokens; ORDO_ERR_ARG naming --pos for an
// unknown scheme. Sizes are not checked here: ordo_gpt_config_check (via ordo_gpt_init or
// ordo_train_config_check) does.
ordo_status ordo_train_config_model(const ordo_train_config *c, int V, ordo_gpt_config *g);
// Bytes the model, its optimizer state and one training step need: a rough estimate on the
// high side, for the largest vocabulary the tokenizer can have. fused_attention 0 counts the
// materialized attention's T x T scores per head and layer, 1 the fused attention's row
// statistics instead (for `--attention fused`, when train has that option).
double ordo_train_config_bytes(const ordo_train_config *c, int fused_attention);
// The config as a JSON object, one key per option (null for unset strings), and the data
// record under ORDO_CONFIG_DATA_KEY when c has one. Caller decrefs.
json_t *ordo_train_config_to_json(ordo_train_config *c);
// Sets each key of obj on c (ORDO_CONFIG_DATA_KEY: the data record). Not an object, an
// unknown key, a malformed data record, or a value of the wrong type
// (flags take true/false or an integer, non-zero meaning set; floats must be finite;
// strings may be null) is ORDO_ERR_FORMAT naming `source` and the key; keys before it are
// already set. opts is the table the command line was parsed into, or NULL for a fresh one
// over c; with skip_seen, options the parse marked `seen` keep their command-line value.
// String values are copied into a process-wide list (see ordo_config_strings_free).
ordo_status ordo_train_config_from_json(ordo_train_config *c, json_t *obj, const char *source,
                                        int skip_seen, ordo_opt *opts);
// Compares a resumed run's config (now) with its checkpoint's: the first option that is not
// resumable (ordo_config_resumable) and differs is an ORDO_ERR_ARG naming it and both values.
// The data record is not compared here (ordo_rundata_load compares it with the file).
ordo_status ordo_train_config_compare(ordo_train_config *ckpt, ordo_train_config *now);
// Frees every string that from_json copied (they live until then). No config holding one may
// be used afterwards.
void ordo_config_strings_free(void);

// config.json (not the checkpoint metadata) also holds this key: an object that records the
// GEMM and BLAS the run last trained on (ordo_blas_info_json, framework/blas.h). It sets
// nothing: ordo_train_config_from_json skips it when it is an object, so that config.json
// reads back on --resume and as a --config file.
#define ORDO_CONFIG_BACKEND_KEY "backend"

// config.json (not the checkpoint metadata) also holds this key: the val split's unigram
// entropy, the loss of the best context-free predictor (data/unigram.h), as
// {"entropy": <nats per token>, "targets": <tokens counted>}. Like the backend's, it sets
// nothing and is skipped when config.json is read back.
#define ORDO_CONFIG_UNIGRAM_KEY "val_unigram"

// The key of the data record in config.json and the checkpoint metadata's config:
// {"size": <bytes>, "xxh3": "<16 hex digits>", "run_relative": "<path from the run dir>"}
// (run_relative is absent in runs of an older ordo).
#define ORDO_CONFIG_DATA_KEY "data_file"
// The --val-data file's record, in the same form.
#define ORDO_CONFIG_VAL_DATA_KEY "val_data_file"
// The lr plan: {"from_step": N, "from_lr": X, "to_step": N, "history": [...]}; each history
// entry {"at_step", "steps_before", "steps_after", "mode", "lr_before", "lr_after"} says
// how a resume with another --steps changed the curve (lr_*: at at_step, old and new plan).
#define ORDO_CONFIG_PLAN_KEY "lr_plan"

// The plan in force for c: c->plan when recorded, else a new run's (from_lr = lr over
// [warmup, steps - 1]).
ordo_lr_plan ordo_train_config_plan(const ordo_train_config *c);
// The learning rate of step (0-based) under plan p and c's schedule, warmup, lr and min-lr.
// A new run's plan gives exactly ordo_lr_at's values (bit for bit).
double ordo_train_config_lr_at(const ordo_train_config *c, const ordo_lr_plan *p, int64_t step);

// The key of the init record in config.json and the checkpoint metadata's config:
// {"file": path, "run": dir or null, "step": N or null, "context": N or null, "sha256": hex}.
#define ORDO_CONFIG_INIT_KEY "init_from"

// The RoPE scaling of c for the model (models/positional.h): the names parsed, the factor 0
// resolved to context / orig (orig 0: the context). ORDO_ERR_ARG naming the option.
ordo_status ordo_train_config_rope(const ordo_train_config *c, ordo_rope_config *rc);

#endif
