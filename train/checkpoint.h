// Checkpoints: one safetensors file per saved step, `ckpt-<step>.safetensors` in the run
// directory, holding the weights (Hugging Face GPT-2 names), the optimizer moments
// (`optim.m.<name>`, `optim.v.<name>`) and, in the metadata, the config and the training
// state (step, rng, dataloader position). Written atomically; the newest K are kept.
#ifndef ORDO_CHECKPOINT_H
#define ORDO_CHECKPOINT_H
#include <jansson.h>
#include <stdint.h>

#include "data/dataloader.h"
#include "framework/optim.h"
#include "framework/rng.h"
#include "framework/safetensors.h"
#include "models/gpt.h"

typedef struct ordo_train_state {
    int64_t step; // optimizer steps completed
    ordo_dataloader_state loader;
    ordo_rng rng;
    int64_t optim_t;
} ordo_train_state;

// Writes dir/ckpt-<step>.safetensors, then removes all but the newest `keep` checkpoints.
ordo_status ordo_checkpoint_save(const char *dir, const ordo_gpt *m, const ordo_optim *o,
                                 json_t *config, const ordo_train_state *st, int keep);
// Steps of the checkpoints in dir, newest first (*steps malloc'd; 0 of them is fine).
ordo_status ordo_checkpoint_list(const char *dir, int64_t **steps, int *n);
// dir/ckpt-<step>.safetensors into buf[cap] (ORDO_PATH_MAX). Errors: ordo_path's when it
// does not fit (buf is then "").
ordo_status ordo_checkpoint_path(char *buf, size_t cap, const char *dir, int64_t step);
// Opens a checkpoint and parses its metadata: the config (caller decrefs) and the state.
ordo_status ordo_checkpoint_open(const char *path, ordo_safetensors **f, json_t **config,
                                 ordo_train_state *st);
// Loads weights and (if o) moments from an opened checkpoint into a model built from its config.
ordo_status ordo_checkpoint_load(ordo_safetensors *f, ordo_gpt *m, ordo_optim *o);
// Removes temporary files (*.tmp.<pid>) that a killed writer left in dir (best effort: one
// whose path does not fit ORDO_PATH_MAX is left alone).
void ordo_checkpoint_clean_tmp(const char *dir);

#endif
