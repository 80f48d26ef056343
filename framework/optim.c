// The update rules follow torch.optim.AdamW and torch.optim.SGD (foreach=False) operation
// for operation in float32, so that a step matches PyTorch to rounding; the per-step
// scalars (bias corrections) are computed in double as Python does and then rounded.
// Deliberately no Nesterov, no AMSGrad, no per-group learning rates.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/optim.h"

void ordo_optim_defaults(ordo_optim_config *c) {
    memset(c, 0, sizeof *c);
    c->kind = ORDO_OPTIM_ADAMW;
    c->beta1 = 0.9;
    c->beta2 = 0.95;
    c->eps = 1e-8;
    c->momentum = 0.9;
    c->weight_decay = 0.1;
    c->decay_pos = 1;
}

ORDO_NAMES_ENUM(ordo_optim_kind, ordo_optim_parse_kind, ordo_optim_kind_name, ordo_optim_kind_names,
                "optimizer", ORDO_OPTIM_SGD + 1, "adamw", "sgd");

ordo_status ordo_optim_init(ordo_optim *o, ordo_params *p, const ordo_optim_config *cfg) {
    memset(o, 0, sizeof *o);
    if (!(cfg->beta1 >= 0 && cfg->beta1 < 1))
        return ordo_error(ORDO_ERR_ARG, "beta1 is %g, expected in [0, 1)", cfg->beta1);
    if (!(cfg->beta2 >= 0 && cfg->beta2 < 1))
        return ordo_error(ORDO_ERR_ARG, "beta2 is %g, expected in [0, 1)", cfg->beta2);
    if (!(cfg->eps > 0)) return ordo_error(ORDO_ERR_ARG, "eps is %g, expected > 0", cfg->eps);
    if (!(cfg->momentum >= 0 && cfg->momentum < 1))
        return ordo_error(ORDO_ERR_ARG, "momentum is %g, expected in [0, 1)", cfg->momentum);
    if (!(cfg->weight_decay >= 0))
        return ordo_error(ORDO_ERR_ARG, "weight decay is %g, expected >= 0", cfg->weight_decay);
    o->cfg = *cfg;
    o->p = p;
    o->m = ordo_xcalloc(p->total ? p->total : 1, sizeof(float));
    if (cfg->kind == ORDO_OPTIM_ADAMW) o->v = ordo_xcalloc(p->total ? p->total : 1, sizeof(float));
    return ORDO_OK;
}

void ordo_optim_free(ordo_optim *o) {
    free(o->m);
    free(o->v);
    memset(o, 0, sizeof *o);
}

int ordo_optim_decays(const ordo_optim *o, const ordo_tensor *t) {
    if (t->ndim < 2 || (t->flags & ORDO_NO_DECAY)) return 0;
    if ((t->flags & ORDO_POSITION) && !o->cfg.decay_pos) return 0;
    return o->cfg.weight_decay > 0;
}

static void adamw_tensor(float *restrict p, const float *restrict g, float *restrict m,
                         float *restrict v, size_t n, float lr, float wd, float b1, float b2,
                         float eps, float step_size, float bc2_sqrt) {
    float keep = 1.0f - lr * wd;
#pragma omp parallel for simd if (n > 65536)
    for (size_t i = 0; i < n; i++) {
        p[i] *= keep;
        m[i] = m[i] * b1 + g[i] * (1.0f - b1);
        v[i] = v[i] * b2 + g[i] * g[i] * (1.0f - b2);
        float denom = sqrtf(v[i]) / bc2_sqrt + eps;
        p[i] += -step_size * (m[i] / denom);
    }
}

static void sgd_tensor(float *restrict p, const float *restrict g, float *restrict buf, size_t n,
                       float lr, float wd, float mom, int first) {
#pragma omp parallel for simd if (n > 65536)
    for (size_t i = 0; i < n; i++) {
        float d = wd != 0.0f ? g[i] + wd * p[i] : g[i];
        buf[i] = first ? d : buf[i] * mom + d;
        p[i] += -lr * buf[i];
    }
}

