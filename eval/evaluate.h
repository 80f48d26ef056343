// Evaluation of a trained model on a token stream, at any context length: mean loss and
// perplexity in two modes, the loss by position within the window, and for the copy and
// reverse tasks the exact-match accuracy per sequence length. What `ordo eval` prints, what
// a sweep stores in RUN_DIR/eval.json for `ordo compare`, and the trainer's validation loss.
//
//   nonoverlap  windows at 0, T, 2T, ... (range(0, n - T, T), as the training dataset);
//               every target of a window is scored, so early tokens see little context.
//               A stride > 0 moves the windows by it instead (copy/reverse: the example
//               length, so that windows start on examples, as in training; they may then
//               overlap and a target be scored by several windows).
//   sliding     windows advance by `stride` S; a window scores only the targets that no
//               earlier window scored (the first window scores all T), and a last window
//               is placed at the end of the stream so every target is scored exactly
//               once, each with up to T tokens of context (S = 1: always T, unless fewer
//               precede it). Costs about T/S times nonoverlap.
#ifndef ORDO_EVALUATE_H
#define ORDO_EVALUATE_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/corpus.h"
#include "data/answers.h"
#include "data/passkey.h"
#include "framework/names.h"
#include "data/dataset.h"
#include "models/gpt.h"
#include "eval/eval_report.h"
#include "eval/windows.h"
#include "run/progress.h"

typedef struct ordo_eval_result {
    int context;       // T
    double loss;       // mean over scored targets (NaN if none)
    size_t targets;    // targets scored
    size_t windows;    // forward windows run
    double *pos_loss;  // [T] mean loss of the targets scored at each window position
    size_t *pos_count; // [T] how many (0: pos_loss is NaN there)
} ordo_eval_result;

// "nonoverlap" | "sliding".
extern const ordo_names ordo_eval_modes; // "nonoverlap", "sliding": in enum order
ordo_status ordo_eval_mode_parse(const char *name, ordo_eval_mode *out);
const char *ordo_eval_mode_name(ordo_eval_mode m);

// Where an evaluation puts each window's tokens: N 0, at 0..T-1 (the default); else a
// --pos-random N model's draw, window (example) k at ordo_random_positions(T, N,
// ordo_gpt_row_pos_seed(seed, k)): a function of k alone, not of the batch or the MPI ranks.
// The evaluations below take it as an argument (NULL: 0..T-1).
typedef struct ordo_eval_draw {
    int N;
    uint64_t seed;
} ordo_eval_draw;

// How an evaluation shows its progress (run/progress.h's eval line): mode AUTO (zero: live on
// a terminal, else nothing), LIVE, PLAIN or OFF, on out (NULL: stderr). Plain lines suit a log
// file: a sweep's runs write them into their train.log.
typedef struct ordo_eval_show {
    ordo_progress_mode mode;
    FILE *out;
    const char *what; // what the line says it scores (NULL: "eval context T")
} ordo_eval_show;

// Evaluates m on tokens[0..n) with targets the next tokens, or targets[k] for token k when
// targets is non-NULL (< 0: not scored). T is the window length, B the windows per forward
// (fewer when B windows' logits would pass 256 MiB); stride: sliding's step (1..T), or
// nonoverlap's window alignment (0 = T). max_windows > 0 limits the windows (a prefix of the
// stream). ORDO_ERR_ARG when the stream holds fewer than T+1 tokens, or T > T_max with the
// learned scheme. Under MPI every rank calls it: window k is rank k % size's, and every rank
// receives the totals. draw: the windows' positions (NULL: 0..T-1). r's arrays are malloc'd:
// free with ordo_eval_result_free.
ordo_status ordo_eval_stream(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens,
                             const int32_t *targets, size_t n, int T, ordo_eval_mode mode,
                             int stride, int B, size_t max_windows, const ordo_eval_draw *draw,
                             ordo_eval_result *r);
// ordo_eval_stream with its progress shown as `show` says (ordo_eval_stream: show's zero, a
// live line on a terminal's stderr); the line moves after each layer of a forward too.
ordo_status ordo_eval_stream_show(ordo_gpt *m, ordo_ctx *ctx, const int32_t *tokens,
                                  const int32_t *targets, size_t n, int T, ordo_eval_mode mode,
                                  int stride, int B, size_t max_windows, const ordo_eval_draw *draw,
                                  const ordo_eval_show *show, ordo_eval_result *r);
