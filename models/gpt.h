// A GPT-2-style decoder with a pluggable position scheme: token embedding, L pre-LayerNorm
// blocks (causal self-attention, MLP with tanh-GELU), final LayerNorm, LM head tied to the
// token table (or a separate lm_head.weight: untied_head). Dropout at GPT-2's three places
// in training mode only. Parameter names and layouts are those of the Hugging Face GPT-2
// checkpoints.
#ifndef ORDO_GPT_H
#define ORDO_GPT_H
#include <stdint.h>

#include "framework/bf16.h"
#include "framework/layers.h"
#include "framework/params.h"
#include "framework/tensor.h"
#include "models/positional.h"

// How attention computes its scores. fused: tiled with an online softmax (framework/flash.h),
// each scheme's bias computed inside the tile (models/bias_tiles.h), memory linear in T.
// materialized: every head's T x T scores and bias made and kept (the reference that tests
// compare against; viz's attention maps read them). auto, the default: materialized up to a
// length where it is the faster of the two and fused past it (ordo_attn_resolve). Not
// architecture: both compute the same model, to float rounding; a checkpoint's bits depend on
// which ran (and on nothing else of this choice: not on the thread count).
typedef enum ordo_attn_impl {
    ORDO_ATTN_FUSED,
    ORDO_ATTN_MATERIALIZED,
    ORDO_ATTN_AUTO,
    ORDO_ATTN_COUNT
} ordo_attn_impl;
// "fused", "materialized", "auto", in enum order.
extern const ordo_names ordo_attn_impl_names;
// The implementation named `name`; ORDO_ERR_ARG naming the value and the choices otherwise.
ordo_status ordo_attn_impl_parse(const char *name, ordo_attn_impl *out);
// What a runs at length T: auto is materialized for T <= ordo_attn_auto_max_T() and fused
// past it; fused and materialized are themselves.
ordo_attn_impl ordo_attn_resolve(ordo_attn_impl a, int T);
// auto's last materialized length on this CPU (by ordo_cpu_isa(): the crossing measured with
// each instruction set's kernels, docs/performance.md).
int ordo_attn_auto_max_T(void);
const char *ordo_attn_impl_name(ordo_attn_impl a); // "?" out of range

typedef struct ordo_gpt_config {
    int V;     // vocabulary size
    int C;     // channels (d_model)
    int L;     // layers
    int NH;    // heads
    int T_max; // training context; the learned table's length
    ordo_pos pos;
    float ln_eps; // 1e-5 as GPT-2
    // Token-embedding convention (0 reads as the GPT-2 value): the token embeddings are
    // multiplied by embed_scale before positions are added or applied, while the tied LM head
    // uses the table unscaled (fairseq, tensor2tensor); embed_std is the init std of the token
    // table and of the learned position table. GPT-2: 1 and 0.02; Vaswani et al. / fairseq:
    // sqrt(C) and C^-0.5.
    float embed_scale; // 0 = 1
    double embed_std;  // 0 = 0.02 (a double: 0.02 exactly, as GPT-2's init always drew)
    // model options: dropout rates in [0, 1) of GPT-2's embd_pdrop (after the
    // input embeddings), attn_pdrop (attention probabilities) and resid_pdrop (each residual
    // branch's output), applied only in training mode (ordo_gpt_train_mode); and a separate
    // LM head lm_head.weight (V, C) instead of the token table (0: tied, GPT-2)
    float dropout_embd, dropout_attn, dropout_resid;
    int untied_head;
    // RoPE scaling (rope only; positional.h): zero fields read as none, factor 1 and
    // orig_T = T_max
    ordo_rope_config rope;
    // positions on part of a head or on some heads. rope_fraction: rope rotates
    // the first ordo_rope_dims(rope_fraction, hs) dims of a head (0 reads as 1: all; GPT-NeoX's
    // rotary_pct); rope_heads: only heads 0..rope_heads-1 rotate (0: all); alibi_heads: only
    // heads 0..alibi_heads-1 get ALiBi, with the slopes of that many heads (0: all;
    // x-transformers' alibi_num_heads). Each for its own scheme only.
    double rope_fraction;
    int rope_heads, alibi_heads;
    // x = tokens + scale * positions for learned and sinusoidal (docs/positions.md);
    // learned: the parameter wpe.scale [1], its init value (0 = C^-0.5)
    ordo_pos_scale pos_scale;
    // dpb only: the MLP's hidden width and depth (0 reads as ORDO_DPB_DIM, _DEPTH) and
    // whether its input is log(d + 1) instead of the distance d (x-transformers' log_distance)
    int dpb_dim, dpb_depth, dpb_log_distance;
    // randomized positions (Ruoss et al. 2023): in training mode each sequence takes a sorted
    // random subset of T positions of [0, pos_random) (0: off, positions 0..T-1 always);
    // learned, sinusoidal and rope only. learned: T_max is N, the table's length.
    int pos_random;
    // cope only: P, the positions 0..P-1 of its embeddings (--cope-max; 0 reads
    // as T_max + 1, so that no position of a training window is clamped)
    int cope_max;
    // t5 only: the distance its log-spaced buckets end at, the last bucket holding every
    // distance from there on (--t5-max-distance; 0 reads as ORDO_T5_MAX_DISTANCE, HF's 128)
    int t5_max_distance;
    // fox only: the initial bias b of every forget gate f = sigmoid(x w + b) (--fox-gate-bias;
    // 0, the paper's code's: its fgate_proj is an nn.Linear whose bias the model init zeroes).
    // Init only: a checkpoint's trained biases replace it.
    double fox_gate_bias;
} ordo_gpt_config;

