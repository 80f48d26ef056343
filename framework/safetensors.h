// safetensors files (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON header, then the raw little-endian tensor data.
// Reading accepts every dtype of the format and validates the file as the reference
// implementation does; writing produces F32 tensors laid out byte for byte as the reference
// writes them (header padded with spaces to a multiple of 8, tensors sorted by name).
#ifndef ORDO_SAFETENSORS_H
#define ORDO_SAFETENSORS_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

#define ORDO_ST_MAX_DIMS   8
#define ORDO_ST_MAX_HEADER 100000000 // bytes; the reference's MAX_HEADER_SIZE

// Every dtype the format names, in the reference's order (its Rust `Dtype` enum): the
// reference writes tensors sorted by this order, descending, then by name.
typedef enum ordo_dtype {
    ORDO_DTYPE_BOOL,
    ORDO_DTYPE_F4, // 4 bits; packed two per byte
    ORDO_DTYPE_F6_E2M3,
    ORDO_DTYPE_F6_E3M2,
    ORDO_DTYPE_U8,
    ORDO_DTYPE_I8,
    ORDO_DTYPE_F8_E5M2,
    ORDO_DTYPE_F8_E4M3,
    ORDO_DTYPE_F8_E8M0,
    ORDO_DTYPE_F8_E4M3FNUZ,
    ORDO_DTYPE_F8_E5M2FNUZ,
    ORDO_DTYPE_I16,
    ORDO_DTYPE_U16,
    ORDO_DTYPE_F16,
    ORDO_DTYPE_BF16,
    ORDO_DTYPE_I32,
    ORDO_DTYPE_U32,
    ORDO_DTYPE_F32,
    ORDO_DTYPE_C64,
    ORDO_DTYPE_F64,
    ORDO_DTYPE_I64,
    ORDO_DTYPE_U64,
    ORDO_DTYPE_COUNT
} ordo_dtype;

// The header spelling ("F32", "BF16", ...); "?" for a value outside the enum.
const char *ordo_dtype_name(ordo_dtype d);
// Bits per element (4, 6, 8, 16, 32 or 64); 0 for a value outside the enum.
int ordo_dtype_bits(ordo_dtype d);

// One tensor of an open file. `offset` is relative to the start of the data section.
typedef struct ordo_st_tensor {
    const char *name; // owned by the file; valid until ordo_safetensors_close
    ordo_dtype dtype;
    int ndim; // 0 for a scalar
    int64_t shape[ORDO_ST_MAX_DIMS];
    size_t offset, nbytes;
} ordo_st_tensor;

typedef struct ordo_safetensors ordo_safetensors;

// Opens and fully validates `path` (header length against the file size before anything is
// allocated, JSON, dtypes, shapes, offsets contiguous from 0 and covering the data exactly,
// byte counts = prod(shape) * dtype size, unique names, string metadata). The data is mapped,
// not copied. *out must be closed by the caller. Errors: ORDO_ERR_IO (open/read) or
// ORDO_ERR_FORMAT, with a message naming the file and, where it applies, the tensor.
ordo_status ordo_safetensors_open(const char *path, ordo_safetensors **out);
// Frees everything; pointers obtained from the file die with it. NULL is fine.
void ordo_safetensors_close(ordo_safetensors *f);

const char *ordo_safetensors_path(const ordo_safetensors *f);
// Tensors in file order (increasing offset).
int ordo_safetensors_count(const ordo_safetensors *f);
const ordo_st_tensor *ordo_safetensors_at(const ordo_safetensors *f, int i);
// The tensor called `name`, or NULL.
const ordo_st_tensor *ordo_safetensors_find(const ordo_safetensors *f, const char *name);
// The tensor's raw little-endian bytes (t->nbytes of them). Not necessarily aligned for the
// dtype when another writer left the header length not a multiple of 8: memcpy, don't cast.
const void *ordo_safetensors_data(const ordo_safetensors *f, const ordo_st_tensor *t);

