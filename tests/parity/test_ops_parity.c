// Op-level parity with PyTorch (tests/ref/fixtures/ops.safetensors, float64 reference):
// layernorm, GELU, softmax, cross-entropy (with ignored targets), causal attention plain and
// with each position scheme's contribution (rope, alibi, t5), and the fixed tables of the
// position schemes (sinusoidal, ALiBi slopes, T5 buckets), plus the rope property that
// q_m . k_n depends only on m - n.
#include <string.h>

#include "fixture.h"
#include "framework/autograd.h"
#include "framework/ops.h"
#include "framework/params.h"
#include "models/pos/ops.h"
#include "models/positional.h"
#include "test.h"

static ordo_safetensors *F;

// A leaf (requires grad) holding a fixture tensor, in its own parameter block.
static ordo_tensor *leaf(ordo_params *p, const char *name) {
    const ordo_st_tensor *st = ordo_safetensors_find(F, name);
    ORDO_ASSERT(st);
    int shape[4];
    for (int i = 0; i < st->ndim; i++) shape[i] = (int)st->shape[i];
    return ordo_params_add(p, name, st->ndim, shape, 0);
}
static void fill(ordo_tensor *t, const char *name) {
    float *d = fixture_read(F, name, NULL);
    memcpy(t->data, d, t->n * sizeof(float));
    free(d);
}
static void expect(const char *what, const float *got, const char *name, double tol) {
    size_t n;
    float *want = fixture_read(F, name, &n);
    double e = want ? scaled_err(got, want, n) : 1.0;
    CHECK_MSG(e < tol, "%s vs %s: error %.3g", what, name, e);
    printf("  %-26s %.2e\n", name, e);
    free(want);
}

