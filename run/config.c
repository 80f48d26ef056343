// The configuration table (see config.h): defaults, the option table, the checks, and what
// a config gives the model (run/config_json.c reads and writes it as JSON).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/config.h"
#include "data/corpus.h"
#include "data/count.h"
#include "data/mqar.h"
#include "data/selcopy.h"
#include "data/passkey.h"
#include "data/tokenizer.h"
#include "sys/memlimit.h"
#include "framework/dnnl.h"
#include "sys/error.h"
#include "framework/lmhead.h"
#include "framework/optim.h"
#include "models/positional.h"

// The optimizer's and the built-in corpus's defaults are their layers' own (framework/optim.c,
// data/corpus.c), which library users get without a config; the rest belong to the run.
void ordo_train_config_defaults(ordo_train_config *c) {
    ordo_optim_config oc;
    ordo_optim_defaults(&oc);
    ordo_corpus_opts co;
    ordo_corpus_default_opts(ORDO_TASK_ORDER, &co);
    memset(c, 0, sizeof *c);
    c->task = ordo_task_name(ORDO_TASK_ORDER);
    c->tokenizer = ordo_tokenizer_kind_name(ORDO_TOK_GPT2);
    c->corpus_tokens = (long long)co.n_tokens;
    c->data_seed = (long long)co.seed;
    c->min_len = co.min_len;
    c->max_len = co.max_len;
    c->passkey_digits = co.digits;
    c->mqar_pairs = co.mqar_pairs;
    c->mqar_vocab = co.mqar_vocab;
    c->mqar_power = co.mqar_power;
    c->ff_ignore = co.ff_ignore;
    c->pack = ordo_pack_names.names[co.pack];
    c->sc_vocab = co.sc_vocab;
    c->sc_tokens = co.sc_tokens;
    c->count_vars = co.count_vars;
    c->pos = ordo_pos_name(ORDO_POS_LEARNED);
    c->context = 64;
    c->d_model = 64;
    c->layers = 2;
    c->heads = 4;
    c->embed_style = "gpt2";
    c->batch = 16;
    c->stride = 0; // = context
    c->shuffle = 1;
    c->drop_last = 1;
    c->val_frac = 0.1;
    c->optimizer = ordo_optim_kind_name(oc.kind);
    c->schedule = ordo_schedule_name(ORDO_SCHED_COSINE);
    c->lr = 1e-3;
    c->min_lr = 1e-4;
    c->beta1 = oc.beta1;
    c->beta2 = oc.beta2;
    c->eps = oc.eps;
    c->weight_decay = oc.weight_decay;
    c->no_decay_pos = !oc.decay_pos;
    c->momentum = oc.momentum;
    c->clip = 1.0;
    c->warmup = 20;
    c->steps = 1000;
    c->eval_every = 100;
    c->eval_batches = 20;
    c->ckpt_every = 200;
    c->keep = 3;
    c->log_every = 10;
    c->seed = 1;
    c->threads = 0;
    c->out = "runs/run";
    c->precision = ordo_precision_name(ORDO_PRECISION_FP32);
    c->attention = ordo_attn_impl_name(ORDO_ATTN_AUTO);
    c->resume_schedule = ordo_resume_sched_names.names[ORDO_RESUME_CONTINUE];
    // model options: no dropout, the tied head, one batch per step, as GPT-2 trains
    c->dropout = 0.0;
    c->dropout_embd = c->dropout_attn = c->dropout_resid = -1.0; // = --dropout
    c->untied_head = 0;
    c->grad_accum = 1;
    // RoPE scaling and context extension
    c->rope_scaling = ordo_rope_scaling_name(ORDO_ROPE_SCALING_NONE);
    c->rope_factor = 0;
    c->rope_orig_context = 0;
    c->yarn_alpha = ORDO_YARN_ALPHA;
    c->yarn_beta = ORDO_YARN_BETA;
    c->yarn_no_temperature = 0;
    c->extend_pos = "interpolate";
    // the position options: all dims, all heads, no scale
    c->rope_fraction = 1.0;
    c->rope_heads = 0;
    c->alibi_heads = 0;
    c->pos_scale = NULL;
    c->dpb_dim = ORDO_DPB_DIM;
    c->dpb_depth = ORDO_DPB_DEPTH;
    c->dpb_log_distance = 0;
    c->pos_random = 0;
    c->cope_max = 0;
    c->t5_max_distance = ORDO_T5_MAX_DISTANCE;
    c->fox_gate_bias = 0;
}

ORDO_NAMES_TABLE(ordo_resume_sched_names, "resume schedule", ORDO_RESUME_REPLAN + 1, "continue",
                 "replan-decay", "replan");

// The token-embedding conventions of --embed-style (ordo_train_config_embed gives their numbers).
enum { EMBED_GPT2, EMBED_VASWANI };
ORDO_NAMES_STATIC_TABLE(embed_styles, "embedding style", EMBED_VASWANI + 1, "gpt2", "vaswani");

