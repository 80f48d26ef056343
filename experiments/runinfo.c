// Reads a run directory's files into an ordo_runinfo for `ordo compare` (see runinfo.h).
// Only reads; nothing here builds a model or tokenizes data, so comparing many runs of a
// big corpus stays quick. Missing optional pieces (val loss never evaluated, no eval record)
// are NaN or flags, never errors; a malformed file is an error naming it. A run's eval
// records are all read (RUN/eval/*.json, and an older run's eval.json); which one the eval
// fields show is chosen with ordo_runinfo_select_eval.
#include "experiments/runinfo.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/fileio.h"
#include "framework/safetensors.h"
#include "run/checkpoint.h"
#include "run/config.h"
#include "eval/eval_record.h"
#include "run/metrics.h"

static char *dup_or_null(const char *s) {
    return s ? ordo_xstrdup(s) : NULL;
}

static double num_or_nan(json_t *v) {
    return json_is_number(v) ? json_number_value(v) : NAN;
}

// The tasks whose accuracy is a grid: a row per length ("by_length") and a column per value
// of a key of "accuracy" (ints or reals), each row holding its cells under its own key. A new
// task with a grid is one GRID line here (and its keys in eval/eval_report.h); viz and compare
// then draw it as <task>.svg and <task>-<row>.svg.
typedef struct grid_kind {
    const char *task;  // the record's "task" (a record without one matches on its columns)
    size_t cols;       // the columns: offsetof in ordo_eval_accuracy
    int cols_int;      // they are ordo_eval_ints (else ordo_eval_reals)
    size_t cells;      // a row's cells: offsetof in ordo_eval_acc_row (ordo_eval_reals)
    const char *label; // the columns' axis label
} grid_kind;

// A table row. _Generic reads the columns' type from the struct, and a member of another type
// (columns neither ints nor reals, cells not reals) fails to compile rather than being misread.
#define COLS_INT(m) _Generic(((ordo_eval_accuracy *)0)->m, ordo_eval_ints : 1, ordo_eval_reals : 0)
#define CELLS_AT(m)                                                                                \
    _Generic(((ordo_eval_acc_row *)0)->m, ordo_eval_reals : offsetof(ordo_eval_acc_row, m))
#define GRID(task, cols, cells, label)                                                             \
    { task, offsetof(ordo_eval_accuracy, cols), COLS_INT(cols), CELLS_AT(cells), label }

static const grid_kind grid_kinds[] = {
    GRID("passkey", depths, by_depth,
         "depth of the key (0 = start, 1 = right before the question)"),
    GRID("mqar", pairs, by_pairs, "key-value pairs"),
    GRID("flipflop", p_ignore, by_p_ignore, "p_i, probability of an ignore instruction"),
    GRID("selective-copy", tokens, by_tokens, "data tokens to copy"),
    GRID("count", vars, by_vars, "variables"),
};
#define NGRID_KINDS ((int)(sizeof grid_kinds / sizeof *grid_kinds))

const char *ordo_runinfo_grid_label(const char *task) {
    for (int k = 0; task && k < NGRID_KINDS; k++)
        if (strcmp(grid_kinds[k].task, task) == 0) return grid_kinds[k].label;
    return NULL;
}

