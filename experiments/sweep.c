// `ordo sweep`'s work (see sweep.h): plan the runs, then train and evaluate each in a
// forked child process, `jobs` at a time, and report them as they finish. A child writes
// only its own run directory, under that directory's lock, and exits with 0 (done), 130
// (interrupted), EXIT_BUSY (another process holds the run) or 1 (failed). The sweep itself
// locks only the sweep directory, which no child locks: the two never wait on each other.
// Deliberately not here: the option table and the summary lines (cli/cmd_sweep.c), the
// training and evaluation themselves (train/, eval/), any comparison of the runs (compare.c).
#include "experiments/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "experiments/compare.h"
#include "sys/clock.h"
#include "sys/dirlock.h"
#include "sys/fileio.h"
#include "sys/signals.h"
#include "data/passkey.h"
#include "models/positional.h"
#include "run/checkpoint.h"
#include "eval/eval_record.h"
#include "eval/evaluate.h"
#include "train/trainer.h"

#define EXIT_BUSY 75 // sysexits.h's EX_TEMPFAIL: not now, try again later

struct ordo_sweep_entry {
    // "<pos>-s<seed>", cfg.out/name
    char name[64], dir[ORDO_PATH_MAX];
    const char *pos; // points into ordo_sweep.poslist
    long long seed;
    pid_t pid; // > 0 while its process runs
    double t0; // when it started
    // progress, from its metrics.jsonl: the step it started from (its newest checkpoint's),
    // the last step seen, and the quarter of the steps last reported (plain lines)
    long long step0, step;
    int quarter, done;
};

// Splits a comma list into at most max words (written into buf, pointed to by out).
static int split_list(char *buf, const char **out, int max) {
    int n = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w && n < max;
         w = strtok_r(NULL, ",", &save))
        out[n++] = w;
    return n;
}

static ordo_status parse_mult(const char *s, int *out, int *n) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    const char *w[ORDO_SWEEP_MAX_MULT];
    *n = split_list(buf, w, ORDO_SWEEP_MAX_MULT);
    for (int i = 0; i < *n; i++) {
        char *end;
        long v = strtol(w[i], &end, 10);
        if (*end || v < 1 || v > 64)
            return ordo_error(ORDO_ERR_ARG,
                              "--eval-lengths '%s': expected multiples 1..64 like 1,2,4,8", s);
        out[i] = (int)v;
    }
    if (*n == 0) return ordo_error(ORDO_ERR_ARG, "--eval-lengths is empty");
    return ORDO_OK;
}

// One word of --eval-variants into v, before any "+sliding": base, drawn (--pos-random's draw
// at eval too), S:F (S a RoPE scaling, F its factor) or extend:M (M a way to grow a learned
// table). 0, or -1 when w is none of them (no error set).
static int parse_plain_variant(const char *w, ordo_sweep_variant *v) {
    const char *colon = strchr(w, ':');
    int how;
    if (strcmp(w, "base") == 0 || strcmp(w, "drawn") == 0) {
        snprintf(v->name, sizeof v->name, "%s", w);
        v->drawn = strcmp(w, "drawn") == 0;
        return 0;
    }
    if (colon && strncmp(w, "extend:", 7) == 0 &&
        ordo_names_parse(&ordo_extend_pos_names, colon + 1, &how) == ORDO_OK) {
        v->extend_pos = colon + 1;
        snprintf(v->name, sizeof v->name, "extend-%s", v->extend_pos);
        return 0;
    }
    ordo_error_clear();
    // dynamic-ntk alone: HF's factor 1 (the length sets the scale, so 1 is not base)
    if (strcmp(w, "dynamic-ntk") == 0) {
        v->rope_scaling = "dynamic-ntk";
        v->factor = 1;
        snprintf(v->name, sizeof v->name, "dynamic-ntk-x1");
        return 0;
    }
    char scaling[16], *end = NULL;
    snprintf(scaling, sizeof scaling, "%.*s", colon ? (int)(colon - w) : 0, w);
    ordo_rope_scaling sc;
    if (colon && ordo_rope_scaling_parse(scaling, &sc) == ORDO_OK && sc != ORDO_ROPE_SCALING_NONE) {
        v->factor = strtod(colon + 1, &end);
        // a factor of 1 scales nothing: that variant is base under another name (but for
        // dynamic-ntk, whose scale the length sets)
        double lo = ordo_rope_scaling_by_length(sc) ? 1 : 1 + 1e-12;
        if (end != colon + 1 && !*end && v->factor >= lo && v->factor <= 1e4) {
            v->rope_scaling = ordo_rope_scaling_name(sc);
            snprintf(v->name, sizeof v->name, "%s-x%g", v->rope_scaling, v->factor);
            return 0;
        }
    }
    ordo_error_clear();
    return -1;
}

