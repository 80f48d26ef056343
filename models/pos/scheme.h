// The position-scheme table: each scheme (or family) in one file of models/pos/, exporting one
// row of hooks, registered in ordo_pos_schemes[] (table.c) in ordo_pos order. The model
// (models/gpt.c) calls the rows and knows no scheme: what a scheme declares, draws, adds at the
// input, does to q and k, adds to the scores, writes in the checkpoint's metadata and refuses
// is in its file. x-transformers keeps a class per scheme, ggml a row per op; the rows here
// keep ordo's tile interface (models/bias_tiles.h) for the biases.
//
// The hooks see a narrow state (ordo_pos_state: the resolved config and their own tensors),
// never ordo_gpt, so that no call runs back up into the model. Every hook may be NULL: the
// scheme has nothing to do there.
#ifndef ORDO_POS_SCHEME_H
#define ORDO_POS_SCHEME_H
#include <stddef.h>
#include <stdint.h>

#include "framework/params.h"
#include "framework/rng.h"
#include "framework/tensor.h"
#include "models/bias_tiles.h"
#include "models/gpt.h"

// What a scheme is, for the code that asks before it calls (a switch elsewhere before).
enum {
    ORDO_POS_F_ROTARY = 1 << 0,    // rotates q and k: needs an even head size
    ORDO_POS_F_POSITIONS = 1 << 1, // runs at positions other than 0..T-1 (--pos-random)
    ORDO_POS_F_BIAS = 1 << 2,      // adds a bias to the attention scores
    ORDO_POS_F_INPUT = 1 << 3,     // adds a signal to the token embeddings (--pos-scale)
    ORDO_POS_F_LENGTH = 1 << 4,    // cannot run past the training context (learned's table)
};

// Where the model declares and draws parameters, in the order that fixes a seed's weights and
// the checkpoint's tensor order: after the token table (the learned table), after the final
// LayerNorm (t5's table), and after every other tensor (the learned relative biases, drawn
// last as their reference code draws them).
typedef enum ordo_pos_stage {
    ORDO_POS_AFTER_WTE,
    ORDO_POS_AFTER_LN_F,
    ORDO_POS_LAST
} ordo_pos_stage;

// A scheme's state: this header first, then the scheme's own fields (its tensors, per-length
// caches). Made by ordo_pos_state_new, zeroed, row->state_bytes long.
typedef struct ordo_pos_state {
    const struct ordo_pos_scheme *row;
    const ordo_gpt_config *cfg; // the model's, zero fields resolved; read only
} ordo_pos_state;

// One forward's position inputs and what the scheme makes of them once for all layers.
typedef struct ordo_pos_step {
    int B, T;
    int fused;          // the fused attention runs (else the materialized one)
    int record;         // viz records the attention: keep each layer's internals
    const int32_t *pos; // [B, T] drawn or given positions, or NULL: 0..T-1
    int n;              // with pos: the positions' range (ordo_gpt_positions_range)
    // made by prepare
    ordo_tensor *input;     // added to the token embeddings: (T, C) or (B, T, C); NULL: none
    ordo_bias_tiles *tiles; // fused: the bias shared by the layers, or NULL
    ordo_tensor *bias;      // materialized: (NH, T, T), (B, NH, T, T) at positions, or NULL
    const void *own;        // the scheme's own per-forward data (rotary: cos/sin rows)
} ordo_pos_step;

// A layer's own bias (fox, cope: from the layer's activations), and what viz keeps of it.
typedef struct ordo_pos_layer {
    ordo_bias_tiles *tiles; // fused
    ordo_tensor *bias;      // materialized
    const float *record;    // fox: the prefix sums c (B, NH, T); cope: the positions p
} ordo_pos_layer;

// What viz draws of a scheme besides the attention maps (experiments/viz.c).
typedef enum ordo_pos_picture {
    ORDO_POS_PICTURE_NOTE,      // nothing: a line (note) says why
    ORDO_POS_PICTURE_TABLE,     // the signal added at the input, by position (input_rows)
    ORDO_POS_PICTURE_BIAS,      // the shared bias per head, as maps and as curves by distance
    ORDO_POS_PICTURE_SPECTRUM,  // the rotation's wavelengths under each scaling
    ORDO_POS_PICTURE_GATES,     // a bias from each layer's gates: its curves on a window (fox)
    ORDO_POS_PICTURE_POSITIONS, // positions counted from the text: maps on a window (cope)
} ordo_pos_picture;

