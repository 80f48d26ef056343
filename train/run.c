// A run rebuilt from its directory (see run.h). The built-in corpora regenerate from their
// seed in well under a second, so nothing but the config is stored in a run directory; a
// data file is named by the config and recorded there by size and hash.
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/dataset.h"
#include "framework/dist.h"
#include "framework/fileio.h"
#include "framework/hash.h"
#include "framework/sha256.h"
#include "train/checkpoint.h"
#include "train/run.h"

// The longest text file: what ordo_tokenizer_encode takes at once (token files have no limit).
#define MAX_DATA_BYTES ((size_t)INT32_MAX)

static ordo_status load_corpus(ordo_rundata *d, const ordo_train_config *cfg) {
    ordo_task task;
    ordo_status s = ordo_task_parse(cfg->task, &task);
    if (s) return s;
    ordo_corpus_opts o;
    ordo_corpus_default_opts(task, &o);
    o.seed = (uint64_t)cfg->data_seed;
    o.n_tokens = (size_t)cfg->corpus_tokens;
    o.min_len = (int)cfg->min_len;
    o.max_len = (int)cfg->max_len;
    s = ordo_corpus_generate(task, &o, &d->corpus);
    if (s) return ordo_error_wrap(s, "corpus %s", cfg->task);
    d->is_corpus = 1;
    d->vocab_size = d->corpus.vocab_size;
    d->n = d->corpus.n;
    d->tokens = ordo_xmalloc(d->n * sizeof(int32_t));
    memcpy(d->tokens, d->corpus.tokens, d->n * sizeof(int32_t));
    d->example_len = d->corpus.example_len;
    int masked = 0;
    for (size_t k = 0; k < d->n; k++) masked |= !d->corpus.mask[k];
    if (masked) {
        d->targets = ordo_xmalloc(d->n * sizeof(int32_t));
        for (size_t k = 0; k < d->n; k++) d->targets[k] = d->corpus.mask[k] ? d->tokens[k] : -1;
    }
    return ORDO_OK;
}

// Compares the file `path` now (d->record) with the run's record `was` (NULL: nothing to
// compare, as for a new run or an eval set), as cfg->data_check says.
static ordo_status check_record(const ordo_rundata *d, const ordo_train_config *cfg,
                                const char *path, const ordo_data_record *was) {
    const ordo_data_record *now = &d->record;
    int rank0 = ordo_dist_rank() == 0;
    if (cfg->data_check == ORDO_DATA_NEW || !was) return ORDO_OK;
    if (!was->have) {
        if (cfg->data_check != ORDO_DATA_WARN && rank0)
            fprintf(stderr,
                    "ordo: note: the run has no record of its data file's size and hash (it "
                    "was made by an older ordo), so %s is taken as it is; it is recorded from "
                    "now on\n",
                    path);
        return ORDO_OK;
    }
    if (was->size == now->size && was->hash == now->hash) return ORDO_OK;
    char h0[17], h1[17], what[ORDO_PATH_MAX + 160];
    ordo_hash_hex(was->hash, h0);
    ordo_hash_hex(now->hash, h1);
    snprintf(what, sizeof what,
             "%s file %s changed since the run %s: size %lld -> %lld "
             "bytes, hash %s -> %s",
             was == &cfg->val_record ? "--val-data" : "data", path,
             cfg->data_check == ORDO_DATA_WARN ? "trained on it" : "started", was->size, now->size,
             h0, h1);
    switch (cfg->data_check) {
    case ORDO_DATA_REFUSE:
        return ordo_error(ORDO_ERR_ARG,
                          "%s; pass --data-changed ok to train on the new content anyway", what);
    case ORDO_DATA_ACCEPT:
        if (rank0)
            fprintf(stderr, "ordo: note: %s; training on the new content (--data-changed ok)\n",
                    what);
        break;
    case ORDO_DATA_WARN:
        if (rank0)
            fprintf(stderr,
                    "ordo: warning: %s; the validation split (and any loss on it) is now "
                    "other text than the run's\n",
                    what);
        break;
    case ORDO_DATA_NEW:
        break;
    }
    return ORDO_OK;
}

// A text file, read whole and tokenized (path: the data file of cfg, its --val-data file or an
// eval set; was: the run's record of it, or NULL).
static ordo_status load_text(ordo_rundata *d, const ordo_train_config *cfg, const char *path,
                             const ordo_data_record *was) {
    // regular files only (a FIFO would block, /dev/zero never end), the size known up front
    int fd;
    size_t size;
    ordo_status s = ordo_open_regular(path, &fd, &size);
    if (s) return s;
    close(fd);
    if (size > MAX_DATA_BYTES)
        return ordo_error(ORDO_ERR_ARG,
                          "%s: %zu bytes, more than the %zu a text file may have; tokenize it "
                          "once ('ordo tokenize --out FILE.bin %s') and train on FILE.bin, "
                          "which has no limit",
                          path, size, MAX_DATA_BYTES, path);
    if ((s = ordo_tokenizer_load(d->tok_kind, cfg->vocab, &d->tok))) return s;
    char *text;
    size_t len;
    if ((s = ordo_read_regular_file(path, MAX_DATA_BYTES, &text, &len))) return s;
    if (len == 0) {
        free(text);
        return ordo_error(ORDO_ERR_ARG, "%s: the data file is empty", path);
    }
    // Text never holds NUL; a file that does is a checkpoint, an archive or a binary passed
    // by mistake, and training on it would only waste the run.
    const char *nul = memchr(text, 0, len);
    if (nul) {
        size_t at = (size_t)(nul - text);
        free(text);
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: not a text file (a NUL byte at offset %zu); --data takes UTF-8 "
                          "text, or a token file made by 'ordo tokenize --out FILE.bin'",
                          path, at);
    }
    // the hash of the bytes read (the same as ordo_hash_file's), so that what is checked is
    // what is tokenized; before tokenizing, so that a refused resume is quick
    d->record =
        (ordo_data_record){.have = 1, .size = (long long)len, .hash = ordo_hash64(text, len)};
    if ((s = check_record(d, cfg, path, was))) {
        free(text);
        return s;
    }
    s = ordo_tokenizer_encode(d->tok, text, len, 0, &d->tokens, &d->n);
    free(text);
    if (s) return ordo_error_wrap(s, "%s", path);
    d->vocab_size = ordo_tokenizer_vocab_size(d->tok);
    return ORDO_OK;
}

