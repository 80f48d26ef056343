// The training loop (see trainer.h). Order of a step: batch -> forward -> loss check ->
// backward -> clip -> update; then log, evaluate and checkpoint on their schedules. All
// memory is set up before the loop; a step reuses the context's arena (no malloc).
// A run directory is never damaged: config.json and checkpoints are written atomically,
// metrics.jsonl is cut back to the resumed checkpoint's step, and a NaN never checkpoints.
#include <errno.h>
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
#include "framework/fileio.h"
#include "framework/threads.h"
#include "train/checkpoint.h"
#include "trainer.h"

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) {
    stop_signal = sig;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int count_targets(const int32_t *t, size_t n) {
    int c = 0;
    for (size_t i = 0; i < n; i++) c += t[i] >= 0;
    return c;
}

ordo_status ordo_eval_loss(ordo_gpt *m, ordo_ctx *ctx, const ordo_dataset *ds, int B,
                           size_t max_windows, double *loss, size_t *count) {
    size_t nw = max_windows && max_windows < ds->count ? max_windows : ds->count;
    int T = ds->max_length;
    int32_t *in = ordo_xmalloc((size_t)B * T * sizeof *in),
            *tg = ordo_xmalloc((size_t)B * T * sizeof *tg);
    double sum = 0;
    size_t cnt = 0;
    int saved = ctx->grad_enabled;
    ctx->grad_enabled = 0;
    ordo_status s = ORDO_OK;
    for (size_t w = 0; w < nw && !s; w += (size_t)B) {
        int rows = (int)(nw - w < (size_t)B ? nw - w : (size_t)B);
        for (int r = 0; r < rows; r++)
            ordo_dataset_get(ds, w + r, in + (size_t)r * T, tg + (size_t)r * T);
        ordo_ctx_reset(ctx);
        ordo_tensor *l;
        s = ordo_gpt_forward(m, ctx, in, tg, rows, T, NULL, &l);
        int c = count_targets(tg, (size_t)rows * T);
        if (!s && c) {
            sum += (double)l->data[0] * c;
            cnt += (size_t)c;
        }
    }
    ctx->grad_enabled = saved;
    free(in);
    free(tg);
    *loss = cnt ? sum / cnt : NAN;
    *count = cnt;
    return s;
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
    int T, B;
    int32_t *in, *tg; // (B, T)
    FILE *metrics;
    int tty;
} trainer;

static ordo_status model_config(const ordo_train_config *c, int V, ordo_gpt_config *g) {
    memset(g, 0, sizeof *g);
    g->V = V;
    g->C = (int)c->d_model;
    g->L = (int)c->layers;
    g->NH = (int)c->heads;
    g->T_max = (int)c->context;
    g->ln_eps = 1e-5f;
    return ordo_pos_parse(c->pos, &g->pos);
}

// Data, datasets, model and optimizer from tr->cfg (fresh state: step 0).
static ordo_status build(trainer *tr) {
    ordo_train_config *c = &tr->cfg;
    ordo_status s = ordo_rundata_load(&tr->data, c);
    if (s) return s;
    tr->T = (int)c->context;
    tr->B = (int)c->batch;
    int stride = (int)c->stride;
    if (tr->data.example_len) {
        if (tr->T < tr->data.example_len)
            return ordo_error(ORDO_ERR_ARG,
                              "--context %d is shorter than one %s example (%d tokens for "
                              "--max-len %lld)",
                              tr->T, c->task, tr->data.example_len, c->max_len);
        if (!stride) stride = tr->data.example_len; // windows start on example boundaries
    }
    if (!stride) stride = tr->T;
    if ((s = ordo_dataset_init(&tr->train_ds, tr->data.tokens, tr->data.n_train, tr->T, stride)))
        return ordo_error_wrap(s, "training split");
    tr->train_ds.targets = tr->data.targets;
    size_t nval = tr->data.n - tr->data.n_train;
    if ((s = ordo_dataset_init(&tr->val_ds, tr->data.tokens + tr->data.n_train, nval, tr->T,
                               stride)))
        return ordo_error_wrap(s, "validation split (--val-frac %g)", c->val_frac);
    tr->val_ds.targets = tr->data.targets ? tr->data.targets + tr->data.n_train : NULL;
    if ((s = ordo_dataloader_init(&tr->loader, &tr->train_ds, tr->B, (int)c->shuffle,
                                  (uint64_t)c->seed, (int)c->drop_last)))
        return ordo_error_wrap(s, "training split");
    ordo_gpt_config g;
    if ((s = model_config(c, tr->data.vocab_size, &g))) return s;
    if ((s = ordo_gpt_init(&tr->model, &g, (uint64_t)c->seed))) return s;
    if (c->init && (s = ordo_gpt_load(&tr->model, c->init)))
        return ordo_error_wrap(s, "--init %s", c->init);
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
    tr->in = ordo_xmalloc((size_t)tr->B * tr->T * sizeof *tr->in);
    tr->tg = ordo_xmalloc((size_t)tr->B * tr->T * sizeof *tr->tg);
    return ORDO_OK;
}

static void destroy(trainer *tr) {
    if (tr->metrics) fclose(tr->metrics);
    free(tr->in);
    free(tr->tg);
    ordo_ctx_free(&tr->ctx);
    ordo_optim_free(&tr->optim);
    ordo_gpt_free(&tr->model);
    ordo_dataloader_free(&tr->loader);
    ordo_rundata_free(&tr->data);
    json_decref(tr->cfg_json);
}

static ordo_status write_json(const char *dir, const char *file, json_t *j) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    size_t len = strlen(text);
    char *buf = ordo_xmalloc(len + 2);
    memcpy(buf, text, len);
    buf[len++] = '\n';
    const void *parts[1] = {buf};
    ordo_status s = ordo_write_atomic(path, parts, &len, 1);
    free(text);
    free(buf);
    return s;
}

