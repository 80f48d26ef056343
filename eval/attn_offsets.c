// Attention by offset (see attn_offsets.h): sums over the windows, then the means.
#include "eval/attn_offsets.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ordo_status ordo_attn_offsets_measure(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens, size_t n,
                                      int T, int W, ordo_attn_offsets *out) {
    memset(out, 0, sizeof *out);
    if (T < 2 || n < (size_t)T)
        return ordo_error(ORDO_ERR_ARG,
                          "attention by offset: %zu tokens, windows of %d: expected T >= 2 and "
                          "at least one window",
                          n, T);
    int L = m->cfg.L, NH = m->cfg.NH, D = T / 4 > 1 ? T / 4 : 1;
    if ((size_t)W > n / (size_t)T) W = (int)(n / (size_t)T);
    if (W < 1) W = 1;
    *out = (ordo_attn_offsets){.L = L, .NH = NH, .T = T, .D = D, .windows = W};
    out->mass = ordo_xcalloc((size_t)L * NH * T, sizeof(double));
    out->spread = ordo_xcalloc((size_t)L * NH, sizeof(double));
    // rows[l, h, i - D, d]: query i's attention on offset d < D, summed over the windows
    size_t nq = (size_t)(T - D), per_head = nq * (size_t)D;
    double *rows = ordo_xcalloc((size_t)L * NH * per_head, sizeof(double));
    int was = m->record_attention, grad = ctx->grad_enabled;
    m->record_attention = 1;
    ctx->grad_enabled = 0;
    ordo_status s = ORDO_OK;
    for (int w = 0; w < W && !s; w++) {
        ordo_tensor *logits;
        s = ordo_gpt_forward(m, ctx, tokens + (size_t)w * T, NULL, 1, T, &logits, NULL);
        for (int l = 0; l < L && !s; l++)
            for (int h = 0; h < NH; h++) {
                const float *a = m->att[l] + (size_t)h * T * T; // (T, T) of batch row 0
                double *mass = out->mass + ((size_t)l * NH + h) * T;
                double *r = rows + ((size_t)l * NH + h) * per_head;
                for (int i = 0; i < T; i++)
                    for (int d = 0; d <= i; d++) {
                        double p = a[(size_t)i * T + i - d];
                        mass[d] += p;
                        if (i >= D && d < D) r[(size_t)(i - D) * D + d] += p;
                    }
            }
        ordo_ctx_reset(ctx);
    }
    m->record_attention = was;
    ctx->grad_enabled = grad;
    double *mean = ordo_xmalloc((size_t)D * sizeof(double));
    for (int k = 0; k < L * NH && !s; k++) {
        double *mass = out->mass + (size_t)k * T, *r = rows + (size_t)k * per_head;
        for (int d = 0; d < T; d++) mass[d] /= (double)W * (T - d); // queries i >= d per window
        // each query's row over offsets 0..D-1, renormalised (the windows' sum cancels)
        for (size_t q = 0; q < nq; q++) {
            double z = 0;
            for (int d = 0; d < D; d++) z += r[q * D + d];
            for (int d = 0; d < D; d++) r[q * D + d] = z > 0 ? r[q * D + d] / z : 1.0 / D;
        }
        for (int d = 0; d < D; d++) {
            mean[d] = 0;
            for (size_t q = 0; q < nq; q++) mean[d] += r[q * D + d];
            mean[d] /= (double)nq;
        }
        double tv = 0;
        for (size_t q = 0; q < nq; q++)
            for (int d = 0; d < D; d++) tv += 0.5 * fabs(r[q * D + d] - mean[d]);
        out->spread[k] = tv / (double)nq;
    }
    free(mean);
    free(rows);
    if (s) ordo_attn_offsets_free(out);
    return s;
}

void ordo_attn_offsets_free(ordo_attn_offsets *o) {
    free(o->mass);
    free(o->spread);
    memset(o, 0, sizeof *o);
}
