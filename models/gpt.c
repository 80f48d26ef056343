// The GPT decoder, composed in order as llm.c's gpt2_forward: each call below is one
// coarse op (about ten tape nodes per block). Position schemes plug in at three points:
// added at the input (learned, sinusoidal), rotating q and k (rope, xpos), biasing the scores
// (alibi, t5, fire, kerple, kerple-power; the bias is made once per forward and shared by
// the layers; fox's is each layer's own, from its input, one per batch row). Attention is fused by
// default (m->attention): the bias is then a pair of tile functions (models/bias_tiles.h) and
// nothing T x T exists; the materialized path makes the [NH, T, T] bias and every head's scores
// (the reference, and viz's maps). Dropout (training mode only) at GPT-2's three places: after the
// input embeddings, on the attention probabilities, on each residual branch's output. No KV cache:
// ordo trains small models for comparisons.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/dnnl.h"
#include "framework/kernels.h"
#include "framework/lmhead.h"
#include "framework/ops.h"
#include "framework/rng.h"
#include "framework/safetensors.h"
#include "models/bias_tiles.h"
#include "models/gpt.h"

static void fill_normal(ordo_tensor *t, ordo_rng *r, double std) {
    for (size_t i = 0; i < t->n; i++) t->data[i] = (float)(std * ordo_rng_normal(r));
}
static void fill_const(ordo_tensor *t, float v) {
    for (size_t i = 0; i < t->n; i++) t->data[i] = v;
}
static void fill_uniform(ordo_tensor *t, ordo_rng *r, double lo, double hi) {
    for (size_t i = 0; i < t->n; i++) t->data[i] = (float)(lo + (hi - lo) * ordo_rng_uniform(r));
}

// dpb's MLP, layers dpb.mlp.0 .. dpb.mlp.{depth}: 1 -> W, (depth - 1) x W -> W, W -> NH.
static void declare_dpb(ordo_gpt *m, ordo_params *p) {
    int W = m->cfg.dpb_dim, D = m->cfg.dpb_depth;
    char name[64];
    for (int k = 0; k <= D; k++) {
        int in = k == 0 ? 1 : W, out = k == D ? m->cfg.NH : W;
        snprintf(name, sizeof name, "dpb.mlp.%d.weight", k);
        m->dpb_w[k] = ordo_params_add(p, name, 2, (int[]){in, out}, ORDO_POSITION);
        snprintf(name, sizeof name, "dpb.mlp.%d.bias", k);
        m->dpb_b[k] = ordo_params_add(p, name, 1, (int[]){out}, ORDO_POSITION);
    }
}

// The parameters of the learned relative biases, declared after every other one. All carry
// ORDO_POSITION (as the T5 table): the two FIRE matrices are weight-decayed unless
// --no-decay-pos, the 1-D ones (biases, c, L multiplier, r1, r2) never are.
static void declare_bias_params(ordo_gpt *m, ordo_params *p) {
    int NH = m->cfg.NH, W = ORDO_FIRE_WIDTH;
    char name[64];
    switch (m->cfg.pos) {
    case ORDO_POS_FOX: // one gate per layer (the paper's fgate_proj), after every other tensor
        for (int l = 0; l < m->cfg.L; l++) {
            ordo_gpt_block *b = &m->h[l];
            snprintf(name, sizeof name, "h.%d.attn.fgate.weight", l);
            b->fgate_w = ordo_params_add(p, name, 2, (int[]){m->cfg.C, NH}, ORDO_POSITION);
            snprintf(name, sizeof name, "h.%d.attn.fgate.bias", l);
            b->fgate_b = ordo_params_add(p, name, 1, (int[]){NH}, ORDO_POSITION);
        }
        break;
    case ORDO_POS_FIRE:
        m->fire_w1 = ordo_params_add(p, "fire.fc1.weight", 2, (int[]){1, W}, ORDO_POSITION);
        m->fire_b1 = ordo_params_add(p, "fire.fc1.bias", 1, (int[]){W}, ORDO_POSITION);
        m->fire_w2 = ordo_params_add(p, "fire.fc2.weight", 2, (int[]){W, NH}, ORDO_POSITION);
        m->fire_b2 = ordo_params_add(p, "fire.fc2.bias", 1, (int[]){NH}, ORDO_POSITION);
        m->fire_c = ordo_params_add(p, "fire.c", 1, (int[]){1}, ORDO_POSITION);
        m->fire_lmul = ordo_params_add(p, "fire.L_multiplier", 1, (int[]){1}, ORDO_POSITION);
        break;
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
        m->kerple_r1 = ordo_params_add(p, "kerple.r1", 1, (int[]){NH}, ORDO_POSITION);
        m->kerple_r2 = ordo_params_add(p, "kerple.r2", 1, (int[]){NH}, ORDO_POSITION);
        break;
    case ORDO_POS_DPB:
        declare_dpb(m, p);
        break;
    case ORDO_POS_COPE: // per layer, one table per head (the reference shares one by the heads)
        for (int l = 0; l < m->cfg.L; l++) {
            snprintf(name, sizeof name, "h.%d.attn.cope.pos_emb", l);
            m->h[l].cope_e = ordo_params_add(
                p, name, 3, (int[]){NH, m->cfg.cope_max, m->cfg.C / NH}, ORDO_POSITION);
        }
        break;
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_ALIBI:
    case ORDO_POS_T5:
    case ORDO_POS_XPOS:
    case ORDO_POS_COUNT:
        break;
    }
}