// The grid of the first kind whose columns the record has (and whose task it names, if it
// names one), into e's acc_grid fields (a cell a row lacks, or null, is NaN); none: left 0.
static void read_grid(ordo_run_eval *e, const ordo_eval_accuracy *acc) {
    const char *task = ordo_eval_str_value(acc->task);
    for (int k = 0; k < NGRID_KINDS; k++) {
        const grid_kind *g = &grid_kinds[k];
        const ordo_eval_ints *ci = (const void *)((const char *)acc + g->cols);
        const ordo_eval_reals *cr = (const void *)((const char *)acc + g->cols);
        int have = g->cols_int ? ci->have : cr->have, nc = g->cols_int ? ci->n : cr->n;
        if (!have || nc == 0 || (task && strcmp(task, g->task) != 0)) continue;
        e->acc_grid_task = g->task;
        e->acc_col_label = g->label;
        e->acc_ncols = nc;
        e->acc_cols = ordo_xmalloc((size_t)nc * sizeof(double));
        e->acc_grid = ordo_xmalloc(((size_t)e->nacc * nc + 1) * sizeof(double));
        for (int j = 0; j < nc; j++) e->acc_cols[j] = g->cols_int ? (double)ci->v[j] : cr->v[j];
        for (int i = 0; i < e->nacc; i++) {
            const ordo_eval_reals *cells =
                (const void *)((const char *)&acc->by_length.v[i] + g->cells);
            for (int j = 0; j < nc; j++)
                e->acc_grid[(size_t)i * nc + j] = j < cells->n ? cells->v[j] : NAN;
        }
        return;
    }
}

static ordo_status read_config(ordo_runinfo *r, const char *path) {
    json_error_t err;
    json_t *j = ordo_json_load_file(path, 0, &err);
    if (!j) return ordo_json_load_error(path, &err);
    ordo_status s = ORDO_OK;
    const char *pos = json_string_value(json_object_get(j, "pos"));
    json_t *ctx = json_object_get(j, "context");
    if (!pos || !json_is_integer(ctx)) {
        s = ordo_error(ORDO_ERR_FORMAT,
                       "%s: expected \"pos\" (a string) and \"context\" (an "
                       "integer), as ordo train writes them",
                       path);
    } else {
        r->pos = ordo_xstrdup(pos);
        r->context = json_integer_value(ctx);
        r->seed = json_integer_value(json_object_get(j, "seed"));
        r->batch = json_integer_value(json_object_get(j, "batch"));
        r->steps = json_integer_value(json_object_get(j, "steps"));
        r->d_model = json_integer_value(json_object_get(j, "d-model"));
        r->layers = json_integer_value(json_object_get(j, "layers"));
        r->heads = json_integer_value(json_object_get(j, "heads"));
        const char *data = json_string_value(json_object_get(j, "data"));
        const char *task = json_string_value(json_object_get(j, "task"));
        if (data) {
            r->data = ordo_xstrdup(data);
        } else { // "task:<name>", whatever the length of a hand-edited name
            if (!task) task = "order";
            size_t n = strlen(task) + sizeof "task:";
            r->data = ordo_xmalloc(n);
            snprintf(r->data, n, "task:%s", task);
        }
        // what the data is: a recorded file is its size and hash, wherever its path pointed
        json_t *rec = json_object_get(j, ORDO_CONFIG_DATA_KEY);
        const char *hex = json_string_value(json_object_get(rec, "xxh3"));
        json_t *size = json_object_get(rec, "size");
        if (data && hex && json_is_integer(size)) {
            size_t n = strlen(data) + strlen(hex) + 64;
            r->data_id = ordo_xmalloc(n);
            snprintf(r->data_id, n, "%s (%lld bytes, xxh3 %s)", data,
                     (long long)json_integer_value(size), hex);
            r->data_hashed = 1;
        } else {
            r->data_id = ordo_xstrdup(r->data);
        }
        json_t *uni = json_object_get(j, ORDO_CONFIG_UNIGRAM_KEY);
        r->unigram = num_or_nan(json_object_get(uni, "entropy"));
        r->unigram_targets = json_integer_value(json_object_get(uni, "targets"));
        // every setting, an absent option at its default (what train reads such a config as)
        r->config = json_deep_copy(j);
        ordo_train_config dc;
        ordo_train_config_defaults(&dc);
        json_t *defaults = ordo_train_config_to_json(&dc);
        const char *key;
        json_t *v;
        json_object_foreach(defaults, key, v) {
            if (!json_object_get(r->config, key)) json_object_set(r->config, key, v);
        }
        json_decref(defaults);
        // the token-embedding convention as numbers (absent keys are GPT-2's, as for train)
        ordo_train_config ec;
        ordo_train_config_defaults(&ec);
        ec.d_model = r->d_model;
        const char *style = json_string_value(json_object_get(j, "embed-style"));
        if (style) ec.embed_style = style;
        ec.embed_scale = json_string_value(json_object_get(j, "embed-scale"));
        ec.embed_std = json_number_value(json_object_get(j, "embed-std")); // 0 if absent
        double scale, std;
        if ((s = ordo_train_config_embed(&ec, &scale, &std))) {
            s = ordo_error_wrap(s, "%s", path);
        } else {
            char buf[96];
            int n = snprintf(buf, sizeof buf, "x%.4g std %.4g", scale, std);
            // the scale on the absolute positions (a learned one's value is the
            // newest checkpoint's, added by count_params)
            const char *ps = json_string_value(json_object_get(j, "pos-scale"));
            if (ps && strcmp(ps, "none") != 0 && n > 0 && n < (int)sizeof buf)
                n += snprintf(buf + n, sizeof buf - (size_t)n, ", pos %s", ps);
            // trained at random positions of [0, N)
            json_int_t pr = json_integer_value(json_object_get(j, "pos-random"));
            if (pr > 0 && n > 0 && n < (int)sizeof buf)
                n += snprintf(buf + n, sizeof buf - (size_t)n, ", pos random %lld", (long long)pr);
            // cope's positions 0..P-1 (absent or 0: --context + 1)
            const char *scheme = json_string_value(json_object_get(j, "pos"));
            json_int_t cm = json_integer_value(json_object_get(j, "cope-max"));
            if (scheme && strcmp(scheme, "cope") == 0 && n > 0 && n < (int)sizeof buf)
                snprintf(
                    buf + n, sizeof buf - (size_t)n, ", cope P %lld",
                    (long long)(cm ? cm : json_integer_value(json_object_get(j, "context")) + 1));
            r->embed = ordo_xstrdup(buf);
        }
    }
    json_decref(j);
    return s;
}