// "sliding" or "sliding:S" (S the stride, 1..2^20) into v: 0, or -1 when w is not that.
static int parse_sliding(const char *w, ordo_sweep_variant *v) {
    if (strcmp(w, "sliding") == 0) {
        v->sliding = 1;
        return 0;
    }
    if (strncmp(w, "sliding:", 8) != 0) return -1;
    char *end;
    long S = strtol(w + 8, &end, 10);
    if (end == w + 8 || *end || S < 1 || S > (1L << 20)) return -1;
    v->sliding = 1;
    v->stride = (int)S;
    return 0;
}

// One word of --eval-variants into v: a plain variant (parse_plain_variant), "sliding[:S]"
// (base in sliding windows of stride S, T/4 when not given), or "V+sliding[:S]" (variant V in
// sliding windows). The name is the one `ordo eval --mode sliding [--sliding-stride S] --save`
// gives (eval_record.h): V's with "-sliding" or "-sliding-stride<S>" appended. w is split in
// place at the '+' (v->extend_pos points into it).
static ordo_status parse_variant(const char *list, char *w, ordo_sweep_variant *v) {
    memset(v, 0, sizeof *v);
    char *plus = strchr(w, '+');
    if (plus) *plus = 0;
    int bad;
    if (!plus && parse_sliding(w, v) == 0) { // sliding alone: the run as trained, slid
        snprintf(v->name, sizeof v->name, "base");
        bad = 0;
    } else {
        bad = parse_plain_variant(w, v) != 0 || (plus && parse_sliding(plus + 1, v) != 0);
    }
    if (plus) *plus = '+'; // the message quotes the word whole
    if (bad)
        return ordo_error(
            ORDO_ERR_ARG,
            "--eval-variants '%s': '%s' is not a variant; expected base, drawn, "
            "ntk:F, yarn:F, pi:F (F a factor above 1, up to 1e4: 1 is base), "
            "dynamic-ntk[:F], extend:interpolate, extend:fresh, extend:copy, or sliding[:S] "
            "(base in sliding windows of stride S, T/4 when not given) or one of "
            "those followed by +sliding[:S], e.g. base,sliding,ntk:4,ntk:4+sliding",
            list, w);
    if (plus) *plus = 0;
    size_t k = strlen(v->name);
    if (v->sliding && v->stride)
        snprintf(v->name + k, sizeof v->name - k, "-sliding-stride%d", v->stride);
    else if (v->sliding)
        snprintf(v->name + k, sizeof v->name - k, "-sliding");
    return ORDO_OK;
}

static ordo_status parse_variants(ordo_sweep *sw, const char *list) {
    snprintf(sw->varlist, sizeof sw->varlist, "%s", list);
    const char *w[ORDO_SWEEP_MAX_VARIANTS + 1];
    int n = split_list(sw->varlist, w, ORDO_SWEEP_MAX_VARIANTS + 1);
    // the words point into varlist, which is ours to split further (at a '+')
    if (n == 0)
        return ordo_error(ORDO_ERR_ARG, "--eval-variants is empty (base: the run as it trained)");
    if (n > ORDO_SWEEP_MAX_VARIANTS)
        return ordo_error(ORDO_ERR_ARG, "--eval-variants: at most %d variants",
                          ORDO_SWEEP_MAX_VARIANTS);
    for (int i = 0; i < n; i++) {
        ordo_status s = parse_variant(list, (char *)w[i], &sw->variants[i]);
        if (s) return s;
        for (int k = 0; k < i; k++)
            if (strcmp(sw->variants[k].name, sw->variants[i].name) == 0)
                return ordo_error(ORDO_ERR_ARG, "--eval-variants lists %s twice",
                                  sw->variants[i].name);
    }
    sw->nvariants = n;
    return ORDO_OK;
}

// Whether variant v applies to scheme pos: a RoPE scaling to rope, a grown table to learned.
static int variant_applies(const ordo_sweep_variant *v, const char *pos) {
    if (v->rope_scaling) return strcmp(pos, "rope") == 0;
    if (v->extend_pos) return strcmp(pos, "learned") == 0;
    return 1;
}

// ---- planning

