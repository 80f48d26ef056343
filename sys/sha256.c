// SHA-256 through Nettle (Debian's nettle-dev): ordo wraps it so that the rest of the code
// sees one small API and one file reader with ordo's error messages.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sys/sha256.h"

#include <unistd.h>

#include "sys/fileio.h"

void ordo_sha256_init(ordo_sha256 *s) {
    sha256_init(&s->ctx);
}

void ordo_sha256_update(ordo_sha256 *s, const void *p, size_t n) {
    if (n) sha256_update(&s->ctx, n, p);
}

void ordo_sha256_hex(ordo_sha256 *s, char out[65]) {
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&s->ctx, sizeof d, d);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
}

static void sha256_piece(void *s, const void *p, size_t n) {
    ordo_sha256_update(s, p, n);
}

ordo_status ordo_sha256_file(const char *path, char out[65]) {
    ordo_sha256 s;
    ordo_sha256_init(&s);
    ordo_status st = ordo_file_each_piece(path, sha256_piece, &s, NULL);
    if (!st) ordo_sha256_hex(&s, out);
    return st;
}
