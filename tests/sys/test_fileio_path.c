// Path building that refuses to truncate (sys/fileio.h): ordo_path fits exactly up to
// cap - 1 bytes and not one more, empties the buffer and quotes the path's start on failure
// (never cutting a UTF-8 character); ordo_path_check, ordo_mkdir_p and ordo_write_atomic
// refuse a path of ORDO_PATH_MAX bytes or more before touching the disk; and an error
// message too long for the message buffer shortens the path and keeps the reason.
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/fileio.h"
#include "tests/test.h"

// n bytes of c, NUL-terminated (malloc'd).
static char *repeat(char c, size_t n) {
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = 0;
    return s;
}

// Whether the recorded message is a "path too long" for a limit of `over` bytes quoting
// exactly `quoted` bytes of the path.
static int too_long_message(size_t over, size_t quoted) {
    const char *m = ordo_error_message();
    const char *q = "path too long: '";
    char tail[64];
    snprintf(tail, sizeof tail, "...' is over %zu bytes", over);
    size_t lq = strlen(q), lt = strlen(tail), lm = strlen(m);
    return lm == lq + quoted + lt && strncmp(m, q, lq) == 0 && strcmp(m + lm - lt, tail) == 0;
}

int main(void) {
    char buf[ORDO_PATH_MAX];

    // the boundary: ORDO_PATH_MAX - 1 bytes fit, one more does not
    char *a = repeat('a', ORDO_PATH_MAX - 1);
    CHECK(ordo_path(buf, sizeof buf, "%s", a) == ORDO_OK && strcmp(buf, a) == 0);
    CHECK(ordo_path_check(a) == ORDO_OK);
    a[ORDO_PATH_MAX - 3] = 0; // 4093 bytes + "/x" = 4095
    CHECK(ordo_path(buf, sizeof buf, "%s/%s", a, "x") == ORDO_OK && strlen(buf) == 4095);
    ordo_error_clear();
    CHECK(ordo_path(buf, sizeof buf, "%s/%s", a, "xy") == ORDO_ERR_ARG);
    CHECK_MSG(buf[0] == 0, "a path that does not fit must not be left in the buffer");
    CHECK_MSG(too_long_message(4095, 64), "%s", ordo_error_message());
    free(a);
    a = repeat('a', ORDO_PATH_MAX);
    CHECK(ordo_path_check(a) == ORDO_ERR_ARG && too_long_message(4095, 64));
    free(a);

    // a small buffer: its own limit, and a short path quoted whole
    char small[8];
    CHECK(ordo_path(small, sizeof small, "%s/%s", "ab", "cd") == ORDO_OK &&
          strcmp(small, "ab/cd") == 0);
    CHECK(ordo_path(small, sizeof small, "%s-s%d", "rope", 123) == ORDO_ERR_ARG && !small[0]);
    CHECK_MSG(too_long_message(7, 7), "%s", ordo_error_message()); // quotes "rope-s1"

    // the quote stops before a UTF-8 character that would be cut: 'x' then 2-byte 'é's puts
    // a continuation byte at offset 64, so 63 bytes are quoted
    char *u = malloc(5001);
    u[0] = 'x';
    for (int i = 1; i + 1 < 5000; i += 2) u[i] = (char)0xC3, u[i + 1] = (char)0xA9;
    u[4999] = 0;
    CHECK(ordo_path(buf, sizeof buf, "%s", u) == ORDO_ERR_ARG);
    CHECK_MSG(too_long_message(4095, 63), "%s", ordo_error_message());
    free(u);

    // mkdir -p refuses the whole path before making any of its parents
    char dir[] = "/tmp/ordo_path_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *name = repeat('d', 100);
    char *deep = malloc(ORDO_PATH_MAX + 200);
    size_t k = (size_t)snprintf(deep, ORDO_PATH_MAX + 200, "%s", dir);
    while (k < ORDO_PATH_MAX + 50) k += (size_t)sprintf(deep + k, "/%s", name);
    CHECK(ordo_mkdir_p(deep, 0755) == ORDO_ERR_ARG && too_long_message(4095, 64));
    char first[256];
    snprintf(first, sizeof first, "%s/%s", dir, name);
    struct stat st;
    CHECK_MSG(stat(first, &st) != 0, "mkdir -p made %s for a path it refused", first);

    // the temporary name ".tmp.<pid>" must fit too: checked with the widest pid (12 bytes),
    // and ordo_write_atomic refuses such a path as too long (not an I/O error from the kernel)
    CHECK(ordo_write_atomic_check("runs/a/config.json") == ORDO_OK);
    a = repeat('w', ORDO_PATH_MAX - 1 - 12);
    CHECK(ordo_write_atomic_check(a) == ORDO_OK);
    free(a);
    a = repeat('w', ORDO_PATH_MAX - 12);
    CHECK(ordo_write_atomic_check(a) == ORDO_ERR_ARG);
    free(a);
    deep[k > 4090 ? 4090 : k] = 0; // fits, but its temporary name does not
    const void *parts[1] = {"x"};
    size_t lens[1] = {1};
    CHECK(ordo_write_atomic(deep, parts, lens, 1) == ORDO_ERR_ARG);
    CHECK_MSG(strncmp(ordo_error_message(), "path too long: '", 16) == 0, "%s",
              ordo_error_message());
    CHECK_MSG(stat(first, &st) != 0, "ordo_write_atomic made something under %s", dir);

    // a message longer than the buffer shortens its long word (the path) to its two ends and
    // keeps the reason (tests/sys/test_error_message.c), also after context is
    // prefixed
    char *big = repeat('m', 5000);
    ordo_error(ORDO_ERR_IO, "%s: cannot open", big);
    const char *m = ordo_error_message();
    size_t lm = strlen(m);
    CHECK_MSG(lm > 200 && lm < 2048 && strstr(m, "bytes left out") &&
                  strcmp(m + lm - 13, ": cannot open") == 0,
              "%zu bytes, ends '%s'", lm, m + (lm > 10 ? lm - 10 : 0));
    ordo_error(ORDO_ERR_IO, "short");
    ordo_error_wrap(ORDO_ERR_IO, "%s", big);
    m = ordo_error_message();
    lm = strlen(m);
    CHECK(lm > 200 && lm < 2048 && strcmp(m + lm - 7, ": short") == 0);
    ordo_error(ORDO_ERR_IO, "short");
    ordo_error_wrap(ORDO_ERR_IO, "context");
    CHECK(strcmp(ordo_error_message(), "context: short") == 0); // nothing added when it fits
    free(big);

    free(name);
    free(deep);
    rmdir(dir);
    TEST_MAIN_END();
}
