// Finite-difference gradient checks for every op, table-driven in the manner of ggml's
// test-backend-ops: each row of `cases` builds one op's small graphs from seeded random
// inputs, over five rounds of shapes that include odd sizes, B=1 and T=1. Every check must
// reach a max relative error below 1e-3; each case's graphs must put its op on the tape;
// and the run fails if some op of the enum never appeared on a tape (an op without a case).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "framework/autograd.h"
#include "framework/gradcheck.h"
#include "framework/lmhead.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "models/bias_tiles.h"
#include "models/pos/ops.h"
#include "models/positional.h"
#include "test.h"

#define MAX_REL 1e-3
#define COORDS  40
// Large enough that float32 rounding in the forward does not swamp the difference,
// small enough for the O(h^4) stencil error: measured best between 2e-2 and 5e-2.
#define STEP 3e-2

// One stream for the whole run: shapes, inputs and coordinates all come from it in order.
static ordo_rng rng;

// Leaf tensors live in a parameter block so that they carry a persistent grad.
typedef struct leaves {
    ordo_params p;
    ordo_tensor *t[8];
    int n;
} leaves;

static void leaves_begin(leaves *L) {
    ordo_params_init(&L->p);
    L->n = 0;
}
static void leaf(leaves *L, int ndim, const int *shape) {
    char name[16];
    snprintf(name, sizeof name, "in%d", L->n);
    L->t[L->n++] = ordo_params_add(&L->p, name, ndim, shape, 0);
}
static void leaves_fill(leaves *L, double scale) {
    ordo_params_alloc(&L->p);
    for (int k = 0; k < L->n; k++)
        for (size_t i = 0; i < L->t[k]->n; i++)
            L->t[k]->data[i] = (float)(scale * ordo_rng_normal(&rng));
}

static int pick(const int *choices, int n) {
    return choices[ordo_rng_below(&rng, n)];
}

// Batch, time and channel sizes the rounds draw from: odd ones, and 1.
static const int BS[] = {1, 2, 3}, TS[] = {1, 2, 5}, CS[] = {1, 3, 8, 7};

// A round's shapes, handed to every case, and what the running case's graphs recorded.
typedef struct gc_round {
    int rep, B, T, K, N;
    double step;                // the running case's finite-difference step
    int nodes[ORDO_POS_OP_END]; // nodes per op on the running case's tapes
} gc_round;

static int op_seen[ORDO_POS_OP_END]; // nodes per op on every tape of the run

static void run(gc_round *r, const char *what, ordo_gradcheck_fn fn, leaves *L, void *user) {
    ordo_gradcheck_result res;
    ordo_gradcheck(fn, L->t, L->n, user, COORDS, r->step, ordo_rng_u64(&rng), &res);
    CHECK_MSG(res.max_rel_err < MAX_REL && res.checked > 0,
              "%s: max rel err %.3g at input %d index %zu (analytic %.8g numeric %.8g)", what,
              res.max_rel_err, res.worst_input, res.worst_index, res.worst_analytic,
              res.worst_numeric);
    printf("  %-28s checked %4d coords, max rel err %.2e\n", what, res.checked, res.max_rel_err);
    for (int op = 0; op < ORDO_POS_OP_END; op++) {
        r->nodes[op] += res.op_nodes[op];
        op_seen[op] += res.op_nodes[op];
    }
    ordo_params_free(&L->p);
}

// ---- graph builders, called by the checker; `user` carries integer arguments
typedef struct args {
    int i[4];
    int32_t *ids;
    int ids_shape[3];
    ordo_tensor *qkv;   // a fixed input that is not checked
    ordo_tensor *fixed; // another (the fused tiles' fire.fc2.bias)
} args;

static ordo_tensor *g_matmul(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_matmul(c, in[0], in[1], ((args *)u)->i[0]);
}
static ordo_tensor *g_linear(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_linear(c, in[0], in[1], ((args *)u)->i[0] ? in[2] : NULL);
}
static ordo_tensor *g_bmm(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_bmm(c, in[0], in[1], ((args *)u)->i[0], ((args *)u)->i[1]);
}
static ordo_tensor *g_add(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_add(c, in[0], in[1]);
}
static ordo_tensor *g_mul(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_mul(c, in[0], in[1]);
}
static ordo_tensor *g_scale(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_scale(c, in[0], -1.7f);
}
static ordo_tensor *g_embedding(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    return ordo_embedding(c, in[0], a->ids, 2, a->ids_shape);
}
static ordo_tensor *g_layernorm(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_layernorm(c, in[0], in[1], in[2], 1e-5f);
}
static ordo_tensor *g_gelu(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_gelu(c, in[0]);
}
static ordo_tensor *g_softmax(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_softmax(c, in[0]);
}
static ordo_tensor *g_attention(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    return ordo_attention(c, in[0], a->i[1] ? in[1] : NULL, a->i[0]);
}
static ordo_tensor *g_xent(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_cross_entropy(c, in[0], ((args *)u)->ids);
}
static ordo_tensor *g_sum(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_sum(c, in[0]);
}
static ordo_tensor *g_mean(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_mean(c, in[0]);
}
static ordo_tensor *g_rope(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_rope(c, in[0], ((args *)u)->i[0], 10000.0, ((args *)u)->i[1]);
}
// The rotation with caller-made tables: YaRN's scaled frequencies and factor on q and k
// (models/positional.h), so that the tables are not a pure rotation (norm mscale^2).
static ordo_tensor *g_rope_cs(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    int T = in[0]->shape[1], hs = in[0]->shape[2] / 3 / a->i[0];
    ordo_rope_config rc = {ORDO_ROPE_SCALING_YARN, 4.0, 3};
    double inv[8];
    float cs[64 * 4], sn[64 * 4];
    ORDO_ASSERT(hs / 2 <= 8 && T * hs / 2 <= 64 * 4);
    double ms = ordo_rope_inv_freq(inv, hs, &rc);
    ordo_rope_tables(cs, sn, T, hs, inv, ms);
    return ordo_rope_cs(c, in[0], a->i[0], cs, sn);
}
// T5's bias as the model makes it: the table's row of each distance's bucket, gathered into a
// table by distance [T, NH] (ids: the bucket of d = 0..T-1), spread causally by dist_bias.
static ordo_tensor *bucket_bias(ordo_ctx *c, ordo_tensor *table, const int32_t *ids, int T) {
    return ordo_dist_bias(c, ordo_embedding(c, table, ids, 1, (int[]){T}), NULL, 1, T);
}
static ordo_tensor *g_bucket_bias(ordo_ctx *c, ordo_tensor **in, void *u) {
    return bucket_bias(c, in[0], ((args *)u)->ids, ((args *)u)->i[0]);
}
static ordo_tensor *g_reshape(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    ordo_tensor *r = ordo_reshape(c, in[0], 2, (int[]){a->i[0], a->i[1]});
    return ordo_gelu(c, r); // something non-linear after the view
}
// A composite: attention over rope'd qkv with a T5-style bias, then layernorm.
static ordo_tensor *g_block(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    ordo_tensor *qkv = ordo_rope(c, in[0], a->i[0], 10000.0, 0);
    ordo_tensor *bias = bucket_bias(c, in[1], a->ids, a->i[1]);
    ordo_tensor *y = ordo_attention(c, qkv, bias, a->i[0]);
    return ordo_layernorm(c, y, in[2], in[3], 1e-5f);
}
// The model's input with a scaled, tied token table (--embed-scale): the table is gathered,
// scaled and added to a position table, and read again unscaled as the LM head. Its gradient
// must gather both uses: through the scale op and the embedding, and through the matmul.
static ordo_tensor *g_tied_scaled(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    ordo_tensor *x = ordo_scale(c, ordo_embedding(c, in[0], a->ids, 2, a->ids_shape), 2.5f);
    x = ordo_gelu(c, ordo_add(c, x, in[1])); // (B, T, C)
    return ordo_matmul(c, x, in[0], 1);      // (B, T, V), tied head
}

// ---- the cases: one per op, each checking its graphs over the round's shapes

static void case_matmul(gc_round *r) {
    int B = r->B, T = r->T, K = r->K, N = r->N;
    for (int tw = 0; tw < 2; tw++) {
        leaves L;
        args a = {.i = {tw}};
        char what[64];
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, K});
        leaf(&L, 2, tw ? (int[]){N, K} : (int[]){K, N});
        leaves_fill(&L, 1.0);
        snprintf(what, sizeof what, "matmul(tw=%d)", tw);
        run(r, what, g_matmul, &L, &a);
    }
}

static void case_linear(gc_round *r) {
    for (int hb = 0; hb < 2; hb++) {
        leaves L;
        args a = {.i = {hb}};
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, r->T, r->K});
        leaf(&L, 2, (int[]){r->K, r->N});
        leaf(&L, 1, (int[]){r->N});
        leaves_fill(&L, 1.0);
        run(r, hb ? "linear(bias)" : "linear(no bias)", g_linear, &L, &a);
    }
}

