// `ordo train`: options (or a --config JSON file, flags overriding) into a config, then the
// training loop; `--resume RUN_DIR` continues a run from its newest valid checkpoint.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "data/tokfile.h"
#include "sys/fileio.h"
#include "framework/names.h"
#include "train/feed.h"
#include "run/init.h"
#include "train/trainer.h"

static const char *SYNOPSIS =
    "[options]\n"
    "       ordo train --resume RUN_DIR [--steps N] [options that may change on resume]\n\n"
    "Trains a GPT-style model with the chosen position scheme. Without --data it trains on a\n"
    "built-in generated corpus (--task), so it needs no download. The run directory gets\n"
    "config.json, metrics.jsonl, ckpt-<step>.safetensors and .lock (one process at a time\n"
    "trains a run: another one started on it stops at once, naming the holder's pid).\n"
    "Ctrl-C (SIGINT) or SIGTERM finishes the step, writes a checkpoint and exits with\n"
    "status 130. On --resume, the options that may differ from the checkpoint's are:\n"
    "steps, eval-every, eval-batches, ckpt-every, keep, log-every, threads, vocab, data,\n"
    "val-data, extend-pos, resume-schedule (another --steps: see --resume-schedule; the\n"
    "old and new lr schedule are printed). --keep never removes the checkpoint at the end of\n"
    "an earlier --steps. The data file's size and hash are recorded in config.json and every\n"
    "checkpoint; a resume on a file whose content changed is refused unless --data-changed ok.\n"
    "--data FILE.bin trains on a token file made by 'ordo tokenize --out FILE.bin', read in\n"
    "place (no size limit); its header names the tokenizer, which is the run's unless\n"
    "--tokenizer says otherwise (then an error).\n"
    "--init RUN_DIR (its newest checkpoint) or --init FILE.safetensors starts a new run from\n"
    "those weights, also at a longer --context: a learned table grows by --extend-pos, rope\n"
    "may take --rope-scaling pi|ntk|yarn (factor: the ratio of the contexts unless\n"
    "--rope-factor). config.json records the file, its run, step and SHA-256 (init_from).\n"
    "--init with --resume is refused: a resumed run goes on from its own weights.";

// A --config file holds settings, the keys of the option table; the table given to it also
// holds this command's own options, and two of them are no settings: a "resume" key would
// make the file's other keys give way to the checkpoint's unnoticed, and a "config" key
// would never be read. Refused as the command line refuses --config with --resume.
static ordo_status refuse_command_keys(json_t *j, const char *file) {
    if (json_object_get(j, "resume"))
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: the key \"resume\" cannot be in a --config file: a resumed run "
                          "takes its config from its checkpoint (use 'ordo train --resume "
                          "RUN_DIR' without --config)",
                          file);
    if (json_object_get(j, "config"))
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: the key \"config\" cannot be in a --config file: a config file "
                          "does not include another",
                          file);
    return ORDO_OK;
}

// What --data-changed takes.
ORDO_NAMES_STATIC_TABLE(data_changed_choices, "--data-changed value", 2, "refuse", "ok");