// A learned --pos-scale's value in checkpoint f appended to the embedding column: "..., pos
// learned = 0.2315" (what the run learned, not its init).
static void learned_pos_scale(ordo_runinfo *r, const ordo_safetensors *f) {
    float v;
    if (!r->embed || !ordo_safetensors_find(f, "wpe.scale") ||
        ordo_safetensors_read_f32(f, "wpe.scale", (int[]){1}, 1, &v))
        return;
    char buf[160];
    const char *at = strstr(r->embed, ", pos learned");
    int keep = at ? (int)(at - r->embed) : (int)strlen(r->embed);
    snprintf(buf, sizeof buf, "%.*s, pos learned = %.4g", keep, r->embed, (double)v);
    free(r->embed);
    r->embed = ordo_xstrdup(buf);
}

// Sums the sizes of the newest readable checkpoint's weights (optimizer moments excluded).
static ordo_status count_params(ordo_runinfo *r) {
    int64_t *steps;
    int n;
    ordo_status s = ordo_checkpoint_list(r->dir, &steps, &n);
    if (s) return s;
    if (n == 0) {
        free(steps);
        return ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run",
                          r->dir);
    }
    s = ORDO_ERR_FORMAT;
    for (int i = 0; i < n && s; i++) {
        char path[ORDO_PATH_MAX];
        if ((s = ordo_checkpoint_path(path, sizeof path, r->dir, steps[i]))) break;
        ordo_safetensors *f;
        if ((s = ordo_safetensors_open(path, &f))) {
            fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, ordo_error_message());
            continue;
        }
        size_t total = 0;
        for (int k = 0; k < ordo_safetensors_count(f); k++) {
            const ordo_st_tensor *t = ordo_safetensors_at(f, k);
            if (strncmp(t->name, "optim.", 6) == 0) continue;
            size_t numel = 1;
            for (int d = 0; d < t->ndim; d++) numel *= (size_t)t->shape[d];
            total += numel;
        }
        const char *hex = ordo_safetensors_meta(f, ORDO_ST_HASH_KEY);
        snprintf(r->ckpt_xxh3, sizeof r->ckpt_xxh3, "%s", hex ? hex : "");
        learned_pos_scale(r, f);
        ordo_safetensors_close(f);
        r->params = total;
        r->ckpt_step = steps[i];
    }
    free(steps);
    return s;
}

