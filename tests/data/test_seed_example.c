// The seed example of the design: token table [50257, 256] and learned positional table
// [4, 256]; a batch [8, 4] of ids; token embeddings [8, 4, 256] + positions [4, 256]
// broadcast; a loss on the sum. Backward must reach BOTH tables, and positional row p must
// equal the sum over the batch of the upstream gradient at position p, exactly.
#include <string.h>

#include "framework/autograd.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "test.h"

enum { V = 50257, C = 256, TMAX = 4, B = 8, T = 4 };

int main(void) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *wte = ordo_params_add(&p, "wte.weight", 2, (int[]){V, C}, 0);
    ordo_tensor *wpe = ordo_params_add(&p, "wpe.weight", 2, (int[]){TMAX, C}, 0);
    ordo_params_alloc(&p);
    ordo_rng r;
    ordo_rng_seed(&r, 42);
    for (size_t i = 0; i < wte->n; i++) wte->data[i] = (float)(0.02 * ordo_rng_normal(&r));
    for (size_t i = 0; i < wpe->n; i++) wpe->data[i] = (float)(0.02 * ordo_rng_normal(&r));

    // the first batch of the-verdict (README), so ids repeat across rows (e.g. 257, 284, 438)
    const int32_t ids[B * T] = {40,   367,   2885, 1464, 1807, 3619, 402,  271,  10899, 2138, 257,
                                7026, 15632, 438,  2016, 257,  922,  5891, 1576, 438,   568,  340,
                                373,  645,   1049, 5975, 284,  502,  284,  3285, 326,   11};
    const int32_t pos[T] = {0, 1, 2, 3};

    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *tok = ordo_embedding(&ctx, wte, ids, 2, (int[]){B, T}); // (B, T, C)
    ordo_tensor *pe = ordo_embedding(&ctx, wpe, pos, 1, (int[]){T});     // (T, C)
    ordo_tensor *x = ordo_add(&ctx, tok, pe);                            // (B, T, C)
    CHECK(x->ndim == 3 && x->shape[0] == B && x->shape[1] == T && x->shape[2] == C);
    // forward: x[b,t] = wte[ids[b,t]] + wpe[t], exactly
    int fwd_ok = 1;
    for (int b = 0; b < B; b++)
        for (int t = 0; t < T; t++)
            for (int c = 0; c < C; c++)
                if (x->data[((size_t)b * T + t) * C + c] !=
                    wte->data[(size_t)ids[b * T + t] * C + c] + wpe->data[(size_t)t * C + c])
                    fwd_ok = 0;
    CHECK(fwd_ok);

    // loss = sum(x * R): the upstream gradient at x is exactly R
    ordo_tensor *R = ordo_tensor_new3(&ctx, B, T, C);
    for (size_t i = 0; i < R->n; i++) R->data[i] = (float)ordo_rng_normal(&r);
    ordo_tensor *loss = ordo_sum(&ctx, ordo_mul(&ctx, x, R));
    ordo_backward(&ctx, loss);

    // positional row p == sum over the batch of R[:, p, :] (same order of summation: exact)
    int pos_ok = 1, pos_nonzero = 0;
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            float s = 0.0f;
            for (int b = 0; b < B; b++) s += R->data[((size_t)b * T + t) * C + c];
            if (wpe->grad[(size_t)t * C + c] != s) pos_ok = 0;
            if (s != 0.0f) pos_nonzero = 1;
        }
    CHECK(pos_ok);
    CHECK(pos_nonzero);

    // token rows: the sum of R over every (b, t) holding that id; repeated ids accumulate;
    // rows of ids that never occur stay zero
    float *want = calloc((size_t)V * C, sizeof(float));
    for (int i = 0; i < B * T; i++)
        for (int c = 0; c < C; c++) want[(size_t)ids[i] * C + c] += R->data[(size_t)i * C + c];
    CHECK(memcmp(want, wte->grad, (size_t)V * C * sizeof(float)) == 0);
    int repeated = 0;
    for (int i = 0; i < B * T; i++)
        for (int j = i + 1; j < B * T; j++) repeated += ids[i] == ids[j];
    CHECK(repeated >= 3); // the batch really exercises the scatter-add of repeated ids
    free(want);

    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
    TEST_MAIN_END();
}