// "<help>: a | b | c" for an option that names an enum value, the names from its layer's
// table. Static, written once: the text must outlive every copy of the option table (the CLI
// copies the entries and frees the table), and it never changes.
static const char *choice_help(char *buf, size_t cap, const char *help, const ordo_names *t) {
    if (!buf[0]) {
        int n = snprintf(buf, cap, "%s: ", help);
        if (n > 0 && (size_t)n < cap) ordo_names_join(t, " | ", " | ", buf + n, cap - (size_t)n);
    }
    return buf;
}

#define OPT(name, type, field, help)                                                               \
    { name, type, &c->field, help, 0 }
#define CHOICE(name, field, names, help, buf)                                                      \
    { name, ORDO_OPT_STRING, &c->field, choice_help(buf, sizeof buf, help, &names), 0 }
ordo_opt *ordo_train_config_options(ordo_train_config *c) {
    static char help[10][256];
    ordo_opt table[] = {
        CHOICE("task", task, ordo_task_names, "built-in corpus when no --data", help[0]),
        OPT("data", ORDO_OPT_STRING, data,
            "train on this text file, or a token file made by 'ordo tokenize --out',\n"
            "                         instead of a built-in corpus"),
        CHOICE("tokenizer", tokenizer, ordo_tokenizer_kind_names,
               "tokenizer for --data (a token file names its own) and --task passkey", help[1]),
        OPT("vocab", ORDO_OPT_STRING, vocab,
            "gpt2 vocab dir (default: $ORDO_VOCAB_DIR, else .cache/gpt2)"),
        OPT("corpus-tokens", ORDO_OPT_INT, corpus_tokens,
            "size of the built-in corpus (--task), in tokens"),
        OPT("data-seed", ORDO_OPT_INT, data_seed, "seed of the built-in corpus"),
        OPT("min-len", ORDO_OPT_INT, min_len,
            "copy/reverse/add: shortest training sequence n (add: digits)"),
        OPT("max-len", ORDO_OPT_INT, max_len,
            "copy/reverse/add: longest training sequence n (add: digits)"),
        CHOICE("pack", pack, ordo_pack_names,
               "copy/reverse/add: examples back to back, or one per window at its start,\n"
               "                         padded to --context (Kazemnejad et al. 2023)",
               help[9]),
        OPT("passkey-digits", ORDO_OPT_INT, passkey_digits, "passkey: digits of the key"),
        OPT("mqar-pairs", ORDO_OPT_INT, mqar_pairs,
            "mqar: key-value pairs per example (its length is --context)"),
        OPT("mqar-vocab", ORDO_OPT_INT, mqar_vocab,
            "mqar: ids (keys below half, values above; Zoology's sweeps use 8192)"),
        OPT("mqar-power", ORDO_OPT_FLOAT, mqar_power,
            "mqar: a of the power law placing queries (1 = uniform)"),
        OPT("ff-ignore", ORDO_OPT_FLOAT, ff_ignore,
            "flipflop: probability p_i of an ignore instruction (its length is --context)"),
        OPT("sc-tokens", ORDO_OPT_INT, sc_tokens,
            "selective-copy: data tokens to copy, K (its length is --context; Mamba's 16)"),
        OPT("sc-vocab", ORDO_OPT_INT, sc_vocab,
            "selective-copy: ids (noise, data, marker; Mamba's 16)"),
        OPT("count-vars", ORDO_OPT_INT, count_vars,
            "count: variables (its length is --context; CoPE's table: 1, 3, 5)"),
        CHOICE("pos", pos, ordo_pos_names, "position scheme", help[2]),
        OPT("context", ORDO_OPT_INT, context, "training context length T (and T_max)"),
        OPT("d-model", ORDO_OPT_INT, d_model, "channels C"),
        OPT("layers", ORDO_OPT_INT, layers, "transformer blocks L"),
        OPT("heads", ORDO_OPT_INT, heads, "attention heads NH (must divide d-model)"),
        OPT("embed-style", ORDO_OPT_STRING, embed_style,
            "token embeddings: gpt2 (x1, init std 0.02) | vaswani (x sqrt(d-model),\n"
            "                         std d-model^-0.5, as Vaswani et al. and fairseq); a learned\n"
            "                         position table takes the token table's std and is not\n"
            "                         scaled, as in both"),
        OPT("embed-scale", ORDO_OPT_STRING, embed_scale,
            "multiply the token embeddings by S (a number, or sqrt = sqrt(d-model))\n"
            "                         before positions are added or applied; the tied LM head\n"
            "                         reads the table unscaled; none = the style's"),
        OPT("embed-std", ORDO_OPT_FLOAT, embed_std,
            "init std of the token and learned position tables (0 = the style's)"),
        OPT("batch", ORDO_OPT_INT, batch, "sequences per step B"),
        OPT("stride", ORDO_OPT_INT, stride, "sliding-window stride (0 = context)"),
        OPT("shuffle", ORDO_OPT_FLAG, shuffle, "shuffle windows each epoch"),
        OPT("drop-last", ORDO_OPT_FLAG, drop_last, "drop the last partial batch"),
        OPT("val-frac", ORDO_OPT_FLOAT, val_frac, "fraction of tokens held out for validation"),
        CHOICE("optimizer", optimizer, ordo_optim_kind_names, "optimizer", help[3]),
        OPT("lr", ORDO_OPT_FLOAT, lr, "peak learning rate"),
        OPT("min-lr", ORDO_OPT_FLOAT, min_lr, "learning rate at the end of the decay"),
        CHOICE("schedule", schedule, ordo_schedule_names, "learning rate after warmup", help[4]),
        OPT("warmup", ORDO_OPT_INT, warmup, "linear warmup steps"),
        OPT("beta1", ORDO_OPT_FLOAT, beta1, "AdamW beta1"),
        OPT("beta2", ORDO_OPT_FLOAT, beta2, "AdamW beta2"),
        OPT("eps", ORDO_OPT_FLOAT, eps, "AdamW epsilon"),
        OPT("weight-decay", ORDO_OPT_FLOAT, weight_decay,
            "decay of 2-D tensors (not biases, LayerNorm gains)"),
        OPT("no-decay-pos", ORDO_OPT_FLAG, no_decay_pos, "do not decay the position tables"),
        OPT("momentum", ORDO_OPT_FLOAT, momentum, "SGD momentum"),
        OPT("clip", ORDO_OPT_FLOAT, clip, "clip gradients to this global norm (0 = off)"),
        OPT("steps", ORDO_OPT_INT, steps, "optimizer steps in total"),
        OPT("eval-every", ORDO_OPT_INT, eval_every,
            "evaluate val loss every N steps (0 = end only)"),
        OPT("eval-batches", ORDO_OPT_INT, eval_batches, "val batches per evaluation (0 = all)"),
        OPT("ckpt-every", ORDO_OPT_INT, ckpt_every, "checkpoint every N steps (and at the end)"),
        OPT("keep", ORDO_OPT_INT, keep, "checkpoints kept (the newest K)"),
        OPT("log-every", ORDO_OPT_INT, log_every, "write a metrics line every N steps"),
        OPT("seed", ORDO_OPT_INT, seed, "seed of the weights and the shuffle"),
        OPT("threads", ORDO_OPT_INT, threads, "threads for BLAS and OpenMP (0 = all cores)"),
        CHOICE("precision", precision, ordo_precision_names,
               "matmul operands (bf16: float32 sums and weights, needs AVX512-BF16 or AMX)",
               help[5]),
        CHOICE("attention", attention, ordo_attn_impl_names,
               "how the scores are computed (the same model to rounding; auto:\n"
               "                         materialized at short T, where it is faster)",
               help[8]),
        OPT("init", ORDO_OPT_STRING, init, "start from these weights (.safetensors, same names)"),
        OPT("out", ORDO_OPT_STRING, out, "run directory"),
        // runs that stand on their own; resume says what it does
        OPT("val-data", ORDO_OPT_STRING, val_data,
            "validate on this whole text or token file instead of a --val-frac split\n"
            "                         of --data (all of --data then trains)"),
        OPT("resume-schedule", ORDO_OPT_STRING, resume_schedule,
            "the lr curve on --resume with another --steps: continue (the old curve,\n"
            "                         then min-lr) | replan-decay (from the current lr to min-lr\n"
            "                         over the new steps) | replan (a new run's: the lr jumps)"),
        // model options
        OPT("dropout", ORDO_OPT_FLOAT, dropout,
            "dropout in training after the input embeddings, on attention probabilities\n"
            "                         and on residual outputs (GPT-2's three places); eval never\n"
            "                         drops"),
        OPT("dropout-embd", ORDO_OPT_FLOAT, dropout_embd,
            "dropout after the input embeddings (-1 = --dropout)"),
        OPT("dropout-attn", ORDO_OPT_FLOAT, dropout_attn,
            "dropout on the attention probabilities (-1 = --dropout)"),
        OPT("dropout-resid", ORDO_OPT_FLOAT, dropout_resid,
            "dropout on each residual branch's output (-1 = --dropout)"),
        OPT("untied-head", ORDO_OPT_FLAG, untied_head,
            "a separate LM head lm_head.weight [V, C] (init N(0, 0.02), decayed)\n"
            "                         instead of the token table (tied, as GPT-2)"),
        OPT("grad-accum", ORDO_OPT_INT, grad_accum,
            "micro-batches of --batch rows per optimizer step: the step of a batch\n"
            "                         of batch x grad-accum rows, in --batch-sized pieces of "
            "memory"),
        // RoPE scaling and context extension
        CHOICE("rope-scaling", rope_scaling, ordo_rope_scaling_names,
               "rope: scale the rotation for a longer context", help[6]),
        OPT("rope-factor", ORDO_OPT_FLOAT, rope_factor,
            "the scaling's factor s (0 = context / rope-orig-context)"),
        OPT("rope-orig-context", ORDO_OPT_INT, rope_orig_context,
            "the context the rope weights were trained at (yarn's original length;\n"
            "                         0 = the --init run's with a scaling, else --context)"),
        OPT("yarn-alpha", ORDO_OPT_FLOAT, yarn_alpha,
            "yarn: its ramp's slow end, beta_slow: pairs that turn fewer times\n"
            "                         than this within the original context are interpolated"),
        OPT("yarn-beta", ORDO_OPT_FLOAT, yarn_beta,
            "yarn: its ramp's fast end, beta_fast: pairs that turn more times keep\n"
            "                         their frequency (the paper's 1 and 32 were fitted to LLaMA)"),
        OPT("yarn-no-temperature", ORDO_OPT_FLAG, yarn_no_temperature,
            "yarn: without its temperature (q and k times 0.1 ln s + 1)"),
        CHOICE("extend-pos", extend_pos, ordo_extend_pos_names,
               "--init to a longer --context: grow a learned table by", help[7]),
        // positions on part of a head, on some heads, scaled
        OPT("rope-fraction", ORDO_OPT_FLOAT, rope_fraction,
            "rope: rotate the first 2*round(f*hs/2) dims of each head, 0 < f <= 1\n"
            "                         (GPT-NeoX's rotary_pct); the rest carry no position"),
        OPT("rope-heads", ORDO_OPT_INT, rope_heads,
            "rope: rotate only the first K heads, the rest without positions (0 = all)"),
        OPT("alibi-heads", ORDO_OPT_INT, alibi_heads,
            "alibi: bias only the first K heads, with the slopes of K heads, the rest\n"
            "                         without positions (x-transformers' alibi_num_heads; 0 = "
            "all)"),
        OPT("pos-scale", ORDO_OPT_STRING, pos_scale,
            "learned, sinusoidal: x = tokens + s * positions, s fixed:X or learned[:INIT]\n"
            "                         (the parameter wpe.scale, init d-model^-0.5, not decayed)"),
        // dynamic position bias
        OPT("dpb-dim", ORDO_OPT_INT, dpb_dim,
            "dpb: the hidden width of the bias MLP (x-transformers' dim; 1..1024)"),
        OPT("dpb-depth", ORDO_OPT_INT, dpb_depth,
            "dpb: its hidden layers, Linear + SiLU each (1..8), then Linear to the heads"),
        OPT("dpb-log-distance", ORDO_OPT_FLAG, dpb_log_distance,
            "dpb: the MLP reads log(d + 1) of the distance d instead of d"),
        // contextual positions
        OPT("cope-max", ORDO_OPT_INT, cope_max,
            "cope: P, its positions 0..P-1 (counts clamped at P-1; 1..65536)\n"
            "                         (default: --context + 1, none clamped at the training "
            "length)"),
        OPT("t5-max-distance", ORDO_OPT_INT, t5_max_distance,
            "t5: the distance its log-spaced buckets end at; every longer distance\n"
            "                         shares the last bucket (HF's\n"
            "                         relative_attention_max_distance; 17..1048576)"),
        // forgetting attention
        OPT("fox-gate-bias", ORDO_OPT_FLOAT, fox_gate_bias,
            "fox: the forget gates' initial bias b, so f = sigmoid(b) at init\n"
            "                         (the paper's code: 0, f = 1/2; 5: f = 0.993; -30..30)"),
        OPT("pos-random", ORDO_OPT_INT, pos_random,
            "train at a sorted random subset of --context positions of [0, N) per\n"
            "                         sequence, eval at 0..T-1 (Ruoss et al. 2023; learned:\n"
            "                         a table of N; relative schemes: their differences;\n"
            "                         not none, fox or cope; 0 = off)"),
        {0},
    };
    ordo_opt *t = ordo_xmalloc(sizeof table);
    memcpy(t, table, sizeof table);
    return t;
}
#undef OPT
#undef CHOICE