// A loss of line l: NaN when not logged, INFINITY when logged as null (not finite).
static double loss_of(const ordo_metrics_line *l, double v, unsigned bit) {
    return l->nulls & bit ? INFINITY : v;
}

static ordo_status read_metrics(ordo_runinfo *r, const char *path) {
    ordo_metrics m;
    ordo_status s = ordo_metrics_read(path, &m);
    if (s) {
        ordo_metrics_free(&m);
        return s;
    }
    size_t cap = (size_t)m.n + 1;
    r->step = ordo_xmalloc(cap * sizeof(double));
    r->train_loss = ordo_xmalloc(cap * sizeof(double));
    r->val_loss = ordo_xmalloc(cap * sizeof(double));
    r->val_ppl = ordo_xmalloc(cap * sizeof(double));
    double tps_sum = 0, elapsed = NAN, derived = 0, prev_step = 0;
    r->nonfinite_step = NAN;
    int ntps = 0;
    for (int i = 0; i < m.n; i++) {
        const ordo_metrics_line *l = &m.line[i];
        if (l->blank) continue;
        if (!l->ok) {
            // a run killed mid-write can leave a partial last line: not worth refusing the run
            if (!l->complete) {
                fprintf(stderr, "ordo: warning: %s: line %d is incomplete; ignored\n", path,
                        l->lineno);
                break;
            }
            int lineno = l->lineno;
            ordo_metrics_free(&m);
            return ordo_error(ORDO_ERR_FORMAT, "%s: line %d: expected a JSON object with \"step\"",
                              path, lineno);
        }
        r->step[r->n] = l->step;
        r->train_loss[r->n] = loss_of(l, l->train_loss, ORDO_METRICS_TRAIN_LOSS);
        r->val_loss[r->n] = loss_of(l, l->val_loss, ORDO_METRICS_VAL_LOSS);
        // val_ppl is exp(val_loss): null where that overflowed, and derived where absent
        r->val_ppl[r->n] = isnan(l->val_ppl) ? exp(r->val_loss[r->n]) : l->val_ppl;
        if (l->nulls & (ORDO_METRICS_TRAIN_LOSS | ORDO_METRICS_VAL_LOSS | ORDO_METRICS_VAL_PPL) &&
            isnan(r->nonfinite_step))
            r->nonfinite_step = l->step;
        if (l->tokens_per_s > 0) {
            tps_sum += l->tokens_per_s;
            ntps++;
            // the trainer's tokens_per_s is (tokens since the last line) / (seconds since it)
            derived +=
                (l->step - prev_step) * (double)r->batch * (double)r->context / l->tokens_per_s;
        }
        if (!isnan(l->elapsed_s))
            elapsed = isnan(elapsed) ? l->elapsed_s : fmax(elapsed, l->elapsed_s);
        prev_step = l->step;
        r->n++;
    }
    ordo_metrics_free(&m);
    r->final_train_loss = r->n ? r->train_loss[r->n - 1] : NAN;
    r->best_val_loss = r->best_val_ppl = NAN;
    for (int i = 0; i < r->n; i++)
        if (!isnan(r->val_loss[i]) && !(r->val_loss[i] >= r->best_val_loss)) {
            r->best_val_loss = r->val_loss[i];
            r->best_val_ppl = r->val_ppl[i];
        }
    r->tokens_per_s = ntps ? tps_sum / ntps : NAN;
    r->wall_derived = isnan(elapsed);
    r->wall_s = !isnan(elapsed) ? elapsed : ntps ? derived : NAN;
    return ORDO_OK;
}

