// What a GPT config may hold, checked before a model is built (ordo_gpt_config_check): the
// sizes, each position scheme's own options and which schemes they apply to, the RoPE
// scaling; and the names of the attention implementations. The model (gpt.c) trusts a
// config that passed.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "framework/cpu.h"
#include "models/gpt.h"

// auto's rule (ordo_attn_auto_max_T): the last T at which the materialized attention trained
// faster, from bench/attention_crossover.sh on an AMD EPYC (Zen 4), 1 and 2 threads, bytes, C
// 64, NH 4, B*T 2048: materialized/fused 0.67 at T 16, 0.82 at 32, 0.97-0.99 at 64, 1.00-1.03
// at 128 and 1.06-1.12 at 256, with the AVX-512 kernels and with the AVX2 ones (ORDO_MAX_ISA=avx2,
// OPENBLAS_CORETYPE=Zen). Below one tile (64 rows) the fused kernel computes padded rows. The
// portable kernels were not measured on a CPU of their own (NEON): the same rule.
#define AUTO_MAX_T_AVX512   64
#define AUTO_MAX_T_AVX2     64
#define AUTO_MAX_T_PORTABLE 64

static const char *const attn_impl_names[] = {"fused", "materialized", "auto"};
_Static_assert(sizeof attn_impl_names / sizeof attn_impl_names[0] == ORDO_ATTN_COUNT,
               "a name per ordo_attn_impl");
const ordo_names ordo_attn_impl_names = ORDO_NAMES("attention", attn_impl_names);

ordo_status ordo_attn_impl_parse(const char *name, ordo_attn_impl *out) {
    int v;
    ordo_status s = ordo_names_parse(&ordo_attn_impl_names, name, &v);
    if (!s) *out = (ordo_attn_impl)v;
    return s;
}

const char *ordo_attn_impl_name(ordo_attn_impl a) {
    return ordo_names_name(&ordo_attn_impl_names, (int)a);
}

int ordo_attn_auto_max_T(void) {
    // The longest T at which the materialized attention still trained faster, per kernel set
    // (bench/attention_crossover.sh, docs/performance.md "Which attention auto picks").
    switch (ordo_cpu_isa()) {
    case ORDO_ISA_AVX512:
        return AUTO_MAX_T_AVX512;
    case ORDO_ISA_AVX2:
        return AUTO_MAX_T_AVX2;
    case ORDO_ISA_PORTABLE:
        break;
    }
    return AUTO_MAX_T_PORTABLE;
}

ordo_attn_impl ordo_attn_resolve(ordo_attn_impl a, int T) {
    if (a != ORDO_ATTN_AUTO) return a;
    return T <= ordo_attn_auto_max_T() ? ORDO_ATTN_MATERIALIZED : ORDO_ATTN_FUSED;
}

// A scaling changes the rotation of q and k: only schemes that rotate them take one. Its
// frequencies are over the rotated dims (partial rotary: rd, as HF's partial_rotary_factor).
ordo_status ordo_gpt_rope_check(const ordo_gpt_config *c) {
    ordo_rope_config rc = ordo_gpt_rope_of(c);
    if (rc.scaling != ORDO_ROPE_SCALING_NONE && c->pos != ORDO_POS_ROPE)
        return ordo_error(ORDO_ERR_ARG, "--rope-scaling %s applies to --pos rope, not to --pos %s",
                          ordo_rope_scaling_name(rc.scaling), ordo_pos_name(c->pos));
    return ordo_rope_config_check(&rc, ordo_gpt_rope_dims(c));
}

// dpb: the MLP's shape, in range, and its own scheme's only (the defaults, or
// 0, pass anywhere).
static ordo_status dpb_check(const ordo_gpt_config *c) {
    const struct {
        const char *opt;
        int v, def, max;
    } o[] = {{"--dpb-dim", c->dpb_dim, ORDO_DPB_DIM, ORDO_DPB_MAX_DIM},
             {"--dpb-depth", c->dpb_depth, ORDO_DPB_DEPTH, ORDO_DPB_MAX_DEPTH},
             {"--dpb-log-distance", c->dpb_log_distance, 0, 1}};
    for (int i = 0; i < 3; i++) {
        if (o[i].v < 0 || o[i].v > o[i].max)
            return ordo_error(ORDO_ERR_ARG, "%s is %d, expected 1..%d", o[i].opt, o[i].v, o[i].max);
        if (o[i].v != 0 && o[i].v != o[i].def && c->pos != ORDO_POS_DPB)
            return ordo_error(ORDO_ERR_ARG, "%s %d applies to --pos dpb, not to --pos %s", o[i].opt,
                              o[i].v, ordo_pos_name(c->pos));
    }
    return ORDO_OK;
}

