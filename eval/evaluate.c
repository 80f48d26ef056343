// Evaluation at any context length (see evaluate.h), in one loop over windows for both
// `ordo eval` and the trainer's validation, in inference mode: no tape, each layer's buffers
// released before the next (models/gpt.c), the LM head in row chunks (framework/lmhead.h), so
// that neither L layers' activations nor the (rows, T, V) logits are ever held. `ordo eval`'s
// losses are per scored position, in double (the chunked head's row losses), so that the loss
// by position comes for free; the trainer's validation keeps the model's fused cross-entropy,
// the number training reports.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evaluate.h"
#include "sys/dist.h"
#include "framework/names.h"
#include "models/positional.h"
#include "run/progress.h"

// Logits are (rows, T, V) floats: keep a forward's logits near 256 MiB at most.
#define MAX_LOGIT_FLOATS ((size_t)64 << 20)

ORDO_NAMES_ENUM(ordo_eval_mode, ordo_eval_mode_parse, ordo_eval_mode_name, ordo_eval_modes,
                "evaluation mode", ORDO_EVAL_SLIDING + 1, "nonoverlap", "sliding");

// 1 when d draws positions, 0 for 0..T-1 (d NULL or N 0).
static int draws(const ordo_eval_draw *d) {
    return d && d->N > 0;
}

// The positions of the next forward's rows, row r being window (example) idx0 + r or idx[r]:
// drawn into pos [rows, T] and handed to the model, or nothing when positions are 0..T-1.
// The caller clears them (positions_clear) before pos is freed.
static ordo_status positions_set(const ordo_eval_draw *d, ordo_gpt *m, int32_t *pos, int rows,
                                 int T, const size_t *idx, size_t idx0) {
    if (!draws(d)) return ORDO_OK;
    if (T > d->N)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past the run's --pos-random %d: there are no %d distinct "
                          "positions to draw (score it at 0..T-1, or at lengths up to %d)",
                          T, d->N, T, d->N);
    for (int r = 0; r < rows; r++)
        ordo_random_positions(pos + (size_t)r * T, T, d->N,
                              ordo_gpt_row_pos_seed(d->seed, (int64_t)(idx ? idx[r] : idx0 + r)));
    ordo_gpt_set_positions(m, pos);
    return ORDO_OK;
}

static void positions_clear(const ordo_eval_draw *d, ordo_gpt *m) {
    if (draws(d)) ordo_gpt_set_positions(m, NULL);
}

