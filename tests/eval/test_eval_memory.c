// What `ordo eval` relies on to refuse a context too long for the machine instead of aborting:
// - ordo_eval_forward_arena_bytes is on the high side of what a forward without a tape takes
//   from the arena, for every position scheme and both attentions, and not wildly above it
//   (measured: the arena's high-water mark after a real forward from a fresh context), for
//   eval's forward (the chunked LM head's losses), passkey's (the logits of a few picked
//   positions) and exact match's (the logits taken whole);
// - that forward holds one layer's buffers at a time: its arena does not grow with
//   the layer count, and the fused attention's estimate is below the materialized one's;
// - ordo_arena_reserve returns ORDO_ERR_NOMEM for a size the system refuses (the arena stays
//   usable), and after a reservation a forward within it takes nothing more from the system.
#include <string.h>

#include "test.h"
#include "framework/arena.h"
#include "models/gpt.h"
#include "eval/evaluate.h"

// A size the system refuses; under ASan, malloc then returns NULL as glibc's does.
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
    return "allocator_may_return_null=1";
}

// The positions whose logits a forward takes: none (eval's losses), the last 3 of each row
// (passkey's key, through ordo_gpt_forward_pick), or all (copy/reverse's exact match).
typedef enum { HEAD_CHUNKED, HEAD_PICK, HEAD_WHOLE, HEAD_KINDS } head_kind;
static double picks_of(head_kind h, int rows, int T) {
    return h == HEAD_CHUNKED ? 0 : h == HEAD_PICK ? 3.0 * rows : (double)rows * T;
}

// The forward without a tape of rows x T tokens for config c, as eval runs it (the loss and
// each row's loss through the chunked head) or with the logits taken as head says.
static void eval_forward(ordo_gpt *m, ordo_ctx *ctx, const int32_t *in, int rows, int T,
                         head_kind head) {
    ctx->grad_enabled = 0;
    ordo_ctx_reset(ctx);
    ordo_tensor *lg;
    if (head == HEAD_WHOLE) {
        CHECK(ordo_gpt_forward(m, ctx, in, NULL, rows, T, &lg, NULL) == ORDO_OK);
        return;
    }
    if (head == HEAD_PICK) {
        int32_t pick[3 * 64], n = 0;
        CHECK(rows <= 64 && T >= 3);
        for (int i = 0; i < rows && i < 64; i++)
            for (int t = T - 3; t < T; t++) pick[n++] = i * T + t;
        CHECK(ordo_gpt_forward_pick(m, ctx, in, rows, T, pick, n, &lg) == ORDO_OK);
        return;
    }
    double *rl = malloc((size_t)rows * T * sizeof *rl);
    ordo_tensor *loss;
    CHECK(ordo_gpt_forward_loss(m, ctx, in, in, rows, T, rl, &loss) == ORDO_OK);
    free(rl);
}

// The arena's high-water mark of that forward from a fresh context.
static size_t forward_high_water(const ordo_gpt_config *c, ordo_attn_impl attn, int rows, int T,
                                 head_kind logits) {
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, c, 5) == ORDO_OK);
    m.attention = attn;
    int32_t *in = malloc((size_t)rows * T * sizeof *in);
    for (int i = 0; i < rows * T; i++) in[i] = (int32_t)((i * 7 + 3) % c->V);
    eval_forward(&m, &ctx, in, rows, T, logits);
    size_t hw = ctx.arena.high_water;
    free(in);
    ordo_gpt_free(&m);
    ordo_ctx_free(&ctx);
    return hw;
}

static void check_estimate(ordo_pos pos, ordo_attn_impl attn, int rows, int T, int C, int L, int NH,
                           int V, head_kind logits) {
    const char *an = ordo_attn_impl_name(attn);
    // sinusoidal with the Vaswani scale: the scale op's copy of the embeddings too
    ordo_gpt_config c = {.V = V,
                         .C = C,
                         .L = L,
                         .NH = NH,
                         .T_max = T,
                         .pos = pos,
                         .ln_eps = 1e-5f,
                         .embed_scale = pos == ORDO_POS_SINUSOIDAL ? 4.0f : 0.0f};
    double est = ordo_eval_forward_arena_bytes(&c, attn, rows, T, picks_of(logits, rows, T));
    size_t hw = forward_high_water(&c, attn, rows, T, logits);
    CHECK_MSG((double)hw <= est,
              "pos %d %s rows %d T %d C %d L %d NH %d V %d logits %d: used %zu > estimate %.0f",
              (int)pos, an, rows, T, C, L, NH, V, logits, hw, est);
    // high side, but within half again plus the fixed margin (1 MiB)
    CHECK_MSG(est <= 1.5 * (double)hw + (2 << 20),
              "pos %d %s rows %d T %d logits %d: estimate %.0f is far above the %zu used", (int)pos,
              an, rows, T, logits, est, hw);
    // one layer at a time: the same forward with one layer more takes no more arena
    c.L = L + 2;
    CHECK_MSG(forward_high_water(&c, attn, rows, T, logits) == hw,
              "pos %d %s rows %d T %d: L %d takes more arena than L %d", (int)pos, an, rows, T,
              L + 2, L);
    c.L = L;
    // the fused attention keeps nothing T x T: its estimate is the smaller where that counts
    if (attn == ORDO_ATTN_MATERIALIZED && T >= 256)
        CHECK_MSG(ordo_eval_forward_arena_bytes(&c, ORDO_ATTN_FUSED, rows, T,
                                                picks_of(logits, rows, T)) < est,
                  "pos %d rows %d T %d: the fused estimate is not below the materialized one",
                  (int)pos, rows, T);
    // reserved, the same forward takes nothing more from the system
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    CHECK(ordo_arena_reserve(&ctx.arena, (size_t)est) == ORDO_OK);
    size_t allocs = ctx.arena.system_allocs;
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &c, 5) == ORDO_OK);
    m.attention = attn;
    int32_t *in = calloc((size_t)rows * T, sizeof *in);
    eval_forward(&m, &ctx, in, rows, T, logits);
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
        for (int a = 0; a < ORDO_ATTN_COUNT; a++)
            for (int logits = 0; logits < HEAD_KINDS; logits++) {
                ordo_attn_impl at = (ordo_attn_impl)a;
                head_kind h = (head_kind)logits;
                check_estimate((ordo_pos)pos, at, 2, 256, 32, 2, 4, 50, h); // attention
                check_estimate((ordo_pos)pos, at, 3, 64, 64, 1, 2, 500, h); // activations
                check_estimate((ordo_pos)pos, at, 1, 8, 16, 3, 2, 11, h);   // the margin
            }
    // the head's chunk: a vocabulary whose (rows, T, V) logits would dwarf everything else
    for (int a = 0; a < ORDO_ATTN_COUNT; a++)
        for (int h = HEAD_CHUNKED; h <= HEAD_PICK; h++) // and passkey's few picked positions
            check_estimate(ORDO_POS_ROPE, (ordo_attn_impl)a, 2, 64, 16, 1, 2, 20000, (head_kind)h);
    TEST_MAIN_END();
}