typedef struct ordo_gpt_block {
    ordo_layernorm_layer ln_1;   // (C)
    ordo_linear_layer c_attn;    // (C, 3C)
    ordo_linear_layer attn_proj; // (C, C)
    ordo_layernorm_layer ln_2;   // (C)
    ordo_linear_layer c_fc;      // (C, 4C)
    ordo_linear_layer mlp_proj;  // (4C, C)
} ordo_gpt_block;

typedef struct ordo_gpt {
    ordo_gpt_config cfg;
    ordo_precision precision; // of the matmuls (ordo_gpt_set_precision); fp32 after init
    ordo_attn_impl attention; // fused after init; record_attention forces materialized
    ordo_params params;
    ordo_embedding_layer wte; // (V, C), also the LM head
    ordo_tensor *lm_head;     // (V, C), untied_head only (NULL: the head is wte)
    ordo_layernorm_layer ln_f;
    ordo_gpt_block *h; // L blocks
    // the position scheme's state: its parameters (named in params, found by name: the
    // learned table is wpe.weight) and caches (models/pos/)
    struct ordo_pos_state *pos;
    // attention probabilities per layer from the last forward when record_attention is set
    // (the materialized attention then runs, whatever `attention` says)
    int record_attention;
    const float **att; // L pointers into the context's arena, each (B, NH, T, T)
    // with att, what the scheme keeps of each layer: fox its prefix sums c (B, NH, T) of
    // log f; cope its positions p (B, NH, T, T); NULL for the others
    const float **pos_record;
    // with att, the residual stream (B, T, C) entering block 0 and leaving each block: L + 1
    // pointers into the arena (the position probe reads them)
    const float **resid;
    // training mode (ordo_gpt_train_mode): dropout on, masks from drop_seed, batch row offset
    int train;
    uint64_t drop_seed;
    int64_t drop_row0;
    // --pos-random: the step's position seed (ordo_gpt_pos_seed), and explicit positions
    // [B, T] for the next forwards (ordo_gpt_set_positions; NULL: drawn or 0..T-1)
    uint64_t pos_seed;
    const int32_t *pos_ids;
    // when set, called after each layer of every forward with the layers done and L: a long
    // forward (one window of 32k tokens runs for minutes) can then show that it moves
    void (*on_layer)(void *arg, int done, int L);
    void *on_layer_arg;
} ordo_gpt;

// Checks every field (sizes positive and sane, NH divides C, even head size for rope, even C
// for sinusoidal); ORDO_ERR_ARG otherwise. The one place for these rules: the training config
// check calls it too, so the message names each field by the `ordo train` option that sets it
// (--d-model for C, --heads for NH, --context for T_max; also its config.json key), the value
// and what was expected: "--heads 3 does not divide --d-model 64".
ordo_status ordo_gpt_config_check(const ordo_gpt_config *cfg);

// No dimension of a model ordo trains comes near this (sizes, positions).
#define ORDO_GPT_MAX_DIM (1 << 20)
// |--fox-gate-bias| at most: at 30 a gate is within 1e-13 of 1 (or of 0), so a larger bias
// changes no trained model, and a finite bound keeps the prefix sums finite at any length.
#define ORDO_FOX_GATE_BIAS_LIMIT 30.0
// c's RoPE scaling with its zero fields resolved (factor 1, orig_T = T_max).
ordo_rope_config ordo_gpt_rope_of(const ordo_gpt_config *c);
// The rotated dims of a head under c (the head size unless --rope-fraction).
int ordo_gpt_rope_dims(const ordo_gpt_config *c);
// Whether c's RoPE scaling applies (rope only) and is in range for its rotated dims.
ordo_status ordo_gpt_rope_check(const ordo_gpt_config *c);
// Declares and allocates the parameters and initialises them as GPT-2 does (normal 0.02,
// residual projections 0.02/sqrt(2L), zero biases, unit LayerNorm gains, zero T5 table),
// except the token and learned position tables, which take embed_std. The FIRE and Kerple
// parameters are drawn last, as their reference code does (docs/positions.md), so that the
// other weights are those of every scheme with the same seed. m->cfg holds the config with
// its zero fields replaced by their values.
ordo_status ordo_gpt_init(ordo_gpt *m, const ordo_gpt_config *cfg, uint64_t seed);
void ordo_gpt_free(ordo_gpt *m);