static int argmax(const float *x, int n) {
    int best = 0;
    for (int i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    return best;
}

// One evaluation: the windows of a stream and how to score them.
typedef struct eval_job {
    const int32_t *tokens, *targets; // [n]; targets NULL: the next tokens are the targets
    size_t n, max_windows;           // max_windows 0: every window
    int T, B, stride;                // window length, windows per forward, window_iter's S
    ordo_eval_mode mode;
    int fused; // score as training does (see score_fused), not per target (score_targets)
    const ordo_eval_show *show; // the progress (ordo eval; NULL: none, the trainer's validation)
    const ordo_eval_draw *draw; // the windows' positions (NULL: 0..T-1)
} eval_job;

// The model's per-layer hook (ordo_gpt.on_layer) during a forward of `rows` windows after
// `done`: one window of a long context is minutes of a single forward.
typedef struct layer_progress {
    ordo_eval_progress *prog;
    size_t done, rows;
} layer_progress;

static void on_layer(void *arg, int layer, int L) {
    layer_progress *lp = arg;
    ordo_eval_progress_layer(lp->prog, lp->done, lp->rows, layer, L);
}

// Every target of the batch, -log softmax in double (ordo_gpt_forward_loss's row losses: the
// LM head in row chunks, no (rows, T, V) logits), also by window position. rl: (rows, T).
static ordo_status score_targets(ordo_gpt *m, ordo_ctx *ctx, const int32_t *in, const int32_t *tg,
                                 int rows, int T, double *rl, double *sum, ordo_eval_result *r) {
    ordo_tensor *loss;
    ordo_status s = ordo_gpt_forward_loss(m, ctx, in, tg, rows, T, rl, &loss);
    if (s) return s;
    for (int i = 0; i < rows * T; i++) {
        if (tg[i] < 0) continue;
        double l = rl[i];
        *sum += l;
        r->targets++;
        r->pos_loss[i % T] += l;
        r->pos_count[i % T]++;
    }
    return ORDO_OK;
}

// The model's fused cross-entropy (a float mean over the batch's counted targets), weighted
// by that count: the number the trainer has always logged as val_loss, bit for bit.
static ordo_status score_fused(ordo_gpt *m, ordo_ctx *ctx, const int32_t *in, const int32_t *tg,
                               int rows, int T, double *sum, ordo_eval_result *r) {
    ordo_tensor *loss;
    ordo_status s = ordo_gpt_forward(m, ctx, in, tg, rows, T, NULL, &loss);
    size_t counted = 0;
    for (size_t i = 0; i < (size_t)rows * T; i++) counted += tg[i] >= 0;
    if (!s && counted) {
        *sum += (double)loss->data[0] * (double)counted;
        r->targets += counted;
    }
    return s;
}

// The windows of the job that rank `rank` of `size` runs (for the progress line).
static size_t windows_of_rank(const eval_job *job, int rank, int size) {
    ordo_eval_window_iter it = {.mode = job->mode, .n = job->n, .T = job->T, .S = job->stride};
    size_t b, seen = 0, mine = 0;
    int from;
    while (ordo_eval_window_next(&it, &b, &from) && !(job->max_windows && seen >= job->max_windows))
        mine += seen++ % (size_t)size == (size_t)rank;
    return mine;
}

// The one evaluation loop (ordo_eval_stream, ordo_eval_loss): the job's windows in stream
// order, up to B per forward, without a tape. Under MPI window k goes to rank k % size and
// the sums are reduced at the end, so that every rank returns the totals. r's arrays are
// allocated here.
static ordo_status eval_windows(ordo_gpt *m, ordo_ctx *ctx, const eval_job *job,
                                ordo_eval_result *r) {
    int T = job->T, B = job->B;
    int32_t *in = ordo_xmalloc((size_t)B * T * sizeof *in); // (B, T)
    int32_t *tg = ordo_xmalloc((size_t)B * T * sizeof *tg); // (B, T); -1: not scored
    r->pos_loss = ordo_xcalloc((size_t)T, sizeof *r->pos_loss);
    r->pos_count = ordo_xcalloc((size_t)T, sizeof *r->pos_count);
    double *rl = job->fused ? NULL : ordo_xmalloc((size_t)B * T * sizeof *rl);          // (B, T)
    int32_t *pos = draws(job->draw) ? ordo_xmalloc((size_t)B * T * sizeof *pos) : NULL; // (B, T)
    size_t *idx = ordo_xmalloc((size_t)B * sizeof *idx); // each row's window index
    ordo_eval_window_iter it = {.mode = job->mode, .n = job->n, .T = T, .S = job->stride};
    int rank = ordo_dist_rank(), size = ordo_dist_size();
    size_t seen = 0, mine = 0;
    double sum = 0;
    ordo_eval_progress prog;
    char what[64];
    if (job->show && job->show->what)
        snprintf(what, sizeof what, "%s", job->show->what);
    else
        snprintf(what, sizeof what, "eval context %d", T);
    FILE *out = job->show && rank == 0 ? job->show->out ? job->show->out : stderr : NULL;
    ordo_eval_progress_init(&prog, job->show ? job->show->mode : ORDO_PROGRESS_OFF, out, what,
                            "window", out ? windows_of_rank(job, rank, size) : 0);
    layer_progress lp = {.prog = &prog};
    if (prog.out) {
        m->on_layer = on_layer;
        m->on_layer_arg = &lp;
    }
    int saved = ctx->grad_enabled;
    ctx->grad_enabled = 0; // inference: no tape, and the forward frees each layer as it goes
    ordo_status s = ORDO_OK;
    for (int more = 1; more && !s;) {
        int rows = 0;
        while (rows < B) {
            size_t b;
            int from;
            if (!(more = ordo_eval_window_next(&it, &b, &from))) break;
            if (job->max_windows && seen >= job->max_windows) {
                more = 0;
                break;
            }
            if (seen++ % (size_t)size != (size_t)rank) continue;
            idx[rows] = seen - 1;
            memcpy(in + (size_t)rows * T, job->tokens + b, (size_t)T * sizeof *in);
            for (int t = 0; t < T; t++) {
                int32_t y = job->targets ? job->targets[b + t + 1] : job->tokens[b + t + 1];
                tg[(size_t)rows * T + t] = t >= from ? y : -1;
            }
            rows++;
        }
        if (!rows) break;
        ordo_ctx_reset(ctx);
        lp.done = mine, lp.rows = (size_t)rows;
        if ((s = positions_set(job->draw, m, pos, rows, T, idx, 0))) break;
        s = job->fused ? score_fused(m, ctx, in, tg, rows, T, &sum, r)
                       : score_targets(m, ctx, in, tg, rows, T, rl, &sum, r);
        ordo_eval_progress_update(&prog, mine += (size_t)rows);
    }
    ordo_eval_progress_end(&prog);
    if (prog.out) m->on_layer = NULL, m->on_layer_arg = NULL;
    ctx->grad_enabled = saved;
    positions_clear(job->draw, m);
    free(pos);
    free(idx);
    free(in);
    free(tg);
    free(rl);
    r->windows = seen;
    if (size > 1) {
        double *acc = ordo_xmalloc((2 * (size_t)T + 2) * sizeof *acc);
        acc[0] = sum, acc[1] = (double)r->targets;
        for (int t = 0; t < T; t++)
            acc[2 + t] = r->pos_loss[t], acc[2 + T + t] = (double)r->pos_count[t];
        ordo_dist_sum_f64(acc, 2 * T + 2);
        sum = acc[0], r->targets = (size_t)acc[1];
        for (int t = 0; t < T; t++)
            r->pos_loss[t] = acc[2 + t], r->pos_count[t] = (size_t)acc[2 + T + t];
        free(acc);
        s = ordo_dist_agree(s);
    }
    for (int t = 0; t < T; t++)
        r->pos_loss[t] = r->pos_count[t] ? r->pos_loss[t] / r->pos_count[t] : NAN;
    r->loss = r->targets ? sum / (double)r->targets : NAN;
    return s;
}

int ordo_eval_windows_per_forward(const ordo_gpt_config *g, int T, int B) {
    size_t per_window = (size_t)T * (size_t)g->V;
    if (per_window > MAX_LOGIT_FLOATS) return 1;
    if ((size_t)B * per_window > MAX_LOGIT_FLOATS) return (int)(MAX_LOGIT_FLOATS / per_window);
    return B;
}

ordo_status ordo_eval_stream(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens,
                             const int32_t *targets, size_t n, int T, ordo_eval_mode mode,
                             int stride, int B, size_t max_windows, const ordo_eval_draw *draw,
                             ordo_eval_result *r) {
    ordo_eval_show show = {0};
    return ordo_eval_stream_show(m, ctx, tokens, targets, n, T, mode, stride, B, max_windows, draw,
                                 &show, r);
}

ordo_status ordo_eval_stream_show(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens,
                                  const int32_t *targets, size_t n, int T, ordo_eval_mode mode,
                                  int stride, int B, size_t max_windows, const ordo_eval_draw *draw,
                                  const ordo_eval_show *show, ordo_eval_result *r) {
    memset(r, 0, sizeof *r);
    r->context = T;
    r->loss = NAN;
    if (T < 1) return ordo_error(ORDO_ERR_ARG, "context %d, expected >= 1", T);
    if (n < (size_t)T + 1)
        return ordo_error(ORDO_ERR_ARG,
                          "the stream has %zu tokens; a window of %d needs %d (inputs and the "
                          "next-token targets)",
                          n, T, T + 1);
    if (mode == ORDO_EVAL_SLIDING && (stride < 1 || stride > T))
        return ordo_error(ORDO_ERR_ARG, "--stride %d, expected 1..T (%d)", stride, T);
    if (mode == ORDO_EVAL_NONOVERLAP && stride <= 0) stride = T;
    if (m->cfg.pos == ORDO_POS_LEARNED && T > m->cfg.T_max)
        return ordo_error(ORDO_ERR_ARG,
                          "context %d is past the learned position table (T_max %d); the "
                          "learned scheme cannot describe those positions",
                          T, m->cfg.T_max);
    B = ordo_eval_windows_per_forward(&m->cfg, T, B);
    eval_job job = {.tokens = tokens,
                    .targets = targets,
                    .n = n,
                    .max_windows = max_windows,
                    .T = T,
                    .B = B,
                    .stride = stride,
                    .mode = mode,
                    .show = show,
                    .draw = draw};
    return eval_windows(m, ctx, &job, r);
}

ordo_status ordo_eval_loss(ordo_gpt *m, ordo_ctx *ctx, const ordo_dataset *ds, int B,
                           size_t max_windows, double *loss, size_t *count) {
    *loss = NAN;
    *count = 0;
    if (ds->count == 0) return ORDO_OK; // (ordo_dataset_init refuses such a stream)
    // the dataset's windows are nonoverlap's range(0, n - T, stride); no logit cap here: B is
    // the training batch, whose logits a training step holds anyway
    eval_job job = {.tokens = ds->tokens,
                    .targets = ds->targets,
                    .n = ds->n,
                    .max_windows = max_windows,
                    .T = ds->max_length,
                    .B = B,
                    .stride = ds->stride,
                    .mode = ORDO_EVAL_NONOVERLAP,
                    .fused = 1};
    ordo_eval_result r = {.context = ds->max_length};
    ordo_status s = eval_windows(m, ctx, &job, &r);
    *loss = r.loss;
    *count = r.targets;
    ordo_eval_result_free(&r);
    return s;
}

void ordo_eval_result_free(ordo_eval_result *r) {
    free(r->pos_loss);
    free(r->pos_count);
    r->pos_loss = NULL;
    r->pos_count = NULL;
}

ordo_status ordo_eval_seq_accuracy(ordo_gpt *m, ordo_ctx *ctx, ordo_task task, int alphabet, int n,
                                   int examples, uint64_t seed, const ordo_eval_draw *draw,
                                   double *accuracy) {
    int len = ordo_seq_len(task, n), T = len - 1; // inputs: all but <eos>
    if (m->cfg.pos == ORDO_POS_LEARNED && T > m->cfg.T_max)
        return ordo_error(ORDO_ERR_ARG, "length %d needs %d positions, past the learned table (%d)",
                          n, T, m->cfg.T_max);
    enum { CHUNK = ORDO_EVAL_SEQ_CHUNK };
    int32_t *ex = ordo_xmalloc((size_t)CHUNK * len * sizeof *ex);
    int32_t *in = ordo_xmalloc((size_t)CHUNK * T * sizeof *in);
    int32_t *pos = draws(draw) ? ordo_xmalloc((size_t)CHUNK * T * sizeof *pos) : NULL;
    ordo_rng r;
    ordo_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(n + 1)));
    int right = 0, saved = ctx->grad_enabled, chunk = 0;
    int rank = ordo_dist_rank(), size = ordo_dist_size();
    ctx->grad_enabled = 0;
    ordo_status s = ORDO_OK;
    for (int done = 0; done < examples && !s; chunk++) {
        int rows = examples - done < CHUNK ? examples - done : CHUNK;
        for (int i = 0; i < rows; i++) {
            ordo_seq_example(task, alphabet, n, &r, ex + (size_t)i * len, NULL);
            memcpy(in + (size_t)i * T, ex + (size_t)i * len, (size_t)T * sizeof *in);
        }
        if (chunk % size != rank) { // another rank's chunk (its examples were drawn all the same)
            done += rows;
            continue;
        }
        ordo_ctx_reset(ctx);
        ordo_tensor *logits;
        if ((s = positions_set(draw, m, pos, rows, T, NULL, (size_t)done))) break;
        if ((s = ordo_gpt_forward(m, ctx, in, NULL, rows, T, &logits, NULL))) break;
        int V = m->cfg.V;
        for (int i = 0; i < rows; i++) {
            int ok = 1;
            // position t predicts token t+1: the answer's tokens and <eos>
            for (int t = ordo_seq_answer(task, n) - 1; t < T && ok; t++)
                ok = argmax(logits->data + ((size_t)i * T + t) * V, V) ==
                     ex[(size_t)i * len + t + 1];
            right += ok;
        }
        done += rows;
    }
    ctx->grad_enabled = saved;
    positions_clear(draw, m);
    free(pos);
    free(ex);
    free(in);
    if (size > 1) {
        double r2 = right;
        ordo_dist_sum_f64(&r2, 1);
        right = (int)r2;
        s = ordo_dist_agree(s);
    }
    *accuracy = examples ? (double)right / examples : NAN;
    return s;
}