// cope: its number of positions P, its own scheme's only. 0 reads as T_max + 1
// (the training config refuses a given 0).
static ordo_status cope_check(const ordo_gpt_config *c) {
    int P = c->cope_max;
    // P 1: every count interpolates to the one embedding, so the bias carries no position
    if (P < 0 || P == 1 || P > ORDO_COPE_MAX_LIMIT)
        return ordo_error(ORDO_ERR_ARG,
                          "--cope-max is %d, expected 2..%d (one position gives every key the "
                          "same embedding: no position signal)",
                          P, ORDO_COPE_MAX_LIMIT);
    if (P != 0 && c->pos != ORDO_POS_COPE)
        return ordo_error(ORDO_ERR_ARG, "--cope-max %d applies to --pos cope, not to --pos %s", P,
                          ordo_pos_name(c->pos));
    if (c->pos == ORDO_POS_COPE && P == 0 && c->T_max + 1 > ORDO_COPE_MAX_LIMIT)
        return ordo_error(ORDO_ERR_ARG,
                          "--pos cope takes --context + 1 = %d positions by default, past its "
                          "limit %d: give --cope-max",
                          c->T_max + 1, ORDO_COPE_MAX_LIMIT);
    return ORDO_OK;
}

// t5: where its log-spaced buckets end, its own scheme's only. 0 reads as 128, and 128
// passes anywhere (it changes nothing).
static ordo_status t5_check(const ordo_gpt_config *c) {
    int M = c->t5_max_distance;
    if (M != 0 && (M <= ORDO_T5_BUCKETS / 2 || M > ORDO_T5_MAX_DISTANCE_LIMIT))
        return ordo_error(ORDO_ERR_ARG,
                          "--t5-max-distance is %d, expected %d..%d (the buckets are exact up to "
                          "%d, log-spaced from there to it)",
                          M, ORDO_T5_BUCKETS / 2 + 1, ORDO_T5_MAX_DISTANCE_LIMIT,
                          ORDO_T5_BUCKETS / 2);
    if (M != 0 && M != ORDO_T5_MAX_DISTANCE && c->pos != ORDO_POS_T5)
        return ordo_error(ORDO_ERR_ARG, "--t5-max-distance %d applies to --pos t5, not to --pos %s",
                          M, ordo_pos_name(c->pos));
    return ORDO_OK;
}

// fox: the gates' initial bias, its own scheme's only; 0 (the paper's) passes anywhere.
static ordo_status fox_check(const ordo_gpt_config *c) {
    double b = c->fox_gate_bias;
    if (!(fabs(b) <= ORDO_FOX_GATE_BIAS_LIMIT))
        return ordo_error(ORDO_ERR_ARG,
                          "--fox-gate-bias is %g, expected -%g..%g (the forget gates' initial "
                          "f = sigmoid(b))",
                          b, ORDO_FOX_GATE_BIAS_LIMIT, ORDO_FOX_GATE_BIAS_LIMIT);
    if (b != 0 && c->pos != ORDO_POS_FOX)
        return ordo_error(ORDO_ERR_ARG, "--fox-gate-bias %g applies to --pos fox, not to --pos %s",
                          b, ordo_pos_name(c->pos));
    return ORDO_OK;
}