// The options' ranges, the eval lengths, and the schemes: each must make a valid config,
// none listed twice, and not more runs than a sweep holds.
static ordo_status check(ordo_sweep *sw, const ordo_sweep_options *o) {
    if (o->seeds < 1 || o->seeds > 100)
        return ordo_error(ORDO_ERR_ARG, "--seeds is %lld, expected 1..100", o->seeds);
    if (o->jobs < 1 || o->jobs > 64)
        return ordo_error(ORDO_ERR_ARG, "--jobs is %lld, expected 1..64", o->jobs);
    if (o->examples < 0 || o->examples > 100000)
        return ordo_error(ORDO_ERR_ARG, "--examples is %lld, expected 0..100000", o->examples);
    ordo_status s = parse_mult(o->eval_lengths, sw->mult, &sw->nmult);
    if (!s) s = parse_variants(sw, o->eval_variants ? o->eval_variants : "base");
    for (int i = 0; !s && i < sw->nvariants; i++)
        if (sw->variants[i].drawn && sw->cfg.pos_random <= 0)
            s = ordo_error(ORDO_ERR_ARG,
                           "--eval-variants drawn scores at positions drawn as --pos-random "
                           "draws them, but this sweep trains at 0..T-1 (no --pos-random)");
    if (!s && o->depths && (sw->cfg.data || strcmp(sw->cfg.task, "passkey") != 0))
        s = ordo_error(ORDO_ERR_ARG,
                       "--depths '%s' applies to --task passkey (the key's depths), not to %s",
                       o->depths, sw->cfg.data ? "--data" : sw->cfg.task);
    if (!s && o->depths)
        s = ordo_passkey_parse_depths("--depths", o->depths, sw->depths,
                                      (int)(sizeof sw->depths / sizeof *sw->depths), &sw->ndepths);
    if (s) return s;
    snprintf(sw->poslist, sizeof sw->poslist, "%s", sw->cfg.pos);
    sw->nschemes = split_list(sw->poslist, sw->schemes, ORDO_SWEEP_MAX_SCHEMES);
    if (!sw->nschemes) return ordo_error(ORDO_ERR_ARG, "--pos is empty");
    for (int i = 0; i < sw->nschemes; i++) {
        ordo_train_config c = sw->cfg;
        c.pos = sw->schemes[i];
        if ((s = ordo_train_config_check(&c))) return s;
        for (int k = 0; k < i; k++)
            if (strcmp(sw->schemes[k], sw->schemes[i]) == 0)
                return ordo_error(ORDO_ERR_ARG, "--pos lists '%s' twice", sw->schemes[i]);
    }
    if (sw->nschemes * o->seeds > ORDO_SWEEP_MAX_RUNS)
        return ordo_error(ORDO_ERR_ARG, "%lld runs; a sweep has at most %d",
                          sw->nschemes * o->seeds, ORDO_SWEEP_MAX_RUNS);
    return ORDO_OK;
}

// One run per scheme and seed, then DIR and DIR/sweep.json naming them in that order. A run
// whose files' paths (its last checkpoint's is the longest) do not fit is an error before
// anything is written, not a failure in every run's process.
static ordo_status lay_out(ordo_sweep *sw, const char *eval_lengths, const char *variants) {
    sw->runs = ordo_xcalloc((size_t)(sw->nschemes * sw->seeds), sizeof *sw->runs);
    json_t *list = json_array();
    char path[ORDO_PATH_MAX];
    ordo_status s = ORDO_OK;
    for (int i = 0; i < sw->nschemes && !s; i++)
        for (long long k = 0; k < sw->seeds && !s; k++) {
            ordo_sweep_entry *r = &sw->runs[sw->nruns++];
            r->pos = sw->schemes[i];
            r->seed = sw->cfg.seed + k;
            s = ordo_path(r->name, sizeof r->name, "%s-s%lld", r->pos, r->seed);
            if (!s) s = ordo_path(r->dir, sizeof r->dir, "%s/%s", sw->cfg.out, r->name);
            if (!s) s = ordo_checkpoint_path(path, sizeof path, r->dir, (int64_t)sw->cfg.steps);
            if (!s) s = ordo_write_atomic_check(path);
            json_array_append_new(list, json_string(r->name));
        }
    json_t *sj = json_object();
    json_object_set_new(sj, "runs", list);
    json_object_set_new(sj, "eval_lengths", json_string(eval_lengths));
    json_object_set_new(sj, "eval_variants", json_string(variants ? variants : "base"));
    if (!s) s = ordo_path(path, sizeof path, "%s/sweep.json", sw->cfg.out);
    // a second sweep on the same directory would rewrite sweep.json and start runs twice
    if (!s) s = ordo_dirlock_take(&sw->lock, "sweep directory", sw->cfg.out, 1);
    if (!s) s = ordo_write_json_atomic(path, sj);
    if (!s) ordo_dirlock_mark_written(&sw->lock);
    json_decref(sj);
    return s;
}