static void case_bmm(gc_round *r) {
    int B = r->B, M = r->T, K = r->K, N = r->N;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            leaves L;
            args a = {.i = {ta, tb}};
            char what[64];
            leaves_begin(&L);
            leaf(&L, 3, ta ? (int[]){B, K, M} : (int[]){B, M, K});
            leaf(&L, 3, tb ? (int[]){B, N, K} : (int[]){B, K, N});
            leaves_fill(&L, 1.0);
            snprintf(what, sizeof what, "bmm(ta=%d,tb=%d)", ta, tb);
            run(r, what, g_bmm, &L, &a);
        }
}

// add and mul over the broadcasts the model uses: [B,T,C] + [T,C], + [C], + [B,T,C].
static void binary_shapes(gc_round *r, const char *name, ordo_gradcheck_fn fn) {
    int B = r->B, T = r->T, N = r->N;
    const int bshapes[3][3] = {{T, N}, {N}, {B, T, N}};
    const int bnd[3] = {2, 1, 3};
    const char *bname[3] = {"[T,C]", "[C]", "[B,T,C]"};
    for (int s = 0; s < 3; s++) {
        leaves L;
        args a = {0};
        char what[64];
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaf(&L, bnd[s], bshapes[s]);
        leaves_fill(&L, 1.0);
        snprintf(what, sizeof what, "%s([B,T,C]+%s)", name, bname[s]);
        run(r, what, fn, &L, &a);
    }
}
static void case_add(gc_round *r) {
    binary_shapes(r, "add", g_add);
}
static void case_mul(gc_round *r) {
    binary_shapes(r, "mul", g_mul);
}

// One input [B, T, N] filled with N(0, scale^2): scale, gelu, softmax, sum, mean.
static void unary(gc_round *r, const char *what, ordo_gradcheck_fn fn, double scale) {
    leaves L;
    args a = {0};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, r->T, r->N});
    leaves_fill(&L, scale);
    run(r, what, fn, &L, &a);
}
static void case_scale(gc_round *r) {
    unary(r, "scale", g_scale, 1.0);
}

static void case_embedding(gc_round *r) { // with repeated ids
    int B = r->B, T = r->T;
    int rowsN = 3 + (int)ordo_rng_below(&rng, 4);
    int32_t ids[64];
    for (int i = 0; i < B * T; i++) ids[i] = (int32_t)ordo_rng_below(&rng, rowsN);
    if (B * T > 1) ids[B * T - 1] = ids[0]; // at least one repeat
    leaves L;
    args a = {.ids = ids, .ids_shape = {B, T}};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){rowsN, r->N});
    leaves_fill(&L, 1.0);
    run(r, "embedding", g_embedding, &L, &a);
}

static void case_layernorm(gc_round *r) {
    int C = r->N < 4 ? 4 : r->N; // over few channels layernorm is nearly a sign function
    leaves L;
    args a = {0};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, r->T, C});
    leaf(&L, 1, (int[]){C});
    leaf(&L, 1, (int[]){C});
    leaves_fill(&L, 1.0);
    run(r, "layernorm", g_layernorm, &L, &a);
}

static void case_gelu(gc_round *r) {
    unary(r, "gelu", g_gelu, 1.5);
}
static void case_softmax(gc_round *r) {
    unary(r, "softmax", g_softmax, 1.5);
}

static void case_attention(gc_round *r) {
    for (int nh = 1; nh <= 3; nh++) {
        for (int hb = 0; hb < 2; hb++) {
            int hs = 1 + (int)ordo_rng_below(&rng, 3), Ca = nh * hs;
            int Ta = r->T + (int)ordo_rng_below(&rng, 3);
            leaves L;
            args a = {.i = {nh, hb}};
            char what[64];
            leaves_begin(&L);
            leaf(&L, 3, (int[]){r->B, Ta, 3 * Ca});
            leaf(&L, 3, (int[]){nh, Ta, Ta});
            leaves_fill(&L, 1.0);
            snprintf(what, sizeof what, "attention(NH=%d,T=%d%s)", nh, Ta, hb ? ",bias" : "");
            run(r, what, g_attention, &L, &a);
        }
    }
    { // long enough for several causal row blocks (64 rows each), the last one partial
        int nh = 2, Ca = 2 * 2, Ta = 137;
        leaves L;
        args a = {.i = {nh, 1}};
        leaves_begin(&L);
        leaf(&L, 3, (int[]){1, Ta, 3 * Ca});
        leaf(&L, 3, (int[]){nh, Ta, Ta});
        leaves_fill(&L, 0.3); // smaller values: a float softmax over 137 keys, differenced
        run(r, "attention(NH=2,T=137,bias)", g_attention, &L, &a);
    }
}

static void case_cross_entropy(gc_round *r) { // with an ignored target
    int B = r->B, T = r->T;
    int V = 2 + pick(CS, 4);
    int32_t tg[64];
    for (int i = 0; i < B * T; i++) tg[i] = (int32_t)ordo_rng_below(&rng, V);
    if (B * T > 2) tg[1] = -1;
    leaves L;
    args a = {.ids = tg};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){B, T, V});
    leaves_fill(&L, 2.0);
    run(r, "cross_entropy", g_xent, &L, &a);
}

// the chunked LM head + cross-entropy, 2 rows per chunk (the last one short when
// B*T is odd), with an ignored target; x and the head both checked.
static ordo_tensor *g_lm_head(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_lm_head_loss(c, in[0], in[1], ((args *)u)->ids, 2, NULL);
}

static void case_lm_head(gc_round *r) {
    int B = r->B, T = r->T, Cx = r->K;
    int V = 2 + pick(CS, 4);
    int32_t tg[64];
    for (int i = 0; i < B * T; i++) tg[i] = (int32_t)ordo_rng_below(&rng, V);
    if (B * T > 2) tg[1] = -1;
    leaves L;
    args a = {.ids = tg};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){B, T, Cx});
    leaf(&L, 2, (int[]){V, Cx});
    leaves_fill(&L, 1.0);
    run(r, "lm_head_loss", g_lm_head, &L, &a);
}

static void case_sum(gc_round *r) {
    unary(r, "sum", g_sum, 1.0);
}
static void case_mean(gc_round *r) {
    unary(r, "mean", g_mean, 1.0);
}

static void case_rope(gc_round *r) {
    for (int nh = 1; nh <= 2; nh++) {
        int hs = 2 * (1 + (int)ordo_rng_below(&rng, 3));
        leaves L;
        args a = {.i = {nh, r->rep * 3}}; // a position offset too
        char what[64];
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, r->T + 2, 3 * nh * hs});
        leaves_fill(&L, 1.0);
        snprintf(what, sizeof what, "rope(NH=%d,hs=%d)", nh, hs);
        run(r, what, g_rope, &L, &a);
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, r->T + 2, 3 * nh * hs});
        leaves_fill(&L, 1.0);
        snprintf(what, sizeof what, "rope_cs yarn(NH=%d,hs=%d)", nh, hs);
        run(r, what, g_rope_cs, &L, &a);
    }
}

static void case_bucket_bias(gc_round *r) { // with buckets that several distances share
    int Tb = r->T + 1, NB = 4, NH = 2;
    int32_t bucket[64];
    for (int d = 0; d < Tb; d++) bucket[d] = d % NB;
    leaves L;
    args a = {.i = {Tb}, .ids = bucket};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){NB, NH});
    leaves_fill(&L, 1.0);
    run(r, "bucket gather + dist_bias", g_bucket_bias, &L, &a);
}

static void case_reshape(gc_round *r) {
    leaves L;
    args a = {.i = {r->B * r->T, r->N}};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, r->T, r->N});
    leaves_fill(&L, 1.0);
    run(r, "reshape", g_reshape, &L, &a);
}

static void case_block(gc_round *r) { // rope + bucket bias + attention + layernorm
    int NH = 2, hs = 4, Cb = NH * hs, Tb = r->T + 2, NB = 3;
    int32_t bucket[64];
    for (int d = 0; d < Tb; d++) bucket[d] = d % NB;
    leaves L;
    args a = {.i = {NH, Tb}, .ids = bucket};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, Tb, 3 * Cb});
    leaf(&L, 2, (int[]){NB, NH});
    leaf(&L, 1, (int[]){Cb});
    leaf(&L, 1, (int[]){Cb});
    leaves_fill(&L, 0.5);
    run(r, "composite block", g_block, &L, &a);
}