// ordo_passkey_score's predictor over a model: the argmax of the logits at the answer's
// positions, the LM head applied to those alone (ordo_gpt_forward_pick): at GPT-2's V the
// whole logits were nearly all of the work and memory. Chunks are dealt round-robin to MPI
// ranks; another rank's chunk predicts -1 (never right), so that the sum over ranks of the
// right answers is the count.
typedef struct passkey_model {
    ordo_gpt *m;
    ordo_ctx *ctx;
    int chunk, rank, size;
    size_t done;                // examples predicted so far (by every rank): the next one's index
    const ordo_eval_draw *draw; // the examples' positions (NULL: 0..T-1)
    int32_t *pos;               // drawn positions [rows, T], or NULL
    int32_t *pick;              // the answer's positions of a chunk, [rows * T] at most
    ordo_eval_progress *prog;   // examples done so far, of the whole grid (NULL: none)
    size_t prog0;               // examples of the grid done before this cell
} passkey_model;

static ordo_status passkey_predict(void *p, const int32_t *in, int rows, int T, const int *from,
                                   int32_t *pred) {
    passkey_model *pm = p;
    size_t first = pm->done;
    pm->done += (size_t)rows;
    for (size_t i = 0; i < (size_t)rows * T; i++) pred[i] = -1;
    if (pm->chunk++ % pm->size != pm->rank) return ORDO_OK;
    ordo_ctx_reset(pm->ctx);
    ordo_tensor *logits;
    if (draws(pm->draw) && !pm->pos)
        pm->pos = ordo_xmalloc((size_t)ORDO_EVAL_SEQ_CHUNK * T * sizeof(int32_t));
    if (!pm->pick) pm->pick = ordo_xmalloc((size_t)ORDO_EVAL_SEQ_CHUNK * T * sizeof(int32_t));
    int npick = 0;
    for (int i = 0; i < rows; i++)
        for (int t = from[i] > 0 ? from[i] : 0; t < T; t++) pm->pick[npick++] = i * T + t;
    ordo_status s = positions_set(pm->draw, pm->m, pm->pos, rows, T, NULL, first);
    if (!s) s = ordo_gpt_forward_pick(pm->m, pm->ctx, in, rows, T, pm->pick, npick, &logits);
    int V = pm->m->cfg.V;
    for (int k = 0; !s && k < npick; k++)
        pred[pm->pick[k]] = argmax(logits->data + (size_t)k * V, V);
    if (pm->prog) ordo_eval_progress_update(pm->prog, pm->prog0 + pm->done);
    return s;
}

