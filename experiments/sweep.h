// A sweep: the same data, budget and seeds for every position scheme, one run directory each
// (DIR/<pos>-s<seed>), each run then evaluated at multiples of its training length, once per
// eval variant (the run as trained, RoPE scaled by NTK, YaRN or PI, a learned table grown)
// into its eval records RUN/eval/NAME.json, and DIR/sweep.json listing the runs for `ordo
// compare`. Runs go `jobs` at a
// time, each in its own process (its output in RUN/train.log). Planning the same sweep
// again continues where it stopped: finished runs are kept, interrupted ones resumed from
// their checkpoints.
#ifndef ORDO_SWEEP_H
#define ORDO_SWEEP_H
#include "sys/dirlock.h"
#include "run/config.h"
#include "run/progress.h"

#define ORDO_SWEEP_MAX_RUNS     256
#define ORDO_SWEEP_MAX_SCHEMES  16
#define ORDO_SWEEP_MAX_MULT     16
#define ORDO_SWEEP_MAX_VARIANTS 16

// What a sweep takes beyond the training config.
typedef struct ordo_sweep_options {
    long long seeds;             // runs per scheme: seed, seed+1, ... (1..100)
    long long jobs;              // runs at a time, each its own process (1..64)
    long long examples;          // copy/reverse: examples per length in the accuracy eval
    const char *eval_lengths;    // multiples of the context to evaluate at: "1,2,4,8"
    const char *eval_variants;   // eval records of each run: "base,sliding,ntk:4,yarn:4+sliding"
    const char *depths;          // passkey: the key's depths in 0..1 (NULL: eval's default grid)
    int threads_given;           // cfg.threads was chosen by the user; else the cores are shared
    ordo_progress_mode progress; // how the sweep shows its runs' steps (0 = AUTO)
    const char *progress_name;   // --progress, parsed into progress by the CLI
} ordo_sweep_options;

typedef struct ordo_sweep_entry ordo_sweep_entry; // one run's name, directory and process

// One eval variant of --eval-variants: its record's name (base, ntk-x4, extend-fresh,
// base-sliding, ntk-x4-sliding-stride8: the name `ordo eval --save` gives it,
// eval/eval_record.h) and what eval is given.
typedef struct ordo_sweep_variant {
    char name[72];
    const char *rope_scaling; // pi | ntk | yarn, or NULL
    double factor;            // its factor
    const char *extend_pos;   // interpolate | fresh | copy, or NULL
    int drawn;                // --pos-random's draw at eval too (eval --positions drawn)
    int sliding;              // sliding windows (eval --mode sliding), else nonoverlap
    int stride;               // sliding's step (eval --sliding-stride; 0: T/4)
} ordo_sweep_variant;

typedef struct ordo_sweep {
    ordo_train_config cfg; // the common config; cfg.pos is the comma list, cfg.out the dir
    long long seeds, jobs, examples;
    int mult[ORDO_SWEEP_MAX_MULT], nmult; // eval lengths in multiples of cfg.context
    ordo_sweep_variant variants[ORDO_SWEEP_MAX_VARIANTS]; // made for each run they apply to
    int nvariants;
    double depths[32]; // --depths (passkey runs' eval grid), ndepths 0: eval's default
    int ndepths;
    char varlist[256]; // --eval-variants split in place; the variants point into it
    char poslist[512]; // cfg.pos split in place; schemes point into it
    const char *schemes[ORDO_SWEEP_MAX_SCHEMES];
    int nschemes;
    ordo_sweep_entry *runs; // nschemes x seeds, scheme-major
    int nruns;
    ordo_dirlock lock; // of cfg.out, from the plan on; each run's process locks its own dir
    ordo_progress_mode progress; // resolved: LIVE, PLAIN or OFF (of stdout)
} ordo_sweep;

// Checks the options and that every scheme of cfg->pos gives a valid config, lays out the
// runs, creates and locks cfg->out (until ordo_sweep_free) and writes cfg->out/sweep.json.
// The sweep holds pointers into itself: plan it in place and don't copy it. Free it with
// ordo_sweep_free, also after an error. Errors: ORDO_ERR_ARG naming the option and value,
// ORDO_ERR_STATE when another process holds cfg->out, ORDO_ERR_IO from the files.
ordo_status ordo_sweep_plan(ordo_sweep *sw, const ordo_train_config *cfg,
                            const ordo_sweep_options *o);
// Trains (or resumes, or keeps) and evaluates every run, `jobs` at a time, printing one line
// per started and per finished run ("[i/N]"), and the running runs' steps and the sweep's
// ETA (read from their metrics.jsonl): a live line on a terminal, else a plain line each
// time a run passes a quarter of its steps. Each run's own step lines go to its train.log.
// SIGINT/SIGTERM reach the runs too: each finishes its step and checkpoints, nothing new starts,
// and the result is ORDO_ERR_INTERRUPTED once they are done. A failed run (its message is in its
// train.log and on stderr), or one whose directory another process holds (left as it is, said on
// stderr), makes ORDO_ERR_STATE.
ordo_status ordo_sweep_run(ordo_sweep *sw);
void ordo_sweep_free(ordo_sweep *sw);

#endif