static void case_tied_scaled(gc_round *r) { // repeated ids, as case_embedding
    int B = r->B, T = r->T;
    int V = 3 + (int)ordo_rng_below(&rng, 4);
    int32_t ids[64];
    for (int i = 0; i < B * T; i++) ids[i] = (int32_t)ordo_rng_below(&rng, V);
    if (B * T > 1) ids[B * T - 1] = ids[0];
    leaves L;
    args a = {.ids = ids, .ids_shape = {B, T}};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){V, r->N});
    leaf(&L, 2, (int[]){T, r->N});
    leaves_fill(&L, 0.5);
    run(r, "tied scaled embedding", g_tied_scaled, &L, &a);
}

// ---- partial rotary on a subset of heads (the first rd dims of the first nrot
// heads rotate, with scaled tables as case_rope's rope_cs), and a learned scalar on the
// absolute positions (x + s * pe, then something non-linear so that s's gradient is not flat)
static ordo_tensor *g_rope_part(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    int NH = a->i[0], rd = a->i[1], nrot = a->i[2], T = in[0]->shape[1];
    ordo_rope_config rc = {ORDO_ROPE_SCALING_YARN, 4.0, 3};
    double inv[8];
    float cs[64 * 4], sn[64 * 4];
    ORDO_ASSERT(rd / 2 <= 8 && T * rd / 2 <= 64 * 4);
    double ms = ordo_rope_inv_freq(inv, rd, &rc);
    ordo_rope_tables(cs, sn, T, rd, inv, ms);
    return ordo_rope_part(c, in[0], NH, rd, nrot, cs, sn);
}
static ordo_tensor *g_scale_by(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_gelu(c, ordo_add(c, in[0], ordo_scale_by(c, in[1], in[2])));
}

static void case_rope_part(gc_round *r) {
    ordo_rng own, saved = rng; // the global stream restored after: other cases draw as before
    ordo_rng_seed(&own, 2600 + (uint64_t)r->rep);
    for (int nh = 2; nh <= 3; nh++) {
        int hs = 2 * (2 + (int)ordo_rng_below(&own, 2));                      // 4 or 6
        int rd = 2 * (1 + (int)ordo_rng_below(&own, (unsigned)(hs / 2 - 1))); // 2..hs-2
        int nrot = 1 + (int)ordo_rng_below(&own, (unsigned)nh);               // 1..nh
        leaves L;
        args a = {.i = {nh, rd, nrot}};
        char what[64];
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, r->T + 2, 3 * nh * hs});
        leaves_fill(&L, 1.0);
        snprintf(what, sizeof what, "rope_part(NH=%d,hs=%d,rd=%d,nrot=%d)", nh, hs, rd, nrot);
        run(r, what, g_rope_part, &L, &a);
    }
    rng = saved;
}

static void case_scale_by(gc_round *r) {
    ordo_rng saved = rng; // restored after, as case_rope_part
    leaves L;
    args a = {0};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, r->T, r->N}); // tokens (B, T, C)
    leaf(&L, 2, (int[]){r->T, r->N});       // positions (T, C)
    leaf(&L, 1, (int[]){1});                // the scale
    leaves_fill(&L, 1.0);
    run(r, "scale_by (pos-scale learned)", g_scale_by, &L, &a);
    rng = saved;
}

// ---- model options: dropout (inverted, a fixed mask per seed, so the function
// differenced is the same at every evaluation), alone and on attention's probabilities
static ordo_tensor *g_dropout(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    return ordo_gelu(c, ordo_dropout(c, in[0], 0.3f, (uint64_t)a->i[0], (size_t)a->i[1]));
}
static ordo_tensor *g_attention_dropout(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    return ordo_attention_dropout(c, in[0], a->i[1] ? in[1] : NULL, a->i[0], 0.25f,
                                  (uint64_t)a->i[2], 0);
}

static void case_dropout(gc_round *r) {
    leaves L;
    args a = {.i = {1000 + r->rep, 7 * r->rep}}; // seed, offset
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, r->T + 2, r->N + 2});
    leaves_fill(&L, 1.0);
    run(r, "dropout(p=0.3)", g_dropout, &L, &a);
    for (int hb = 0; hb < 2; hb++) {
        // more (batch, head) pairs than threads: each thread's scratch is reused within a call
        int nh = 3, hs = 2, Ca = nh * hs, Ta = r->T + 3;
        leaves_begin(&L);
        args b = {.i = {nh, hb, 77 + r->rep}};
        leaf(&L, 3, (int[]){r->B + 2, Ta, 3 * Ca});
        leaf(&L, 3, (int[]){nh, Ta, Ta});
        leaves_fill(&L, 1.0);
        run(r, hb ? "attention dropout(bias)" : "attention dropout", g_attention_dropout, &L, &b);
    }
}

// The mask: the rate of zeros is p within 5 standard deviations of a binomial over 2^20 draws,
// the kept values are x / (1 - p) exactly, the same seed and offset give the same bits, a
// share at an offset gives the whole's bits, another seed other bits, and p = 0 is x itself.
static void check_dropout_mask(void) {
    enum { N = 1 << 20 };
    uint8_t *k = malloc(N), *k2 = malloc(N);
    const float ps[] = {0.1f, 0.5f, 0.9f};
    for (int i = 0; i < 3; i++) {
        ordo_dropout_mask(k, N, ps[i], 42, 0);
        size_t zeros = 0;
        for (size_t j = 0; j < N; j++) zeros += !k[j];
        double sd = sqrt((double)N * ps[i] * (1 - ps[i])), dev = fabs(zeros - (double)N * ps[i]);
        CHECK_MSG(dev < 5 * sd, "p=%g: %zu zeros of %d (%.1f sd off)", ps[i], zeros, N, dev / sd);
        printf("  dropout mask p=%.1f: %.5f dropped (%.2f sd)\n", ps[i], (double)zeros / N,
               dev / sd);
    }
    ordo_dropout_mask(k, N, 0.5f, 42, 0);
    ordo_dropout_mask(k2, N / 2, 0.5f, 42, N / 2); // the second half as its own share
    CHECK(memcmp(k + N / 2, k2, N / 2) == 0);
    ordo_dropout_mask(k2, N, 0.5f, 43, 0);
    size_t same = 0;
    for (size_t j = 0; j < N; j++) same += k[j] == k2[j];
    CHECK_MSG(fabs((double)same / N - 0.5) < 0.01, "seeds 42 and 43 agree on %zu of %d", same, N);
    free(k);
    free(k2);

    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *x = ordo_tensor_new(&ctx, 2, (int[]){64, 64});
    for (size_t i = 0; i < x->n; i++) x->data[i] = (float)ordo_rng_normal(&rng);
    CHECK(ordo_dropout(&ctx, x, 0.0f, 5, 0) == x); // p = 0: no op at all
    ordo_tensor *y = ordo_dropout(&ctx, x, 0.25f, 5, 0);
    int bad = 0;
    for (size_t i = 0; i < x->n; i++)
        bad += y->data[i] != 0.0f && y->data[i] != x->data[i] * (1.0f / 0.75f);
    CHECK_MSG(bad == 0, "%d kept values are not x / (1 - p)", bad);

    // attention's dropout: out = (att * keep / (1 - p)) @ v, with att (last_att) undropped
    // (B, NH) = (3, 2): more pairs than threads, so that scratch blocks are reused in a call
    enum { B = 3, NH = 2, T = 9, C = 4, hs = C / NH };
    // the arena's memory dirty (NaN), as a training step finds it after the first one
    ordo_ctx_reset(&ctx);
    ordo_tensor *dirty = ordo_tensor_new(&ctx, 1, (int[]){1 << 16});
    for (size_t i = 0; i < dirty->n; i++) dirty->data[i] = NAN;
    ordo_ctx_reset(&ctx);
    ordo_tensor *qkv = ordo_tensor_new(&ctx, 3, (int[]){B, T, 3 * C});
    for (size_t i = 0; i < qkv->n; i++) qkv->data[i] = (float)ordo_rng_normal(&rng);
    ordo_tensor *o = ordo_attention_dropout(&ctx, qkv, NULL, NH, 0.5f, 9, 0);
    uint8_t keep[B * NH * T * T];
    ordo_dropout_mask(keep, sizeof keep, 0.5f, 9, 0);
    double err = 0;
    int dropped = 0;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < NH; h++) {
            const uint8_t *km = keep + (b * NH + h) * T * T;
            const float *a = ctx.last_att + (b * NH + h) * T * T;
            for (int i = 0; i < T; i++) {
                for (int c = 0; c < hs; c++) {
                    double want = 0;
                    for (int j = 0; j <= i; j++)
                        want += km[i * T + j] * 2.0 * a[i * T + j] *
                                qkv->data[(b * T + j) * 3 * C + 2 * C + h * hs + c];
                    double d = fabs(want - o->data[(b * T + i) * C + h * hs + c]);
                    err = d <= err ? err : isnan(d) ? INFINITY : d; // NaN counts
                }
                for (int j = 0; j <= i; j++) dropped += !km[i * T + j];
            }
        }
    CHECK_MSG(err < 1e-5 && dropped > 0, "attention dropout: error %.3g, %d dropped", err, dropped);
    ordo_ctx_free(&ctx);
}