int ordo_config_resumable(const char *key) {
    static const char *const ok[] = {"steps", "eval-every", "eval-batches", "ckpt-every", "keep",
                                     "log-every", "threads", "out", "vocab", "init", "data",
                                     // runs that stand on their own; resume says what it does
                                     "val-data", "resume-schedule",
                                     // only read when a run starts from --init
                                     "extend-pos",
                                     // how, not what (the same model to rounding)
                                     "attention", NULL};
    for (int i = 0; ok[i]; i++)
        if (strcmp(ok[i], key) == 0) return 1;
    return 0;
}

static ordo_status range_i(const char *name, long long v, long long lo, long long hi) {
    if (v < lo || v > hi)
        return ordo_error(ORDO_ERR_ARG, "--%s is %lld, expected %lld..%lld", name, v, lo, hi);
    return ORDO_OK;
}

// The names of the run's enum options, each parsed by its own layer (whose message names
// the value and lists the choices), with the option added in front.
static ordo_status check_names(const ordo_train_config *c) {
    ordo_task task;
    ordo_tokenizer_kind tok;
    ordo_pos pos;
    ordo_optim_kind kind;
    ordo_schedule sched;
    ordo_precision prec;
    ordo_status s;
    if ((s = ordo_task_parse(c->task, &task))) return ordo_error_wrap(s, "--task");
    ordo_pack pack;
    if ((s = ordo_pack_parse(c->pack, &pack))) return ordo_error_wrap(s, "--pack");
    if (pack == ORDO_PACK_NONE && (c->data || task == ORDO_TASK_ORDER))
        return ordo_error(ORDO_ERR_ARG,
                          "--pack none puts one example in each window: it applies to the tasks "
                          "made of examples, not to %s",
                          c->data ? "--data" : "--task order");
    if ((s = ordo_tokenizer_parse_kind(c->tokenizer, &tok)))
        return ordo_error_wrap(s, "--tokenizer");
    if ((s = ordo_pos_parse(c->pos, &pos))) return ordo_error_wrap(s, "--pos");
    if ((s = ordo_optim_parse_kind(c->optimizer, &kind))) return ordo_error_wrap(s, "--optimizer");
    if ((s = ordo_schedule_parse(c->schedule, &sched))) return ordo_error_wrap(s, "--schedule");
    if ((s = ordo_precision_parse(c->precision, &prec))) return ordo_error_wrap(s, "--precision");
    ordo_attn_impl attn;
    if ((s = ordo_attn_impl_parse(c->attention, &attn))) return ordo_error_wrap(s, "--attention");
    int rsched;
    if ((s = ordo_names_parse(&ordo_resume_sched_names, c->resume_schedule, &rsched)))
        return ordo_error_wrap(s, "--resume-schedule");
    ordo_rope_scaling rs;
    int ext;
    if ((s = ordo_rope_scaling_parse(c->rope_scaling, &rs)))
        return ordo_error_wrap(s, "--rope-scaling");
    if ((s = ordo_names_parse(&ordo_extend_pos_names, c->extend_pos, &ext))) return s;
    // refused here, before a run directory exists, also on --resume on another machine
    if (prec == ORDO_PRECISION_BF16 && (s = ordo_dnnl_bf16_check()))
        return ordo_error_wrap(s, "--precision bf16");
    return ORDO_OK;
}

