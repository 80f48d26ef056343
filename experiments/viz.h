// `ordo viz`'s pictures of a run, from its newest checkpoint, as SVG heatmaps:
//   learned / sinusoidal: the table (position x dim) and the cosine similarity between
//     positions (T x T); alibi: the bias per head (T x T, from the slopes); t5: the trained
//     bias per head (T x T, table through the bucket map); fire, kerple, kerple-power: the
//     bias per head (T x T) and its curve against distance (to 4T, at most 1024);
//     every scheme: the attention probabilities of one validation window, one SVG per layer
//     with a panel per head.
// Plus index.html showing them all. Schemes without a table or bias (rope, xpos, none) get the
// attention maps only. It draws; it does not compute statistics.
#ifndef ORDO_VIZ_H
#define ORDO_VIZ_H
#include <stdint.h>

#include "framework/strbuf.h"
#include "models/gpt.h"
#include "train/config.h"
#include "train/run.h"

typedef struct ordo_viz {
    const char *run_dir;
    char *out;             // output directory (owned)
    ordo_train_config cfg; // the run's, from its checkpoint
    ordo_rundata data;
    ordo_gpt model;
    int64_t step;      // the checkpoint's
    int T;             // the training context: the maps are T x T
    int opened;        // data and model are loaded (ordo_viz_free frees them)
    ordo_strbuf index; // index.html's body, one entry per file written
} ordo_viz;

// Opens the run in run_dir (config, data and model of its newest valid checkpoint) and
// creates out_dir (NULL: RUN_DIR/viz). Errors: ORDO_ERR_IO or ORDO_ERR_ARG when run_dir is
// not a run directory (no config.json), and those of ordo_run_open. Free *v with
// ordo_viz_free, also after an error.
ordo_status ordo_viz_open(ordo_viz *v, const char *run_dir, const char *out_dir);
// Writes the scheme's maps, the attention maps and index.html into v->out, printing each
// file's path as it is written, and a line saying so when the scheme has no table or bias
// to draw. Errors: ORDO_ERR_IO naming a file, ORDO_ERR_ARG when the run's data has no
// window of T tokens.
ordo_status ordo_viz_write(ordo_viz *v);
void ordo_viz_free(ordo_viz *v);

#endif
