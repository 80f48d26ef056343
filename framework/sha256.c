// SHA-256 through Nettle (Debian's nettle-dev): ordo wraps it so that the rest of the code
// sees one small API and one file reader with ordo's error messages.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "framework/sha256.h"

#include <unistd.h>

#include "framework/fileio.h"

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

ordo_status ordo_sha256_file(const char *path, char out[65]) {
    FILE *f;
    ordo_status os = ordo_fopen_regular(path, &f);
    if (os) return os;
    ordo_sha256 s;
    ordo_sha256_init(&s);
    static _Thread_local unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) ordo_sha256_update(&s, buf, n);
    int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) return ordo_error(ORDO_ERR_IO, "%s: read failed: %s", path, strerror(err));
    ordo_sha256_hex(&s, out);
    return ORDO_OK;
}