static void check_attention(const char *prefix, ordo_pos pos) {
    char nq[64], ny[64], ndy[64], ndq[64], nt[64], ndt[64], key[64];
    snprintf(nq, 64, "%s.qkv", prefix);
    snprintf(ny, 64, "%s.y", prefix);
    snprintf(ndy, 64, "%s.dy", prefix);
    snprintf(ndq, 64, "%s.dqkv", prefix);
    snprintf(nt, 64, "%s.table", prefix);
    snprintf(ndt, 64, "%s.dtable", prefix);
    snprintf(key, 64, "%s.NH", prefix);
    int NH = atoi(ordo_safetensors_meta(F, key));
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *qkv = leaf(&p, nq), *table = pos == ORDO_POS_T5 ? leaf(&p, nt) : NULL;
    ordo_params_alloc(&p);
    fill(qkv, nq);
    if (table) fill(table, nt);
    int B = qkv->shape[0], T = qkv->shape[1];
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *q = qkv, *bias = NULL;
    float *alibi = NULL;
    int32_t *buckets = NULL;
    if (pos == ORDO_POS_ROPE) q = ordo_rope(&ctx, qkv, NH, ORDO_ROPE_BASE, 0);
    if (pos == ORDO_POS_ALIBI) {
        alibi = malloc((size_t)NH * T * T * sizeof(float));
        ordo_alibi_bias(alibi, NH, T);
        bias = ordo_tensor_wrap(&ctx, alibi, 3, (int[]){NH, T, T});
    }
    if (pos == ORDO_POS_T5) { // as the model: the bucket's row per distance, spread causally
        buckets = malloc((size_t)T * sizeof(int32_t)); // (T) by distance
        for (int d = 0; d < T; d++) buckets[d] = ordo_t5_bucket(d);
        bias =
            ordo_dist_bias(&ctx, ordo_embedding(&ctx, table, buckets, 1, (int[]){T}), NULL, 1, T);
    }
    ordo_tensor *y = ordo_attention(&ctx, q, bias, NH);
    float *dy = fixture_read(F, ndy, NULL);
    ordo_backward_from(&ctx, y, dy);
    expect(prefix, y->data, ny, 1e-5);
    expect(prefix, qkv->grad, ndq, 1e-5);
    if (table) expect(prefix, table->grad, ndt, 1e-5);
    (void)B;
    free(dy);
    free(alibi);
    free(buckets);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

static void check_rowwise(void) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *x = leaf(&p, "layernorm.x"), *w = leaf(&p, "layernorm.weight"),
                *b = leaf(&p, "layernorm.bias"), *gx = leaf(&p, "gelu.x"),
                *sx = leaf(&p, "softmax.x"), *lg = leaf(&p, "cross_entropy.logits");
    ordo_params_alloc(&p);
    fill(x, "layernorm.x");
    fill(w, "layernorm.weight");
    fill(b, "layernorm.bias");
    fill(gx, "gelu.x");
    fill(sx, "softmax.x");
    fill(lg, "cross_entropy.logits");
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);

    ordo_tensor *y = ordo_layernorm(&ctx, x, w, b, 1e-5f);
    float *dy = fixture_read(F, "layernorm.dy", NULL);
    ordo_backward_from(&ctx, y, dy);
    free(dy);
    expect("layernorm", y->data, "layernorm.y", 1e-5);
    expect("layernorm", x->grad, "layernorm.dx", 1e-5);
    expect("layernorm", w->grad, "layernorm.dweight", 1e-5);
    expect("layernorm", b->grad, "layernorm.dbias", 1e-5);

    ordo_ctx_reset(&ctx);
    y = ordo_gelu(&ctx, gx);
    dy = fixture_read(F, "gelu.dy", NULL);
    ordo_backward_from(&ctx, y, dy);
    free(dy);
    expect("gelu", y->data, "gelu.y", 1e-5);
    expect("gelu", gx->grad, "gelu.dx", 1e-5);

    ordo_ctx_reset(&ctx);
    y = ordo_softmax(&ctx, sx);
    dy = fixture_read(F, "softmax.dy", NULL);
    ordo_backward_from(&ctx, y, dy);
    free(dy);
    expect("softmax", y->data, "softmax.y", 1e-5);
    expect("softmax", sx->grad, "softmax.dx", 1e-5);

    ordo_ctx_reset(&ctx);
    size_t n;
    float *tf = fixture_read(F, "cross_entropy.targets", &n);
    int32_t tg[64];
    for (size_t i = 0; i < n; i++) tg[i] = (int32_t)tf[i];
    free(tf);
    ordo_tensor *loss = ordo_cross_entropy(&ctx, lg, tg);
    ordo_backward(&ctx, loss);
    expect("cross_entropy", loss->data, "cross_entropy.loss", 1e-6);
    expect("cross_entropy", lg->grad, "cross_entropy.dlogits", 1e-5);

    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

static void check_rope_op(void) {
    ordo_params p;
    ordo_params_init(&p);
    ordo_tensor *qkv = leaf(&p, "rope.qkv");
    ordo_params_alloc(&p);
    fill(qkv, "rope.qkv");
    int NH = atoi(ordo_safetensors_meta(F, "rope.NH"));
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *y = ordo_rope(&ctx, qkv, NH, ORDO_ROPE_BASE, 0);
    float *dy = fixture_read(F, "rope.dy", NULL);
    ordo_backward_from(&ctx, y, dy);
    free(dy);
    expect("rope", y->data, "rope.y", 1e-6);
    expect("rope", qkv->grad, "rope.dqkv", 1e-6);
    ordo_ctx_free(&ctx);
    ordo_params_free(&p);
}

