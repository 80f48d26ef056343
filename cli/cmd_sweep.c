// `ordo sweep --pos A,B,... --seeds N [train options] --out DIR`: the same data, budget and
// seeds for every position scheme, one run directory each (DIR/<pos>-s<seed>), each run
// then evaluated at 1x, 2x, 4x, 8x its training length into its eval.json, and DIR/sweep.json
// listing the runs for `ordo compare`. Runs go --jobs at a time, each in its own process
// (its output in RUN/train.log). Running the same command again continues where it stopped:
// finished runs are kept, interrupted ones resumed from their checkpoints.
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "framework/fileio.h"
#include "train/checkpoint.h"
#include "cli/commands.h"
#include "train/evaluate.h"
#include "train/trainer.h"
#include "framework/clock.h"

#define MAX_RUNS 256

typedef struct sweep_run {
    char name[64], dir[4096];
    const char *pos;
    long long seed;
    pid_t pid;
    double t0;
} sweep_run;

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) {
    stop_signal = sig;
}

// Splits a comma list into at most max words (written into buf, pointed to by out).
static int split_list(char *buf, const char **out, int max) {
    int n = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w && n < max;
         w = strtok_r(NULL, ",", &save))
        out[n++] = w;
    return n;
}

// The newest checkpoint's step in dir, or -1.
static long long newest_step(const char *dir) {
    int64_t *steps;
    int n;
    if (ordo_checkpoint_list(dir, &steps, &n) != ORDO_OK) return -1;
    long long s = n ? (long long)steps[0] : -1;
    free(steps);
    return s;
}

// Whether dir/eval.json is of the newest checkpoint at exactly these lengths.
static int eval_current(const char *dir, const int *lens, int n) {
    char path[4200];
    snprintf(path, sizeof path, "%s/eval.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) return 0;
    json_t *res = json_object_get(j, "results");
    int ok = json_integer_value(json_object_get(j, "step")) == newest_step(dir) &&
             json_array_size(res) == (size_t)n;
    for (int i = 0; ok && i < n; i++)
        ok = json_integer_value(json_object_get(json_array_get(res, i), "context")) == lens[i];
    json_decref(j);
    return ok;
}

// Trains (or resumes, or keeps) one run, then evaluates it; in a child process.
static ordo_status run_one(const ordo_train_config *base, const sweep_run *r, const int *mult,
                           int nmult, int examples) {
    ordo_train_config c = *base;
    c.pos = r->pos;
    c.seed = r->seed;
    c.out = r->dir;
    char path[4200];
    snprintf(path, sizeof path, "%s/config.json", r->dir);
    int exists = access(path, F_OK) == 0;
    ordo_status s = ORDO_OK;
    if (!exists || newest_step(r->dir) < c.steps) {
        ordo_opt *opts = ordo_train_config_options(&c);
        ordo_args_find(opts, "steps")->seen = 1; // a resumed run takes this sweep's budget
        ordo_args_find(opts, "threads")->seen = 1;
        ordo_resume run = {0};
        if (exists) s = ordo_resume_open(&run, r->dir, &c, opts);
        ordo_train_request req = {.cfg = &c, .resume = exists ? &run : NULL};
        if (!s) s = ordo_train(&req);
        ordo_resume_free(&run);
        free(opts);
        if (s) return s;
    }
    int lens[16];
    for (int i = 0; i < nmult; i++) lens[i] = mult[i] * (int)c.context;
    if (eval_current(r->dir, lens, nmult)) return ORDO_OK;
    ordo_eval_request q = {.run_dir = r->dir,
                           .lengths = lens,
                           .nlen = nmult,
                           .mode = ORDO_EVAL_NONOVERLAP,
                           .batch = 8,
                           .examples = examples};
    json_t *report;
    if ((s = ordo_eval_run(&q, &report))) return s;
    snprintf(path, sizeof path, "%s/eval.json", r->dir);
    s = ordo_write_json_atomic(path, report);
    json_decref(report);
    return s;
}

static pid_t start(const ordo_train_config *base, sweep_run *r, const int *mult, int nmult,
                   int examples) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0) return pid;
    // the child: its own log, the run, an exit status
    ordo_status s = ordo_mkdir_p(r->dir, 0755);
    char log[4200];
    snprintf(log, sizeof log, "%s/train.log", r->dir);
    int fd = s ? -1 : open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        dup2(fd, STDOUT_FILENO);
        close(fd);
    }
    if (!s) s = run_one(base, r, mult, nmult, examples);
    if (s) fprintf(stderr, "ordo: sweep: %s: %s\n", r->name, ordo_error_message());
    fflush(stdout);
    _exit(s == ORDO_OK ? 0 : s == ORDO_ERR_INTERRUPTED ? 130 : 1);
}

