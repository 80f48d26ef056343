// The GPT decoder, composed in order as llm.c's gpt2_forward: each call below is one
// coarse op (about ten tape nodes per block). The position scheme is a row of hooks
// (models/pos/scheme.h) called at fixed points: its parameters declared and drawn at three
// places of GPT-2's order, once per forward before the layers (a signal added at the input,
// the rotation's tables, or the scores' bias shared by the layers), on each layer's qkv (a
// rotation), and per layer (a bias from the layer's own activations). The model names no
// scheme. Attention is fused by default (m->attention): a bias is then a pair of tile
// functions (models/bias_tiles.h) and nothing T x T exists; the materialized path makes the
// [NH, T, T] bias and every head's scores (the reference, and viz's maps). Dropout (training
// mode only) at GPT-2's three places: after the input embeddings, on the attention
// probabilities, on each residual branch's output. No KV cache: ordo trains small models for
// comparisons.
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
#include "models/gpt.h"
#include "models/pos/scheme.h"

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
    const ordo_pos_scheme *row = ordo_pos_row(cfg->pos);
    if (row->resolve) row->resolve(&m->cfg);
    // x-transformers' ScaledSinusoidalEmbedding: ones(1) * dim^-0.5
    if (m->cfg.pos_scale.kind == ORDO_POS_SCALE_LEARNED && m->cfg.pos_scale.value == 0)
        m->cfg.pos_scale.value = (float)(1.0 / sqrt((double)cfg->C));
    int V = cfg->V, C = cfg->C, L = cfg->L;
    ordo_params *p = &m->params;
    ordo_params_init(p);
    char name[64];
    m->pos = ordo_pos_state_new(cfg->pos, &m->cfg);
    ordo_embedding_layer_init(&m->wte, p, "wte.weight", V, C, 0);
    if (row->declare) row->declare(m->pos, p, ORDO_POS_AFTER_WTE, L);
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
    if (row->declare) row->declare(m->pos, p, ORDO_POS_AFTER_LN_F, L);
    if (cfg->untied_head) m->lm_head = ordo_params_add(p, "lm_head.weight", 2, (int[]){V, C}, 0);
    // the learned relative biases last, so that the other weights are those of every scheme
    if (row->declare) row->declare(m->pos, p, ORDO_POS_LAST, L);
    ordo_params_alloc(p);

    // GPT-2 init, in declaration order so that a seed always gives the same weights
    ordo_rng r;
    ordo_rng_seed(&r, seed);
    double resid_std = 0.02 / sqrt(2.0 * L);
    ordo_rng_fill_normal(&r, m->wte.table->data, m->wte.table->n, m->cfg.embed_std);
    if (row->init) row->init(m->pos, &r, ORDO_POS_AFTER_WTE); // the learned table
    for (int l = 0; l < L; l++) {
        ordo_gpt_block *b = &m->h[l];
        ordo_pos_fill_const(b->ln_1.w, 1.0f);
        ordo_pos_fill_const(b->ln_2.w, 1.0f);
        ordo_rng_fill_normal(&r, b->c_attn.w->data, b->c_attn.w->n, 0.02);
        ordo_rng_fill_normal(&r, b->attn_proj.w->data, b->attn_proj.w->n, resid_std);
        ordo_rng_fill_normal(&r, b->c_fc.w->data, b->c_fc.w->n, 0.02);
        ordo_rng_fill_normal(&r, b->mlp_proj.w->data, b->mlp_proj.w->n, resid_std);
    }
    ordo_pos_fill_const(m->ln_f.w, 1.0f); // biases and the T5 table stay zero
    // last, so that the other weights of a seed are those of a tied model; N(0, 0.02) as
    // GPT-2 (HF GPT2LMHeadModel) initialises every linear layer
    if (m->lm_head) ordo_rng_fill_normal(&r, m->lm_head->data, m->lm_head->n, 0.02);
    if (row->init) row->init(m->pos, &r, ORDO_POS_LAST);
    m->att = ordo_xcalloc((size_t)L, sizeof *m->att);
    m->pos_record = ordo_xcalloc((size_t)L, sizeof *m->pos_record);
    m->resid = ordo_xcalloc((size_t)L + 1, sizeof *m->resid);
    return ORDO_OK;
}

