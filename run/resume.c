// Continuing a run (`ordo train --resume`, see resume.h): the config to train with, resolved
// from the newest checkpoint that belongs to the run and the options given again; the
// checkpoints to restore, newest first; the lr schedule when --steps changes on resume.
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/dist.h"
#include "sys/fileio.h"
#include "run/checkpoint.h"
#include "run/resume.h"
#include "run/run.h"

// dir/config.json: a checkpoint whose fixed settings differ from it was copied in from
// another run, and is skipped like a damaged one. One that exists but does not read (garbage,
// a FIFO, a setting out of range) would turn that check off, so it is an error naming the
// file; one that is missing leaves the checkpoints to vouch for each other (checkpoints_agree).
static ordo_status read_run_config(ordo_resume *r) {
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", r->dir);
    if (s) return s;
    ordo_train_config_defaults(&r->run);
    struct stat sb;
    if (lstat(path, &sb) != 0 && errno == ENOENT) return ORDO_OK; // r->have_run = 0
    json_error_t err;
    json_t *j = ordo_json_load_file(path, 0, &err); // a FIFO there must not block
    s = j ? ordo_train_config_from_json(&r->run, j, path, 0, NULL)
          : ordo_json_load_error(path, &err);
    json_decref(j);
    if (s) {
        char why[512];
        snprintf(why, sizeof why, "%s", ordo_error_message());
        return ordo_error(s,
                          "--resume %s: %s; without the run's config.json its checkpoints cannot "
                          "be told from another run's (restore it, or remove it to resume from "
                          "the checkpoints alone, where they agree)",
                          r->dir, why);
    }
    r->have_run = 1;
    return ORDO_OK;
}

// Without config.json the checkpoints vouch for each other: every one that opens must agree
// with the newest in its fixed settings, or one of them is another run's (copied in) and ordo
// cannot tell which: an error naming the two. Those that do not open are left to next_own.
static ordo_status checkpoints_agree(ordo_resume *r) {
    ordo_train_config first, ck;
    int64_t first_step = -1;
    char path[ORDO_PATH_MAX];
    for (int k = 0; k < r->n; k++) {
        ordo_status s = ordo_checkpoint_path(path, sizeof path, r->dir, r->steps[k]);
        if (s) return s;
        ordo_safetensors *f;
        json_t *j;
        ordo_train_state st;
        if (ordo_checkpoint_open(path, &f, &j, &st)) {
            ordo_error_clear();
            continue;
        }
        s = ordo_run_checkpoint_config(path, r->dir, j, &ck);
        json_decref(j);
        ordo_safetensors_close(f);
        if (s) {
            ordo_error_clear();
            continue;
        }
        if (first_step < 0) {
            first = ck, first_step = r->steps[k];
            continue;
        }
        if (ordo_train_config_compare(&ck, &first)) {
            char why[512];
            snprintf(why, sizeof why, "%s", ordo_error_message());
            return ordo_error(ORDO_ERR_ARG,
                              "--resume %s: it has no config.json, and its checkpoints of steps "
                              "%" PRId64 " and %" PRId64 " are of different runs (%s): ordo cannot "
                              "tell which is this run's; restore config.json, or move the other "
                              "run's checkpoints away",
                              r->dir, first_step, r->steps[k], why);
        }
    }
    return ORDO_OK;
}

