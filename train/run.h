// A run, rebuilt from its config and its checkpoints: what every command that works on a
// run directory shares.
// - Its data (ordo_rundata), from the config alone, so that train, eval, sample and resume
//   all see the same tokens: a built-in corpus generated from its seed, a text file
//   tokenized with byte or gpt2, or a token file (data/tokfile.h) mapped as it is; the token
//   stream, the target stream (masked tokens = -1), the train/val split, the data file's
//   record (size and hash, checked against the run's), and the means to turn a prompt into
//   ids and ids back into text.
// - Its newest usable checkpoint, opened for eval, sample and viz (ordo_run_open).
// - Which checkpoint is used: the newest that is intact (its checksum, its step against its
//   name, finite values; train/checkpoint.h) and loads; each one passed over is named in an
//   `ordo: warning: skipping <path>: <why>` line, and when none is left the error lists them.
// - A run to continue (`ordo train --resume`, ordo_resume_*): the config to train with, the
//   checkpoint's with the options given on the command line on top, resolved before the
//   trainer starts, and the run's checkpoints that the trainer then tries, newest first.
#ifndef ORDO_RUN_H
#define ORDO_RUN_H
#include <stdint.h>

#include "data/corpus.h"
#include "data/dataset.h"
#include "data/tokenizer.h"
#include "data/tokfile.h"
#include "framework/fileio.h"
#include "framework/strbuf.h"
#include "models/gpt.h"
#include "train/checkpoint.h"
#include "train/config.h"

typedef struct ordo_rundata {
    int vocab_size;
    size_t n, n_train; // tokens in the stream; the validation split is [n_train..n)
    // The stream as int32 ids [n] (corpora, text files), or NULL for a token file, whose ids
    // stay in the mapping (file.ids); read windows with ordo_rundata_train_dataset and
    // ordo_rundata_ids, and the validation split through `val`.
    int32_t *tokens;
    int32_t *targets; // [n] or NULL: tokens[k] if counted as a target, else -1
    // The validation split as int32 ids [n - n_train] and its targets (or NULL), whatever the
    // source: into tokens, into a 32-bit mapping, or widened from a 16-bit one (val_own).
    const int32_t *val, *val_targets;
    int example_len; // copy/reverse: windows start on example boundaries (0 otherwise)
    int is_corpus;
    ordo_corpus corpus;
    ordo_tokenizer *tok; // text: loaded with the data; a token file: on first encode/decode
    ordo_tokfile file;   // a token file (file.ids NULL otherwise)
    int32_t *val_own;
    ordo_tokenizer_kind tok_kind; // for loading tok later
    char *vocab;                  // the --vocab dir of the config, or NULL
    ordo_data_record record;      // what the data file is now (have = 0 for a corpus)
    size_t nval;                  // ids in `val`: n - n_train, or the --val-data file's
    char *path, *rel;             // the data file as resolved: absolute, and from the run dir
    // --val-data (or eval --data): the file loaded whole, `val` its stream; its path and record
    struct ordo_rundata *valfile;
    char *val_path, *val_rel;
    ordo_data_record val_record;
} ordo_rundata;

// Generates or reads (text: tokenizes; a token file: maps and checks) the data of cfg, and
// compares the data file with cfg's record as cfg->data_check says: ORDO_DATA_REFUSE makes a
// changed file (size or hash) an ORDO_ERR_ARG naming the file and both sizes and hashes;
// ACCEPT and WARN print a note or warning on stderr (rank 0); a run without a record resumes
// with a note. Text files and token files must be regular files (a FIFO or /dev/zero is
// refused before anything is read). Errors name the file or option.
// Where the file is: a new run (ORDO_DATA_NEW) takes cfg->data from the working directory and
// d->path receives it absolute, d->rel relative to the run dir cfg->out; any other first
// tries cfg->data as it is, then the record's run_relative path and a relative cfg->data from
// the run dir (a note says which is used; none there is an error naming every path tried).
// With cfg->val_data the whole of that file (found and checked in the same way against
// cfg->val_record) is the validation set and all of the data trains (n_train = n).
ordo_status ordo_rundata_load(ordo_rundata *d, const ordo_train_config *cfg);
// The tokenizer of cfg's run only (a built-in corpus: generated, its words are the
// tokenizer): encode, decode and vocab_size work; no data file is opened, and there is no
// validation set (nval 0). For `ordo sample`, and eval --data.
ordo_status ordo_rundata_load_tokenizer(ordo_rundata *d, const ordo_train_config *cfg);
// Makes the whole text or token file at path d's validation set (`ordo eval --data`),
// tokenized with d's tokenizer; d->val_record receives its size and hash. ORDO_ERR_ARG for a
// corpus run (its words are no text tokenizer); the loader's errors naming the file.
ordo_status ordo_rundata_use_eval_file(ordo_rundata *d, const ordo_train_config *cfg,
                                       const char *path);
