// A run's evaluation report (see evaluate.h, ordo_eval_run): what `ordo eval` prints and
// saves, and what `ordo sweep` stores for `ordo compare`.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys/dist.h"
#include "sys/fileio.h"
#include "framework/flash.h"
#include "sys/hash.h"
#include "framework/threads.h"
#include "framework/lmhead.h"
#include "sys/memlimit.h"
#include "models/pos/scheme.h"
#include "data/count.h"
#include "data/flipflop.h"
#include "data/mqar.h"
#include "data/passkey.h"
#include "data/selcopy.h"
#include "eval/context_use.h"
#include "eval/evaluate.h"
#include "eval/ngram_levels.h"
#include "run/init.h"
#include "run/run.h"

// null values of the report's members (a real that is not finite is null by ordo_eval_real_of)
#define NULL_INT  ((ordo_eval_int){ORDO_EVAL_NULL, 0})
#define NULL_REAL ((ordo_eval_real){ORDO_EVAL_NULL, 0})
#define NULL_STR  ((ordo_eval_str){ORDO_EVAL_NULL, NULL})

// reals[0..n) of the report: a copy of x (NaN stays, as null)
static ordo_eval_reals reals_of(const double *x, int n) {
    ordo_eval_reals a = {1, n, ordo_xmalloc(((size_t)n + 1) * sizeof *x)};
    if (n) memcpy(a.v, x, (size_t)n * sizeof *x);
    return a;
}

// How length T is evaluated: 1 with its mode and stride, or 0 with the note saying why it
// cannot be (into note[cap]); *aligned is the example length when windows start on examples.
static int length_plan(const ordo_gpt *m, const ordo_rundata *d, const ordo_eval_request *q, int T,
                       ordo_eval_mode *mode, int *stride, int *aligned, char *note, size_t cap) {
    size_t nval = d->nval;
    *aligned = 0;
    if (m->cfg.pos == ORDO_POS_LEARNED && T > m->cfg.T_max && !q->extend_pos) {
        snprintf(note, cap, "past the learned table (T_max %d)", m->cfg.T_max);
        return 0;
    }
    const ordo_pos_scheme *row = ordo_pos_row(m->cfg.pos);
    int longest = row->max_length ? row->max_length(&m->cfg) : 0;
    if (longest && T > longest) { // a NaN loss would read as a diverged model
        snprintf(note, cap, "past %s's range (%d tokens): %s", ordo_pos_name(m->cfg.pos), longest,
                 row->max_length_why);
        return 0;
    }
    if (nval < (size_t)T + 1) {
        snprintf(note, cap, "the %s has %zu tokens, fewer than %d",
                 q->data ? "eval file" : "validation set", nval, T + 1);
        return 0;
    }
    *stride = q->stride > 0 ? (q->stride < T ? q->stride : T) : (T / 4 > 0 ? T / 4 : 1);
    *mode = q->mode;
    if (d->example_len > 0) { // copy/reverse: windows start on examples, as in training
        if (T < d->example_len) {
            snprintf(note, cap, "shorter than one example");
            return 0;
        }
        *mode = ORDO_EVAL_NONOVERLAP;
        *stride = *aligned = d->example_len;
    } else if (*mode == ORDO_EVAL_NONOVERLAP) {
        *stride = T;
    }
    return 1;
}

// The row of length T into *o (zeroed). Past a learned table with q->extend_pos, m is scored
// with its table grown to T (ordo_extend_model), a model that lives only for this row.
static void length_result(ordo_gpt *m0, ordo_ctx *ctx, const ordo_train_config *cfg,
                          const ordo_rundata *d, const ordo_eval_request *q, int T,
                          ordo_eval_report_result *o, ordo_status *err) {
    o->context = ordo_eval_int_of(T);
    ordo_gpt grown, *m = m0;
    int grow = m0->cfg.pos == ORDO_POS_LEARNED && T > m0->cfg.T_max && q->extend_pos;
    if (grow) {
        int how;
        if (!(*err = ordo_names_parse(&ordo_extend_pos_names, q->extend_pos, &how)) &&
            !(*err = ordo_extend_model(cfg, m0, T, (ordo_extend_pos)how, &grown)))
            m = &grown;
        if (*err) return;
        o->extend_pos = (ordo_eval_extend){.have = 1,
                                           .method = ordo_eval_str_of(q->extend_pos),
                                           .table = ordo_eval_int_of(m0->cfg.T_max),
                                           .grown_to = ordo_eval_int_of(T)};
    }
    const int32_t *val = d->val, *vt = d->val_targets;
    size_t nval = d->nval;
    char note[160];
    ordo_eval_mode mode;
    int stride, aligned;
    if (!length_plan(m, d, q, T, &mode, &stride, &aligned, note, sizeof note)) {
        o->val_loss = NULL_REAL;
        o->note = ordo_eval_str_of(note);
        if (grow) ordo_gpt_free(&grown);
        return;
    }
    if (aligned) o->aligned_to_examples = ordo_eval_int_of(aligned);
    ordo_eval_result r;
    *err = ordo_eval_stream_show(m, ctx, val, vt, nval, T, mode, stride, q->batch, q->max_windows,
                                 &q->draw, &q->show, &r);
    if (!*err) {
        o->val_loss = ordo_eval_real_of(r.loss);
        o->val_ppl = ordo_eval_real_of(exp(r.loss));
        if (!isfinite(r.loss) && r.targets) // JSON has no inf or NaN: say why it is null
            o->note = ordo_eval_str_of("the loss is not finite: the model diverged");
        o->targets = ordo_eval_int_of((long long)r.targets);
        o->windows = ordo_eval_int_of((long long)r.windows);
        o->attention_ran =
            ordo_eval_str_of(ordo_attn_impl_name(ordo_attn_resolve(m->attention, T)));
        if (mode == ORDO_EVAL_SLIDING) o->stride = ordo_eval_int_of(stride);
        o->loss_by_position = reals_of(r.pos_loss, T);
    }
    ordo_eval_result_free(&r);
    if (!*err && d->is_corpus && d->corpus.dep &&
        !d->valfile) { // order: the same windows, scored only where
        // the next token depends on word order (what a model blind to order cannot learn)
        const uint8_t *dep = d->corpus.dep + d->n_train;
        int32_t *only = ordo_xmalloc(nval * sizeof *only);
        for (size_t k = 0; k < nval; k++) only[k] = dep[k] ? val[k] : -1;
        char what[64];
        snprintf(what, sizeof what, "eval context %d, order-dependent targets", T);
        ordo_eval_show show = q->show;
        show.what = what;
        *err = ordo_eval_stream_show(m, ctx, val, only, nval, T, mode, stride, q->batch,
                                     q->max_windows, &q->draw, &show, &r);
        if (!*err) {
            o->order_loss = ordo_eval_real_of(r.loss);
            o->order_targets = ordo_eval_int_of((long long)r.targets);
        }
        ordo_eval_result_free(&r);
        free(only);
    }
    if (grow) ordo_gpt_free(&grown);
}