// ---- the learned relative biases (FIRE, Kerple). Their inputs are kept away from
// the kinks (relu at 0, |c| at 0, max(i, L) at integer L) by more than the step.

static ordo_tensor *g_relu(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_relu(c, in[0]);
}
static ordo_tensor *g_fire_dist(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_fire_dist(c, in[0], in[1], ((args *)u)->i[0], 2.0f, 1e-6f);
}
static ordo_tensor *g_pair_bias(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_pair_bias(c, in[0], ((args *)u)->i[0]);
}
// Kerple's bias at 0..T-1 as the model makes it: its table by distance, spread by dist_bias.
static ordo_tensor *g_kerple(ordo_ctx *c, ordo_tensor **in, void *u) {
    int T = ((args *)u)->i[0];
    return ordo_dist_bias(c, ordo_kerple_table(c, in[0], in[1], T, ((args *)u)->i[1]), NULL, 1, T);
}
// FIRE as the model composes it (biases left out for the 4 leaves), into attention.
static ordo_tensor *g_fire(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    int T = a->i[0];
    ordo_tensor *d = ordo_fire_dist(c, in[0], in[1], T, 2.0f, 1e-6f);
    ordo_tensor *b = ordo_pair_bias(
        c, ordo_linear(c, ordo_relu(c, ordo_linear(c, d, in[2], NULL)), in[3], NULL), T);
    return ordo_attention(c, a->qkv, b, in[3]->shape[1]);
}

static double uniform(double lo, double hi) {
    return lo + (hi - lo) * ordo_rng_uniform(&rng);
}

static void case_relu(gc_round *r) {
    leaves L;
    args a = {0};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, r->T, r->N});
    leaves_fill(&L, 1.0);
    ordo_tensor *x = L.t[0];
    for (size_t i = 0; i < x->n; i++) x->data[i] += x->data[i] >= 0 ? 0.1f : -0.1f;
    run(r, "relu", g_relu, &L, &a);
}

// c of both signs; L = 2|lmul| in [2.4, 2.6], so that positions 0..T+2 fall on both sides
static void case_fire_dist(gc_round *r) {
    for (int sign = 1; sign >= -1; sign -= 2) {
        leaves L;
        args a = {.i = {r->T + 3}};
        leaves_begin(&L);
        leaf(&L, 1, (int[]){1});
        leaf(&L, 1, (int[]){1});
        leaves_fill(&L, 1.0);
        L.t[0]->data[0] = (float)(sign * uniform(0.2, 0.8));
        L.t[1]->data[0] = (float)(sign * uniform(1.2, 1.3));
        run(r, sign > 0 ? "fire_dist(c>0)" : "fire_dist(c<0, lmul<0)", g_fire_dist, &L, &a);
    }
}

static void case_pair_bias(gc_round *r) {
    int T = r->T + 1, NH = 1 + (int)ordo_rng_below(&rng, 3);
    leaves L;
    args a = {.i = {T}};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){T * (T + 1) / 2, NH});
    leaves_fill(&L, 1.0);
    run(r, "pair_bias", g_pair_bias, &L, &a);
}

static void case_kerple(gc_round *r) {
    for (int power = 0; power <= 1; power++) {
        int NH = 1 + (int)ordo_rng_below(&rng, 3);
        leaves L;
        args a = {.i = {r->T + 3, power}};
        leaves_begin(&L);
        leaf(&L, 1, (int[]){NH});
        leaf(&L, 1, (int[]){NH});
        leaves_fill(&L, 1.0);
        for (int h = 0; h < NH; h++) {
            L.t[0]->data[h] = (float)uniform(0.2, 1.5);
            L.t[1]->data[h] = (float)uniform(0.2, power ? 1.8 : 1.5);
        }
        run(r, power ? "kerple bias(power)" : "kerple bias(log)", g_kerple, &L, &a);
    }
}

static void case_fire(gc_round *r) {
    int NH = 2, hs = 3, T = r->T + 3, W = 5;
    ordo_ctx ctx; // holds the fixed qkv that the bias acts on
    ordo_ctx_init(&ctx);
    leaves L;
    args a = {.i = {T}, .qkv = ordo_tensor_new3(&ctx, r->B, T, 3 * NH * hs)};
    for (size_t i = 0; i < a.qkv->n; i++) a.qkv->data[i] = (float)ordo_rng_normal(&rng);
    leaves_begin(&L);
    leaf(&L, 1, (int[]){1});
    leaf(&L, 1, (int[]){1});
    leaf(&L, 2, (int[]){1, W});
    leaf(&L, 2, (int[]){W, NH});
    leaves_fill(&L, 1.0);
    L.t[0]->data[0] = (float)uniform(0.2, 0.8);
    L.t[1]->data[0] = (float)uniform(1.2, 1.3);
    for (int k = 0; k < W; k++) L.t[2]->data[k] += L.t[2]->data[k] >= 0 ? 0.2f : -0.2f;
    run(r, "fire bias into attention", g_fire, &L, &a);
    ordo_ctx_free(&ctx);
}

#define OP(x) (1u << (x))
_Static_assert(ORDO_POS_OP_END <= 32, "the cases' op masks are 32 bits");

// ---- the fused attention (flash.h) with a bias computed in the tile: a learned
// slope per head times the distance, b(h, i, j) = -slope[h] (i - j) / 16, its parameter
// checked. The 1/16: at T = 70 the loss is so curved in a slope times the raw distance that
// the common step leaves a 2% stencil error (measured), and a smaller one drowns q, k and v
// in float noise.
typedef struct slope_bias {
    const float *slope;
} slope_bias;
static void slope_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                       int ld) {
    const slope_bias *sb = self;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++)
            s[r * ld + c] -= sb->slope[h] * (float)(i0 + r - j0 - c) * 0.0625f;
}
static void slope_grad(const void *self, int b, int h, int i0, int nr, int j0, int nc,
                       const float *ds, int ld, float *g) {
    (void)self;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) g[h] -= ds[r * ld + c] * (float)(i0 + r - j0 - c) * 0.0625f;
}
static ordo_tensor *g_attention_fused(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    // the bias must live until backward: static, remade from the (perturbed) slopes each call
    static slope_bias sb;
    ordo_fused_bias bias = {.n_params = 1};
    if (a->i[1]) {
        sb.slope = in[1]->data;
        bias.bias = (ordo_attn_bias){&sb, slope_fill, slope_grad, in[1]->n, 0, 0, NULL};
        bias.params[0] = in[1];
    }
    return ordo_attention_fused(c, in[0], a->i[1] ? &bias : NULL, a->i[0], a->i[2] ? 0.25f : 0.0f,
                                (uint64_t)a->i[3], 0);
}

static void case_attention_fused(gc_round *r) {
    for (int hb = 0; hb < 2; hb++) {
        for (int drop = 0; drop < 2; drop++) {
            int nh = 2, hs = 1 + (int)ordo_rng_below(&rng, 3), Ca = nh * hs;
            int Ta = r->T + (int)ordo_rng_below(&rng, 3);
            leaves L;
            args a = {.i = {nh, hb, drop, 31 + r->rep}};
            char what[64];
            leaves_begin(&L);
            leaf(&L, 3, (int[]){r->B, Ta, 3 * Ca});
            if (hb) leaf(&L, 1, (int[]){nh});
            leaves_fill(&L, 1.0);
            if (hb) L.t[1]->data[0] = 0.3f, L.t[1]->data[1] = 0.1f;
            snprintf(what, sizeof what, "attention_fused(T=%d%s%s)", Ta, hb ? ",bias" : "",
                     drop ? ",dropout" : "");
            run(r, what, g_attention_fused, &L, &a);
        }
    }
    { // past one tile (64 rows), the last one partial
        leaves L;
        args a = {.i = {2, 1, 0, 5}};
        leaves_begin(&L);
        leaf(&L, 3, (int[]){1, 70, 3 * 4});
        leaf(&L, 1, (int[]){2});
        leaves_fill(&L, 0.3);
        L.t[1]->data[0] = 0.2f, L.t[1]->data[1] = 0.05f;
        run(r, "attention_fused(T=70,bias)", g_attention_fused, &L, &a);
    }
}

