// Whole-file reads with a size limit, crash-safe whole-file writes, mkdir -p, and path
// building that refuses to truncate. Used for checkpoints, config.json and the other files
// of a run directory.
#ifndef ORDO_FILEIO_H
#define ORDO_FILEIO_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "sys/error.h"

// The size of a path buffer, terminator included: Linux's PATH_MAX, so a path that fits is
// one the kernel takes, and one that does not is refused by ordo before the kernel would.
#define ORDO_PATH_MAX 4096

// Formats a path into buf[cap] (cap > 0) as snprintf does. When the result does not fit,
// buf is set to "" (a truncated name must never be opened, written or deleted) and
// ORDO_ERR_ARG says "path too long: '<its start>...' is over <cap - 1> bytes".
ordo_status ordo_path(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Checks a path given whole (a run dir on the command line) before it is used: ORDO_OK when
// it is shorter than ORDO_PATH_MAX, else ordo_path's error, which says why (the kernel's
// ENAMETOOLONG would come with the whole path quoted first).
ordo_status ordo_path_check(const char *path);

// Reads all of `path` into a new buffer (*buf, caller frees) of *len bytes plus a NUL
// terminator (not counted in *len). A file longer than max_bytes is refused before it is
// read. Errors: ORDO_ERR_IO naming the path and the errno text, or the limit.
ordo_status ordo_read_file(const char *path, size_t max_bytes, char **buf, size_t *len);

// Opens `path` for reading and checks that it is a regular file, without blocking: a FIFO
// would block (forever, with no writer) and a character device such as /dev/zero never
// ends. *fd is the open descriptor (the caller closes it) and *size the file's size.
// Errors: ORDO_ERR_IO naming the path and the errno text, or what the path is instead
// ("is a FIFO, expected a regular file"; directory, character device, block device, socket).
ordo_status ordo_open_regular(const char *path, int *fd, size_t *size);

// ordo_read_file for inputs that must be regular files (a training data file, a vocab file):
// ordo_open_regular's refusal first, then the size against max_bytes, before any byte is read.
ordo_status ordo_read_regular_file(const char *path, size_t max_bytes, char **buf, size_t *len);

// Reads the first n bytes of regular file `path` (fewer when it is shorter: *got says how
// many) into buf, for a format's magic or header without reading the rest. Errors:
// ordo_open_regular's; a read error ends the bytes early, as a short file does.
ordo_status ordo_read_head(const char *path, void *buf, size_t n, size_t *got);

// A regular file mapped read-only into memory (mmap): its bytes without a copy, and with no
// limit but the address space. data is NULL when len is 0.
typedef struct ordo_mapped_file {
    const void *data;
    size_t len;
} ordo_mapped_file;

// Maps all of `path` (ordo_open_regular's checks and errors; ORDO_ERR_IO when mmap fails).
// The mapping outlives the descriptor; unmap it with ordo_unmap_file. As with any mapping, a
// file truncated by another process while mapped raises SIGBUS on access: ordo's handler
// then says which file changed and ends the process with status 1 (up to 8 mappings at once
// are named; a fault elsewhere keeps the default action).
ordo_status ordo_map_file(const char *path, ordo_mapped_file *m);

// Unmaps m (a zeroed or already unmapped one is fine) and zeroes it.
void ordo_unmap_file(ordo_mapped_file *m);

// Writes the concatenation of parts[0..nparts) (lens[i] bytes each; a NULL part must have
// length 0) to `path` so that `path` holds either its old content or all of the new one,
// whatever happens: "<path>.tmp.<pid>" in the same directory, written, fsynced, renamed over
// `path`, then the directory fsynced. On failure the temporary file is removed, `path` is
// left as it was, and ORDO_ERR_IO names the path and the reason (ENOSPC, EACCES, ...).
// A path whose temporary name does not fit ORDO_PATH_MAX is ORDO_ERR_ARG (ordo_path's).
// Not meant for two threads of one process writing the same path at once.
ordo_status ordo_write_atomic(const char *path, const void *const *parts, const size_t *lens,
                              int nparts);

// Makes `path` a symbolic link to `target` so that `path` is either what it was or the link,
// whatever happens: the link made under "<path>.tmp.<pid>", renamed over `path`, the directory
// fsynced. Errors: ORDO_ERR_IO naming the path and the reason (the temporary link removed).
ordo_status ordo_symlink_atomic(const char *target, const char *path);

// Writes all n bytes of data to fd, retrying short writes and EINTR. Returns 0 or an errno
// value (ENOSPC for a write that makes no progress), for the caller to name the file with.
int ordo_write_all(int fd, const void *data, size_t n);

// Whether ordo_write_atomic can name the temporary file of `path` (in any process: the widest
// pid is assumed). For checks made before work whose result is then written, so that a path
// too long fails at once. Errors: ordo_path's.
ordo_status ordo_write_atomic_check(const char *path);

// Writes a JSON value (indented, keys sorted, a final newline) with ordo_write_atomic.
typedef struct json_t json_t;
ordo_status ordo_write_json_atomic(const char *path, const json_t *j);

// json_load_file for a file that must be regular: ordo_open_regular's checks first, so that a
// FIFO in place of config.json or eval.json is refused at once instead of blocking in open().
// On any failure returns NULL with err->text saying why (the open error, or jansson's).
typedef struct json_error_t json_error_t;
json_t *ordo_json_load_file(const char *path, size_t flags, json_error_t *err);

// The error for a JSON file that did not load (err from ordo_json_load_file): ORDO_ERR_FORMAT
// "PATH: line N: why", without the line for a file that did not open.
ordo_status ordo_json_load_error(const char *path, const json_error_t *err);

// ordo_open_regular's checks, then the descriptor as a stdio stream for reading (*f; the
// caller fcloses it).
ordo_status ordo_fopen_regular(const char *path, FILE **f);

// Reads all of regular file `path` (ordo_open_regular's checks) in pieces, calling
// fn(arg, piece, n) on each in order; *total (if not NULL) gets the bytes read. For hashing a
// file without holding it. Errors name the path.
ordo_status ordo_file_each_piece(const char *path, void (*fn)(void *arg, const void *p, size_t n),
                                 void *arg, uint64_t *total);

// Opens `path` for appending (O_WRONLY | O_APPEND, and O_CREAT with `mode` when create is
// set) without blocking on a FIFO, and refuses anything but a regular file as
// ordo_open_regular does. Returns the descriptor, or -1 with the error set.
int ordo_open_append(const char *path, int create, mode_t mode);

// The pid in a temporary file's name as ordo_write_atomic makes them, "<name>.tmp.<pid>"
// (name not empty, pid all digits), with <name> equal to `base` when base is not NULL; 0 for
// any other name (a user's "notes.tmp.txt" is not ours).
long ordo_tmp_name_pid(const char *name, const char *base);
// Removes dir's temporary files (ordo_tmp_name_pid's names, of `base` or of any file) whose
// process is gone: a temporary file of a live process (a writer beside us) is left alone.
// On a file system shared between machines a pid names a process of this machine only, so
// temporary files of live writers elsewhere would be taken for dead: ordo does not promise
// two machines writing one directory at once.
void ordo_remove_dead_tmp(const char *dir, const char *base);

// Creates `path` and any missing parents with `mode` (e.g. 0755); an existing directory is
// fine. Errors: ordo_path_check's, before anything is created; ORDO_ERR_IO naming the
// component that could not be created.
ordo_status ordo_mkdir_p(const char *path, mode_t mode);

#endif