// The vocabulary is not known before the data is read: its upper bound for the tokenizer
// (the built-in corpora have fewer than 256 words but mqar, whose --mqar-vocab it is; passkey is
// text in the run's tokenizer).
static int vocab_bound(const ordo_train_config *c) {
    int task = ordo_names_find(&ordo_task_names, c->task);
    if (!c->data && task == ORDO_TASK_MQAR) return (int)c->mqar_vocab;
    if (!c->data && task == ORDO_TASK_SELECTIVE_COPY) return (int)c->sc_vocab;
    int text = c->data || task == ORDO_TASK_PASSKEY;
    int gpt2 = text && ordo_names_find(&ordo_tokenizer_kind_names, c->tokenizer) == ORDO_TOK_GPT2;
    return gpt2 ? ORDO_GPT2_VOCAB_SIZE : 256;
}

// --pos-random N: N distinct positions are needed for a window of --context; a learned table
// then has N rows (T_max = N), every other scheme keeps T_max = --context. The model's check
// refuses the schemes that cannot take drawn positions.
static ordo_status random_model(const ordo_train_config *c, ordo_gpt_config *g) {
    if (c->pos_random == 0) return ORDO_OK;
    if (c->pos_random < 0 || c->pos_random > (1 << 20))
        return ordo_error(ORDO_ERR_ARG, "--pos-random is %lld, expected --context..%d (0 = off)",
                          c->pos_random, 1 << 20);
    if (c->pos_random < c->context)
        return ordo_error(ORDO_ERR_ARG,
                          "--pos-random %lld is below --context %lld: each training sequence "
                          "takes %lld distinct positions of [0, %lld)",
                          c->pos_random, c->context, c->context, c->pos_random);
    g->pos_random = (int)c->pos_random;
    if (g->pos == ORDO_POS_LEARNED) g->T_max = g->pos_random;
    return ORDO_OK;
}