// A token file, mapped and checked; its tokenizer is loaded only if a prompt or ids need it.
static ordo_status load_tokens(ordo_rundata *d, const ordo_train_config *cfg, const char *path,
                               const ordo_data_record *was) {
    ordo_status s = ordo_tokfile_open(path, &d->file);
    if (s) return s;
    const ordo_tokfile_header *h = &d->file.h;
    ordo_tokenizer_kind kind;
    if (ordo_tokenizer_parse_kind(h->tokenizer, &kind))
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: made with the tokenizer '%s', which this ordo does not have "
                          "(byte, gpt2)",
                          path, h->tokenizer);
    if (kind != d->tok_kind)
        return ordo_error(ORDO_ERR_ARG,
                          "%s holds %s token ids, but the run uses --tokenizer %s (a token file "
                          "decides the tokenizer when --tokenizer is not given)",
                          path, h->tokenizer, ordo_tokenizer_kind_name(d->tok_kind));
    if ((int64_t)h->vocab_size != ordo_tokenizer_kind_vocab_size(kind))
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: vocab size %u in the header, but the %s tokenizer has %d ids", path,
                          h->vocab_size, h->tokenizer, ordo_tokenizer_kind_vocab_size(kind));
    d->n = (size_t)h->count;
    d->vocab_size = (int)h->vocab_size;
    d->record =
        (ordo_data_record){.have = 1, .size = (long long)d->file.file_bytes, .hash = h->hash};
    return check_record(d, cfg, path, was);
}

// The tokenizer of the run (its kind and vocab dir), not yet loaded: ordo_rundata_encode and
// decode load it when first needed.
static ordo_status file_tokenizer(ordo_rundata *d, const ordo_train_config *cfg) {
    ordo_status s = ordo_tokenizer_parse_kind(cfg->tokenizer, &d->tok_kind);
    if (s) return s;
    d->vocab = cfg->vocab ? ordo_xstrdup(cfg->vocab) : NULL;
    return ORDO_OK;
}

// A text or token file at path (d's tokenizer kind set), compared with `was`.
static ordo_status load_file_at(ordo_rundata *d, const ordo_train_config *cfg, const char *path,
                                const ordo_data_record *was) {
    int tokfile;
    ordo_status s = ordo_tokfile_probe(path, &tokfile);
    if (s) return s;
    return tokfile ? load_tokens(d, cfg, path, was) : load_text(d, cfg, path, was);
}

// The validation set as int32 ids from offset `off` of d's stream to its end: into the
// stream (tokens, a 32-bit mapping) or widened from a 16-bit mapping into d->val_own.
static const int32_t *stream_tail(ordo_rundata *d, size_t off) {
    size_t n = d->n - off;
    if (d->tokens) return d->tokens + off;
    if (d->file.h.width == 4) return (const int32_t *)d->file.ids + off; // ids below 2^31
    d->val_own = ordo_xmalloc((n ? n : 1) * sizeof *d->val_own);
    ordo_rundata_ids(d, off, n, d->val_own);
    return d->val_own;
}

// --- Where a run's files are. A new run records its data file's absolute path (config "data")
// and its path relative to the run directory (the record's run_relative); a run read or
// resumed elsewhere tries them in that order, so that it works from any directory and after
// the run and its data moved together. The hash decides whether it is the same file.

// The path p made absolute and lexically normal (no ".", "..", "//") into out[cap], from the
// working directory; for a path that does not exist yet (a new run dir).
static ordo_status lexical_abs(const char *p, char *out, size_t cap) {
    char cwd[ORDO_PATH_MAX], joined[2 * ORDO_PATH_MAX + 2];
    if (p[0] != '/' && !getcwd(cwd, sizeof cwd))
        return ordo_error(ORDO_ERR_IO, "cannot read the working directory");
    snprintf(joined, sizeof joined, "%s/%s", p[0] == '/' ? "" : cwd, p);
    size_t n = 0;
    char *save = NULL;
    for (char *c = strtok_r(joined, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0) continue;
        if (strcmp(c, "..") == 0) {
            while (n > 0 && out[n - 1] != '/') n--;
            if (n > 0) n--;
            continue;
        }
        size_t k = strlen(c);
        if (n + 1 + k + 1 > cap) return ordo_error(ORDO_ERR_ARG, "%s: the path is too long", p);
        out[n++] = '/';
        memcpy(out + n, c, k);
        n += k;
    }
    if (n == 0) out[n++] = '/';
    out[n] = 0;
    return ORDO_OK;
}

// The absolute path of file (which exists) relative to the absolute directory dir (which
// may not exist yet), malloc'd: "../data/x.txt".
static char *relative_to(const char *dir, const char *file) {
    size_t common = 0; // length of the common prefix, ending at a directory boundary
    for (size_t i = 0; dir[i] && dir[i] == file[i]; i++)
        if (dir[i + 1] == 0 ? file[i + 1] == '/' : dir[i + 1] == '/' && file[i + 1] == '/')
            common = i + 1;
    if (strcmp(dir, "/") == 0) common = 0;
    ordo_strbuf b = {0};
    for (const char *c = dir + common; *c; c++)
        if (*c == '/') ordo_strbuf_printf(&b, "../");
    ordo_strbuf_printf(&b, "%s", file + common + (file[common] == '/'));
    return b.buf;
}

