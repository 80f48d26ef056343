// `ordo data`: what the dataloader feeds a training run, without training. It takes train's
// option table (and --config, or a run directory's config.json), builds the data, windows and
// dataloader with ordo_feed_open, the trainer's own setup, and prints the token count, the
// split, the window counts and the first batches as ids and as text, with their next-token
// targets. With --no-shuffle and the-verdict it prints the first batch of "LLMs from scratch"
// ch02 (GPTDatasetV1, batch 8, max_length 4, stride 4).
//
// Deliberately not here: statistics over the whole stream (token frequencies, lengths); the
// model options are accepted, as train's table has them, and ignored.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/run_config.h"
#include "sys/fileio.h"
#include "train/feed.h"

static const char *SYNOPSIS =
    "[RUN_DIR] [train's options] [--batches N]\n\n"
    "Shows what 'ordo train' with the same options would feed the model: the number of\n"
    "tokens, the train/val split, the windows of each split, and the first --batches\n"
    "batches drawn by train's dataloader, as ids and as text, each input row with its\n"
    "next-token targets (the input shifted by one token). With RUN_DIR, the run's\n"
    "config.json gives the options (flags override it). Model and optimizer options are\n"
    "accepted, as train takes them, and have no effect here. Example (the first batch of\n"
    "'LLMs from scratch', chapter 2):\n"
    "  ordo data --data the-verdict.txt --tokenizer gpt2 --context 4 --stride 4 \\\n"
    "            --batch 8 --no-shuffle";

// One ids row as "[a, b, c]".
static void print_ids(const int32_t *ids, int n) {
    printf("[");
    for (int i = 0; i < n; i++) printf("%s%d", i ? ", " : "", ids[i]);
    printf("]");
}

// Text in double quotes, escaped so that every byte shows: \" \\ \n \t and \xNN for other
// control bytes. Bytes from 0x80 up are written as they are (UTF-8).
static void print_quoted(const char *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '\n')
            printf("\\n");
        else if (c == '\t')
            printf("\\t");
        else if (c < 0x20 || c == 0x7f)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
    putchar('"');
}

// Prints ids as quoted text; masked ids (< 0: not a target, the loss skips them) as _ between
// the decoded runs of the others.
static ordo_status print_text(ordo_rundata *d, const int32_t *ids, int n) {
    int i = 0;
    while (i < n) {
        if (ids[i] < 0) {
            printf("_");
            i++;
            continue;
        }
        int j = i;
        while (j < n && ids[j] >= 0) j++;
        char *text;
        size_t len;
        ordo_status s = ordo_rundata_decode(d, ids + i, (size_t)(j - i), &text, &len);
        if (s) return s;
        print_quoted(text, len);
        free(text);
        i = j;
    }
    return ORDO_OK;
}

// An ids matrix [rows, T] as nested lists, one row a line, as PyTorch prints a tensor.
static void print_matrix(const char *name, const int32_t *m, int rows, int T) {
    printf("%s:\n", name);
    for (int r = 0; r < rows; r++) {
        printf("%s", r ? "  " : " [");
        print_ids(m + (size_t)r * T, T);
        printf("%s\n", r + 1 < rows ? "," : "]");
    }
}

static void print_summary(const ordo_train_config *c, const ordo_rundata *d, const ordo_dataset *tr,
                          const ordo_dataset *va, const ordo_dataloader *dl, int stride) {
    if (c->data)
        printf("data: %s, %s tokenizer (%d ids): %zu tokens\n", c->data,
               d->file.ids ? d->file.h.tokenizer : c->tokenizer, d->vocab_size, d->n);
    else
        printf("data: built-in corpus %s (--data-seed %lld, %d ids): %zu tokens\n", c->task,
               c->data_seed, d->vocab_size, d->n);
    if (c->val_data)
        printf("split: all %zu tokens train; val is --val-data %s (%zu tokens)\n", d->n_train,
               c->val_data, d->nval);
    else
        printf("split: --val-frac %g: train tokens [0, %zu) (%zu), val tokens [%zu, %zu) (%zu)\n",
               c->val_frac, d->n_train, d->n_train, d->n_train, d->n, d->n - d->n_train);
    printf("windows: --context %lld, --stride %d: train %zu, val %zu\n", c->context, stride,
           tr->count, va->count);
    printf("batches: --batch %lld, %s, %s, --seed %lld: %lld per epoch\n", c->batch,
           c->shuffle ? "--shuffle" : "--no-shuffle",
           c->drop_last ? "--drop-last" : "--no-drop-last", c->seed,
           (long long)ordo_dataloader_batches_per_epoch(dl));
}