// ---- each scheme's bias tiles (models/bias_tiles.h) in the fused attention, its
// parameters checked through the op (alibi has none: the fused cases above cover a bias
// without parameters). FIRE: u lies in {0} (the diagonal) and above about 0.2 (d >= 1 at these
// lengths, c in 0.2..0.8, L = 2 |l| about 2.5, rows on both sides of it); units 0 and 1 have
// their kink at u = 0.1, between the two, farther from every pair than the step moves it, so
// that b1 gets a gradient and no pair sits on a kink (test_bias_tiles checks pairs at kinks
// against the materialized ops); units 2 and 3 are on, and off, over all of 0..1.
// fire.fc2.bias is held fixed: its gradient is exactly zero (softmax ignores a constant added
// to a row), so a finite difference of it is noise alone.
// t5's and kerple's table by distance [n, NH] from the leaves in[1..2], as the model makes it:
// t5's rows gathered by each distance's bucket, kerple's values.
static ordo_tensor *family_table(ordo_ctx *c, ordo_tensor **in, int pos, int n) {
    if (pos != ORDO_POS_T5)
        return ordo_kerple_table(c, in[1], in[2], n, pos == ORDO_POS_KERPLE_POWER);
    int32_t *ids = ordo_arena_alloc(&c->arena, (size_t)n * sizeof(int32_t)); // (n)
    for (int d = 0; d < n; d++) ids[d] = ordo_t5_bucket(d);
    return ordo_embedding(c, in[1], ids, 1, (int[]){n});
}
static ordo_tensor *g_fused_tiles(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[0] = NH, i[1] = the scheme
    int T = in[0]->shape[1];
    ordo_bias_tiles *bt;
    if (a->i[1] == ORDO_POS_FIRE)
        bt = ordo_fire_tiles(c, in[1], in[2], in[3], a->fixed, in[4], in[5], T, 2.0f, 1e-6f);
    else
        bt = ordo_distance_tiles(c, family_table(c, in, a->i[1], T), NULL, 1, T);
    return ordo_attention_fused(c, in[0], bt, a->i[0], 0.0f, 0, 0);
}

static void case_fused_tiles(gc_round *r) {
    const ordo_pos schemes[] = {ORDO_POS_T5, ORDO_POS_KERPLE, ORDO_POS_KERPLE_POWER, ORDO_POS_FIRE};
    for (int k = 0; k < 4; k++) {
        int nh = 2, hs = 2, W = 4, Ta = r->T + 3 + (int)ordo_rng_below(&rng, 3);
        ordo_pos pos = schemes[k];
        ordo_ctx ctx; // holds fire's fixed fc2.bias
        ordo_ctx_init(&ctx);
        leaves L;
        args a = {.i = {nh, (int)pos}, .fixed = ordo_tensor_new(&ctx, 1, (int[]){nh})};
        for (int h = 0; h < nh; h++) a.fixed->data[h] = (float)uniform(-0.2, 0.2);
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, Ta, 3 * nh * hs});
        if (pos == ORDO_POS_T5) {
            leaf(&L, 2, (int[]){ORDO_T5_BUCKETS, nh});
        } else if (pos == ORDO_POS_FIRE) {
            leaf(&L, 2, (int[]){1, W});
            leaf(&L, 1, (int[]){W});
            leaf(&L, 2, (int[]){W, nh});
            leaf(&L, 1, (int[]){1});
            leaf(&L, 1, (int[]){1});
        } else {
            leaf(&L, 1, (int[]){nh});
            leaf(&L, 1, (int[]){nh});
        }
        leaves_fill(&L, 1.0);
        if (pos == ORDO_POS_FIRE) {
            for (int u = 0; u < W; u++) {
                double w = uniform(0.8, 1.2) * (u % 2 ? -1 : 1);
                L.t[1]->data[u] = (float)w;
                L.t[2]->data[u] = (float)(u < 2    ? -0.1 * w             // the kink at u = 0.1
                                          : u == 2 ? uniform(1.4, 1.6)    // on: w u + b >= 0.2
                                                   : -uniform(1.4, 1.6)); // off
            }
            L.t[4]->data[0] = (float)uniform(0.2, 0.8);
            L.t[5]->data[0] = (float)uniform(1.2, 1.3);
        } else if (pos != ORDO_POS_T5) { // away from kerple's clamp, the power's d^r2 at 0
            for (int h = 0; h < nh; h++) {
                L.t[1]->data[h] = (float)uniform(0.2, 1.5);
                L.t[2]->data[h] = (float)uniform(0.3, pos == ORDO_POS_KERPLE_POWER ? 1.6 : 1.5);
            }
        }
        char what[64];
        snprintf(what, sizeof what, "attention_fused(%s tiles, T=%d)", ordo_pos_name(pos), Ta);
        run(r, what, g_fused_tiles, &L, &a);
        ordo_ctx_free(&ctx);
    }
}

// ---- fox, the forget gate. c = cum_logsigmoid(x w + b) (B, NH, T), and the bias
// c_i - c_j: materialized (diff_bias into attention's per-row bias) and in the fused tiles
// (per_batch: the gradient of c straight from the tiles); x, the gate's w and b, and qkv
// checked. i[0] = NH, i[1] = 0 the gate alone, 1 materialized, 2 fused.
static ordo_tensor *g_fox(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    ordo_tensor *cf = ordo_cum_logsigmoid(c, ordo_linear(c, in[0], in[1], in[2])); // (B, NH, T)
    if (a->i[1] == 0) return cf;
    if (a->i[1] == 1) return ordo_attention(c, in[3], ordo_diff_bias(c, cf), a->i[0]);
    ordo_bias_tiles *bt = ordo_fox_tiles(c, cf);
    return ordo_attention_fused(c, in[3], bt, a->i[0], 0.0f, 0, 0);
}

static void case_fox(gc_round *r) {
    ordo_rng saved = rng; // restored after, as case_rope_part
    for (int mode = 0; mode < 3; mode++) {
        int nh = 2, hs = 2, Cx = r->K;
        // within one tile: past it (66, 70) float noise in the loss outgrows the stencil (2e-3;
        // a change of x_l moves every c_t, t >= l); test_schemes holds the tiles to the
        // materialized ops checked here at T 100 and 256
        int Ta = r->T + (int)ordo_rng_below(&rng, 3);
        leaves L;
        args a = {.i = {nh, mode}};
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, Ta, Cx}); // x (B, T, C)
        leaf(&L, 2, (int[]){Cx, nh});       // the gate's weight (C, NH)
        leaf(&L, 1, (int[]){nh});           // its bias (NH)
        if (mode) leaf(&L, 3, (int[]){r->B, Ta, 3 * nh * hs});
        leaves_fill(&L, 1.0);
        L.t[2]->data[0] = 2.0f, L.t[2]->data[1] = 0.0f; // gates near 0.9 and 0.5
        char what[64];
        snprintf(what, sizeof what, "fox %s (T=%d)",
                 mode == 0   ? "gate"
                 : mode == 1 ? "materialized"
                             : "fused tiles",
                 Ta);
        run(r, what, g_fox, &L, &a);
    }
    rng = saved;
}

// ---- dynamic position bias (dpb). silu and dist_bias on their own, then the
// MLP of the distances (1 -> W -> NH, SiLU, as the model composes it) into both
// attentions: the materialized one through dist_bias, the fused one through its tiles (the
// table's gradient made per distance in the tile, then backpropagated through the MLP).
static ordo_tensor *g_silu(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_silu(c, in[0]);
}
static ordo_tensor *g_dist_bias(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_dist_bias(c, in[0], NULL, 1, ((args *)u)->i[0]);
}
// The dpb table (T, NH) of depth 1 from leaves in[1..3] = w0, b0, w1 and the fixed b1 (deeper
// is the same ops again, and each more layer costs the check precision: see its step); the
// distances / T, so that a step of w0 moves the SiLUs' inputs by less than the step (at the
// raw distance, up to 70 times it: the stencil's error then passes 1e-3, measured). b2 is held
// fixed as fire's fc2.bias is: it adds a constant to a whole causal row, its gradient exactly zero.
static ordo_tensor *dpb_mlp(ordo_ctx *c, ordo_tensor **in, ordo_tensor *b2, int T) {
    ordo_tensor *x = ordo_tensor_new2(c, T, 1);
    for (int d = 0; d < T; d++) x->data[d] = 2.0f * d / T;
    x = ordo_silu(c, ordo_linear(c, x, in[1], in[2]));
    return ordo_linear(c, x, in[3], b2);
}
// The MLP into the materialized attention; the table itself (a leaf) into the fused one,
// whose tiles make its gradient per distance (the MLP's backward above the table is the same
// linear and silu nodes on both paths; tests/models/test_schemes.c compares the two).
static ordo_tensor *g_dpb(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[0] = NH
    int T = in[0]->shape[1];
    return ordo_attention(c, in[0], ordo_dist_bias(c, dpb_mlp(c, in, a->fixed, T), NULL, 1, T),
                          a->i[0]);
}
static ordo_tensor *g_dpb_tiles(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[0] = NH
    ordo_bias_tiles *bt = ordo_distance_tiles(c, in[1], NULL, 1, in[0]->shape[1]);
    return ordo_attention_fused(c, in[0], bt, a->i[0], 0.0f, 0, 0);
}