// Opens the next checkpoint of r that belongs to the run (*f; NULL when the run has none at
// all), with its state, its config *ck and, if cj, its config's JSON (the caller decrefs).
// One that does not open, whose config does not read (an unknown key, a value out of range:
// a flipped bit in its header, say), or that differs from config.json is skipped with a
// warning, as eval skips it (one rule for every command); running out of checkpoints is an
// error listing each one and why.
static ordo_status next_own(ordo_resume *r, ordo_safetensors **f, json_t **cj, ordo_train_state *st,
                            ordo_train_config *ck) {
    *f = NULL;
    while (r->next < r->n) {
        ordo_status s = ordo_checkpoint_path(r->path, sizeof r->path, r->dir, r->steps[r->next++]);
        if (s) return s; // its message quotes the start of the path; the whole is too long
        json_t *j;
        if (ordo_checkpoint_open(r->path, f, &j, st)) {
            ordo_run_skip(&r->skipped, r->path);
            continue;
        }
        s = ordo_run_checkpoint_config(r->path, r->dir, j, ck);
        int foreign = !s && r->have_run && ordo_train_config_compare(ck, &r->run);
        if (foreign)
            ordo_error_wrap(ORDO_ERR_ARG, "it is not a checkpoint of this run (%s/config.json)",
                            r->dir);
        if (s || foreign) {
            ordo_run_skip(&r->skipped, r->path);
            json_decref(j);
            ordo_safetensors_close(*f);
            *f = NULL;
            continue;
        }
        if (cj)
            *cj = j;
        else
            json_decref(j);
        return ORDO_OK;
    }
    // Checkpoints that exist but none of which loads are damage to report, not a run killed
    // before its first checkpoint: starting over would cut metrics.jsonl back to step 0 and
    // overwrite them.
    if (r->n > 0)
        return ordo_error(ORDO_ERR_FORMAT,
                          "--resume %s: none of its %d checkpoint(s) could be loaded, so the run "
                          "is not started over (move the damaged or foreign files away to resume "
                          "from config.json at step 0):%s",
                          r->dir, r->n, r->skipped.buf ? r->skipped.buf : "");
    return ORDO_OK;
}

// cfg, the options as parsed, takes the checkpoint's config (cj) for every option that was
// not given (opts: seen), as a --config file's keys do: the given options stay on top.
static ordo_status given_over(ordo_train_config *cfg, ordo_opt *opts, json_t *cj,
                              const char *path) {
    ordo_opt *table = ordo_train_config_options(cfg);
    for (ordo_opt *p = table; p->name; p++) {
        ordo_opt *given = ordo_options_find(opts, p->name);
        p->seen = given && given->seen;
    }
    ordo_status s = ordo_train_config_from_json(cfg, cj, path, 1, table);
    free(table);
    return s;
}

// --init given on resume: a resumed run goes on from its own weights, so another file would
// only be recorded (config "init") beside an init_from that still names the first one, a
// record of a start that never happened. The run's own file, given again, changes nothing.
static ordo_status refuse_init(const ordo_resume *r, ordo_opt *opts, const char *given,
                               const char *run_init) {
    ordo_opt *o = opts ? ordo_options_find(opts, "init") : NULL;
    if (!o || !o->seen || (given && run_init && strcmp(given, run_init) == 0)) return ORDO_OK;
    return ordo_error(ORDO_ERR_ARG,
                      "--init %s does not go with --resume: a resumed run continues from its own "
                      "checkpoint's weights (%s %s%s); to start a new run from %s, give it "
                      "another --out without --resume",
                      given ? given : "(none)", r->dir,
                      run_init ? "started from " : "started from scratch", run_init ? run_init : "",
                      given ? given : "those weights");
}

// The resumed config from the newest checkpoint of the run; r->next is left on it, so that
// ordo_resume_next hands it out first.
static ordo_status resolve_from_checkpoint(ordo_resume *r, ordo_train_config *cfg, ordo_opt *opts) {
    ordo_safetensors *f;
    json_t *cj = NULL;
    ordo_train_state st;
    ordo_train_config ck;
    ordo_status s = next_own(r, &f, &cj, &st, &ck);
    if (s) return s;
    ordo_safetensors_close(f);
    r->next--;
    if ((s = refuse_init(r, opts, cfg->init, ck.init))) {
        json_decref(cj);
        return s;
    }
    s = given_over(cfg, opts, cj, r->path);
    json_decref(cj);
    cfg->out = r->dir;
    if (!s) s = ordo_train_config_compare(&ck, cfg); // only resumable options may differ
    return s ? ordo_error_wrap(s, "--resume %s", r->dir) : ORDO_OK;
}