void ordo_eval_result_free(ordo_eval_result *r);

// The windows of length T that ordo_eval_stream puts in one forward when asked for B: fewer
// when B windows' logits would pass 256 MiB (at least 1). The logits are no longer held whole
// (the head runs in chunks); the cap stays as a bound on one forward's size, and decides only
// which windows share a forward, not a number eval reports.
int ordo_eval_windows_per_forward(const ordo_gpt_config *g, int T, int B);

// The trainer's validation loss: the mean over the counted targets of ds's windows [0,
// max_windows) (all if 0), B per forward, each batch scored by the model's fused
// cross-entropy as in training. *count receives the number of counted targets; NaN when none.
// Runs the loop of ordo_eval_stream (nonoverlap windows at ds's stride), so MPI ranks split
// the windows the same way and all receive the totals.
ordo_status ordo_eval_loss(ordo_gpt *m, ordo_ctx *ctx, const ordo_dataset *ds, int B,
                           size_t max_windows, double *loss, size_t *count);

// Examples per forward of ordo_eval_seq_accuracy.
#define ORDO_EVAL_SEQ_CHUNK 64

// Exact-match accuracy of copy/reverse/add at sequence length n: `examples` fresh examples
// (seeded by seed and n), each alone in its window from position 0, scored teacher-forced: an
// example is right when the argmax at every answer position (the answer's tokens and <eos>) is
// the target, which is the same as greedy decoding reproducing the whole answer. Needs
// ordo_seq_len(task, n) - 1 <= T_max for the learned scheme. draw: the examples' positions
// (NULL: 0..T-1).
ordo_status ordo_eval_seq_accuracy(ordo_gpt *m, ordo_ctx *ctx, ordo_task task, int alphabet, int n,
                                   int examples, uint64_t seed, const ordo_eval_draw *draw,
                                   double *accuracy);

// Passkey retrieval accuracy at example length len (inputs len - 1) and depth: `examples`
// fresh examples (ordo_passkey_score, seeded by seed, len and depth), teacher-forced greedy
// (argmax) exact match on the answer's tokens, in inference mode (no tape), a few examples
// per forward (ordo_eval_passkey_rows), the LM head at the answer's positions alone. Needs
// len - 1 <= T_max for the learned scheme. draw: the examples' positions (NULL: 0..T-1).
// prog, when not NULL, is told prog0 + the examples done after each forward (a whole grid's
// line: prog0 counts the cells before this one).
ordo_status ordo_eval_passkey(ordo_gpt *m, ordo_ctx *ctx, const ordo_passkey *pk, int len,
                              double depth, int examples, uint64_t seed, const ordo_eval_draw *draw,
                              ordo_eval_progress *prog, size_t prog0, double *accuracy);
// Per-answer accuracy of a fixed-length task (MQAR, flip-flop; data/answers.h) at example
// length len and the task's parameter: `examples` fresh examples (ordo_answers_score, seeded by
// seed, len and param), teacher-forced argmax, in inference mode, as ordo_eval_passkey runs
// them. Needs len - 1 <= T_max for the learned scheme.
ordo_status ordo_eval_answers(ordo_gpt *m, ordo_ctx *ctx, ordo_answers_example make,
                              const void *task, int len, double param, int examples, uint64_t seed,
                              const ordo_eval_draw *draw, double *accuracy);
// Examples per forward of ordo_eval_passkey at length len: the whole logits of a forward
// kept near 256 MiB (at least 1, at most ORDO_EVAL_SEQ_CHUNK).
int ordo_eval_passkey_rows(const ordo_gpt_config *g, int len);