void ordo_optim_step(ordo_optim *o, float lr) {
    o->t++;
    const ordo_optim_config *c = &o->cfg;
    double bc1 = 1.0 - pow(c->beta1, (double)o->t), bc2 = 1.0 - pow(c->beta2, (double)o->t);
    float step_size = (float)(lr / bc1), bc2_sqrt = (float)sqrt(bc2);
    for (int i = 0; i < o->p->count; i++) {
        ordo_tensor *t = o->p->t[i];
        size_t off = (size_t)(t->data - o->p->data);
        float wd = ordo_optim_decays(o, t) ? (float)c->weight_decay : 0.0f;
        if (c->kind == ORDO_OPTIM_ADAMW)
            adamw_tensor(t->data, t->grad, o->m + off, o->v + off, t->n, lr, wd, (float)c->beta1,
                         (float)c->beta2, (float)c->eps, step_size, bc2_sqrt);
        else
            sgd_tensor(t->data, t->grad, o->m + off, t->n, lr, wd, (float)c->momentum, o->t == 1);
    }
}

#define NORM_BLOCK ((size_t)1 << 16)
#define NORM_GROUP 256

// Over the whole gradient block (the padding between tensors stays zero): the sum of squares
// of each block of NORM_BLOCK floats in double, the block sums added in order, so the result
// is the same for any thread count; blocks run in parallel.
double ordo_grad_norm(const ordo_params *p) {
    const float *g = p->grad;
    size_t n = p->total, nb = (n + NORM_BLOCK - 1) / NORM_BLOCK;
    double total = 0.0;
    for (size_t b0 = 0; b0 < nb; b0 += NORM_GROUP) {
        int nbb = (int)(nb - b0 < NORM_GROUP ? nb - b0 : NORM_GROUP);
        double part[NORM_GROUP];
#pragma omp parallel for if (nbb > 1)
        for (int b = 0; b < nbb; b++) {
            size_t lo = (b0 + (size_t)b) * NORM_BLOCK,
                   hi = lo + NORM_BLOCK < n ? lo + NORM_BLOCK : n;
            double s = 0.0;
#pragma omp simd reduction(+ : s)
            for (size_t k = lo; k < hi; k++) s += (double)g[k] * g[k];
            part[b] = s;
        }
        for (int b = 0; b < nbb; b++) total += part[b];
    }
    return sqrt(total);
}

double ordo_clip_grad_norm(ordo_params *p, double max_norm) {
    double norm = ordo_grad_norm(p);
    if (max_norm <= 0) return norm;
    float coef = (float)(max_norm / (norm + 1e-6));
    float *g = p->grad;
    if (coef < 1.0f) {
#pragma omp parallel for simd if (p->total > 65536)
        for (size_t k = 0; k < p->total; k++) g[k] *= coef;
    }
    return norm;
}

ORDO_NAMES_ENUM(ordo_schedule, ordo_schedule_parse, ordo_schedule_name, ordo_schedule_names,
                "schedule", ORDO_SCHED_LINEAR + 1, "cosine", "constant", "linear");

double ordo_lr_at(ordo_schedule s, int64_t step, int64_t total, int64_t warmup, double lr,
                  double min_lr) {
    if (step < warmup) return lr * (double)(step + 1) / (double)warmup;
    if (s == ORDO_SCHED_CONSTANT) return lr;
    int64_t span = total - 1 - warmup;
    if (span <= 0) return lr;
    double frac = (double)(step - warmup) / (double)span; // 0 at the end of warmup, 1 at the end
    if (frac > 1) frac = 1;
    if (s == ORDO_SCHED_LINEAR) return lr + (min_lr - lr) * frac;
    return min_lr + 0.5 * (lr - min_lr) * (1.0 + cos(M_PI * frac));
}