// Copy/reverse/add: exact match by n into *a (zeroed).
static void accuracy(ordo_gpt *m, ordo_ctx *ctx, const ordo_train_config *cfg,
                     const ordo_rundata *d, const ordo_eval_request *q, ordo_eval_accuracy *a,
                     ordo_status *err) {
    a->have = 1;
    a->task = ordo_eval_str_of(cfg->task);
    a->train_min_len = ordo_eval_int_of(cfg->min_len);
    a->train_max_len = ordo_eval_int_of(cfg->max_len);
    int max_n = q->max_n > 0 ? q->max_n : 2 * (int)cfg->max_len;
    int alphabet = d->vocab_size - ORDO_SEQ_FIRST;
    a->by_length =
        (ordo_eval_acc_rows){1, 0, ordo_xcalloc((size_t)max_n + 1, sizeof(ordo_eval_acc_row))};
    for (int n = 1; n <= max_n && !*err; n++) {
        ordo_eval_acc_row *row = &a->by_length.v[a->by_length.n++];
        row->n = ordo_eval_int_of(n);
        if (m->cfg.pos == ORDO_POS_LEARNED && ordo_seq_len(d->corpus.task, n) - 1 > m->cfg.T_max) {
            row->exact_match = NULL_REAL;
            row->note = ordo_eval_str_of("past the learned table");
        } else {
            double acc;
            *err = ordo_eval_seq_accuracy(m, ctx, d->corpus.task, alphabet, n, q->examples,
                                          (uint64_t)cfg->data_seed + 1, &q->draw, &acc);
            row->exact_match = ordo_eval_real_of(acc);
            row->examples = ordo_eval_int_of(q->examples);
        }
    }
}

static const double default_depths[] = {0, 0.25, 0.5, 0.75, 1};

// The mean of the finite values of x[0..n) (NaN when none): the table's marginals.
static double mean_finite(const double *x, int n, int step) {
    double sum = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(x[(size_t)i * step])) sum += x[(size_t)i * step], k++;
    return k ? sum / k : NAN;
}

// Passkey retrieval accuracy (the format is in docs/guide.md, "Scoring a run"): one row per
// length with a cell per depth, and the marginals over depths (each row's exact_match) and
// over lengths (by_depth).
static void passkey_accuracy(ordo_gpt *m, ordo_ctx *ctx, const ordo_train_config *cfg,
                             const ordo_rundata *d, const ordo_eval_request *q,
                             ordo_eval_accuracy *a, ordo_status *err) {
    int own = (int)cfg->context, nl = q->lengths ? q->nlen : 1;
    const int *lens = q->lengths ? q->lengths : &own;
    const double *dep = q->depths ? q->depths : default_depths;
    int nd = q->depths ? q->ndepths : (int)(sizeof default_depths / sizeof *dep);
    a->have = 1;
    ordo_passkey pk;
    if ((*err = ordo_passkey_init(&pk, d->tok, (int)cfg->passkey_digits))) return;
    double *cell = ordo_xmalloc(((size_t)nl * nd + 1) * sizeof *cell);
    a->task = ordo_eval_str_of(cfg->task);
    a->digits = ordo_eval_int_of(cfg->passkey_digits);
    a->train_context = ordo_eval_int_of(cfg->context);
    a->examples = ordo_eval_int_of(q->examples);
    a->depths = reals_of(dep, nd);
    a->by_length = (ordo_eval_acc_rows){1, 0, ordo_xcalloc((size_t)nl + 1, sizeof *a->by_length.v)};
    // one line over the whole grid, counted in examples: each cell is a few forwards, and a
    // grid at long lengths ran for many minutes without a word
    size_t total = 0, before = 0;
    for (int i = 0; i < nl; i++) total += (size_t)nd * (size_t)q->examples;
    ordo_eval_progress prog;
    ordo_eval_progress_init(&prog, q->show.mode,
                            ordo_dist_rank() == 0 ? q->show.out ? q->show.out : stderr : NULL,
                            "eval passkey", "example", total);
    for (int i = 0; i < nl && !*err; i++) {
        ordo_eval_acc_row *row = &a->by_length.v[a->by_length.n++];
        row->length = ordo_eval_int_of(lens[i]);
        const char *note = NULL;
        if (m->cfg.pos == ORDO_POS_LEARNED && lens[i] - 1 > m->cfg.T_max)
            note = "past the learned table";
        else if (lens[i] < ordo_passkey_min_len(&pk))
            note = "shorter than the shortest example";
        for (int j = 0; j < nd; j++) {
            double *c = &cell[(size_t)i * nd + j];
            *c = NAN;
            if (!note && !*err)
                *err = ordo_eval_passkey(m, ctx, &pk, lens[i], dep[j], q->examples,
                                         (uint64_t)cfg->data_seed + 1, &q->draw, &prog, before, c);
            before += (size_t)q->examples;
            ordo_eval_progress_update(&prog, before);
        }
        row->exact_match = ordo_eval_real_of(mean_finite(cell + (size_t)i * nd, nd, 1));
        row->by_depth = reals_of(cell + (size_t)i * nd, nd);
        if (note) row->note = ordo_eval_str_of(note);
    }
    a->by_depth =
        (ordo_eval_depth_means){1, 0, ordo_xcalloc((size_t)nd + 1, sizeof *a->by_depth.v)};
    for (int j = 0; j < nd && !*err; j++)
        a->by_depth.v[a->by_depth.n++] = (ordo_eval_depth_mean){
            ordo_eval_real_of(dep[j]), ordo_eval_real_of(mean_finite(cell + j, nl, nd))};
    ordo_eval_progress_end(&prog);
    free(cell);
    ordo_passkey_free(&pk);
}