// Draws and prints `batches` batches from the loader, as train draws them.
static ordo_status show_batches(ordo_rundata *d, ordo_dataloader *dl, const ordo_dataset *ds,
                                long long batches) {
    int T = ds->max_length, B = dl->batch;
    int32_t *in = ordo_xmalloc((size_t)B * T * sizeof *in);
    int32_t *tg = ordo_xmalloc((size_t)B * T * sizeof *tg);
    int64_t per_epoch = ordo_dataloader_batches_per_epoch(dl);
    ordo_status s = ORDO_OK;
    for (long long b = 0; b < batches && !s; b++) {
        int rows = ordo_dataloader_next(dl, in, tg);
        // the loader has just handed out windows perm[cursor - rows .. cursor) of this epoch
        const int64_t *win = dl->perm + dl->cursor - rows;
        printf("\nbatch %lld (epoch %lld, batch %lld of %lld): %d rows x %d tokens\n", b + 1,
               (long long)dl->epoch + 1, (long long)((dl->cursor - 1) / B + 1),
               (long long)per_epoch, rows, T);
        print_matrix("inputs", in, rows, T);
        print_matrix("targets", tg, rows, T);
        printf("text (window: its first token in the stream; input, then target%s):\n",
               ds->targets ? "; _ = not a target, the loss skips it" : "");
        for (int r = 0; r < rows && !s; r++) {
            printf("  window %lld (token %lld)\n    input  ", (long long)win[r],
                   (long long)win[r] * ds->stride);
            s = print_text(d, in + (size_t)r * T, T);
            if (s) break;
            printf("\n    target ");
            s = print_text(d, tg + (size_t)r * T, T);
            printf("\n");
        }
    }
    free(in);
    free(tg);
    return s;
}

// A --config file, as train reads one (flags override it); a run's data record in it is not
// this command's to check.
// *tok is set when the file names the tokenizer.
static ordo_status config_file(ordo_train_config *c, const char *file, ordo_opt *opts, int *tok) {
    json_error_t err;
    json_t *j = ordo_json_load_file(file, JSON_REJECT_DUPLICATES, &err);
    if (!j)
        return err.line > 0
                   ? ordo_error(ORDO_ERR_FORMAT, "%s: line %d: %s", file, err.line, err.text)
                   : ordo_error(ORDO_ERR_FORMAT, "%s: %s", file, err.text);
    ordo_status s = ordo_train_config_from_json(c, j, file, 1, opts);
    *tok = json_object_get(j, "tokenizer") != NULL;
    json_decref(j);
    memset(&c->data_record, 0, sizeof c->data_record);
    return s;
}

ordo_status ordo_cmd_data(int argc, char **argv) {
    ordo_train_config cfg;
    ordo_train_config_defaults(&cfg);
    const char *config = NULL;
    long long batches = 1;
    ordo_opt own[] = {
        {"config", ORDO_OPT_STRING, &config, "read options from this JSON file (flags override it)",
         0},
        {"batches", ORDO_OPT_INT, &batches, "batches to show (0 = only the counts)", .min = 0,
         .max = 1000000},
    };
    int nbase;
    ordo_opt *opts = ordo_cli_train_options(&cfg, own, (int)(sizeof own / sizeof *own), &nbase);

    const char **pos;
    int npos, help;
    ordo_status s = ordo_args_command("data", SYNOPSIS, opts, argc, argv, &pos, &npos, &help);
    if (!s && help) goto done;
    if (!s && npos > 1)
        s = ordo_error(ORDO_ERR_ARG,
                       "expected at most one RUN_DIR, got %d arguments (see 'ordo "
                       "data --help')",
                       npos);
    if (!s && npos == 1 && config)
        s = ordo_error(ORDO_ERR_ARG, "RUN_DIR and --config do not go together: the run's "
                                     "config.json is its config");
    // a JSON file sets the training options only: the table ends before this command's own
    ordo_opt saved = opts[nbase];
    opts[nbase] = (ordo_opt){0};
    if (!s && npos == 1) s = ordo_cli_run_config(&cfg, pos[0], opts);
    int tok_in_config = 0;
    if (!s && config) s = config_file(&cfg, config, opts, &tok_in_config);
    opts[nbase] = saved;
    char tokname[ORDO_TOKFILE_NAME + 1];
    if (!s && npos == 0)
        ordo_feed_tokenizer_of_data(
            &cfg, ordo_options_find(opts, "tokenizer")->seen || tok_in_config, tokname);
    if (!s) s = ordo_train_config_check(&cfg);
    ordo_rundata data;
    ordo_dataset train_ds, val_ds;
    ordo_dataloader loader;
    int stride = 0;
    memset(&data, 0, sizeof data);
    memset(&loader, 0, sizeof loader);
    if (!s) s = ordo_feed_open(&cfg, &data, &train_ds, &val_ds, &loader, &stride);
    if (!s) {
        print_summary(&cfg, &data, &train_ds, &val_ds, &loader, stride);
        s = show_batches(&data, &loader, &train_ds, batches);
    }
    ordo_dataloader_free(&loader);
    ordo_rundata_free(&data);
done:
    free(pos);
    free(opts);
    ordo_config_strings_free();
    return s;
}
