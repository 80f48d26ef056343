// Position schemes: the enum the model switches over, and each scheme's fixed tables
// (sinusoidal PE, ALiBi slopes and biases, T5 buckets, the xPos scale) and constants (FIRE,
// Kerple). Conventions are those of docs/positions.md; the PyTorch fixtures in tests/ref/
// depend on them.
#ifndef ORDO_POSITIONAL_H
#define ORDO_POSITIONAL_H
#include <stdint.h>

#include "sys/error.h"
#include "framework/names.h"
#include "models/pos/table.h"

#define ORDO_T5_BUCKETS            32
#define ORDO_T5_MAX_DISTANCE       128
#define ORDO_T5_MAX_DISTANCE_LIMIT (1 << 20)
#define ORDO_ROPE_BASE             10000.0
// FIRE (Li et al. 2023, appendix module): MLP 1 -> 32 -> NH with ReLU over
// u = log(|c| d + 1) / (log(|c| max(i, L) + 1) + eps), L = |l * 512|; c starts at 0.1, l at 1.
#define ORDO_FIRE_WIDTH  32
#define ORDO_FIRE_INIT_C 0.1f
#define ORDO_FIRE_INIT_L 512.0f
#define ORDO_FIRE_EPS    1e-6f
#define ORDO_FIRE_MAX_T  46340 // T(T+1)/2 causal pairs fit an int
// Kerple (Chi et al. 2022, official code): r1, r2 are kept >= 0.01 by clamping them in place
// before every forward (ordo_kerple_clamp), the power variant's exponent r2 also <= 2.
#define ORDO_KERPLE_EPS       0.01f
#define ORDO_KERPLE_POWER_MAX 2.0f
// Dynamic position bias (Wang et al. 2021; x-transformers' DynamicPositionBias): an MLP
// 1 -> W (SiLU) -> (depth - 1) x [W -> W (SiLU)] -> NH of the distance i - j, or with
// log_distance of log(i - j + 1). Defaults --dpb-dim 32, --dpb-depth 2, no log distance.
#define ORDO_DPB_DIM       32
#define ORDO_DPB_DEPTH     2
#define ORDO_DPB_MAX_DIM   1024
#define ORDO_DPB_MAX_DEPTH 8
// CoPE (Golovneva et al. 2024): positions p in [0, P - 1], P = --cope-max, by default the
// training context + 1 (the official code's block_size + 1: no position of a training window
// is clamped); at most ORDO_COPE_MAX_LIMIT.
#define ORDO_COPE_MAX_LIMIT 65536
// xPos (Sun et al. 2022, torchscale): zeta_i = (2i/hs + 0.4) / 1.4, gamma = 512.
#define ORDO_XPOS_SCALE_BASE 512.0

// PE(p, 2i) = sin(p / 10000^(2i/C)), PE(p, 2i+1) = cos(same), p = 0..T-1, in double.
void ordo_sinusoidal_table(float *out, int T, int C); // out [T, C]
// The same rows at the positions pos[0..n) (--pos-random's drawn ones), bit for bit those of
// the table. out [n, C]
void ordo_sinusoidal_at(float *out, const int32_t *pos, int n, int C);
// --pos-random N (Ruoss et al. 2023): a uniform random subset of T distinct positions of
// [0, N), sorted, into out[T], drawn from an rng seeded with `seed` alone (Knuth's selection
// sampling: one ordo_rng_below per candidate, so the draw is a function of (seed, T, N)).
// T <= N.
void ordo_random_positions(int32_t *out, int T, int N, uint64_t seed);
// ALiBi slopes m_h, h = 1..NH (Press et al.; non-powers of two interleaved).
void ordo_alibi_slopes(double *out, int NH);
// bias[h, i, j] = -m_h * (i - j) for j <= i, 0 above the diagonal (masked anyway). [NH, T, T]
void ordo_alibi_bias(float *out, int NH, int T);
// T5 causal bucket of a distance n = max(i - j, 0): exact below 16, log-spaced up to 128.
int ordo_t5_bucket(int n);
// The same with the log-spaced buckets ending at max_distance (> 16) instead of 128: HF T5's
// relative_attention_max_distance; every distance from there on is in the last bucket.
int ordo_t5_bucket_max(int n, int max_distance);

