// The checksums of safetensors files (ORDO_ST_HASH_KEY, ORDO_ST_HEADER_HASH_KEY): what exactly
// is hashed (XXH3-64 of every byte after the header, in file order; of the length word and
// header with the header entry's digits as '0's; both recomputed here from the raw file), that
// the hashed writer lays the tensors out byte for byte as the plain one does, that a flipped
// bit anywhere in the data or the header, or two tensors' data_offsets swapped, is caught, that
// a file without an entry is reported as unchecked for it, and that a malformed entry or a
// caller's own entry under a key is refused.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/fileio.h"
#include "sys/hash.h"
#include "framework/safetensors.h"
#include "test.h"

static char dir[] = "/tmp/ordo_test_st_hash_XXXXXX";

static const char *tpath(const char *name) {
    static char buf[4][256];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

// The whole file, and where its data section begins (8 + the header length).
static unsigned char *slurp(const char *path, size_t *len, size_t *data_at) {
    char *buf;
    if (ordo_read_file(path, 1 << 24, &buf, len)) return NULL;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | (unsigned char)buf[i];
    *data_at = 8 + (size_t)n;
    return (unsigned char *)buf;
}

static void overwrite(const char *path, const unsigned char *b, size_t len) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, len, f) == len);
    if (f) fclose(f);
}

// verify's result on path: the status, and *checked
static ordo_status verify_file(const char *path, int *checked) {
    ordo_safetensors *f;
    *checked = -1;
    ordo_status s = ordo_safetensors_open(path, &f);
    if (s) return s;
    s = ordo_safetensors_verify(f, checked);
    ordo_safetensors_close(f);
    return s;
}

