// `ordo viz`'s pictures of a run, from its newest checkpoint, as SVG heatmaps:
//   learned / sinusoidal: the table (position x dim) and the cosine similarity between
//     positions (T x T); alibi: the bias per head (T x T, from the slopes); t5: the trained
//     bias per head (T x T, table through the bucket map); fire, kerple, kerple-power: the
//     bias per head (T x T) and its curve against distance (to 4T, at most 1024);
//     every scheme: the attention probabilities of one validation window, one SVG per layer
//     with a panel per head.
//   passkey runs: the retrieval accuracy of the run's eval record (ordo eval --save) as a
//     length x depth heatmap (passkey.svg), the picture the papers show.
//   rope: the frequency spectrum of the rotation (wavelength per pair, and each scaling's
//     change of it) unscaled and with pi, ntk and yarn (ordo_viz.rope_factor).
//   every scheme: attention by offset (eval/attn_offsets.h: the mean mass on the key i - j
//     back, per layer and head, over 16 validation windows, and each head's spread, how much
//     that depends on the query's position) as attention_by_offset.svg and offsets.json;
//     the position probe (eval/pos_probe.h: a linear read-out of position from each layer's
//     residual stream, held-out error against chance) as position_probe.svg and probe.json.
// Plus index.html showing them all. none and xpos get the attention maps and offsets only. It
// draws; the statistics are computed in eval/.
#ifndef ORDO_VIZ_H
#define ORDO_VIZ_H
#include <stdint.h>

#include "sys/strbuf.h"
#include "models/gpt.h"
#include "run/config.h"
#include "run/run.h"

typedef struct ordo_viz {
    const char *run_dir;
    char *out;             // output directory (owned)
    char *dir;             // the run directory (owned; a checkpoint file's directory)
    ordo_train_config cfg; // the run's, from its checkpoint
    ordo_rundata data;
    ordo_gpt model;
    int64_t step;       // the checkpoint's
    int T;              // the training context: the maps are T x T
    int opened;         // data and model are loaded (ordo_viz_free frees them)
    double rope_factor; // rope spectrum: the scalings' factor (0: the run's, else 4)
    ordo_strbuf index;  // index.html's body, one entry per file written
} ordo_viz;

// Opens the run in run_dir (config, data and model of its newest valid checkpoint, or the one
// sel names; run_dir may be a checkpoint file, see ordo_run_open) and creates out_dir (NULL:
// the run dir's viz/). Errors: ORDO_ERR_IO or ORDO_ERR_ARG when run_dir is not a run directory
// (no config.json) nor a file, and those of ordo_run_open. Free *v with ordo_viz_free, also
// after an error.
ordo_status ordo_viz_open(ordo_viz *v, const char *run_dir, const ordo_run_select *sel,
                          const char *out_dir);
// Writes the scheme's maps, the attention maps and index.html into v->out, printing each
// file's path as it is written, and a line saying so when the scheme has no table or bias
// to draw. Errors: ORDO_ERR_IO naming a file, ORDO_ERR_ARG when the run's data has no
// window of T tokens.
ordo_status ordo_viz_write(ordo_viz *v);
void ordo_viz_free(ordo_viz *v);

#endif