ordo_status ordo_train_config_model(const ordo_train_config *c, int V, ordo_gpt_config *g) {
    memset(g, 0, sizeof *g);
    g->V = V;
    g->C = (int)c->d_model;
    g->L = (int)c->layers;
    g->NH = (int)c->heads;
    g->T_max = (int)c->context;
    g->ln_eps = 1e-5f; // GPT-2's
    ordo_status s = ordo_pos_parse(c->pos, &g->pos);
    if (s) return ordo_error_wrap(s, "--pos");
    double scale, std;
    if ((s = ordo_train_config_embed(c, &scale, &std))) return s;
    g->embed_scale = (float)scale;
    g->embed_std = std;
    // model options: a per-place rate below 0 is --dropout's
    g->dropout_embd = (float)(c->dropout_embd < 0 ? c->dropout : c->dropout_embd);
    g->dropout_attn = (float)(c->dropout_attn < 0 ? c->dropout : c->dropout_attn);
    g->dropout_resid = (float)(c->dropout_resid < 0 ? c->dropout : c->dropout_resid);
    g->untied_head = c->untied_head != 0;
    // partial rotary: a given 0 is refused here (the model reads 0 as 1, "not set")
    if (!(c->rope_fraction > 0 && c->rope_fraction <= 1))
        return ordo_error(ORDO_ERR_ARG,
                          "--rope-fraction is %g, expected 0 < f <= 1 (the fraction of each "
                          "head's dims that rope rotates)",
                          c->rope_fraction);
    g->rope_fraction = c->rope_fraction;
    if (c->rope_heads < 0 || c->rope_heads > 256 || c->alibi_heads < 0 || c->alibi_heads > 256)
        return ordo_error(ORDO_ERR_ARG, "--%s is %lld, expected 1..--heads %lld (0 = all)",
                          c->rope_heads < 0 || c->rope_heads > 256 ? "rope-heads" : "alibi-heads",
                          c->rope_heads < 0 || c->rope_heads > 256 ? c->rope_heads : c->alibi_heads,
                          c->heads);
    g->rope_heads = (int)c->rope_heads;
    g->alibi_heads = (int)c->alibi_heads;
    if ((s = ordo_pos_scale_parse(c->pos_scale, &g->pos_scale))) return s;
    // the model reads 0 as the default: a given 0 is refused here
    if ((s = range_i("dpb-dim", c->dpb_dim, 1, ORDO_DPB_MAX_DIM))) return s;
    if ((s = range_i("dpb-depth", c->dpb_depth, 1, ORDO_DPB_MAX_DEPTH))) return s;
    g->dpb_dim = (int)c->dpb_dim;
    g->dpb_depth = (int)c->dpb_depth;
    g->dpb_log_distance = c->dpb_log_distance != 0;
    // 0 is the default (--context + 1); the CLI refuses a given 0 (cmd_train)
    // one position: every count interpolates to the same embedding, no position signal
    if (c->cope_max && (s = range_i("cope-max", c->cope_max, 2, ORDO_COPE_MAX_LIMIT))) return s;
    g->cope_max = (int)c->cope_max;
    if ((s = range_i("t5-max-distance", c->t5_max_distance, ORDO_T5_BUCKETS / 2 + 1,
                     ORDO_T5_MAX_DISTANCE_LIMIT)))
        return s;
    g->t5_max_distance = (int)c->t5_max_distance;
    g->fox_gate_bias = c->fox_gate_bias;
    if ((s = random_model(c, g))) return s;
    return ordo_train_config_rope(c, &g->rope);
}