// Partial rotary, head subsets, the scale on absolute positions. Each option is
// its scheme's only; the value that changes nothing (fraction 1, all heads) passes anywhere.
static ordo_status subset_check(const ordo_gpt_config *c) {
    int hs = c->C / c->NH;
    double f = c->rope_fraction;
    if (!(f >= 0 && f <= 1)) // 0 reads as 1 here; the training config refuses a given 0
        return ordo_error(ORDO_ERR_ARG, "--rope-fraction is %g, expected 0 < f <= 1", f);
    if (f != 0 && f != 1) {
        if (c->pos != ORDO_POS_ROPE)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-fraction %g applies to --pos rope, not to --pos %s", f,
                              ordo_pos_name(c->pos));
        if (ordo_rope_dims(f, hs) < 2)
            return ordo_error(ORDO_ERR_ARG,
                              "--rope-fraction %g of a head of %d dims rotates 2*round(%g*%d/2) = "
                              "0 dims; expected a fraction of at least %g",
                              f, hs, f, hs, 1.0 / hs);
    }
    const struct {
        const char *opt;
        int k;
        ordo_pos pos;
    } sub[] = {{"--rope-heads", c->rope_heads, ORDO_POS_ROPE},
               {"--alibi-heads", c->alibi_heads, ORDO_POS_ALIBI}};
    for (int i = 0; i < 2; i++) {
        if (sub[i].k < 0 || sub[i].k > c->NH)
            return ordo_error(ORDO_ERR_ARG, "%s is %d, expected 1..--heads %d (0 = all)",
                              sub[i].opt, sub[i].k, c->NH);
        if (sub[i].k != 0 && sub[i].k != c->NH && c->pos != sub[i].pos)
            return ordo_error(ORDO_ERR_ARG, "%s %d applies to --pos %s, not to --pos %s",
                              sub[i].opt, sub[i].k, ordo_pos_name(sub[i].pos),
                              ordo_pos_name(c->pos));
    }
    ordo_status s = dpb_check(c);
    if (!s) s = cope_check(c);
    if (!s) s = t5_check(c);
    if (!s) s = fox_check(c);
    if (s) return s;
    const ordo_pos_scale *ps = &c->pos_scale;
    if (ps->kind != ORDO_POS_SCALE_NONE) {
        char buf[48];
        if (c->pos != ORDO_POS_LEARNED && c->pos != ORDO_POS_SINUSOIDAL)
            return ordo_error(ORDO_ERR_ARG,
                              "--pos-scale %s applies to the absolute schemes (--pos learned or "
                              "sinusoidal), not to --pos %s",
                              ordo_pos_scale_text(ps, buf, sizeof buf), ordo_pos_name(c->pos));
        if (!(ps->value >= 0 && ps->value <= 1e4) ||
            (ps->kind == ORDO_POS_SCALE_FIXED && ps->value == 0))
            return ordo_error(ORDO_ERR_ARG, "--pos-scale %s: expected a value in (0, 1e4]",
                              ordo_pos_scale_text(ps, buf, sizeof buf));
    }
    return ORDO_OK;
}

// --pos-random N: positions drawn from [0, N), which the input schemes take as they come
// (a table row, a sinusoid, an angle) and the relative ones through their differences
// (models/gpt_positions.c). Refused, by name, for the schemes without positions to draw.
static ordo_status random_check(const ordo_gpt_config *c) {
    int N = c->pos_random;
    if (N == 0) return ORDO_OK;
    if (N < 0 || N > ORDO_GPT_MAX_DIM)
        return ordo_error(ORDO_ERR_ARG, "--pos-random is %d, expected 1..%d (0 = off)", N,
                          ORDO_GPT_MAX_DIM);
    if (!ordo_pos_takes_positions(c->pos)) {
        char takers[256] = ""; // the schemes that take it, from the table (stays true)
        for (int p = 0; p < ORDO_POS_COUNT; p++)
            if (ordo_pos_takes_positions((ordo_pos)p))
                snprintf(takers + strlen(takers), sizeof takers - strlen(takers), "%s%s",
                         takers[0] ? ", " : "", ordo_pos_name((ordo_pos)p));
        return ordo_error(ORDO_ERR_ARG,
                          "--pos-random %d does not apply to --pos %s (%s); it applies to --pos "
                          "%s",
                          N, ordo_pos_name(c->pos),
                          c->pos == ORDO_POS_NONE   ? "it has no positions to draw"
                          : c->pos == ORDO_POS_FOX  ? "its bias comes from the text's forget "
                                                      "gates, used with no other positions"
                          : c->pos == ORDO_POS_COPE ? "its positions are counts of gated keys, "
                                                      "used with no other positions"
                                                    : "its bias comes from the text, not from "
                                                      "the tokens' positions",
                          takers);
    }
    if (c->pos == ORDO_POS_LEARNED && c->T_max != N)
        return ordo_error(ORDO_ERR_ARG,
                          "--pos-random %d with --pos learned needs a table of %d rows, but "
                          "T_max is %d",
                          N, N, c->T_max);
    if (N < c->T_max)
        return ordo_error(ORDO_ERR_ARG,
                          "--pos-random %d is below --context %d: it draws %d distinct "
                          "positions of [0, %d)",
                          N, c->T_max, c->T_max, N);
    return ORDO_OK;
}