ordo_status ordo_sweep_plan(ordo_sweep *sw, const ordo_train_config *cfg,
                            const ordo_sweep_options *o) {
    memset(sw, 0, sizeof *sw);
    sw->cfg = *cfg;
    sw->seeds = o->seeds;
    sw->jobs = o->jobs;
    sw->examples = o->examples;
    sw->progress = o->progress;
    if (sw->progress == ORDO_PROGRESS_AUTO)
        sw->progress = isatty(STDOUT_FILENO) ? ORDO_PROGRESS_LIVE : ORDO_PROGRESS_PLAIN;
    ordo_status s = check(sw, o);
    if (s) return s;
    if (!o->threads_given) { // share the cores between the jobs
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        sw->cfg.threads = cores > sw->jobs ? cores / sw->jobs : 1;
    }
    return lay_out(sw, o->eval_lengths, o->eval_variants);
}

void ordo_sweep_free(ordo_sweep *sw) {
    ordo_dirlock_release(&sw->lock);
    free(sw->runs);
    sw->runs = NULL;
    sw->nruns = 0;
}

// ---- one run, in its own process

// The newest usable checkpoint's step in dir (one that opens and passes its checksum, as
// resume and eval take it), or -1. Not the newest file's name: a corrupt newest checkpoint
// would make the run look done to every later sweep, and its evals (of the usable one)
// always stale.
static long long newest_step(const char *dir) {
    int64_t *steps;
    int n;
    if (ordo_checkpoint_list(dir, &steps, &n) != ORDO_OK) return -1;
    long long found = -1;
    char path[ORDO_PATH_MAX];
    for (int i = 0; i < n && found < 0; i++) {
        ordo_safetensors *f = NULL;
        json_t *config = NULL;
        ordo_train_state st;
        if (!ordo_checkpoint_path(path, sizeof path, dir, steps[i]) &&
            !ordo_checkpoint_open(path, &f, &config, &st))
            found = (long long)steps[i];
        else
            ordo_error_clear();
        json_decref(config);
        ordo_safetensors_close(f);
    }
    free(steps);
    return found;
}

// Whether the run already in r->dir (config.json at `path`) is the one this sweep trains
// there: every setting of its config.json but the step budget and those that do not define
// the experiment (threads, cadences: ordo_cmp_key_ignored) equal to the sweep's. A sweep over
// a folder of another shape must not report the other shape's results as its own, nor resume
// a foreign run with the foreign run's settings. ORDO_ERR_STATE naming the
// first keys that differ, with both values.
static ordo_status check_same_run(const ordo_train_config *c, const char *dir, const char *path) {
    json_error_t err;
    json_t *have = ordo_json_load_file(path, 0, &err);
    if (!have) return ordo_error(ORDO_ERR_FORMAT, "%s: %s", path, err.text);
    ordo_train_config copy = *c;
    json_t *want = ordo_train_config_to_json(&copy);
    char diff[512] = "";
    size_t k = 0;
    int ndiff = 0;
    const char *key;
    json_t *w;
    json_object_foreach(want, key, w) {
        json_t *h = json_object_get(have, key);
        // a key the run's config.json lacks is one added since: its default
        if (!h || !strcmp(key, "steps") || (ordo_cmp_key_ignored(key) && strcmp(key, "seed")))
            continue;
        if (json_equal(h, w)) continue;
        if (ndiff++ < 3 && k < sizeof diff) {
            char *hs = json_dumps(h, JSON_ENCODE_ANY | JSON_COMPACT);
            char *ws = json_dumps(w, JSON_ENCODE_ANY | JSON_COMPACT);
            int m = snprintf(diff + k, sizeof diff - k, "%s%s %.60s (this sweep: %.60s)",
                             k ? ", " : "", key, hs ? hs : "?", ws ? ws : "?");
            if (m > 0) k += (size_t)m;
            free(hs);
            free(ws);
        }
    }
    json_decref(want);
    json_decref(have);
    if (!ndiff) return ORDO_OK;
    return ordo_error(ORDO_ERR_STATE,
                      "%s holds a run of another configuration: %s%s; give this sweep another "
                      "--out, or move that run away",
                      dir, diff, ndiff > 3 ? ", ..." : "");
}

