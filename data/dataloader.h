// Batches of dataset windows: batch_size, optional shuffle, drop_last, endless epochs.
// The order in epoch e is a pure function of (seed, e), so the whole position is three
// integers (ordo_dataloader_state) that a checkpoint saves and a resumed run restores to
// continue the same stream. Orders are identical on every machine (ordo_rng), but are not
// PyTorch's (its DataLoader draws from torch.Generator).
#ifndef ORDO_DATALOADER_H
#define ORDO_DATALOADER_H
#include <stdint.h>

#include "data/dataset.h"
#include "sys/error.h"

typedef struct ordo_dataloader_state {
    uint64_t seed;  // shuffle seed
    int64_t epoch;  // epochs started so far minus one (0 during the first)
    int64_t cursor; // windows of the current epoch already handed out
} ordo_dataloader_state;

typedef struct ordo_dataloader {
    const ordo_dataset *ds; // borrowed
    int batch, shuffle, drop_last;
    uint64_t seed;
    int64_t epoch, cursor;
    int64_t *perm; // [ds->count], the order of the current epoch (allocated once)
} ordo_dataloader;

// Sets up a loader at epoch 0, cursor 0. ORDO_ERR_ARG when batch < 1, or when drop_last
// leaves no batch at all (fewer windows than batch). Free with ordo_dataloader_free.
ordo_status ordo_dataloader_init(ordo_dataloader *dl, const ordo_dataset *ds, int batch,
                                 int shuffle, uint64_t seed, int drop_last);

// Fills inputs and targets, each [rows, max_length], with the next batch and returns rows:
// batch, or fewer for the last partial batch of an epoch when !drop_last. At the end of an
// epoch it moves on to the next one by itself (a new order when shuffling). No allocation.
int ordo_dataloader_next(ordo_dataloader *dl, int32_t *inputs, int32_t *targets);

// The current position; ordo_dataloader_set_state(get_state()) is a no-op.
ordo_dataloader_state ordo_dataloader_get_state(const ordo_dataloader *dl);

// Restores a position saved by get_state (same dataset and batch settings). ORDO_ERR_ARG
// when epoch < 0 or cursor is outside 0..count; the loader is unchanged then.
ordo_status ordo_dataloader_set_state(ordo_dataloader *dl, ordo_dataloader_state st);

// Batches in one epoch: floor(count / batch) with drop_last, else ceil(count / batch).
int64_t ordo_dataloader_batches_per_epoch(const ordo_dataloader *dl);

// Frees the permutation (a zeroed or already freed loader is fine).
void ordo_dataloader_free(ordo_dataloader *dl);

#endif
