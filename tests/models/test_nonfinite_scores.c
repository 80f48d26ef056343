// No crash on any number a model can produce: for every position scheme, on both attention
// paths, a model whose attention scores overflow (q, k and v's weights scaled by 1e30: the
// scores are inf) or are NaN (every parameter NaN) runs its forward and backward; with NaN
// parameters the loss is NaN, which the trainer reports ("the loss is nan at step N").
// (Overflowed scores may still end in a finite loss: the residual stream overflows too, and
// layernorm's variance is then inf, its output its bias.) No scheme may use a NaN as an
// index. CoPE did: its count of gates p_ij compared as "past the clamp" with p > P - 1, false
// for a NaN, and the NaN count then indexed its table of position logits (a segfault in
// `ordo train --pos cope --lr 5 --optimizer sgd`, and in eval and sample of a checkpoint that
// overflows). T 16 (one tile) and 100 (two, the second partial).
#include <math.h>
#include <string.h>

#include "models/gpt.h"
#include "test.h"

static void one(ordo_pos pos, ordo_attn_impl attn, int T, float value, int scale) {
    ordo_gpt_config cfg = {
        .V = 24, .C = 16, .L = 2, .NH = 2, .T_max = 128, .pos = pos, .ln_eps = 1e-5f};
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &cfg, 3) == ORDO_OK);
    for (int k = 0; k < m.params.count; k++) {
        ordo_tensor *t = m.params.t[k];
        if (scale && !strstr(t->name, "attn.c_attn")) continue;
        for (size_t i = 0; i < t->n; i++) t->data[i] = scale ? t->data[i] * value : value;
    }
    m.attention = attn;
    int B = 2;
    int32_t idx[2 * 100], tg[2 * 100];
    for (int i = 0; i < B * T; i++) idx[i] = (i * 5) % cfg.V, tg[i] = (i * 7 + 1) % cfg.V;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *loss = NULL;
    ordo_status s = ordo_gpt_forward(&m, &ctx, idx, tg, B, T, NULL, &loss);
    CHECK_MSG(s == ORDO_OK, "--pos %s %s T %d: forward failed: %s", ordo_pos_name(pos),
              ordo_attn_impl_name(attn), T, ordo_error_message());
    if (s == ORDO_OK) {
        CHECK_MSG(scale || !isfinite(loss->data[0]), "--pos %s %s T %d (%s): loss %g is finite",
                  ordo_pos_name(pos), ordo_attn_impl_name(attn), T, scale ? "x1e30" : "NaN",
                  loss->data[0]);
        ordo_backward(&ctx, loss); // must not crash either
    }
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
}

int main(void) {
    const int Ts[] = {16, 100};
    for (int p = 0; p < ORDO_POS_COUNT; p++)
        for (int a = 0; a < 2; a++)
            for (int t = 0; t < 2; t++) {
                ordo_attn_impl attn = a ? ORDO_ATTN_MATERIALIZED : ORDO_ATTN_FUSED;
                one((ordo_pos)p, attn, Ts[t], 1e30f, 1);
                one((ordo_pos)p, attn, Ts[t], NAN, 0);
            }
    TEST_MAIN_END();
}