static void check_tables(void) {
    // sinusoidal: the DESIGN literal and the fixture tables
    float pe[24 * 32];
    ordo_sinusoidal_table(pe, 2, 8);
    const float p1[8] = {0.841471f, 0.540302f, 0.099833f, 0.995004f,
                         0.010000f, 0.999950f, 0.001000f, 1.000000f};
    for (int d = 0; d < 8; d++) CHECK_CLOSE(pe[8 + d], p1[d], 1e-6, 0);
    ordo_sinusoidal_table(pe, 16, 8);
    expect("sinusoidal", pe, "sinusoidal.C8", 1e-7);
    ordo_sinusoidal_table(pe, 24, 32);
    expect("sinusoidal", pe, "sinusoidal.C32", 1e-7);
    // alibi slopes: DESIGN lists, then the fixture for every H in 1..16
    double m[16];
    const double h6[6] = {2, 4, 6, 8, 1, 3}, h12[12] = {1, 2, 3, 4, 5, 6, 7, 8, .5, 1.5, 2.5, 3.5};
    ordo_alibi_slopes(m, 6);
    for (int i = 0; i < 6; i++) CHECK_CLOSE(-log2(m[i]), h6[i], 1e-12, 0);
    ordo_alibi_slopes(m, 12);
    for (int i = 0; i < 12; i++) CHECK_CLOSE(-log2(m[i]), h12[i], 1e-12, 0);
    for (int H = 1; H <= 16; H++) {
        char name[32];
        float got[16];
        snprintf(name, sizeof name, "alibi.slopes_H%d", H);
        ordo_alibi_slopes(m, H);
        for (int i = 0; i < H; i++) got[i] = (float)m[i];
        size_t n;
        float *want = fixture_read(F, name, &n);
        CHECK(want && n == (size_t)H && memcmp(got, want, n * sizeof(float)) == 0);
        free(want);
    }
    // t5 buckets for distances 0..304, exactly
    size_t n;
    float *dist = fixture_read(F, "t5.distance", &n), *bucket = fixture_read(F, "t5.bucket", NULL);
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += ordo_t5_bucket((int)dist[i]) != (int)bucket[i];
    CHECK_MSG(bad == 0, "%d t5 buckets differ", bad);
    free(dist);
    free(bucket);
}

static void check_rope_relative(void) {
    // with q = k = a fixed vector at every position, scores[m][n] depend only on m - n
    int T = 9, NH = 2, C = 8;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *qkv = ordo_tensor_new3(&ctx, 1, T, 3 * C);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < 3 * C; c++) qkv->data[t * 3 * C + c] = (float)((c * 7 % 5) - 2) * 0.3f;
    ordo_tensor *r = ordo_rope(&ctx, qkv, NH, ORDO_ROPE_BASE, 0);
    double maxdiff = 0;
    for (int h = 0; h < NH; h++)
        for (int m1 = 0; m1 < T; m1++)
            for (int n1 = 0; n1 < T; n1++) {
                int m2 = (m1 + 3) % T, n2 = m2 - (m1 - n1);
                if (n2 < 0 || n2 >= T) continue;
                double s1 = 0, s2 = 0;
                for (int i = 0; i < C / NH; i++) {
                    s1 += r->data[m1 * 3 * C + h * 4 + i] * r->data[n1 * 3 * C + C + h * 4 + i];
                    s2 += r->data[m2 * 3 * C + h * 4 + i] * r->data[n2 * 3 * C + C + h * 4 + i];
                }
                maxdiff = fmax(maxdiff, fabs(s1 - s2));
            }
    CHECK_MSG(maxdiff < 1e-5, "rope scores depend on more than m - n: %.3g", maxdiff);
    ordo_ctx_free(&ctx);
}

int main(void) {
    if (ordo_safetensors_open(fixture_path("ops.safetensors"), &F)) {
        CHECK_MSG(0, "%s", ordo_error_message());
        TEST_MAIN_END();
    }
    check_rowwise();
    check_rope_op();
    check_attention("attn", ORDO_POS_NONE);
    check_attention("attn_rope", ORDO_POS_ROPE);
    check_attention("attn_alibi", ORDO_POS_ALIBI);
    check_attention("attn_t5", ORDO_POS_T5);
    check_tables();
    check_rope_relative();
    ordo_safetensors_close(F);
    TEST_MAIN_END();
}