// These cases draw from a stream of their own, and leave the shared one as they found it, so
// that the cases before them draw, in every round, what they drew before these were added.
static ordo_rng own_stream(const gc_round *r) {
    ordo_rng saved = rng;
    ordo_rng_seed(&rng, 26001 + (uint64_t)r->rep);
    return saved;
}

static void case_silu(gc_round *r) {
    ordo_rng saved = own_stream(r);
    unary(r, "silu", g_silu, 2.0);
    rng = saved;
}

static void case_dist_bias(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int T = r->T + 1, NH = 1 + (int)ordo_rng_below(&rng, 3);
    leaves L;
    args a = {.i = {T}};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){T + 2, NH}); // a longer table: the op reads its first T rows
    leaves_fill(&L, 1.0);
    run(r, "dist_bias", g_dist_bias, &L, &a);
    rng = saved;
}

static void case_dpb(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int nh = 2, hs = 2, W = 4, T = r->T + 3;
    ordo_ctx ctx; // holds the fixed b2
    ordo_ctx_init(&ctx);
    leaves L;
    args a = {.i = {nh}, .fixed = ordo_tensor_new(&ctx, 1, (int[]){nh})};
    for (int h = 0; h < nh; h++) a.fixed->data[h] = (float)uniform(-0.2, 0.2);
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, T, 3 * nh * hs});
    leaf(&L, 2, (int[]){1, W});
    leaf(&L, 1, (int[]){W});
    leaf(&L, 2, (int[]){W, nh});
    leaves_fill(&L, 1.0);
    run(r, "dpb MLP into attention", g_dpb, &L, &a);
    ordo_ctx_free(&ctx);
    rng = saved;
}

static void case_dpb_tiles(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int nh = 2, hs = 2;
    leaves L;
    args a = {.i = {nh}};
    for (int k = 0; k < 2; k++) { // within one tile, and past it (the last one partial)
        int Ta = k ? r->T + 66 : r->T + 3;
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, Ta, 3 * nh * hs});
        leaf(&L, 2, (int[]){Ta, nh});
        leaves_fill(&L, 1.0);
        char what[64];
        snprintf(what, sizeof what, "attention_fused(dpb tiles, T=%d)", Ta);
        run(r, what, g_dpb_tiles, &L, &a);
    }
    rng = saved;
}

// ---- --pos-random for the relative schemes: the ops at per-row positions (fire_dist_at,
// pair_bias over B rows, kerple_table, dist_bias at positions) and the tiles at positions in the
// fused attention. The positions: each row a sorted draw of T of [0, T + 6) (distances past T).
static int32_t at_pos[3 * 80]; // (B, T) of the running case

static void draw_positions(int B, int T) {
    for (int b = 0; b < B; b++) ordo_random_positions(at_pos + b * T, T, T + 6, ordo_rng_u64(&rng));
}
static ordo_tensor *g_fire_dist_at(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[0] = T, i[1] = B
    return ordo_fire_dist_at(c, in[0], in[1], at_pos, a->i[1], a->i[0], 2.0f, 1e-6f);
}
static ordo_tensor *g_kerple_table(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_kerple_table(c, in[0], in[1], ((args *)u)->i[0], ((args *)u)->i[1]);
}
static ordo_tensor *g_dist_bias_at(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[0] = T, i[1] = B
    return ordo_dist_bias(c, in[0], at_pos, a->i[1], a->i[0]);
}
// Each scheme's tiles at the positions in the fused attention (i[2] = the scheme), and the
// materialized bias of the same leaves into ordo_attention (i[3] = 1).
static ordo_tensor *g_tiles_at(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[0] = NH
    int B = in[0]->shape[0], T = in[0]->shape[1], n = T + 6;
    ordo_bias_tiles *bt;
    if (a->i[3]) {
        ordo_tensor *x =
            a->i[2] == ORDO_POS_T5
                ? ordo_embedding(c, in[1], a->ids, 1, (int[]){n})
                : ordo_kerple_table(c, in[1], in[2], n, a->i[2] == ORDO_POS_KERPLE_POWER);
        return ordo_attention(c, in[0], ordo_dist_bias(c, x, at_pos, B, T), a->i[0]);
    }
    if (a->i[2] == ORDO_POS_FIRE)
        bt = ordo_fire_tiles_at(c, in[1], in[2], in[3], a->fixed, in[4], in[5], at_pos, B, T, n,
                                2.0f, 1e-6f);
    else if (a->i[2] == ORDO_POS_DPB)
        bt = ordo_distance_tiles(c, in[1], at_pos, B, T);
    else
        bt = ordo_distance_tiles(c, family_table(c, in, a->i[2], n), at_pos, B, T);
    return ordo_attention_fused(c, in[0], bt, a->i[0], 0.0f, 0, 0);
}

static void case_fire_dist_at(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int T = r->T + 2;
    draw_positions(r->B, T);
    leaves L;
    args a = {.i = {T, r->B}};
    leaves_begin(&L);
    leaf(&L, 1, (int[]){1});
    leaf(&L, 1, (int[]){1});
    leaves_fill(&L, 1.0);
    L.t[0]->data[0] = (float)uniform(0.2, 0.8);
    L.t[1]->data[0] = (float)uniform(1.2, 1.3); // L about 2.5: positions on both sides
    run(r, "fire_dist_at", g_fire_dist_at, &L, &a);
    rng = saved;
}

static void case_pair_bias_rows(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int T = r->T + 1, NH = 1 + (int)ordo_rng_below(&rng, 3), B = r->B + 1;
    leaves L;
    args a = {.i = {T}};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){B * T * (T + 1) / 2, NH});
    leaves_fill(&L, 1.0);
    run(r, "pair_bias(B rows)", g_pair_bias, &L, &a);
    rng = saved;
}

static void case_kerple_table(gc_round *r) {
    ordo_rng saved = own_stream(r);
    for (int power = 0; power <= 1; power++) {
        int NH = 1 + (int)ordo_rng_below(&rng, 3);
        leaves L;
        args a = {.i = {r->T + 4, power}};
        leaves_begin(&L);
        leaf(&L, 1, (int[]){NH});
        leaf(&L, 1, (int[]){NH});
        leaves_fill(&L, 1.0);
        for (int h = 0; h < NH; h++) {
            L.t[0]->data[h] = (float)uniform(0.2, 1.5);
            L.t[1]->data[h] = (float)uniform(0.2, power ? 1.8 : 1.5);
        }
        run(r, power ? "kerple_table(power)" : "kerple_table(log)", g_kerple_table, &L, &a);
    }
    rng = saved;
}

static void case_dist_bias_at(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int T = r->T + 1, NH = 1 + (int)ordo_rng_below(&rng, 3);
    draw_positions(r->B, T);
    leaves L;
    args a = {.i = {T, r->B}};
    leaves_begin(&L);
    leaf(&L, 2, (int[]){T + 6, NH});
    leaves_fill(&L, 1.0);
    run(r, "dist_bias_at", g_dist_bias_at, &L, &a);
    rng = saved;
}