ordo_status ordo_train_config_rope(const ordo_train_config *c, ordo_rope_config *rc) {
    memset(rc, 0, sizeof *rc);
    ordo_status s = ordo_rope_scaling_parse(c->rope_scaling, &rc->scaling);
    if (s) return ordo_error_wrap(s, "--rope-scaling");
    if (c->rope_orig_context < 0 || c->rope_orig_context > (1 << 20))
        return ordo_error(ORDO_ERR_ARG, "--rope-orig-context is %lld, expected 0..%d",
                          c->rope_orig_context, 1 << 20);
    long long orig = c->rope_orig_context ? c->rope_orig_context : c->context;
    rc->orig_T = (int)orig;
    // the paper's values are the model's zeros (so that they pass with any scaling); the
    // model's check refuses others without yarn (ordo_rope_config_check)
    rc->yarn_alpha = c->yarn_alpha == ORDO_YARN_ALPHA ? 0 : c->yarn_alpha;
    rc->yarn_beta = c->yarn_beta == ORDO_YARN_BETA ? 0 : c->yarn_beta;
    rc->yarn_no_temperature = c->yarn_no_temperature != 0;
    if (rc->scaling == ORDO_ROPE_SCALING_NONE) {
        if (c->rope_factor != 0 && c->rope_factor != 1)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-factor %g has no effect without --rope-scaling (pi, ntk "
                              "or yarn)",
                              c->rope_factor);
        rc->factor = 1;
        return ORDO_OK;
    }
    rc->factor = c->rope_factor;
    if (c->rope_factor == 0 && ordo_rope_scaling_by_length(rc->scaling)) {
        rc->factor = 1; // dynamic-ntk: the length sets the scale, the factor is HF's 1
    } else if (c->rope_factor == 0) { // the usual choice: the ratio of the contexts
        rc->factor = (double)c->context / (double)(orig > 0 ? orig : 1);
        if (rc->factor < 1)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-factor 0 takes --context %lld / --rope-orig-context %lld "
                              "= %g, expected >= 1 (give --rope-factor)",
                              c->context, orig, rc->factor);
    }
    return ORDO_OK;
}

ordo_status ordo_train_config_embed(const ordo_train_config *c, double *scale, double *std) {
    int style;
    ordo_status s = ordo_names_parse(&embed_styles, c->embed_style, &style);
    if (s) return ordo_error_wrap(s, "--embed-style");
    int vaswani = style == EMBED_VASWANI;
    double C = c->d_model > 0 ? (double)c->d_model : 1;
    *scale = vaswani ? sqrt(C) : 1.0;
    *std = vaswani ? 1.0 / sqrt(C) : 0.02;
    if (c->embed_scale && strcmp(c->embed_scale, "sqrt") == 0)
        *scale = sqrt(C);
    else if (c->embed_scale) {
        char *end;
        double v = strtod(c->embed_scale, &end);
        if (!*c->embed_scale || *end || !(v > 0 && v <= 1e4))
            return ordo_error(ORDO_ERR_ARG,
                              "--embed-scale is '%s', expected a number in (0, 1e4] or sqrt",
                              c->embed_scale);
        *scale = v;
    }
    if (c->embed_std != 0) {
        if (!(c->embed_std > 0 && c->embed_std <= 100))
            return ordo_error(ORDO_ERR_ARG,
                              "--embed-std is %g, expected in (0, 100] (0 = the style's)",
                              c->embed_std);
        *std = c->embed_std;
    }
    return ORDO_OK;
}