// Their init, drawn after the GPT-2 weights. FIRE: torch.nn.Linear's default, U(-k, k) with
// k = 1/sqrt(fan_in) for weight and bias (1 for fc1, 1/sqrt(32) for fc2), c = 0.1, the L
// multiplier 1. Kerple, as the official code: log r1 ~ U(0, 2), r2 ~ U(0, 1); power (where the
// exponent is r2) r1 ~ U(0, 1), r2 ~ U(0, 2); then clamped as every forward clamps them.
static void init_bias_params(ordo_gpt *m, ordo_rng *r) {
    int power = m->cfg.pos == ORDO_POS_KERPLE_POWER;
    if (m->fire_w1) {
        double k2 = 1.0 / sqrt((double)ORDO_FIRE_WIDTH);
        fill_uniform(m->fire_w1, r, -1, 1);
        fill_uniform(m->fire_b1, r, -1, 1);
        fill_uniform(m->fire_w2, r, -k2, k2);
        fill_uniform(m->fire_b2, r, -k2, k2);
        fill_const(m->fire_c, ORDO_FIRE_INIT_C);
        fill_const(m->fire_lmul, 1.0f);
    }
    // dpb: torch.nn.Linear's default, layer by layer, weight then bias: U(-k, k), k =
    // 1/sqrt(fan_in) (1 for the first layer, 1/sqrt(W) after it)
    for (int k = 0; m->cfg.pos == ORDO_POS_DPB && k <= m->cfg.dpb_depth; k++) {
        double b = 1.0 / sqrt((double)m->dpb_w[k]->shape[0]);
        fill_uniform(m->dpb_w[k], r, -b, b);
        fill_uniform(m->dpb_b[k], r, -b, b);
    }
    // fox, as the paper's fgate_proj (an nn.Linear under the model's init): weight N(0,
    // 0.02), bias 0, so every gate starts near sigmoid(0) = 1/2
    for (int l = 0; l < m->cfg.L && m->h[l].fgate_w; l++) fill_normal(m->h[l].fgate_w, r, 0.02);
    if (m->kerple_r1) {
        fill_uniform(m->kerple_r1, r, 0, power ? 1 : 2);
        fill_uniform(m->kerple_r2, r, 0, power ? 2 : 1);
        ordo_kerple_clamp(m->kerple_r1->data, m->kerple_r2->data, m->cfg.NH, power);
    }
}

ordo_status ordo_gpt_init(ordo_gpt *m, const ordo_gpt_config *cfg, uint64_t seed) {
    memset(m, 0, sizeof *m);
    ordo_status s = ordo_gpt_config_check(cfg);
    if (s) return s;
    m->cfg = *cfg;
    if (m->cfg.embed_scale == 0) m->cfg.embed_scale = 1.0f;
    if (m->cfg.embed_std == 0) m->cfg.embed_std = 0.02;
    m->cfg.rope = ordo_gpt_rope_of(cfg);
    if (m->cfg.rope_fraction == 0) m->cfg.rope_fraction = 1;
    if (m->cfg.rope_heads == 0) m->cfg.rope_heads = cfg->NH;
    if (m->cfg.alibi_heads == 0) m->cfg.alibi_heads = cfg->NH;
    if (m->cfg.dpb_dim == 0) m->cfg.dpb_dim = ORDO_DPB_DIM;
    if (m->cfg.dpb_depth == 0) m->cfg.dpb_depth = ORDO_DPB_DEPTH;
    if (m->cfg.pos == ORDO_POS_COPE && m->cfg.cope_max == 0) m->cfg.cope_max = cfg->T_max + 1;
    // x-transformers' ScaledSinusoidalEmbedding: ones(1) * dim^-0.5
    if (m->cfg.pos_scale.kind == ORDO_POS_SCALE_LEARNED && m->cfg.pos_scale.value == 0)
        m->cfg.pos_scale.value = (float)(1.0 / sqrt((double)cfg->C));
    int V = cfg->V, C = cfg->C, L = cfg->L;
    ordo_params *p = &m->params;
    ordo_params_init(p);
    char name[64];
    ordo_embedding_layer_init(&m->wte, p, "wte.weight", V, C, 0);
    if (cfg->pos == ORDO_POS_LEARNED)
        ordo_embedding_layer_init(&m->wpe, p, "wpe.weight", cfg->T_max, C, ORDO_POSITION);
    // a scalar: never weight-decayed (1-D), whatever --no-decay-pos says
    if (m->cfg.pos_scale.kind == ORDO_POS_SCALE_LEARNED)
        m->pos_scale = ordo_params_add(p, "wpe.scale", 1, (int[]){1}, ORDO_POSITION);
    m->h = ordo_xcalloc((size_t)L, sizeof *m->h);
    for (int l = 0; l < L; l++) {
        ordo_gpt_block *b = &m->h[l];
#define NAME(suffix) (snprintf(name, sizeof name, "h.%d.%s", l, suffix), name)
        ordo_layernorm_layer_init(&b->ln_1, p, NAME("ln_1"), C, cfg->ln_eps);
        ordo_linear_layer_init(&b->c_attn, p, NAME("attn.c_attn"), C, 3 * C);
        ordo_linear_layer_init(&b->attn_proj, p, NAME("attn.c_proj"), C, C);
        ordo_layernorm_layer_init(&b->ln_2, p, NAME("ln_2"), C, cfg->ln_eps);
        ordo_linear_layer_init(&b->c_fc, p, NAME("mlp.c_fc"), C, 4 * C);
        ordo_linear_layer_init(&b->mlp_proj, p, NAME("mlp.c_proj"), 4 * C, C);
#undef NAME
    }
    ordo_layernorm_layer_init(&m->ln_f, p, "ln_f", C, cfg->ln_eps);
    if (cfg->pos == ORDO_POS_T5)
        m->rel_bias = ordo_params_add(p, "rel_bias.weight", 2, (int[]){ORDO_T5_BUCKETS, cfg->NH},
                                      ORDO_POSITION);
    if (cfg->untied_head) m->lm_head = ordo_params_add(p, "lm_head.weight", 2, (int[]){V, C}, 0);
    declare_bias_params(m, p);
    ordo_params_alloc(p);

    // GPT-2 init, in declaration order so that a seed always gives the same weights
    ordo_rng r;
    ordo_rng_seed(&r, seed);
    double resid_std = 0.02 / sqrt(2.0 * L);
    // the learned position table follows the token table's std, as both GPT-2 (0.02, 0.02)
    // and fairseq (C^-0.5, C^-0.5) do; neither scales the positions
    fill_normal(m->wte.table, &r, m->cfg.embed_std);
    if (m->wpe.table) fill_normal(m->wpe.table, &r, m->cfg.embed_std);
    for (int l = 0; l < L; l++) {
        ordo_gpt_block *b = &m->h[l];
        fill_const(b->ln_1.w, 1.0f);
        fill_const(b->ln_2.w, 1.0f);
        fill_normal(b->c_attn.w, &r, 0.02);
        fill_normal(b->attn_proj.w, &r, resid_std);
        fill_normal(b->c_fc.w, &r, 0.02);
        fill_normal(b->mlp_proj.w, &r, resid_std);
    }
    fill_const(m->ln_f.w, 1.0f); // biases and the T5 table stay zero
    if (m->pos_scale) fill_const(m->pos_scale, (float)m->cfg.pos_scale.value); // draws nothing
    // last, so that the other weights of a seed are those of a tied model; N(0, 0.02) as
    // GPT-2 (HF GPT2LMHeadModel) initialises every linear layer
    if (m->lm_head) fill_normal(m->lm_head, &r, 0.02);
    init_bias_params(m, &r);
    m->att = ordo_xcalloc((size_t)L, sizeof *m->att);
    if (cfg->pos == ORDO_POS_FOX) m->fox_c = ordo_xcalloc((size_t)L, sizeof *m->fox_c);
    if (cfg->pos == ORDO_POS_COPE) m->cope_p = ordo_xcalloc((size_t)L, sizeof *m->cope_p);
    if (ordo_pos_rotary(cfg->pos)) { // rope, and xpos's rotation (unscaled)
        m->rope_dims = ordo_gpt_rope_dims(&m->cfg);
        m->rope_nrot = m->cfg.rope_heads;
        m->rope_inv_freq = ordo_xmalloc((size_t)(m->rope_dims / 2) * sizeof(double));
        m->rope_mscale = ordo_rope_inv_freq(m->rope_inv_freq, m->rope_dims, &m->cfg.rope);
    }
    return ORDO_OK;
}