// Keeps the metrics lines of steps <= step (a killed run may have logged past its last
// checkpoint, or left half a line), rewriting the file atomically, then opens it to append.
static ordo_status metrics_open(trainer *tr, int64_t step) {
    char path[4096];
    snprintf(path, sizeof path, "%s/metrics.jsonl", tr->cfg.out);
    char *buf = NULL;
    size_t len = 0;
    if (access(path, F_OK) == 0) {
        ordo_status s = ordo_read_file(path, (size_t)1 << 31, &buf, &len);
        if (s) return s;
    }
    size_t keep = 0;
    for (size_t i = 0; i < len;) {
        char *nl = memchr(buf + i, '\n', len - i);
        if (!nl) break; // a partial last line
        long long st = -1;
        if (sscanf(buf + i, "{\"step\":%lld", &st) == 1 && st > step) break;
        i = (size_t)(nl - buf) + 1;
        keep = i;
    }
    if (keep != len || len == 0) {
        const void *parts[1] = {buf ? buf : ""};
        ordo_status s = ordo_write_atomic(path, parts, &keep, 1);
        if (s) {
            free(buf);
            return s;
        }
    }
    free(buf);
    tr->metrics = fopen(path, "a");
    if (!tr->metrics) return ordo_error(ORDO_ERR_IO, "%s: %s", path, strerror(errno));
    return ORDO_OK;
}

static void log_metrics(trainer *tr, double loss, double lr, double tps, double val) {
    fprintf(tr->metrics, "{\"step\":%" PRId64 ",\"train_loss\":%.9g,", tr->step, loss);
    if (!isnan(val)) fprintf(tr->metrics, "\"val_loss\":%.9g,\"val_ppl\":%.9g,", val, exp(val));
    fprintf(tr->metrics, "\"lr\":%.9g,\"tokens_per_s\":%.1f}\n", lr, tps);
    fflush(tr->metrics);
}

static ordo_train_state state_of(const trainer *tr) {
    ordo_train_state st = {.step = tr->step,
                           .loader = ordo_dataloader_get_state(&tr->loader),
                           .rng = tr->rng,
                           .optim_t = tr->optim.t};
    return st;
}