static int exists(const char *p) {
    return access(p, F_OK) == 0;
}

// Resolves the run's file `given` (option opt: "--data", "--val-data") into *abs (absolute,
// malloc'd) and *rel (relative to the run dir cfg->out, malloc'd; NULL when it cannot be made).
// A new run takes it as given, from the working directory. A run being read or resumed
// takes the first that exists of: given as it is (absolute; relative to the working
// directory for runs of an older ordo, or an option given now), the run dir joined with the
// record's run_relative, the run dir joined with a relative `given`; a note says when it is
// not the first. None existing is ORDO_ERR_IO naming each path tried.
static ordo_status resolve_file(const ordo_train_config *cfg, const char *opt, const char *given,
                                const ordo_data_record *rec, char **abs, char **rel) {
    *abs = *rel = NULL;
    char tried[3][ORDO_PATH_MAX];
    int n = 0, found = -1;
    snprintf(tried[n++], ORDO_PATH_MAX, "%s", given);
    if (cfg->data_check != ORDO_DATA_NEW && cfg->out) {
        if (rec && rec->rel && rec->rel[0] != '/' &&
            !ordo_path(tried[n], ORDO_PATH_MAX, "%s/%s", cfg->out, rec->rel))
            n++;
        if (given[0] != '/' && !ordo_path(tried[n], ORDO_PATH_MAX, "%s/%s", cfg->out, given)) n++;
    }
    ordo_error_clear();
    for (int i = 0; i < n && found < 0; i++)
        if (exists(tried[i])) found = i;
    if (found < 0 && n == 1) { // a new run: the loader's error says what is wrong with it
        *abs = ordo_xstrdup(given);
        return ORDO_OK;
    }
    if (found < 0) {
        ordo_strbuf b = {0};
        for (int i = 0; i < n; i++) ordo_strbuf_printf(&b, "%s%s", i ? ", " : "", tried[i]);
        // on resume the option names the new place; read-only commands have no such option
        // (eval --data scores another file), so the file has to be put back
        int resume = cfg->data_check != ORDO_DATA_WARN;
        ordo_status s = ordo_error(
            ORDO_ERR_IO, "%s %s: the run's file is not there (tried %s); %s%s%s", opt, given, b.buf,
            resume ? "give its new place with 'ordo train --resume RUN "
                   : "put it back there, or the run directory beside it",
            resume ? opt : "", resume ? " FILE' (its size and hash are checked)" : "");
        ordo_strbuf_free(&b);
        return s;
    }
    if (found > 0 && ordo_dist_rank() == 0)
        fprintf(stderr,
                "ordo: note: %s %s is not there; using %s (relative to the run directory)\n", opt,
                given, tried[found]);
    *abs = realpath(tried[found], NULL);
    if (!*abs) *abs = ordo_xstrdup(tried[found]);
    char dir[ORDO_PATH_MAX], *real = cfg->out ? realpath(cfg->out, NULL) : NULL;
    if (real || (cfg->out && !lexical_abs(cfg->out, dir, sizeof dir)))
        *rel = (*abs)[0] == '/' ? relative_to(real ? real : dir, *abs) : NULL;
    ordo_error_clear();
    free(real);
    return ORDO_OK;
}

// The run's --val-data file, loaded whole as the validation set; all of the data trains.
static ordo_status load_val_file(ordo_rundata *d, const ordo_train_config *cfg) {
    ordo_status s =
        resolve_file(cfg, "--val-data", cfg->val_data, &cfg->val_record, &d->val_path, &d->val_rel);
    if (s) return s;
    ordo_rundata *v = d->valfile = ordo_xcalloc(1, sizeof *v);
    v->tok_kind = d->tok_kind;
    v->vocab = d->vocab ? ordo_xstrdup(d->vocab) : NULL;
    if ((s = load_file_at(v, cfg, d->val_path, &cfg->val_record))) return s; // names the file
    d->val_record = v->record;
    d->val_record.rel = d->val_rel;
    d->n_train = d->n;
    d->val = stream_tail(v, 0);
    d->val_targets = NULL;
    d->nval = v->n;
    return ORDO_OK;
}

ordo_status ordo_rundata_load(ordo_rundata *d, const ordo_train_config *cfg) {
    memset(d, 0, sizeof *d);
    ordo_status s = ORDO_OK;
    if (!cfg->data) {
        s = load_corpus(d, cfg);
    } else if (!(s = file_tokenizer(d, cfg)) &&
               !(s = resolve_file(cfg, "--data", cfg->data, &cfg->data_record, &d->path,
                                  &d->rel))) {
        s = load_file_at(d, cfg, d->path, &cfg->data_record);
        d->record.rel = d->rel;
    }
    if (!s && cfg->val_data) {
        if (!(s = load_val_file(d, cfg))) return ORDO_OK;
    } else if (!s) {
        s = ordo_split_tokens(d->n, cfg->val_frac, &d->n_train);
    }
    if (s) {
        ordo_rundata_free(d);
        return s;
    }
    if (d->example_len > 0) // keep whole examples on each side of the split
        d->n_train = d->n_train / (size_t)d->example_len * (size_t)d->example_len;
    d->nval = d->n - d->n_train;
    d->val = stream_tail(d, d->n_train); // a 16-bit file: the validation split alone is widened
    d->val_targets = d->targets ? d->targets + d->n_train : NULL;
    return ORDO_OK;
}

