// A run's data (see rundata.h). The built-in corpora regenerate from their seed in well under a
// second, so nothing but the config is stored in a run directory; a data file is named by the
// config and recorded there by size and hash.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/dataset.h"
#include "sys/dist.h"
#include "sys/fileio.h"
#include "sys/hash.h"
#include "sys/strbuf.h"
#include "run/rundata.h"
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
    if ((s = ordo_pack_parse(cfg->pack, &o.pack))) return ordo_error_wrap(s, "--pack");
    if (o.pack == ORDO_PACK_NONE) o.example_len = (int)cfg->context; // one example per window
    if (task == ORDO_TASK_PASSKEY) { // text: the run's tokenizer, kept for encode and decode
        if ((s = ordo_tokenizer_parse_kind(cfg->tokenizer, &d->tok_kind))) return s;
        d->vocab = cfg->vocab ? ordo_xstrdup(cfg->vocab) : NULL;
        if ((s = ordo_tokenizer_load(d->tok_kind, cfg->vocab, &d->tok))) return s;
        o.tok = d->tok;
        o.digits = (int)cfg->passkey_digits;
        o.example_len = (int)cfg->context;
    }
    if (ordo_answers_task(task)) { // an example per window
        o.example_len = (int)cfg->context;
        o.mqar_pairs = (int)cfg->mqar_pairs;
        o.mqar_vocab = (int)cfg->mqar_vocab;
        o.mqar_power = cfg->mqar_power;
        o.ff_ignore = cfg->ff_ignore;
        o.sc_vocab = (int)cfg->sc_vocab;
        o.sc_tokens = (int)cfg->sc_tokens;
        o.count_vars = (int)cfg->count_vars;
    }
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
// The hash a token file of these ids carries in its header (data/tokfile.h): XXH3-64 of the
// ids little-endian, ordo_tokfile_width(vocab) bytes each.
static uint64_t ids_hash(const int32_t *ids, size_t n, int vocab) {
    int width = ordo_tokfile_width(vocab);
    ordo_hasher h;
    ordo_hasher_init(&h);
    unsigned char buf[4096];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)ids[i];
        for (int b = 0; b < width; b++) buf[k++] = (unsigned char)(v >> (8 * b));
        if (k + 4 > sizeof buf) ordo_hasher_update(&h, buf, k), k = 0;
    }
    ordo_hasher_update(&h, buf, k);
    return ordo_hasher_digest(&h);
}

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
    if (was->have_ids && now->have_ids && was->ids_hash == now->ids_hash) {
        // a text and the token file made from it, or two token files of one stream: the
        // same ids, so the same windows, batches and losses
        ordo_hash_hex(now->ids_hash, h1);
        if (rank0 && cfg->data_check != ORDO_DATA_WARN)
            fprintf(stderr,
                    "ordo: note: %s holds the same token ids as the data the run recorded "
                    "(ids hash %s; the file itself is %lld bytes, was %lld): the same data, "
                    "not a change\n",
                    path, h1, now->size, was->size);
        return ORDO_OK;
    }
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
    // a refusal before tokenizing is quick; only a record with the ids' hash needs the ids
    // to tell a text from its token file apart
    int same = !was || !was->have || (was->size == d->record.size && was->hash == d->record.hash);
    if ((same || !was->have_ids) && (s = check_record(d, cfg, path, was))) {
        free(text);
        return s;
    }
    s = ordo_tokenizer_encode(d->tok, text, len, 0, &d->tokens, &d->n);
    free(text);
    if (s) return ordo_error_wrap(s, "%s", path);
    d->vocab_size = ordo_tokenizer_vocab_size(d->tok);
    d->record.ids_hash = ids_hash(d->tokens, d->n, d->vocab_size);
    d->record.have_ids = 1;
    if (!same && was->have_ids) return check_record(d, cfg, path, was);
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
    d->record = (ordo_data_record){.have = 1,
                                   .size = (long long)d->file.file_bytes,
                                   .hash = h->hash,
                                   .have_ids = 1,
                                   .ids_hash = h->hash};
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

// Whether d's ids are a built-in corpus's words (order, copy, reverse), not a tokenizer's.
static int corpus_words(const ordo_rundata *d) {
    return d->is_corpus && d->corpus.words;
}

// The tokenizer of a token file's run, loaded when first needed (a prompt, ids to show).
static ordo_status need_tokenizer(ordo_rundata *d) {
    if (d->tok) return ORDO_OK;
    return ordo_tokenizer_load(d->tok_kind, d->vocab, &d->tok);
}

ordo_status ordo_rundata_encode(ordo_rundata *d, const char *text, int32_t **ids, size_t *n) {
    if (!corpus_words(d)) {
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
    int words = corpus_words(d);
    ordo_status s = words ? ORDO_OK : need_tokenizer(d);
    if (!s)
        s = words ? ordo_corpus_decode(&d->corpus, ids, n, text)
                  : ordo_tokenizer_decode(d->tok, ids, n, text, &k);
    if (!s && words) k = strlen(*text); // words: no NUL inside
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