// Copies F32 tensor `name` into dst (prod(want) floats) after checking that it exists, is
// F32 and has shape want[0..ndim). Errors (ORDO_ERR_FORMAT) read like
// "runs/a/ckpt-200.safetensors: tensor h.0.attn.c_attn.weight has shape [32,96], config
// wants [48,144]"; the caller adds its own context.
ordo_status ordo_safetensors_read_f32(const ordo_safetensors *f, const char *name, const int *want,
                                      int ndim, float *dst);

// `__metadata__` entries, in header order. ordo_safetensors_meta returns NULL if `key` is
// absent. Strings are owned by the file.
const char *ordo_safetensors_meta(const ordo_safetensors *f, const char *key);
int ordo_safetensors_meta_count(const ordo_safetensors *f);
const char *ordo_safetensors_meta_key(const ordo_safetensors *f, int i);
const char *ordo_safetensors_meta_value(const ordo_safetensors *f, int i);

// One F32 tensor to write; `data` holds prod(shape) floats (may be NULL when that is 0).
typedef struct ordo_st_write {
    const char *name;
    const float *data;
    int ndim;
    int64_t shape[ORDO_ST_MAX_DIMS];
} ordo_st_write;

// Writes tensors[0..n) and the metadata pairs (written in the given order; nmeta = 0 writes
// no `__metadata__`) to `path` atomically (ordo_write_atomic), straight from the callers'
// buffers: no second copy of the tensors is made. Names and metadata must be valid UTF-8;
// names unique and not "__metadata__"; keys unique. Errors: ORDO_ERR_ARG for bad input,
// ORDO_ERR_IO from the write.
ordo_status ordo_safetensors_write(const char *path, const ordo_st_write *tensors, int n,
                                   const char *const *meta_keys, const char *const *meta_vals,
                                   int nmeta);

// ---- data checksum (ordo's own metadata entry; other readers ignore it)

// The metadata key of the data checksum: XXH3-64 (sys/hash.h, seed 0) of the whole data
// section, that is every byte after the header (offset 8 + header length) to the end of the
// file, in file order, written as 16 lower-case hex digits.
#define ORDO_ST_HASH_KEY "ordo_data_xxh3"

// The metadata key of the header checksum: XXH3-64 (seed 0) of the file's first 8 + N bytes
// (the length word and the whole header, the padding spaces included) as they are with the 16
// hex digits of this entry's own value read as sixteen ASCII '0' (0x30), written as 16
// lower-case hex digits. The text `"ordo_header_xxh3":"` occurs exactly once in the header,
// followed by the value: a reader finds the digits there, puts '0's in their place and hashes.
// With the data checksum (whose entry the header holds) every byte of the file is covered.
#define ORDO_ST_HEADER_HASH_KEY "ordo_header_xxh3"

// As ordo_safetensors_write, with ORDO_ST_HASH_KEY and then ORDO_ST_HEADER_HASH_KEY added after
// the given metadata. The data hash is taken from the callers' buffers before the write (no
// copy). Errors: those of ordo_safetensors_write; ORDO_ERR_ARG when meta_keys already holds
// either key, or a tensor name or key ends in `"ordo_header_xxh3":"` (its entry must be alone).
ordo_status ordo_safetensors_write_hashed(const char *path, const ordo_st_write *tensors, int n,
                                          const char *const *meta_keys,
                                          const char *const *meta_vals, int nmeta);

// What ordo_safetensors_verify checked (bits of *checked).
#define ORDO_ST_CHECKED_DATA   1 // the data section against ORDO_ST_HASH_KEY
#define ORDO_ST_CHECKED_HEADER 2 // the length word and header against ORDO_ST_HEADER_HASH_KEY

// Checks f against its checksum entries: the header (a small pass) against
// ORDO_ST_HEADER_HASH_KEY, then the data section (a pass over the mapped data) against
// ORDO_ST_HASH_KEY. *checked holds ORDO_ST_CHECKED_* for each entry present and matching; an
// absent entry (a file of another program, or of an older ordo: no header checksum) checks
// nothing and is no error. ORDO_ERR_FORMAT, naming the file and both hashes, when one
// differs, when an entry is not 16 hex digits, or when the header entry is not written once
// as ordo writes it.
ordo_status ordo_safetensors_verify(const ordo_safetensors *f, int *checked);

#endif