void ordo_gpt_free(ordo_gpt *m) {
    ordo_params_free(&m->params);
    free(m->h);
    free(m->pos_table);
    free(m->alibi_table);
    free(m->buckets);
    free(m->positions);
    free(m->rope_cos);
    free(m->rope_sin);
    free(m->rope_inv_freq);
    free(m->att);
    free(m->fox_c);
    free(m->cope_p);
    memset(m, 0, sizeof *m);
}

size_t ordo_gpt_num_params(const ordo_gpt *m) {
    return m->params.numel;
}

void ordo_gpt_train_mode(ordo_gpt *m, int on, uint64_t seed, int64_t row0) {
    m->train = on;
    m->drop_seed = seed;
    m->drop_row0 = row0;
}

void ordo_gpt_pos_seed(ordo_gpt *m, uint64_t seed) {
    m->pos_seed = seed;
}

void ordo_gpt_set_positions(ordo_gpt *m, const int32_t *pos) {
    m->pos_ids = pos;
}

ordo_status ordo_gpt_set_rope(ordo_gpt *m, const ordo_rope_config *rc) {
    ordo_gpt_config c = m->cfg;
    c.rope = *rc;
    ordo_status s = ordo_gpt_rope_check(&c);
    if (s) return s;
    m->cfg.rope = ordo_gpt_rope_of(&c);
    if (m->rope_inv_freq)
        m->rope_mscale = ordo_rope_inv_freq(m->rope_inv_freq, m->rope_dims, &m->cfg.rope);
    m->cache_T = 0; // the cos/sin tables are rebuilt at the next forward
    return ORDO_OK;
}

// Rebuilds the fixed position constants when the sequence length changes. Linear in T: the
// materialized path's T x T tables are bias_tables'.
static void position_cache(ordo_gpt *m, int T) {
    if (m->cache_T == T) return;
    const ordo_gpt_config *c = &m->cfg;
    free(m->pos_table);
    free(m->positions);
    free(m->rope_cos);
    free(m->rope_sin);
    m->rope_cos = m->rope_sin = NULL;
    m->pos_table = NULL;
    m->positions = ordo_xmalloc((size_t)T * sizeof(int32_t));
    for (int t = 0; t < T; t++) m->positions[t] = t;
    switch (c->pos) {
    case ORDO_POS_SINUSOIDAL:
        m->pos_table = ordo_xmalloc((size_t)T * c->C * sizeof(float));
        ordo_sinusoidal_table(m->pos_table, T, c->C);
        break;
    case ORDO_POS_XPOS: // the rotation's tables as rope's, and the decay on top
        m->pos_table = ordo_xmalloc((size_t)T * 3 * c->C * sizeof(float));
        ordo_xpos_scale_table(m->pos_table, T, c->C, c->NH);
        // fall through
    case ORDO_POS_ROPE: {
        int rd = m->rope_dims; // the head size but for partial rotary
        m->rope_cos = ordo_xmalloc((size_t)T * (rd / 2) * sizeof(float));
        m->rope_sin = ordo_xmalloc((size_t)T * (rd / 2) * sizeof(float));
        ordo_rope_tables(m->rope_cos, m->rope_sin, T, rd, m->rope_inv_freq, m->rope_mscale);
        break;
    }
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_ALIBI:
    case ORDO_POS_T5:
    case ORDO_POS_FIRE:
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
    case ORDO_POS_DPB:
    case ORDO_POS_FOX:  // its bias is per layer, from the layer's input (forward)
    case ORDO_POS_COPE: // its bias is per layer, from the layer's q and k (forward)
    case ORDO_POS_COUNT:
        break;
    }
    m->cache_T = T;
}

