// The training loop (see trainer.h). Order of a step: batch -> forward -> loss check ->
// backward -> clip -> update; then log, evaluate and checkpoint on their schedules. All
// memory is set up before the loop; a step reuses the context's arena (no malloc).
// A run directory is never damaged: config.json and checkpoints are written atomically,
// metrics.jsonl gets whole lines (one write each; a failed write stops the run like a failed
// checkpoint) and is cut back to the resumed checkpoint's step, and a NaN never checkpoints.
//
// Data parallel (mpirun -np N, sys/dist.h): every rank draws the same global batch
// from the same seeded dataloader and runs forward and backward on its contiguous share of
// the rows; the gradients, each weighted by the rank's share of the counted targets, are
// summed with one allreduce over the flat gradient block, so every rank takes the same
// update and holds the same weights, and the result does not depend on N (up to float
// rounding). The loss, a stop request and any local error are summed in one small allreduce
// per step, so all ranks agree on the logged loss and on when to stop. Only rank 0 writes
// the run directory; the dataloader position in a checkpoint is the global one.
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "data/dataloader.h"
#include "data/unigram.h"
#include "framework/blas.h"
#include "sys/dist.h"
#include "sys/fileio.h"
#include "sys/signals.h"
#include "framework/threads.h"
#include "run/checkpoint.h"
#include "eval/evaluate.h"
#include "train/feed.h"
#include "run/init.h"
#include "run/metrics.h"
#include "train/trainer.h"
#include "sys/clock.h"

static int count_targets(const int32_t *t, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += t[i] >= 0;
    return c;
}

typedef struct trainer {
    ordo_train_config cfg;
    json_t *cfg_json;
    ordo_rundata data;
    ordo_dataset train_ds, val_ds;
    ordo_dataloader loader;
    ordo_gpt model;
    ordo_optim optim;
    ordo_ctx ctx;
    ordo_rng rng;
    ordo_schedule sched;
    int64_t step;
    int T, B;           // B: rows per forward (--batch)
    int K, dropout;     // --grad-accum micro-batches per step; some dropout rate above 0
    int32_t *in, *tg;   // (B*K, T): the step's whole batch
    int metrics;        // metrics.jsonl open for appending (rank 0), or -1
    size_t metrics_len; // its length: every line in it is whole
    char metrics_path[ORDO_PATH_MAX];
    ordo_progress prog;       // rank 0's progress lines and summary (run/progress.h)
    double elapsed0, t_start; // wall time of the steps before this process, and its start
    // data parallel: this rank's share of the current batch and the step's time in allreduce
    ordo_tensor *loss; // this rank's mean loss over its share (NULL when it has no rows)
    int lo, hi;        // its rows [lo, hi) of the micro-batch
    int n_mine, n_all; // counted targets in its share, in the step's whole batch
    double w;          // n_mine / n_all: the weight of its loss in the step's mean
    double comm_s;     // seconds in the gradient allreduce, summed over steps
    int64_t comm_steps;
    int restoring; // built to restore a checkpoint (the --init weights are not read)
} trainer;

