// The training loop behind `ordo train`: build (or restore) a run from its config, step the
// optimizer, evaluate, log metrics.jsonl, checkpoint, and stop safely on a signal or a
// non-finite loss. Also the evaluation used by `ordo eval`.
#ifndef ORDO_TRAINER_H
#define ORDO_TRAINER_H
#include "data/dataset.h"
#include "framework/optim.h"
#include "models/gpt.h"
#include "train/config.h"
#include "train/run.h"

typedef struct ordo_train_request {
    ordo_train_config *cfg; // the parsed options (defaults, --config, flags)
    ordo_opt *opts;         // the option table (which flags were given)
    const char *resume;     // run dir to resume, or NULL
    long long stop_after;   // stop (checkpoint, exit) after this step; 0 = never
    long long poison_step;  // tests only: a NaN is written into wte before this step (0 = off)
} ordo_train_request;

// Runs a whole training (or its continuation). ORDO_ERR_INTERRUPTED after a signal or
// --stop-after, with a checkpoint written; ORDO_ERR_NUMERIC on a non-finite loss, with the
// last good checkpoint left as it was.
ordo_status ordo_train(const ordo_train_request *req);

#endif
