// The position schemes: their enum, names and what each is (models/pos/table.c holds the
// table of rows, models/pos/scheme.h the row). A scheme is added here (its enum entry and name),
// in table.c (its row) and in a file of its own.
#ifndef ORDO_POS_TABLE_H
#define ORDO_POS_TABLE_H
#include "framework/names.h"

typedef enum ordo_pos {
    ORDO_POS_NONE,         // no position signal (NoPE)
    ORDO_POS_LEARNED,      // absolute table [T_max, C] added to the token embeddings; trained
    ORDO_POS_SINUSOIDAL,   // fixed Vaswani et al. table added; not a parameter
    ORDO_POS_ROPE,         // rotary embedding of q and k per head (rotate-half, base 10000)
    ORDO_POS_ALIBI,        // linear distance bias per head on the attention scores
    ORDO_POS_T5,           // learned bucketed relative bias [32, NH], shared by all layers
    ORDO_POS_FIRE,         // learned MLP of the log-normalised distance (Li et al. 2023), shared
    ORDO_POS_KERPLE,       // learned -r1_h log(1 + r2_h (i-j)) per head (Chi et al. 2022)
    ORDO_POS_XPOS,         // rope times the xPos decay on q and k (Sun et al. 2022)
    ORDO_POS_KERPLE_POWER, // learned -r1_h (i-j)^r2_h per head (Kerple's power variant)
    ORDO_POS_FOX, // forget gate per layer, head, token: bias sum_{j<l<=i} log f_l (Lin et al. 2025)
    ORDO_POS_DPB, // dynamic position bias: MLP of the (log-)distance per head (CrossFormer)
    ORDO_POS_COPE,     // contextual positions: gated counts of the keys between j and i (Golovneva
                       // 2024)
    ORDO_POS_SANDWICH, // parameter-free bias from sinusoids' inner products (Chi et al. 2023)
    ORDO_POS_COUNT
} ordo_pos;

// The schemes' names in enum order: "none", "learned", "sinusoidal", "rope", "alibi", "t5",
// "fire", "kerple", "xpos", "kerple-power", "fox", "dpb", "cope", "sandwich".
// Every parse, name and list of choices (messages, --help) is made from this table.
extern const ordo_names ordo_pos_names;
// The scheme named `name`; ORDO_ERR_ARG otherwise, the message naming the value and the choices.
ordo_status ordo_pos_parse(const char *name, ordo_pos *out);
// The scheme's name ("?" for a value out of range).
const char *ordo_pos_name(ordo_pos p);
// Whether the scheme can run at lengths past the training context (all but learned).
int ordo_pos_extrapolates(ordo_pos p);
// Whether the scheme rotates q and k (rope, xpos): both need an even head size.
int ordo_pos_rotary(ordo_pos p);
// Whether the scheme can run at positions other than 0..T-1 (--pos-random, given positions):
// all but none (nothing to draw), fox (its bias comes from the text's forget gates) and cope
// (its positions are counted from the text's gates).
int ordo_pos_takes_positions(ordo_pos p);
// Whether the scheme adds a bias to the attention scores (alibi, t5, fire, kerple*, fox, dpb,
// cope, sandwich).
int ordo_pos_has_bias(ordo_pos p);

#endif