// MQAR's and selective copying's columns: the pairs (data tokens) 1, 2, 4 .. 64 and the run's
// own, those that `most` allows.
static int pow2_columns(int own, int most, int *out) {
    int n = 0;
    for (int p = 1; p <= 64; p *= 2) {
        if (own > p / 2 && own < p && own <= most) out[n++] = own;
        if (p <= most) out[n++] = p;
    }
    if (own > 64 && own <= most) out[n++] = own;
    return n;
}

// Counting's columns: CoPE's 1, 3 and 5 variables and the run's own, those up to the run's own
// (a variable it never saw has an untrained embedding).
static int count_columns(int own, int *out) {
    int n = 0;
    for (int v = 1; v <= 5; v += 2) {
        if (own > v - 2 && own < v && v > 1) out[n++] = own;
        if (v <= own) out[n++] = v;
    }
    if (own > 5) out[n++] = own;
    return n;
}

// One answers task as eval scores it: the example maker, its options, its columns (the
// parameter of each cell), and whether a length can hold a cell (its check).
typedef struct answers_grid {
    ordo_answers_example make;
    const void *task;
    double col[16];
    int nc;
    ordo_mqar mq;
    ordo_selcopy sc;
} answers_grid;

static void grid_of(ordo_task t, const ordo_train_config *cfg, answers_grid *g) {
    int cols[16];
    g->mq = (ordo_mqar){(int)cfg->mqar_vocab, cfg->mqar_power};
    g->sc = (ordo_selcopy){(int)cfg->sc_vocab};
    g->nc = 0;
    g->task = NULL;
    switch (t) {
    case ORDO_TASK_MQAR:
        g->make = ordo_mqar_example, g->task = &g->mq;
        g->nc = pow2_columns((int)cfg->mqar_pairs, (int)cfg->mqar_vocab / 2 - 1, cols);
        break;
    case ORDO_TASK_SELECTIVE_COPY:
        g->make = ordo_selcopy_example, g->task = &g->sc;
        g->nc = pow2_columns((int)cfg->sc_tokens, 1 << 20, cols);
        break;
    case ORDO_TASK_COUNT:
        g->make = ordo_count_example;
        g->nc = count_columns((int)cfg->count_vars, cols);
        break;
    default: // flip-flop: the run's p_i, the paper's sparse and dense ones
        g->make = ordo_flipflop_example;
        g->col[g->nc++] = cfg->ff_ignore;
        if (cfg->ff_ignore != ORDO_FLIPFLOP_SPARSE) g->col[g->nc++] = ORDO_FLIPFLOP_SPARSE;
        if (cfg->ff_ignore != ORDO_FLIPFLOP_DENSE) g->col[g->nc++] = ORDO_FLIPFLOP_DENSE;
        return;
    }
    for (int j = 0; j < g->nc; j++) g->col[j] = cols[j];
}

// Whether a length L can hold cell j: its check, the error cleared (a null cell, not an error).
static int cell_fits(ordo_task t, const answers_grid *g, int L, int j) {
    ordo_status s = t == ORDO_TASK_MQAR             ? ordo_mqar_check(&g->mq, L, (int)g->col[j])
                    : t == ORDO_TASK_SELECTIVE_COPY ? ordo_selcopy_check(&g->sc, L, (int)g->col[j])
                    : t == ORDO_TASK_COUNT          ? ordo_count_check(L, (int)g->col[j])
                                                    : ordo_flipflop_check(L, g->col[j]);
    ordo_error_clear();
    return s == ORDO_OK;
}

static ordo_eval_ints ints_of(const double *x, int n) {
    ordo_eval_ints v = {1, n, ordo_xmalloc(((size_t)n + 1) * sizeof(long long))};
    for (int j = 0; j < n; j++) v.v[j] = (long long)x[j];
    return v;
}

// MQAR, flip-flop, selective copying and counting (the format is in docs/guide.md, "Scoring a
// run"): a row per length (eval's --context list) with a cell per column (MQAR: pairs;
// flip-flop: p_i, the run's and the paper's sparse and dense ones; selective copying: data
// tokens; counting: variables), each the per-answer accuracy of --examples examples, and the
// row's mean.
static void answers_accuracy(ordo_gpt *m, ordo_ctx *ctx, const ordo_train_config *cfg,
                             const ordo_rundata *d, const ordo_eval_request *q,
                             ordo_eval_accuracy *a, ordo_status *err) {
    int own = (int)cfg->context, nl = q->lengths ? q->nlen : 1;
    const int *lens = q->lengths ? q->lengths : &own;
    ordo_task t = d->corpus.task;
    answers_grid g;
    grid_of(t, cfg, &g);
    int nc = g.nc;
    a->have = 1;
    a->task = ordo_eval_str_of(cfg->task);
    a->train_context = ordo_eval_int_of(cfg->context);
    a->examples = ordo_eval_int_of(q->examples);
    if (t == ORDO_TASK_MQAR) {
        a->vocab = ordo_eval_int_of(cfg->mqar_vocab);
        a->train_pairs = ordo_eval_int_of(cfg->mqar_pairs);
        a->pairs = ints_of(g.col, nc);
    } else if (t == ORDO_TASK_SELECTIVE_COPY) {
        a->vocab = ordo_eval_int_of(cfg->sc_vocab);
        a->train_tokens = ordo_eval_int_of(cfg->sc_tokens);
        a->tokens = ints_of(g.col, nc);
    } else if (t == ORDO_TASK_COUNT) {
        a->train_vars = ordo_eval_int_of(cfg->count_vars);
        a->vars = ints_of(g.col, nc);
    } else {
        a->train_p_ignore = ordo_eval_real_of(cfg->ff_ignore);
        a->p_ignore = reals_of(g.col, nc);
    }
    a->by_length = (ordo_eval_acc_rows){1, 0, ordo_xcalloc((size_t)nl + 1, sizeof *a->by_length.v)};
    for (int i = 0; i < nl && !*err; i++) {
        ordo_eval_acc_row *row = &a->by_length.v[a->by_length.n++];
        int L = lens[i];
        row->length = ordo_eval_int_of(L);
        const char *note = NULL;
        if (m->cfg.pos == ORDO_POS_LEARNED && L - 1 > m->cfg.T_max)
            note = "past the learned table";
        else if (t == ORDO_TASK_FLIPFLOP && !cell_fits(t, &g, L, 0))
            note = "flipflop needs an even length >= 4";
        double cell[16];
        for (int j = 0; j < nc; j++) {
            cell[j] = NAN;
            if (note || *err || !cell_fits(t, &g, L, j)) continue; // a cell it cannot hold: null
            *err = ordo_eval_answers(m, ctx, g.make, g.task, L, g.col[j], q->examples,
                                     (uint64_t)cfg->data_seed + 1, &q->draw, &cell[j]);
        }
        row->accuracy = ordo_eval_real_of(mean_finite(cell, nc, 1));
        ordo_eval_reals cells = reals_of(cell, nc);
        if (t == ORDO_TASK_MQAR)
            row->by_pairs = cells;
        else if (t == ORDO_TASK_SELECTIVE_COPY)
            row->by_tokens = cells;
        else if (t == ORDO_TASK_COUNT)
            row->by_vars = cells;
        else
            row->by_p_ignore = cells;
        if (note) row->note = ordo_eval_str_of(note);
    }
}