// The materialized path's fixed T x T tables (alibi's bias, t5's bucket map) for length T,
// made only when that path runs: the fused one computes both from the distance in the tile.
// ORDO_ERR_NOMEM when the system refuses them (issue 28 item 28: an abort before), naming
// the size.
static ordo_status bias_tables(ordo_gpt *m, int T) {
    const ordo_gpt_config *c = &m->cfg;
    if (m->bias_T == T || (c->pos != ORDO_POS_ALIBI && c->pos != ORDO_POS_T5)) return ORDO_OK;
    free(m->alibi_table);
    free(m->buckets);
    m->alibi_table = NULL;
    m->buckets = NULL;
    m->bias_T = 0;
    size_t n = (size_t)T * T * (c->pos == ORDO_POS_ALIBI ? (size_t)c->NH : 1), bytes = n * 4;
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        return ordo_error(ORDO_ERR_NOMEM,
                          "cannot allocate %.2f GiB for the %s table of length %d (the "
                          "materialized attention's; --attention fused needs none)",
                          (double)bytes / (1 << 30), c->pos == ORDO_POS_ALIBI ? "alibi" : "t5", T);
    if (c->pos == ORDO_POS_ALIBI) {
        m->alibi_table = p;
        ordo_alibi_bias_heads(m->alibi_table, c->NH, c->alibi_heads, T);
    } else {
        m->buckets = p;
        ordo_t5_bucket_map(m->buckets, T);
    }
    m->bias_T = T;
    return ORDO_OK;
}

// FIRE's bias: the log-normalised distance of every causal pair through the MLP, scattered
// to (NH, T, T). One module for all layers, so computed once per forward.
static ordo_tensor *fire_bias(ordo_gpt *m, ordo_ctx *ctx, int T) {
    ordo_tensor *u = ordo_fire_dist(ctx, m->fire_c, m->fire_lmul, T, ORDO_FIRE_INIT_L,
                                    ORDO_FIRE_EPS);                               // (P, 1)
    ordo_tensor *h = ordo_relu(ctx, ordo_linear(ctx, u, m->fire_w1, m->fire_b1)); // (P, 32)
    return ordo_pair_bias(ctx, ordo_linear(ctx, h, m->fire_w2, m->fire_b2), T);   // (NH, T, T)
}

// Kerple's positivity as the official code: r1, r2 projected before each use, by both
// attentions. Returns whether it is the power variant.
static int kerple_clamped(ordo_gpt *m) {
    int power = m->cfg.pos == ORDO_POS_KERPLE_POWER;
    ordo_kerple_clamp(m->kerple_r1->data, m->kerple_r2->data, m->cfg.NH, power);
    return power;
}

ordo_tensor *ordo_gpt_position_bias(ordo_gpt *m, ordo_ctx *ctx, int T) {
    const ordo_gpt_config *c = &m->cfg;
    if (bias_tables(m, T)) return NULL; // the error set

    switch (c->pos) {
    case ORDO_POS_ALIBI:
        return ordo_tensor_wrap(ctx, m->alibi_table, 3, (int[]){c->NH, T, T});
    case ORDO_POS_T5:
        return ordo_rel_bias(ctx, m->rel_bias, m->buckets, T);
    case ORDO_POS_FIRE:
        return fire_bias(m, ctx, T);
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
        return ordo_kerple_bias(ctx, m->kerple_r1, m->kerple_r2, T, kerple_clamped(m));
    case ORDO_POS_DPB:
        return ordo_dist_bias(ctx, ordo_gpt_dpb_table(m, ctx, T), T); // (NH, T, T)
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_FOX:  // its bias is per layer, from the layer's input (forward)
    case ORDO_POS_COPE: // its bias is per layer, from the layer's q and k (forward)
    case ORDO_POS_COUNT:
        break;
    }
    return NULL;
}

// The fused path's bias for length T as tile functions, from the parameters as they are now
// (kerple's clamped first, as on the materialized path), in ctx's arena; NULL for a scheme
// without one. One for all layers, as the materialized bias.
static ordo_bias_tiles *gpt_bias_tiles(ordo_gpt *m, ordo_ctx *ctx, int T) {
    const ordo_gpt_config *c = &m->cfg;
    switch (c->pos) {
    case ORDO_POS_ALIBI:
        return ordo_alibi_tiles_heads(ctx, c->NH, c->alibi_heads, T);
    case ORDO_POS_T5:
        return ordo_t5_tiles(ctx, m->rel_bias, T);
    case ORDO_POS_FIRE:
        return ordo_fire_tiles(ctx, m->fire_w1, m->fire_b1, m->fire_w2, m->fire_b2, m->fire_c,
                               m->fire_lmul, T, ORDO_FIRE_INIT_L, ORDO_FIRE_EPS);
    case ORDO_POS_KERPLE:
    case ORDO_POS_KERPLE_POWER:
        return ordo_kerple_tiles(ctx, m->kerple_r1, m->kerple_r2, T, kerple_clamped(m));
    case ORDO_POS_DPB:
        return ordo_dpb_tiles(ctx, ordo_gpt_dpb_table(m, ctx, T), T);
    case ORDO_POS_NONE:
    case ORDO_POS_LEARNED:
    case ORDO_POS_SINUSOIDAL:
    case ORDO_POS_ROPE:
    case ORDO_POS_XPOS:
    case ORDO_POS_FOX:  // its bias is per layer, from the layer's input (forward)
    case ORDO_POS_COPE: // its bias is per layer, from the layer's q and k (forward)
    case ORDO_POS_COUNT:
        break;
    }
    return NULL;
}