// Bytes a training run of c needs, roughly and on the high side: parameters with their
// gradients and AdamW moments, the position tables, and one step's activations and their
// gradients (the materialized attention's (B, NH, T, T) matrices dominate at long contexts),
// for the largest vocabulary the data can have. The LM head runs in row chunks
// (framework/lmhead.h): one chunk's logits, and the gradients of its input and of the head.
double ordo_train_config_bytes(const ordo_train_config *c, int fused_attention) {
    int pos = ordo_names_find(&ordo_pos_names, c->pos);
    double V = vocab_bound(c);
    double T = (double)c->context, C = (double)c->d_model, L = (double)c->layers;
    double NH = (double)c->heads, B = (double)c->batch;
    // every table an option sizes: the learned one has max(T, --pos-random) rows, cope's
    // position embeddings --cope-max per head, dpb's MLP --dpb-dim wide
    double rows = pos == ORDO_POS_LEARNED ? fmax(T, (double)c->pos_random) : T;
    double scheme = pos == ORDO_POS_COPE ? (c->cope_max ? (double)c->cope_max : T) * C
                    : pos == ORDO_POS_DPB
                        ? (double)c->dpb_depth * c->dpb_dim * ((double)c->dpb_dim + 1) +
                              (double)c->dpb_dim * (2 + NH)
                        : 0;
    double params = V * C * (1 + (c->untied_head != 0)) + rows * C + L * (12 * C * C + 13 * C) +
                    2 * C + ORDO_T5_BUCKETS * NH + scheme;
    double tables = pos == ORDO_POS_ALIBI ? NH * T * T : pos == ORDO_POS_T5 ? T * T : T * C;
    // the attention per layer: the scores (B, NH, T, T), or the fused op's row statistics
    double att = fused_attention ? 2 * B * NH * T : B * NH * T * T;
    double chunk = fmin((double)ordo_lm_head_chunk_rows((int)fmin(V, 1 << 30)), B * T);
    double head = 2 * chunk * V + B * T * C + V * C; // logits + bf16 gradient, dx, dhead
    double step = 2 * L * (16 * B * T * C + att) + head + (fused_attention ? 0 : 2 * T * T);
    if (pos == ORDO_POS_FIRE) // its MLP over the T(T+1)/2 causal pairs, with gradients
        step += 2 * T * (T + 1) / 2 * (1 + 2 * ORDO_FIRE_WIDTH + NH) + 2 * NH * T * T;
    return 4 * (4 * params + tables + step);
}

