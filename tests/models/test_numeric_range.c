// A scheme's numeric range (its row's max_length): xPos's decay zeta^(n/512) is a finite float
// up to the length its row names and infinite two tokens past it, so the limit is the edge and
// not a guess; the forward refuses a longer length by name instead of scoring NaN. Every row
// with a limit is checked (a new one is covered without an edit).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/gpt.h"
#include "models/pos/scheme.h"
#include "test.h"

// Whether ordo_xpos_scale_table at length T holds an infinity, for a head of size hs.
static int xpos_overflows(int T, int hs) {
    int C = hs, NH = 1;
    float *t = malloc((size_t)T * 3 * C * sizeof *t);
    ordo_xpos_scale_table(t, T, C, NH);
    int inf = 0;
    for (size_t i = 0; i < (size_t)T * 3 * C && !inf; i++) inf = !isfinite(t[i]);
    free(t);
    return inf;
}

int main(void) {
    const int hss[] = {4, 8, 16};
    for (int k = 0; k < 3; k++) {
        ordo_gpt_config c = {.C = hss[k], .NH = 1};
        int L = ordo_pos_row(ORDO_POS_XPOS)->max_length(&c);
        CHECK_MSG(L > 60000 && L < 80000, "xpos range %d for hs %d", L, hss[k]);
        CHECK_MSG(!xpos_overflows(L, hss[k]), "hs %d: the table overflows at its limit %d", hss[k],
                  L);
        CHECK_MSG(xpos_overflows(L + 2, hss[k]), "hs %d: no overflow past its limit %d", hss[k], L);
        printf("xpos, head size %d: finite up to %d tokens\n", hss[k], L);
    }
    for (int p = 0; p < ORDO_POS_COUNT; p++) {
        const ordo_pos_scheme *row = ordo_pos_row((ordo_pos)p);
        if (!row->max_length) continue;
        ordo_gpt_config c = {
            .V = 11, .C = 16, .L = 1, .NH = 2, .T_max = 8, .pos = (ordo_pos)p, .ln_eps = 1e-5f};
        ordo_gpt m;
        CHECK(ordo_gpt_init(&m, &c, 1) == ORDO_OK);
        int L = row->max_length(&m.cfg), T = L + 1;
        int32_t *idx = calloc((size_t)T, sizeof *idx);
        ordo_ctx ctx;
        ordo_ctx_init(&ctx);
        ctx.grad_enabled = 0;
        ordo_tensor *loss;
        CHECK(ordo_gpt_forward(&m, &ctx, idx, idx, 1, T, NULL, &loss) == ORDO_ERR_ARG);
        CHECK_MSG(strstr(ordo_error_message(), "is past what --pos") &&
                      strstr(ordo_error_message(), row->max_length_why),
                  "%s", ordo_error_message());
        ordo_ctx_free(&ctx);
        free(idx);
        ordo_gpt_free(&m);
    }
    TEST_MAIN_END();
}