// As case_fused_tiles, at positions; FIRE's pairs at d >= 1 keep u above its kinks at 0.1:
// u >= log(1 + c) / log(1 + c max(pos)) > 0.14 for c in 0.2..0.8 and positions below 14.
static void case_tiles_at(gc_round *r) {
    ordo_rng saved = own_stream(r);
    const ordo_pos schemes[] = {ORDO_POS_T5,  ORDO_POS_KERPLE, ORDO_POS_KERPLE_POWER, ORDO_POS_FIRE,
                                ORDO_POS_DPB, ORDO_POS_T5,     ORDO_POS_KERPLE};
    for (int k = 0; k < 7; k++) {
        int nh = 2, hs = 2, W = 4, Ta = r->T + 3, n = Ta + 6;
        ordo_pos pos = schemes[k];
        draw_positions(r->B, Ta);
        ordo_ctx ctx; // holds fire's fixed fc2.bias and t5's bucket ids
        ordo_ctx_init(&ctx);
        leaves L;
        args a = {.i = {nh, 0, (int)pos, k >= 5}, .fixed = ordo_tensor_new(&ctx, 1, (int[]){nh})};
        a.ids = ordo_arena_alloc(&ctx.arena, (size_t)n * sizeof(int32_t));
        for (int d = 0; d < n; d++) a.ids[d] = ordo_t5_bucket(d);
        for (int h = 0; h < nh; h++) a.fixed->data[h] = (float)uniform(-0.2, 0.2);
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, Ta, 3 * nh * hs});
        if (pos == ORDO_POS_T5) {
            leaf(&L, 2, (int[]){ORDO_T5_BUCKETS, nh});
        } else if (pos == ORDO_POS_DPB) {
            leaf(&L, 2, (int[]){n, nh});
        } else if (pos == ORDO_POS_FIRE) {
            leaf(&L, 2, (int[]){1, W});
            leaf(&L, 1, (int[]){W});
            leaf(&L, 2, (int[]){W, nh});
            leaf(&L, 1, (int[]){1});
            leaf(&L, 1, (int[]){1});
        } else {
            leaf(&L, 1, (int[]){nh});
            leaf(&L, 1, (int[]){nh});
        }
        leaves_fill(&L, 1.0);
        if (pos == ORDO_POS_FIRE) {
            for (int u = 0; u < W; u++) {
                double w = uniform(0.8, 1.2) * (u % 2 ? -1 : 1);
                L.t[1]->data[u] = (float)w;
                L.t[2]->data[u] = (float)(u < 2    ? -0.1 * w
                                          : u == 2 ? uniform(1.4, 1.6)
                                                   : -uniform(1.4, 1.6));
            }
            L.t[4]->data[0] = (float)uniform(0.2, 0.8);
            L.t[5]->data[0] = (float)uniform(1.2, 1.3);
        } else if (pos == ORDO_POS_KERPLE || pos == ORDO_POS_KERPLE_POWER) {
            for (int h = 0; h < nh; h++) {
                L.t[1]->data[h] = (float)uniform(0.2, 1.5);
                L.t[2]->data[h] = (float)uniform(0.3, pos == ORDO_POS_KERPLE_POWER ? 1.6 : 1.5);
            }
        }
        char what[80];
        snprintf(what, sizeof what, "%s %s at positions (T=%d)", k >= 5 ? "materialized" : "tiles",
                 ordo_pos_name(pos), Ta);
        run(r, what, g_tiles_at, &L, &a);
        ordo_ctx_free(&ctx);
    }
    rng = saved;
}

// ---- cope, contextual positions. The interpolation between integer
// positions kinks where p crosses an integer, which a central difference cannot straddle:
// cope_bias gets positions held inside (k + 0.2, k + 0.8); and through attention (both paths)
// the embeddings are made linear in the position, e[h, k] = a_h + k b_h, so that q . e[p] is
// linear in p and the composite is smooth (P = T + 1: nothing clamped). The clamp itself is
// checked exactly by check_cope_clamp. i[0] = NH, i[1] = P.
static ordo_tensor *g_cope_positions(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u;
    return ordo_cope_positions(c, in[0], a->i[0], a->i[1]);
}
static ordo_tensor *g_cope_bias(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_cope_bias(c, in[0], in[1], in[2]);
}
static ordo_tensor *g_cope(ordo_ctx *c, ordo_tensor **in, void *u) {
    args *a = u; // i[2]: 0 materialized, 1 fused
    if (a->i[2]) {
        ordo_bias_tiles *bt = ordo_cope_tiles(c, in[0], in[1]);
        return ordo_attention_fused(c, in[0], bt, a->i[0], 0.0f, 0, 0);
    }
    ordo_tensor *p = ordo_cope_positions(c, in[0], a->i[0], a->i[1]);
    return ordo_attention(c, in[0], ordo_cope_bias(c, in[0], in[1], p), a->i[0]);
}

static void case_cope_positions(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int nh = 2, hs = 3, T = r->T + 3;
    leaves L;
    args a = {.i = {nh, T + 1}};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, T, 3 * nh * hs});
    leaves_fill(&L, 1.0);
    run(r, "cope_positions", g_cope_positions, &L, &a);
    rng = saved;
}

static void case_cope_bias(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int nh = 2, hs = 3, T = r->T + 3, P = 5;
    leaves L;
    args a = {.i = {nh, P}};
    leaves_begin(&L);
    leaf(&L, 3, (int[]){r->B, T, 3 * nh * hs}); // qkv
    leaf(&L, 3, (int[]){nh, P, hs});            // e
    leaf(&L, 4, (int[]){r->B, nh, T, T});       // p, held off the integers
    leaves_fill(&L, 1.0);
    ordo_tensor *p = L.t[2];
    for (size_t x = 0; x < p->n; x++)
        p->data[x] = (float)(ordo_rng_below(&rng, P - 1) + uniform(0.2, 0.8));
    run(r, "cope_bias", g_cope_bias, &L, &a);
    rng = saved;
}

static void case_cope(gc_round *r) {
    ordo_rng saved = own_stream(r);
    int nh = 2, hs = 3;
    for (int k = 0; k < 3; k++) { // materialized; fused within a tile; fused past it
        int T = k == 2 ? r->T + 66 : r->T + 3, P = T + 1;
        leaves L;
        args a = {.i = {nh, P, k > 0}};
        leaves_begin(&L);
        leaf(&L, 3, (int[]){r->B, T, 3 * nh * hs});
        leaf(&L, 3, (int[]){nh, P, hs});
        leaves_fill(&L, 1.0);
        float *e = L.t[1]->data; // e[h, k] = a_h + k b_h: a_h its row 0, b_h its row 1 / T
        for (int h = 0; h < nh; h++)
            for (int d = 0; d < hs; d++) {
                float *eh = e + (size_t)h * P * hs, b = eh[hs + d] / T;
                for (int q = 1; q < P; q++) eh[q * hs + d] = eh[d] + (float)q * b;
            }
        char what[64];
        snprintf(what, sizeof what, "cope %s (T=%d)", k ? "fused tiles" : "materialized", T);
        run(r, what, g_cope, &L, &a);
    }
    rng = saved;
}

typedef struct gc_case {
    const char *name;
    unsigned ops; // the ops that the case's graphs must put on the tape
    double step;  // finite-difference step
    void (*run)(gc_round *r);
} gc_case;

