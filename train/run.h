// A run, rebuilt from its config and its checkpoints: what every command that works on a
// run directory shares.
// - Its data (ordo_rundata), from the config alone, so that train, eval, sample and resume
//   all see the same tokens: a built-in corpus generated from its seed, or a text file
//   tokenized with byte or gpt2; the token stream, the target stream (masked tokens = -1),
//   the train/val split, and the means to turn a prompt into ids and ids back into text.
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
#include "data/tokenizer.h"
#include "framework/fileio.h"
#include "framework/strbuf.h"
#include "models/gpt.h"
#include "train/checkpoint.h"
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
// Ids to text (malloc'd, NUL-terminated) of *len bytes (len may be NULL). The text may hold
// NUL bytes of its own (the byte tokenizer decodes id 0 to one): write it with its length.
ordo_status ordo_rundata_decode(ordo_rundata *d, const int32_t *ids, size_t n, char **text,
                                size_t *len);
void ordo_rundata_free(ordo_rundata *d);

// Loads a run for evaluation or sampling: the config and newest usable checkpoint of dir, the
// model and data rebuilt from that config (a checkpoint that does not open, is not intact or
// does not load is skipped with a warning). *step receives the checkpoint's step; free m and
// data with ordo_gpt_free and ordo_rundata_free. ORDO_ERR_ARG when dir has no checkpoint; when
// none is usable, the last one's error with the reason for each listed.
ordo_status ordo_run_open(const char *dir, ordo_train_config *cfg, ordo_rundata *data, ordo_gpt *m,
                          int64_t *step);

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
    ordo_strbuf skipped; // "\n  <path>: <why>" for each checkpoint passed over
} ordo_resume;

// Resolves the config of `ordo train --resume dir`. cfg holds the options as parsed and opts
// marks those given on the command line (seen; matched by name, other entries ignored). On
// return cfg is the config of the newest checkpoint that opens and belongs to the run, with
// the given options on top; with no checkpoint at all, dir/config.json's as it is. Errors: a
// given option that may not change on resume and differs from the checkpoint's (ORDO_ERR_ARG
// naming it and both values), an invalid checkpoint config, checkpoints none of which is
// usable, a missing dir or config.json. Skipped checkpoints are warned about on stderr (rank
// 0). Collective under MPI: all ranks share the outcome. Free r with ordo_resume_free, also
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
void ordo_resume_free(ordo_resume *r);

#endif
