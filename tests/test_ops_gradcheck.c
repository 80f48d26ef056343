// Finite-difference gradient checks for every op, over seeded random shapes that include
// odd sizes, B=1 and T=1. Each op must reach a max relative error below 1e-3.
#include <string.h>

#include "framework/autograd.h"
#include "framework/gradcheck.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "framework/rng.h"
#include "test.h"

#define MAX_REL 1e-3
#define COORDS  40
// Large enough that float32 rounding in the forward does not swamp the difference,
// small enough for the O(h^4) stencil error: measured best between 2e-2 and 5e-2.
#define STEP 3e-2

static ordo_rng rng;

// Leaf tensors live in a parameter block so that they carry a persistent grad.
typedef struct leaves {
    ordo_params p;
    ordo_tensor *t[4];
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

static double step_for(const char *what) {
    // layernorm over few channels is strongly curved: a smaller step keeps the stencil exact.
    // cross-entropy returns one float32 scalar whose rounding (~1e-7 of the loss) would
    // dominate a small step; the function is smooth, so a larger step costs nothing.
    if (strncmp(what, "layernorm", 9) == 0) return STEP / 3;
    if (strncmp(what, "cross_entropy", 13) == 0) return STEP * 3;
    return STEP;
}

static void run(const char *what, ordo_gradcheck_fn fn, leaves *L, void *user) {
    ordo_gradcheck_result r;
    ordo_gradcheck(fn, L->t, L->n, user, COORDS, step_for(what), ordo_rng_u64(&rng), &r);
    CHECK_MSG(r.max_rel_err < MAX_REL && r.checked > 0,
              "%s: max rel err %.3g at input %d index %zu (analytic %.8g numeric %.8g)", what,
              r.max_rel_err, r.worst_input, r.worst_index, r.worst_analytic, r.worst_numeric);
    printf("  %-28s checked %4d coords, max rel err %.2e\n", what, r.checked, r.max_rel_err);
    ordo_params_free(&L->p);
}

// ---- one graph builder per op; `user` carries integer arguments
typedef struct args {
    int i[4];
    int32_t *ids;
    int ids_shape[3];
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
static ordo_tensor *g_relbias(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_rel_bias(c, in[0], ((args *)u)->ids, ((args *)u)->i[0]);
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
    ordo_tensor *bias = ordo_rel_bias(c, in[1], a->ids, a->i[1]);
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

// Negative control: the first evaluation (the analytic pass) scales by 1, later ones by
// 1.01, so the checker must see a 1% error; a checker that cannot fail proves nothing.
static int calls;
static ordo_tensor *g_wrong(ordo_ctx *c, ordo_tensor **in, void *u) {
    return ordo_scale(c, in[0], calls++ == 0 ? 1.0f : 1.01f);
}

static const int BS[] = {1, 2, 3}, TS[] = {1, 2, 5}, CS[] = {1, 3, 8, 7};

int main(void) {
    const char *seed_env = getenv("ORDO_GRADCHECK_SEED");
    ordo_rng_seed(&rng, seed_env ? strtoull(seed_env, NULL, 10) : 1234);
    leaves L;
    args a;
    char what[64];
    double worst = 0;
    (void)worst;
    for (int rep = 0; rep < 5; rep++) {
        // the first shapes are fixed corner cases (B=1 T=1; B=1 T=5; B=3 T=1), then random
        const int fixedB[3] = {1, 1, 3}, fixedT[3] = {1, 5, 1};
        int B = rep < 3 ? fixedB[rep] : pick(BS, 3), T = rep < 3 ? fixedT[rep] : pick(TS, 3);
        int K = pick(CS, 4), N = pick(CS, 4);
        printf("shapes: B=%d T=%d K=%d N=%d\n", B, T, K, N);

        for (int tw = 0; tw < 2; tw++) {
            leaves_begin(&L);
            leaf(&L, 3, (int[]){B, T, K});
            leaf(&L, 2, tw ? (int[]){N, K} : (int[]){K, N});
            leaves_fill(&L, 1.0);
            a.i[0] = tw;
            snprintf(what, sizeof what, "matmul(tw=%d)", tw);
            run(what, g_matmul, &L, &a);
        }
        for (int hb = 0; hb < 2; hb++) {
            leaves_begin(&L);
            leaf(&L, 3, (int[]){B, T, K});
            leaf(&L, 2, (int[]){K, N});
            leaf(&L, 1, (int[]){N});
            leaves_fill(&L, 1.0);
            a.i[0] = hb;
            run(hb ? "linear(bias)" : "linear(no bias)", g_linear, &L, &a);
        }
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                int M = T, Kk = K, Nn = N;
                leaves_begin(&L);
                leaf(&L, 3, ta ? (int[]){B, Kk, M} : (int[]){B, M, Kk});
                leaf(&L, 3, tb ? (int[]){B, Nn, Kk} : (int[]){B, Kk, Nn});
                leaves_fill(&L, 1.0);
                a.i[0] = ta;
                a.i[1] = tb;
                snprintf(what, sizeof what, "bmm(ta=%d,tb=%d)", ta, tb);
                run(what, g_bmm, &L, &a);
            }
        for (int op = 0; op < 2; op++) {
            const int bshapes[3][3] = {{T, N}, {N}, {B, T, N}};
            const int bnd[3] = {2, 1, 3};
            for (int s = 0; s < 3; s++) {
                leaves_begin(&L);
                leaf(&L, 3, (int[]){B, T, N});
                leaf(&L, bnd[s], bshapes[s]);
                leaves_fill(&L, 1.0);
                snprintf(what, sizeof what, "%s([B,T,C]+%s)", op ? "mul" : "add",
                         s == 0   ? "[T,C]"
                         : s == 1 ? "[C]"
                                  : "[B,T,C]");
                run(what, op ? g_mul : g_add, &L, &a);
            }
        }
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaves_fill(&L, 1.0);
        run("scale", g_scale, &L, &a);

        { // embedding with repeated ids
            int rowsN = 3 + (int)ordo_rng_below(&rng, 4);
            int32_t ids[64];
            for (int i = 0; i < B * T; i++) ids[i] = (int32_t)ordo_rng_below(&rng, rowsN);
            if (B * T > 1) ids[B * T - 1] = ids[0]; // at least one repeat
            a.ids = ids;
            a.ids_shape[0] = B;
            a.ids_shape[1] = T;
            leaves_begin(&L);
            leaf(&L, 2, (int[]){rowsN, N});
            leaves_fill(&L, 1.0);
            run("embedding", g_embedding, &L, &a);
        }
        int C = N < 4 ? 4 : N; // over few channels layernorm is nearly a sign function
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, C});
        leaf(&L, 1, (int[]){C});
        leaf(&L, 1, (int[]){C});
        leaves_fill(&L, 1.0);
        run("layernorm", g_layernorm, &L, &a);

        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaves_fill(&L, 1.5);
        run("gelu", g_gelu, &L, &a);

        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaves_fill(&L, 1.5);
        run("softmax", g_softmax, &L, &a);

        for (int nh = 1; nh <= 3; nh++) {
            for (int hb = 0; hb < 2; hb++) {
                int hs = 1 + (int)ordo_rng_below(&rng, 3), Ca = nh * hs;
                int Ta = T + (int)ordo_rng_below(&rng, 3);
                leaves_begin(&L);
                leaf(&L, 3, (int[]){B, Ta, 3 * Ca});
                leaf(&L, 3, (int[]){nh, Ta, Ta});
                leaves_fill(&L, 1.0);
                a.i[0] = nh;
                a.i[1] = hb;
                snprintf(what, sizeof what, "attention(NH=%d,T=%d%s)", nh, Ta, hb ? ",bias" : "");
                run(what, g_attention, &L, &a);
            }
        }
        { // long enough for several causal row blocks (64 rows each), the last one partial
            int nh = 2, Ca = 2 * 2, Ta = 137;
            leaves_begin(&L);
            leaf(&L, 3, (int[]){1, Ta, 3 * Ca});
            leaf(&L, 3, (int[]){nh, Ta, Ta});
            leaves_fill(&L, 0.3); // smaller values: a float softmax over 137 keys, differenced
            a.i[0] = nh;
            a.i[1] = 1;
            run("attention(NH=2,T=137,bias)", g_attention, &L, &a);
        }
        { // cross-entropy with an ignored target
            int V = 2 + pick(CS, 4);
            int32_t tg[64];
            for (int i = 0; i < B * T; i++) tg[i] = (int32_t)ordo_rng_below(&rng, V);
            if (B * T > 2) tg[1] = -1;
            a.ids = tg;
            leaves_begin(&L);
            leaf(&L, 3, (int[]){B, T, V});
            leaves_fill(&L, 2.0);
            run("cross_entropy", g_xent, &L, &a);
        }
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaves_fill(&L, 1.0);
        run("sum", g_sum, &L, &a);
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaves_fill(&L, 1.0);
        run("mean", g_mean, &L, &a);

        for (int nh = 1; nh <= 2; nh++) {
            int hs = 2 * (1 + (int)ordo_rng_below(&rng, 3));
            leaves_begin(&L);
            leaf(&L, 3, (int[]){B, T + 2, 3 * nh * hs});
            leaves_fill(&L, 1.0);
            a.i[0] = nh;
            a.i[1] = rep * 3; // a position offset too
            snprintf(what, sizeof what, "rope(NH=%d,hs=%d)", nh, hs);
            run(what, g_rope, &L, &a);
        }
        { // relative bias with a bucket map that reuses buckets
            int Tb = T + 1, NB = 4, NH = 2;
            int32_t bucket[64];
            for (int i = 0; i < Tb; i++)
                for (int j = 0; j < Tb; j++) bucket[i * Tb + j] = (i - j) > 0 ? (i - j) % NB : 0;
            a.ids = bucket;
            a.i[0] = Tb;
            leaves_begin(&L);
            leaf(&L, 2, (int[]){NB, NH});
            leaves_fill(&L, 1.0);
            run("rel_bias", g_relbias, &L, &a);
        }
        leaves_begin(&L);
        leaf(&L, 3, (int[]){B, T, N});
        leaves_fill(&L, 1.0);
        a.i[0] = B * T;
        a.i[1] = N;
        run("reshape", g_reshape, &L, &a);

        { // composite: rope + rel_bias + attention + layernorm
            int NH = 2, hs = 4, Cb = NH * hs, Tb = T + 2, NB = 3;
            int32_t bucket[64];
            for (int i = 0; i < Tb; i++)
                for (int j = 0; j < Tb; j++) bucket[i * Tb + j] = i > j ? (i - j) % NB : 0;
            a.ids = bucket;
            a.i[0] = NH;
            a.i[1] = Tb;
            leaves_begin(&L);
            leaf(&L, 3, (int[]){B, Tb, 3 * Cb});
            leaf(&L, 2, (int[]){NB, NH});
            leaf(&L, 1, (int[]){Cb});
            leaf(&L, 1, (int[]){Cb});
            leaves_fill(&L, 0.5);
            run("composite block", g_block, &L, &a);
        }
        { // composite: scaled token embedding + positions, tied head (repeated ids)
            int V = 3 + (int)ordo_rng_below(&rng, 4);
            int32_t ids[64];
            for (int i = 0; i < B * T; i++) ids[i] = (int32_t)ordo_rng_below(&rng, V);
            if (B * T > 1) ids[B * T - 1] = ids[0];
            a.ids = ids;
            a.ids_shape[0] = B;
            a.ids_shape[1] = T;
            leaves_begin(&L);
            leaf(&L, 2, (int[]){V, N});
            leaf(&L, 2, (int[]){T, N});
            leaves_fill(&L, 0.5);
            run("tied scaled embedding", g_tied_scaled, &L, &a);
        }
    }
    { // the checker detects a wrong gradient
        leaves_begin(&L);
        leaf(&L, 2, (int[]){3, 4});
        leaves_fill(&L, 1.0);
        ordo_gradcheck_result r;
        calls = 0;
        ordo_gradcheck(g_wrong, L.t, 1, NULL, COORDS, STEP, 7, &r);
        CHECK_MSG(r.max_rel_err > 5e-3, "negative control not detected: %.3g", r.max_rel_err);
        ordo_params_free(&L.p);
    }
    TEST_MAIN_END();
}