// The absolute position signal pe (T, C) times --pos-scale's constant or learned scalar.
static ordo_tensor *pos_scaled(ordo_gpt *m, ordo_ctx *ctx, ordo_tensor *pe) {
    switch (m->cfg.pos_scale.kind) {
    case ORDO_POS_SCALE_FIXED:
        return ordo_scale(ctx, pe, (float)m->cfg.pos_scale.value);
    case ORDO_POS_SCALE_LEARNED:
        return ordo_scale_by(ctx, pe, m->pos_scale);
    case ORDO_POS_SCALE_NONE:
        break;
    }
    return pe;
}

// The absolute signal at per-sequence positions pos [B, T]: learned rows (a gather, so the
// table's gradient goes to the rows drawn) or the sinusoids there. (B, T, C)
static ordo_tensor *input_positions(ordo_gpt *m, ordo_ctx *ctx, const int32_t *pos, int B, int T) {
    int C = m->cfg.C;
    if (m->cfg.pos == ORDO_POS_LEARNED)
        return ordo_embedding_layer_forward(&m->wpe, ctx, pos, 2, (int[]){B, T});
    float *pe = ordo_arena_alloc(&ctx->arena, (size_t)B * T * C * sizeof(float));
    ordo_sinusoidal_at(pe, pos, B * T, C);
    return ordo_tensor_wrap(ctx, pe, 3, (int[]){B, T, C});
}

// Fox's prefix sums c (B, NH, T) of log f = logsigmoid(x w + b), from the block's input to
// attention after ln_1 (the paper's fgate_proj reads the same normalised hidden states as q,
// k, v); float32 under bf16, as every position parameter.
static ordo_tensor *fox_prefix(ordo_gpt_block *b, ordo_ctx *ctx, ordo_tensor *x) {
    return ordo_cum_logsigmoid(ctx, ordo_linear(ctx, x, b->fgate_w, b->fgate_b)); // (B, T, NH)
}

// Cope's materialized bias (B, NH, T, T) from the layer's qkv and its embeddings e: the
// positions (gated counts over the keys between j and i, kept for viz with the attention
// maps), then q_i . e[p] interpolated; the cope zero-init e makes it 0 at the start of training.
static ordo_tensor *cope_bias(ordo_gpt *m, ordo_ctx *ctx, ordo_tensor *qkv, ordo_tensor *e, int l) {
    ordo_tensor *p = ordo_cope_positions(ctx, qkv, m->cfg.NH, m->cfg.cope_max); // (B, NH, T, T)
    if (m->record_attention) m->cope_p[l] = p->data;
    return ordo_cope_bias(ctx, qkv, e, p);
}

// The forward of both entry points below: logits and the loss from them (logits non-NULL), or
// the loss alone through the chunked head, with each row's loss into row_loss when non-NULL.
// x + h: a new tensor on the tape, or without one (in_place) added into x, the residual
// stream's one buffer, which outlives each layer's arena (forward's release).
static ordo_tensor *residual(ordo_ctx *ctx, ordo_tensor *x, ordo_tensor *h, int in_place) {
    if (!in_place) return ordo_add(ctx, x, h);
    ordo_add_forward(x->data, x->data, h->data, 1, x->n);
    return x;
}