// A run killed before its first checkpoint restarts from its config.json, as it is: the
// options given now are not applied (nor checked against it).
static ordo_status resolve_from_config_json(ordo_resume *r, ordo_train_config *cfg,
                                            ordo_opt *opts) {
    const char *given_init = cfg->init;
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", r->dir);
    if (s) return s;
    json_error_t err;
    json_t *j = ordo_json_load_file(path, 0, &err);
    if (!j)
        return ordo_error(ORDO_ERR_ARG,
                          "--resume %s: no usable checkpoint and no readable config.json (%s)",
                          r->dir, err.text);
    ordo_train_config_defaults(cfg);
    s = ordo_train_config_from_json(cfg, j, path, 0, NULL);
    json_decref(j);
    if (s) return s;
    cfg->out = r->dir;
    if ((s = refuse_init(r, opts, given_init, cfg->init))) return s;
    if ((s = ordo_train_config_check(cfg))) return ordo_error_wrap(s, "%s", path);
    return ORDO_OK;
}

ordo_status ordo_resume_open(ordo_resume *r, const char *dir, ordo_train_config *cfg,
                             ordo_opt *opts) {
    memset(r, 0, sizeof *r);
    r->dir = dir;
    // the options as given, as for a new run; but the RoPE scaling's and the position options'
    // only with the scheme and the other options they go with, which a resume names alone:
    // after the merge
    ordo_train_config given = *cfg;
    given.rope_scaling = "none";
    given.rope_factor = 0;
    given.rope_orig_context = 0;
    given.yarn_alpha = ORDO_YARN_ALPHA;
    given.yarn_beta = ORDO_YARN_BETA;
    given.yarn_no_temperature = 0;
    given.rope_fraction = 1;
    given.rope_heads = given.alibi_heads = 0;
    given.pos_scale = NULL;
    given.dpb_dim = ORDO_DPB_DIM;
    given.dpb_depth = ORDO_DPB_DEPTH;
    given.dpb_log_distance = 0;
    given.cope_max = 0;
    given.t5_max_distance = ORDO_T5_MAX_DISTANCE;
    given.fox_gate_bias = 0;
    given.pos_random = 0;
    ordo_status s = ordo_train_config_check(&given);
    if (!s) s = ordo_checkpoint_list(dir, &r->steps, &r->n);
    if (!s) s = read_run_config(r);
    if (!s && r->n && !r->have_run) s = checkpoints_agree(r);
    if (!s)
        s = r->n ? resolve_from_checkpoint(r, cfg, opts) : resolve_from_config_json(r, cfg, opts);
    if (!s) cfg->data_check = ORDO_DATA_REFUSE; // a changed data file is refused (see run.h)
    if (!s) r->cfg = *cfg;
    return ordo_dist_agree(s);
}

ordo_status ordo_resume_next(ordo_resume *r, ordo_safetensors **f, ordo_train_state *st) {
    ordo_train_config ck;
    ordo_status s = next_own(r, f, NULL, st, &ck);
    if (s || !*f) return s;
    // the checkpoint resolved from agrees by construction; an older one must agree too
    if ((s = ordo_train_config_compare(&ck, &r->cfg))) {
        ordo_safetensors_close(*f);
        *f = NULL;
        return ordo_error_wrap(s, "--resume %s", r->dir);
    }
    r->last = ck;
    return ORDO_OK;
}

void ordo_resume_skip(ordo_resume *r) {
    ordo_run_skip(&r->skipped, r->path);
}

// "cosine, warmup 2: lr 0.001 at step 2 -> min-lr 0.0001 at step 9, then 0.0001" into b.
static void describe_plan(ordo_strbuf *b, const ordo_train_config *c, const ordo_lr_plan *p) {
    ordo_strbuf_printf(b, "%s, warmup %lld", c->schedule, c->warmup);
    if (strcmp(c->schedule, "constant") == 0) {
        ordo_strbuf_printf(b, ", then lr %g", c->lr);
        return;
    }
    if (p->to_step <= p->from_step) { // the warmup reaches the last step: nothing decays
        ordo_strbuf_printf(b, ", then lr %g (no decay)", p->from_lr);
        return;
    }
    ordo_strbuf_printf(b, ": lr %g at step %lld -> min-lr %g at step %lld, then %g", p->from_lr,
                       p->from_step, c->min_lr, p->to_step, c->min_lr);
}

