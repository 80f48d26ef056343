// Dataloader over a sliding-window dataset. The permutation of an epoch is rebuilt from
// (seed, epoch) when the epoch starts or the state is restored: seed an ordo_rng from a mix
// of the two and Fisher-Yates the identity (ordo_rng_shuffle_i64). No state beyond
// (seed, epoch, cursor), no allocation after init.
//
// Deliberately not here: worker threads or prefetch (a window is a memcpy), and sampling
// with replacement.
#include <stdlib.h>
#include <string.h>

#include "data/dataloader.h"
#include "framework/rng.h"

static void build_perm(ordo_dataloader *dl) {
    int64_t n = (int64_t)dl->ds->count;
    for (int64_t i = 0; i < n; i++) dl->perm[i] = i;
    if (!dl->shuffle) return;
    ordo_rng r;
    // distinct, well-mixed streams per epoch (the seeding runs splitmix64 over this)
    ordo_rng_seed(&r, dl->seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(dl->epoch + 1)));
    ordo_rng_shuffle_i64(&r, dl->perm, (size_t)n);
}

ordo_status ordo_dataloader_init(ordo_dataloader *dl, const ordo_dataset *ds, int batch,
                                 int shuffle, uint64_t seed, int drop_last) {
    memset(dl, 0, sizeof *dl);
    if (batch < 1)
        return ordo_error(ORDO_ERR_ARG, "dataloader: batch size %d, expected >= 1", batch);
    if (!ds || ds->count == 0)
        return ordo_error(ORDO_ERR_ARG, "dataloader: the dataset has no windows");
    if (drop_last && ds->count < (size_t)batch)
        return ordo_error(ORDO_ERR_ARG,
                          "dataloader: %zu windows make no full batch of %d "
                          "(drop_last); use a smaller batch, max_length or stride",
                          ds->count, batch);
    dl->ds = ds;
    dl->batch = batch;
    dl->shuffle = shuffle != 0;
    dl->drop_last = drop_last != 0;
    dl->seed = seed;
    dl->perm = ordo_xmalloc(ds->count * sizeof *dl->perm);
    build_perm(dl);
    return ORDO_OK;
}

int64_t ordo_dataloader_batches_per_epoch(const ordo_dataloader *dl) {
    int64_t n = (int64_t)dl->ds->count, b = dl->batch;
    return dl->drop_last ? n / b : (n + b - 1) / b;
}

int ordo_dataloader_next(ordo_dataloader *dl, int32_t *inputs, int32_t *targets) {
    int64_t n = (int64_t)dl->ds->count;
    int64_t left = n - dl->cursor;
    if (left <= 0 || (dl->drop_last && left < dl->batch)) {
        dl->epoch++;
        dl->cursor = 0;
        build_perm(dl);
        left = n;
    }
    int rows = left < dl->batch ? (int)left : dl->batch;
    size_t T = (size_t)dl->ds->max_length;
    for (int r = 0; r < rows; r++)
        ordo_dataset_get(dl->ds, (size_t)dl->perm[dl->cursor + r], inputs + r * T, targets + r * T);
    dl->cursor += rows;
    return rows;
}

ordo_dataloader_state ordo_dataloader_get_state(const ordo_dataloader *dl) {
    ordo_dataloader_state st = {dl->seed, dl->epoch, dl->cursor};
    return st;
}

ordo_status ordo_dataloader_set_state(ordo_dataloader *dl, ordo_dataloader_state st) {
    int64_t n = (int64_t)dl->ds->count;
    if (st.epoch < 0)
        return ordo_error(ORDO_ERR_ARG, "dataloader state: epoch %lld, expected >= 0",
                          (long long)st.epoch);
    if (st.cursor < 0 || st.cursor > n)
        return ordo_error(ORDO_ERR_ARG,
                          "dataloader state: cursor %lld, expected 0..%lld (the "
                          "dataset's window count; was the data or max_length changed?)",
                          (long long)st.cursor, (long long)n);
    int rebuild = st.seed != dl->seed || st.epoch != dl->epoch;
    dl->seed = st.seed;
    dl->epoch = st.epoch;
    dl->cursor = st.cursor;
    if (rebuild) build_perm(dl);
    return ORDO_OK;
}

void ordo_dataloader_free(ordo_dataloader *dl) {
    free(dl->perm);
    dl->perm = NULL;
}