static ordo_status forward(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, const int32_t *targets,
                           int B, int T, ordo_tensor **logits, ordo_tensor **loss,
                           double *row_loss) {
    const ordo_gpt_config *c = &m->cfg;
    int C = c->C, NH = c->NH;
    if (B <= 0 || T <= 0) return ordo_error(ORDO_ERR_ARG, "batch %d x length %d is empty", B, T);
    if (c->pos == ORDO_POS_LEARNED && T > c->T_max)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past the learned position table (%d positions); the "
                          "learned scheme cannot describe positions it was not trained on",
                          T, c->T_max);
    // viz's attention maps are the materialized path's probabilities
    int fused = ordo_attn_resolve(m->attention, T) == ORDO_ATTN_FUSED && !m->record_attention;
    if (!fused && c->pos == ORDO_POS_FIRE && T > ORDO_FIRE_MAX_T)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past what --pos fire runs at (%d) with the materialized "
                          "attention: its MLP takes the T(T+1)/2 causal pairs in one int-indexed "
                          "batch (the fused attention has no such limit)",
                          T, ORDO_FIRE_MAX_T);
    for (size_t i = 0; i < (size_t)B * T; i++) {
        if (idx[i] < 0 || idx[i] >= c->V)
            return ordo_error(ORDO_ERR_ARG, "token id %d at position %zu is outside 0..%d", idx[i],
                              i, c->V - 1);
        if (targets && targets[i] >= c->V)
            return ordo_error(ORDO_ERR_ARG, "target id %d at position %zu is outside 0..%d",
                              targets[i], i, c->V - 1);
    }
    position_cache(m, T);
    const int32_t *pos; // (B, T) or NULL: 0..T-1
    ordo_status s = ordo_gpt_forward_positions(m, ctx, B, T, &pos);
    if (s) return s;

    // input: token embeddings plus the absolute position signal, if any
    ordo_tensor *x = ordo_embedding_layer_forward(&m->wte, ctx, idx, 2, (int[]){B, T}); // (B,T,C)
    // scaled before positions join; the tied head below reads the table unscaled, so wte's
    // gradient gathers both uses (the scale op's, through the embedding, and the head's)
    if (c->embed_scale != 1.0f) x = ordo_scale(ctx, x, c->embed_scale);
    // the scores' bias, shared by the layers: tile functions (fused) or (NH, T, T), or none
    // (B, NH, T, T) at drawn or given positions
    ordo_bias_tiles *tiles = !fused ? NULL
                             : pos  ? ordo_gpt_bias_tiles_at(m, ctx, pos, B, T)
                                    : gpt_bias_tiles(m, ctx, T);
    s = fused || pos ? ORDO_OK : bias_tables(m, T);
    if (s) return s;
    ordo_tensor *bias = fused ? NULL
                        : pos ? ordo_gpt_position_bias_at(m, ctx, pos, B, T)
                              : ordo_gpt_position_bias(m, ctx, T);
    if (pos && (c->pos == ORDO_POS_LEARNED || c->pos == ORDO_POS_SINUSOIDAL)) // (B, T)
        x = ordo_add(ctx, x, pos_scaled(m, ctx, input_positions(m, ctx, pos, B, T)));
    else
        switch (c->pos) {
        case ORDO_POS_LEARNED:
            x = ordo_add(ctx, x,
                         pos_scaled(m, ctx,
                                    ordo_embedding_layer_forward(&m->wpe, ctx, m->positions, 1,
                                                                 (int[]){T})));
            break;
        case ORDO_POS_SINUSOIDAL:
            x = ordo_add(ctx, x,
                         pos_scaled(m, ctx, ordo_tensor_wrap(ctx, m->pos_table, 2, (int[]){T, C})));
            break;
        case ORDO_POS_NONE:
        case ORDO_POS_ROPE:
        case ORDO_POS_ALIBI:
        case ORDO_POS_T5:
        case ORDO_POS_FIRE:
        case ORDO_POS_KERPLE:
        case ORDO_POS_XPOS:
        case ORDO_POS_KERPLE_POWER:
        case ORDO_POS_DPB:
        case ORDO_POS_FOX:  // its bias is per layer, from the layer's input (forward)
        case ORDO_POS_COPE: // its bias is per layer, from the layer's q and k (forward)
        case ORDO_POS_COUNT:
            break;
        }
    // rope and xpos at per-sequence positions: a cos/sin row per token, made once for all
    // layers; xpos's decay too
    float *rcos = NULL, *rsin = NULL; // (B, T, rd/2) each
    ordo_tensor *xscale = NULL;       // (T, 3C), or (B, T, 3C) at positions
    if (c->pos == ORDO_POS_XPOS)
        xscale = pos ? ordo_gpt_xpos_scale_at(m, ctx, pos, B, T)
                     : ordo_tensor_wrap(ctx, m->pos_table, 2, (int[]){T, 3 * C});
    if (pos && ordo_pos_rotary(c->pos)) {
        size_t bytes = (size_t)B * T * (m->rope_dims / 2) * sizeof(float);
        rcos = ordo_arena_alloc(&ctx->arena, bytes);
        rsin = ordo_arena_alloc(&ctx->arena, bytes);
        ordo_rope_tables_at(rcos, rsin, pos, B * T, m->rope_dims, m->rope_inv_freq, m->rope_mscale);
    }

    // Dropout, in training mode only (rates 0 outside it). Each site draws its own seed from
    // the step's, in forward order; offsets place this batch's rows in the step's batch.
    float p_embd = m->train ? c->dropout_embd : 0.0f, p_attn = m->train ? c->dropout_attn : 0.0f,
          p_resid = m->train ? c->dropout_resid : 0.0f;
    ordo_rng sites;
    ordo_rng_seed(&sites, m->drop_seed);
    size_t row0 = m->train ? (size_t)m->drop_row0 : 0;
    size_t off_x = row0 * T * C, off_att = row0 * NH * T * T; // (B, T, C), (B, NH, T, T)
    x = ordo_dropout(ctx, x, p_embd, ordo_rng_u64(&sites), off_x);

    // Without a tape (eval, sampling) nothing reads a layer's buffers once the next layer has
    // its input: each layer's are released at its end and the residual stream is kept in one
    // buffer, so that one layer's activations are alive at a time, not L layers'. Not when
    // the attention maps are recorded (viz reads every layer's).
    int release = !ctx->grad_enabled && !m->record_attention;
    ordo_tensor *resid = NULL; // (B, T, C)
    if (release) {
        resid = ordo_tensor_new3(ctx, B, T, C);
        memcpy(resid->data, x->data, resid->n * sizeof(float));
        x = resid;
    }
    for (int l = 0; l < c->L; l++) {
        ordo_arena_pos layer_start = ordo_arena_mark(&ctx->arena);
        ordo_gpt_block *b = &m->h[l];
        uint64_t s_attn = ordo_rng_u64(&sites), s_r1 = ordo_rng_u64(&sites),
                 s_r2 = ordo_rng_u64(&sites);
        ordo_tensor *h = ordo_layernorm_layer_forward(&b->ln_1, ctx, x);  // (B, T, C)
        ordo_tensor *qkv = ordo_linear_layer_forward(&b->c_attn, ctx, h); // (B, T, 3C)
        if (rcos) // the first rd dims of the first nrot heads, at each row's positions
            qkv = ordo_rope_rows(ctx, qkv, NH, m->rope_dims, m->rope_nrot, rcos, rsin);
        else if (ordo_pos_rotary(c->pos)) // the first rd dims of the first nrot heads
            qkv =
                ordo_rope_part(ctx, qkv, NH, m->rope_dims, m->rope_nrot, m->rope_cos, m->rope_sin);
        if (xscale) // after the rotation, q up and k down by the xPos decay
            qkv = ordo_mul(ctx, qkv, xscale);
        ordo_bias_tiles *lt = tiles; // this layer's bias: the shared one, or fox's or cope's own
        ordo_tensor *lb = bias;
        if (c->pos == ORDO_POS_COPE) {
            if (fused)
                lt = ordo_cope_tiles(ctx, qkv, b->cope_e);
            else
                lb = cope_bias(m, ctx, qkv, b->cope_e, l);
        }
        if (c->pos == ORDO_POS_FOX) {
            ordo_tensor *cf = fox_prefix(b, ctx, h); // (B, NH, T)
            if (m->record_attention) m->fox_c[l] = cf->data;
            if (fused)
                lt = ordo_fox_tiles(ctx, cf);
            else
                lb = ordo_diff_bias(ctx, cf); // (B, NH, T, T)
        }
        ordo_tensor *a; // (B, T, C)
        if (fused)      // the same dropout bits (seed, offset) as the materialized path's
            a = ordo_attention_fused(ctx, qkv, lt ? &lt->bias : NULL, lt ? lt->params : NULL,
                                     lt ? lt->n_params : 0, NH, p_attn, s_attn, off_att);
        else
            a = ordo_attention_dropout(ctx, qkv, lb, NH, p_attn, s_attn, off_att);
        if (m->record_attention) m->att[l] = ctx->last_att; // (B, NH, T, T)
        h = ordo_linear_layer_forward(&b->attn_proj, ctx, a);
        x = residual(ctx, x, ordo_dropout(ctx, h, p_resid, s_r1, off_x), release);
        h = ordo_layernorm_layer_forward(&b->ln_2, ctx, x);
        h = ordo_gelu(ctx, ordo_linear_layer_forward(&b->c_fc, ctx, h)); // (B, T, 4C)
        h = ordo_linear_layer_forward(&b->mlp_proj, ctx, h);
        x = residual(ctx, x, ordo_dropout(ctx, h, p_resid, s_r2, off_x), release);
        if (release) {
            ordo_arena_release(&ctx->arena, layer_start);
            ctx->last_att = NULL;
        }
    }
    x = ordo_layernorm_layer_forward(&m->ln_f, ctx, x);
    ordo_tensor *head = m->lm_head ? m->lm_head : m->wte.table; // (V, C), tied or not
    if (!logits) { // the loss alone: the head in row chunks, no (B, T, V) logits (lmhead.h)
        if (loss) *loss = targets ? ordo_lm_head_loss(ctx, x, head, targets, 0, row_loss) : NULL;
        return ORDO_OK;
    }
    ordo_tensor *lg = ordo_matmul(ctx, x, head, 1); // (B, T, V)
    *logits = lg;
    if (loss) *loss = targets ? ordo_cross_entropy(ctx, lg, targets) : NULL;
    return ORDO_OK;
}