void ordo_resume_schedule(ordo_resume *r, int64_t step, ordo_train_config *cfg) {
    ordo_lr_plan old = ordo_train_config_plan(&r->last);
    old.have = 1;
    cfg->plan = old;
    long long before = r->last.steps, after = cfg->steps;
    if (after == before) return; // the checkpoint's curve, bit for bit
    int mode = ORDO_RESUME_CONTINUE;
    ordo_names_parse(&ordo_resume_sched_names, cfg->resume_schedule, &mode); // checked before
    ordo_lr_plan replan = {
        .have = 1, .from_step = cfg->warmup, .to_step = after - 1, .from_lr = cfg->lr};
    ordo_lr_plan decay = replan;
    if (step > cfg->warmup) // still warming up: replan-decay is replan
        decay.from_step = step, decay.from_lr = ordo_train_config_lr_at(cfg, &old, step);
    // An old curve with no decay span (its warmup reached its --steps: a smoke run) has no
    // decay to continue: `continue` would hold the peak lr for every new step. The decay
    // is then planned over the new --steps, as replan does, and said so.
    int no_decay = old.to_step <= old.from_step && strcmp(cfg->schedule, "constant") != 0;
    if (mode == ORDO_RESUME_CONTINUE && no_decay && after > before) mode = ORDO_RESUME_REPLAN;
    const ordo_lr_plan *now = mode == ORDO_RESUME_CONTINUE       ? &old
                              : mode == ORDO_RESUME_REPLAN_DECAY ? &decay
                                                                 : &replan;
    cfg->plan = *now;
    double lr_old = ordo_train_config_lr_at(cfg, &old, step),
           lr_new = ordo_train_config_lr_at(cfg, now, step);
    // the history: the checkpoint's entries and this one
    json_t *h = old.history ? json_loads(old.history, 0, NULL) : NULL;
    if (!json_is_array(h)) {
        json_decref(h);
        h = json_array();
    }
    json_array_append_new(
        h, json_pack("{s:I, s:I, s:I, s:s, s:f, s:f}", "at_step", (json_int_t)step, "steps_before",
                     (json_int_t)before, "steps_after", (json_int_t)after, "mode",
                     cfg->resume_schedule, "lr_before", lr_old, "lr_after", lr_new));
    free(r->history);
    r->history = json_dumps(h, JSON_COMPACT);
    json_decref(h);
    cfg->plan.history = r->history;
    if (ordo_dist_rank() != 0) return;
    ordo_strbuf b = {0};
    describe_plan(&b, cfg, &old);
    ordo_strbuf_printf(&b, "; lr at step %" PRId64 ": %.6g", step, lr_old);
    fprintf(stderr,
            "ordo: --steps %lld -> %lld on resume at step %" PRId64 ", --resume-schedule %s\n"
            "  old schedule (%lld steps): %s\n",
            before, after, step, cfg->resume_schedule, before, b.buf);
    b.len = 0;
    b.buf[0] = 0;
    describe_plan(&b, cfg, now);
    ordo_strbuf_printf(&b, "; lr at step %" PRId64 ": %.6g", step, lr_new);
    fprintf(stderr, "  new schedule (%lld steps): %s\n", after, b.buf);
    if (no_decay && after > before && strcmp(cfg->resume_schedule, "continue") == 0)
        fprintf(stderr,
                "  (the old schedule had no decay: its warmup of %lld steps reached its --steps "
                "%lld; `continue` would hold lr %g for every new step, so the decay is planned "
                "over the new --steps, as --resume-schedule replan does)\n",
                cfg->warmup, before, cfg->lr);
    fprintf(stderr,
            "  (lr at step %" PRId64 " under each --resume-schedule: continue %.6g, "
            "replan-decay %.6g, replan %.6g)\n",
            step, lr_old, ordo_train_config_lr_at(cfg, &decay, step),
            ordo_train_config_lr_at(cfg, &replan, step));
    ordo_strbuf_free(&b);
}

void ordo_resume_free(ordo_resume *r) {
    free(r->history);
    free(r->steps);
    ordo_strbuf_free(&r->skipped);
    memset(r, 0, sizeof *r);
}
