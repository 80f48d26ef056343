// The scheme table, in ordo_pos order, and what the rows share.
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/pos/scheme.h"

// The rows (one file each).
extern const ordo_pos_scheme ordo_pos_none_row, ordo_pos_learned_row, ordo_pos_sinusoidal_row,
    ordo_pos_rope_row, ordo_pos_xpos_row, ordo_pos_alibi_row, ordo_pos_t5_row, ordo_pos_kerple_row,
    ordo_pos_kerple_power_row, ordo_pos_dpb_row, ordo_pos_fire_row, ordo_pos_fox_row,
    ordo_pos_cope_row, ordo_pos_sandwich_row;

ORDO_NAMES_ENUM(ordo_pos, ordo_pos_parse, ordo_pos_name, ordo_pos_names, "position scheme",
                ORDO_POS_COUNT, "none", "learned", "sinusoidal", "rope", "alibi", "t5", "fire",
                "kerple", "xpos", "kerple-power", "fox", "dpb", "cope", "sandwich");

const ordo_pos_scheme *const ordo_pos_schemes[ORDO_POS_COUNT] = {
    &ordo_pos_none_row,  &ordo_pos_learned_row,      &ordo_pos_sinusoidal_row, &ordo_pos_rope_row,
    &ordo_pos_alibi_row, &ordo_pos_t5_row,           &ordo_pos_fire_row,       &ordo_pos_kerple_row,
    &ordo_pos_xpos_row,  &ordo_pos_kerple_power_row, &ordo_pos_fox_row,        &ordo_pos_dpb_row,
    &ordo_pos_cope_row,  &ordo_pos_sandwich_row,
};
// a scheme added to the enum without a row here fails to compile
static_assert(sizeof ordo_pos_schemes / sizeof ordo_pos_schemes[0] == ORDO_POS_COUNT,
              "one row per position scheme");

const ordo_pos_scheme *ordo_pos_row(ordo_pos p) {
    ORDO_ASSERT(p >= 0 && p < ORDO_POS_COUNT && ordo_pos_schemes[p]->pos == p);
    return ordo_pos_schemes[p];
}

ordo_pos_state *ordo_pos_state_new(ordo_pos p, const ordo_gpt_config *cfg) {
    const ordo_pos_scheme *row = ordo_pos_row(p);
    ORDO_ASSERT(row->state_bytes >= sizeof(ordo_pos_state));
    ordo_pos_state *s = ordo_xcalloc(1, row->state_bytes);
    s->row = row;
    s->cfg = cfg;
    return s;
}

void ordo_pos_state_free(ordo_pos_state *s) {
    if (!s) return;
    if (s->row->free) s->row->free(s);
    free(s);
}

int ordo_pos_rotary(ordo_pos p) {
    return (ordo_pos_row(p)->flags & ORDO_POS_F_ROTARY) != 0;
}

int ordo_pos_takes_positions(ordo_pos p) {
    return (ordo_pos_row(p)->flags & ORDO_POS_F_POSITIONS) != 0;
}

int ordo_pos_has_bias(ordo_pos p) {
    return (ordo_pos_row(p)->flags & ORDO_POS_F_BIAS) != 0;
}

int ordo_pos_extrapolates(ordo_pos p) {
    return !(ordo_pos_row(p)->flags & ORDO_POS_F_LENGTH);
}