// Data, datasets, model and optimizer from tr->cfg (fresh state: step 0).
static ordo_status build(trainer *tr) {
    ordo_train_config *c = &tr->cfg;
    int stride;
    ordo_status s = ordo_feed_open(c, &tr->data, &tr->train_ds, &tr->val_ds, &tr->loader, &stride);
    if (s) return s;
    c->data_record = tr->data.record; // what config.json and the checkpoints record
    c->val_record = tr->data.val_record;
    // the files as resolved (absolute): the run does not depend on the directory it ran from
    if (tr->data.path) c->data = tr->data.path;
    if (tr->data.val_path) c->val_data = tr->data.val_path;
    tr->T = (int)c->context;
    tr->B = (int)c->batch;
    tr->K = (int)c->grad_accum;
    ordo_gpt_config g;
    if ((s = ordo_train_config_model(c, tr->data.vocab_size, &g))) return s;
    if ((s = ordo_gpt_init(&tr->model, &g, (uint64_t)c->seed))) return s;
    tr->dropout = g.dropout_embd > 0 || g.dropout_attn > 0 || g.dropout_resid > 0;
    // --init is where a run starts: a restored checkpoint has its own weights
    if (c->init && !tr->restoring && (s = ordo_init_load(c, &tr->model)))
        return ordo_error_wrap(s, "--init %s", c->init);
    ordo_precision prec;
    if ((s = ordo_precision_parse(c->precision, &prec)) ||
        (s = ordo_gpt_set_precision(&tr->model, prec)))
        return ordo_error_wrap(s, "--precision");
    if ((s = ordo_attn_impl_parse(c->attention, &tr->model.attention)))
        return ordo_error_wrap(s, "--attention");
    ordo_optim_config oc;
    ordo_optim_defaults(&oc);
    if ((s = ordo_optim_parse_kind(c->optimizer, &oc.kind))) return s;
    oc.beta1 = c->beta1;
    oc.beta2 = c->beta2;
    oc.eps = c->eps;
    oc.momentum = c->momentum;
    oc.weight_decay = c->weight_decay;
    oc.decay_pos = !c->no_decay_pos;
    if ((s = ordo_optim_init(&tr->optim, &tr->model.params, &oc))) return s;
    if ((s = ordo_schedule_parse(c->schedule, &tr->sched))) return s;
    ordo_ctx_init(&tr->ctx);
    tr->ctx.reuse_grads = 1; // the loop reads parameter gradients only
    ordo_rng_seed(&tr->rng, (uint64_t)c->seed ^ 0x5eed5eedULL);
    tr->in = ordo_xmalloc((size_t)tr->B * tr->K * tr->T * sizeof *tr->in);
    tr->tg = ordo_xmalloc((size_t)tr->B * tr->K * tr->T * sizeof *tr->tg);
    return ORDO_OK;
}

static void destroy(trainer *tr) {
    if (tr->metrics >= 0) close(tr->metrics);
    free(tr->in);
    free(tr->tg);
    ordo_ctx_free(&tr->ctx);
    ordo_optim_free(&tr->optim);
    ordo_gpt_free(&tr->model);
    ordo_dataloader_free(&tr->loader);
    ordo_rundata_free(&tr->data);
    json_decref(tr->cfg_json);
}

// Why line l of a metrics file is repaired away (NULL: it is kept).
static const char *damage(const ordo_metrics_line *l) {
    if (!l->complete) return "cut short (no newline at its end: a write that did not finish)";
    if (!l->blank && !l->ok) return "not a JSON object with a numeric \"step\"";
    return NULL;
}

// Opens metrics.jsonl to append, after repairing it for a run at `step` (0: a new run): the
// lines of later steps go (a killed run may have logged past its last checkpoint), and so
// does a damaged line (half a line that a killed writer or a full disk left, with a warning),
// so that the log again holds only whole lines, each at most once. A cut at the end is made
// in place (ftruncate); dropping a line from the middle rewrites the file atomically.
static ordo_status metrics_open(trainer *tr, int64_t step) {
    const char *path = tr->metrics_path;
    ordo_status s =
        ordo_path(tr->metrics_path, sizeof tr->metrics_path, "%s/metrics.jsonl", tr->cfg.out);
    if (s) return s;
    ordo_metrics m = {0};
    if (access(path, F_OK) == 0 && (s = ordo_metrics_read(path, &m))) {
        ordo_metrics_free(&m);
        return s;
    }
    // the kept lines, as byte ranges of m.text; a prefix when no damaged line is dropped
    size_t keep = 0, dropped = 0;
    int prefix = 1, first_bad = 0;
    const char *why = NULL;
    char *text = m.len ? ordo_xmalloc(m.len) : NULL;
    for (int i = 0; i < m.n; i++) {
        const ordo_metrics_line *l = &m.line[i];
        size_t begin = i ? m.line[i - 1].end : 0;
        const char *bad = damage(l);
        if (bad) {
            if (!dropped++) first_bad = l->lineno, why = bad;
            continue;
        }
        if (l->ok && l->step > (double)step) break;
        if (l->ok && !isnan(l->elapsed_s)) tr->elapsed0 = l->elapsed_s; // wall time goes on
        if (l->ok && (!isnan(l->val_loss) || (l->nulls & ORDO_METRICS_VAL_LOSS)))
            ordo_progress_val(&tr->prog, (int64_t)l->step, l->val_loss); // the summary's best
        if (dropped) prefix = 0; // a line kept after one dropped
        memcpy(text + keep, m.text + begin, l->end - begin);
        keep += l->end - begin;
    }
    if (dropped)
        fprintf(stderr,
                "ordo: warning: %s: repaired: removed %zu damaged line(s); line %d was %s\n", path,
                dropped, first_bad, why);
    // a missing file is created atomically, so that its name is as durable as its lines
    if (m.len == 0 || (!prefix && keep != m.len)) {
        const void *parts[1] = {text};
        s = ordo_write_atomic(path, parts, &keep, 1);
    }
    size_t len = m.len;
    free(text);
    ordo_metrics_free(&m);
    if (s) return s;
    tr->metrics = ordo_open_append(path, 0, 0);
    if (tr->metrics < 0) return ORDO_ERR_IO;
    if (keep != len && prefix &&
        (ftruncate(tr->metrics, (off_t)keep) != 0 || fsync(tr->metrics) != 0))
        return ordo_error(ORDO_ERR_IO, "%s: cannot cut it back to step %" PRId64 ": %s", path, step,
                          strerror(errno));
    tr->metrics_len = keep;
    return ORDO_OK;
}