// ---- RoPE frequencies and their scaling (context extension) ----
// The rotation of pair i (dims i and i + hs/2) at position p is the angle p * inv_freq[i];
// a scaling changes inv_freq and may multiply q and k by a factor (mscale). Everything that
// rotates q and k (rope; xpos on top of it) builds its cos/sin from ordo_rope_inv_freq.
typedef enum ordo_rope_scaling {
    ORDO_ROPE_SCALING_NONE, // inv_freq_i = base^(-2i/hs)
    ORDO_ROPE_SCALING_PI,   // Chen et al. 2023: positions divided by s (inv_freq_i / s)
    ORDO_ROPE_SCALING_NTK,  // "NTK-aware": base raised to base * s^(hs/(hs-2))
    ORDO_ROPE_SCALING_YARN, // Peng et al. 2023: ramp alpha 1, beta 32; q, k x (0.1 ln s + 1)
    // Peng et al. 2023 B.3, HF DynamicNTKScalingRotaryEmbedding: at a length T past orig_T,
    // ntk with base * (s T / orig_T - (s - 1))^(hs/(hs-2)); unscaled up to orig_T
    ORDO_ROPE_SCALING_DYNAMIC_NTK,
    ORDO_ROPE_SCALING_COUNT
} ordo_rope_scaling;

typedef struct ordo_rope_config {
    ordo_rope_scaling scaling;
    double factor; // s >= 1 (1: no change)
    int orig_T;    // YaRN's original_max_position_embeddings: the context trained at first
    // YaRN's ramp ends, beta_slow (alpha) and beta_fast (beta), in rotations within orig_T
    // (0 reads as the paper's 1 and 32, which were fitted to LLaMA), and its temperature
    // (q, k x 0.1 ln s + 1) switched off by yarn_no_temperature
    double yarn_alpha, yarn_beta;
    int yarn_no_temperature;
} ordo_rope_config;
#define ORDO_YARN_ALPHA 1.0
#define ORDO_YARN_BETA  32.0

// "none", "pi", "ntk", "yarn", "dynamic-ntk", in enum order.
extern const ordo_names ordo_rope_scaling_names;
// The scaling named `name`; ORDO_ERR_ARG naming the value and the choices otherwise.
ordo_status ordo_rope_scaling_parse(const char *name, ordo_rope_scaling *out);
const char *ordo_rope_scaling_name(ordo_rope_scaling s); // "?" out of range
// Checks a scaling for head size hs: factor in [1, 1e4], orig_T >= 1 for yarn, hs >= 4 for
// ntk (its exponent hs/(hs-2)), 0 < yarn_alpha < yarn_beta <= 1e6 (0: the defaults) and yarn's
// options with yarn only. ORDO_ERR_ARG naming the option (--rope-factor, ...) otherwise.
ordo_status ordo_rope_config_check(const ordo_rope_config *rc, int hs);
// The per-pair inverse frequencies inv_freq[hs/2] (radians per position) under rc, in double,
// with base ORDO_ROPE_BASE; returns the factor on q and k (1 but for yarn). YaRN follows
// jquesnelle/yarn's LlamaYaRNScaledRotaryEmbedding (= HF _compute_yarn_parameters): the
// correction range [floor(d(beta)), ceil(d(alpha))] (beta 32, alpha 1 unless set) with d(r) =
// hs ln(orig_T / (2 pi r)) / (2 ln base), clamped to [0, hs-1]; ramp_i = clamp((i - low) /
// (high - low), 0, 1); inv_freq_i = theta_i / s * ramp_i + theta_i * (1 - ramp_i); factor
// 0.1 ln s + 1 (1 with yarn_no_temperature).
double ordo_rope_inv_freq(double *inv_freq, int hs, const ordo_rope_config *rc);
// The same for a sequence of length T: differs only for dynamic-ntk, whose frequencies depend
// on the length (ordo_rope_inv_freq gives its unscaled ones, those of T <= orig_T).
double ordo_rope_inv_freq_len(double *inv_freq, int hs, const ordo_rope_config *rc, int T);
// 1 when the scaling's frequencies depend on the sequence's length (dynamic-ntk).
int ordo_rope_scaling_by_length(ordo_rope_scaling s);
// cos[p, i] = mscale cos(p inv_freq_i), sin likewise, for p = 0..T-1 (computed in double,
// rounded once). out [T, hs/2] each.
void ordo_rope_tables(float *cosv, float *sinv, int T, int hs, const double *inv_freq,
                      double mscale);