int ordo_eval_passkey_rows(const ordo_gpt_config *g, int len) {
    size_t per = (size_t)(len > 1 ? len - 1 : 1) * (size_t)g->V;
    size_t rows = MAX_LOGIT_FLOATS / per;
    return rows < 1 ? 1 : rows > ORDO_EVAL_SEQ_CHUNK ? ORDO_EVAL_SEQ_CHUNK : (int)rows;
}

ordo_status ordo_eval_passkey(ordo_gpt *m, ordo_ctx *ctx, const ordo_passkey *pk, int len,
                              double depth, int examples, uint64_t seed, const ordo_eval_draw *draw,
                              ordo_eval_progress *prog, size_t prog0, double *accuracy) {
    if (m->cfg.pos == ORDO_POS_LEARNED && len - 1 > m->cfg.T_max)
        return ordo_error(ORDO_ERR_ARG, "length %d needs %d positions, past the learned table (%d)",
                          len, len - 1, m->cfg.T_max);
    passkey_model pm = {.m = m,
                        .ctx = ctx,
                        .rank = ordo_dist_rank(),
                        .size = ordo_dist_size(),
                        .draw = draw,
                        .prog = prog,
                        .prog0 = prog0};
    int saved = ctx->grad_enabled, right;
    ctx->grad_enabled = 0;
    ordo_status s =
        ordo_passkey_score(pk, len, depth, examples, seed, ordo_eval_passkey_rows(&m->cfg, len),
                           passkey_predict, &pm, &right);
    ctx->grad_enabled = saved;
    positions_clear(draw, m);
    free(pm.pos);
    free(pm.pick);
    if (pm.size > 1) {
        double r2 = right;
        ordo_dist_sum_f64(&r2, 1);
        right = (int)r2;
        s = ordo_dist_agree(s);
    }
    *accuracy = examples ? (double)right / examples : NAN;
    return s;
}

