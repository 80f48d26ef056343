// Whole-file reads with a size limit, crash-safe whole-file writes, mkdir -p.
// Used for checkpoints, config.json and the other files of a run directory.
#ifndef ORDO_FILEIO_H
#define ORDO_FILEIO_H
#include <stddef.h>
#include <sys/types.h>

#include "framework/error.h"

// Reads all of `path` into a new buffer (*buf, caller frees) of *len bytes plus a NUL
// terminator (not counted in *len). A file longer than max_bytes is refused before it is
// read. Errors: ORDO_ERR_IO naming the path and the errno text, or the limit.
ordo_status ordo_read_file(const char *path, size_t max_bytes, char **buf, size_t *len);

// Writes the concatenation of parts[0..nparts) (lens[i] bytes each; a NULL part must have
// length 0) to `path` so that `path` holds either its old content or all of the new one,
// whatever happens: "<path>.tmp.<pid>" in the same directory, written, fsynced, renamed over
// `path`, then the directory fsynced. On failure the temporary file is removed, `path` is
// left as it was, and ORDO_ERR_IO names the path and the reason (ENOSPC, EACCES, ...).
// Not meant for two threads of one process writing the same path at once.
ordo_status ordo_write_atomic(const char *path, const void *const *parts, const size_t *lens,
                              int nparts);

// Writes a JSON value (indented, keys sorted, a final newline) with ordo_write_atomic.
typedef struct json_t json_t;
ordo_status ordo_write_json_atomic(const char *path, const json_t *j);

// Creates `path` and any missing parents with `mode` (e.g. 0755); an existing directory is
// fine. Errors: ORDO_ERR_IO naming the component that could not be created.
ordo_status ordo_mkdir_p(const char *path, mode_t mode);

#endif