ordo_status ordo_gpt_forward(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, const int32_t *targets,
                             int B, int T, ordo_tensor **logits, ordo_tensor **loss) {
    return forward(m, ctx, idx, targets, B, T, logits, loss, NULL);
}

ordo_status ordo_gpt_forward_loss(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx,
                                  const int32_t *targets, int B, int T, double *row_loss,
                                  ordo_tensor **loss) {
    return forward(m, ctx, idx, targets, B, T, NULL, loss, row_loss);
}

// The weights that multiply in bf16 are chosen here: those of the four linear layers of each
// block and the LM head: lm_head when untied, else the token table read as the tied head
// (the embedding gather reads the float32 table either way). Attention's QK^T and AV stay float32:
// in bf16 they did not pay (byte-small: the same ms/step, 2% less CPU; docs/performance.md),
// and q k^T is where rotary and relative positions meet, which bf16 would round to 8 bits.
ordo_status ordo_gpt_set_precision(ordo_gpt *m, ordo_precision p) {
    if (p == ORDO_PRECISION_BF16) {
        ordo_status s = ordo_dnnl_bf16_check();
        if (s) return s;
        (m->lm_head ? m->lm_head : m->wte.table)->flags |= ORDO_MATMUL_WEIGHT;
        for (int l = 0; l < m->cfg.L; l++) {
            ordo_gpt_block *b = &m->h[l];
            ordo_tensor *w[] = {b->c_attn.w, b->attn_proj.w, b->c_fc.w, b->mlp_proj.w};
            for (int i = 0; i < 4; i++) w[i]->flags |= ORDO_MATMUL_WEIGHT;
        }
        ordo_params_bf16_enable(&m->params);
    } else {
        ordo_params_bf16_disable(&m->params);
    }
    m->precision = p;
    return ORDO_OK;
}

void ordo_gpt_refresh_bf16(ordo_gpt *m) {
    ordo_params_bf16_refresh(&m->params);
}

ordo_status ordo_gpt_load(ordo_gpt *m, const char *path) {
    ordo_safetensors *f;
    ordo_status s = ordo_safetensors_open(path, &f);
    if (s) return s;
    for (int i = 0; i < m->params.count && !s; i++) {
        ordo_tensor *t = m->params.t[i];
        s = ordo_safetensors_read_f32(f, t->name, t->shape, t->ndim, t->data);
    }
    ordo_safetensors_close(f);
    ordo_gpt_refresh_bf16(m);
    return s;
}