ordo_status ordo_rundata_load_tokenizer(ordo_rundata *d, const ordo_train_config *cfg) {
    memset(d, 0, sizeof *d);
    ordo_status s = cfg->data ? file_tokenizer(d, cfg) : load_corpus(d, cfg);
    if (!s && cfg->data) d->vocab_size = ordo_tokenizer_kind_vocab_size(d->tok_kind);
    if (s) {
        ordo_rundata_free(d);
        return s;
    }
    d->n_train = d->n; // no validation set
    d->val = d->tokens ? d->tokens + d->n : NULL;
    return ORDO_OK;
}

ordo_status ordo_rundata_use_eval_file(ordo_rundata *d, const ordo_train_config *cfg,
                                       const char *path) {
    if (d->is_corpus)
        return ordo_error(ORDO_ERR_ARG,
                          "--data %s: the run trained on the built-in corpus %s, which has no "
                          "tokenizer for text (evaluate it on its own validation split)",
                          path, cfg->task);
    ordo_rundata *v = ordo_xcalloc(1, sizeof *v);
    v->tok_kind = d->tok_kind;
    v->vocab = d->vocab ? ordo_xstrdup(d->vocab) : NULL;
    ordo_train_config c = *cfg;
    c.data_check = ORDO_DATA_NEW; // nothing to compare it with
    ordo_status s = load_file_at(v, &c, path, NULL);
    if (s) {
        ordo_rundata_free(v);
        free(v);
        return ordo_error_wrap(s, "--data");
    }
    if (d->valfile) {
        ordo_rundata_free(d->valfile);
        free(d->valfile);
    }
    d->valfile = v;
    d->val = stream_tail(v, 0);
    d->val_targets = NULL;
    d->nval = v->n;
    d->val_record = v->record;
    return ORDO_OK;
}

ordo_status ordo_rundata_train_dataset(const ordo_rundata *d, int T, int stride, ordo_dataset *ds) {
    if (!d->file.ids) {
        ordo_status s = ordo_dataset_init(ds, d->tokens, d->n_train, T, stride);
        if (!s) ds->targets = d->targets;
        return s;
    }
    if (d->file.h.width == 4)
        return ordo_dataset_init(ds, (const int32_t *)d->file.ids, d->n_train, T, stride);
    return ordo_dataset_init16(ds, (const uint16_t *)d->file.ids, d->n_train, T, stride);
}

void ordo_rundata_ids(const ordo_rundata *d, size_t off, size_t n, int32_t *out) {
    ORDO_ASSERT(off <= d->n && n <= d->n - off);
    if (!d->file.ids) {
        memcpy(out, d->tokens + off, n * sizeof *out);
    } else if (d->file.h.width == 4) {
        memcpy(out, (const int32_t *)d->file.ids + off, n * sizeof *out);
    } else {
        const uint16_t *v = (const uint16_t *)d->file.ids + off;
        for (size_t i = 0; i < n; i++) out[i] = v[i];
    }
}

// The tokenizer of a token file's run, loaded when first needed (a prompt, ids to show).
static ordo_status need_tokenizer(ordo_rundata *d) {
    if (d->tok) return ORDO_OK;
    return ordo_tokenizer_load(d->tok_kind, d->vocab, &d->tok);
}

ordo_status ordo_rundata_encode(ordo_rundata *d, const char *text, int32_t **ids, size_t *n) {
    if (!d->is_corpus) {
        ordo_status s = need_tokenizer(d);
        return s ? s : ordo_tokenizer_encode(d->tok, text, strlen(text), 0, ids, n);
    }
    // corpus words, separated by spaces; an unknown word is an error naming it
    size_t cap = strlen(text) / 2 + 2, k = 0;
    int32_t *out = ordo_xmalloc(cap * sizeof *out);
    char *copy = ordo_xstrdup(text), *save = NULL;
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        int id = -1;
        for (int v = 0; v < d->corpus.vocab_size && id < 0; v++)
            if (strcmp(d->corpus.words[v], w) == 0) id = v;
        if (id < 0) {
            ordo_status s = ordo_error(ORDO_ERR_ARG, "'%s' is not a word of the %s corpus", w,
                                       ordo_task_name(d->corpus.task));
            free(copy);
            free(out);
            return s;
        }
        out[k++] = id;
    }
    free(copy);
    *ids = out;
    *n = k;
    return ORDO_OK;
}

ordo_status ordo_rundata_decode(ordo_rundata *d, const int32_t *ids, size_t n, char **text,
                                size_t *len) {
    size_t k = 0;
    ordo_status s = d->is_corpus ? ORDO_OK : need_tokenizer(d);
    if (!s)
        s = d->is_corpus ? ordo_corpus_decode(&d->corpus, ids, n, text)
                         : ordo_tokenizer_decode(d->tok, ids, n, text, &k);
    if (!s && d->is_corpus) k = strlen(*text); // words: no NUL inside
    if (!s && len) *len = k;
    return s;
}

void ordo_rundata_free(ordo_rundata *d) {
    if (d->valfile) {
        ordo_rundata_free(d->valfile);
        free(d->valfile);
    }
    free(d->path);
    free(d->rel);
    free(d->val_path);
    free(d->val_rel);
    free(d->tokens);
    free(d->targets);
    free(d->val_own);
    free(d->vocab);
    if (d->is_corpus) ordo_corpus_free(&d->corpus);
    if (d->tok) ordo_tokenizer_free(d->tok);
    ordo_tokfile_close(&d->file);
    memset(d, 0, sizeof *d);
}