// ---------------------------------------------------------------------------------------
// Memory: a long context costs T^2 per head and layer, so `--context 100000` can ask for
// terabytes. The largest forward of the report is estimated first and refused with a message
// (as train refuses its sizes), then the arena is reserved for it, so that a machine that
// cannot give the memory is an error and never an abort half-way through.

// The largest single forward of a report: what the forward holds with no tape (one layer's
// buffers at a time, the LM head in row chunks).
typedef struct eval_peak {
    double bytes;       // the process at that forward: model, activations, position tables
    double arena;       // of which the context's arena
    double attention;   // of which one layer's (rows, NH, T, T) attention probabilities (0: fused)
    int T, rows, acc_n; // its window length, windows, and the copy/reverse n (0: a length)
} eval_peak;

// The floats of g of the fused attention's bias for g's scheme (models/bias_tiles.h).
static double bias_grad_floats(const ordo_gpt_config *g, int T) {
    const ordo_pos_scheme *row = ordo_pos_row(g->pos);
    return row->grad_floats ? row->grad_floats(g, T) : 0;
}

double ordo_eval_forward_arena_bytes(const ordo_gpt_config *g, ordo_attn_impl attn, int rows, int T,
                                     double picks) {
    double R = rows, t = T, C = g->C, NH = g->NH, V = g->V;
    int fused = ordo_attn_resolve(attn, T) == ORDO_ATTN_FUSED;
    // The forward frees each layer's buffers before the next (models/gpt.c), so one layer's are
    // counted: about 22 (R, T, C) activations (18, rope 21), the layernorm statistics, and the
    // attention (materialized: its probabilities (R, NH, T, T); fused: the row log-sum-exp and
    // the kernel's scratch, linear in T). Around the layers: the embeddings (with a scaled
    // copy), the residual stream that the layers hand on, the final layernorm.
    double att = fused ? R * NH * t + (double)ordo_flash_scratch_floats(
                                          rows, T, g->C, g->NH, (size_t)bias_grad_floats(g, T))
                       : R * NH * t * t;
    double floats = 22 * R * t * C + 4 * R * t + att + 4 * R * t * C;
    // the head: the picked positions' hidden states and logits (npick, C + V) where the caller
    // takes them, else one chunk of rows of the chunked head (framework/lmhead.h) and its
    // statistics
    double chunk = fmin((double)ordo_lm_head_chunk_rows(g->V), R * t);
    floats += picks > 0 ? picks * (V + C) : chunk * (V + 2);
    // the scheme's own: fused, its tile state (models/bias_tiles.c: values by distance and
    // row, doubles counted as two floats); materialized, its (NH, T, T) bias and what makes it
    const ordo_pos_scheme *row = ordo_pos_row(g->pos);
    if (row->arena_floats) floats += row->arena_floats(g, R, t, fused);
    // 64-byte rounding and the tensor headers of about 30 allocations per layer, and a margin
    return 4 * floats + 256.0 * (30 * g->L + 30) + (1 << 20);
}

// Bytes of the process during one forward of `rows` windows of T tokens (acc_n: the
// copy/reverse n it scores, 0 for a length), into *p when more than p has: the arena's, the
// position tables that the model mallocs for length T, and the model's weight and gradient
// blocks, twice past a learned table with --extend-pos (the run's model and the one with
// the grown table, ordo_extend_model, live together).
static void forward_bytes(const ordo_gpt *m, const ordo_eval_request *q, int rows, int T, int acc_n,
                          double picks, eval_peak *p) {
    const ordo_gpt_config *g = &m->cfg;
    int mat = ordo_attn_resolve(m->attention, T) == ORDO_ATTN_MATERIALIZED; // T x T: its alone
    const ordo_pos_scheme *row = ordo_pos_row(g->pos);
    double t = T, tables = row->table_floats ? row->table_floats(g, t, mat) : 0;
    double arena = ordo_eval_forward_arena_bytes(g, m->attention, rows, T, picks);
    // the windows' ids and targets (int32) and their row losses (double)
    double total = arena + 4 * tables + 8.0 * (double)m->params.total + 16.0 * rows * t;
    if (g->pos == ORDO_POS_LEARNED && T > g->T_max && q->extend_pos)
        total += 8.0 * ((double)m->params.total + (t - g->T_max) * g->C);
    if (total <= p->bytes) return;
    *p = (eval_peak){.bytes = total,
                     .arena = arena,
                     .attention = mat ? 4.0 * rows * g->NH * t * t : 0, // one layer's
                     .T = T,
                     .rows = rows,
                     .acc_n = acc_n};
}