static void meta_num(ordo_gpt_meta *mt, int *n, const char *key, const char *fmt, double v) {
    snprintf(mt->num[*n], sizeof mt->num[*n], fmt, v);
    mt->keys[*n] = key;
    mt->vals[*n] = mt->num[*n];
    (*n)++;
}

void ordo_gpt_meta_init(ordo_gpt_meta *mt, const ordo_gpt_config *c) {
    static const char *keys[6] = {"V", "C", "L", "NH", "T_max", "pos"};
    const int nums[5] = {c->V, c->C, c->L, c->NH, c->T_max};
    for (int i = 0; i < 6; i++) mt->keys[i] = keys[i];
    for (int i = 0; i < 5; i++) {
        snprintf(mt->num[i], sizeof mt->num[i], "%d", nums[i]);
        mt->vals[i] = mt->num[i];
    }
    mt->vals[5] = ordo_pos_name(c->pos);
    int n = 6;
    // what a GPT-2 loader must apply to the token embeddings; absent means 1
    if (c->embed_scale != 1.0f) {
        snprintf(mt->num[n], sizeof mt->num[n], "%.9g", c->embed_scale);
        mt->keys[n] = "embed_scale";
        mt->vals[n] = mt->num[n];
        n++;
    }
    // the LM head is lm_head.weight, not wte; absent means tied
    if (c->untied_head) {
        mt->keys[n] = "untied_head";
        mt->vals[n++] = "1";
    }
    // a scaling, when there is one, so that a GPT-2 loader can rebuild the rotation
    if (c->rope.scaling != ORDO_ROPE_SCALING_NONE) {
        ordo_rope_config rc = ordo_gpt_rope_of(c);
        int at = n;
        mt->keys[at] = "rope_scaling";
        mt->vals[at] = ordo_rope_scaling_name(rc.scaling);
        snprintf(mt->num[at + 1], sizeof mt->num[at + 1], "%.17g", rc.factor);
        mt->keys[at + 1] = "rope_factor";
        mt->vals[at + 1] = mt->num[at + 1];
        snprintf(mt->num[at + 2], sizeof mt->num[at + 2], "%d", rc.orig_T);
        mt->keys[at + 2] = "rope_orig_context";
        mt->vals[at + 2] = mt->num[at + 2];
        n = at + 3;
    }
    // issue 26: each only when set, so that other files stay as they were
    if (c->rope_fraction != 0 && c->rope_fraction != 1)
        meta_num(mt, &n, "rope_fraction", "%.17g", c->rope_fraction);
    if (c->rope_heads != 0 && c->rope_heads != c->NH)
        meta_num(mt, &n, "rope_heads", "%.0f", (double)c->rope_heads);
    if (c->alibi_heads != 0 && c->alibi_heads != c->NH)
        meta_num(mt, &n, "alibi_heads", "%.0f", (double)c->alibi_heads);
    if (c->pos == ORDO_POS_DPB) { // always, so that a loader rebuilds the MLP from the file
        meta_num(mt, &n, "dpb_dim", "%.0f", (double)(c->dpb_dim ? c->dpb_dim : ORDO_DPB_DIM));
        meta_num(mt, &n, "dpb_depth", "%.0f",
                 (double)(c->dpb_depth ? c->dpb_depth : ORDO_DPB_DEPTH));
        meta_num(mt, &n, "dpb_log_distance", "%.0f", (double)c->dpb_log_distance);
    }
    if (c->pos == ORDO_POS_COPE) // always: the embeddings' length is not the context's
        meta_num(mt, &n, "cope_max", "%.0f", (double)(c->cope_max ? c->cope_max : c->T_max + 1));
    if (c->pos_scale.kind != ORDO_POS_SCALE_NONE) {
        ordo_pos_scale_text(&c->pos_scale, mt->num[n], sizeof mt->num[n]);
        mt->keys[n] = "pos_scale";
        mt->vals[n] = mt->num[n];
        n++;
    }
    if (c->pos_random) meta_num(mt, &n, "pos_random", "%.0f", (double)c->pos_random);
    mt->n = n;
}

ordo_status ordo_gpt_save(const ordo_gpt *m, const char *path, const char *const *keys,
                          const char *const *vals, int nmeta) {
    const ordo_params *p = &m->params;
    ordo_st_write *w = ordo_xcalloc((size_t)p->count, sizeof *w);
    for (int i = 0; i < p->count; i++) {
        const ordo_tensor *t = p->t[i];
        w[i].name = t->name;
        w[i].data = t->data;
        w[i].ndim = t->ndim;
        for (int d = 0; d < t->ndim; d++) w[i].shape[d] = t->shape[d];
    }
    ordo_gpt_meta mt;
    ordo_gpt_meta_init(&mt, &m->cfg);
    int nm = mt.n + nmeta;
    const char **k = ordo_xcalloc((size_t)nm, sizeof *k),
               **vv = ordo_xcalloc((size_t)nm, sizeof *vv);
    for (int i = 0; i < mt.n; i++) {
        k[i] = mt.keys[i];
        vv[i] = mt.vals[i];
    }
    for (int i = 0; i < nmeta; i++) {
        k[mt.n + i] = keys[i];
        vv[mt.n + i] = vals[i];
    }
    ordo_status s = ordo_safetensors_write(path, w, p->count, k, vv, nm);
    free(w);
    free(k);
    free(vv);
    return s;
}
