// Checkpoints: one safetensors file per saved step, `ckpt-<step>.safetensors` in the run
// directory, holding the weights (Hugging Face GPT-2 names), the optimizer moments
// (`optim.m.<name>`, `optim.v.<name>`) and, in the metadata, the config and the training
// state (step, rng, dataloader position). Written atomically; the newest K are kept.
// Integrity: the metadata also holds ORDO_ST_HASH_KEY ("ordo_data_xxh3"), XXH3-64 of the whole
// data section (every byte after the header, in file order: all tensors, weights and moments),
// and ORDO_ST_HEADER_HASH_KEY ("ordo_header_xxh3"), XXH3-64 of the length word and header
// (framework/safetensors.h), both checked whenever a checkpoint is opened (an older ordo's
// without the header one loads with a note); the step in the metadata must match the file name;
// and loaded weights and moments must be finite. A checkpoint failing any of these is refused
// with a message saying which, so that callers can fall back to an older one.
#ifndef ORDO_CHECKPOINT_H
#define ORDO_CHECKPOINT_H
#include <jansson.h>
#include <stdint.h>

#include "data/dataloader.h"
#include "framework/optim.h"
#include "framework/rng.h"
#include "framework/safetensors.h"
#include "sys/strbuf.h"
#include "models/gpt.h"

typedef struct ordo_train_state {
    int64_t step; // optimizer steps completed
    ordo_dataloader_state loader;
    ordo_rng rng;
    int64_t optim_t;
    // 1 for the checkpoint at the end of an invocation's --steps: a result, which pruning
    // (--keep) never removes. Metadata "milestone": "1"; absent (0) on the others.
    int milestone;
} ordo_train_state;

// Writes dir/ckpt-<step>.safetensors, then removes all but the newest `keep` checkpoints and
// the milestones (ordo_train_state.milestone; a checkpoint whose header does not read is
// removed like any other past the newest `keep`).
ordo_status ordo_checkpoint_save(const char *dir, const ordo_gpt *m, const ordo_optim *o,
                                 json_t *config, const ordo_train_state *st, int keep);
// Steps of the checkpoints in dir, newest first (*steps malloc'd; 0 of them is fine).
ordo_status ordo_checkpoint_list(const char *dir, int64_t **steps, int *n);
// Whether dir/ckpt-<step>.safetensors is a milestone (its metadata says so); 0 when it does
// not open. Reads the header only.
int ordo_checkpoint_is_milestone(const char *dir, int64_t step);
// The steps as "20, 10 (milestone), 5" into out (newest first, as listed), or "none".
void ordo_checkpoint_steps_text(const char *dir, const int64_t *steps, int n, ordo_strbuf *out);
// dir/ckpt-<step>.safetensors into buf[cap] (ORDO_PATH_MAX). Errors: ordo_path's when it
// does not fit (buf is then "").
ordo_status ordo_checkpoint_path(char *buf, size_t cap, const char *dir, int64_t step);
// Opens a checkpoint, parses its metadata (the config, which the caller decrefs, and the state)
// and checks that it is intact: the header and the data against their checksums, the step
// against a file name of the form ckpt-<step>.safetensors. A file without a checksum (an
// older ordo's) opens with a note on stderr, printed once per path; so does one with a data
// checksum but no header checksum, unless a metadata key is none that ordo writes (then
// ORDO_ERR_FORMAT: damaged). Errors: ORDO_ERR_IO, or ORDO_ERR_FORMAT naming the file and what
// is wrong (*f and *config are then NULL).
ordo_status ordo_checkpoint_open(const char *path, ordo_safetensors **f, json_t **config,
                                 ordo_train_state *st);
// Loads weights and (if o) moments from an opened checkpoint into a model built from its
// config. ORDO_ERR_NUMERIC, naming the tensor, when one holds a NaN or an infinity; the model
// and optimizer are then partly overwritten (load another checkpoint over them, or free them).
ordo_status ordo_checkpoint_load(ordo_safetensors *f, ordo_gpt *m, ordo_optim *o);
// Loads the weights of any safetensors file with the model's tensor names into m (`train
// --init`): an ordo checkpoint, an exported model or a Hugging Face GPT-2 file, its names bare
// (`wte.weight`) or under `transformer.` as `ordo export` writes them (ordo_checkpoint_find_
// weight); a file with neither is ORDO_ERR_FORMAT listing some of its names. Checked as
// ordo_checkpoint_open and ordo_checkpoint_load check (the checksum when the file has one, with
// the same note when not; the step against a ckpt-<step> name; finite weights).
ordo_status ordo_checkpoint_load_weights(const char *path, ordo_gpt *m);
// Model tensor `name` ("wpe.weight") in a file that ordo_checkpoint_load_weights reads: under
// that name, or "transformer.<name>" in a file named as `ordo export` writes (lm_head.weight
// is never prefixed); NULL when absent.
const ordo_st_tensor *ordo_checkpoint_find_weight(const ordo_safetensors *f, const char *name);
// Removes temporary files (*.tmp.<pid>) that a killed writer left in dir: only those whose
// process is gone (ordo_remove_dead_tmp), so that a live `eval --save` beside a resume keeps
// its own (best effort: one whose path does not fit ORDO_PATH_MAX is left alone).
void ordo_checkpoint_clean_tmp(const char *dir);

#endif