// The largest forward that ordo_eval_run would make for q.
static eval_peak plan(const ordo_gpt *m, const ordo_train_config *cfg, const ordo_rundata *d,
                      const ordo_eval_request *q) {
    eval_peak p = {0};
    int own = (int)cfg->context, size = ordo_dist_size();
    const int *lens = q->lengths ? q->lengths : &own;
    size_t nval = d->nval;
    for (int i = 0; i < (q->lengths ? q->nlen : 1); i++) {
        int T = lens[i], stride, aligned;
        ordo_eval_mode mode;
        char note[160];
        if (!length_plan(m, d, q, T, &mode, &stride, &aligned, note, sizeof note)) continue;
        // windows of the stream (nonoverlap: range(0, n - T, stride); sliding's last one is
        // placed at the end), of this rank
        size_t w = mode == ORDO_EVAL_NONOVERLAP
                       ? (nval - (size_t)T + (size_t)stride - 1) / (size_t)stride
                       : (nval - 1 - (size_t)T + (size_t)stride - 1) / (size_t)stride + 1;
        if (q->max_windows && q->max_windows < w) w = q->max_windows;
        w = (w + (size_t)size - 1) / (size_t)size;
        int rows = ordo_eval_windows_per_forward(&m->cfg, T, q->batch);
        forward_bytes(m, q, (size_t)rows < w ? rows : (int)w, T, 0, 0, &p);
    }
    ordo_task task = d->corpus.task;
    if (d->is_corpus && q->examples > 0 && (task == ORDO_TASK_PASSKEY || ordo_answers_task(task))) {
        int nl = q->lengths ? q->nlen : 1;
        for (int i = 0; i < nl; i++) { // a few examples per forward, the logits from the answer
            int L = lens[i];
            if (L < 2 || (m->cfg.pos == ORDO_POS_LEARNED && L - 1 > m->cfg.T_max)) continue;
            int rows = ordo_eval_passkey_rows(&m->cfg, L);
            rows = rows < q->examples ? rows : q->examples;
            // passkey: the key's tokens; the answers tasks: up to every position
            int key = ordo_passkey_answer_max((int)cfg->passkey_digits);
            int per = task == ORDO_TASK_PASSKEY && key < L - 1 ? key : L - 1;
            forward_bytes(m, q, rows, L - 1, L, (double)rows * per, &p);
        }
    } else if (d->is_corpus && d->corpus.task != ORDO_TASK_ORDER && q->examples > 0) {
        int max_n = q->max_n > 0 ? q->max_n : 2 * (int)cfg->max_len;
        int rows = q->examples < ORDO_EVAL_SEQ_CHUNK ? q->examples : ORDO_EVAL_SEQ_CHUNK;
        for (int n = max_n; n >= 1; n--) // the longest n that the scheme can go to
            if (!(m->cfg.pos == ORDO_POS_LEARNED && ordo_seq_len(task, n) - 1 > m->cfg.T_max)) {
                int T = ordo_seq_len(task, n) - 1; // exact match: the logits whole
                forward_bytes(m, q, rows, T, n, (double)rows * T, &p);
                break;
            }
    }
    return p;
}

// GiB for "%.*f": its precision and its value (4768, 74.67, 0.05).
#define GIB(x) ((x) < 100.0 * (1 << 30) ? 2 : 0), ((x) / (double)(1 << 30))

// Refuses q when its largest forward needs more memory than the process may use, then
// reserves the arena for it (a refusal of the system is then this error, not an abort).
static ordo_status reserve_memory(const ordo_gpt *m, const ordo_train_config *cfg,
                                  const ordo_rundata *d, const ordo_eval_request *q,
                                  ordo_ctx *ctx) {
    eval_peak p = plan(m, cfg, d, q);
    if (p.T == 0) return ORDO_OK; // nothing to evaluate
    char what[160], fix[96];
    if (p.acc_n)
        snprintf(what, sizeof what, "exact match at %s = %d (context %d, %d examples per forward)",
                 d->corpus.task == ORDO_TASK_PASSKEY ? "length" : "n", p.acc_n, p.T, p.rows);
    else
        snprintf(what, sizeof what, "eval at context %d (%d window%s per forward)", p.T, p.rows,
                 p.rows == 1 ? "" : "s");
    int passkey = d->corpus.task == ORDO_TASK_PASSKEY; // its lengths are --context's
    snprintf(fix, sizeof fix, "use a smaller %s",
             p.acc_n ? (passkey ? (p.rows > 1 ? "--context or --examples" : "--context")
                                : (p.rows > 1 ? "--max-n or --examples" : "--max-n"))
                     : (p.rows > 1 ? "--context or --batch" : "--context"));
    const char *limit;
    double have = ordo_memory_limit(&limit);
    char att[160] = ""; // what the materialized attention takes, when it is what runs
    if (p.attention > 0)
        snprintf(att, sizeof att,
                 " (the attention alone %.*f GiB: %d x %d head(s) x %d^2 floats, one layer at "
                 "a time)",
                 GIB(p.attention), p.rows, m->cfg.NH, p.T);
    if (p.bytes > have || p.arena > 0x1p62) // (have: INFINITY when sysconf cannot tell)
        return ordo_error(ORDO_ERR_NOMEM,
                          "%s needs about %.*f GiB%s, more than the %.*f GiB %s; %s", what,
                          GIB(p.bytes), att, GIB(have), limit, fix);
    ordo_ctx_reset(ctx);
    if (!ordo_arena_reserve(&ctx->arena, (size_t)p.arena)) return ORDO_OK;
    char why[256];
    snprintf(why, sizeof why, "%s", ordo_error_message());
    return ordo_error(ORDO_ERR_NOMEM,
                      "%s needs about %.*f GiB, and the system refused it (%s; the limit is "
                      "%.*f GiB %s); %s",
                      what, GIB(p.bytes), why, GIB(have), limit, fix);
}

// YaRN's ramp ends and temperature of rc into the report's fields, each only when it is not
// the paper's (so that other records stay as they were).
static void yarn_of(const ordo_rope_config *rc, ordo_eval_real *alpha, ordo_eval_real *beta,
                    ordo_eval_int *temperature) {
    if (rc->scaling != ORDO_ROPE_SCALING_YARN) return;
    if (rc->yarn_alpha && rc->yarn_alpha != ORDO_YARN_ALPHA)
        *alpha = ordo_eval_real_of(rc->yarn_alpha);
    if (rc->yarn_beta && rc->yarn_beta != ORDO_YARN_BETA) *beta = ordo_eval_real_of(rc->yarn_beta);
    if (rc->yarn_no_temperature) *temperature = ordo_eval_int_of(0);
}