// The error for a metrics.jsonl that could not be written: the run stops there, as for a
// checkpoint that cannot be written, and can be resumed once the cause is gone.
static ordo_status metrics_error(const trainer *tr, const char *what, int e) {
    return ordo_error(ORDO_ERR_IO,
                      "%s: %s at step %" PRId64 ": %s; stopped without writing a checkpoint "
                      "(those written are kept: fix the cause, e.g. free some space, then "
                      "continue with 'ordo train --resume %s')",
                      tr->metrics_path, what, tr->step, strerror(e), tr->cfg.out);
}

// Appends the step's line with one write of the whole line. A line is whole or absent: a
// write that fails part-way (a full disk) is cut back before the error is returned.
static ordo_status log_metrics(trainer *tr, double loss, double lr, double tps, int has_val,
                               double val) {
    char line[ORDO_METRICS_LINE_MAX]; // on the stack: no malloc in the loop
    size_t n = ordo_metrics_format(line, sizeof line, tr->step, loss, has_val, val, lr, tps,
                                   tr->elapsed0 + ordo_now_s() - tr->t_start);
    int e = ordo_write_all(tr->metrics, line, n);
    if (e) {
        if (ftruncate(tr->metrics, (off_t)tr->metrics_len) != 0)
            fprintf(stderr,
                    "ordo: warning: %s: cannot cut back a part-written line (%s); --resume "
                    "repairs it\n",
                    tr->metrics_path, strerror(errno));
        return metrics_error(tr, "cannot write the metrics line", e);
    }
    tr->metrics_len += n;
    return ORDO_OK;
}

// Makes the logged lines durable before a checkpoint is written: a checkpoint is never
// ahead of its metrics on disk, and a late write error (NFS) surfaces here.
static ordo_status metrics_sync(trainer *tr) {
    if (tr->metrics < 0) return ORDO_OK;
    if (fsync(tr->metrics) != 0 && errno != EINVAL && errno != ENOTSUP)
        return metrics_error(tr, "fsync failed", errno);
    return ORDO_OK;
}

static ordo_train_state state_of(const trainer *tr) {
    ordo_train_state st = {.step = tr->step,
                           .loader = ordo_dataloader_get_state(&tr->loader),
                           .rng = tr->rng,
                           .optim_t = tr->optim.t,
                           .milestone = tr->step == tr->cfg.steps}; // kept by --keep
    return st;
}

// FNV-1a over the weights and the training state: equal on every rank, or a bug.
static uint64_t state_hash(const trainer *tr) {
    uint64_t h = 0xcbf29ce484222325ULL;
    const ordo_params *p = &tr->model.params;
    const uint32_t *w = (const uint32_t *)p->data;
    for (size_t i = 0; i < p->total; i++) h = (h ^ w[i]) * 0x100000001b3ULL;
    ordo_dataloader_state ls = ordo_dataloader_get_state(&tr->loader);
    uint64_t st[4] = {(uint64_t)tr->step, (uint64_t)ls.epoch, (uint64_t)ls.cursor, tr->rng.s[0]};
    for (int i = 0; i < 4; i++) h = (h ^ st[i]) * 0x100000001b3ULL;
    return h;
}

