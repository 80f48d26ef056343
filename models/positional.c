// The fixed parts of every position scheme. What is learned (the absolute table, the T5
// table, FIRE's MLP, Kerple's r1 and r2) is a parameter of the model (gpt.c); what rotates
// q and k is the rope op of the framework, and the learned biases are ops too (ops.h).
// Everything here is computed in double and rounded once.
#include <math.h>

#include "models/positional.h"

static const char *const pos_names[] = {"none", "learned", "sinusoidal", "rope", "alibi",
                                        "t5",   "fire",    "kerple",     "xpos", "kerple-power"};
_Static_assert(sizeof pos_names / sizeof pos_names[0] == ORDO_POS_COUNT, "a name per ordo_pos");
const ordo_names ordo_pos_names = ORDO_NAMES("position scheme", pos_names);

ordo_status ordo_pos_parse(const char *name, ordo_pos *out) {
    int v;
    ordo_status s = ordo_names_parse(&ordo_pos_names, name, &v);
    if (!s) *out = (ordo_pos)v;
    return s;
}

const char *ordo_pos_name(ordo_pos p) {
    return ordo_names_name(&ordo_pos_names, (int)p);
}

int ordo_pos_extrapolates(ordo_pos p) {
    return p != ORDO_POS_LEARNED;
}

void ordo_sinusoidal_table(float *out, int T, int C) {
    for (int p = 0; p < T; p++)
        for (int d = 0; d < C; d++) {
            int i2 = d & ~1; // 2i for both members of the pair
            double angle = p / pow(10000.0, (double)i2 / C);
            out[(size_t)p * C + d] = (float)(d % 2 == 0 ? sin(angle) : cos(angle));
        }
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
    const int max_exact = ORDO_T5_BUCKETS / 2;
    if (n < max_exact) return n < 0 ? 0 : n;
    // as HF T5 (bidirectional=False): log-spaced from max_exact to max_distance, in float32
    float v = logf((float)n / max_exact) / logf((float)ORDO_T5_MAX_DISTANCE / max_exact) *
              (ORDO_T5_BUCKETS - max_exact);
    int b = max_exact + (int)v;
    return b < ORDO_T5_BUCKETS - 1 ? b : ORDO_T5_BUCKETS - 1;
}

void ordo_t5_bucket_map(int32_t *out, int T) {
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) out[(size_t)i * T + j] = ordo_t5_bucket(i > j ? i - j : 0);
}

int ordo_pos_rotary(ordo_pos p) {
    return p == ORDO_POS_ROPE || p == ORDO_POS_XPOS;
}

int ordo_pos_has_bias(ordo_pos p) {
    return p == ORDO_POS_ALIBI || p == ORDO_POS_T5 || p == ORDO_POS_FIRE || p == ORDO_POS_KERPLE ||
           p == ORDO_POS_KERPLE_POWER;
}

void ordo_xpos_scale_table(float *out, int T, int C, int NH) {
    int hs = C / NH, half = hs / 2;
    // torchscale: min_pos = -(T // 2) rounded down, i.e. positions -ceil(T/2) .. T - 1 - ceil(T/2)
    int min_pos = -((T + 1) / 2);
    for (int t = 0; t < T; t++) {
        double n = (double)(t + min_pos) / ORDO_XPOS_SCALE_BASE;
        float *row = out + (size_t)t * 3 * C;
        for (int h = 0; h < NH; h++)
            for (int i = 0; i < half; i++) {
                double zeta = (2.0 * i + 0.4 * hs) / (1.4 * hs);
                float up = (float)pow(zeta, n), down = (float)pow(zeta, -n);
                row[h * hs + i] = row[h * hs + i + half] = up;           // q
                row[C + h * hs + i] = row[C + h * hs + i + half] = down; // k
            }
        for (int c = 0; c < C; c++) row[2 * C + c] = 1.0f; // v
    }
}

void ordo_kerple_clamp(float *r1, float *r2, int NH, int power) {
    for (int h = 0; h < NH; h++) {
        if (r1[h] < ORDO_KERPLE_EPS) r1[h] = ORDO_KERPLE_EPS;
        if (r2[h] < ORDO_KERPLE_EPS) r2[h] = ORDO_KERPLE_EPS;
        if (power && r2[h] > ORDO_KERPLE_POWER_MAX) r2[h] = ORDO_KERPLE_POWER_MAX;
    }
}