typedef struct ordo_pos_scheme {
    ordo_pos pos;
    unsigned flags;
    size_t state_bytes; // sizeof the scheme's state (ordo_pos_state first)
    // Why Hugging Face's GPT2LMHeadModel cannot compute it (ordo export); NULL: it can.
    const char *export_refusal;
    // The longest length its arithmetic is defined at in float (0: no limit), and why: the
    // forward refuses longer ones and eval notes them, instead of scores that are NaN.
    int (*max_length)(const ordo_gpt_config *c);
    const char *max_length_why;
    // Its options' zero fields to their values (config-resolved: ordo_gpt_init).
    void (*resolve)(ordo_gpt_config *c);
    // Declares its parameters at `stage` into p; draws their init at `stage` from r.
    void (*declare)(ordo_pos_state *s, ordo_params *p, ordo_pos_stage stage, int L);
    void (*init)(ordo_pos_state *s, ordo_rng *r, ordo_pos_stage stage);
    // Its options in a checkpoint's metadata, after the keys every model writes.
    void (*meta)(const ordo_gpt_config *c, ordo_gpt_meta *mt);
    // The state's mallocs (per-length caches), freed with the model.
    void (*free)(ordo_pos_state *s);
    // Its length-dependent constants dropped (a new RoPE scaling): rebuilt at the next forward.
    void (*invalidate)(ordo_pos_state *s);
    // Once per forward, before the layers: fills step's input, tiles or bias, own.
    ordo_status (*prepare)(ordo_pos_state *s, ordo_ctx *ctx, ordo_pos_step *step);
    // Each layer's qkv (B, T, 3C) after c_attn: rotated, scaled (rope, xpos).
    ordo_tensor *(*qkv)(ordo_pos_state *s, ordo_ctx *ctx, const ordo_pos_step *step,
                        ordo_tensor *qkv);
    // Each layer l's own bias from its normalised input h (B, T, C) and qkv (fox, cope).
    void (*layer)(ordo_pos_state *s, ordo_ctx *ctx, const ordo_pos_step *step, int l,
                  ordo_tensor *h, ordo_tensor *qkv, ordo_pos_layer *out);
    // Eval's memory estimate: the floats of g of its fused bias (flash scratch), and its own
    // floats in one forward's arena of R rows of length T.
    double (*grad_floats)(const ordo_gpt_config *g, int T);
    double (*arena_floats)(const ordo_gpt_config *g, double R, double T, int fused);
    // The floats of the tables the state mallocs for length T (materialized: that path's).
    double (*table_floats)(const ordo_gpt_config *g, double T, int materialized);
    // viz: what to draw; NOTE and SPECTRUM print `note`; BIAS captions its maps with what the
    // bias is, from the parameters as they are now; TABLE draws the rows of input_rows (a
    // malloc'd [rows, C], rows returned) for length T.
    ordo_pos_picture picture;
    const char *note;
    void (*caption)(const ordo_pos_state *s, char *buf, size_t cap);
    int (*input_rows)(const ordo_pos_state *s, int T, float **out);
} ordo_pos_scheme;

// The rows, in ordo_pos order (table.c).
extern const ordo_pos_scheme *const ordo_pos_schemes[ORDO_POS_COUNT];
// p's row (p in range).
const ordo_pos_scheme *ordo_pos_row(ordo_pos p);
// A zeroed state of p's row for cfg (the caller keeps cfg alive); free with ordo_pos_state_free.
ordo_pos_state *ordo_pos_state_new(ordo_pos p, const ordo_gpt_config *cfg);
void ordo_pos_state_free(ordo_pos_state *s);

// Helpers the rows share.
void ordo_pos_fill_const(ordo_tensor *t, float v);
// A table by distance x [n, NH] (n: step's T, or with positions their range) as this forward's
// bias: the one distance tile (fused) or the one dense op (materialized), at 0..T-1 or at
// step's positions. What every stationary bias does with its table (distance.c, sandwich.c).
void ordo_pos_bias_by_distance(ordo_ctx *ctx, ordo_pos_step *step, ordo_tensor *x);
// The export refusals of the biases by distance, fixed (alibi, sandwich) and learned (t5 aside:
// it names its table).
#define ORDO_POS_REFUSAL_DISTANCE                                                                  \
    "it adds a distance bias to the attention scores, which GPT2LMHeadModel does not do"
#define ORDO_POS_REFUSAL_LEARNED_DISTANCE                                                          \
    "it adds a learned function of distance to the attention scores, which GPT2LMHeadModel "       \
    "does not do"
// Appends key = printf(fmt, v) to mt.
void ordo_pos_meta_num(ordo_gpt_meta *mt, const char *key, const char *fmt, double v);

#endif