ordo_status ordo_train_config_check(const ordo_train_config *c) {
    ordo_status s;
    if ((s = check_names(c))) return s;
    if ((s = range_i("corpus-tokens", c->corpus_tokens, 100, 1LL << 31)) ||
        (s = range_i("min-len", c->min_len, 1, 4096)) ||
        (s = range_i("max-len", c->max_len, c->min_len, 4096)) ||
        (s = range_i("passkey-digits", c->passkey_digits, 1, ORDO_PASSKEY_MAX_DIGITS)) ||
        (s = range_i("mqar-pairs", c->mqar_pairs, 1, 4096)) ||
        (s = range_i("mqar-vocab", c->mqar_vocab, 4, ORDO_MQAR_MAX_VOCAB)) ||
        (s = range_i("sc-tokens", c->sc_tokens, 1, 1 << 20)) ||
        (s = range_i("sc-vocab", c->sc_vocab, 4, ORDO_SELCOPY_MAX_VOCAB)) ||
        (s = range_i("count-vars", c->count_vars, 1, ORDO_COUNT_MAX_VARS)) ||
        (s = range_i("context", c->context, 1, 1 << 16)) ||
        (s = range_i("d-model", c->d_model, 1, 1 << 16)) ||
        (s = range_i("layers", c->layers, 1, 1024)) || (s = range_i("heads", c->heads, 1, 256)) ||
        (s = range_i("batch", c->batch, 1, 1 << 20)) ||
        (s = range_i("stride", c->stride, 0, 1 << 30)) ||
        (s = range_i("shuffle", c->shuffle, 0, 1)) ||
        (s = range_i("drop-last", c->drop_last, 0, 1)) ||
        (s = range_i("warmup", c->warmup, 0, 1LL << 40)) ||
        (s = range_i("steps", c->steps, 1, 1LL << 40)) ||
        (s = range_i("eval-every", c->eval_every, 0, 1LL << 40)) ||
        (s = range_i("eval-batches", c->eval_batches, 0, 1LL << 40)) ||
        (s = range_i("ckpt-every", c->ckpt_every, 0, 1LL << 40)) ||
        (s = range_i("keep", c->keep, 1, 1000000)) ||
        (s = range_i("log-every", c->log_every, 1, 1LL << 40)) ||
        (s = range_i("threads", c->threads, 0, 4096)) ||
        (s = range_i("grad-accum", c->grad_accum, 1, (1 << 20) / c->batch)))
        return s;
    // model options: --dropout first, so that a bad value is named as given
    if (!(c->dropout >= 0 && c->dropout < 1))
        return ordo_error(ORDO_ERR_ARG, "--dropout is %g, expected 0 <= p < 1", c->dropout);
    const struct {
        const char *name;
        double p;
    } drops[] = {{"dropout-embd", c->dropout_embd},
                 {"dropout-attn", c->dropout_attn},
                 {"dropout-resid", c->dropout_resid}};
    for (int i = 0; i < 3; i++)
        if (!(drops[i].p == -1 || (drops[i].p >= 0 && drops[i].p < 1)))
            return ordo_error(ORDO_ERR_ARG, "--%s is %g, expected 0 <= p < 1, or -1 for --dropout",
                              drops[i].name, drops[i].p);
    // the model's own rules (heads divide d-model, even head size for rope, ...) and the
    // embedding convention, after the ranges above so that every size fits the model config's ints
    ordo_gpt_config g;
    if ((s = ordo_train_config_model(c, vocab_bound(c), &g)) || (s = ordo_gpt_config_check(&g)))
        return s;
    if (!(c->val_frac > 0 && c->val_frac < 1))
        return ordo_error(ORDO_ERR_ARG, "--val-frac is %g, expected strictly between 0 and 1",
                          c->val_frac);
    if (!(c->lr > 0 && c->lr < 10))
        return ordo_error(ORDO_ERR_ARG, "--lr is %g, expected in (0, 10)", c->lr);
    if (!(c->min_lr >= 0 && c->min_lr <= c->lr))
        return ordo_error(ORDO_ERR_ARG, "--min-lr is %g, expected 0..lr (%g)", c->min_lr, c->lr);
    if (!(c->clip >= 0)) return ordo_error(ORDO_ERR_ARG, "--clip is %g, expected >= 0", c->clip);
    if (!c->out || !*c->out) return ordo_error(ORDO_ERR_ARG, "--out is empty");
    if (c->val_data && !c->data)
        return ordo_error(ORDO_ERR_ARG,
                          "--val-data %s needs --data: a built-in corpus (--task %s) has its own "
                          "validation split",
                          c->val_data, c->task);
    if (c->val_data && !*c->val_data) return ordo_error(ORDO_ERR_ARG, "--val-data is empty");
    // Sizes that pass the ranges above can still multiply into terabytes (--context 65536
    // --pos alibi): refuse them here rather than abort on a failed malloc or be OOM-killed.
    // the attention this run trains with at its context (checked above: it parses)
    ordo_attn_impl attn = ORDO_ATTN_FUSED;
    if (c->attention && ordo_attn_impl_parse(c->attention, &attn)) ordo_error_clear();
    int fused = ordo_attn_resolve(attn, (int)c->context) == ORDO_ATTN_FUSED;
    double need = ordo_train_config_bytes(c, fused);
    // not only the machine's memory: a cgroup or ulimit -v kills a run that cannot fit
    // instead of refusing it
    const char *what;
    double have = ordo_memory_limit(&what);
    char sized[64] = ""; // the scheme's table sizes, where an option sets them
    if (c->pos_random) snprintf(sized, sizeof sized, ", --pos-random %lld", c->pos_random);
    if (c->cope_max) snprintf(sized, sizeof sized, ", --cope-max %lld", c->cope_max);
    if (need > have)
        return ordo_error(ORDO_ERR_ARG,
                          "--context %lld, --batch %lld, --d-model %lld, --layers %lld, --heads "
                          "%lld (--pos %s%s) need about %.3g GiB for the model and one step, "
                          "more than the %.3g GiB %s; make some of them smaller",
                          c->context, c->batch, c->d_model, c->layers, c->heads, c->pos, sized,
                          need / (1 << 30), have / (1 << 30), what);
    return ORDO_OK;
}

ordo_lr_plan ordo_train_config_plan(const ordo_train_config *c) {
    if (c->plan.have) return c->plan;
    ordo_lr_plan p = {.from_step = c->warmup, .to_step = c->steps - 1, .from_lr = c->lr};
    return p;
}

// ordo_lr_at's arithmetic with the decay's start and its lr taken from the plan, so that a new
// run's plan gives its values bit for bit (bitwise resume depends on it).
double ordo_train_config_lr_at(const ordo_train_config *c, const ordo_lr_plan *p, int64_t step) {
    ordo_schedule s = ORDO_SCHED_COSINE;
    ordo_schedule_parse(c->schedule, &s); // checked by ordo_train_config_check
    if (step < c->warmup) return c->lr * (double)(step + 1) / (double)c->warmup;
    if (s == ORDO_SCHED_CONSTANT) return c->lr;
    int64_t span = p->to_step - p->from_step;
    if (span <= 0) return p->from_lr;
    double frac = (double)(step - p->from_step) / (double)span;
    if (frac > 1) frac = 1;
    if (frac < 0) frac = 0;
    if (s == ORDO_SCHED_LINEAR) return p->from_lr + (c->min_lr - p->from_lr) * frac;
    return c->min_lr + 0.5 * (p->from_lr - c->min_lr) * (1.0 + cos(M_PI * frac));
}
