// The training loop behind `ordo train`: build (or restore) a run from its config, step the
// optimizer, validate, log metrics.jsonl, checkpoint, and stop safely on a signal or a
// non-finite loss. The config comes resolved: a resumed run's is merged from its checkpoint
// and the command line beforehand (ordo_resume_open, run/resume.h).
#ifndef ORDO_TRAINER_H
#define ORDO_TRAINER_H
#include "sys/dirlock.h"
#include "run/config.h"
#include "run/progress.h"
#include "run/resume.h"

typedef struct ordo_train_request {
    // the config to train with: the options (defaults, --config, flags) of a new run, or the
    // config ordo_resume_open resolved for the run in `resume`
    const ordo_train_config *cfg;
    ordo_resume *resume; // the run to continue (from ordo_resume_open), or NULL
    // the lock of cfg->out, when the caller holds it (a resumed run is locked before its
    // checkpoints are listed); NULL: ordo_train takes it itself, for as long as it runs
    ordo_dirlock *lock;
    long long stop_after;  // stop with a checkpoint after this step, as on a signal; 0 = never
    long long poison_step; // tests only: a NaN is written into wte before this step (0 = off)
    ordo_progress_mode progress; // the step lines on stdout (run/progress.h); 0 = AUTO
} ordo_train_request;

// Trains the run of req->cfg in its out directory: a new run (ORDO_ERR_ARG if the directory
// already holds a config.json), or req->resume continued from its newest checkpoint that
// loads (from step 0 if it has none yet). Rank 0 writes config.json, metrics.jsonl and the
// checkpoints, under the directory's lock (ORDO_ERR_STATE naming the holder, before anything
// is written, when another process has it); under MPI every rank calls it.
// Rank 0 shows the progress on stdout (req->progress) and ends with a summary, also when
// interrupted. ORDO_ERR_INTERRUPTED after a signal or stop_after, with a checkpoint written;
// ORDO_ERR_NUMERIC on a non-finite loss or gradient norm, with the last good checkpoint left
// as it was; config, data and file errors otherwise.
ordo_status ordo_train(const ordo_train_request *req);

#endif