// The same rows at the positions pos[0..n) (--pos-random): out [n, hs/2] each.
void ordo_rope_tables_at(float *cosv, float *sinv, const int32_t *pos, int n, int hs,
                         const double *inv_freq, double mscale);
// Partial rotary (--rope-fraction f, GPT-NeoX's rotary_pct): the rotated dims of a head of
// size hs, 2 * round(f * hs / 2) (even; 0 when f is too small for one pair). The first
// ordo_rope_dims of each head rotate as a rope of that head size (pairs (i, i + rd/2),
// frequencies base^(-2i/rd)); the rest pass through.
int ordo_rope_dims(double fraction, int hs);

// A scale on the absolute position signal (--pos-scale, learned and sinusoidal only):
// x = tokens + scale * positions. fixed: a constant; learned: a trainable scalar wpe.scale
// [1], initialised to value (0 = C^-0.5, as x-transformers' ScaledSinusoidalEmbedding).
typedef enum ordo_pos_scale_kind {
    ORDO_POS_SCALE_NONE,
    ORDO_POS_SCALE_FIXED,
    ORDO_POS_SCALE_LEARNED,
} ordo_pos_scale_kind;
typedef struct ordo_pos_scale {
    ordo_pos_scale_kind kind;
    double value; // fixed: the scale; learned: its init (0 = C^-0.5)
} ordo_pos_scale;
// "fixed:X", "learned" or "learned:INIT" (NULL or "" or "none": none). X and INIT finite, in
// (0, 1e4]. ORDO_ERR_ARG naming --pos-scale, the value and the forms expected.
ordo_status ordo_pos_scale_parse(const char *text, ordo_pos_scale *out);
// "fixed:X" / "learned:X" ("%.9g") into buf, or "none"; returns buf.
const char *ordo_pos_scale_text(const ordo_pos_scale *ps, char *buf, int cap);

// The xPos multiplier of a fused qkv row at each position, out [T, 3C]: the q part of head h,
// dims i and i + hs/2, gets zeta_i^(n/512), the k part zeta_i^(-n/512), v 1, where
// zeta_i = (2i + 0.4 hs) / (1.4 hs) and n = t - ceil(T/2) is the position centred as
// torchscale centres it (q_n k_m then decays as zeta^((n - m)/512), whatever the centring).
void ordo_xpos_scale_table(float *out, int T, int C, int NH);
// The same rows at positions pos[0..count) (--pos-random), centred on the range [0, n) they
// are drawn from: position p takes n' = p - ceil(n/2) (n = T and pos = 0..T-1 give the
// table). out [count, 3C]
void ordo_xpos_scale_at(float *out, const int32_t *pos, int count, int n, int C, int NH);
// Kerple's positivity: r1, r2 [NH] clamped in place to >= ORDO_KERPLE_EPS, and with `power`
// r2 (the exponent) to <= ORDO_KERPLE_POWER_MAX too, as the official code does before every
// forward. NaN stays NaN (the trainer's non-finite check then stops the run).
void ordo_kerple_clamp(float *r1, float *r2, int NH, int power);

// How --extend-pos grows a learned table past its length (ordo_extend_table).
typedef enum ordo_extend_pos {
    ORDO_EXTEND_INTERPOLATE, // rows linearly interpolated over the old ones, ends kept
    ORDO_EXTEND_FRESH,       // the old rows kept, the new ones as a new table's init draws them
    ORDO_EXTEND_COPY,        // the old rows repeated: row t is old row t mod T0 (Longformer)
    ORDO_EXTEND_COUNT
} ordo_extend_pos;
extern const ordo_names ordo_extend_pos_names; // "interpolate", "fresh", "copy"

// Fits a position table src [T0, C] to dst [T, C]. T > T0: interpolate sets row p to the
// linear interpolation of src at x = p (T0-1)/(T-1) (both ends kept; PyTorch's
// F.interpolate(mode="linear", align_corners=True)); fresh copies the T0 rows and leaves rows
// T0.. as they are (the new table's own init); copy sets row t to src row t mod T0 (Beltagy et
// al. 2020, Longformer's init of its 4096 rows from RoBERTa's 512). T <= T0: the first T rows,
// any way.
void ordo_extend_table(float *dst, int T, const float *src, int T0, int C, ordo_extend_pos how);

#endif
