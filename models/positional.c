// The fixed parts of every position scheme. What is learned (the absolute table, the T5
// table, FIRE's MLP, Kerple's r1 and r2) is a parameter of the model (gpt.c); what rotates
// q and k is the rope op of the framework, and the learned biases are ops too (ops.h).
// Everything here is computed in double and rounded once.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/rng.h"
#include "models/positional.h"
#include "models/pos/ops.h"

void ordo_sinusoidal_table(float *out, int T, int C) {
    for (int p = 0; p < T; p++)
        for (int d = 0; d < C; d++) {
            int i2 = d & ~1; // 2i for both members of the pair
            double angle = p / pow(10000.0, (double)i2 / C);
            out[(size_t)p * C + d] = (float)(d % 2 == 0 ? sin(angle) : cos(angle));
        }
}

void ordo_sinusoidal_at(float *out, const int32_t *pos, int n, int C) {
    for (int r = 0; r < n; r++)
        for (int d = 0; d < C; d++) { // the table's expression, at p = pos[r]
            int i2 = d & ~1, p = pos[r];
            double angle = p / pow(10000.0, (double)i2 / C);
            out[(size_t)r * C + d] = (float)(d % 2 == 0 ? sin(angle) : cos(angle));
        }
}

void ordo_random_positions(int32_t *out, int T, int N, uint64_t seed) {
    ordo_rng r;
    ordo_rng_seed(&r, seed);
    // candidate p is taken with probability need / (N - p): every T-subset equally likely, and
    // the positions come out sorted (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S)
    int need = T;
    for (int p = 0; p < N && need > 0; p++)
        if (ordo_rng_below(&r, (uint64_t)(N - p)) < (uint64_t)need) out[T - need--] = p;
}

static void slopes_pow2(double *out, int n) {
    for (int h = 1; h <= n; h++) out[h - 1] = pow(2.0, -8.0 * h / n);
}

void ordo_alibi_slopes(double *out, int NH) {
    int P = 1;
    while (P * 2 <= NH) P *= 2;
    slopes_pow2(out, P);
    if (P == NH) return;
    // the remaining heads take every other slope of 2P: m_1, m_3, m_5, ... of 2P
    for (int k = 0; k < NH - P; k++) out[P + k] = pow(2.0, -8.0 * (2 * k + 1) / (2.0 * P));
}

void ordo_alibi_bias(float *out, int NH, int T) {
    double m[256];
    double *slopes = NH <= 256 ? m : NULL;
    if (!slopes) return; // NH is validated to be small by the model config
    ordo_alibi_slopes(slopes, NH);
    for (int h = 0; h < NH; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++)
                out[((size_t)h * T + i) * T + j] = j <= i ? (float)(-slopes[h] * (i - j)) : 0.0f;
}

int ordo_t5_bucket(int n) {
    return ordo_t5_bucket_max(n, ORDO_T5_MAX_DISTANCE);
}

int ordo_t5_bucket_max(int n, int max_distance) {
    const int max_exact = ORDO_T5_BUCKETS / 2;
    if (n < max_exact) return n < 0 ? 0 : n;
    // as HF T5 (bidirectional=False): log-spaced from max_exact to max_distance, in float32
    float v = logf((float)n / max_exact) / logf((float)max_distance / max_exact) *
              (ORDO_T5_BUCKETS - max_exact);
    int b = max_exact + (int)v;
    return b < ORDO_T5_BUCKETS - 1 ? b : ORDO_T5_BUCKETS - 1;
}

// ---- RoPE frequencies and their scaling ----

ORDO_NAMES_ENUM(ordo_rope_scaling, ordo_rope_scaling_parse, ordo_rope_scaling_name,
                ordo_rope_scaling_names, "rope scaling", ORDO_ROPE_SCALING_COUNT, "none", "pi",
                "ntk", "yarn", "dynamic-ntk");