ordo_status ordo_eval_answers(ordo_gpt *m, ordo_ctx *ctx, ordo_answers_example make,
                              const void *task, int len, double param, int examples, uint64_t seed,
                              const ordo_eval_draw *draw, double *accuracy) {
    if (m->cfg.pos == ORDO_POS_LEARNED && len - 1 > m->cfg.T_max)
        return ordo_error(ORDO_ERR_ARG, "length %d needs %d positions, past the learned table (%d)",
                          len, len - 1, m->cfg.T_max);
    passkey_model pm = {
        .m = m, .ctx = ctx, .rank = ordo_dist_rank(), .size = ordo_dist_size(), .draw = draw};
    int saved = ctx->grad_enabled;
    long long right, answers;
    ctx->grad_enabled = 0;
    ordo_status s = ordo_answers_score(make, task, len, param, examples, seed,
                                       ordo_eval_passkey_rows(&m->cfg, len), passkey_predict, &pm,
                                       &right, &answers);
    ctx->grad_enabled = saved;
    positions_clear(draw, m);
    free(pm.pos);
    free(pm.pick);
    if (pm.size > 1) { // each rank counted the answers of every chunk, the right ones of its own
        double r2 = (double)right;
        ordo_dist_sum_f64(&r2, 1);
        right = (long long)r2;
        s = ordo_dist_agree(s);
    }
    *accuracy = answers ? (double)right / (double)answers : NAN;
    return s;
}