ordo_status ordo_gpt_config_check(const ordo_gpt_config *c) {
    // fields are named by the `ordo train` options (and config.json keys) that set them
    const struct {
        const char *name;
        int v;
    } dims[] = {{"vocabulary size", c->V},
                {"--d-model", c->C},
                {"--layers", c->L},
                {"--heads", c->NH},
                {"--context", c->T_max}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        if (dims[i].v <= 0 || dims[i].v > ORDO_GPT_MAX_DIM)
            return ordo_error(ORDO_ERR_ARG, "%s is %d, expected 1..%d", dims[i].name, dims[i].v,
                              ORDO_GPT_MAX_DIM);
    if (c->NH > 256) return ordo_error(ORDO_ERR_ARG, "--heads is %d, expected 1..256", c->NH);
    if (c->C % c->NH)
        return ordo_error(ORDO_ERR_ARG, "--heads %d does not divide --d-model %d", c->NH, c->C);
    if (c->pos < 0 || c->pos >= ORDO_POS_COUNT)
        return ordo_error(ORDO_ERR_ARG, "position scheme %d is unknown", (int)c->pos);
    if (ordo_pos_rotary(c->pos) && (c->C / c->NH) % 2)
        return ordo_error(ORDO_ERR_ARG,
                          "--pos %s needs an even head size, but d-model/heads = %d/%d = %d",
                          ordo_pos_name(c->pos), c->C, c->NH, c->C / c->NH);
    if (c->pos == ORDO_POS_SINUSOIDAL && c->C % 2)
        return ordo_error(ORDO_ERR_ARG, "--pos sinusoidal needs an even --d-model, got %d", c->C);
    if (!(c->embed_scale >= 0 && c->embed_scale <= 1e4))
        return ordo_error(ORDO_ERR_ARG, "--embed-scale is %g, expected 0..1e4 (0 = 1)",
                          c->embed_scale);
    if (!(c->embed_std >= 0 && c->embed_std <= 1e2))
        return ordo_error(ORDO_ERR_ARG, "--embed-std is %g, expected 0..100 (0 = 0.02)",
                          c->embed_std);
    const struct {
        const char *name;
        float p;
    } drops[] = {{"--dropout-embd", c->dropout_embd},
                 {"--dropout-attn", c->dropout_attn},
                 {"--dropout-resid", c->dropout_resid}};
    for (int i = 0; i < 3; i++)
        if (!(drops[i].p >= 0.0f && drops[i].p < 1.0f))
            return ordo_error(ORDO_ERR_ARG, "%s is %g, expected 0 <= p < 1", drops[i].name,
                              drops[i].p);
    if (c->untied_head != 0 && c->untied_head != 1)
        return ordo_error(ORDO_ERR_ARG, "untied head is %d, expected 0 or 1", c->untied_head);
    ordo_status s = subset_check(c);
    if (!s) s = ordo_gpt_rope_check(c);
    if (!s) s = random_check(c);
    if (s) return s;
    if (!(c->ln_eps > 0) || c->ln_eps > 1)
        return ordo_error(ORDO_ERR_ARG, "layernorm eps is %g, expected in (0, 1]", c->ln_eps);
    double params = (1.0 + c->untied_head) * c->V * c->C + 12.0 * c->L * c->C * c->C;
    if (params > 2e9)
        return ordo_error(ORDO_ERR_ARG,
                          "--d-model %d, --layers %d and a vocabulary of %d make %.3g "
                          "parameters; ordo allows 2e9",
                          c->C, c->L, c->V, params);
    return ORDO_OK;
}