ordo_status ordo_rope_config_check(const ordo_rope_config *rc, int hs) {
    if (rc->scaling < 0 || rc->scaling >= ORDO_ROPE_SCALING_COUNT)
        return ordo_error(ORDO_ERR_ARG, "rope scaling %d is unknown", (int)rc->scaling);
    if (!(rc->factor >= 1 && rc->factor <= 1e4))
        return ordo_error(ORDO_ERR_ARG,
                          "--rope-factor is %g, expected 1..1e4 (the ratio of the new context "
                          "to the one trained at)",
                          rc->factor);
    if ((rc->scaling == ORDO_ROPE_SCALING_YARN || rc->scaling == ORDO_ROPE_SCALING_DYNAMIC_NTK) &&
        (rc->orig_T < 1 || rc->orig_T > (1 << 20)))
        return ordo_error(ORDO_ERR_ARG, "--rope-orig-context is %d, expected 1..%d", rc->orig_T,
                          1 << 20);
    double a = rc->yarn_alpha ? rc->yarn_alpha : ORDO_YARN_ALPHA,
           b = rc->yarn_beta ? rc->yarn_beta : ORDO_YARN_BETA;
    // the values that change nothing (the paper's) pass with any scaling
    int yarn_set = a != ORDO_YARN_ALPHA || b != ORDO_YARN_BETA || rc->yarn_no_temperature;
    if (yarn_set && rc->scaling != ORDO_ROPE_SCALING_YARN)
        return ordo_error(ORDO_ERR_ARG,
                          "--yarn-alpha, --yarn-beta and --yarn-no-temperature go with "
                          "--rope-scaling yarn, not %s",
                          ordo_rope_scaling_name(rc->scaling));
    if (!(a > 0 && a < b && b <= 1e6))
        return ordo_error(ORDO_ERR_ARG,
                          "--yarn-alpha %g and --yarn-beta %g: expected 0 < alpha < beta <= 1e6 "
                          "(rotations within the original context: pairs turning more than beta "
                          "times keep their frequency, fewer than alpha are interpolated)",
                          a, b);
    // base * s^(hs/(hs-2)) has no value at hs = 2
    if ((rc->scaling == ORDO_ROPE_SCALING_NTK || rc->scaling == ORDO_ROPE_SCALING_DYNAMIC_NTK) &&
        hs < 4)
        return ordo_error(ORDO_ERR_ARG,
                          "--rope-scaling %s needs a head size of at least 4 rotated dims (its "
                          "base is base*s^(rd/(rd-2))), but a head rotates %d (d-model/heads, "
                          "times --rope-fraction)",
                          ordo_rope_scaling_name(rc->scaling), hs);
    return ORDO_OK;
}

// YaRN's dimension whose wavelength fits `rotations` turns into orig_T positions (continuous).
static double yarn_correction_dim(double rotations, int hs, double base, int orig_T) {
    return (hs * log(orig_T / (rotations * 2 * M_PI))) / (2 * log(base));
}

int ordo_rope_scaling_by_length(ordo_rope_scaling s) {
    return s == ORDO_ROPE_SCALING_DYNAMIC_NTK;
}

double ordo_rope_inv_freq(double *inv_freq, int hs, const ordo_rope_config *rc) {
    return ordo_rope_inv_freq_len(inv_freq, hs, rc, rc->orig_T);
}

