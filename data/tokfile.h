// Token files (`ordo tokenize --out FILE.bin`, `ordo train --data FILE.bin`): a corpus
// tokenized once, so that training reads ids in place (memory-mapped) instead of reading and
// tokenizing text each time, as nanoGPT's train.bin. The layout (little-endian; docs/data.md):
//
//   offset size
//        0    8  magic "ORDOTOK1"
//        8    4  u32 format version, 1
//       12    4  u32 width: bytes per id, 2 (uint16) when vocab_size <= 65535, else 4 (uint32)
//       16    4  u32 vocab_size: every id is below it
//       20    4  u32 header size in bytes, 64 (where the ids start)
//       24    8  u64 count: ids in the file
//       32    8  u64 XXH3-64 (seed 0) of the payload, the count * width bytes of ids as stored
//       40   16  tokenizer name ("byte", "gpt2"), ASCII, NUL-padded
//       56    8  zero (reserved)
//       64       the ids, count * width bytes; the file ends there
//
// Deliberately not here: which tokenizer a run uses (run/rundata.c compares the header's name
// with the run's), big-endian hosts (refused: the ids are used in place).
#ifndef ORDO_TOKFILE_H
#define ORDO_TOKFILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/error.h"
#include "sys/fileio.h"
#include "sys/hash.h"

#define ORDO_TOKFILE_MAGIC   "ORDOTOK1"
#define ORDO_TOKFILE_VERSION 1
#define ORDO_TOKFILE_HEADER  64
#define ORDO_TOKFILE_NAME    16 // bytes for the tokenizer name, NUL padding included

typedef struct ordo_tokfile_header {
    uint32_t version, width, vocab_size;
    uint64_t count, hash;
    char tokenizer[ORDO_TOKFILE_NAME + 1]; // NUL-terminated
} ordo_tokfile_header;

// The width of the ids of a vocabulary of vocab_size: 2 up to 65535, else 4.
int ordo_tokfile_width(int vocab_size);

// Whether `path` is to be read as a token file: its name ends in ".bin", or its first bytes
// are the magic. ordo_open_regular's errors (a FIFO, /dev/zero, a missing file) are returned,
// so that the caller never blocks on the probe; a short or unreadable start is simply "no".
ordo_status ordo_tokfile_probe(const char *path, int *is_tokfile);

// Reads and checks the header of `path` (no payload check: see ordo_tokfile_open). Errors
// (ORDO_ERR_FORMAT, naming the path): not the magic, another version, a width other than
// ordo_tokfile_width(vocab_size), a header size other than 64, a tokenizer name that is not
// NUL-padded ASCII, a reserved field that is not zero; ordo_open_regular's.
ordo_status ordo_tokfile_read_header(const char *path, ordo_tokfile_header *h);

// A token file, mapped and checked: ids[0..count) of `width` bytes each, little-endian.
typedef struct ordo_tokfile {
    ordo_tokfile_header h;
    const void *ids;      // into the mapping: uint16_t[count] or uint32_t[count]
    uint64_t file_bytes;  // the file's size
    ordo_mapped_file map; // the whole file
} ordo_tokfile;

// Maps `path` and checks it whole: the header (ordo_tokfile_read_header's rules), the size
// (exactly 64 + count * width bytes: "truncated payload", or bytes past the ids), at least one
// id, the payload's XXH3 against the header's, and every id below vocab_size (the first that
// is not is named with its index). One pass over the ids. Errors are ORDO_ERR_FORMAT naming
// the path; f is zeroed on error. Close with ordo_tokfile_close.
ordo_status ordo_tokfile_open(const char *path, ordo_tokfile *f);

// Unmaps f (a zeroed one is fine).
void ordo_tokfile_close(ordo_tokfile *f);

// Writing, with bounded memory: create, append ids as they come, finish. The ids go to
// "<path>.tmp.<pid>", which finish completes (header with the count and hash), fsyncs and
// renames over path, so that path holds either a whole token file or what it held before.
typedef struct ordo_tokfile_writer {
    ordo_hasher hash; // of the payload so far
    FILE *f;
    char path[ORDO_PATH_MAX], tmp[ORDO_PATH_MAX];
    char tokenizer[ORDO_TOKFILE_NAME + 1];
    int width, vocab_size;
    uint64_t count;
    unsigned char *buf; // ids packed little-endian, written when full
    size_t used;
} ordo_tokfile_writer;

// Starts a token file of a tokenizer (name: at most 16 ASCII bytes) with vocab_size ids
// (1..INT32_MAX). Errors: ORDO_ERR_ARG for the name or size, ORDO_ERR_IO naming the
// temporary file when it cannot be created. On error nothing is left behind.
ordo_status ordo_tokfile_create(ordo_tokfile_writer *w, const char *path, const char *tokenizer,
                                int vocab_size);

// Appends ids[0..n). An id outside 0..vocab_size-1 is ORDO_ERR_ARG naming it and its index
// in the file; a failed write is ORDO_ERR_IO naming path. After an error, call abort.
ordo_status ordo_tokfile_append(ordo_tokfile_writer *w, const int32_t *ids, size_t n);

// Writes the header, fsyncs and renames the file into place (and fsyncs its directory).
// Errors: ORDO_ERR_IO naming path (the temporary file is then removed).
ordo_status ordo_tokfile_finish(ordo_tokfile_writer *w);

// Removes the temporary file of an unfinished writer and frees it (after finish: frees only).
void ordo_tokfile_abort(ordo_tokfile_writer *w);

#endif