// Passes over checkpoint `path`, whose reason is the current error message: a warning on
// stderr (rank 0) and an entry "\n  <path>: <why>" in `list`, which the error quotes when none
// is left. The message's own "<path>: " prefix, if any, is not repeated.
static void skip(ordo_strbuf *list, const char *path) {
    const char *why = ordo_error_message();
    size_t n = strlen(path);
    if (strncmp(why, path, n) == 0 && why[n] == ':' && why[n + 1] == ' ') why += n + 2;
    if (ordo_dist_rank() == 0) fprintf(stderr, "ordo: warning: skipping %s: %s\n", path, why);
    ordo_strbuf_printf(list, "\n  %s: %s", path, why);
}

// The config checkpoint `path` of run dir was trained with (cj, its metadata), over the
// defaults, with out set to dir (out may differ on resume; the check wants one), and checked:
// a hand-edited or damaged config must not reach a model unchecked. Errors name path.
static ordo_status checkpoint_config(const char *path, const char *dir, json_t *cj,
                                     ordo_train_config *cfg) {
    ordo_train_config_defaults(cfg);
    ordo_status s = ordo_train_config_from_json(cfg, cj, path, 0, NULL);
    cfg->out = dir;
    if (!s && (s = ordo_train_config_check(cfg))) s = ordo_error_wrap(s, "%s", path);
    return s;
}

// Opens checkpoint `path` of run dir and rebuilds the run from it into cfg, data and m (freed
// again on failure). *step receives its step.
static ordo_status open_one(const char *path, const char *dir, const ordo_run_select *sel,
                            ordo_train_config *cfg, ordo_rundata *data, ordo_gpt *m, int64_t *step,
                            int *data_err) {
    *data_err = 0;
    ordo_safetensors *f;
    json_t *cj;
    ordo_train_state st;
    ordo_status s = ordo_checkpoint_open(path, &f, &cj, &st);
    if (s) return s;
    // zeroed, so that a failure before they are built frees nothing it should not
    memset(data, 0, sizeof *data);
    memset(m, 0, sizeof *m);
    s = checkpoint_config(path, dir, cj, cfg);
    json_decref(cj);
    cfg->data_check = ORDO_DATA_WARN; // read-only: a changed data file is only warned about
    ordo_gpt_config g;
    if (!s) {
        s = sel->tokenizer_only ? ordo_rundata_load_tokenizer(data, cfg)
                                : ordo_rundata_load(data, cfg);
        *data_err = s != ORDO_OK;
    }
    if (!s) s = ordo_train_config_model(cfg, data->vocab_size, &g);
    if (!s) s = ordo_gpt_init(m, &g, 0);
    if (!s) s = ordo_checkpoint_load(f, m, NULL);
    ordo_safetensors_close(f);
    if (s) {
        ordo_gpt_free(m);
        ordo_rundata_free(data);
        return s;
    }
    *step = st.step;
    return ORDO_OK;
}

// A target that is a file: its checkpoint alone, from the directory it is in.
static ordo_status open_file(const char *target, const ordo_run_select *sel, ordo_train_config *cfg,
                             ordo_rundata *data, ordo_gpt *m, ordo_run_view *v) {
    if (sel->step >= 0)
        return ordo_error(ORDO_ERR_ARG,
                          "--step %lld and the checkpoint file %s do not go together (give the "
                          "run directory with --step, or the file alone)",
                          (long long)sel->step, target);
    const char *slash = strrchr(target, '/');
    ordo_status s = ORDO_OK;
    if (!slash)
        snprintf(v->dir, sizeof v->dir, ".");
    else if (slash == target)
        snprintf(v->dir, sizeof v->dir, "/");
    else
        s = ordo_path(v->dir, sizeof v->dir, "%.*s", (int)(slash - target), target);
    if (!s) s = ordo_path(v->ckpt, sizeof v->ckpt, "%s", target);
    int data_err;
    if (!s) s = open_one(v->ckpt, v->dir, sel, cfg, data, m, &v->step, &data_err);
    return s;
}

ordo_status ordo_run_open(const char *target, const ordo_run_select *sel, ordo_train_config *cfg,
                          ordo_rundata *data, ordo_gpt *m, ordo_run_view *v) {
    static const ordo_run_select newest = {.step = -1};
    if (!sel) sel = &newest;
    memset(v, 0, sizeof *v);
    struct stat sb;
    int found = stat(target, &sb) == 0;
    if (found && S_ISREG(sb.st_mode)) return open_file(target, sel, cfg, data, m, v);
    size_t len = strlen(target), ext = strlen(".safetensors");
    if (!found && len > ext && strcmp(target + len - ext, ".safetensors") == 0)
        return ordo_error(ORDO_ERR_IO, "%s: no such checkpoint file", target);
    ordo_status s = ordo_path(v->dir, sizeof v->dir, "%s", target);
    int64_t *steps;
    int n;
    if (!s) s = ordo_checkpoint_list(target, &steps, &n);
    if (s) return s;
    if (n == 0) {
        free(steps);
        return ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run",
                          target);
    }
    if (sel->step >= 0) { // that one or an error: never another step in its place
        int i = 0;
        while (i < n && steps[i] != sel->step) i++;
        if (i == n) {
            ordo_strbuf have = {0};
            ordo_checkpoint_steps_text(target, steps, n, &have);
            s = ordo_error(ORDO_ERR_ARG,
                           "%s: no checkpoint of step %lld (ckpt-%lld.safetensors); the run has "
                           "checkpoints at steps %s",
                           target, (long long)sel->step, (long long)sel->step, have.buf);
            ordo_strbuf_free(&have);
        }
        if (!s) s = ordo_checkpoint_path(v->ckpt, sizeof v->ckpt, target, sel->step);
        int data_err;
        if (!s) s = open_one(v->ckpt, target, sel, cfg, data, m, &v->step, &data_err);
        free(steps);
        return s;
    }
    ordo_strbuf skipped = {0};
    int i;
    for (i = 0; i < n; i++) {
        if ((s = ordo_checkpoint_path(v->ckpt, sizeof v->ckpt, target, steps[i]))) break;
        int data_err;
        if (!(s = open_one(v->ckpt, target, sel, cfg, data, m, &v->step, &data_err))) break;
        if (data_err) break; // the run's data, not this checkpoint: an older one would not help
        skip(&skipped, v->ckpt);
    }
    if (i == n) // every one skipped: the last one's status, with the reason for each
        s = ordo_error(s, "%s: none of its %d checkpoint(s) could be used:%s", target, n,
                       skipped.buf ? skipped.buf : "");
    ordo_strbuf_free(&skipped);
    free(steps);
    return s;
}

