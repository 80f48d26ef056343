// What the rows share: their parameters' init, their metadata keys, and how a table by
// distance becomes the bias of a forward.
#include <stdio.h>

#include "models/pos/ops.h"
#include "models/pos/scheme.h"

void ordo_pos_fill_const(ordo_tensor *t, float v) {
    for (size_t i = 0; i < t->n; i++) t->data[i] = v;
}

void ordo_pos_meta_num(ordo_gpt_meta *mt, const char *key, const char *fmt, double v) {
    int n = mt->n;
    ORDO_ASSERT(n < ORDO_GPT_NMETA);
    snprintf(mt->num[n], sizeof mt->num[n], fmt, v);
    mt->keys[n] = key;
    mt->vals[n] = mt->num[n];
    mt->n = n + 1;
}

void ordo_pos_bias_by_distance(ordo_ctx *ctx, ordo_pos_step *f, ordo_tensor *x) {
    if (f->fused)
        f->tiles = ordo_distance_tiles(ctx, x, f->pos, f->B, f->T);
    else
        f->bias = ordo_dist_bias(ctx, x, f->pos, f->B, f->T);
}
