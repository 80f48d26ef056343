// A run's evaluation report (see evaluate.h, ordo_eval_run): what `ordo eval` prints and
// saves, and what `ordo sweep` stores for `ordo compare`.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/evaluate.h"
#include "train/run.h"

static json_t *num_or_null(double v) {
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *length_result(ordo_gpt *m, ordo_ctx *ctx, const ordo_rundata *d,
                             const ordo_eval_request *q, int T, ordo_status *err) {
    json_t *o = json_object();
    json_object_set_new(o, "context", json_integer(T));
    const int32_t *val = d->tokens + d->n_train;
    const int32_t *vt = d->targets ? d->targets + d->n_train : NULL;
    size_t nval = d->n - d->n_train;
    char note[160] = "";
    if (m->cfg.pos == ORDO_POS_LEARNED && T > m->cfg.T_max)
        snprintf(note, sizeof note, "past the learned table (T_max %d)", m->cfg.T_max);
    else if (nval < (size_t)T + 1)
        snprintf(note, sizeof note, "the validation split has %zu tokens, fewer than %d", nval,
                 T + 1);
    if (*note) {
        json_object_set_new(o, "val_loss", json_null());
        json_object_set_new(o, "note", json_string(note));
        return o;
    }
    int stride = q->stride > 0 ? (q->stride < T ? q->stride : T) : (T / 4 > 0 ? T / 4 : 1);
    ordo_eval_mode mode = q->mode;
    if (d->example_len > 0) { // copy/reverse: windows start on examples, as in training
        if (T < d->example_len) {
            json_object_set_new(o, "val_loss", json_null());
            json_object_set_new(o, "note", json_string("shorter than one example"));
            return o;
        }
        mode = ORDO_EVAL_NONOVERLAP;
        stride = d->example_len;
        json_object_set_new(o, "aligned_to_examples", json_integer(stride));
    } else if (mode == ORDO_EVAL_NONOVERLAP) {
        stride = T;
    }
    ordo_eval_result r;
    *err = ordo_eval_stream(m, ctx, val, vt, nval, T, mode, stride, q->batch, q->max_windows, &r);
    if (!*err) {
        json_object_set_new(o, "val_loss", num_or_null(r.loss));
        json_object_set_new(o, "val_ppl", num_or_null(exp(r.loss)));
        if (!isfinite(r.loss) && r.targets) // JSON has no inf or NaN: say why it is null
            json_object_set_new(o, "note",
                                json_string("the loss is not finite: the model diverged"));
        json_object_set_new(o, "targets", json_integer((json_int_t)r.targets));
        json_object_set_new(o, "windows", json_integer((json_int_t)r.windows));
        if (mode == ORDO_EVAL_SLIDING) json_object_set_new(o, "stride", json_integer(stride));
        json_t *pl = json_array();
        for (int t = 0; t < T; t++) json_array_append_new(pl, num_or_null(r.pos_loss[t]));
        json_object_set_new(o, "loss_by_position", pl);
    }
    ordo_eval_result_free(&r);
    if (!*err && d->is_corpus && d->corpus.dep) { // order: the same windows, scored only where
        // the next token depends on word order (what a model blind to order cannot learn)
        const uint8_t *dep = d->corpus.dep + d->n_train;
        int32_t *only = ordo_xmalloc(nval * sizeof *only);
        for (size_t k = 0; k < nval; k++) only[k] = dep[k] ? val[k] : -1;
        *err = ordo_eval_stream(m, ctx, val, only, nval, T, mode, stride, q->batch, q->max_windows,
                                &r);
        if (!*err) {
            json_object_set_new(o, "order_loss", num_or_null(r.loss));
            json_object_set_new(o, "order_targets", json_integer((json_int_t)r.targets));
        }
        ordo_eval_result_free(&r);
        free(only);
    }
    return o;
}

static json_t *accuracy(ordo_gpt *m, ordo_ctx *ctx, const ordo_train_config *cfg,
                        const ordo_rundata *d, const ordo_eval_request *q, ordo_status *err) {
    json_t *a = json_object(), *rows = json_array();
    json_object_set_new(a, "task", json_string(cfg->task));
    json_object_set_new(a, "train_min_len", json_integer(cfg->min_len));
    json_object_set_new(a, "train_max_len", json_integer(cfg->max_len));
    int max_n = q->max_n > 0 ? q->max_n : 2 * (int)cfg->max_len;
    int alphabet = d->vocab_size - ORDO_SEQ_FIRST;
    for (int n = 1; n <= max_n && !*err; n++) {
        json_t *row = json_object();
        json_object_set_new(row, "n", json_integer(n));
        if (m->cfg.pos == ORDO_POS_LEARNED && 2 * n + 2 > m->cfg.T_max) {
            json_object_set_new(row, "exact_match", json_null());
            json_object_set_new(row, "note", json_string("past the learned table"));
        } else {
            double acc;
            *err = ordo_eval_seq_accuracy(m, ctx, d->corpus.task, alphabet, n, q->examples,
                                          (uint64_t)cfg->data_seed + 1, &acc);
            json_object_set_new(row, "exact_match", num_or_null(acc));
            json_object_set_new(row, "examples", json_integer(q->examples));
        }
        json_array_append_new(rows, row);
    }
    json_object_set_new(a, "by_length", rows);
    return a;
}

ordo_status ordo_eval_run(const ordo_eval_request *q, json_t **report) {
    *report = NULL;
    ordo_train_config cfg;
    ordo_rundata data;
    ordo_gpt m;
    int64_t step;
    ordo_status s = ordo_run_open(q->run_dir, &cfg, &data, &m, &step);
    if (s) return s;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    json_t *o = json_object();
    json_object_set_new(o, "run", json_string(q->run_dir));
    json_object_set_new(o, "step", json_integer(step));
    json_object_set_new(o, "pos", json_string(cfg.pos));
    json_object_set_new(o, "task", cfg.data ? json_null() : json_string(cfg.task));
    json_object_set_new(o, "train_context", json_integer(cfg.context));
    json_object_set_new(o, "mode", json_string(ordo_eval_mode_name(q->mode)));
    json_object_set_new(o, "parameters", json_integer((json_int_t)ordo_gpt_num_params(&m)));
    json_t *res = json_array();
    int own = (int)cfg.context;
    const int *lens = q->lengths ? q->lengths : &own;
    int nlen = q->lengths ? q->nlen : 1;
    for (int i = 0; i < nlen && !s; i++)
        json_array_append_new(res, length_result(&m, &ctx, &data, q, lens[i], &s));
    json_object_set_new(o, "results", res);
    int seq = data.is_corpus && data.corpus.task != ORDO_TASK_ORDER;
    if (!s && seq && q->examples > 0)
        json_object_set_new(o, "accuracy", accuracy(&m, &ctx, &cfg, &data, q, &s));
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    ordo_rundata_free(&data);
    if (s) {
        json_decref(o);
        return ordo_error_wrap(s, "%s", q->run_dir);
    }
    *report = o;
    return ORDO_OK;
}