// The training split [0..n_train) as a dataset of windows of T with this stride, with the
// targets of a corpus that masks some. Errors: ordo_dataset_init's.
ordo_status ordo_rundata_train_dataset(const ordo_rundata *d, int T, int stride, ordo_dataset *ds);
// Copies ids [off, off + n) of the stream (within 0..d->n) into out[n] as int32.
void ordo_rundata_ids(const ordo_rundata *d, size_t off, size_t n, int32_t *out);
// Text to ids (corpus: space-separated words; files: the tokenizer). *ids malloc'd.
ordo_status ordo_rundata_encode(ordo_rundata *d, const char *text, int32_t **ids, size_t *n);
// Ids to text (malloc'd, NUL-terminated) of *len bytes (len may be NULL). The text may hold
// NUL bytes of its own (the byte tokenizer decodes id 0 to one): write it with its length.
ordo_status ordo_rundata_decode(ordo_rundata *d, const int32_t *ids, size_t n, char **text,
                                size_t *len);
void ordo_rundata_free(ordo_rundata *d);

// Which checkpoint of a run ordo_run_open uses, and what it loads besides the model.
typedef struct ordo_run_select {
    int64_t step; // >= 0: the run's checkpoint of this step, and no other; -1: the newest usable
    int tokenizer_only; // 1: the data is ordo_rundata_load_tokenizer's (no data file is read)
} ordo_run_select;
// What ordo_run_open opened.
typedef struct ordo_run_view {
    char dir[ORDO_PATH_MAX];  // the run directory (the target, or the checkpoint file's directory)
    char ckpt[ORDO_PATH_MAX]; // the checkpoint file used
    int64_t step;             // its step
} ordo_run_view;

// Loads a run for evaluation or sampling. target is a run directory or a checkpoint file (any
// path; its directory is then the run's, for finding the data); sel NULL means the newest.
// From a directory, without sel->step: the newest usable checkpoint (one that does not open,
// is not intact or does not load is skipped with a warning); with sel->step, that one or an
// error. A checkpoint file or a step asked for is used or refused, never replaced. The model
// and data are rebuilt from the checkpoint's config (a data file that changed since is warned
// about). Free m and data with ordo_gpt_free and ordo_rundata_free. Errors: ORDO_ERR_ARG when
// the run has no checkpoint, or none of the step asked for (listing the steps it has), or
// --step with a file; when none is usable, the last one's error with the reason for each.
ordo_status ordo_run_open(const char *target, const ordo_run_select *sel, ordo_train_config *cfg,
                          ordo_rundata *data, ordo_gpt *m, ordo_run_view *view);

// A run being continued: its checkpoints, and what one must agree with to be resumed from.
typedef struct ordo_resume {
    const char *dir;
    ordo_train_config cfg; // the config to train with, as ordo_resume_open resolved it
    int64_t *steps;        // the checkpoints of dir, newest first
    int n, next;           // how many; the index of the next one ordo_resume_next tries
    ordo_train_config run; // dir/config.json, when have_run: a checkpoint whose fixed
    int have_run;          // settings differ from it is another run's and is skipped
    // the checkpoint tried last
    char path[ORDO_PATH_MAX];
    ordo_strbuf skipped;    // "\n  <path>: <why>" for each checkpoint passed over
    ordo_train_config last; // the config of the checkpoint ordo_resume_next handed out last
    char *history;          // the lr plan's history as ordo_resume_schedule extended it (owned)
} ordo_resume;

// Resolves the config of `ordo train --resume dir`. cfg holds the options as parsed and opts
// marks those given on the command line (seen; matched by name, other entries ignored). On
// return cfg is the config of the newest checkpoint that opens and belongs to the run, with
// the given options on top; with no checkpoint at all, dir/config.json's as it is. Errors: a
// given option that may not change on resume and differs from the checkpoint's (ORDO_ERR_ARG
// naming it and both values), an invalid checkpoint config, checkpoints none of which is
// usable, a missing dir or config.json. cfg->data_check is ORDO_DATA_REFUSE on return (set
// ORDO_DATA_ACCEPT to train on a changed data file). Skipped checkpoints are warned about on stderr
// (rank 0). Collective under MPI: all ranks share the outcome. Free r with ordo_resume_free, also
// after an error.
ordo_status ordo_resume_open(ordo_resume *r, const char *dir, ordo_train_config *cfg,
                             ordo_opt *opts);