static ordo_status checkpoint(trainer *tr) {
    ordo_train_state st = state_of(tr);
    ordo_status s = ordo_checkpoint_save(tr->cfg.out, &tr->model, &tr->optim, tr->cfg_json, &st,
                                         (int)tr->cfg.keep);
    return s ? ordo_error_wrap(s, "checkpoint") : ORDO_OK;
}

// Finds the newest checkpoint that opens and loads; a bad one is skipped with a warning.
static ordo_status restore(trainer *tr, const ordo_train_request *req, int *restored) {
    *restored = 0;
    int64_t *steps;
    int n;
    ordo_status s = ordo_checkpoint_list(req->resume, &steps, &n);
    if (s) return s;
    for (int i = 0; i < n && !*restored; i++) {
        char path[4096];
        ordo_checkpoint_path(path, sizeof path, req->resume, steps[i]);
        ordo_safetensors *f;
        json_t *cj;
        ordo_train_state st;
        if ((s = ordo_checkpoint_open(path, &f, &cj, &st))) {
            fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, ordo_error_message());
            continue;
        }
        // the checkpoint's config, with the flags given now on top; only resumable keys may differ
        ordo_train_config old, now;
        ordo_train_config_defaults(&old);
        ordo_train_config_defaults(&now);
        s = ordo_train_config_from_json(&old, cj, path, 0, NULL);
        if (!s) s = ordo_train_config_from_json(&now, cj, path, 0, NULL);
        if (!s) {
            ordo_opt *nopts = ordo_train_config_options(&now);
            ordo_opt *given = req->opts;
            for (int k = 0; given[k].name; k++) {
                if (!given[k].seen) continue;
                ordo_opt *dst = ordo_args_find(nopts, given[k].name);
                if (!dst) continue; // --resume, --config, --stop-after: not config keys
                size_t sz = given[k].type == ORDO_OPT_FLOAT    ? sizeof(double)
                            : given[k].type == ORDO_OPT_STRING ? sizeof(char *)
                            : given[k].type == ORDO_OPT_FLAG   ? sizeof(int)
                                                               : sizeof(long long);
                memcpy(dst->dst, given[k].dst, sz);
            }
            free(nopts);
            now.out = req->resume;
            s = ordo_train_config_compare(&old, &now);
        }
        if (s) { // a conflicting config is the user's error, not a bad file: stop
            json_decref(cj);
            ordo_safetensors_close(f);
            free(steps);
            return ordo_error_wrap(s, "--resume %s", req->resume);
        }
        json_decref(cj);
        tr->cfg = now;
        if (tr->data.tokens == NULL && (s = build(tr))) {
            ordo_safetensors_close(f);
            free(steps);
            return s;
        }
        if ((s = ordo_checkpoint_load(f, &tr->model, &tr->optim)) ||
            (s = ordo_dataloader_set_state(&tr->loader, st.loader))) {
            fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, ordo_error_message());
            ordo_safetensors_close(f);
            continue;
        }
        ordo_safetensors_close(f);
        tr->step = st.step;
        tr->optim.t = st.optim_t;
        tr->rng = st.rng;
        *restored = 1;
        fprintf(stderr, "ordo: resuming %s from step %" PRId64 "\n", req->resume, st.step);
    }
    free(steps);
    return ORDO_OK;
}

// A fresh start, or the config.json of a run killed before its first checkpoint.
static ordo_status start_fresh(trainer *tr, const ordo_train_request *req) {
    if (!req->resume) {
        char path[4096];
        snprintf(path, sizeof path, "%s/config.json", tr->cfg.out);
        if (access(path, F_OK) == 0)
            return ordo_error(ORDO_ERR_ARG,
                              "%s already holds a run (config.json); resume it with "
                              "'ordo train --resume %s' or choose another --out",
                              tr->cfg.out, tr->cfg.out);
        return build(tr);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", req->resume);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        return ordo_error(ORDO_ERR_ARG,
                          "--resume %s: no usable checkpoint and no readable config.json (%s)",
                          req->resume, err.text);
    ordo_train_config now;
    ordo_train_config_defaults(&now);
    ordo_status s = ordo_train_config_from_json(&now, j, path, 0, NULL);
    json_decref(j);
    if (s) return s;
    now.out = req->resume;
    tr->cfg = now;
    fprintf(stderr, "ordo: %s has no checkpoint yet; starting it from step 0\n", req->resume);
    return build(tr);
}