// Run in this order, every round: the order fixes which numbers each case draws.
static const gc_case cases[] = {
    {"matmul", OP(ORDO_OP_MATMUL), STEP, case_matmul},
    {"linear", OP(ORDO_OP_LINEAR), STEP, case_linear},
    {"bmm", OP(ORDO_OP_BMM), STEP, case_bmm},
    {"add", OP(ORDO_OP_ADD), STEP, case_add},
    {"mul", OP(ORDO_OP_MUL), STEP, case_mul},
    {"scale", OP(ORDO_OP_SCALE), STEP, case_scale},
    {"embedding", OP(ORDO_OP_EMBEDDING), STEP, case_embedding},
    // layernorm over few channels is strongly curved: a smaller step keeps the stencil exact
    {"layernorm", OP(ORDO_OP_LAYERNORM), STEP / 3, case_layernorm},
    {"gelu", OP(ORDO_OP_GELU), STEP, case_gelu},
    {"softmax", OP(ORDO_OP_SOFTMAX), STEP, case_softmax},
    {"attention", OP(ORDO_OP_ATTENTION), STEP, case_attention},
    // cross-entropy returns one float32 scalar whose rounding (~1e-7 of the loss) would
    // dominate a small step; the function is smooth, so a larger step costs nothing
    {"cross_entropy", OP(ORDO_OP_CROSS_ENTROPY), STEP * 3, case_cross_entropy},
    {"sum", OP(ORDO_OP_SUM), STEP, case_sum},
    {"mean", OP(ORDO_OP_MEAN), STEP, case_mean},
    {"rope", OP(ORDO_OP_ROPE), STEP, case_rope},
    {"bucket bias", OP(ORDO_OP_EMBEDDING) | OP(ORDO_OP_DIST_BIAS), STEP, case_bucket_bias},
    {"reshape", OP(ORDO_OP_RESHAPE), STEP, case_reshape},
    {"composite block",
     OP(ORDO_OP_ROPE) | OP(ORDO_OP_EMBEDDING) | OP(ORDO_OP_DIST_BIAS) | OP(ORDO_OP_ATTENTION) |
         OP(ORDO_OP_LAYERNORM),
     STEP, case_block},
    {"tied scaled embedding",
     OP(ORDO_OP_EMBEDDING) | OP(ORDO_OP_SCALE) | OP(ORDO_OP_ADD) | OP(ORDO_OP_MATMUL), STEP,
     case_tied_scaled},
    {"dropout", OP(ORDO_OP_DROPOUT) | OP(ORDO_OP_ATTENTION), STEP, case_dropout},
    // the learned relative biases (appended, so that the cases above draw the numbers they
    // always drew)
    {"relu", OP(ORDO_OP_RELU), STEP, case_relu},
    {"fire_dist", OP(ORDO_OP_FIRE_DIST), STEP, case_fire_dist},
    {"pair_bias", OP(ORDO_OP_PAIR_BIAS), STEP, case_pair_bias},
    {"kerple bias", OP(ORDO_OP_KERPLE_TABLE) | OP(ORDO_OP_DIST_BIAS), STEP, case_kerple},
    {"fire bias into attention",
     OP(ORDO_OP_FIRE_DIST) | OP(ORDO_OP_LINEAR) | OP(ORDO_OP_RELU) | OP(ORDO_OP_PAIR_BIAS) |
         OP(ORDO_OP_ATTENTION),
     STEP, case_fire},
    // the fused attention and the chunked LM head
    {"attention_fused", OP(ORDO_OP_ATTENTION_FUSED), STEP, case_attention_fused},
    {"fused bias tiles", OP(ORDO_OP_ATTENTION_FUSED), STEP, case_fused_tiles},
    // a scalar output like cross_entropy's, hence its step
    {"lm_head_loss", OP(ORDO_OP_LM_HEAD_LOSS), STEP * 3, case_lm_head},
    // partial rotary, the position scale, fox
    {"rope_part", OP(ORDO_OP_ROPE), STEP, case_rope_part},
    {"scale_by", OP(ORDO_OP_SCALE_BY) | OP(ORDO_OP_ADD) | OP(ORDO_OP_GELU), STEP, case_scale_by},
    {"fox",
     OP(ORDO_OP_LINEAR) | OP(ORDO_OP_CUM_LOGSIGMOID) | OP(ORDO_OP_DIFF_BIAS) |
         OP(ORDO_OP_ATTENTION) | OP(ORDO_OP_ATTENTION_FUSED),
     STEP * 2, case_fox}, // x moves every later c: the loss is nearly linear, noise dominates
    // dynamic position bias
    {"silu", OP(ORDO_OP_SILU), STEP, case_silu},
    {"dist_bias", OP(ORDO_OP_DIST_BIAS), STEP, case_dist_bias},
    // the MLP's parameters move the loss little against float32's rounding of it: the error
    // is the forward's noise over the step (smaller steps measured worse), and the function is
    // smooth, so a larger step costs nothing (as cross_entropy's)
    {"dpb MLP into attention",
     OP(ORDO_OP_LINEAR) | OP(ORDO_OP_SILU) | OP(ORDO_OP_DIST_BIAS) | OP(ORDO_OP_ATTENTION),
     STEP * 3, case_dpb},
    {"dpb tiles", OP(ORDO_OP_ATTENTION_FUSED), STEP, case_dpb_tiles},
    // --pos-random for the relative schemes: at drawn positions
    {"fire_dist_at", OP(ORDO_OP_FIRE_DIST), STEP, case_fire_dist_at},
    {"pair_bias(B rows)", OP(ORDO_OP_PAIR_BIAS), STEP, case_pair_bias_rows},
    {"kerple_table", OP(ORDO_OP_KERPLE_TABLE), STEP, case_kerple_table},
    {"dist_bias_at", OP(ORDO_OP_DIST_BIAS), STEP, case_dist_bias_at},
    {"bias at positions", OP(ORDO_OP_ATTENTION_FUSED) | OP(ORDO_OP_ATTENTION), STEP, case_tiles_at},
    // contextual positions (cope)
    {"cope_positions", OP(ORDO_OP_COPE_POSITIONS), STEP, case_cope_positions},
    {"cope_bias", OP(ORDO_OP_COPE_BIAS), STEP, case_cope_bias},
    {"cope into attention",
     OP(ORDO_OP_COPE_POSITIONS) | OP(ORDO_OP_COPE_BIAS) | OP(ORDO_OP_ATTENTION) |
         OP(ORDO_OP_ATTENTION_FUSED),
     STEP, case_cope},
};

// Negative control: the first evaluation (the analytic pass) scales by 1, later ones by
// 1.01, so the checker must see a 1% error; a checker that cannot fail proves nothing.
static int calls;
static ordo_tensor *g_wrong(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_scale(c, in[0], calls++ == 0 ? 1.0f : 1.01f);
}

static void check_negative_control(void) {
    leaves L;
    leaves_begin(&L);
    leaf(&L, 2, (int[]){3, 4});
    leaves_fill(&L, 1.0);
    ordo_gradcheck_result r;
    calls = 0;
    ordo_gradcheck(g_wrong, L.t, 1, NULL, COORDS, STEP, 7, &r);
    CHECK_MSG(r.max_rel_err > 5e-3, "negative control not detected: %.3g", r.max_rel_err);
    // the tape census that the coverage check relies on counts what was recorded, and only that
    for (int op = 0; op < ORDO_POS_OP_END; op++)
        CHECK_MSG(r.op_nodes[op] == (op == ORDO_OP_SCALE), "g_wrong's tape: %d %s nodes",
                  r.op_nodes[op], ordo_pos_op_name(op));
    ordo_params_free(&L.p);
}

// The clamp of cope_positions, exactly: with P 3 over 12 keys, the pairs whose count passes 2
// read 2, and a loss on them alone sends nothing to q and k (torch's clamp); a loss on the
// others does.
static void check_cope_clamp(void) {
    int B = 1, T = 12, NH = 1, hs = 4, P = 3;
    for (int on_clamped = 1; on_clamped >= 0; on_clamped--) {
        ordo_ctx ctx;
        ordo_ctx_init(&ctx);
        leaves L;
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, 3 * hs});
        leaves_fill(&L, 0.5);
        ordo_params_zero_grad(&L.p);
        ordo_tensor *p = ordo_cope_positions(&ctx, L.t[0], NH, P); // (1, 1, T, T)
        int clamped = 0, free_ = 0;
        float *dout = calloc(p->n, sizeof(float));
        for (int i = 0; i < T; i++) {
            double sum = 0; // the count from i down, as the op makes it
            for (int j = i; j >= 0; j--) {
                const float *q = L.t[0]->data + (size_t)i * 3 * hs,
                            *k = L.t[0]->data + (size_t)j * 3 * hs + hs;
                float dot = 0;
                for (int d = 0; d < hs; d++) dot += q[d] * k[d];
                sum += 1.0 / (1.0 + exp(-dot / 2.0));
                float v = p->data[(size_t)i * T + j];
                int c = sum > P - 1;
                CHECK_MSG(c ? v == P - 1 : fabs(v - sum) < 1e-5, "cope p[%d, %d] = %g, sum %g", i,
                          j, v, sum);
                clamped += c, free_ += !c;
                if (c == on_clamped) dout[(size_t)i * T + j] = 1.0f;
            }
        }
        CHECK(clamped > 0 && free_ > 0);
        ordo_backward_from(&ctx, p, dout);
        double g = 0;
        for (size_t x = 0; x < L.t[0]->n; x++) g += fabs(L.t[0]->grad[x]);
        CHECK_MSG(on_clamped ? g == 0 : g > 0, "cope clamp: |dqkv| = %g from the %s pairs", g,
                  on_clamped ? "clamped" : "unclamped");
        free(dout);
        ordo_params_free(&L.p);
        ordo_ctx_free(&ctx);
    }
}

// Every op has its own name (messages and this test's report use them).
static void check_op_names(void) {
    for (int op = 0; op < ORDO_POS_OP_END; op++) {
        CHECK_MSG(strcmp(ordo_pos_op_name(op), "?") != 0, "op %d has no name", op);
        for (int o = 0; o < op; o++)
            CHECK_MSG(strcmp(ordo_pos_op_name(op), ordo_pos_op_name(o)) != 0,
                      "ops %d and %d share %s", o, op, ordo_pos_op_name(op));
    }
}

int main(void) {
    const char *seed_env = getenv("ORDO_GRADCHECK_SEED");
    ordo_rng_seed(&rng, seed_env ? strtoull(seed_env, NULL, 10) : 1234);
    check_op_names();
    for (int rep = 0; rep < 5; rep++) {
        // the first shapes are fixed corner cases (B=1 T=1; B=1 T=5; B=3 T=1), then random
        const int fixedB[3] = {1, 1, 3}, fixedT[3] = {1, 5, 1};
        gc_round r = {.rep = rep};
        r.B = rep < 3 ? fixedB[rep] : pick(BS, 3);
        r.T = rep < 3 ? fixedT[rep] : pick(TS, 3);
        r.K = pick(CS, 4);
        r.N = pick(CS, 4);
        printf("shapes: B=%d T=%d K=%d N=%d\n", r.B, r.T, r.K, r.N);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            memset(r.nodes, 0, sizeof r.nodes);
            r.step = cases[c].step;
            cases[c].run(&r);
            for (int op = 0; op < ORDO_POS_OP_END; op++)
                if (cases[c].ops & OP(op))
                    CHECK_MSG(r.nodes[op] > 0, "case %s: no %s node on its tapes", cases[c].name,
                              ordo_pos_op_name(op));
        }
    }
    // coverage: an op added to the enum needs a case above
    for (int op = 0; op < ORDO_POS_OP_END; op++)
        CHECK_MSG(op_seen[op] > 0, "op %s never appeared on a tape: it needs a case",
                  ordo_pos_op_name(op));
    check_negative_control();
    check_dropout_mask();
    check_cope_clamp();
    TEST_MAIN_END();
}
