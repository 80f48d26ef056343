// Gradient checker used by the op tests (see gradcheck.h). It owns its context, so each
// evaluation starts from an empty tape; inputs are perturbed in place and restored.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/autograd.h"
#include "sys/error.h"
#include "framework/gradcheck.h"
#include "framework/rng.h"

static double eval_loss(ordo_ctx *ctx, ordo_gradcheck_fn fn, ordo_tensor **in, void *user,
                        const float *R) {
    ordo_ctx_reset(ctx);
    ordo_tensor *out = fn(ctx, in, user);
    double s = 0.0;
    for (size_t i = 0; i < out->n; i++) s += (double)out->data[i] * R[i];
    return s;
}

void ordo_gradcheck(ordo_gradcheck_fn fn, ordo_tensor **in, int nin, void *user, int max_coords,
                    double h, uint64_t seed, ordo_gradcheck_result *res) {
    memset(res, 0, sizeof *res);
    ordo_rng rng;
    ordo_rng_seed(&rng, seed);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);

    // analytic: backward from out with upstream R
    for (int k = 0; k < nin; k++) memset(in[k]->grad, 0, in[k]->n * sizeof(float));
    ordo_tensor *out = fn(&ctx, in, user);
    for (int i = 0; i < ctx.ntape; i++) res->op_nodes[ctx.tape[i].op]++; // < MAX_TAGS: push
    float *R = ordo_xmalloc(out->n * sizeof(float));
    for (size_t i = 0; i < out->n; i++) R[i] = (float)ordo_rng_normal(&rng);
    ordo_backward_from(&ctx, out, R);
    float **analytic = ordo_xmalloc(nin * sizeof(float *));
    for (int k = 0; k < nin; k++) {
        analytic[k] = ordo_xmalloc(in[k]->n * sizeof(float));
        memcpy(analytic[k], in[k]->grad, in[k]->n * sizeof(float));
    }

    for (int k = 0; k < nin; k++) {
        ordo_tensor *x = in[k];
        size_t ncheck = (size_t)max_coords < x->n ? (size_t)max_coords : x->n;
        size_t *idx = ordo_xmalloc(ncheck * sizeof(size_t));
        double *num = ordo_xmalloc(ncheck * sizeof(double));
        double maxnum = 0.0;
        for (size_t c = 0; c < ncheck; c++) {
            size_t i = ncheck == x->n ? c : (size_t)ordo_rng_below(&rng, x->n);
            idx[c] = i;
            float x0 = x->data[i];
            double step = h;
            double f[4];
            const double off[4] = {-2, -1, 1, 2};
            for (int s = 0; s < 4; s++) {
                x->data[i] = (float)(x0 + off[s] * step);
                f[s] = eval_loss(&ctx, fn, in, user, R);
            }
            x->data[i] = x0;
            // 4-point stencil: error O(step^4), so step can be large enough for float32
            num[c] = (8.0 * (f[2] - f[1]) - (f[3] - f[0])) / (12.0 * step);
            maxnum = fmax(maxnum, fabs(num[c]));
        }
        double floor = fmax(0.1 * maxnum, 1e-6);
        for (size_t c = 0; c < ncheck; c++) {
            double a = analytic[k][idx[c]], n = num[c];
            double abs_err = fabs(a - n);
            double rel = abs_err / fmax(fmax(fabs(a), fabs(n)), floor);
            res->checked++;
            if (abs_err > res->max_abs_err) res->max_abs_err = abs_err;
            if (rel > res->max_rel_err) {
                res->max_rel_err = rel;
                res->worst_input = k;
                res->worst_index = idx[c];
                res->worst_analytic = a;
                res->worst_numeric = n;
            }
        }
        free(idx);
        free(num);
    }
    for (int k = 0; k < nin; k++) free(analytic[k]);
    free(analytic);
    free(R);
    ordo_ctx_free(&ctx);
}