// Training mode for the forwards that follow: dropout on at the config's rates, the masks a
// function of (seed, the row's index in the step's whole batch, the position in it) alone,
// where this forward's first row is row `row0` of that batch (micro-batches and
// data-parallel shares pass theirs, so that their masks are those of the whole batch,
// whatever the thread count). on = 0, the mode after init: no dropout (eval, sampling).
void ordo_gpt_train_mode(ordo_gpt *m, int on, uint64_t seed, int64_t row0);

// --pos-random's positions. In training mode with cfg.pos_random N, each forward draws the
// positions of its row r (counted in the step's batch, as dropout's row0) as
// ordo_random_positions(T, N, ordo_gpt_row_pos_seed(seed, r)): a function of (seed, row)
// alone, so micro-batches, data-parallel shares and resumed runs draw what one batch would.
// The trainer derives seed from the run seed and the step (train/trainer.c).
void ordo_gpt_pos_seed(ordo_gpt *m, uint64_t seed);
uint64_t ordo_gpt_row_pos_seed(uint64_t seed, int64_t row);
// Explicit positions pos [B, T] (each in [0, the learned table's length) for learned;
// increasing along each row for the bias schemes, checked at the forward) for the
// forwards that follow, in and out of training mode, until set to NULL (then: drawn in
// training mode with pos_random, else 0..T-1). The caller keeps pos alive. For the parity
// tests, which give the PyTorch reference the same ids.
void ordo_gpt_set_positions(ordo_gpt *m, const int32_t *pos);

// Forward over idx (B, T). Returns logits (B, T, V) and, when targets is non-NULL, the mean
// cross-entropy (targets < 0 ignored). T past T_max with the learned scheme is an
// ORDO_ERR_ARG; ids out of [0, V) too; fire past ORDO_FIRE_MAX_T on the materialized path too.
// Attention as m->attention says (materialized when record_attention is set). Records the tape
// when ctx->grad_enabled. With logits NULL, the loss comes from ordo_lm_head_loss (lmhead.h):
// the head in row chunks, so that the (B, T, V) logits and their gradient never exist whole
// (training, validation). Kerple's r1 and r2 are clamped in place first (ordo_kerple_clamp), as
// its official code.
ordo_status ordo_gpt_forward(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, const int32_t *targets,
                             int B, int T, ordo_tensor **logits, ordo_tensor **loss);
// ordo_gpt_forward without logits (the chunked head), and each row's loss into row_loss
// (B*T) in double, NaN where the target is ignored (ordo_lm_head_loss's row_loss): what `ordo
// eval` scores, the loss by position included. *loss is then the mean of row_loss.
ordo_status ordo_gpt_forward_loss(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx,
                                  const int32_t *targets, int B, int T, double *row_loss,
                                  ordo_tensor **loss);
// ordo_gpt_forward in inference mode (ctx->grad_enabled 0) with the LM head applied only to
// the npick positions pick[0..npick) of the B*T (row-major: b*T + t): *logits (npick, V), row
// k the logits at pick[k]: the same products over C as that row of the whole (B, T, V) logits,
// the same bits where the GEMM's sums do not depend on the row count
// (tests/eval/test_passkey_eval.c compares them). For scores that need the argmax at a few
// positions (passkey's answer), where the whole logits cost B*T*V*C multiply-adds and B*T*V
// floats. Errors as ordo_gpt_forward's.
ordo_status ordo_gpt_forward_pick(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, int B, int T,
                                  const int32_t *pick, int npick, ordo_tensor **logits);

// The attention-score bias [NH, T, T] of the bias schemes (alibi, t5, fire, kerple,
// kerple-power) for length T, as the materialized forward computes it (zero above the
// diagonal), in ctx's arena; NULL for the other schemes, and (with the error set,
// ORDO_ERR_NOMEM) when the system refuses alibi's or t5's T x T table. For viz and tests;
// records the tape as any op. (The fused forward computes the same bias tile by tile:
// models/bias_tiles.h.)
ordo_tensor *ordo_gpt_position_bias(ordo_gpt *m, ordo_ctx *ctx, int T);

