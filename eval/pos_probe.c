// The position probe (see pos_probe.h): the fitted windows' normal equations per point, solved
// once; then the held-out windows' errors. Nothing of size windows x T x C is kept.
#include "eval/pos_probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// One forward of window w with the residual streams recorded (m->resid, L + 1 of (1, T, C)).
static ordo_status forward(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens, int T, int w) {
    ordo_tensor *logits;
    ordo_ctx_reset(ctx);
    return ordo_gpt_forward(m, ctx, tokens + (size_t)w * T, NULL, 1, T, &logits, NULL);
}

// Solves A w = b in place (A symmetric positive definite, n x n, overwritten by its Cholesky
// factor; b by w). Returns 0 when A is not positive definite.
static int cholesky_solve(double *A, double *b, int n) {
    for (int j = 0; j < n; j++) {
        double d = A[(size_t)j * n + j];
        for (int k = 0; k < j; k++) d -= A[(size_t)j * n + k] * A[(size_t)j * n + k];
        if (!(d > 0)) return 0;
        d = sqrt(d);
        A[(size_t)j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double v = A[(size_t)i * n + j];
            for (int k = 0; k < j; k++) v -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
            A[(size_t)i * n + j] = v / d;
        }
    }
    for (int i = 0; i < n; i++) { // L y = b
        double v = b[i];
        for (int k = 0; k < i; k++) v -= A[(size_t)i * n + k] * b[k];
        b[i] = v / A[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { // L^T w = y
        double v = b[i];
        for (int k = i + 1; k < n; k++) v -= A[(size_t)k * n + i] * b[k];
        b[i] = v / A[(size_t)i * n + i];
    }
    return 1;
}

ordo_status ordo_pos_probe_measure(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens, size_t n,
                                   int T, int W, ordo_pos_probe *out) {
    memset(out, 0, sizeof *out);
    if (T < 2 || n < 2 * (size_t)T)
        return ordo_error(ORDO_ERR_ARG,
                          "position probe: %zu tokens, windows of %d: expected T >= 2 and at "
                          "least two windows (one fitted, one held out)",
                          n, T);
    if ((size_t)W > n / (size_t)T) W = (int)(n / (size_t)T);
    if (W < 2) W = 2;
    int P = m->cfg.L + 1, C = m->cfg.C, D = C + 1; // features and a bias (last)
    int fit = W / 2, test = W - fit;
    *out = (ordo_pos_probe){.points = P, .T = T, .fit_windows = fit, .test_windows = test};
    out->mae = ordo_xcalloc((size_t)P, sizeof(double));
    double *A = ordo_xcalloc((size_t)P * D * D, sizeof(double)); // sum of x x^T, x = (h, 1)
    double *b = ordo_xcalloc((size_t)P * D, sizeof(double));     // sum of x p
    double *x = ordo_xmalloc((size_t)D * sizeof(double));
    int was = m->record_attention, grad = ctx->grad_enabled;
    m->record_attention = 1;
    ctx->grad_enabled = 0;
    ordo_status s = ORDO_OK;
    for (int w = 0; w < fit && !s; w++) {
        if ((s = forward(m, ctx, tokens, T, w))) break;
        for (int p = 0; p < P; p++) {
            double *Ap = A + (size_t)p * D * D, *bp = b + (size_t)p * D;
            for (int t = 0; t < T; t++) {
                const float *h = m->resid[p] + (size_t)t * C; // batch row 0
                for (int j = 0; j < C; j++) x[j] = h[j];
                x[C] = 1;
                for (int i = 0; i < D; i++) {
                    bp[i] += x[i] * t;
                    for (int j = 0; j <= i; j++) Ap[(size_t)i * D + j] += x[i] * x[j];
                }
            }
        }
    }
    // ridge on standardised features: lambda * sd_j^2 on each raw weight, none on the bias;
    // the fitted rows' mean position is chance's prediction
    double N = (double)fit * T, lambda = 1e-3 * N;
    for (int p = 0; p < P && !s; p++) {
        double *Ap = A + (size_t)p * D * D, *bp = b + (size_t)p * D;
        for (int i = 0; i < D; i++) // the upper triangle from the lower one
            for (int j = i + 1; j < D; j++) Ap[(size_t)i * D + j] = Ap[(size_t)j * D + i];
        for (int j = 0; j < C; j++) {
            double mu = Ap[(size_t)j * D + C] / N, var = Ap[(size_t)j * D + j] / N - mu * mu;
            Ap[(size_t)j * D + j] += lambda * (var > 1e-12 ? var : 1e-12);
        }
        if (!cholesky_solve(Ap, bp, D))
            s = ordo_error(ORDO_ERR_ARG,
                           "position probe: the normal equations of point %d are "
                           "singular",
                           p);
    }
    double mean_pos = (T - 1) / 2.0, chance = 0;
    for (int w = fit; w < W && !s; w++) {
        if ((s = forward(m, ctx, tokens, T, w))) break;
        for (int p = 0; p < P; p++) {
            const double *wp = b + (size_t)p * D;
            for (int t = 0; t < T; t++) {
                const float *h = m->resid[p] + (size_t)t * C;
                double pred = wp[C];
                for (int j = 0; j < C; j++) pred += wp[j] * h[j];
                out->mae[p] += fabs(pred - t);
            }
        }
        for (int t = 0; t < T; t++) chance += fabs(mean_pos - t);
    }
    m->record_attention = was;
    ctx->grad_enabled = grad;
    for (int p = 0; p < P; p++) out->mae[p] /= (double)test * T;
    out->chance = chance / ((double)test * T);
    free(A);
    free(b);
    free(x);
    if (s) ordo_pos_probe_free(out);
    return s;
}

void ordo_pos_probe_free(ordo_pos_probe *p) {
    free(p->mae);
    memset(p, 0, sizeof *p);
}