// Trains the run to the sweep's step budget: from scratch, or resumed from its newest
// checkpoint; a run that already has that many steps is kept as it is. The caller holds the
// run's lock.
static ordo_status train_run(const ordo_sweep *sw, const ordo_sweep_entry *r, ordo_dirlock *lock) {
    ordo_train_config c = sw->cfg;
    c.pos = r->pos;
    c.seed = r->seed;
    c.out = r->dir;
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", r->dir);
    if (s) return s;
    int exists = access(path, F_OK) == 0;
    if (exists && (s = check_same_run(&c, r->dir, path))) return s;
    if (exists && newest_step(r->dir) >= c.steps) return ORDO_OK;
    ordo_opt *opts = ordo_train_config_options(&c);
    ordo_options_find(opts, "steps")->seen = 1; // a resumed run takes this sweep's budget
    ordo_options_find(opts, "threads")->seen = 1;
    ordo_resume run = {0};
    s = exists ? ordo_resume_open(&run, r->dir, &c, opts) : ORDO_OK;
    // the run's step lines go to its train.log (stdout), plain; the sweep shows its own
    ordo_train_request req = {
        .cfg = &c, .resume = exists ? &run : NULL, .lock = lock, .progress = ORDO_PROGRESS_PLAIN};
    if (!s) s = ordo_train(&req);
    ordo_resume_free(&run);
    free(opts);
    return s;
}

// Makes each eval variant that applies to the run: its newest checkpoint at the sweep's
// lengths into its record RUN/eval/NAME.json (base also RUN/eval.json), unless the record
// already holds exactly that (the same checkpoint, lengths and variant).
static ordo_status eval_run(const ordo_sweep *sw, const ordo_sweep_entry *r) {
    int lens[ORDO_SWEEP_MAX_MULT];
    for (int i = 0; i < sw->nmult; i++) lens[i] = sw->mult[i] * (int)sw->cfg.context;
    long long newest = newest_step(r->dir);
    ordo_status s = ORDO_OK;
    for (int i = 0; i < sw->nvariants && !s; i++) {
        const ordo_sweep_variant *v = &sw->variants[i];
        if (!variant_applies(v, r->pos)) continue;
        ordo_eval_request q = {.run_dir = r->dir,
                               .lengths = lens,
                               .nlen = sw->nmult,
                               .mode = v->sliding ? ORDO_EVAL_SLIDING : ORDO_EVAL_NONOVERLAP,
                               .stride = v->stride,
                               .batch = 8,
                               .examples = (int)sw->examples,
                               .depths = sw->ndepths ? sw->depths : NULL,
                               .ndepths = sw->ndepths,
                               .rope_scaling = v->rope_scaling,
                               .rope_factor = v->factor,
                               .extend_pos = v->extend_pos,
                               .drawn_positions = v->drawn,
                               // plain lines into the run's train.log (its stdout): a
                               // passkey grid or a long length is minutes after training
                               .show = {ORDO_PROGRESS_PLAIN, stdout}};
        ordo_eval_report have;
        char why[256];
        int current = ordo_eval_load(r->dir, v->name, &have) &&
                      ordo_eval_record_current(&have, newest, &q) &&
                      ordo_eval_record_own(r->dir, &have, why, sizeof why);
        ordo_eval_report_free(&have);
        if (!current) s = ordo_eval_record_make(&q, v->name);
    }
    return s;
}

