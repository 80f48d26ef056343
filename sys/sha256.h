// SHA-256 (FIPS 180-4), for the identity of a file that people compare outside ordo: the
// checkpoint a run was initialised from (`ordo train --init`) is recorded by the digest that
// `sha256sum` prints and that model hubs list. Integrity checks inside ordo use XXH3
// (sys/hash.h), which is many times faster; this one is for provenance, not speed.
// The digest is Nettle's (nettle-dev); ordo keeps only this wrapper and the file reader.
#ifndef ORDO_SHA256_H
#define ORDO_SHA256_H
#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>

#include "sys/error.h"

typedef struct ordo_sha256 {
    struct sha256_ctx ctx;
} ordo_sha256;

void ordo_sha256_init(ordo_sha256 *s);
// Adds n bytes (p may be NULL when n is 0).
void ordo_sha256_update(ordo_sha256 *s, const void *p, size_t n);
// The digest of everything added, as 64 lower-case hex digits (out[65], NUL-terminated).
// s is spent afterwards (init it again to reuse it).
void ordo_sha256_hex(ordo_sha256 *s, char out[65]);
// The digest of a whole file, streamed in bounded memory. ORDO_ERR_IO naming the path.
ordo_status ordo_sha256_file(const char *path, char out[65]);

#endif