// The RoPE scaling that eval uses (q's, or the run's) set on m, and its description for the
// report (source "run" | "eval"); desc->have 0 for a scheme without a rotation.
static ordo_status eval_rope(const ordo_eval_request *q, const ordo_train_config *cfg, ordo_gpt *m,
                             ordo_eval_rope *desc) {
    *desc = (ordo_eval_rope){0};
    if (q->rope_scaling) {
        ordo_rope_config rc = {0};
        ordo_status s = ordo_rope_scaling_parse(q->rope_scaling, &rc.scaling);
        if (s) return ordo_error_wrap(s, "--rope-scaling");
        if (rc.scaling != ORDO_ROPE_SCALING_NONE && m->cfg.pos != ORDO_POS_ROPE)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-scaling %s applies to --pos rope, but the run has --pos %s",
                              q->rope_scaling, ordo_pos_name(m->cfg.pos));
        int trained_scaled = m->cfg.rope.scaling != ORDO_ROPE_SCALING_NONE;
        rc.orig_T = q->rope_orig_context ? q->rope_orig_context
                    : trained_scaled     ? m->cfg.rope.orig_T
                                         : (int)cfg->context;
        rc.factor = q->rope_factor;
        rc.yarn_alpha = q->yarn_alpha;
        rc.yarn_beta = q->yarn_beta;
        rc.yarn_no_temperature = q->yarn_no_temperature;
        if (rc.scaling == ORDO_ROPE_SCALING_NONE ||
            (rc.factor == 0 && ordo_rope_scaling_by_length(rc.scaling))) {
            rc.factor = 1;           // dynamic-ntk: the length sets the scale, the factor is HF's 1
        } else if (rc.factor == 0) { // the longest length asked for, over the original context
            int longest = (int)cfg->context;
            for (int i = 0; q->lengths && i < q->nlen; i++)
                if (q->lengths[i] > longest) longest = q->lengths[i];
            rc.factor = (double)longest / rc.orig_T;
            if (rc.factor <= 1)
                return ordo_error(ORDO_ERR_ARG,
                                  "--rope-scaling %s: the factor would be the longest --context "
                                  "%d / the original context %d = %g, which changes nothing; "
                                  "give --rope-factor",
                                  q->rope_scaling, longest, rc.orig_T, rc.factor);
        }
        if ((s = ordo_gpt_set_rope(m, &rc))) return s;
    }
    if (m->cfg.pos != ORDO_POS_ROPE) return ORDO_OK;
    const ordo_rope_config *rc = &m->cfg.rope;
    *desc = (ordo_eval_rope){.have = 1,
                             .scaling = ordo_eval_str_of(ordo_rope_scaling_name(rc->scaling)),
                             .factor = ordo_eval_real_of(rc->factor),
                             .original_context = ordo_eval_int_of(rc->orig_T),
                             .source = ordo_eval_str_of(q->rope_scaling ? "eval" : "run")};
    yarn_of(rc, &desc->yarn_alpha, &desc->yarn_beta, &desc->yarn_temperature);
    return ORDO_OK;
}

// q->extend_pos checked against the run: a known method, and a learned table to grow.
static ordo_status eval_extend(const ordo_eval_request *q, const ordo_gpt *m) {
    int how;
    if (!q->extend_pos) return ORDO_OK;
    ordo_status s = ordo_names_parse(&ordo_extend_pos_names, q->extend_pos, &how);
    if (s) return s;
    if (m->cfg.pos != ORDO_POS_LEARNED)
        return ordo_error(ORDO_ERR_ARG,
                          "--extend-pos %s grows a learned position table, but the run has "
                          "--pos %s (no table to grow%s)",
                          q->extend_pos, ordo_pos_name(m->cfg.pos),
                          m->cfg.pos == ORDO_POS_ROPE ? "; --rope-scaling scales its rotation"
                                                      : "");
    return ORDO_OK;
}

void ordo_eval_request_record(const ordo_eval_request *q, const int *lens, int nlen,
                              ordo_eval_report_request *r) {
    *r = (ordo_eval_report_request){.have = 1};
    r->lengths = (ordo_eval_ints){1, nlen, ordo_xmalloc(((size_t)nlen + 1) * sizeof(long long))};
    for (int i = 0; i < nlen; i++) r->lengths.v[i] = lens[i];
    r->mode = ordo_eval_str_of(ordo_eval_mode_name(q->mode));
    r->sliding_stride = ordo_eval_int_of(q->stride);
    r->batch = ordo_eval_int_of(q->batch);
    r->max_windows = ordo_eval_int_of((long long)q->max_windows);
    r->examples = ordo_eval_int_of(q->examples);
    r->max_n = ordo_eval_int_of(q->max_n);
    if (q->depths) r->depths = reals_of(q->depths, q->ndepths); // passkey's grid, as given
    r->rope_scaling = ordo_eval_str_of(q->rope_scaling);
    r->rope_factor = ordo_eval_real_of(q->rope_factor);
    r->rope_orig_context = ordo_eval_int_of(q->rope_orig_context);
    if (q->yarn_alpha) r->yarn_alpha = ordo_eval_real_of(q->yarn_alpha);
    if (q->yarn_beta) r->yarn_beta = ordo_eval_real_of(q->yarn_beta);
    if (q->yarn_no_temperature) r->yarn_temperature = ordo_eval_int_of(0);
    r->extend_pos = ordo_eval_str_of(q->extend_pos);
    r->attention = ordo_eval_str_of(ordo_attn_impl_name(q->attention));
    if (q->drawn_positions) r->positions = ordo_eval_str_of("drawn");
    if (q->context_use > 0) r->context_use = ordo_eval_int_of(q->context_use);
}