// Rank 0 writes; every rank learns whether it worked, so none goes on alone.
static ordo_status checkpoint(trainer *tr) {
    if (ordo_dist_size() > 1 && !ordo_dist_same_u64(state_hash(tr)))
        return ordo_error(ORDO_ERR_STATE,
                          "checkpoint: the ranks' weights differ at step %" PRId64
                          "; not writing it (a bug: please report it)",
                          tr->step);
    ordo_status s = ORDO_OK;
    if (ordo_dist_rank() == 0) {
        ordo_train_state st = state_of(tr);
        s = ordo_checkpoint_save(tr->cfg.out, &tr->model, &tr->optim, tr->cfg_json, &st,
                                 (int)tr->cfg.keep);
    }
    s = ordo_dist_agree(s);
    return s ? ordo_error_wrap(s, "checkpoint") : ORDO_OK;
}

// The weights, moments and training state of an opened checkpoint, into the built run.
static ordo_status load_state(trainer *tr, ordo_safetensors *f, const ordo_train_state *st) {
    ordo_status s = ordo_checkpoint_load(f, &tr->model, &tr->optim);
    ordo_gpt_refresh_bf16(&tr->model); // the bf16 copies of the loaded weights
    if (!s) s = ordo_dataloader_set_state(&tr->loader, st->loader);
    if (s) return s;
    tr->step = st->step;
    tr->optim.t = st->optim_t;
    tr->rng = st->rng;
    return ORDO_OK;
}

// Restores the newest checkpoint that loads, building the run from tr->cfg before the first
// one; a checkpoint that does not load (non-finite weights or moments, say) is skipped with a
// warning and the next older one tried (ordo_resume_next skips and reports those that do not
// open, are not intact or belong to another run, and fails, listing them all, when none is left).
// *restored stays 0 when the run has no checkpoint yet.
static ordo_status restore(trainer *tr, ordo_resume *r, int *restored) {
    ordo_safetensors *f;
    ordo_train_state st;
    ordo_status s;
    while (!(s = ordo_resume_next(r, &f, &st)) && f) {
        tr->restoring = 1;
        if (tr->data.vocab_size == 0 && (s = build(tr))) { // not built yet
            ordo_safetensors_close(f);
            return s;
        }
        s = load_state(tr, f, &st);
        ordo_safetensors_close(f);
        if (!s) {
            *restored = 1;
            if (ordo_dist_rank() == 0)
                fprintf(stderr, "ordo: resuming %s from step %" PRId64 "\n", r->dir, st.step);
            ordo_resume_schedule(r, st.step, &tr->cfg); // the lr plan for the new --steps
            return ORDO_OK;
        }
        ordo_resume_skip(r); // non-finite values, say: try the next older one
    }
    return s;
}

// A run's files without its config.json (deleted, or lost in a copy): a new run there would
// cut metrics.jsonl back to nothing and write its checkpoints beside the old ones, which a
// later resume would take up again. Refused, naming what is there; the checkpoints carry the
// config, so --resume continues that run.
static ordo_status refuse_run_files(const char *dir) {
    int64_t *steps;
    int n;
    if (ordo_checkpoint_list(dir, &steps, &n)) { // no directory yet: nothing to refuse
        ordo_error_clear();
        return ORDO_OK;
    }
    char path[ORDO_PATH_MAX];
    struct stat sb;
    int metrics = !ordo_path(path, sizeof path, "%s/metrics.jsonl", dir) && stat(path, &sb) == 0 &&
                  sb.st_size > 0;
    ordo_status s = ORDO_OK;
    if (n > 0 || metrics) {
        ordo_strbuf what = {0};
        if (n > 0) {
            ordo_strbuf_printf(&what, "checkpoints at steps ");
            ordo_checkpoint_steps_text(dir, steps, n, &what);
        }
        if (metrics)
            ordo_strbuf_printf(&what, "%smetrics.jsonl (%lld bytes)", n ? " and " : "",
                               (long long)sb.st_size);
        if (n > 0)
            s = ordo_error(ORDO_ERR_ARG,
                           "%s holds another run's files but no config.json: %s; a new run "
                           "there would cut its metrics.jsonl and mix its checkpoints with "
                           "these. Resume that run with 'ordo train --resume %s' (its "
                           "checkpoints carry the config), or choose another --out",
                           dir, what.buf, dir);
        else // a log alone: nothing to resume from
            s = ordo_error(ORDO_ERR_ARG,
                           "%s holds another run's files but no config.json: %s; a new run "
                           "there would cut it back to nothing. Move it away, or choose another "
                           "--out",
                           dir, what.buf);
        ordo_strbuf_free(&what);
    }
    free(steps);
    return s;
}

