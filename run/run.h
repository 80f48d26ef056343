// A run directory opened for eval, sample and viz: its newest usable checkpoint, the model and
// the data (run/rundata.h) rebuilt from the config it was trained with.
// - Which checkpoint is used: the newest that is intact (its checksum, its step against its
//   name, finite values; run/checkpoint.h) and loads; each one passed over is named in an
//   `ordo: warning: skipping <path>: <why>` line, and when none is left the error lists them.
// A run continued is run/resume.h; a run started from another's weights, run/init.h.
#ifndef ORDO_RUN_H
#define ORDO_RUN_H
#include <jansson.h>
#include <stdint.h>

#include "sys/fileio.h"
#include "sys/strbuf.h"
#include "models/gpt.h"
#include "run/config.h"
#include "run/rundata.h"

// The folder of a run directory that holds its eval records (eval/eval_record.h): a part of
// the run's layout, which resume cleans of a killed writer's temporaries.
#define ORDO_EVAL_DIR "eval"

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
    char xxh3[17];            // its data checksum (ORDO_ST_HASH_KEY), "" when it has none
} ordo_run_view;

// Whether ck, the config a checkpoint of run dir was trained with, is dir's own run: when
// dir/config.json reads, their fixed settings (seed, shape, data, ... as resume compares
// them) must agree; ORDO_ERR_ARG "it is not a checkpoint of this run (DIR/config.json): ..."
// naming the first difference otherwise. A config.json that does not read decides nothing.
ordo_status ordo_run_check_own(const char *dir, ordo_train_config *ck);

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

// Passes over checkpoint `path`, whose reason is the current error message: a warning on
// stderr (rank 0) and an entry "\n  <path>: <why>" in `list`, which the error quotes when none
// is left. The message's own "<path>: " prefix, if any, is not repeated.
void ordo_run_skip(ordo_strbuf *list, const char *path);
// The config checkpoint `path` of run dir was trained with (cj, its metadata), over the
// defaults, with out set to dir (out may differ on resume; the check wants one), and checked:
// a hand-edited or damaged config must not reach a model unchecked. Errors name path.
ordo_status ordo_run_checkpoint_config(const char *path, const char *dir, json_t *cj,
                                       ordo_train_config *cfg);

#endif