// The variant of the report: the scaling and extension given to eval, as used (null: the run as
// it trained).
static ordo_eval_variant variant_of(const ordo_eval_request *q, const ordo_gpt *m) {
    int scaled = q->rope_scaling && m->cfg.pos == ORDO_POS_ROPE;
    ordo_eval_variant v = {
        .have = 1,
        .scaling = ordo_eval_str_of(scaled ? ordo_rope_scaling_name(m->cfg.rope.scaling) : NULL),
        .factor = scaled ? ordo_eval_real_of(m->cfg.rope.factor) : NULL_REAL,
        .original_context = scaled ? ordo_eval_int_of(m->cfg.rope.orig_T) : NULL_INT,
        .extension = ordo_eval_str_of(q->extend_pos)};
    if (scaled) yarn_of(&m->cfg.rope, &v.yarn_alpha, &v.yarn_beta, &v.yarn_temperature);
    if (q->drawn_positions) v.positions = ordo_eval_str_of("drawn");
    return v;
}

// The run's training data as config.json records it: the file (or "task:<name>") and, when
// recorded, its size and hash.
static ordo_eval_data data_of(const ordo_train_config *cfg) {
    ordo_eval_data d = {.have = 1};
    if (cfg->data) {
        d.source = ordo_eval_str_of(cfg->data);
    } else {
        char task[96];
        snprintf(task, sizeof task, "task:%s", cfg->task);
        d.source = ordo_eval_str_of(task);
    }
    if (cfg->data_record.have) {
        char hex[17];
        ordo_hash_hex(cfg->data_record.hash, hex);
        d.size = ordo_eval_int_of((long long)cfg->data_record.size);
        d.xxh3 = ordo_eval_str_of(hex);
    }
    return d;
}

// What was scored: the run's validation set (a split of its data, or its --val-data file), or
// a file given to eval --data, scored whole.
static ordo_eval_set eval_set_of(const ordo_eval_request *q, const ordo_train_config *cfg,
                                 const ordo_rundata *data) {
    ordo_eval_set set = {.have = 1};
    set.kind = ordo_eval_str_of(q->data ? "file" : cfg->val_data ? "val-data" : "split");
    if (q->data || cfg->val_data) set.file = ordo_eval_str_of(q->data ? q->data : data->val_path);
    set.tokens = ordo_eval_int_of((long long)data->nval);
    if (data->valfile) {
        char hex[17];
        ordo_hash_hex(data->val_record.hash, hex);
        set.xxh3 = ordo_eval_str_of(hex);
    }
    return set;
}

// --positions drawn: the run's --pos-random draw at eval too, from a seed of the run's own
// (not the training steps' stream), so that two evals of a run score the same positions.
static ordo_status eval_positions(ordo_eval_request *q, const ordo_train_config *cfg) {
    q->draw = (ordo_eval_draw){0};
    if (!q->drawn_positions) return ORDO_OK;
    if (cfg->pos_random <= 0)
        return ordo_error(ORDO_ERR_ARG,
                          "--positions drawn scores at positions drawn as --pos-random draws "
                          "them, but this run trained at 0..T-1 (no --pos-random)");
    q->draw = (ordo_eval_draw){(int)cfg->pos_random,
                               (uint64_t)cfg->seed * 0x9e3779b97f4a7c15ULL ^ 0xe7a1d4a3c0ffeeULL};
    return ORDO_OK;
}

// The report's header: what was scored, by which model, and how (every member before
// "results").
static void report_head(const ordo_eval_request *q, const ordo_train_config *cfg,
                        const ordo_rundata *data, const ordo_gpt *m, const ordo_run_view *view,
                        const int *lens, int nlen, ordo_eval_report *o) {
    o->have = 1;
    o->run = ordo_eval_str_of(q->run_dir);
    o->step = ordo_eval_int_of(view->step);
    o->checkpoint = ordo_eval_str_of(view->ckpt);
    if (view->xxh3[0]) o->checkpoint_xxh3 = ordo_eval_str_of(view->xxh3);
    o->eval_set = eval_set_of(q, cfg, data);
    o->pos = ordo_eval_str_of(cfg->pos);
    o->task = ordo_eval_str_of(cfg->data ? NULL : cfg->task);
    o->train_context = ordo_eval_int_of(cfg->context);
    if (q->extend_pos) { // how lengths past the learned table were scored
        o->extend_pos = (ordo_eval_extend){.have = 1,
                                           .method = ordo_eval_str_of(q->extend_pos),
                                           .table = ordo_eval_int_of(m->cfg.T_max),
                                           .source = ordo_eval_str_of("eval")};
        if (strcmp(q->extend_pos, "fresh") == 0) // the rows' init
            o->extend_pos.seed = ordo_eval_int_of(cfg->seed);
    }
    o->mode = ordo_eval_str_of(ordo_eval_mode_name(q->mode));
    o->attention = ordo_eval_str_of(ordo_attn_impl_name(q->attention));
    o->parameters = ordo_eval_int_of((long long)ordo_gpt_num_params(m));
    // what makes this record one of several of the run (eval/eval_record.h)
    o->variant = variant_of(q, m);
    o->data = data_of(cfg);
    ordo_eval_request_record(q, lens, nlen, &o->request);
}

// Each scored length's n-gram levels (eval/ngram_levels.h: Witten-Bell, orders 1..6, fitted on
// the run's training split, cached per data) on the targets that its row scored, as the row's
// ngram_loss. Not for an eval file (--data: the run's split is not read) or a run without a
// training split, and not for a row without a loss.
static ordo_status ngram_rows(const ordo_eval_request *q, const ordo_rundata *d, const int *lens,
                              int nlen, ordo_eval_results *res) {
    if (q->no_ngram || q->data || d->n_train == 0 || ordo_dist_rank() != 0) return ORDO_OK;
    char dir[ORDO_PATH_MAX];
    ordo_ngram_request nq = {.lengths = lens,
                             .nlen = nlen,
                             .sliding_stride = q->stride,
                             .order = 6,
                             .cache_dir = ordo_ngram_cache_dir(dir, sizeof dir)};
    ordo_ngram_level *lv = ordo_xmalloc(2 * (size_t)nlen * sizeof *lv);
    int cached;
    double fit_s;
    ordo_status s = ordo_ngram_levels(d, &nq, lv, &cached, &fit_s);
    for (int i = 0; i < nlen && !s; i++) {
        const ordo_ngram_level *l = &lv[2 * i + (q->mode == ORDO_EVAL_SLIDING)];
        ordo_eval_report_result *o = &res->v[i];
        if (o->val_loss.has != ORDO_EVAL_SET ||
            (size_t)ordo_eval_int_or(o->targets, -1) != l->targets)
            continue; // not scored, or on other targets (a prefix: --max-windows)
        o->ngram_loss = reals_of(l->loss, l->orders);
    }
    free(lv);
    return s;
}

