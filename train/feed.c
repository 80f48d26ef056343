// The data side of a training run (see feed.h): data, windows and dataloader from a config,
// as the trainer builds them and `ordo data` shows them. Nothing here draws a batch; the
// caller does, with ordo_dataloader_next.
#include <string.h>

#include "framework/names.h"
#include "train/feed.h"

ordo_status ordo_feed_open(const ordo_train_config *c, ordo_rundata *data, ordo_dataset *train_ds,
                           ordo_dataset *val_ds, ordo_dataloader *loader, int *stride) {
    memset(loader, 0, sizeof *loader);
    ordo_status s = ordo_rundata_load(data, c);
    if (s) return s;
    int T = (int)c->context;
    *stride = (int)c->stride;
    if (data->example_len) {
        if (T < data->example_len)
            return ordo_error(ORDO_ERR_ARG,
                              "--context %d is shorter than one %s example (%d tokens for "
                              "--max-len %lld)",
                              T, c->task, data->example_len, c->max_len);
        if (!*stride) *stride = data->example_len; // windows start on example boundaries
    }
    if (!*stride) *stride = T;
    if ((s = ordo_rundata_train_dataset(data, T, *stride, train_ds)))
        return ordo_error_wrap(s, "training split");
    if ((s = ordo_dataset_init(val_ds, data->val, data->nval, T, *stride))) {
        if (c->val_data)
            return ordo_error_wrap(s, "--val-data %s",
                                   data->val_path ? data->val_path : c->val_data);
        return ordo_error_wrap(s, "validation split (--val-frac %g)", c->val_frac);
    }
    val_ds->targets = data->val_targets;
    // one loader batch per optimizer step, batch*grad_accum rows: the order of a K-times
    // larger batch (the trainer cuts it into --batch-row micro-batches)
    if ((s = ordo_dataloader_init(loader, train_ds, (int)(c->batch * c->grad_accum),
                                  (int)c->shuffle, (uint64_t)c->seed, (int)c->drop_last)))
        return ordo_error_wrap(s, "training split");
    return ORDO_OK;
}

void ordo_feed_tokenizer_of_data(ordo_train_config *c, int given,
                                 char name[ORDO_TOKFILE_NAME + 1]) {
    int tokfile = 0;
    ordo_tokfile_header h;
    // errors (a missing file, a FIFO, a bad header) are reported by ordo_rundata_load, fully
    // (a name this ordo does not know is left to ordo_rundata_load to report, with the file)
    if (!c->data || given || ordo_tokfile_probe(c->data, &tokfile) || !tokfile ||
        ordo_tokfile_read_header(c->data, &h) ||
        ordo_names_find(&ordo_tokenizer_kind_names, h.tokenizer) < 0) {
        ordo_error_clear();
        return;
    }
    memcpy(name, h.tokenizer, sizeof h.tokenizer);
    c->tokenizer = name;
}
