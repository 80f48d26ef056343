// Starting a new run from another run's weights, possibly at a longer context
// (`ordo train --init`); the table growth itself is ordo_extend_table (models/positional.h).
#ifndef ORDO_INIT_H
#define ORDO_INIT_H
#include "models/gpt.h"
#include "run/config.h"

// Resolves what a new run of cfg starts from, before it is checked and built: `--init SRC`,
// SRC a run directory (its newest checkpoint that opens intact; those passed over are warned
// about) or a safetensors file (an ordo checkpoint, ordo_gpt_save's file, Hugging Face GPT-2
// names). Records in cfg->init_record the file, its run and step when it has them, the
// context it was trained at and its SHA-256. Every shape setting the file's metadata names
// (--d-model, --layers, --heads) and --pos must equal cfg's: ORDO_ERR_ARG naming the option
// and both values otherwise (--context may differ). Then the RoPE scaling: rope-orig-context
// 0 becomes the source's context (with a scaling), rope-factor 0 the ratio of the contexts;
// a scaling whose factor comes out 1 is ORDO_ERR_ARG (it would change nothing). Without
// --init only the scaling is resolved. Errors name --init and the file.
ordo_status ordo_init_resolve(ordo_train_config *cfg);

// Loads cfg's --init weights into m (built from cfg; ordo_checkpoint_load_weights' checks).
// A learned table of another length is fitted to m's T_max as cfg->extend_pos says
// (ordo_extend_table); every other tensor must have m's shape (the message names it and both
// shapes). With an init record the file must still have the recorded SHA-256 (ORDO_ERR_ARG
// naming both otherwise); without one (an older run's config) --init is resolved again.
ordo_status ordo_init_load(const ordo_train_config *cfg, ordo_gpt *m);

// Copies every parameter of src into m, two models of one config but for T_max: a learned
// table of another length is fitted to m's T_max as `how` says (ordo_extend_table; fresh
// rows keep m's own init). What ordo_init_load does once it has read the file.
void ordo_init_fit(ordo_gpt *m, const ordo_gpt *src, ordo_extend_pos how);

// The model that `ordo train --init RUN --context T --extend-pos how --seed <the run's>`
// starts from, made from src (a learned-scheme model of run cfg) into *dst: built from cfg at
// context T with cfg->seed (so fresh rows are the ones that run's init draws), then
// ordo_init_fit, at src's precision. ORDO_ERR_ARG for a scheme without a learned table.
// For `ordo eval --extend-pos`; free dst with ordo_gpt_free.
ordo_status ordo_extend_model(const ordo_train_config *cfg, const ordo_gpt *src, int T,
                              ordo_extend_pos how, ordo_gpt *dst);

#endif