int main(void) {
    ORDO_ASSERT(mkdtemp(dir));
    float a[6], b[5], c[3];
    for (int i = 0; i < 6; i++) a[i] = 0.5f * (float)i - 1.0f;
    for (int i = 0; i < 5; i++) b[i] = (float)(i * i);
    for (int i = 0; i < 3; i++) c[i] = -3.0f * (float)i;
    // given out of name order: the file holds them sorted (a, b, c), the hash follows the file
    ordo_st_write t[3] = {{"zeta.c", c, 1, {3}}, {"alpha.a", a, 2, {2, 3}}, {"mid.b", b, 1, {5}}};
    const char *keys[] = {"format", "step"}, *vals[] = {"test", "12"};

    const char *hp = tpath("hashed.safetensors"), *pp = tpath("plain.safetensors");
    CHECK(ordo_safetensors_write_hashed(hp, t, 3, keys, vals, 2) == ORDO_OK);
    CHECK(ordo_safetensors_write(pp, t, 3, keys, vals, 2) == ORDO_OK);
    size_t hl, hd, pl, pd;
    unsigned char *hb = slurp(hp, &hl, &hd), *pb = slurp(pp, &pl, &pd);
    CHECK(hb && pb);
    if (!hb || !pb) return 1;
    // the same data section, byte for byte: a, b, c in name order, nothing else
    CHECK(hl - hd == (6 + 5 + 3) * 4 && pl - pd == hl - hd);
    CHECK(memcmp(hb + hd, pb + pd, hl - hd) == 0);
    CHECK(memcmp(hb + hd, a, sizeof a) == 0 && memcmp(hb + hd + sizeof a, b, sizeof b) == 0);
    // the entry is XXH3-64 of exactly those bytes, after the caller's metadata
    ordo_safetensors *f;
    CHECK(ordo_safetensors_open(hp, &f) == ORDO_OK);
    char want[17];
    ordo_hash_hex(ordo_hash64(hb + hd, hl - hd), want);
    CHECK(ordo_safetensors_meta_count(f) == 4);
    CHECK(strcmp(ordo_safetensors_meta_key(f, 2), ORDO_ST_HASH_KEY) == 0);
    CHECK(strcmp(ordo_safetensors_meta_key(f, 3), ORDO_ST_HEADER_HASH_KEY) == 0);
    CHECK(strcmp(ordo_safetensors_meta(f, ORDO_ST_HASH_KEY), want) == 0);
    CHECK(strcmp(ordo_safetensors_meta(f, "step"), "12") == 0);
    // the header entry: XXH3-64 of the first hd bytes with its own 16 digits as '0's
    const char *hk = "\"" ORDO_ST_HEADER_HASH_KEY "\":\"";
    char *hat = strstr((char *)hb + 8, hk);
    CHECK(hat && !strstr(hat + 1, hk));
    char hwant[17] = "";
    if (hat) {
        unsigned char *blank = malloc(hd);
        memcpy(blank, hb, hd);
        memset(blank + (hat - (char *)hb) + strlen(hk), '0', 16);
        ordo_hash_hex(ordo_hash64(blank, hd), hwant);
        free(blank);
        CHECK(strcmp(ordo_safetensors_meta(f, ORDO_ST_HEADER_HASH_KEY), hwant) == 0);
    }
    int checked = -1;
    CHECK(ordo_safetensors_verify(f, &checked) == ORDO_OK &&
          checked == (ORDO_ST_CHECKED_DATA | ORDO_ST_CHECKED_HEADER));
    ordo_safetensors_close(f);
    // the plain writer adds nothing; its files verify as unchecked
    CHECK(verify_file(pp, &checked) == ORDO_OK && checked == 0);

    // one flipped bit anywhere in the data (first byte, last byte, each tensor) is caught
    size_t at[] = {hd, hd + 25, hd + 6 * 4 + 7, hl - 1};
    for (size_t k = 0; k < sizeof at / sizeof *at; k++) {
        hb[at[k]] ^= 0x10;
        overwrite(hp, hb, hl);
        CHECK_MSG(verify_file(hp, &checked) == ORDO_ERR_FORMAT, "flip at %zu", at[k] - hd);
        CHECK(strstr(ordo_error_message(), "checksum mismatch") &&
              strstr(ordo_error_message(), want) && strstr(ordo_error_message(), hp));
        hb[at[k]] ^= 0x10;
    }
    overwrite(hp, hb, hl);
    CHECK(verify_file(hp, &checked) == ORDO_OK && checked == 3);

    // one flipped bit in the header that leaves it a valid file (a metadata value, a tensor's
    // name): caught by the header checksum, naming both hashes
    const char *flips[] = {"\"12\"", "\"test\"", "mid.b"};
    for (size_t k = 0; k < sizeof flips / sizeof *flips; k++) {
        char *p = strstr((char *)hb + 8, flips[k]);
        CHECK(p != NULL);
        if (!p) continue;
        p[1] ^= 0x01; // "12" -> "02", "test" -> "uest", "mid.b" -> "lid.b"
        overwrite(hp, hb, hl);
        CHECK_MSG(verify_file(hp, &checked) == ORDO_ERR_FORMAT, "flip in %s", flips[k]);
        CHECK_MSG(strstr(ordo_error_message(), "header checksum mismatch") &&
                      strstr(ordo_error_message(), hwant),
                  "%s", ordo_error_message());
        p[1] ^= 0x01;
    }
    overwrite(hp, hb, hl);
    CHECK(verify_file(hp, &checked) == ORDO_OK && checked == 3);

    // two tensors of one shape with their data_offsets swapped (a header-only edit that makes
    // each read the other's values; the data is untouched): caught
    {
        float u[4] = {1, 2, 3, 4}, v[4] = {5, 6, 7, 8};
        ordo_st_write two[2] = {{"u", u, 1, {4}}, {"v", v, 1, {4}}};
        const char *sp = tpath("swap.safetensors");
        CHECK(ordo_safetensors_write_hashed(sp, two, 2, NULL, NULL, 0) == ORDO_OK);
        size_t sl, sd;
        unsigned char *sb = slurp(sp, &sl, &sd);
        char *x = sb ? strstr((char *)sb + 8, "[0,16]") : NULL;
        char *y = sb ? strstr((char *)sb + 8, "[16,32]") : NULL;
        CHECK(x && y && x < y);
        if (x && y && x < y) { // the text from one to the other, the two swapped: same length
            size_t seg = (size_t)(y + 7 - x);
            char *swapped = malloc(seg + 1);
            snprintf(swapped, seg + 1, "[16,32]%.*s[0,16]", (int)(y - x - 6), x + 6);
            memcpy(x, swapped, seg);
            free(swapped);
            overwrite(sp, sb, sl);
            ordo_safetensors *g;
            CHECK(ordo_safetensors_open(sp, &g) == ORDO_OK); // still a valid file...
            if (g) {
                float got[4];
                int shape[1] = {4};
                CHECK(ordo_safetensors_read_f32(g, "u", shape, 1, got) == ORDO_OK && got[0] == 5);
                ordo_safetensors_close(g); // ...whose u reads v's values
            }
            CHECK(verify_file(sp, &checked) == ORDO_ERR_FORMAT &&
                  strstr(ordo_error_message(), "header checksum mismatch"));
        }
        free(sb);
    }

    // an entry that is not 16 hex digits: refused, naming the key and the value
    char *e = strstr((char *)hb + 8, "\"" ORDO_ST_HASH_KEY "\":\"");
    CHECK(e != NULL);
    if (e) {
        char *v = e + strlen("\"" ORDO_ST_HASH_KEY "\":\"");
        char saved = v[3];
        v[3] = 'G';
        overwrite(hp, hb, hl);
        CHECK(verify_file(hp, &checked) == ORDO_ERR_FORMAT);
        CHECK(strstr(ordo_error_message(), ORDO_ST_HASH_KEY) &&
              strstr(ordo_error_message(), "16 hex digits"));
        v[3] = saved;
    }

    // no tensors at all: the hash of nothing, still checked
    const char *ep = tpath("empty.safetensors");
    CHECK(ordo_safetensors_write_hashed(ep, NULL, 0, NULL, NULL, 0) == ORDO_OK);
    CHECK(ordo_safetensors_open(ep, &f) == ORDO_OK);
    ordo_hash_hex(ordo_hash64(NULL, 0), want);
    CHECK(strcmp(ordo_safetensors_meta(f, ORDO_ST_HASH_KEY), want) == 0);
    CHECK(ordo_safetensors_verify(f, &checked) == ORDO_OK && checked == 3);
    ordo_safetensors_close(f);

    // the keys are the writer's: a caller's entry under it is refused, nothing written
    const char *own[] = {ORDO_ST_HASH_KEY}, *ownv[] = {"0123456789abcdef"};
    const char *xp = tpath("own.safetensors");
    CHECK(ordo_safetensors_write_hashed(xp, t, 3, own, ownv, 1) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "used twice") && access(xp, F_OK) != 0);
    own[0] = ORDO_ST_HEADER_HASH_KEY;
    CHECK(ordo_safetensors_write_hashed(xp, t, 3, own, ownv, 1) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "used twice") && access(xp, F_OK) != 0);
    // a key ending in the entry's text would make it occur twice: refused
    const char *odd[] = {"x\"" ORDO_ST_HEADER_HASH_KEY}, *oddv[] = {"v"};
    CHECK(ordo_safetensors_write_hashed(xp, t, 3, odd, oddv, 1) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "must be alone in") && access(xp, F_OK) != 0);

    free(hb);
    free(pb);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!test_failures) CHECK(system(cmd) == 0);
    TEST_MAIN_END();
}