// ---- at drawn or given positions pos [B, T], increasing along each row (models/gpt_positions.c)
// This forward's positions [B, T] into *out, or NULL for 0..T-1 (eval, sampling): the explicit
// ones (ordo_gpt_set_positions; checked: in range, and increasing along each row for the bias
// schemes), else in training mode with --pos-random a draw per row, into ctx's arena, from the
// step's seed and the row's index in the step's batch. ORDO_ERR_ARG for a scheme without
// positions, or T > N.
ordo_status ordo_gpt_forward_positions(ordo_gpt *m, ordo_ctx *ctx, int B, int T,
                                       const int32_t **out);
// The range n of the positions: max(pos) + 1, at least cfg.pos_random (the tables by distance,
// dpb's MLP among them, run over 0..n-1: 0..N-1 in training with --pos-random N).
int ordo_gpt_positions_range(const ordo_gpt *m, const int32_t *pos, int B, int T);
// The bias schemes' bias at the positions, [B, NH, T, T] (fire: [NH, T, T] when B is 1): the
// scheme's function of pos[b, i] - pos[b, j]; NULL for the other schemes. As
// ordo_gpt_position_bias, in ctx's arena, on the tape; pos must live as long as the tape.
ordo_tensor *ordo_gpt_position_bias_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B,
                                       int T);
// The same bias as the fused attention's tiles (models/bias_tiles.h); NULL for the others.
struct ordo_fused_bias *ordo_gpt_bias_tiles_at(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos,
                                               int B, int T);

// The precision of the model's matmuls (bf16.h). bf16: the four linear layers of every
// block and the LM head (tied or not) get bf16 copies of their weights and multiply in bf16 with
// float32 accumulation; the embeddings, LayerNorm, attention (its QK^T and AV products
// included), GELU, the loss and every position table stay float32. ORDO_ERR_ARG when the CPU
// cannot run bf16 (ordo_dnnl_bf16_check's message). fp32 (the default after init) drops
// the copies. The weights themselves stay float32 either way.
ordo_status ordo_gpt_set_precision(ordo_gpt *m, ordo_precision p);
// Rounds the weights into their bf16 copies (nothing in fp32): after every change of the
// weights from outside ordo_gpt_load, such as an optimizer step or a checkpoint load.
void ordo_gpt_refresh_bf16(ordo_gpt *m);
// Loads every parameter by name from a safetensors file (shapes must match the config), and
// refreshes the bf16 copies.
ordo_status ordo_gpt_load(ordo_gpt *m, const char *path);
// The config as safetensors metadata: keys V, C, L, NH, T_max (decimal) and pos (the
// scheme's name), in that order, then embed_scale ("%.9g") only when it is not 1 and
// untied_head ("1") only for an untied head, so that GPT-2-convention files stay as they
// were; the one writer of these keys, for ordo_gpt_save and the checkpoints. n pairs are
// used (rope_scaling, rope_factor "%.17g" and rope_orig_context follow when a RoPE scaling
// is set; rope_fraction "%.17g", rope_heads, alibi_heads and pos_scale ("fixed:X",
// "learned": the value is the tensor wpe.scale) and pos_random each only when set; dpb_dim,
// dpb_depth, dpb_log_distance for dpb; cope_max for cope; t5_max_distance when not 128;
// fox_gate_bias "%.17g" when not 0); vals point into the struct itself: use it in place.
// Dropout is training, not architecture: it is not here (the run's config has it).
#define ORDO_GPT_NMETA 19 // at most
typedef struct ordo_gpt_meta {
    int n;
    const char *keys[ORDO_GPT_NMETA], *vals[ORDO_GPT_NMETA];
    char num[ORDO_GPT_NMETA][32];
} ordo_gpt_meta;
void ordo_gpt_meta_init(ordo_gpt_meta *mt, const ordo_gpt_config *c);
// Writes the weights (Hugging Face GPT-2 names) atomically, with the config in the metadata
// (ordo_gpt_meta_init's keys) followed by nmeta extra string pairs.
ordo_status ordo_gpt_save(const ordo_gpt *m, const char *path, const char *const *keys,
                          const char *const *vals, int nmeta);
// Sets the RoPE scaling (eval of a checkpoint with one it was not trained with): checked as
// ordo_gpt_config_check does (rope only, ORDO_ERR_ARG otherwise); zero fields as in the config.
ordo_status ordo_gpt_set_rope(ordo_gpt *m, const ordo_rope_config *rc);
// The learned position table wpe.weight (T_max, C): the learned scheme's, NULL for the others.
ordo_tensor *ordo_gpt_wpe(const ordo_gpt *m);
// Number of trainable scalars.
size_t ordo_gpt_num_params(const ordo_gpt *m);

#endif