static void progress(trainer *tr, double loss, double val, double tps, double eta) {
    if (tr->tty) {
        fprintf(stderr, "\rstep %" PRId64 "/%lld | loss %.4f | val %s | %.0f tok/s | ETA %.0fs   ",
                tr->step, tr->cfg.steps, loss, isnan(val) ? "-" : "", tps, eta);
        if (!isnan(val)) fprintf(stderr, "\b\b\b%.4f   ", val);
        fflush(stderr);
    } else {
        printf("step %" PRId64 "/%lld loss %.4f", tr->step, tr->cfg.steps, loss);
        if (!isnan(val)) printf(" val_loss %.4f val_ppl %.3f", val, exp(val));
        printf(" tok/s %.0f\n", tps);
        fflush(stdout);
    }
}

static ordo_status loop(trainer *tr, long long stop_after, long long poison_step) {
    ordo_train_config *c = &tr->cfg;
    double t_log = now_s();
    int64_t tokens_since = 0;
    double last_val = NAN;
    while (tr->step < c->steps) {
        double lr = ordo_lr_at(tr->sched, tr->step, c->steps, c->warmup, c->lr, c->min_lr);
        int rows = ordo_dataloader_next(&tr->loader, tr->in, tr->tg);
        if (poison_step == tr->step + 1)
            tr->model.wte.table->data[tr->in[0] * tr->model.cfg.C] = NAN;
        ordo_ctx_reset(&tr->ctx);
        ordo_tensor *loss;
        ordo_status s =
            ordo_gpt_forward(&tr->model, &tr->ctx, tr->in, tr->tg, rows, tr->T, NULL, &loss);
        if (s) return s;
        double l = loss->data[0];
        if (!isfinite(l))
            return ordo_error(ORDO_ERR_NUMERIC,
                              "the loss is %g at step %" PRId64 "; stopped without writing a "
                              "checkpoint (the last good one is kept; try a lower --lr or --clip)",
                              l, tr->step + 1);
        ordo_params_zero_grad(&tr->model.params);
        ordo_backward(&tr->ctx, loss);
        double norm = ordo_clip_grad_norm(&tr->model.params, c->clip);
        if (!isfinite(norm))
            return ordo_error(ORDO_ERR_NUMERIC,
                              "the gradient norm is %g at step %" PRId64 "; stopped without "
                              "writing a checkpoint (the last good one is kept)",
                              norm, tr->step + 1);
        ordo_optim_step(&tr->optim, (float)lr);
        tr->step++;
        tokens_since += (int64_t)rows * tr->T;

        int last = tr->step == c->steps;
        int eval = last || (c->eval_every > 0 && tr->step % c->eval_every == 0);
        double val = NAN;
        if (eval) {
            size_t cnt;
            size_t maxw = c->eval_batches ? (size_t)(c->eval_batches * c->batch) : 0;
            if ((s = ordo_eval_loss(&tr->model, &tr->ctx, &tr->val_ds, tr->B, maxw, &val, &cnt)))
                return s;
            last_val = val;
        }
        if (eval || last || tr->step % c->log_every == 0) {
            double t = now_s(), tps = tokens_since / fmax(t - t_log, 1e-9);
            double eta = (double)(c->steps - tr->step) * (t - t_log) /
                         fmax((double)tokens_since / ((double)rows * tr->T), 1.0);
            log_metrics(tr, l, lr, tps, val);
            progress(tr, l, eval ? val : last_val, tps, eta);
            t_log = t;
            tokens_since = 0;
        }
        int stop = stop_signal || (stop_after > 0 && tr->step >= stop_after);
        if (last || stop || (c->ckpt_every > 0 && tr->step % c->ckpt_every == 0))
            if ((s = checkpoint(tr))) return s;
        if (stop && !last) {
            if (tr->tty) fputc('\n', stderr);
            return ordo_error(ORDO_ERR_INTERRUPTED,
                              "stopped after step %" PRId64 " (%s); checkpoint written, continue "
                              "with 'ordo train --resume %s'",
                              tr->step, stop_signal ? strsignal(stop_signal) : "--stop-after",
                              c->out);
        }
    }
    if (tr->tty) fputc('\n', stderr);
    return ORDO_OK;
}