// The n-gram line of the context-use curve u: orders 1..6 (as ngram_rows), fitted on the run's
// training split, on u's targets with the same k tokens of context. Skipped where ngram_rows
// is (--no-ngram, --data, no training split).
static ordo_status context_use_ngram(const ordo_eval_request *q, const ordo_rundata *d,
                                     ordo_context_use *u) {
    if (q->no_ngram || q->data || d->n_train == 0 || ordo_dist_rank() != 0) return ORDO_OK;
    int32_t *train = ordo_xmalloc(d->n_train * sizeof *train);
    ordo_rundata_ids(d, 0, d->n_train, train);
    ordo_ngram ng;
    ordo_status s = ordo_ngram_fit(&ng, train, d->n_train, d->vocab_size, 6);
    free(train);
    if (!s)
        s = ordo_context_use_ngram(&ng, d->val, d->val_targets, d->nval, u->k[u->n - 1],
                                   (size_t)q->context_use, u);
    ordo_ngram_free(&ng);
    return s;
}

// The context-use curve of the run's validation set (or --data) into the report: k up to the
// training context, on up to q->context_use targets.
static ordo_status context_use(ordo_gpt *m, ordo_ctx *ctx, const ordo_train_config *cfg,
                               const ordo_rundata *d, const ordo_eval_request *q,
                               ordo_eval_context_use *o) {
    ordo_context_use u = {0};
    ordo_status s =
        ordo_context_use_score(m, ctx, d->val, d->val_targets, d->nval, (int)cfg->context,
                               (size_t)q->context_use, q->batch, 1, &u);
    if (!s) s = context_use_ngram(q, d, &u);
    if (s) {
        ordo_context_use_free(&u);
        return s;
    }
    *o = (ordo_eval_context_use){.have = 1, .targets = ordo_eval_int_of((long long)u.targets)};
    o->k = (ordo_eval_ints){1, u.n, ordo_xmalloc(((size_t)u.n + 1) * sizeof(long long))};
    o->loss = (ordo_eval_reals){1, u.n, ordo_xmalloc(((size_t)u.n + 1) * sizeof(double))};
    for (int i = 0; i < u.n; i++) o->k.v[i] = u.k[i], o->loss.v[i] = u.loss[i];
    if (u.ngram_loss) {
        o->ngram_loss = reals_of(u.ngram_loss, u.n);
        o->ngram_order =
            (ordo_eval_ints){1, u.n, ordo_xmalloc(((size_t)u.n + 1) * sizeof(long long))};
        for (int i = 0; i < u.n; i++) o->ngram_order.v[i] = u.ngram_order[i];
    }
    ordo_context_use_free(&u);
    return ORDO_OK;
}

ordo_status ordo_eval_run(const ordo_eval_request *request, ordo_eval_report *report) {
    memset(report, 0, sizeof *report);
    ordo_eval_request rq = *request, *q = &rq; // q->draw: set by eval_positions
    ordo_train_config cfg;
    ordo_rundata data;
    ordo_gpt m;
    ordo_run_view view;
    // with --data the run's own data is not read: its tokenizer is all that is needed
    ordo_run_select sel = {.step = q->have_step ? q->step : -1, .tokenizer_only = q->data != NULL};
    ordo_status s = ordo_run_open(q->run_dir, &sel, &cfg, &data, &m, &view);
    if (s) return s;
    if (q->data && (s = ordo_rundata_use_eval_file(&data, &cfg, q->data))) {
        ordo_gpt_free(&m);
        ordo_rundata_free(&data);
        return s;
    }
    ordo_eval_report *o = report;
    if ((s = eval_extend(q, &m)) || (s = eval_rope(q, &cfg, &m, &o->rope_scaling)) ||
        (s = eval_positions(q, &cfg))) {
        ordo_eval_report_free(o);
        ordo_gpt_free(&m);
        ordo_rundata_free(&data);
        return ordo_error_wrap(s, "%s", q->run_dir);
    }
    m.attention = q->attention;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    // every rank refuses together (their limits may differ)
    if ((s = ordo_dist_agree(reserve_memory(&m, &cfg, &data, q, &ctx)))) {
        ordo_eval_report_free(o);
        ordo_ctx_free(&ctx);
        ordo_gpt_free(&m);
        ordo_rundata_free(&data);
        return ordo_error_wrap(s, "%s", q->run_dir);
    }
    int own = (int)cfg.context;
    const int *lens = q->lengths ? q->lengths : &own;
    int nlen = q->lengths ? q->nlen : 1;
    report_head(q, &cfg, &data, &m, &view, lens, nlen, o);
    o->results = (ordo_eval_results){1, 0, ordo_xcalloc((size_t)nlen + 1, sizeof *o->results.v)};
    for (int i = 0; i < nlen && !s; i++)
        length_result(&m, &ctx, &cfg, &data, q, lens[i], &o->results.v[o->results.n++], &s);
    if (!s) s = ngram_rows(q, &data, lens, nlen, &o->results);
    if (!s && q->context_use > 0) s = context_use(&m, &ctx, &cfg, &data, q, &o->context_use);
    int seq = data.is_corpus && data.corpus.task != ORDO_TASK_ORDER && !q->data;
    int passkey = seq && data.corpus.task == ORDO_TASK_PASSKEY;
    int answers = seq && ordo_answers_task(data.corpus.task);
    if (!s && seq && q->examples > 0) {
        if (answers)
            answers_accuracy(&m, &ctx, &cfg, &data, q, &o->accuracy, &s);
        else if (passkey)
            passkey_accuracy(&m, &ctx, &cfg, &data, q, &o->accuracy, &s);
        else
            accuracy(&m, &ctx, &cfg, &data, q, &o->accuracy, &s);
    }
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    ordo_rundata_free(&data);
    if (s) {
        ordo_eval_report_free(o);
        return ordo_error_wrap(s, "%s", q->run_dir);
    }
    return ORDO_OK;
}
