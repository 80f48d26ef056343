// Content hashes for integrity checks: 64-bit XXH3 (Debian's libxxhash), which runs at memory
// speed, so a checkpoint or a data file can be checked on every load. Not cryptographic: it
// detects corruption and accidental change, not tampering.
#ifndef ORDO_HASH_H
#define ORDO_HASH_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

// XXH3-64 of n bytes at p (seed 0); n == 0 is fine with p NULL.
uint64_t ordo_hash64(const void *p, size_t n);

// A streaming hash: init, update with consecutive pieces, digest. The digest of the pieces
// equals ordo_hash64 of their concatenation. The state lives inside (no allocation).
typedef struct ordo_hasher {
    _Alignas(64) unsigned char state[640]; // an XXH3_state_t (size checked in hash.c)
} ordo_hasher;
void ordo_hasher_init(ordo_hasher *h);
void ordo_hasher_update(ordo_hasher *h, const void *p, size_t n);
uint64_t ordo_hasher_digest(const ordo_hasher *h);

// The hash as 16 lower-case hex digits (out[17], NUL-terminated), the form stored in JSON
// (a JSON number cannot hold 64 bits exactly), and back. ordo_hash_parse is ORDO_ERR_FORMAT
// for anything but 16 hex digits, naming `what` and the value.
void ordo_hash_hex(uint64_t h, char out[17]);
ordo_status ordo_hash_parse(const char *what, const char *hex, uint64_t *h);

// Hashes a whole file by streaming it (bounded memory), returning its size and hash.
// Errors: ORDO_ERR_IO naming the path and the reason.
ordo_status ordo_hash_file(const char *path, uint64_t *size, uint64_t *hash);

#endif