// The loss at one length of a record, as compare reads it.
static void read_point(ordo_eval_point *p, const ordo_eval_report_result *o) {
    p->context = (int)o->context.v; // the codec refuses a result without one
    p->val_loss = ordo_eval_real_value(o->val_loss);
    p->note = dup_or_null(ordo_eval_str_value(o->note));
    p->windows = ordo_eval_int_or(o->windows, -1);
    p->stride = (int)ordo_eval_int_or(o->stride, 0);
    p->order_loss = ordo_eval_real_value(o->order_loss);
    p->order_targets = ordo_eval_int_or(o->order_targets, 0);
    const ordo_eval_reals *bp = &o->loss_by_position;
    if (bp->have && bp->n > 0) {
        p->npos = bp->n;
        p->by_pos = ordo_xmalloc((size_t)p->npos * sizeof(double));
        memcpy(p->by_pos, bp->v, (size_t)p->npos * sizeof(double));
    }
    const ordo_eval_reals *ng = &o->ngram_loss;
    if (ng->have && ng->n > 0) {
        p->nngram = ng->n;
        p->ngram = ordo_xmalloc((size_t)p->nngram * sizeof(double));
        memcpy(p->ngram, ng->v, (size_t)p->nngram * sizeof(double));
    }
}

// Copy/reverse's exact match by n (passkey's, mqar's and flipflop's by length, and their
// grids), when the record has it.
static void read_accuracy(ordo_run_eval *e, const ordo_eval_accuracy *acc) {
    const ordo_eval_acc_rows *by = &acc->by_length;
    if (!by->have) return;
    const char *task = ordo_eval_str_value(acc->task);
    e->acc_task = ordo_xstrdup(task ? task : "accuracy");
    e->acc_train_max_len = (int)ordo_eval_int_or(acc->train_max_len, 0);
    e->nacc = by->n;
    e->acc = ordo_xcalloc((size_t)e->nacc + 1, sizeof *e->acc);
    for (int i = 0; i < e->nacc; i++) {
        const ordo_eval_acc_row *o = &by->v[i];
        e->acc[i].n = (int)ordo_eval_int_or(o->n.has ? o->n : o->length, 0);
        // mqar and flipflop score each answer (accuracy), the others each example
        e->acc[i].exact_match =
            ordo_eval_real_value(o->exact_match.has ? o->exact_match : o->accuracy);
    }
    read_grid(e, acc);
}

// Reads eval record `path` into e (name: NULL for the name the record holds, as eval.json).
// A record that is not the run's own (copied in from another run) is left out with a warning:
// *kept 0 and e untouched.
static ordo_status read_eval(const ordo_runinfo *r, ordo_run_eval *e, const char *path,
                             const char *name, int *kept) {
    ordo_eval_report rec;
    ordo_status s = ordo_eval_report_read(path, &rec);
    char why[256];
    *kept = !s && ordo_eval_record_own(r->dir, &rec, why, sizeof why);
    if (!s && !*kept)
        fprintf(stderr,
                "ordo: warning: %s is left out: it is not this run's eval record (%s); `ordo "
                "eval %s --save` makes the run's own\n",
                path, why, r->dir);
    if (!*kept) {
        ordo_eval_report_free(&rec);
        return s;
    }
    char buf[ORDO_EVAL_NAME_MAX + 16];
    e->name = ordo_xstrdup(name ? name : ordo_eval_record_name(&rec, buf, sizeof buf));
    e->path = ordo_xstrdup(path);
    e->step = ordo_eval_int_or(rec.step, -1);
    e->stale = e->step >= 0 && e->step < r->ckpt_step;
    e->train_context = (int)ordo_eval_int_or(rec.train_context, r->context);
    e->mode = dup_or_null(ordo_eval_str_value(rec.mode));
    e->neval = rec.results.n;
    e->eval = ordo_xcalloc((size_t)e->neval + 1, sizeof *e->eval);
    for (int i = 0; i < e->neval; i++) read_point(&e->eval[i], &rec.results.v[i]);
    read_accuracy(e, &rec.accuracy);
    const ordo_eval_context_use *cu = &rec.context_use;
    if (cu->have && cu->k.have && cu->loss.have && cu->k.n == cu->loss.n && cu->k.n > 0) {
        e->ncu = cu->k.n;
        e->cu_k = ordo_xmalloc((size_t)e->ncu * sizeof(double));
        e->cu_loss = ordo_xmalloc((size_t)e->ncu * sizeof(double));
        for (int i = 0; i < e->ncu; i++)
            e->cu_k[i] = (double)cu->k.v[i], e->cu_loss[i] = cu->loss.v[i];
        e->cu_targets = ordo_eval_int_or(cu->targets, 0);
        if (cu->ngram_loss.have && cu->ngram_loss.n == e->ncu) {
            e->cu_ngram = ordo_xmalloc((size_t)e->ncu * sizeof(double));
            memcpy(e->cu_ngram, cu->ngram_loss.v, (size_t)e->ncu * sizeof(double));
        }
    }
    ordo_eval_report_free(&rec);
    return ORDO_OK;
}