// A new run, or a resumed one killed before its first checkpoint (tr->cfg is then its
// config.json, see ordo_resume_open).
static ordo_status start_fresh(trainer *tr, const ordo_resume *resume) {
    if (resume) {
        if (ordo_dist_rank() == 0)
            fprintf(stderr, "ordo: %s has no checkpoint yet; starting it from step 0\n",
                    resume->dir);
        return build(tr);
    }
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", tr->cfg.out);
    if (s) return s;
    if (access(path, F_OK) == 0)
        return ordo_error(ORDO_ERR_ARG,
                          "%s already holds a run (config.json); resume it with "
                          "'ordo train --resume %s' or choose another --out",
                          tr->cfg.out, tr->cfg.out);
    if ((s = refuse_run_files(tr->cfg.out))) return s;
    return build(tr);
}

// Forward over this rank's share of the micro-batch of `rows` rows that starts at row r0 of
// the step's batch, in training mode (dropout masks placed by the row's index in the step's
// batch: those one batch of B*K rows would draw). *l receives the micro-batch's part of the
// step's mean loss (its loss times its share of the step's n_all counted targets) and *stop
// whether any rank was asked to stop (a signal); with several ranks one small allreduce makes
// both (and any error) common knowledge.
static ordo_status forward_share(trainer *tr, int r0, int rows, uint64_t seed, double *l,
                                 int *stop) {
    int T = tr->T;
    tr->lo = 0;
    tr->hi = rows;
    ordo_dist_share(rows, &tr->lo, &tr->hi);
    tr->loss = NULL;
    ordo_ctx_reset(&tr->ctx);
    size_t first = (size_t)(r0 + tr->lo) * T;
    ordo_status s = ORDO_OK;
    ordo_gpt_train_mode(&tr->model, 1, seed, r0 + tr->lo);
    if (tr->hi > tr->lo)
        s = ordo_gpt_forward(&tr->model, &tr->ctx, tr->in + first, tr->tg + first, tr->hi - tr->lo,
                             T, NULL, &tr->loss);
    ordo_gpt_train_mode(&tr->model, 0, 0, 0); // evaluation never drops
    *stop = ordo_signals_caught() != 0;
    // the loss is a mean over counted (non-ignored) targets: weight each share by its count
    // (one micro-batch on one rank: w = n/n = 1 exactly, and the loss is used as it is)
    tr->n_mine = count_targets(tr->tg + first, (size_t)(tr->hi - tr->lo) * T);
    tr->w = tr->n_all ? (double)tr->n_mine / tr->n_all : 0.0;
    if (ordo_dist_size() == 1) {
        if (!s) *l = tr->w * tr->loss->data[0];
        return s;
    }
    double r[3] = {!s && tr->loss ? tr->w * tr->loss->data[0] : 0.0, s != ORDO_OK, *stop};
    ordo_dist_sum_f64(r, 3);
    if (r[1] > 0) return ordo_dist_agree(s); // every rank saw the failure: report it once
    *l = r[0];
    *stop = r[2] > 0;
    return ORDO_OK;
}

// Backward over this rank's share, seeded with its weight w = n_mine / n_all: the gradients
// of the micro-batches (and, summed by the allreduce, of the ranks) add up in the parameters'
// grad block to the gradient of the step's mean loss.
static void backward_share(trainer *tr) {
    float w = (float)tr->w;
    if (tr->loss) ordo_backward_from(&tr->ctx, tr->loss, &w);
}