void ordo_gpt_free(ordo_gpt *m) {
    ordo_params_free(&m->params);
    free(m->h);
    ordo_pos_state_free(m->pos);
    free(m->att);
    free(m->resid);
    free(m->pos_record);
    memset(m, 0, sizeof *m);
}

ordo_tensor *ordo_gpt_wpe(const ordo_gpt *m) {
    return ordo_params_find(&m->params, "wpe.weight");
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
    // the frequencies now, the cos/sin tables at the next forward
    if (m->pos->row->invalidate) m->pos->row->invalidate(m->pos);
    return ORDO_OK;
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
                           int B, int T, ordo_tensor **logits, ordo_tensor **loss, double *row_loss,
                           const int32_t *pick, int npick) {
    const ordo_gpt_config *c = &m->cfg;
    int C = c->C, NH = c->NH;
    if (B <= 0 || T <= 0) return ordo_error(ORDO_ERR_ARG, "batch %d x length %d is empty", B, T);
    const ordo_pos_scheme *row = m->pos->row;
    if ((row->flags & ORDO_POS_F_LENGTH) && T > c->T_max)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past the learned position table (%d positions); the "
                          "learned scheme cannot describe positions it was not trained on",
                          T, c->T_max);
    int longest = row->max_length ? row->max_length(c) : 0;
    if (longest && T > longest)
        return ordo_error(ORDO_ERR_ARG,
                          "length %d is past what --pos %s can compute (%d tokens): %s", T,
                          ordo_pos_name(c->pos), longest, row->max_length_why);
    // viz's attention maps are the materialized path's probabilities
    int fused = ordo_attn_resolve(m->attention, T) == ORDO_ATTN_FUSED && !m->record_attention;
    for (size_t i = 0; i < (size_t)B * T; i++) {
        if (idx[i] < 0 || idx[i] >= c->V)
            return ordo_error(ORDO_ERR_ARG, "token id %d at position %zu is outside 0..%d", idx[i],
                              i, c->V - 1);
        if (targets && targets[i] >= c->V)
            return ordo_error(ORDO_ERR_ARG, "target id %d at position %zu is outside 0..%d",
                              targets[i], i, c->V - 1);
    }
    ordo_pos_step step = {.B = B, .T = T, .fused = fused, .record = m->record_attention};
    ordo_status s = ordo_gpt_forward_positions(m, ctx, B, T, &step.pos); // (B, T) or NULL
    if (s) return s;
    if (step.pos) step.n = ordo_gpt_positions_range(m, step.pos, B, T);

    // input: token embeddings plus the absolute position signal, if any
    ordo_tensor *x = ordo_embedding_layer_forward(&m->wte, ctx, idx, 2, (int[]){B, T}); // (B,T,C)
    // scaled before positions join; the tied head below reads the table unscaled, so wte's
    // gradient gathers both uses (the scale op's, through the embedding, and the head's)
    if (c->embed_scale != 1.0f) x = ordo_scale(ctx, x, c->embed_scale);
    // once for all layers: the scores' bias shared by the layers, the input signal, the
    // rotation's tables
    s = row->prepare ? row->prepare(m->pos, ctx, &step) : ORDO_OK;
    if (s) return s;
    if (step.input) x = ordo_add(ctx, x, step.input);

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
    if (m->record_attention) m->resid[0] = x->data;
    for (int l = 0; l < c->L; l++) {
        ordo_arena_pos layer_start = ordo_arena_mark(&ctx->arena);
        ordo_gpt_block *b = &m->h[l];
        uint64_t s_attn = ordo_rng_u64(&sites), s_r1 = ordo_rng_u64(&sites),
                 s_r2 = ordo_rng_u64(&sites);
        ordo_tensor *h = ordo_layernorm_layer_forward(&b->ln_1, ctx, x);  // (B, T, C)
        ordo_tensor *qkv = ordo_linear_layer_forward(&b->c_attn, ctx, h); // (B, T, 3C)
        if (row->qkv) qkv = row->qkv(m->pos, ctx, &step, qkv);            // rotated (rope, xpos)
        // this layer's bias: the shared one, or the layer's own (fox, cope)
        ordo_pos_layer own = {.tiles = step.tiles, .bias = step.bias};
        if (row->layer) row->layer(m->pos, ctx, &step, l, h, qkv, &own);
        if (m->record_attention) m->pos_record[l] = own.record;
        ordo_bias_tiles *lt = own.tiles;
        ordo_tensor *lb = own.bias;
        ordo_tensor *a; // (B, T, C)
        if (fused)      // the same dropout bits (seed, offset) as the materialized path's
            a = ordo_attention_fused(ctx, qkv, lt, NH, p_attn, s_attn, off_att);
        else
            a = ordo_attention_dropout(ctx, qkv, lb, NH, p_attn, s_attn, off_att);
        if (m->record_attention) m->att[l] = ctx->last_att; // (B, NH, T, T)
        h = ordo_linear_layer_forward(&b->attn_proj, ctx, a);
        x = residual(ctx, x, ordo_dropout(ctx, h, p_resid, s_r1, off_x), release);
        h = ordo_layernorm_layer_forward(&b->ln_2, ctx, x);
        h = ordo_gelu(ctx, ordo_linear_layer_forward(&b->c_fc, ctx, h)); // (B, T, 4C)
        h = ordo_linear_layer_forward(&b->mlp_proj, ctx, h);
        x = residual(ctx, x, ordo_dropout(ctx, h, p_resid, s_r2, off_x), release);
        if (m->record_attention) m->resid[l + 1] = x->data;
        if (release) {
            ordo_arena_release(&ctx->arena, layer_start);
            ctx->last_att = NULL;
        }
        if (m->on_layer) m->on_layer(m->on_layer_arg, l + 1, c->L);
    }
    x = ordo_layernorm_layer_forward(&m->ln_f, ctx, x);
    ordo_tensor *head = m->lm_head ? m->lm_head : m->wte.table; // (V, C), tied or not
    if (!logits) { // the loss alone: the head in row chunks, no (B, T, V) logits (lmhead.h)
        if (loss) *loss = targets ? ordo_lm_head_loss(ctx, x, head, targets, 0, row_loss) : NULL;
        return ORDO_OK;
    }
    if (pick) { // the head at the picked positions only; no tape (ordo_gpt_forward_pick)
        ordo_tensor *xs = ordo_tensor_new2(ctx, npick, C); // (npick, C)
        for (int k = 0; k < npick; k++) {
            ORDO_ASSERT(pick[k] >= 0 && (size_t)pick[k] < (size_t)B * T);
            memcpy(xs->data + (size_t)k * C, x->data + (size_t)pick[k] * C, C * sizeof(float));
        }
        *logits = ordo_matmul(ctx, xs, head, 1); // (npick, V)
        return ORDO_OK;
    }
    ordo_tensor *lg = ordo_matmul(ctx, x, head, 1); // (B, T, V)
    *logits = lg;
    if (loss) *loss = targets ? ordo_cross_entropy(ctx, lg, targets) : NULL;
    return ORDO_OK;
}

ordo_status ordo_gpt_forward(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, const int32_t *targets,
                             int B, int T, ordo_tensor **logits, ordo_tensor **loss) {
    return forward(m, ctx, idx, targets, B, T, logits, loss, NULL, NULL, 0);
}

ordo_status ordo_gpt_forward_loss(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx,
                                  const int32_t *targets, int B, int T, double *row_loss,
                                  ordo_tensor **loss) {
    return forward(m, ctx, idx, targets, B, T, NULL, loss, row_loss, NULL, 0);
}

ordo_status ordo_gpt_forward_pick(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, int B, int T,
                                  const int32_t *pick, int npick, ordo_tensor **logits) {
    // the picked rows are copied out of the graph: nothing would carry their gradient back
    ORDO_ASSERT(!ctx->grad_enabled && npick > 0);
    return forward(m, ctx, idx, NULL, B, T, logits, NULL, NULL, pick, npick);
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
    mt->n = n;
    // the scheme's options (models/pos/): each only when set, or always where a loader needs it
    const ordo_pos_scheme *row = ordo_pos_row(c->pos);
    if (row->meta) row->meta(c, mt);
    if (c->pos_random) ordo_pos_meta_num(mt, "pos_random", "%.0f", (double)c->pos_random);
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