// dir/config.json, when it reads: a checkpoint whose fixed settings differ from it was
// copied in from another run, and is skipped like a damaged one. Errors: only a path that
// does not fit.
static ordo_status read_run_config(ordo_resume *r) {
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", r->dir);
    if (s) return s;
    json_t *j = json_load_file(path, 0, NULL);
    ordo_train_config_defaults(&r->run);
    r->have_run = j && ordo_train_config_from_json(&r->run, j, path, 0, NULL) == ORDO_OK;
    json_decref(j);
    return ORDO_OK;
}

// Opens the next checkpoint of r that belongs to the run (*f; NULL when the run has none at
// all), with its state, its config *ck and, if cj, its config's JSON (the caller decrefs).
// One that does not open, or differs from config.json, is skipped with a warning; one whose
// config is invalid is an error, as is running out of checkpoints.
static ordo_status next_own(ordo_resume *r, ordo_safetensors **f, json_t **cj, ordo_train_state *st,
                            ordo_train_config *ck) {
    *f = NULL;
    while (r->next < r->n) {
        ordo_status s = ordo_checkpoint_path(r->path, sizeof r->path, r->dir, r->steps[r->next++]);
        if (s) return s; // its message quotes the start of the path; the whole is too long
        json_t *j;
        if (ordo_checkpoint_open(r->path, f, &j, st)) {
            skip(&r->skipped, r->path);
            continue;
        }
        s = checkpoint_config(r->path, r->dir, j, ck);
        int foreign = !s && r->have_run && ordo_train_config_compare(ck, &r->run);
        if (foreign) {
            ordo_error_wrap(ORDO_ERR_ARG, "it is not a checkpoint of this run (%s/config.json)",
                            r->dir);
            skip(&r->skipped, r->path);
        }
        if (s || foreign) {
            json_decref(j);
            ordo_safetensors_close(*f);
            *f = NULL;
            if (s) return ordo_error_wrap(s, "--resume %s", r->dir);
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

// The resumed config from the newest checkpoint of the run; r->next is left on it, so that
// ordo_resume_next hands it out first.
static ordo_status resolve_from_checkpoint(ordo_resume *r, ordo_train_config *cfg, ordo_opt *opts) {
    ordo_safetensors *f;
    json_t *cj;
    ordo_train_state st;
    ordo_train_config ck;
    ordo_status s = next_own(r, &f, &cj, &st, &ck);
    if (s) return s;
    ordo_safetensors_close(f);
    r->next--;
    s = given_over(cfg, opts, cj, r->path);
    json_decref(cj);
    cfg->out = r->dir;
    if (!s) s = ordo_train_config_compare(&ck, cfg); // only resumable options may differ
    return s ? ordo_error_wrap(s, "--resume %s", r->dir) : ORDO_OK;
}

// A run killed before its first checkpoint restarts from its config.json, as it is: the
// options given now are not applied (nor checked against it).
static ordo_status resolve_from_config_json(ordo_resume *r, ordo_train_config *cfg) {
    char path[ORDO_PATH_MAX];
    ordo_status s = ordo_path(path, sizeof path, "%s/config.json", r->dir);
    if (s) return s;
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        return ordo_error(ORDO_ERR_ARG,
                          "--resume %s: no usable checkpoint and no readable config.json (%s)",
                          r->dir, err.text);
    ordo_train_config_defaults(cfg);
    s = ordo_train_config_from_json(cfg, j, path, 0, NULL);
    json_decref(j);
    if (s) return s;
    cfg->out = r->dir;
    if ((s = ordo_train_config_check(cfg))) return ordo_error_wrap(s, "%s", path);
    return ORDO_OK;
}

ordo_status ordo_resume_open(ordo_resume *r, const char *dir, ordo_train_config *cfg,
                             ordo_opt *opts) {
    memset(r, 0, sizeof *r);
    r->dir = dir;
    // the options as given, as for a new run; but the RoPE scaling's only with the scheme and
    // the other RoPE options they go with, which a resume names alone: after the merge
    ordo_train_config given = *cfg;
    given.rope_scaling = "none";
    given.rope_factor = 0;
    given.rope_orig_context = 0;
    ordo_status s = ordo_train_config_check(&given);
    if (!s) s = ordo_checkpoint_list(dir, &r->steps, &r->n);
    if (!s) s = read_run_config(r);
    if (!s) s = r->n ? resolve_from_checkpoint(r, cfg, opts) : resolve_from_config_json(r, cfg);
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
    skip(&r->skipped, r->path);
}

// "cosine, warmup 2: lr 0.001 at step 2 -> min-lr 0.0001 at step 9, then 0.0001" into b.
static void describe_plan(ordo_strbuf *b, const ordo_train_config *c, const ordo_lr_plan *p) {
    ordo_strbuf_printf(b, "%s, warmup %lld", c->schedule, c->warmup);
    if (strcmp(c->schedule, "constant") == 0) {
        ordo_strbuf_printf(b, ", then lr %g", c->lr);
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

// ---------------------------------------------------------------------------------------
// `ordo train --init`: a new run from another run's weights, possibly at a longer context.

void ordo_extend_table(float *dst, int T, const float *src, int T0, int C, ordo_extend_pos how) {
    if (T <= T0 || how == ORDO_EXTEND_FRESH) {
        int n = T < T0 ? T : T0;
        memcpy(dst, src, (size_t)n * C * sizeof *dst);
        return;
    }
    for (int p = 0; p < T; p++) {
        double x = T > 1 ? (double)p * (T0 - 1) / (T - 1) : 0;
        int i0 = (int)x, i1 = i0 + 1 < T0 ? i0 + 1 : T0 - 1;
        double w = x - i0;
        const float *a = src + (size_t)i0 * C, *b = src + (size_t)i1 * C;
        for (int c = 0; c < C; c++) dst[(size_t)p * C + c] = (float)((1 - w) * a[c] + w * b[c]);
    }
}

void ordo_init_fit(ordo_gpt *m, const ordo_gpt *src, ordo_extend_pos how) {
    for (int i = 0; i < m->params.count; i++) {
        ordo_tensor *to = m->params.t[i];
        const ordo_tensor *from = src->params.t[i];
        if (to == m->wpe.table)
            ordo_extend_table(to->data, m->cfg.T_max, from->data, src->cfg.T_max, m->cfg.C, how);
        else
            memcpy(to->data, from->data, to->n * sizeof *to->data);
    }
}

ordo_status ordo_extend_model(const ordo_train_config *cfg, const ordo_gpt *src, int T,
                              ordo_extend_pos how, ordo_gpt *dst) {
    memset(dst, 0, sizeof *dst);
    if (!src->wpe.table)
        return ordo_error(ORDO_ERR_ARG, "a model with --pos %s has no learned table to extend",
                          ordo_pos_name(src->cfg.pos));
    // the model `ordo train --init RUN --context T` builds before it reads the weights: the
    // run's config at context T and the run's seed (fresh rows are its init's rows)
    ordo_train_config c = *cfg;
    c.context = T;
    ordo_gpt_config g;
    ordo_status s = ordo_train_config_model(&c, src->cfg.V, &g);
    if (!s) s = ordo_gpt_init(dst, &g, (uint64_t)cfg->seed);
    if (s) return s;
    ordo_init_fit(dst, src, how);
    dst->attention = src->attention;
    if ((s = ordo_gpt_set_precision(dst, src->precision))) ordo_gpt_free(dst);
    return s;
}

// The metadata integer `key` of f (0 when absent or not a number).
static long long meta_ll(ordo_safetensors *f, const char *key) {
    const char *v = ordo_safetensors_meta(f, key);
    char *end;
    long long x = v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end ? x : 0;
}

// The newest checkpoint of run dir that opens intact, into path[ORDO_PATH_MAX].
static ordo_status newest_checkpoint(const char *dir, char *path) {
    int64_t *steps;
    int n;
    ordo_status s = ordo_checkpoint_list(dir, &steps, &n);
    if (s) return s;
    ordo_strbuf skipped = {0};
    int i;
    for (i = 0; i < n; i++) {
        ordo_safetensors *f;
        json_t *cj;
        ordo_train_state st;
        if ((s = ordo_checkpoint_path(path, ORDO_PATH_MAX, dir, steps[i]))) break;
        if ((s = ordo_checkpoint_open(path, &f, &cj, &st))) {
            skip(&skipped, path);
            continue;
        }
        json_decref(cj);
        ordo_safetensors_close(f);
        break;
    }
    if (!s && n == 0)
        s = ordo_error(ORDO_ERR_ARG, "%s: no checkpoint (ckpt-<step>.safetensors) in the run", dir);
    else if (i == n && n > 0)
        s = ordo_error(ORDO_ERR_FORMAT, "%s: none of its %d checkpoint(s) could be used:%s", dir, n,
                       skipped.buf ? skipped.buf : "");
    ordo_strbuf_free(&skipped);
    free(steps);
    return s;
}

// The run directory of a checkpoint file path (its directory, when that holds config.json
// and the name is ckpt-<step>.safetensors), into dir[ORDO_PATH_MAX]; 0 when it has none.
static int run_of_file(const char *path, char *dir) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    long long step;
    char tail[32];
    if (sscanf(base, "ckpt-%lld.safetensor%31s", &step, tail) != 2 || strcmp(tail, "s") != 0)
        return 0;
    if (ordo_path(dir, ORDO_PATH_MAX, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : "."))
        return 0;
    char cj[ORDO_PATH_MAX];
    return !ordo_path(cj, sizeof cj, "%s/config.json", dir) && access(cj, F_OK) == 0;
}

// The record of --init src (a run directory or a file) into *r, its strings kept by the
// config's string list (ordo_config_strings_free); the source's metadata checked against cfg.
static ordo_status init_record(const ordo_train_config *cfg, const char *src, ordo_init_record *r) {
    char path[ORDO_PATH_MAX], dir[ORDO_PATH_MAX];
    struct stat sb;
    memset(r, 0, sizeof *r);
    ordo_status s = ORDO_OK;
    int is_dir = stat(src, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (is_dir) {
        if ((s = newest_checkpoint(src, path))) return s;
    } else if ((s = ordo_path(path, sizeof path, "%s", src))) {
        return s;
    }
    ordo_safetensors *f;
    if ((s = ordo_safetensors_open(path, &f))) return s;
    // the settings the file names (ordo writes them; other files have none): all but the
    // context must be the run's
    const struct {
        const char *key, *opt;
        long long want;
    } keys[] = {
        {"C", "d-model", cfg->d_model}, {"L", "layers", cfg->layers}, {"NH", "heads", cfg->heads}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !s; k++) {
        long long have = meta_ll(f, keys[k].key);
        if (have && have != keys[k].want)
            s = ordo_error(ORDO_ERR_ARG,
                           "%s has %s %lld (metadata \"%s\") but this run --%s %lld; only "
                           "--context may differ from the weights a run starts from",
                           path, keys[k].opt, have, keys[k].key, keys[k].opt, keys[k].want);
    }
    const char *pos = ordo_safetensors_meta(f, "pos");
    if (!s && pos && strcmp(pos, cfg->pos) != 0)
        s = ordo_error(ORDO_ERR_ARG,
                       "%s was trained with --pos %s but this run has --pos %s; a run started "
                       "from it keeps its position scheme",
                       path, pos, cfg->pos);
    const char *fmt = ordo_safetensors_meta(f, "format");
    int ordo_ckpt = fmt && strncmp(fmt, "ordo-checkpoint", 15) == 0;
    r->step = ordo_ckpt && ordo_safetensors_meta(f, "step") ? meta_ll(f, "step") : -1;
    r->context = meta_ll(f, "T_max");
    const ordo_st_tensor *wpe = ordo_safetensors_find(f, "wpe.weight");
    if (!r->context && wpe && wpe->ndim == 2) r->context = wpe->shape[0];
    ordo_safetensors_close(f);
    if (s) return s;
    if ((s = ordo_sha256_file(path, r->sha256))) return s;
    // strings that live as long as the config's own (see ordo_train_config_from_json)
    json_t *keep = json_pack("{s:s}", "file", path);
    ordo_train_config tmp;
    ordo_train_config_defaults(&tmp);
    if (is_dir || run_of_file(path, dir))
        json_object_set_new(keep, "run", json_string(is_dir ? src : dir));
    json_object_set_new(keep, "sha256", json_string(r->sha256));
    json_t *obj = json_pack("{s:o}", ORDO_CONFIG_INIT_KEY, keep);
    s = ordo_train_config_from_json(&tmp, obj, path, 0, NULL);
    json_decref(obj);
    if (s) return s;
    r->file = tmp.init_record.file;
    r->run = tmp.init_record.run;
    r->have = 1;
    return ORDO_OK;
}

ordo_status ordo_init_resolve(ordo_train_config *cfg) {
    ordo_status s = ordo_train_config_check(cfg);
    if (s) return s;
    memset(&cfg->init_record, 0, sizeof cfg->init_record);
    if (cfg->init && (s = init_record(cfg, cfg->init, &cfg->init_record)))
        return ordo_error_wrap(s, "--init %s", cfg->init);
    ordo_rope_config rc;
    if ((s = ordo_train_config_rope(cfg, &rc))) return s;
    if (rc.scaling == ORDO_ROPE_SCALING_NONE) return ORDO_OK;
    // written into the config: the run records the numbers it trains with
    long long from = cfg->init_record.context;
    if (!cfg->rope_orig_context) cfg->rope_orig_context = from > 0 ? from : cfg->context;
    if (!cfg->rope_factor) {
        cfg->rope_factor = (double)cfg->context / (double)cfg->rope_orig_context;
        if (cfg->rope_factor == 1)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-scaling %s with a factor of --context %lld / %lld (%s) = 1 "
                              "changes nothing; give --rope-factor, or --init from a run trained "
                              "at a shorter context",
                              cfg->rope_scaling, cfg->context, cfg->rope_orig_context,
                              from > 0 ? "the --init run's context" : "--rope-orig-context");
    }
    return ordo_train_config_check(cfg);
}

ordo_status ordo_init_load(const ordo_train_config *cfg, ordo_gpt *m) {
    ordo_init_record r = cfg->init_record;
    ordo_status s = r.have ? ORDO_OK : init_record(cfg, cfg->init, &r);
    if (s) return s;
    if (cfg->init_record.have) { // the file the run recorded, unchanged
        char now[65];
        if ((s = ordo_sha256_file(r.file, now))) return s;
        if (strcmp(now, r.sha256) != 0)
            return ordo_error(ORDO_ERR_ARG,
                              "%s changed since the run recorded it (sha256 %s, now %s); the "
                              "run would not start from the weights its config.json names",
                              r.file, r.sha256, now);
    }
    ordo_extend_pos how;
    int v;
    if ((s = ordo_names_parse(&ordo_extend_pos_names, cfg->extend_pos, &v))) return s;
    how = (ordo_extend_pos)v;
    int T0 = 0;
    if (m->wpe.table) { // the learned table: its length in the file
        ordo_safetensors *f;
        if ((s = ordo_safetensors_open(r.file, &f))) return s;
        const ordo_st_tensor *t = ordo_safetensors_find(f, "wpe.weight");
        if (t && t->ndim == 2 && t->shape[0] > 0 && t->shape[0] <= (1 << 20)) T0 = (int)t->shape[0];
        ordo_safetensors_close(f);
    }
    if (!T0 || T0 == m->cfg.T_max) return ordo_checkpoint_load_weights(r.file, m);
    // another length: the file is read into a model of its own length, then fitted
    ordo_gpt src;
    ordo_gpt_config g = m->cfg;
    g.T_max = T0;
    g.rope = (ordo_rope_config){0};
    if ((s = ordo_gpt_init(&src, &g, 0))) return s;
    s = ordo_checkpoint_load_weights(r.file, &src);
    if (!s) ordo_init_fit(m, &src, how);
    ordo_gpt_free(&src);
    if (!s && ordo_dist_rank() == 0)
        fprintf(stderr, "ordo: --init %s: the learned table goes from %d to %d positions (%s)\n",
                r.file, T0, m->cfg.T_max,
                m->cfg.T_max < T0 ? "its first rows" : ordo_extend_pos_names.names[how]);
    return s;
}
