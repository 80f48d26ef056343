// XXH3-64 behind ordo's names, so that the hash can change in one place.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define XXH_STATIC_LINKING_ONLY // XXH3_state_t's size, for the state kept in ordo_hasher
#include <xxhash.h>

#include "sys/hash.h"

#include <unistd.h>

#include "sys/fileio.h"

_Static_assert(sizeof(XXH3_state_t) <= sizeof(((ordo_hasher *)0)->state),
               "ordo_hasher.state must hold an XXH3_state_t");
_Static_assert(_Alignof(XXH3_state_t) <= 64, "ordo_hasher.state is 64-byte aligned");

uint64_t ordo_hash64(const void *p, size_t n) {
    return XXH3_64bits(n ? p : "", n);
}

void ordo_hasher_init(ordo_hasher *h) {
    XXH3_64bits_reset((XXH3_state_t *)h->state);
}

void ordo_hasher_update(ordo_hasher *h, const void *p, size_t n) {
    if (n) XXH3_64bits_update((XXH3_state_t *)h->state, p, n);
}

uint64_t ordo_hasher_digest(const ordo_hasher *h) {
    return XXH3_64bits_digest((const XXH3_state_t *)h->state);
}

void ordo_hash_hex(uint64_t h, char out[17]) {
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

ordo_status ordo_hash_parse(const char *what, const char *hex, uint64_t *h) {
    uint64_t v = 0;
    int ok = hex && strlen(hex) == 16;
    for (int i = 0; ok && i < 16; i++) {
        char c = hex[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) ok = 0;
        v = v << 4 | (uint64_t)(d & 15);
    }
    if (!ok)
        return ordo_error(ORDO_ERR_FORMAT, "%s: '%s' is not a hash (expected 16 hex digits)", what,
                          hex ? hex : "(missing)");
    *h = v;
    return ORDO_OK;
}

static void hash_piece(void *h, const void *p, size_t n) {
    ordo_hasher_update(h, p, n);
}

ordo_status ordo_hash_file(const char *path, uint64_t *size, uint64_t *hash) {
    ordo_hasher h;
    ordo_hasher_init(&h);
    ordo_status s = ordo_file_each_piece(path, hash_piece, &h, size);
    if (!s) *hash = ordo_hasher_digest(&h);
    return s;
}
