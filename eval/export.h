// Export of an ordo checkpoint as a Hugging Face GPT-2 folder (GPT2LMHeadModel): config.json,
// model.safetensors with the `transformer.` names and, for gpt2-tokenizer runs, vocab.json and
// merges.txt. Only the schemes that GPT-2's own forward computes are exported: learned (its
// wpe table) and none (a wpe table of zeros, which adds nothing: exactly NoPE); the others
// are refused with the reason. docs/checkpoints.md describes the layouts.
#ifndef ORDO_EXPORT_H
#define ORDO_EXPORT_H
#include <stdint.h>

#include "sys/error.h"
#include "sys/fileio.h"

typedef struct ordo_export_info {
    char checkpoint[ORDO_PATH_MAX]; // the checkpoint exported
    int64_t step;                   // its step
    const char *pos;                // its position scheme ("learned" or "none")
    int n_positions;                // rows of the exported wpe table
    int tokenizer_files;            // 1: vocab.json and merges.txt were written
} ordo_export_info;

// Writes the Hugging Face GPT-2 folder `dir` (created with its parents if missing; files of
// the same names in it are replaced, each atomically) from `src`: a checkpoint file, or a run
// directory, whose newest usable checkpoint is taken (one that does not open, is not intact
// or does not load is skipped with an `ordo: warning: skipping` line). n_positions is the
// length of the wpe table: 0 means the training context; a none run may take any length
// (zeros), a learned run only its own. gpt2 runs get the tokenizer files from the run's vocab
// dir (or the default); when they cannot be read that is a warning, not an error. Errors: a
// scheme or embedding scale GPT-2 cannot compute (ORDO_ERR_ARG naming it and why), a bad
// n_positions, no usable checkpoint, and write errors naming the file. The config strings read
// from the checkpoint live until ordo_config_strings_free (run/config.h): call it after.
ordo_status ordo_export_hf(const char *src, const char *dir, int n_positions,
                           ordo_export_info *info);

#endif