static void free_eval(ordo_run_eval *e) {
    free(e->name);
    free(e->path);
    free(e->mode);
    for (int i = 0; i < e->neval; i++)
        free(e->eval[i].note), free(e->eval[i].by_pos), free(e->eval[i].ngram);
    free(e->eval);
    free(e->acc_task);
    free(e->acc);
    free(e->acc_cols);
    free(e->acc_grid);
    free(e->cu_k);
    free(e->cu_loss);
    free(e->cu_ngram);
}

// A new record slot of r (zeroed).
static ordo_run_eval *new_eval(ordo_runinfo *r) {
    r->evals = ordo_xrealloc(r->evals, ((size_t)r->nevals + 1) * sizeof *r->evals);
    memset(&r->evals[r->nevals], 0, sizeof *r->evals);
    return &r->evals[r->nevals++];
}

static int has_eval_named(const ordo_runinfo *r, const char *name) {
    for (int i = 0; i < r->nevals; i++)
        if (strcmp(r->evals[i].name, name) == 0) return 1;
    return 0;
}

static int cmp_eval(const void *a, const void *b) {
    const ordo_run_eval *x = a, *y = b;
    int bx = strcmp(x->name, "base") == 0, by = strcmp(y->name, "base") == 0;
    return bx != by ? by - bx : strcmp(x->name, y->name);
}

// The records of RUN/eval/ (a file NAME.json each; other names are not records and are left
// alone: temporaries, notes), then RUN/eval.json unless eval/ has a record of its name.
static ordo_status read_evals(ordo_runinfo *r, const char *dir) {
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/%s", dir, ORDO_EVAL_DIR);
    if (s) return s;
    DIR *d = opendir(path);
    struct dirent *ent;
    while (d && !s && (ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        char name[ORDO_EVAL_NAME_MAX + 1];
        if (n <= 5 || n - 5 > ORDO_EVAL_NAME_MAX || strcmp(ent->d_name + n - 5, ".json") != 0)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(n - 5), ent->d_name);
        if (ordo_eval_name_check("record", name)) {
            ordo_error_clear();
            continue;
        }
        char file[ORDO_PATH_MAX];
        int kept;
        if (!(s = ordo_path(file, sizeof file, "%s/%s", path, ent->d_name)) &&
            !(s = read_eval(r, new_eval(r), file, name, &kept)) && !kept)
            r->nevals--; // its slot is still zeroed
    }
    if (d) closedir(d);
    struct stat st;
    if (!s) s = ordo_path(path, sizeof path, "%s/eval.json", dir);
    if (!s && stat(path, &st) == 0) {
        ordo_run_eval old = {0};
        int kept;
        s = read_eval(r, &old, path, NULL, &kept);
        if (!s && kept && !has_eval_named(r, old.name))
            *new_eval(r) = old;
        else // eval/ holds a newer record of that name
            free_eval(&old);
    }
    if (r->nevals > 1) qsort(r->evals, (size_t)r->nevals, sizeof *r->evals, cmp_eval);
    ordo_runinfo_select_eval(r, r->nevals ? 0 : -1);
    return s;
}

