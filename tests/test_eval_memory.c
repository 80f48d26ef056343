// What `ordo eval` relies on to refuse a context too long for the machine instead of aborting:
// - ordo_eval_forward_arena_bytes is on the high side of what a forward without a tape takes
//   from the arena, for every position scheme and both attentions, and not wildly above it
//   (measured: the arena's high-water mark after a real forward from a fresh context);
// - ordo_arena_reserve returns ORDO_ERR_NOMEM for a size the system refuses (the arena stays
//   usable), and after a reservation a forward within it takes nothing more from the system.
#include <string.h>

#include "test.h"
#include "framework/arena.h"
#include "models/gpt.h"
#include "train/evaluate.h"

// A size the system refuses; under ASan, malloc then returns NULL as glibc's does.
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
    return "allocator_may_return_null=1";
}

// The forward of rows x T random tokens for scheme pos; returns the arena's high-water mark.
static size_t forward_high_water(const ordo_gpt_config *c, ordo_attn_impl attn, int rows, int T,
                                 ordo_ctx *ctx) {
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, c, 5) == ORDO_OK);
    m.attention = attn;
    int32_t *in = malloc((size_t)rows * T * sizeof *in);
    for (int i = 0; i < rows * T; i++) in[i] = (int32_t)((i * 7 + 3) % c->V);
    ctx->grad_enabled = 0;
    ordo_ctx_reset(ctx);
    ordo_tensor *logits;
    CHECK(ordo_gpt_forward(&m, ctx, in, NULL, rows, T, &logits, NULL) == ORDO_OK);
    size_t hw = ctx->arena.high_water;
    free(in);
    ordo_gpt_free(&m);
    return hw;
}

static void check_estimate(ordo_pos pos, ordo_attn_impl attn, int rows, int T, int C, int L, int NH,
                           int V) {
    // sinusoidal with the Vaswani scale: the scale op's copy of the embeddings too
    ordo_gpt_config c = {.V = V,
                         .C = C,
                         .L = L,
                         .NH = NH,
                         .T_max = T,
                         .pos = pos,
                         .ln_eps = 1e-5f,
                         .embed_scale = pos == ORDO_POS_SINUSOIDAL ? 4.0f : 0.0f};
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    double est = ordo_eval_forward_arena_bytes(&c, attn, rows, T);
    size_t hw = forward_high_water(&c, attn, rows, T, &ctx);
    CHECK_MSG((double)hw <= est,
              "pos %d %s rows %d T %d C %d L %d NH %d V %d: used %zu > estimate %.0f", (int)pos,
              ordo_attn_impl_name(attn), rows, T, C, L, NH, V, hw, est);
    // high side, but within half again plus the fixed margin (1 MiB)
    CHECK_MSG(est <= 1.5 * (double)hw + (2 << 20),
              "pos %d %s rows %d T %d: estimate %.0f is far above the %zu used", (int)pos,
              ordo_attn_impl_name(attn), rows, T, est, hw);
    // reserved, the same forward takes nothing more from the system
    CHECK(ordo_arena_reserve(&ctx.arena, (size_t)est) == ORDO_OK);
    size_t allocs = ctx.arena.system_allocs;
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &c, 5) == ORDO_OK);
    m.attention = attn;
    int32_t *in = calloc((size_t)rows * T, sizeof *in);
    ordo_tensor *logits;
    ctx.grad_enabled = 0;
    ordo_ctx_reset(&ctx);
    CHECK(ordo_gpt_forward(&m, &ctx, in, NULL, rows, T, &logits, NULL) == ORDO_OK);
    CHECK(ctx.arena.system_allocs == allocs);
    free(in);
    ordo_gpt_free(&m);
    ordo_ctx_free(&ctx);
}

static void check_reserve(void) {
    ordo_arena a;
    ordo_arena_init(&a, 0);
    CHECK(ordo_arena_reserve(&a, (size_t)1 << 60) == ORDO_ERR_NOMEM);
    CHECK(strstr(ordo_error_message(), "cannot allocate 1073741824.00 GiB for activations"));
    CHECK(a.first == NULL);
    memset(ordo_arena_alloc(&a, 1000), 1, 1000); // still usable
    CHECK(ordo_arena_reserve(&a, (size_t)4 << 20) == ORDO_OK);
    size_t allocs = a.system_allocs;
    for (int i = 0; i < 4; i++) memset(ordo_arena_alloc(&a, (size_t)1 << 20), 2, (size_t)1 << 20);
    CHECK(a.system_allocs == allocs);                          // 4 MiB fit the reservation
    CHECK(ordo_arena_reserve(&a, (size_t)1 << 20) == ORDO_OK); // smaller: kept as it is
    CHECK(a.system_allocs == allocs && a.used == 0);
    ordo_arena_free(&a);
}

int main(void) {
    check_reserve();
    for (int pos = 0; pos < ORDO_POS_COUNT; pos++)
        for (int a = 0; a < ORDO_ATTN_COUNT; a++) {
            ordo_attn_impl at = (ordo_attn_impl)a;
            check_estimate((ordo_pos)pos, at, 2, 256, 32, 2, 4, 50); // attention-bound
            check_estimate((ordo_pos)pos, at, 3, 64, 64, 1, 2, 500); // logits and activations
            check_estimate((ordo_pos)pos, at, 1, 8, 16, 3, 2, 11);   // tiny: the margin
        }
    TEST_MAIN_END();
}