// One line about a finished run, from its eval.json.
static void report_run(const sweep_run *r, double secs) {
    char path[4200];
    snprintf(path, sizeof path, "%s/eval.json", r->dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    json_t *first = j ? json_array_get(json_object_get(j, "results"), 0) : NULL;
    json_t *vl = first ? json_object_get(first, "val_loss") : NULL;
    json_t *ol = first ? json_object_get(first, "order_loss") : NULL;
    printf("sweep: %-16s done in %6.1f s", r->name, secs);
    if (json_is_number(vl)) printf(", val loss %.4f", json_number_value(vl));
    if (json_is_number(ol)) printf(", order-dependent tokens %.4f", json_number_value(ol));
    printf("\n");
    fflush(stdout);
    json_decref(j);
}

static ordo_status parse_mult(const char *s, int *out, int *n) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    const char *w[16];
    *n = split_list(buf, w, 16);
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

static const char *SYNOPSIS =
    "--pos LIST --seeds N [train options] --out DIR [--jobs J]\n\n"
    "Trains one run per scheme of --pos (comma-separated) and seed (--seed, --seed+1, ...,\n"
    "--seeds of them) with the same data and budget, into DIR/<pos>-s<seed>, and evaluates\n"
    "each at the --eval-lengths multiples of --context (DIR/<run>/eval.json). Running the\n"
    "same command again keeps finished runs and resumes interrupted ones. Then:\n"
    "ordo compare DIR";

ordo_status ordo_cmd_sweep(int argc, char **argv) {
    ordo_train_config cfg;
    ordo_train_config_defaults(&cfg);
    cfg.pos = "learned,sinusoidal,none";
    cfg.out = "runs/sweep";
    long long seeds = 2, jobs = 1, examples = 200;
    const char *mult_s = "1,2,4,8";
    ordo_opt *base = ordo_train_config_options(&cfg);
    int nbase = 0;
    while (base[nbase].name) nbase++;
    ordo_opt *opts = ordo_xcalloc((size_t)nbase + 5, sizeof *opts);
    memcpy(opts, base, (size_t)nbase * sizeof *opts);
    free(base);
    ordo_args_find(opts, "pos")->help =
        "comma-separated schemes: none,learned,sinusoidal,rope,alibi,t5";
    ordo_args_find(opts, "seed")->help = "first seed (runs use seed .. seed+seeds-1)";
    ordo_args_find(opts, "out")->help = "sweep directory";
    opts[nbase] = (ordo_opt){"seeds", ORDO_OPT_INT, &seeds, "seeds per scheme", 0};
    opts[nbase + 1] =
        (ordo_opt){"jobs", ORDO_OPT_INT, &jobs, "runs at a time (each its own process)", 0};
    opts[nbase + 2] = (ordo_opt){"eval-lengths", ORDO_OPT_STRING, &mult_s,
                                 "evaluate at these multiples of --context", 0};
    opts[nbase + 3] = (ordo_opt){"examples", ORDO_OPT_INT, &examples,
                                 "copy/reverse: examples per length in the accuracy eval", 0};
    const char **pos;
    int npos, help, mult[16], nmult = 0;
    char poslist[512];
    const char *schemes[16];
    int nschemes = 0;
    sweep_run *runs = NULL;
    int nruns = 0;
    ordo_status s = ordo_args_command("sweep", SYNOPSIS, opts, argc, argv, &pos, &npos, &help);
    if (!s && help) goto done;
    if (!s && npos)
        s = ordo_error(ORDO_ERR_ARG, "unexpected argument '%s' (see 'ordo sweep --help')", pos[0]);
    if (!s && (seeds < 1 || seeds > 100))
        s = ordo_error(ORDO_ERR_ARG, "--seeds is %lld, expected 1..100", seeds);
    if (!s && (jobs < 1 || jobs > 64))
        s = ordo_error(ORDO_ERR_ARG, "--jobs is %lld, expected 1..64", jobs);
    if (!s && (examples < 0 || examples > 100000))
        s = ordo_error(ORDO_ERR_ARG, "--examples is %lld, expected 0..100000", examples);
    if (!s) s = parse_mult(mult_s, mult, &nmult);
    if (!s) {
        snprintf(poslist, sizeof poslist, "%s", cfg.pos);
        nschemes = split_list(poslist, schemes, 16);
        if (!nschemes) s = ordo_error(ORDO_ERR_ARG, "--pos is empty");
    }
    for (int i = 0; !s && i < nschemes; i++) { // every scheme must make a valid config
        ordo_train_config c = cfg;
        c.pos = schemes[i];
        s = ordo_train_config_check(&c);
        for (int k = 0; !s && k < i; k++)
            if (strcmp(schemes[k], schemes[i]) == 0)
                s = ordo_error(ORDO_ERR_ARG, "--pos lists '%s' twice", schemes[i]);
    }
    if (!s && nschemes * seeds > MAX_RUNS)
        s = ordo_error(ORDO_ERR_ARG, "%lld runs; a sweep has at most %d", nschemes * seeds,
                       MAX_RUNS);
    if (!s) s = ordo_mkdir_p(cfg.out, 0755);
    if (s) goto done;
    if (!ordo_args_find(opts, "threads")->seen) { // share the cores between the jobs
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        cfg.threads = cores > jobs ? cores / jobs : 1;
    }
    runs = ordo_xcalloc((size_t)(nschemes * seeds), sizeof *runs);
    json_t *list = json_array();
    for (int i = 0; i < nschemes; i++)
        for (long long k = 0; k < seeds; k++) {
            sweep_run *r = &runs[nruns++];
            r->pos = schemes[i];
            r->seed = cfg.seed + k;
            snprintf(r->name, sizeof r->name, "%s-s%lld", r->pos, r->seed);
            snprintf(r->dir, sizeof r->dir, "%s/%s", cfg.out, r->name);
            json_array_append_new(list, json_string(r->name));
        }
    json_t *sj = json_object();
    json_object_set_new(sj, "runs", list);
    json_object_set_new(sj, "eval_lengths", json_string(mult_s));
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.json", cfg.out);
    s = ordo_write_json_atomic(path, sj);
    json_decref(sj);
    if (s) goto done;
    printf("sweep: %d runs (%d schemes x %lld seeds), %lld at a time, %lld threads each -> %s\n",
           nruns, nschemes, seeds, jobs, cfg.threads, cfg.out);
    // Ctrl-C reaches the children too: each finishes its step and checkpoints; the sweep
    // starts nothing new and waits for them
    stop_signal = 0;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int next = 0, running = 0, failed = 0, interrupted = 0, forwarded = 0;
    while (next < nruns || running) {
        if (stop_signal && !forwarded) {
            interrupted = forwarded = 1;
            for (int i = 0; i < nruns; i++)
                if (runs[i].pid > 0) kill(runs[i].pid, SIGINT);
        }
        while (running < jobs && next < nruns && !interrupted) {
            sweep_run *r = &runs[next++];
            r->t0 = ordo_now_s();
            r->pid = start(&cfg, r, mult, nmult, (int)examples);
            if (r->pid < 0) {
                s = ordo_error(ORDO_ERR_STATE, "fork: %s", strerror(errno));
                failed++;
                continue;
            }
            running++;
        }
        if (!running) break;
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < nruns; i++) {
            if (runs[i].pid != pid) continue;
            running--;
            runs[i].pid = 0;
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            if (code == 0)
                report_run(&runs[i], ordo_now_s() - runs[i].t0);
            else if (code == 130)
                interrupted = 1;
            else {
                failed++;
                printf("sweep: %-16s FAILED (see %s/train.log and the message above)\n",
                       runs[i].name, runs[i].dir);
            }
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (interrupted)
        s = ordo_error(ORDO_ERR_INTERRUPTED, "interrupted; run the same command again to continue");
    else if (failed)
        s = ordo_error(ORDO_ERR_STATE, "%d of %d runs failed", failed, nruns);
    else
        printf("sweep: all %d runs done; compare them with: ordo compare %s\n", nruns, cfg.out);
done:
    free(runs);
    free(pos);
    free(opts);
    ordo_config_strings_free();
    return s;
}