// Forks the run's process and returns its pid (-1 if fork failed). The child locks the run
// directory (for its training and its evals alike; _exit releases it), sends its stdout
// to RUN/train.log, trains, evaluates and leaves with _exit: it must never return into the
// sweep's loop, and the parent's stdio buffers (flushed before the fork) are not its to
// flush again. A run another process holds is left alone, train.log included.
// *locked says whether the child took the run's lock: it writes one byte to a pipe once it
// holds it, so that the sweep announces "started" only for a run that really starts (not
// for one another process holds).
static pid_t start(const ordo_sweep *sw, const ordo_sweep_entry *r, int *locked) {
    fflush(stdout);
    fflush(stderr);
    *locked = 0;
    int fds[2];
    if (pipe(fds) != 0) fds[0] = fds[1] = -1;
    pid_t pid = fork();
    if (pid != 0) {
        if (fds[1] >= 0) close(fds[1]);
        char c;
        ssize_t n = 0;
        if (pid > 0 && fds[0] >= 0)
            while ((n = read(fds[0], &c, 1)) < 0 && errno == EINTR) {
            }
        *locked = pid > 0 && (fds[0] < 0 || n == 1); // no pipe: as before, assume it did
        if (fds[0] >= 0) close(fds[0]);
        return pid;
    }
    if (fds[0] >= 0) close(fds[0]);
    // the sweep directory stays locked while the sweep lives, not while its runs do: a run
    // left training by a killed sweep must not lock the next sweep out (its own lock is
    // what keeps that sweep off the run)
    ordo_dirlock_forget(&sw->lock);
    ordo_dirlock lock;
    char log[ORDO_PATH_MAX];
    ordo_status s = ordo_path(log, sizeof log, "%s/train.log", r->dir);
    if (!s) s = ordo_dirlock_take(&lock, "run directory", r->dir, 1);
    if (s == ORDO_ERR_STATE) {
        fprintf(stderr, "ordo: sweep: %s: %s\n", r->name, ordo_error_message());
        _exit(EXIT_BUSY);
    }
    if (fds[1] >= 0) {
        if (!s) (void)!write(fds[1], "L", 1);
        close(fds[1]);
    }
    int fd = s ? -1 : ordo_open_append(log, 1, 0644);
    if (fd >= 0) {
        ordo_dirlock_mark_written(&lock);
        dup2(fd, STDOUT_FILENO);
        close(fd);
    }
    if (!s) s = train_run(sw, r, &lock);
    if (!s) s = eval_run(sw, r);
    if (s) fprintf(stderr, "ordo: sweep: %s: %s\n", r->name, ordo_error_message());
    fflush(stdout);
    _exit(s == ORDO_OK ? 0 : s == ORDO_ERR_INTERRUPTED ? 130 : 1);
}

// ---- the parent: start, wait, report

// Where the runs stand while the sweep waits on them.
typedef struct progress {
    int next;        // the next run to start
    int running;     // processes alive
    int failed;      // runs that failed (or could not be started)
    int busy;        // runs another process holds (left alone)
    int interrupted; // a signal arrived, or a run stopped on one: start nothing new
    int forwarded;   // the signal has been passed on to the running processes
    int finished;    // runs done (trained and evaluated)
    // the view: the sweep's start, the live line's last redraw, its length and the width
    double t0, t_draw;
    int drawn, width;
} progress;

// The step of the last whole line of dir/metrics.jsonl (-1: none yet). Only the file's tail
// is read (a line is at most ORDO_METRICS_LINE_MAX bytes): the sweep looks a few times a
// second, and a display needs no more than the line's "step".
static long long last_logged_step(const char *dir) {
    char path[ORDO_PATH_MAX], buf[2048];
    size_t size;
    int fd;
    if (ordo_path(path, sizeof path, "%s/metrics.jsonl", dir) ||
        ordo_open_regular(path, &fd, &size))
        return -1;
    struct stat st;
    long long step = -1;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        off_t off = st.st_size > (off_t)sizeof buf - 1 ? st.st_size - (off_t)sizeof buf + 1 : 0;
        ssize_t n = pread(fd, buf, sizeof buf - 1, off);
        char *end = NULL;
        if (n > 0) {
            buf[n] = 0;
            end = strrchr(buf, '\n'); // the last whole line ends here
        }
        if (end) {
            *end = 0;
            char *begin = strrchr(buf, '\n');
            begin = begin ? begin + 1 : off == 0 ? buf : NULL; // NULL: cut at the tail's start
            const char *k = begin ? strstr(begin, "\"step\":") : NULL;
            if (k) step = strtoll(k + 7, NULL, 10);
        }
    }
    close(fd);
    return step;
}

// Seconds the runs not yet done still need, at the pace of the steps trained since the
// sweep started (NaN until one is); evaluation time counts in that pace.
static double sweep_eta(const ordo_sweep *sw, const progress *p, double spent) {
    double done = 0, left = 0;
    for (int i = 0; i < sw->nruns; i++) {
        const ordo_sweep_entry *r = &sw->runs[i];
        long long at = r->step > r->step0 ? r->step : r->step0;
        if (i < p->next) done += (double)(at - r->step0);
        if (!r->done) left += (double)(sw->cfg.steps - at);
    }
    return done > 0 ? left * spent / done : NAN;
}

// Erases the live line, so that a run's line can be printed.
static void view_clear(progress *p) {
    if (!p->drawn) return;
    printf("\r%*s\r", p->drawn, "");
    p->drawn = 0;
}