// The next checkpoint to restore, first the one the config was resolved from, then older
// ones: opened (*f, the caller closes it; r->path names it) with its training state. Skips
// with a warning one that does not open, is not intact or belongs to another run. *f NULL and
// ORDO_OK when the run has no checkpoint at all; ORDO_ERR_FORMAT listing every skipped one and
// why when none is left to try; ORDO_ERR_ARG for one whose fixed settings differ from r->cfg.
ordo_status ordo_resume_next(ordo_resume *r, ordo_safetensors **f, ordo_train_state *st);
// Records that the checkpoint ordo_resume_next handed out last (r->path) could not be restored,
// the reason being the current error message (non-finite weights, say): warns on stderr (rank
// 0) and lists it in the error of ordo_resume_next when none is left. Call ordo_resume_next
// next, for an older one.
void ordo_resume_skip(ordo_resume *r);
// After checkpoint r->path (config r->last) was restored at `step`: sets cfg->plan, the lr
// curve for cfg->steps, as cfg->resume_schedule says (config.h, ordo_resume_sched). With the
// checkpoint's --steps the curve is the checkpoint's, unchanged (a bitwise resume). With
// another, it prints the old and new schedule and the lr at `step` under each on stderr
// (rank 0), and adds the change to the plan's history (config.json keeps it).
void ordo_resume_schedule(ordo_resume *r, int64_t step, ordo_train_config *cfg);
void ordo_resume_free(ordo_resume *r);

// ---- Starting from another run's weights, at a longer context (`ordo train --init`) ----

// Resolves what a new run of cfg starts from, before it is checked and built: `--init SRC`,
// SRC a run directory (its newest checkpoint that opens intact; those passed over are warned
// about) or a safetensors file (an ordo checkpoint, ordo_gpt_save's file, Hugging Face GPT-2
// names). Records in cfg->init_record the file, its run and step when it has them, the
// context it was trained at and its SHA-256. Every shape setting the file's metadata names
// (--d-model, --layers, --heads) and --pos must equal cfg's: ORDO_ERR_ARG naming the option
// and both values otherwise (--context may differ). Then the RoPE scaling: rope-orig-context
// 0 becomes the source's context (with a scaling), rope-factor 0 the ratio of the contexts;
// a scaling whose factor comes out 1 is ORDO_ERR_ARG (it would change nothing). Without
// --init only the scaling is resolved. Errors name --init and the file.
ordo_status ordo_init_resolve(ordo_train_config *cfg);

// Loads cfg's --init weights into m (built from cfg; ordo_checkpoint_load_weights' checks).
// A learned table of another length is fitted to m's T_max as cfg->extend_pos says
// (ordo_extend_table); every other tensor must have m's shape (the message names it and both
// shapes). With an init record the file must still have the recorded SHA-256 (ORDO_ERR_ARG
// naming both otherwise); without one (an older run's config) --init is resolved again.
ordo_status ordo_init_load(const ordo_train_config *cfg, ordo_gpt *m);

// Fits a position table src [T0, C] to dst [T, C]. T > T0: interpolate sets row p to the
// linear interpolation of src at x = p (T0-1)/(T-1) (both ends kept; PyTorch's
// F.interpolate(mode="linear", align_corners=True)); fresh copies the T0 rows and leaves rows
// T0.. as they are (the new table's own init). T <= T0: the first T rows, either way.
void ordo_extend_table(float *dst, int T, const float *src, int T0, int C, ordo_extend_pos how);

// Copies every parameter of src into m, two models of one config but for T_max: a learned
// table of another length is fitted to m's T_max as `how` says (ordo_extend_table; fresh
// rows keep m's own init). What ordo_init_load does once it has read the file.
void ordo_init_fit(ordo_gpt *m, const ordo_gpt *src, ordo_extend_pos how);

// The model that `ordo train --init RUN --context T --extend-pos how --seed <the run's>`
// starts from, made from src (a learned-scheme model of run cfg) into *dst: built from cfg at
// context T with cfg->seed (so fresh rows are the ones that run's init draws), then
// ordo_init_fit, at src's precision. ORDO_ERR_ARG for a scheme without a learned table.
// For `ordo eval --extend-pos`; free dst with ordo_gpt_free.
ordo_status ordo_extend_model(const ordo_train_config *cfg, const ordo_gpt *src, int T,
                              ordo_extend_pos how, ordo_gpt *dst);

#endif