ordo_status ordo_cmd_train(int argc, char **argv) {
    ordo_train_config cfg;
    ordo_train_config_defaults(&cfg);
    ordo_opt *base = ordo_train_config_options(&cfg);
    int nbase = 0;
    while (base[nbase].name) nbase++;
    const char *config_file = NULL, *resume = NULL, *data_changed = "refuse", *progress = "auto";
    long long stop_after = 0;
    int tok_in_config = 0;
    char tokname[ORDO_TOKFILE_NAME + 1];
    ordo_opt *opts = ordo_xcalloc((size_t)nbase + 6, sizeof *opts);
    memcpy(opts, base, (size_t)nbase * sizeof *opts);
    opts[nbase] = (ordo_opt){"config", ORDO_OPT_STRING, &config_file,
                             "read options from this JSON file (flags override it)", 0};
    opts[nbase + 1] =
        (ordo_opt){"resume", ORDO_OPT_STRING, &resume,
                   "continue the run in this directory from its newest checkpoint", 0};
    opts[nbase + 2] =
        (ordo_opt){"stop-after", ORDO_OPT_INT, &stop_after,
                   "stop after this step with a checkpoint, as on Ctrl-C (0 = off)", 0};
    opts[nbase + 3] =
        (ordo_opt){"data-changed", ORDO_OPT_STRING, &data_changed,
                   "on --resume, when the data file's size or hash differs from the run's record:\n"
                   "                         refuse | ok (train on the new content)",
                   0};
    // progress: how the steps are shown; not a setting of the run
    opts[nbase + 4] = (ordo_opt){"progress", ORDO_OPT_STRING, &progress,
                                 "step lines on stdout: auto (live on a terminal, else plain) |\n"
                                 "                         live | plain | off",
                                 0};
    free(base);

    const char **pos;
    int npos, help;
    ordo_status s = ordo_args_command("train", SYNOPSIS, opts, argc, argv, &pos, &npos, &help);
    if (!s && help) goto done;
    if (!s && npos > 0)
        s = ordo_error(ORDO_ERR_ARG, "unexpected argument '%s' (see 'ordo train --help')", pos[0]);
    if (!s && config_file) {
        if (resume) {
            s = ordo_error(ORDO_ERR_ARG, "--config and --resume do not go together: a resumed run "
                                         "takes its config from its checkpoint");
            goto done;
        }
        json_error_t err;
        json_t *j = ordo_json_load_file(config_file, JSON_REJECT_DUPLICATES, &err);
        if (!j) {
            s = err.line > 0 ? ordo_error(ORDO_ERR_FORMAT, "%s: line %d: %s", config_file, err.line,
                                          err.text)
                             : ordo_error(ORDO_ERR_FORMAT, "%s: %s", config_file, err.text);
            goto done;
        }
        s = refuse_command_keys(j, config_file);
        if (!s) s = ordo_train_config_from_json(&cfg, j, config_file, 1, opts);
        tok_in_config = json_object_get(j, "tokenizer") != NULL;
        json_decref(j);
        // a run's config.json as --config: its data record is that run's; a new run makes its own
        memset(&cfg.data_record, 0, sizeof cfg.data_record);
        memset(&cfg.init_record, 0, sizeof cfg.init_record); // likewise where weights came from
    }
    int changed_ok = 0;
    if (!s) {
        int v = 0;
        s = ordo_names_parse(&data_changed_choices, data_changed, &v);
        changed_ok = v == 1;
    }
    int progress_mode = ORDO_PROGRESS_AUTO;
    if (!s && (s = ordo_names_parse(&ordo_progress_names, progress, &progress_mode)))
        s = ordo_error_wrap(s, "--progress");
    // cope's default P (--context + 1) is the config's 0: a 0 given is refused as out of range
    if (!s && ordo_options_find(opts, "cope-max")->seen && cfg.cope_max == 0)
        s = ordo_error(ORDO_ERR_ARG, "--cope-max is 0, expected 2..%d (default: --context + 1)",
                       ORDO_COPE_MAX_LIMIT);
    if (!s && !resume && ordo_options_find(opts, "data-changed")->seen)
        s = ordo_error(ORDO_ERR_ARG, "--data-changed goes with --resume (a new run records its "
                                     "data file, there is nothing to compare it with)");
    if (!s && !resume)
        ordo_feed_tokenizer_of_data(
            &cfg, ordo_options_find(opts, "tokenizer")->seen || tok_in_config, tokname);
    // --init's file, run, step and SHA-256, and the RoPE scaling's numbers, into the config
    if (!s && !resume) s = ordo_init_resolve(&cfg);
    ordo_resume run = {0};
    ordo_dirlock lock = {0};
    if (!s && resume) {
        cfg.out = resume;
        // locked before its checkpoints are listed, so that none is added or pruned by
        // another process between the listing and the restore
        s = ordo_dirlock_take(&lock, "run directory", resume, 0);
        if (!s) s = ordo_resume_open(&run, resume, &cfg, opts); // checkpoint's config, flags on top
        if (!s && changed_ok) cfg.data_check = ORDO_DATA_ACCEPT;
    }
    if (!s) {
        ordo_train_request req = {.cfg = &cfg,
                                  .resume = resume ? &run : NULL,
                                  .lock = resume ? &lock : NULL,
                                  .stop_after = stop_after,
                                  .progress = (ordo_progress_mode)progress_mode};
        s = ordo_train(&req);
    }
    ordo_resume_free(&run);
    ordo_dirlock_release(&lock);
done:
    free(pos);
    free(opts);
    ordo_config_strings_free();
    return s;
}