double ordo_rope_inv_freq_len(double *inv_freq, int hs, const ordo_rope_config *rc, int T) {
    const double base = ORDO_ROPE_BASE, s = rc->factor;
    int half = hs / 2;
    switch (rc->scaling) {
    case ORDO_ROPE_SCALING_NONE:
    case ORDO_ROPE_SCALING_COUNT:
        break;
    case ORDO_ROPE_SCALING_DYNAMIC_NTK: {
        if (T <= rc->orig_T) break; // unscaled within the original context
        double b = base * pow(s * T / rc->orig_T - (s - 1), (double)hs / (hs - 2));
        for (int i = 0; i < half; i++) inv_freq[i] = pow(b, -2.0 * i / hs);
        return 1.0;
    }
    case ORDO_ROPE_SCALING_PI:
        for (int i = 0; i < half; i++) inv_freq[i] = pow(base, -2.0 * i / hs) / s;
        return 1.0;
    case ORDO_ROPE_SCALING_NTK: {
        double b = base * pow(s, (double)hs / (hs - 2));
        for (int i = 0; i < half; i++) inv_freq[i] = pow(b, -2.0 * i / hs);
        return 1.0;
    }
    case ORDO_ROPE_SCALING_YARN: {
        // beta_fast = beta rotations, beta_slow = alpha (the paper's 32 and 1 unless set)
        double beta = rc->yarn_beta ? rc->yarn_beta : ORDO_YARN_BETA,
               alpha = rc->yarn_alpha ? rc->yarn_alpha : ORDO_YARN_ALPHA;
        double low = floor(yarn_correction_dim(beta, hs, base, rc->orig_T));
        double high = ceil(yarn_correction_dim(alpha, hs, base, rc->orig_T));
        if (low < 0) low = 0;
        if (high > hs - 1) high = hs - 1;
        if (low == high) high += 0.001; // as the reference: no division by zero
        for (int i = 0; i < half; i++) {
            double pos_freq = pow(base, 2.0 * i / hs);
            double ramp = (i - low) / (high - low); // 0: keep theta_i, 1: interpolate
            ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
            double extra = 1 - ramp;
            inv_freq[i] = 1.0 / (s * pos_freq) * (1 - extra) + 1.0 / pos_freq * extra;
        }
        return s <= 1 || rc->yarn_no_temperature ? 1.0 : 0.1 * log(s) + 1.0;
    }
    }
    // the unscaled frequencies, computed as the rope op always has (fixtures depend on it)
    for (int i = 0; i < half; i++) inv_freq[i] = pow(base, -2.0 * i / hs);
    return 1.0;
}

void ordo_rope_tables(float *cosv, float *sinv, int T, int hs, const double *inv_freq,
                      double mscale) {
    int half = hs / 2;
    for (int p = 0; p < T; p++)
        for (int i = 0; i < half; i++) {
            double ang = (double)p * inv_freq[i];
            cosv[(size_t)p * half + i] = (float)(mscale * cos(ang));
            sinv[(size_t)p * half + i] = (float)(mscale * sin(ang));
        }
}

void ordo_rope_tables_at(float *cosv, float *sinv, const int32_t *pos, int n, int hs,
                         const double *inv_freq, double mscale) {
    int half = hs / 2;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < half; i++) { // the tables' expression, at p = pos[r]
            double ang = (double)pos[r] * inv_freq[i];
            cosv[(size_t)r * half + i] = (float)(mscale * cos(ang));
            sinv[(size_t)r * half + i] = (float)(mscale * sin(ang));
        }
}

int ordo_rope_dims(double fraction, int hs) {
    return 2 * (int)lround(fraction * hs / 2.0);
}

ordo_status ordo_pos_scale_parse(const char *text, ordo_pos_scale *out) {
    out->kind = ORDO_POS_SCALE_NONE;
    out->value = 0;
    if (!text || !*text || strcmp(text, "none") == 0) return ORDO_OK;
    const char *num = NULL;
    if (strncmp(text, "fixed:", 6) == 0) {
        out->kind = ORDO_POS_SCALE_FIXED;
        num = text + 6;
    } else if (strcmp(text, "learned") == 0) {
        out->kind = ORDO_POS_SCALE_LEARNED;
        return ORDO_OK;
    } else if (strncmp(text, "learned:", 8) == 0) {
        out->kind = ORDO_POS_SCALE_LEARNED;
        num = text + 8;
    }
    char *end = NULL;
    double v = num ? strtod(num, &end) : 0;
    if (!num || !*num || *end || !(v > 0 && v <= 1e4)) {
        out->kind = ORDO_POS_SCALE_NONE;
        return ordo_error(ORDO_ERR_ARG,
                          "--pos-scale is '%s', expected fixed:X, learned or learned:INIT with "
                          "X and INIT numbers in (0, 1e4]",
                          text);
    }
    out->value = v;
    return ORDO_OK;
}