ordo_status ordo_runinfo_load(ordo_runinfo *r, const char *dir) {
    memset(r, 0, sizeof *r);
    ordo_status s = ordo_path_check(dir);
    if (s) return s;
    r->dir = ordo_xstrdup(dir);
    size_t L = strlen(dir);
    while (L > 1 && dir[L - 1] == '/') L--;
    size_t b = L;
    while (b > 0 && dir[b - 1] != '/') b--;
    r->name = ordo_xmalloc(L - b + 1);
    memcpy(r->name, dir + b, L - b);
    r->name[L - b] = 0;

    struct stat st;
    if (stat(dir, &st) != 0)
        return ordo_error(ORDO_ERR_IO, "%s: cannot open the run directory: %s", dir,
                          strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ordo_error(ORDO_ERR_ARG, "%s: not a run directory (a file)", dir);
    char path[ORDO_PATH_MAX];
    if ((s = ordo_path(path, sizeof path, "%s/config.json", dir))) return s;
    if (stat(path, &st) != 0)
        return ordo_error(ORDO_ERR_ARG,
                          "%s: not a run directory (no config.json; expected what ordo train "
                          "writes, or a sweep directory with sweep.json)",
                          dir);
    s = read_config(r, path);
    if (!s) s = count_params(r);
    if (!s) s = ordo_path(path, sizeof path, "%s/metrics.jsonl", dir);
    if (!s && stat(path, &st) != 0)
        s = ordo_error(ORDO_ERR_ARG, "%s: no metrics.jsonl in the run", dir);
    if (!s) s = read_metrics(r, path);
    if (!s) s = read_evals(r, dir);
    return s;
}

void ordo_runinfo_free(ordo_runinfo *r) {
    free(r->dir);
    free(r->name);
    free(r->pos);
    free(r->embed);
    free(r->data);
    free(r->data_id);
    json_decref(r->config);
    free(r->step);
    free(r->train_loss);
    free(r->val_loss);
    free(r->val_ppl);
    for (int i = 0; i < r->nevals; i++) free_eval(&r->evals[i]);
    free(r->evals);
    memset(r, 0, sizeof *r);
}

void ordo_runinfo_select_eval(ordo_runinfo *r, int k) {
    const ordo_run_eval *e = k >= 0 && k < r->nevals ? &r->evals[k] : NULL;
    r->has_eval = e != NULL;
    r->eval_name = e ? e->name : NULL;
    r->eval_step = e ? e->step : -1;
    r->eval_stale = e ? e->stale : 0;
    r->eval_train_context = e ? e->train_context : 0;
    r->eval_mode = e ? e->mode : NULL;
    r->neval = e ? e->neval : 0;
    r->eval = e ? e->eval : NULL;
    r->acc_task = e ? e->acc_task : NULL;
    r->acc_train_max_len = e ? e->acc_train_max_len : 0;
    r->nacc = e ? e->nacc : 0;
    r->acc = e ? e->acc : NULL;
    r->acc_grid_task = e ? e->acc_grid_task : NULL;
    r->acc_col_label = e ? e->acc_col_label : NULL;
    r->acc_ncols = e ? e->acc_ncols : 0;
    r->acc_cols = e ? e->acc_cols : NULL;
    r->acc_grid = e ? e->acc_grid : NULL;
}

int ordo_runinfo_eval_at(const ordo_runinfo *r, int context, double *loss, const char **note) {
    for (int i = 0; i < r->neval; i++)
        if (r->eval[i].context == context) {
            *loss = r->eval[i].val_loss;
            *note = r->eval[i].note;
            return 1;
        }
    return 0;
}

const ordo_eval_point *ordo_runinfo_eval_point(const ordo_runinfo *r, int context) {
    for (int i = 0; i < r->neval; i++)
        if (r->eval[i].context == context) return &r->eval[i];
    return NULL;
}