// Forward and backward over the step's batch of `rows` rows in micro-batches of --batch rows
// (--grad-accum of them, the last one short when the batch is): the result of one batch of
// batch x grad-accum rows, up to the order of the float sums (each parameter's gradient is a
// sum of per-micro-batch sums, not one sum). *l: the mean loss over the step's counted
// targets; it stops at a micro-batch whose loss is not finite (*l then is not either). One
// dropout seed per step, drawn from the run's RNG (in the checkpoint) only when some rate is
// above 0, so that a run without dropout keeps its RNG stream as before.
static ordo_status forward_backward(trainer *tr, int rows, double *l, int *stop) {
    ordo_params *p = &tr->model.params;
    ordo_params_zero_grad(p);
    tr->n_all = count_targets(tr->tg, (size_t)rows * tr->T);
    uint64_t seed = tr->dropout ? ordo_rng_u64(&tr->rng) : 0;
    // --pos-random's positions: a stream of its own, a function of the run seed and the step
    // (restored on resume), so that the run's RNG, and with it the data order and dropout,
    // are those of a run without it
    ordo_gpt_pos_seed(&tr->model, ((uint64_t)tr->cfg.seed ^ 0x7a9d0c5e11f3b2a1ULL) +
                                      0xD1B54A32D192ED03ULL * (uint64_t)tr->step);
    *l = 0.0;
    *stop = 0;
    for (int r0 = 0; r0 < rows; r0 += tr->B) {
        double part = 0.0;
        int st = 0, n = rows - r0 < tr->B ? rows - r0 : tr->B;
        ordo_status s = forward_share(tr, r0, n, seed, &part, &st);
        if (s) return s;
        *l += part;
        *stop |= st;
        if (!isfinite(part)) return ORDO_OK; // the caller reports it
        backward_share(tr);
    }
    if (ordo_dist_size() == 1) return ORDO_OK;
    double t0 = ordo_now_s();
    ordo_dist_sum_f32(p->grad, p->total); // (total) the whole block, padding included
    tr->comm_s += ordo_now_s() - t0;
    tr->comm_steps++;
    return ORDO_OK;
}

static ordo_status loop(trainer *tr, long long stop_after, long long poison_step) {
    ordo_train_config *c = &tr->cfg;
    double t_log = ordo_now_s();
    int64_t tokens_since = 0;
    while (tr->step < c->steps) {
        double lr = ordo_train_config_lr_at(c, &c->plan, tr->step);
        int rows = ordo_dataloader_next(&tr->loader, tr->in, tr->tg);
        if (poison_step == tr->step + 1)
            tr->model.wte.table->data[tr->in[0] * tr->model.cfg.C] = NAN;
        double l = 0.0;
        int stop_req = 0;
        ordo_status s = forward_backward(tr, rows, &l, &stop_req);
        if (s) return s;
        if (!isfinite(l))
            return ordo_error(ORDO_ERR_NUMERIC,
                              "the loss is %g at step %" PRId64 "; stopped without writing a "
                              "checkpoint (the last good one is kept; try a lower --lr or --clip)",
                              l, tr->step + 1);
        double norm = ordo_clip_grad_norm(&tr->model.params, c->clip);
        if (!isfinite(norm))
            return ordo_error(ORDO_ERR_NUMERIC,
                              "the gradient norm is %g at step %" PRId64 "; stopped without "
                              "writing a checkpoint (the last good one is kept)",
                              norm, tr->step + 1);
        ordo_optim_step(&tr->optim, (float)lr);
        ordo_gpt_refresh_bf16(&tr->model); // the next forward's bf16 weights (nothing in fp32)
        tr->step++;
        tokens_since += (int64_t)rows * tr->T;

        int last = tr->step == c->steps;
        int eval = last || (c->eval_every > 0 && tr->step % c->eval_every == 0);
        double val = NAN;
        size_t cnt = 0; // counted val targets (none: no val loss to log)
        if (eval) {
            // --eval-batches counts optimizer-step batches (batch x grad-accum windows), so
            // that accumulation evaluates the windows of a K-times larger batch
            size_t maxw =
                c->eval_batches ? (size_t)(c->eval_batches * c->batch * c->grad_accum) : 0;
            if ((s = ordo_eval_loss(&tr->model, &tr->ctx, &tr->val_ds, tr->B, maxw, &val, &cnt)))
                return s;
            if (cnt > 0) ordo_progress_val(&tr->prog, tr->step, val);
        }
        int logged = eval || last || tr->step % c->log_every == 0;
        double tps = 0;
        if (logged) {
            double t = ordo_now_s();
            tps = tokens_since / fmax(t - t_log, 1e-9);
            if (tr->metrics >= 0) s = log_metrics(tr, l, lr, tps, cnt > 0, val); // rank 0
            if ((s = ordo_dist_agree(s))) return s; // no rank goes on alone
            t_log = t;
            tokens_since = 0;
        }
        ordo_progress_step(&tr->prog, tr->step, l, lr, (double)rows * tr->T, logged, tps);
        // logged (as null) for the record, but never checkpointed: the update just made gave
        // weights whose outputs are not finite
        if (cnt > 0 && !isfinite(val))
            return ordo_error(ORDO_ERR_NUMERIC,
                              "the val loss is %g at step %" PRId64 "; stopped without writing a "
                              "checkpoint (the last good one is kept; try a lower --lr or --clip)",
                              val, tr->step);
        int stop = stop_req || (stop_after > 0 && tr->step >= stop_after);
        if (last || stop || (c->ckpt_every > 0 && tr->step % c->ckpt_every == 0)) {
            if ((s = ordo_dist_agree(metrics_sync(tr))) || (s = checkpoint(tr))) return s;
        }
        if (stop && !last) {
            return ordo_error(ORDO_ERR_INTERRUPTED,
                              "stopped after step %" PRId64 " (%s); checkpoint written, continue "
                              "with 'ordo train --resume %s'",
                              tr->step,
                              ordo_signals_caught() ? strsignal(ordo_signals_caught())
                              : stop_req            ? "a signal to another rank"
                                                    : "--stop-after",
                              c->out);
        }
    }
    return ORDO_OK;
}