// Reads the running runs' steps and shows them: live, the line "done | each running run's
// step/total | elapsed ETA" at most every half second; plain, a line for each run that passed
// a quarter of its steps since the last look.
static void view_update(ordo_sweep *sw, progress *p) {
    if (sw->progress == ORDO_PROGRESS_OFF) return;
    double now = ordo_now_s();
    if (sw->progress == ORDO_PROGRESS_LIVE && now - p->t_draw < 0.5) return;
    char line[512], el[24], eta[24];
    int n = snprintf(line, sizeof line, "sweep: %d/%d done", p->finished, sw->nruns);
    for (int i = 0; i < sw->nruns; i++) {
        ordo_sweep_entry *r = &sw->runs[i];
        if (r->pid <= 0) continue;
        long long st = last_logged_step(r->dir);
        if (st > r->step) r->step = st;
        int q = r->step > 0 ? (int)(4 * r->step / sw->cfg.steps) : 0;
        if (sw->progress == ORDO_PROGRESS_PLAIN && q > r->quarter && q < 4) {
            r->quarter = q;
            printf("sweep: [%d/%d] %s step %lld/%lld, sweep ETA %s\n", i + 1, sw->nruns, r->name,
                   r->step, sw->cfg.steps,
                   ordo_duration_text(eta, sizeof eta, sweep_eta(sw, p, now - p->t0)));
            fflush(stdout);
        }
        // trained: its evals run (a passkey grid, long lengths: minutes), shown in its log
        if (sw->progress == ORDO_PROGRESS_PLAIN && q >= 4 && r->quarter < 4) {
            r->quarter = 4;
            printf("sweep: [%d/%d] %s trained; evaluating (progress in %s/train.log)\n", i + 1,
                   sw->nruns, r->name, r->dir);
            fflush(stdout);
        }
        if (n > 0 && (size_t)n < sizeof line && r->step >= sw->cfg.steps)
            n += snprintf(line + n, sizeof line - (size_t)n, " | %s eval", r->name);
        else if (n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, " | %s %lld/%lld", r->name,
                          r->step > 0 ? r->step : 0, sw->cfg.steps);
    }
    if (sw->progress != ORDO_PROGRESS_LIVE || n < 0) return;
    if ((size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, " | %s ETA %s",
                      ordo_duration_text(el, sizeof el, now - p->t0),
                      ordo_duration_text(eta, sizeof eta, sweep_eta(sw, p, now - p->t0)));
    if (n > p->width - 1) n = p->width - 1;
    if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
    line[n] = 0;
    printf("\r%s%*s", line, p->drawn > n ? p->drawn - n : 0, "");
    fflush(stdout);
    p->drawn = n;
    p->t_draw = now;
}

// One line about a finished run, from its base eval record (else its first variant's): the
// loss at the first eval length over the whole val split, which is not the best val loss of
// training (compare shows both).
static void report_run(const ordo_sweep *sw, const ordo_sweep_entry *r, double secs) {
    ordo_eval_report rec = {0};
    const char *name = NULL;
    int found = 0;
    for (int i = 0; i < sw->nvariants && !found; i++)
        if (variant_applies(&sw->variants[i], r->pos))
            found = ordo_eval_load(r->dir, name = sw->variants[i].name, &rec);
    const ordo_eval_report_result *first = rec.results.n > 0 ? &rec.results.v[0] : NULL;
    printf("sweep: [%d/%d] %-16s done in %6.1f s", (int)(r - sw->runs) + 1, sw->nruns, r->name,
           secs);
    if (first && first->val_loss.has == ORDO_EVAL_SET)
        printf(", eval %s loss@%dx %.4f (whole val split)", name, sw->mult[0], first->val_loss.v);
    if (first && first->order_loss.has == ORDO_EVAL_SET)
        printf(", order-dependent tokens %.4f", first->order_loss.v);
    printf("\n");
    fflush(stdout);
    ordo_eval_report_free(&rec);
}

// The variants that do not apply to some schemes, said once: they are not made for those.
static void note_variants(const ordo_sweep *sw) {
    for (int i = 0; i < sw->nvariants; i++) {
        const ordo_sweep_variant *v = &sw->variants[i];
        char skipped[256] = "";
        size_t k = 0;
        for (int j = 0; j < sw->nschemes && k < sizeof skipped; j++)
            if (!variant_applies(v, sw->schemes[j])) {
                int m = snprintf(skipped + k, sizeof skipped - k, "%s%s", k ? ", " : "",
                                 sw->schemes[j]);
                if (m > 0) k += (size_t)m;
            }
        if (k)
            printf("sweep: eval %s applies to --pos %s only: not made for %s\n", v->name,
                   v->rope_scaling ? "rope" : "learned", skipped);
    }
}

// Starts runs until `jobs` of them run (none once interrupted).
static void start_more(ordo_sweep *sw, progress *p) {
    while (p->running < sw->jobs && p->next < sw->nruns && !p->interrupted) {
        ordo_sweep_entry *r = &sw->runs[p->next++];
        r->t0 = ordo_now_s();
        r->step0 = newest_step(r->dir);
        if (r->step0 < 0) r->step0 = 0;
        r->step = r->step0;
        r->quarter = (int)(4 * r->step0 / sw->cfg.steps);
        int locked;
        r->pid = start(sw, r, &locked);
        if (locked && sw->progress != ORDO_PROGRESS_OFF && r->step0 < sw->cfg.steps) {
            view_clear(p);
            printf("sweep: [%d/%d] %-16s started", p->next, sw->nruns, r->name);
            if (r->step0 > 0) printf(" (resumed from step %lld)", r->step0);
            printf("\n");
        }
        if (r->pid < 0) { // counted as failed: the sweep ends with "k of n runs failed"
            p->failed++;
            r->done = 1;
            continue;
        }
        p->running++;
    }
}

// Books the end of process pid (exit status as wait() gave it): a line for a finished or a
// failed run; a run stopped by a signal (exit code 130) marks the sweep interrupted.
static void finished(ordo_sweep *sw, progress *p, pid_t pid, int status) {
    for (int i = 0; i < sw->nruns; i++) {
        ordo_sweep_entry *r = &sw->runs[i];
        if (r->pid != pid) continue;
        p->running--;
        r->pid = 0;
        r->done = 1;
        view_clear(p);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code == 0) {
            r->step = sw->cfg.steps;
            p->finished++;
            report_run(sw, r, ordo_now_s() - r->t0);
        } else if (code == 130)
            p->interrupted = 1;
        else if (code == EXIT_BUSY) {
            p->busy++;
            printf("sweep: [%d/%d] %-16s BUSY: another process holds %s (see the message "
                   "above); left alone\n",
                   i + 1, sw->nruns, r->name, r->dir);
        } else {
            p->failed++;
            printf("sweep: [%d/%d] %-16s FAILED (see %s/train.log and the message above)\n", i + 1,
                   sw->nruns, r->name, r->dir);
        }
    }
}