ordo_status ordo_train(const ordo_train_request *req) {
    trainer tr;
    memset(&tr, 0, sizeof tr);
    tr.cfg = *req->cfg;
    ordo_status s = ordo_train_config_check(&tr.cfg);
    if (s) return s;
    int restored = 0;
    if (req->resume) {
        ordo_checkpoint_clean_tmp(req->resume);
        if ((s = restore(&tr, req, &restored))) goto done;
    }
    if (!restored) {
        if (tr.data.tokens) { // a checkpoint was read but none loaded: rebuild from scratch
            ordo_train_config keep = tr.cfg;
            destroy(&tr);
            memset(&tr, 0, sizeof tr);
            tr.cfg = keep;
            if ((s = build(&tr))) goto done;
        } else if ((s = start_fresh(&tr, req)))
            goto done;
    }
    if ((s = ordo_train_config_check(&tr.cfg))) goto done;
    ordo_set_threads((int)tr.cfg.threads);
    if ((s = ordo_mkdir_p(tr.cfg.out, 0755))) goto done;
    tr.cfg_json = ordo_train_config_to_json(&tr.cfg);
    if ((s = write_json(tr.cfg.out, "config.json", tr.cfg_json))) goto done;
    if ((s = metrics_open(&tr, tr.step))) goto done;
    tr.tty = isatty(STDERR_FILENO);
    if (!restored)
        printf("ordo: training %s, %s position, %zu parameters, %zu train / %zu val tokens -> %s\n",
               tr.cfg.data ? tr.cfg.data : tr.cfg.task, tr.cfg.pos, ordo_gpt_num_params(&tr.model),
               tr.data.n_train, tr.data.n - tr.data.n_train, tr.cfg.out);

    stop_signal = 0;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    s = loop(&tr, req->stop_after, req->poison_step);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
done:
    destroy(&tr);
    return s;
}

ordo_status ordo_run_open(const char *dir, ordo_train_config *cfg, ordo_rundata *data, ordo_gpt *m,
                          int64_t *step) {
    int64_t *steps;
    int n;
    ordo_status s = ordo_checkpoint_list(dir, &steps, &n);
    if (s) return s;
    if (n == 0) {
        free(steps);
        return ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run",
                          dir);
    }
    s = ORDO_ERR_FORMAT;
    for (int i = 0; i < n; i++) {
        char path[4096];
        ordo_checkpoint_path(path, sizeof path, dir, steps[i]);
        ordo_safetensors *f;
        json_t *cj;
        ordo_train_state st;
        if ((s = ordo_checkpoint_open(path, &f, &cj, &st))) {
            fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, ordo_error_message());
            continue;
        }
        ordo_train_config_defaults(cfg);
        s = ordo_train_config_from_json(cfg, cj, path, 0, NULL);
        json_decref(cj);
        ordo_gpt_config g;
        if (!s) s = ordo_rundata_load(data, cfg);
        if (!s) s = model_config(cfg, data->vocab_size, &g);
        if (!s) s = ordo_gpt_init(m, &g, 0);
        if (!s) s = ordo_checkpoint_load(f, m, NULL);
        ordo_safetensors_close(f);
        if (s) {
            fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, ordo_error_message());
            ordo_gpt_free(m);
            ordo_rundata_free(data);
            continue;
        }
        *step = st.step;
        break;
    }
    free(steps);
    return s;
}
