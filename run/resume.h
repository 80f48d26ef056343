// A run to continue (`ordo train --resume`, ordo_resume_*): the config to train with, the
// checkpoint's with the options given on the command line on top, resolved before the trainer
// starts, and the run's checkpoints that the trainer then tries, newest first; the lr schedule
// when --steps changes on resume.
#ifndef ORDO_RESUME_H
#define ORDO_RESUME_H
#include <stdint.h>

#include "sys/fileio.h"
#include "framework/safetensors.h"
#include "sys/strbuf.h"
#include "run/checkpoint.h"
#include "run/config.h"

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
// naming it and both values), checkpoints none of which is usable (one whose config does not
// read is skipped with a warning, as a damaged one is), a missing dir or config.json.
// cfg->data_check is ORDO_DATA_REFUSE on return (set ORDO_DATA_ACCEPT to train on a changed data
// file). Skipped checkpoints are warned about on stderr (rank 0). Collective under MPI: all ranks
// share the outcome. Free r with ordo_resume_free, also after an error.
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

#endif