ordo_status ordo_train(const ordo_train_request *req) {
    trainer tr;
    memset(&tr, 0, sizeof tr);
    tr.metrics = -1;
    tr.cfg = *req->cfg;
    // rank 0 shows the progress; the others' stdout is /dev/null (cli/main.c) anyway
    ordo_progress_init(&tr.prog, ordo_dist_rank() == 0 ? req->progress : ORDO_PROGRESS_OFF, stdout,
                       tr.cfg.steps);
    ordo_status s = ordo_train_config_check(&tr.cfg);
    // The last checkpoint's is the longest path of the run: an --out it does not fit in is
    // refused now, before anything is written, not at the first checkpoint.
    char path[ORDO_PATH_MAX];
    if (!s) s = ordo_checkpoint_path(path, sizeof path, tr.cfg.out, (int64_t)tr.cfg.steps);
    if (!s) s = ordo_write_atomic_check(path);
    if (s) return s;
    // one process at a time writes a run (sys/dirlock.h); locked before anything in it
    // is touched, temporary files included: a second writer's would be live ones
    ordo_dirlock own = {0}, *lock = req->lock;
    if (!lock) {
        if ((s = ordo_dirlock_take(&own, "run directory", tr.cfg.out, 1))) return s;
        lock = &own;
    }
    int restored = 0, rank = ordo_dist_rank(), ranks = ordo_dist_size();
    if (req->resume) {
        if (rank == 0) ordo_checkpoint_clean_tmp(req->resume->dir);
        s = restore(&tr, req->resume, &restored);
    }
    if (!s && !restored) s = start_fresh(&tr, req->resume);
    // every rank has set up the same run (or failed) before rank 0 writes anything
    if ((s = ordo_dist_agree(s))) goto done;
    if (ranks > 1 && !ordo_dist_same_u64(state_hash(&tr))) {
        s = ordo_error(ORDO_ERR_STATE,
                       "the %d ranks did not set up the same state (do they all "
                       "see the same data and checkpoint files?)",
                       ranks);
        goto done;
    }
    if (!restored) { // from step 0: the options' curve (not one a --config file carried in)
        memset(&tr.cfg.plan, 0, sizeof tr.cfg.plan);
        tr.cfg.plan = ordo_train_config_plan(&tr.cfg);
        tr.cfg.plan.have = 1;
    }
    int threads = ordo_set_threads(ordo_dist_threads((int)tr.cfg.threads));
    tr.cfg_json = ordo_train_config_to_json(&tr.cfg);
    // config.json also records what runs the products; the checkpoints keep the config alone
    json_t *run_json = json_copy(tr.cfg_json);
    json_object_set_new(run_json, ORDO_CONFIG_BACKEND_KEY, ordo_blas_info_json());
    // and the val split's context-free loss level, for `ordo compare` (data/unigram.h)
    size_t nuni;
    double uni = ordo_unigram_entropy(tr.data.val, tr.data.val_targets, tr.data.n - tr.data.n_train,
                                      tr.data.vocab_size, &nuni);
    if (nuni)
        json_object_set_new(run_json, ORDO_CONFIG_UNIGRAM_KEY,
                            json_pack("{s:f, s:I}", "entropy", uni, "targets", (json_int_t)nuni));
    ordo_dirlock_mark_written(lock); // from here on, a failure is the run's, not a refusal
    // config.json last, once all else that can fail before the first step has worked: a resume
    // refused here (a metrics.jsonl that does not open) leaves the run's config as it was, not
    // one that names the --steps of a resume that never ran
    if (rank == 0 && !(s = ordo_path(path, sizeof path, "%s/config.json", tr.cfg.out)) &&
        !(s = ordo_mkdir_p(tr.cfg.out, 0755)) && !(s = metrics_open(&tr, tr.step)))
        s = ordo_write_json_atomic(path, run_json);
    json_decref(run_json);
    if ((s = ordo_dist_agree(s))) goto done;
    if (ranks > 1)
        printf("ordo: data parallel over %d ranks x %d threads, batch %d split %d..%d rows per "
               "rank\n",
               ranks, threads, tr.B, tr.B / ranks, (tr.B + ranks - 1) / ranks);
    char backend[256], attn[96];
    // the path that runs: a checkpoint's bits depend on it (not on the thread count)
    ordo_attn_impl ran = ordo_attn_resolve(tr.model.attention, tr.T);
    if (tr.model.attention == ORDO_ATTN_AUTO)
        snprintf(attn, sizeof attn, "auto: %s at T %d", ordo_attn_impl_name(ran), tr.T);
    else
        snprintf(attn, sizeof attn, "%s", ordo_attn_impl_name(ran));
    if (!restored)
        printf("ordo: training %s, %s position, %zu parameters, %zu train / %zu val tokens, "
               "precision %s, attention %s, %s -> %s\n",
               tr.cfg.data ? tr.cfg.data : tr.cfg.task, tr.cfg.pos, ordo_gpt_num_params(&tr.model),
               tr.data.n_train, tr.data.nval, tr.cfg.precision, attn,
               ordo_blas_describe(backend, sizeof backend), tr.cfg.out);

    tr.t_start = ordo_now_s();
    ordo_signals sig; // Ctrl-C or SIGTERM: finish the step, checkpoint, return INTERRUPTED
    ordo_signals_install(&sig);
    double t_loop = ordo_now_s();
    int64_t step0 = tr.step;
    ordo_progress_start(&tr.prog, tr.step, tr.elapsed0);
    s = loop(&tr, req->stop_after, req->poison_step);
    if (rank == 0 && (s == ORDO_OK || s == ORDO_ERR_INTERRUPTED)) {
        // a finished or stopped run has a checkpoint at its step (written just now)
        int have = !ordo_checkpoint_path(path, sizeof path, tr.cfg.out, tr.step);
        ordo_progress_summary(&tr.prog, tr.step, s == ORDO_ERR_INTERRUPTED, have ? path : NULL);
    } else {
        ordo_progress_break(&tr.prog); // the error message starts on its own line
    }
    if (ranks > 1 && tr.comm_steps > 0) {
        double per = tr.comm_s / (double)tr.comm_steps,
               step_s = (ordo_now_s() - t_loop) / (double)(tr.step > step0 ? tr.step - step0 : 1);
        printf("ordo: gradient allreduce: %zu floats (%.2f MB) per step, %.3f ms per step on "
               "average (%.1f%% of %.3f ms per step)\n",
               tr.model.params.total, 4e-6 * (double)tr.model.params.total, 1e3 * per,
               100.0 * per / step_s, 1e3 * step_s);
    }
    ordo_signals_restore(&sig);
done:
    destroy(&tr);
    ordo_dirlock_release(&own);
    return s;
}
