// What training feeds the model, built from a training config: the run's data (ordo_rundata),
// the training and validation windows and the training dataloader, with the stride rules of
// `ordo train` (0 = the context; a built-in task with examples: the example length). The one
// place these are set up, so that `ordo data` shows exactly the batches `ordo train` draws.
#ifndef ORDO_FEED_H
#define ORDO_FEED_H
#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/tokfile.h"
#include "run/config.h"
#include "run/rundata.h"

// Loads c's data (ordo_rundata_load, with c->data_check) and sets up the training windows
// (train_ds), the validation windows (val_ds) and the dataloader over the training windows
// (c's batch, shuffle, seed, drop_last); *stride receives the stride used. Errors name the
// option or the split (a context longer than a task's example, a split too short for one
// window, drop_last with no full batch). Free with ordo_dataloader_free and
// ordo_rundata_free, also after an error (both are safe on what was not built).
ordo_status ordo_feed_open(const ordo_train_config *c, ordo_rundata *data, ordo_dataset *train_ds,
                           ordo_dataset *val_ds, ordo_dataloader *loader, int *stride);

// A new run's tokenizer when the data is a token file and no tokenizer was given (given = 0):
// the one its header names, copied into name[] and pointed to by c->tokenizer. Anything else
// (no data, a text file, an unreadable file or header, a name this ordo does not know) leaves
// c as it is: ordo_rundata_load reports those problems in full.
void ordo_feed_tokenizer_of_data(ordo_train_config *c, int given, char name[ORDO_TOKFILE_NAME + 1]);

#endif
