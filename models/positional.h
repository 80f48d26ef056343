// Position schemes: the enum the model switches over, and each scheme's fixed tables
// (sinusoidal PE, ALiBi slopes and biases, T5 buckets). Conventions: docs/positions.md;
// the PyTorch fixtures in tests/ref/ depend on them.
#ifndef ORDO_POSITIONAL_H
#define ORDO_POSITIONAL_H
#include <stdint.h>

#include "framework/error.h"
#include "framework/names.h"

typedef enum ordo_pos {
    ORDO_POS_NONE,       // no position signal (NoPE)
    ORDO_POS_LEARNED,    // absolute table [T_max, C] added to the token embeddings; trained
    ORDO_POS_SINUSOIDAL, // fixed Vaswani et al. table added; not a parameter
    ORDO_POS_ROPE,       // rotary embedding of q and k per head (rotate-half, base 10000)
    ORDO_POS_ALIBI,      // linear distance bias per head on the attention scores
    ORDO_POS_T5,         // learned bucketed relative bias [32, NH], shared by all layers
    ORDO_POS_COUNT
} ordo_pos;

#define ORDO_T5_BUCKETS      32
#define ORDO_T5_MAX_DISTANCE 128
#define ORDO_ROPE_BASE       10000.0

// The schemes' names in enum order: "none", "learned", "sinusoidal", "rope", "alibi", "t5".
// Every parse, name and list of choices (messages, --help) is made from this table.
extern const ordo_names ordo_pos_names;
// The scheme named `name`; ORDO_ERR_ARG otherwise, the message naming the value and the choices.
ordo_status ordo_pos_parse(const char *name, ordo_pos *out);
// The scheme's name ("?" for a value out of range).
const char *ordo_pos_name(ordo_pos p);
// Whether the scheme can run at lengths past the training context (all but learned).
int ordo_pos_extrapolates(ordo_pos p);

// PE(p, 2i) = sin(p / 10000^(2i/C)), PE(p, 2i+1) = cos(same), p = 0..T-1, in double.
void ordo_sinusoidal_table(float *out, int T, int C); // out [T, C]
// ALiBi slopes m_h, h = 1..NH (Press et al.; non-powers of two interleaved).
void ordo_alibi_slopes(double *out, int NH);
// bias[h, i, j] = -m_h * (i - j) for j <= i, 0 above the diagonal (masked anyway). [NH, T, T]
void ordo_alibi_bias(float *out, int NH, int T);
// T5 causal bucket of a distance n = max(i - j, 0): exact below 16, log-spaced up to 128.
int ordo_t5_bucket(int n);
// bucket[i*T + j] = ordo_t5_bucket(max(i - j, 0)).
void ordo_t5_bucket_map(int32_t *out, int T);

#endif
