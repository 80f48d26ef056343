// A run's saved evaluations: each `ordo eval --save [NAME]` or sweep variant is
// one record, RUN/eval/NAME.json, so that the unscaled model, NTK, YaRN, PI and a grown
// learned table of one checkpoint sit side by side in one run directory. A record is the
// report of ordo_eval_run (eval/evaluate.h) plus its "name"; the report already says which
// checkpoint step it scored, the variant (the scaling or extension given to eval), the data
// and its hash, the mode, and the request that made it (so that it can be made again for a
// newer checkpoint: `ordo compare --reeval`).
//
// The base record (the run as it trained, nonoverlap windows) is also RUN/eval.json, the one
// file older ordo versions and scripts read: a link to eval/base.json, so that the two are one
// file and never disagree. Reading, a RUN/eval.json is the record its
// content names ("base" unless it was saved with a scaling or extension), unless RUN/eval/
// holds a record of that name.
//
// Deliberately not here: running the evaluation (eval_run.c), reading records for compare
// (experiments/runinfo.c).
#ifndef ORDO_EVAL_RECORD_H
#define ORDO_EVAL_RECORD_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"
#include "eval/eval_report.h"
#include "eval/evaluate.h"
#include "run/run.h"

// The longest record name (their folder in a run directory: ORDO_EVAL_DIR, run/run.h).
#define ORDO_EVAL_NAME_MAX 64

// The name a record of `report` takes when none is given: "base" for the run as trained,
// "<scaling>-x<factor>" for a RoPE scaling given to eval ("ntk-x4", "yarn-x2.5"), "unscaled"
// for --rope-scaling none on a run trained with a scaling, "extend-<method>" for a grown
// learned table; "-sliding" appended for sliding windows at the default stride (T/4),
// "-sliding-stride<S>" at another (`--sliding-stride S`). Works on older eval.json files too
// (their "rope_scaling" and "extend_pos" say the same). Into buf[cap]; returns buf.
const char *ordo_eval_default_name(const ordo_eval_report *report, char *buf, size_t cap);
// The record's name: its "name" when it has one, else ordo_eval_default_name.
const char *ordo_eval_record_name(const ordo_eval_report *record, char *buf, size_t cap);
// ORDO_OK when name can be a record's file name: 1..ORDO_EVAL_NAME_MAX characters of
// [A-Za-z0-9._-], not starting with '.'; else ORDO_ERR_ARG quoting it after `what` ("--save").
ordo_status ordo_eval_name_check(const char *what, const char *name);

// Writes report as run_dir's record `name` (its name set): RUN/eval/NAME.json atomically, and
// for "base" makes RUN/eval.json the link to it (where that fails: a warning, and no stale
// eval.json left). Errors: the name's check, ORDO_ERR_IO naming the
// file.
ordo_status ordo_eval_save(const char *run_dir, const char *name, ordo_eval_report *report);
// Loads run_dir's record `name` (RUN/eval/NAME.json, else a RUN/eval.json of that name) into
// *out: 1, or 0 (out empty, no error set) when there is none or it does not load. The caller
// frees it with ordo_eval_report_free.
int ordo_eval_load(const char *run_dir, const char *name, ordo_eval_report *out);

// Whether `record`, found in run_dir, is that run's own: 1, or 0 with the reason in
// why[cap]. A record names the checkpoint it scored by step and data checksum; when run_dir
// still has that step's checkpoint, the two checksums decide. Otherwise (a pruned checkpoint,
// an older record without a checksum) the run the record names decides: a different existing
// run directory makes it foreign, a path that no longer resolves (a run moved, another
// working directory) decides nothing. So a record copied in from another run is never shown
// or kept as this run's.
int ordo_eval_record_own(const char *run_dir, const ordo_eval_report *record, char *why,
                         size_t cap);

// The request that made `record` again, for run_dir (the lengths into lens[cap]): its
// request, or for an older eval.json without one, what its results, mode, rope_scaling
// and extend_pos say. q's strings point into record: keep it until q is used. Errors:
// ORDO_ERR_FORMAT when neither gives the lengths.
ordo_status ordo_eval_request_of(const ordo_eval_report *record, const char *run_dir,
                                 ordo_eval_request *q, int *lens, int cap);
// Evaluates q (ordo_eval_run) and saves the report as q->run_dir's record `name`: what a
// sweep does for each variant and `compare --reeval` for each stale record. The caller holds
// the run's lock (a writer's files are replaced atomically, so readers need none).
ordo_status ordo_eval_record_make(const ordo_eval_request *q, const char *name);
// 1 when record is of checkpoint `step` and of the request q (lengths, mode, variant; for an
// older record without a request, its lengths alone) would make.
int ordo_eval_record_current(const ordo_eval_report *record, int64_t step,
                             const ordo_eval_request *q);

#endif
