// A run's data (ordo_rundata), rebuilt from its config alone, so that train, eval, sample and
// resume all see the same tokens: a built-in corpus generated from its seed, a text file
// tokenized with byte or gpt2, or a token file (data/tokfile.h) mapped as it is; the token
// stream, the target stream (masked tokens = -1), the train/val split, the data file's record
// (size and hash, checked against the run's), and the means to turn a prompt into ids and ids
// back into text.
#ifndef ORDO_RUNDATA_H
#define ORDO_RUNDATA_H
#include <stdint.h>

#include "data/corpus.h"
#include "data/dataset.h"
#include "data/tokenizer.h"
#include "data/tokfile.h"
#include "run/config.h"

typedef struct ordo_rundata {
    int vocab_size;
    size_t n, n_train; // tokens in the stream; the validation split is [n_train..n)
    // The stream as int32 ids [n] (corpora, text files), or NULL for a token file, whose ids
    // stay in the mapping (file.ids); read windows with ordo_rundata_train_dataset and
    // ordo_rundata_ids, and the validation split through `val`.
    int32_t *tokens;
    int32_t *targets; // [n] or NULL: tokens[k] if counted as a target, else -1
    // The validation split as int32 ids [n - n_train] and its targets (or NULL), whatever the
    // source: into tokens, into a 32-bit mapping, or widened from a 16-bit one (val_own).
    const int32_t *val, *val_targets;
    int example_len; // copy/reverse: windows start on example boundaries (0 otherwise)
    int is_corpus;
    ordo_corpus corpus;
    ordo_tokenizer *tok; // text: loaded with the data; a token file: on first encode/decode
    ordo_tokfile file;   // a token file (file.ids NULL otherwise)
    int32_t *val_own;
    ordo_tokenizer_kind tok_kind; // for loading tok later
    char *vocab;                  // the --vocab dir of the config, or NULL
    ordo_data_record record;      // what the data file is now (have = 0 for a corpus)
    size_t nval;                  // ids in `val`: n - n_train, or the --val-data file's
    char *path, *rel;             // the data file as resolved: absolute, and from the run dir
    // --val-data (or eval --data): the file loaded whole, `val` its stream; its path and record
    struct ordo_rundata *valfile;
    char *val_path, *val_rel;
    ordo_data_record val_record;
} ordo_rundata;

// Generates or reads (text: tokenizes; a token file: maps and checks) the data of cfg, and
// compares the data file with cfg's record as cfg->data_check says: ORDO_DATA_REFUSE makes a
// changed file (size or hash) an ORDO_ERR_ARG naming the file and both sizes and hashes;
// ACCEPT and WARN print a note or warning on stderr (rank 0); a run without a record resumes
// with a note. Text files and token files must be regular files (a FIFO or /dev/zero is
// refused before anything is read). Errors name the file or option.
// Where the file is: a new run (ORDO_DATA_NEW) takes cfg->data from the working directory and
// d->path receives it absolute, d->rel relative to the run dir cfg->out; any other first
// tries cfg->data as it is, then the record's run_relative path and a relative cfg->data from
// the run dir (a note says which is used; none there is an error naming every path tried).
// With cfg->val_data the whole of that file (found and checked in the same way against
// cfg->val_record) is the validation set and all of the data trains (n_train = n).
ordo_status ordo_rundata_load(ordo_rundata *d, const ordo_train_config *cfg);
// The tokenizer of cfg's run only (a built-in corpus: generated, its words are the
// tokenizer): encode, decode and vocab_size work; no data file is opened, and there is no
// validation set (nval 0). For `ordo sample`, and eval --data.
ordo_status ordo_rundata_load_tokenizer(ordo_rundata *d, const ordo_train_config *cfg);
// Makes the whole text or token file at path d's validation set (`ordo eval --data`),
// tokenized with d's tokenizer; d->val_record receives its size and hash. ORDO_ERR_ARG for a
// corpus run (its words are no text tokenizer); the loader's errors naming the file.
ordo_status ordo_rundata_use_eval_file(ordo_rundata *d, const ordo_train_config *cfg,
                                       const char *path);
// The training split [0..n_train) as a dataset of windows of T with this stride, with the
// targets of a corpus that masks some. Errors: ordo_dataset_init's.
ordo_status ordo_rundata_train_dataset(const ordo_rundata *d, int T, int stride, ordo_dataset *ds);
// Copies ids [off, off + n) of the stream (within 0..d->n) into out[n] as int32.
void ordo_rundata_ids(const ordo_rundata *d, size_t off, size_t n, int32_t *out);
// Text to ids (corpus: space-separated words; files: the tokenizer). *ids malloc'd.
ordo_status ordo_rundata_encode(ordo_rundata *d, const char *text, int32_t **ids, size_t *n);
// Ids to text (malloc'd, NUL-terminated) of *len bytes (len may be NULL). The text may hold
// NUL bytes of its own (the byte tokenizer decodes id 0 to one): write it with its length.
ordo_status ordo_rundata_decode(ordo_rundata *d, const int32_t *ids, size_t n, char **text,
                                size_t *len);
void ordo_rundata_free(ordo_rundata *d);

#endif
