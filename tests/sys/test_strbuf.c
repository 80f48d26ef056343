// ordo_strbuf: appends keep the text NUL-terminated and byte-exact across many doublings,
// printf output longer than the free space is formatted whole, bytes with NULs are kept, a
// {0} buffer works like an initialised one, and save writes exactly len bytes.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/fileio.h"
#include "sys/strbuf.h"
#include "tests/test.h"

int main(void) {
    ordo_strbuf b;
    ordo_strbuf_init(&b);
    CHECK(b.buf && b.buf[0] == 0 && b.len == 0);

    // many small appends through several reallocations, checked against a plain copy
    char *want = malloc(100000);
    size_t n = 0;
    for (int i = 0; i < 5000; i++) {
        char tmp[32];
        int k = snprintf(tmp, sizeof tmp, "%d,", i * 7919 % 10007);
        if (i % 3 == 0)
            ordo_strbuf_printf(&b, "%d,", i * 7919 % 10007);
        else if (i % 3 == 1)
            ordo_strbuf_puts(&b, tmp);
        else
            ordo_strbuf_append(&b, tmp, (size_t)k);
        memcpy(want + n, tmp, (size_t)k);
        n += (size_t)k;
    }
    CHECK(b.len == n);
    CHECK(memcmp(b.buf, want, n) == 0 && b.buf[n] == 0);
    CHECK(b.cap > b.len);

    // one printf much longer than the free space: formatted whole, not cut
    ordo_strbuf c = {0};
    memset(want, 'x', 9000);
    want[9000] = 0;
    ordo_strbuf_printf(&c, "<%s|%d>", want, 42);
    CHECK(c.len == 9000 + 5);
    CHECK(c.buf[0] == '<' && c.buf[9000] == 'x' && strcmp(c.buf + 9001, "|42>") == 0);

    // bytes with a NUL inside are kept; the length counts them
    ordo_strbuf d = {0};
    ordo_strbuf_append(&d, "a\0b", 3);
    CHECK(d.len == 3 && d.buf[1] == 0 && d.buf[2] == 'b' && d.buf[3] == 0);

    // save writes the len bytes, nothing more; a {0} buffer saves an empty file
    char dir[] = "/tmp/ordo_strbuf_XXXXXX";
    ORDO_ASSERT(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    CHECK(ordo_strbuf_save(&d, path) == ORDO_OK);
    char *got;
    size_t len;
    CHECK(ordo_read_file(path, 1 << 20, &got, &len) == ORDO_OK);
    CHECK(len == 3 && memcmp(got, "a\0b", 3) == 0);
    free(got);
    ordo_strbuf e = {0};
    CHECK(ordo_strbuf_save(&e, path) == ORDO_OK);
    CHECK(ordo_read_file(path, 1 << 20, &got, &len) == ORDO_OK);
    CHECK(len == 0);
    free(got);
    unlink(path);
    rmdir(dir);

    // free leaves an empty {0} buffer
    ordo_strbuf_free(&b);
    CHECK(b.buf == NULL && b.len == 0 && b.cap == 0);
    ordo_strbuf_free(&c);
    ordo_strbuf_free(&d);
    free(want);
    TEST_MAIN_END();
}
