// The context-use curve (see context_use.h): one batch of windows per (k, B targets), each
// window the k tokens before its target, scored at its last position alone.
#include "eval/context_use.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/ngram.h"
#include "run/progress.h"

// The input indices e (each predicting tokens[e + 1], or targets[e + 1]) that are scored: at least
// K_max - 1 tokens before them, a target that counts, evenly spaced. Returns how many.
static size_t pick_targets(const int32_t *targets, size_t n, int K_max, size_t max_targets,
                           size_t **out) {
    size_t first = (size_t)K_max - 1, last = n - 2; // n >= 2; e + 1 < n: tokens[e + 1] exists
    size_t cand = 0;
    for (size_t e = first; e <= last; e++) cand += !targets || targets[e + 1] >= 0;
    size_t want = cand < max_targets ? cand : max_targets;
    *out = ordo_xmalloc((want ? want : 1) * sizeof(size_t));
    if (!want) return 0;
    // the j-th of want evenly over the cand candidates: candidate floor(j * cand / want)
    size_t got = 0, seen = 0;
    for (size_t e = first; e <= last && got < want; e++) {
        if (targets && targets[e + 1] < 0) continue;
        if (seen == (size_t)((double)got * (double)cand / (double)want)) (*out)[got++] = e;
        seen++;
    }
    return got;
}

// The ks: powers of two below K_max, then K_max.
static int ks_of(int K_max, int *k) {
    int n = 0;
    for (int v = 1; v < K_max; v *= 2) k[n++] = v;
    k[n++] = K_max;
    return n;
}

ordo_status ordo_context_use_score(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens,
                                   const int32_t *targets, size_t n, int K_max, size_t max_targets,
                                   int B, int progress, ordo_context_use *out) {
    memset(out, 0, sizeof *out);
    if (K_max < 1 || B < 1 || max_targets < 1)
        return ordo_error(ORDO_ERR_ARG, "context use: K %d, batch %d, targets %zu: expected >= 1",
                          K_max, B, max_targets);
    size_t *at = NULL;
    size_t nt = n >= 2 ? pick_targets(targets, n, K_max, max_targets, &at) : 0;
    if (nt == 0) {
        free(at);
        return ordo_error(ORDO_ERR_ARG,
                          "context use: the stream of %zu tokens holds no scored target with %d "
                          "tokens before it",
                          n, K_max);
    }
    out->k = ordo_xmalloc(34 * sizeof(int));
    out->n = ks_of(K_max, out->k);
    out->loss = ordo_xcalloc((size_t)out->n, sizeof(double));
    out->targets = nt;
    // one batch's inputs and targets (B, K_max at most) and its row losses
    int32_t *in = ordo_xmalloc((size_t)B * K_max * sizeof(int32_t));
    int32_t *tg = ordo_xmalloc((size_t)B * K_max * sizeof(int32_t));
    double *rl = ordo_xmalloc((size_t)B * K_max * sizeof(double));
    ordo_eval_progress prog;
    size_t total = 0, done = 0;
    for (int i = 0; i < out->n; i++) total += (nt + (size_t)B - 1) / (size_t)B;
    ordo_eval_progress_init(&prog, ORDO_PROGRESS_AUTO, progress ? stderr : NULL, "eval context use",
                            "forward", total);
    ordo_status s = ORDO_OK;
    for (int i = 0; i < out->n && !s; i++) {
        int k = out->k[i];
        double sum = 0;
        for (size_t j0 = 0; j0 < nt && !s; j0 += (size_t)B) {
            int rows = (int)(nt - j0 < (size_t)B ? nt - j0 : (size_t)B);
            for (int r = 0; r < rows; r++) {
                size_t e = at[j0 + (size_t)r]; // the window is inputs e-k+1 .. e
                memcpy(in + (size_t)r * k, tokens + e + 1 - (size_t)k, (size_t)k * sizeof(int32_t));
                for (int c = 0; c < k - 1; c++) tg[(size_t)r * k + c] = -1;
                tg[(size_t)r * k + k - 1] = targets ? targets[e + 1] : tokens[e + 1];
            }
            ordo_tensor *loss;
            s = ordo_gpt_forward_loss(m, ctx, in, tg, rows, k, rl, &loss);
            for (int r = 0; r < rows && !s; r++) sum += rl[(size_t)r * k + k - 1];
            ordo_ctx_reset(ctx);
            ordo_eval_progress_update(&prog, ++done);
        }
        out->loss[i] = sum / (double)nt;
    }
    ordo_eval_progress_end(&prog);
    free(in);
    free(tg);
    free(rl);
    free(at);
    if (s) ordo_context_use_free(out);
    return s;
}

ordo_status ordo_context_use_ngram(const ordo_ngram *ng, const int32_t *tokens,
                                   const int32_t *targets, size_t n, int K_max, size_t max_targets,
                                   ordo_context_use *u) {
    if (u->n < 1 || K_max != u->k[u->n - 1] || u->ngram_loss)
        return ordo_error(ORDO_ERR_ARG,
                          "context use n-gram: K %d against the curve's %d%s: expected the "
                          "arguments of the curve's own call, once",
                          K_max, u->n > 0 ? u->k[u->n - 1] : 0, u->ngram_loss ? ", again" : "");
    size_t *at = NULL;
    size_t nt = n >= 2 ? pick_targets(targets, n, K_max, max_targets, &at) : 0;
    if (nt == 0 || nt != u->targets) {
        free(at);
        return ordo_error(ORDO_ERR_ARG, "context use n-gram: %zu targets picked, the curve has %zu",
                          nt, u->targets);
    }
    int N = ng->order;
    // one target's k tokens of context then the target (seq[k]), and each order's sum at each k
    int32_t *seq = ordo_xmalloc(((size_t)K_max + 1) * sizeof *seq);
    double *sum = ordo_xcalloc((size_t)u->n * (size_t)N, sizeof *sum), p[ORDO_NGRAM_MAX_ORDER];
    ordo_status s = ORDO_OK;
    for (size_t j = 0; j < nt && !s; j++) {
        size_t e = at[j];
        int32_t y = targets ? targets[e + 1] : tokens[e + 1];
        if (y < 0 || y >= ng->vocab) {
            s = ordo_error(ORDO_ERR_ARG, "context use n-gram: target %d at %zu: expected 0..%d",
                           (int)y, e + 1, ng->vocab - 1);
            break;
        }
        for (int i = 0; i < u->n; i++) {
            int k = u->k[i];
            memcpy(seq, tokens + e + 1 - (size_t)k, (size_t)k * sizeof *seq);
            seq[k] = y;
            ordo_ngram_probs(ng, seq, k, p);
            for (int o = 0; o < N; o++) sum[(size_t)i * N + o] -= log(p[o]);
        }
    }
    if (!s) {
        u->ngram_loss = ordo_xmalloc((size_t)u->n * sizeof *u->ngram_loss);
        u->ngram_order = ordo_xmalloc((size_t)u->n * sizeof *u->ngram_order);
        for (int i = 0; i < u->n; i++) {
            int best = 0;
            for (int o = 1; o < N; o++)
                if (sum[(size_t)i * N + o] < sum[(size_t)i * N + best]) best = o;
            u->ngram_loss[i] = sum[(size_t)i * N + best] / (double)nt;
            u->ngram_order[i] = best + 1;
        }
    }
    free(sum);
    free(seq);
    free(at);
    return s;
}

void ordo_context_use_free(ordo_context_use *u) {
    free(u->k);
    free(u->loss);
    free(u->ngram_loss);
    free(u->ngram_order);
    memset(u, 0, sizeof *u);
}