// A whole run's evaluation: the newest valid checkpoint of run_dir (or the one the request
// names) on its own validation set (or on the whole file `data`) at each length, for
// copy/reverse runs the exact match at n = 1..max_n, and for passkey runs the retrieval
// accuracy at each length x depth.
typedef struct ordo_eval_request {
    const char *run_dir;
    const int *lengths; // NULL: the training context
    int nlen;
    ordo_eval_mode mode;
    int stride; // sliding; 0 = T/4
    int batch;
    size_t max_windows; // per length; 0 = the whole split
    int examples;       // copy/reverse examples per n
    int max_n;          // copy/reverse; 0 = twice the training max-len
    // passkey: the depths of the grid (NULL: 0, 0.25, 0.5, 0.75, 1); its lengths are `lengths`
    const double *depths;
    int ndepths;
    // which checkpoint (run_dir may also be a checkpoint file), and another eval set
    int64_t step;     // >= 0: this step's checkpoint; 0 in a request means the newest unless
    int have_step;    // have_step is set
    const char *data; // NULL: the run's validation set; else this whole text or token file
    // a RoPE scaling other than the run's (NULL: the run's own): its name, its factor (0: the
    // longest length over the original context) and YaRN's original context (0: the run's
    // rope-orig-context when it trained with a scaling, else its context)
    const char *rope_scaling;
    double rope_factor;
    int rope_orig_context;
    // with yarn: its ramp's ends and temperature (ordo_rope_config's; 0: the paper's)
    double yarn_alpha, yarn_beta;
    int yarn_no_temperature;
    // eval past a learned table: NULL (lengths past it are not scored) or
    // "interpolate" | "fresh" | "copy": each length past the table scored with the table grown to
    // it as `ordo train --init RUN --context T --extend-pos` grows it (ordo_extend_model; fresh
    // rows from the run's seed); lengths within it use the table as it is
    const char *extend_pos;
    // how attention computes the scores (models/gpt.h); 0 = fused, the default,
    // whatever the run trained with (the same model to float rounding)
    ordo_attn_impl attention;
    // a --pos-random run: 0 scores at 0..T-1 (the default); 1 at positions drawn as
    // training draws them, Ruoss et al.'s test protocol
    int drawn_positions;
    // the draw that drawn_positions asks for, made from the run's config: ordo_eval_run sets it
    // on its own copy of the request, whatever the caller's holds (zero: 0..T-1)
    ordo_eval_draw draw;
    // 1: no n-gram levels in the results (each row's ngram_loss; eval/ngram_levels.h)
    int no_ngram;
    // > 0: also the context-use curve (eval/context_use.h) on up to this many targets, at
    // k up to the run's training context
    int context_use;
    // how the lengths' windows and passkey's examples show their progress (zero: a live line
    // on a terminal's stderr); not part of what the record keeps
    ordo_eval_show show;
} ordo_eval_request;

// Bytes of the context's arena that one forward of `rows` windows of T tokens takes without a
// tape with attention `attn`, on the high side: what ordo_eval_run reserves before it evaluates
// anything. The forward holds one layer's buffers at a time and the LM head's logits one chunk
// of rows at a time, unless the caller takes the logits of `picks` positions (copy/reverse's
// exact match: all rows x T; passkey and the answers tasks: from the first answer on, through
// ordo_gpt_forward_pick; 0: none, eval's losses). Materialized,
// the (rows, NH, T, T) attention probabilities dominate at long contexts; fused, all is linear
// in T. For the thread count in effect.
double ordo_eval_forward_arena_bytes(const ordo_gpt_config *g, ordo_attn_impl attn, int rows, int T,
                                     double picks);

// Builds the report (eval/eval_report.h) that an eval record RUN_DIR/eval/NAME.json holds (the
// format is in docs/guide.md, "Scoring a run"; eval/eval_record.h saves it) into *report: lengths
// the scheme or the data cannot serve get val_loss null and a note saying why, as does a loss
// that is not finite. With q->extend_pos the report and each grown length say so
// (extend_pos); ORDO_ERR_ARG for a run without a learned table. Refused first, with
// ORDO_ERR_NOMEM and a message giving the estimate and the limit, when its largest forward needs
// more memory than the process may use (the machine's, ulimit -v / -d, the memory cgroup's) or than
// the system then gives. Free the report with ordo_eval_report_free (it is left empty after an
// error).
ordo_status ordo_eval_run(const ordo_eval_request *q, ordo_eval_report *report);
// The request as the report keeps it (its "request", eval/eval_record.h) into *r: the lengths,
// mode, windows, batch and the variant as given. lens[0..nlen) are the lengths evaluated. Free
// with ordo_eval_report_request_free.
void ordo_eval_request_record(const ordo_eval_request *q, const int *lens, int nlen,
                              ordo_eval_report_request *r);

#endif