ordo_status ordo_sweep_run(ordo_sweep *sw) {
    // Ctrl-C reaches the children too: each finishes its step and checkpoints; the sweep
    // starts nothing new and waits for them
    note_variants(sw);
    ordo_signals sig;
    ordo_signals_install(&sig);
    progress p = {0};
    p.t0 = ordo_now_s();
    struct winsize ws;
    p.width = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
    while (p.next < sw->nruns || p.running) {
        if (ordo_signals_caught() && !p.forwarded) {
            p.interrupted = p.forwarded = 1;
            for (int i = 0; i < sw->nruns; i++)
                if (sw->runs[i].pid > 0) kill(sw->runs[i].pid, SIGINT);
        }
        start_more(sw, &p);
        if (!p.running) break;
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0) {
            if (errno == EINTR) continue; // a signal: forward it at the top of the loop
            break;
        }
        if (pid == 0) { // all still running: show where they are, look again in a moment
            view_update(sw, &p);
            struct timespec nap = {0, 100 * 1000 * 1000};
            nanosleep(&nap, NULL); // a signal cuts it short: handled at the top of the loop
            continue;
        }
        finished(sw, &p, pid, status);
    }
    view_clear(&p);
    ordo_signals_restore(&sig);
    if (p.interrupted)
        return ordo_error(ORDO_ERR_INTERRUPTED,
                          "interrupted; run the same command again to continue");
    if (p.failed && p.busy)
        return ordo_error(ORDO_ERR_STATE,
                          "%d of %d runs failed and %d are in use by another process", p.failed,
                          sw->nruns, p.busy);
    if (p.failed) return ordo_error(ORDO_ERR_STATE, "%d of %d runs failed", p.failed, sw->nruns);
    if (p.busy)
        return ordo_error(ORDO_ERR_STATE,
                          "%d of %d runs are in use by another process (left alone); run the "
                          "same command again once it is done",
                          p.busy, sw->nruns);
    return ORDO_OK;
}
