// `ordo export RUN_DIR|CKPT --hf DIR`: a run's newest usable checkpoint (or the checkpoint
// given) as a Hugging Face GPT-2 folder (eval/export.h), for transformers' GPT2LMHeadModel
// and every tool that reads that layout.
#include <stdio.h>
#include <stdlib.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "run/config.h"
#include "eval/export.h"

static const char *SYNOPSIS =
    "RUN_DIR|CKPT --hf DIR [options]\n\n"
    "Writes DIR as a Hugging Face GPT-2 model folder: config.json (GPT2Config),\n"
    "model.safetensors (the weights as transformer.<name>, float32) and, for runs on the gpt2\n"
    "tokenizer, vocab.json and merges.txt. Then, in Python:\n"
    "  GPT2LMHeadModel.from_pretrained(DIR)\n"
    "computes the logits ordo computes (float32; a bf16 run's float32 weights are exported).\n"
    "From RUN_DIR the newest usable checkpoint is taken. Only --pos learned and none are\n"
    "exported (none as a table of zeros, which adds nothing: exactly no positions); rope,\n"
    "alibi, t5 and sinusoidal are refused with the reason. DIR is replaced whole (written\n"
    "beside it, then swapped in): it must be new, empty or an earlier export. docs/checkpoints.md\n"
    "has the details.";

ordo_status ordo_cmd_export(int argc, char **argv) {
    const char *hf = NULL;
    long long n_positions = 0;
    ordo_opt opts[] = {
        {"hf", ORDO_OPT_STRING, &hf, "the Hugging Face folder to write (created if missing)", 0},
        {"n-positions", ORDO_OPT_INT, &n_positions,
         "rows of wpe (0 = the training context; --pos none: any length)", .min = 0,
         .max = 1 << 20},
        {0},
    };
    const char **pos;
    int npos, help;
    ordo_status s = ordo_args_command("export", SYNOPSIS, opts, argc, argv, &pos, &npos, &help);
    if (!s && help) goto done;
    if (!s) s = ordo_args_one_run(npos, NULL);
    if (!s && !hf)
        s = ordo_error(ORDO_ERR_ARG, "--hf DIR is required (the folder to write; see 'ordo export "
                                     "--help')");
    ordo_export_info info;
    if (!s) s = ordo_export_hf(pos[0], hf, (int)n_positions, &info);
    if (!s) {
        printf("exported %s (step %lld, pos %s) to %s: config.json, model.safetensors%s\n",
               info.checkpoint, (long long)info.step, info.pos, hf,
               info.tokenizer_files ? ", vocab.json, merges.txt" : "");
        printf("wpe: %d positions%s\n", info.n_positions,
               info.n_positions && info.pos[0] == 'n' ? " of zeros (no position signal)" : "");
    }
done:
    free(pos);
    ordo_config_strings_free();
    return s;
}