const char *ordo_pos_scale_text(const ordo_pos_scale *ps, char *buf, int cap) {
    if (ps->kind == ORDO_POS_SCALE_NONE)
        snprintf(buf, (size_t)cap, "none");
    else if (ps->kind == ORDO_POS_SCALE_LEARNED && ps->value == 0) // the default init
        snprintf(buf, (size_t)cap, "learned");
    else
        snprintf(buf, (size_t)cap, "%s:%.9g",
                 ps->kind == ORDO_POS_SCALE_FIXED ? "fixed" : "learned", ps->value);
    return buf;
}

// The xPos row [3C] of a token at position p, centred by min_pos (n = p + min_pos).
static void xpos_row(float *row, int p, int min_pos, int C, int NH) {
    int hs = C / NH, half = hs / 2;
    double n = (double)(p + min_pos) / ORDO_XPOS_SCALE_BASE;
    for (int h = 0; h < NH; h++)
        for (int i = 0; i < half; i++) {
            double zeta = (2.0 * i + 0.4 * hs) / (1.4 * hs);
            float up = (float)pow(zeta, n), down = (float)pow(zeta, -n);
            row[h * hs + i] = row[h * hs + i + half] = up;           // q
            row[C + h * hs + i] = row[C + h * hs + i + half] = down; // k
        }
    for (int c = 0; c < C; c++) row[2 * C + c] = 1.0f; // v
}

void ordo_xpos_scale_table(float *out, int T, int C, int NH) {
    // torchscale: min_pos = -(T // 2) rounded down, i.e. positions -ceil(T/2) .. T - 1 - ceil(T/2)
    for (int t = 0; t < T; t++) xpos_row(out + (size_t)t * 3 * C, t, -((T + 1) / 2), C, NH);
}

void ordo_xpos_scale_at(float *out, const int32_t *pos, int count, int n, int C, int NH) {
    for (int r = 0; r < count; r++)
        xpos_row(out + (size_t)r * 3 * C, pos[r], -((n + 1) / 2), C, NH);
}

void ordo_kerple_clamp(float *r1, float *r2, int NH, int power) {
    for (int h = 0; h < NH; h++) {
        if (r1[h] < ORDO_KERPLE_EPS) r1[h] = ORDO_KERPLE_EPS;
        if (r2[h] < ORDO_KERPLE_EPS) r2[h] = ORDO_KERPLE_EPS;
        if (power && r2[h] > ORDO_KERPLE_POWER_MAX) r2[h] = ORDO_KERPLE_POWER_MAX;
    }
}

ORDO_NAMES_TABLE(ordo_extend_pos_names, "--extend-pos value", ORDO_EXTEND_COUNT, "interpolate",
                 "fresh", "copy");

void ordo_extend_table(float *dst, int T, const float *src, int T0, int C, ordo_extend_pos how) {
    if (T <= T0 || how == ORDO_EXTEND_FRESH) {
        int n = T < T0 ? T : T0;
        memcpy(dst, src, (size_t)n * C * sizeof *dst);
        return;
    }
    if (how == ORDO_EXTEND_COPY) { // each row keeps what the model learned at its offset mod T0
        for (int p = 0; p < T; p++)
            memcpy(dst + (size_t)p * C, src + (size_t)(p % T0) * C, (size_t)C * sizeof *dst);
        return;
    }
    for (int p = 0; p < T; p++) {
        double x = T > 1 ? (double)p * (T0 - 1) / (T - 1) : 0;
        int i0 = (int)x, i1 = i0 + 1 < T0 ? i0 + 1 : T0 - 1;
        double w = x - i0;
        const float *a = src + (size_t)i0 * C, *b = src + (size_t)i1 * C;
        for (int c = 0; c < C; c++) dst[(size_t)p * C + c] = (float)((1 - w) * a[c] + w * b[c]);
    }
}
