// Where a training run stands, for the person watching it: a live line rewritten in place
// on a terminal (step/total, loss, the last val loss and its step, lr, tokens/s, elapsed and
// ETA, like nanoGPT's and tqdm's), the same fields as plain lines at each logged step when
// the output is a file or a pipe, and a summary when the run ends (best and last val loss,
// time, tokens/s, the final checkpoint). metrics.jsonl stays the record; this only shows it.
// Per step it costs one clock read and a few additions; it never allocates.
#ifndef ORDO_PROGRESS_H
#define ORDO_PROGRESS_H
#include <stdint.h>
#include <stdio.h>

#include "framework/names.h"

typedef enum ordo_progress_mode {
    ORDO_PROGRESS_AUTO,  // live when the output is a terminal, else plain
    ORDO_PROGRESS_LIVE,  // one line rewritten with '\r', at most a few times a second
    ORDO_PROGRESS_PLAIN, // a line per logged step (--log-every) and per evaluation
    ORDO_PROGRESS_OFF,   // no step lines (the summary is still printed)
} ordo_progress_mode;

// "auto", "live", "plain", "off" (--progress).
extern const ordo_names ordo_progress_names;

typedef struct ordo_progress {
    ordo_progress_mode mode; // resolved: LIVE, PLAIN or OFF
    FILE *out;
    int64_t total;           // the run's steps
    int64_t step0;           // the step this process started from
    double elapsed0;         // wall seconds of the run before this process
    double t0;               // this process's start (ordo_now_s)
    double tokens;           // trained by this process
    double t_draw, tok_draw; // live: the last redraw and the tokens trained by then
    double tps;              // live: tokens/s over the last redraw's interval
    int width;               // live: the terminal's columns (the line is cut to fit)
    int drawn;               // live: characters on the line now (0: no line open)
    double val, best_val;    // the last and the lowest val loss (NaN: none yet)
    int64_t val_step, best_step;
} ordo_progress;

// Sets p up to write to out: AUTO becomes LIVE when out is a terminal, else PLAIN.
void ordo_progress_init(ordo_progress *p, ordo_progress_mode mode, FILE *out, int64_t total);
// Marks where this process starts: the run's step and wall seconds so far (a resumed run).
void ordo_progress_start(ordo_progress *p, int64_t step, double elapsed0);
// A val loss measured at `step` (also one read back from metrics.jsonl on resume): the last
// one shown, and the best one for the summary. A non-finite one is shown, never the best.
void ordo_progress_val(ordo_progress *p, int64_t step, double val);
// Step `step` trained `tokens` tokens with train loss `loss` at learning rate lr. `logged`:
// a metrics line was written at this step, with tokens/s tps since the previous one (plain
// mode prints a line then). Live mode redraws at most 5 times a second, and at the last step.
void ordo_progress_step(ordo_progress *p, int64_t step, double loss, double lr, double tokens,
                        int logged, double tps);
// Ends an open live line, so that what is printed next starts on its own line.
void ordo_progress_break(ordo_progress *p);
// The end of the run at `step`: "done" (or "stopped" when interrupted), this process's time and
// tokens/s (and a resumed run's whole time, "the run: 5:40 in all"), the best and the last val loss
// with their steps, and the checkpoint that holds the run now (ckpt: its path; NULL: none). Printed
// in every mode.
void ordo_progress_summary(ordo_progress *p, int64_t step, int interrupted, const char *ckpt);

// ---- an evaluation's progress: "eval context 4096: window 12/40 30% 0:11 ETA 0:26" (inside
// a forward also the layers done: "window 0/3, layer 1/2 17% ..."), in one of three modes:
//   LIVE   rewritten in place on a terminal, once the evaluation has run for
//          ORDO_EVAL_PROGRESS_DELAY_S (a short one prints nothing), erased at the end, so that
//          what eval prints after it starts on a clean line;
//   PLAIN  a line each time another tenth of the work is done, and at least every
//          ORDO_EVAL_PROGRESS_PLAIN_S (a log file, a sweep's train.log), from the start;
//   OFF    nothing. AUTO is LIVE on a terminal, else OFF (files, pipes, the tests).
#define ORDO_EVAL_PROGRESS_DELAY_S 3.0
#define ORDO_EVAL_PROGRESS_PLAIN_S 30.0
typedef struct ordo_eval_progress {
    FILE *out;               // NULL: off
    ordo_progress_mode mode; // resolved: LIVE or PLAIN while out is set
    char what[64];           // "eval context 4096"
    size_t total;            // windows (examples) this process will run
    const char *unit;        // "window", "example"
    double t0;               // start (ordo_now_s)
    double t_draw;           // the last redraw (plain: the last line)
    int tenth;               // plain: the tenths of the work reported so far
    int width;               // the terminal's columns
    int drawn;               // characters on the line now
} ordo_eval_progress;

// Sets p up for `total` units ("window", "example": the word the line counts in) of the
// evaluation described by `what`, on out (NULL: off) in `mode` (AUTO: LIVE when out is a
// terminal, else OFF; LIVE on a non-terminal is PLAIN).
void ordo_eval_progress_init(ordo_eval_progress *p, ordo_progress_mode mode, FILE *out,
                             const char *what, const char *unit, size_t total);
// `done` of the total units are done: redraws at most 5 times a second (live), or prints a
// line when another tenth is done or ORDO_EVAL_PROGRESS_PLAIN_S have passed (plain).
void ordo_eval_progress_update(ordo_eval_progress *p, size_t done);
// Inside a forward of `rows` units after `done` finished ones: `layer` of its L layers done
// (the model's per-layer hook, ordo_gpt.on_layer), so that one long forward shows progress.
void ordo_eval_progress_layer(ordo_eval_progress *p, size_t done, size_t rows, int layer, int L);
// Erases the live line, if one was drawn (plain lines stay).
void ordo_eval_progress_end(ordo_eval_progress *p);

#endif
