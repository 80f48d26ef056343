// The error message buffer (sys/error.c) with messages longer than it holds: a 10 MB path in a
// message is shortened to its two ends with the count of bytes left out, and what follows it (the
// reason) is kept whole, whether the path comes through ordo_error or the prefix of
// ordo_error_wrap; a multi-byte character is never cut in two; a message that fits is as formatted;
// one with no long word is cut at its end with "...".
#include <stdlib.h>
#include <string.h>

#include "sys/error.h"
#include "test.h"

// A UTF-8 check: no sequence cut short.
static int utf8_whole(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : *p >= 0xF0 ? 3 : *p >= 0xE0 ? 2 : *p >= 0xC0 ? 1 : -1;
        if (n < 0) return 0;
        for (int i = 1; i <= n; i++)
            if ((p[i] & 0xC0) != 0x80) return 0;
        p += n + 1;
    }
    return 1;
}

int main(void) {
    size_t n = 10u << 20;
    char *path = malloc(n + 1);
    memcpy(path, "/data/", 6);
    memset(path + 6, 'a', n - 6 - 9);
    memcpy(path + n - 9, "/file.txt", 10);
    const char *reason =
        "cannot open: No such file or directory (give --data the text to train on)";

    // through ordo_error: the reason whole, the path's two ends, the count of what is left out
    CHECK(ordo_error(ORDO_ERR_IO, "%s: %s", path, reason) == ORDO_ERR_IO);
    const char *m = ordo_error_message();
    CHECK(strlen(m) < 2048);
    CHECK_MSG(strstr(m, reason) != NULL, "reason lost: ...%s", m + strlen(m) - 80);
    CHECK(strncmp(m, "/data/aaaa", 10) == 0);
    CHECK(strstr(m, "aaaa/file.txt: cannot open") != NULL);
    CHECK_MSG(strstr(m, "bytes left out)") != NULL, "%.300s", m);

    // through a prefix of ordo_error_wrap (`--init <path>: <the loader's message>`)
    ordo_error(ORDO_ERR_ARG, "tensor wte.weight has shape [2,3], config wants [4,3]");
    ordo_error_wrap(ORDO_ERR_ARG, "--init %s", path);
    m = ordo_error_message();
    CHECK(strlen(m) < 2048 && strncmp(m, "--init /data/aaaa", 17) == 0);
    CHECK_MSG(strstr(m, "file.txt: tensor wte.weight has shape [2,3], config wants [4,3]") != NULL,
              "%s", m + strlen(m) - 100);

    // the path twice (as "tokenize it once ('ordo tokenize --out FILE.bin <path>')" has it):
    // both shortened, the text between and after them kept
    ordo_error(ORDO_ERR_ARG, "%s: too big; tokenize it ('ordo tokenize %s') and train on that",
               path, path);
    m = ordo_error_message();
    CHECK_MSG(strstr(m, ": too big; tokenize it ('ordo tokenize /data/") &&
                  strstr(m, "file.txt') and train on that"),
              "%s", m);

    // a long word of multi-byte characters is cut between characters
    char *wide = malloc(3 * 4000 + 1);
    for (int i = 0; i < 4000; i++) memcpy(wide + 3 * i, "\xe2\x82\xac", 3); // U+20AC
    wide[3 * 4000] = 0;
    ordo_error(ORDO_ERR_ARG, "x%s: why", wide);
    m = ordo_error_message();
    CHECK(utf8_whole(m) && strstr(m, ": why") != NULL);

    // what fits is untouched; many short words that do not fit are cut at the end
    ordo_error(ORDO_ERR_ARG, "%s: %d", "short", 42);
    CHECK(strcmp(ordo_error_message(), "short: 42") == 0);
    char *words = malloc(3000 * 2 + 1);
    for (int i = 0; i < 3000; i++) memcpy(words + 2 * i, "w ", 2);
    words[6000] = 0;
    ordo_error(ORDO_ERR_ARG, "%s", words);
    m = ordo_error_message();
    CHECK(strlen(m) == 2047 && strcmp(m + 2044, "...") == 0);

    free(words);
    free(wide);
    free(path);
    TEST_MAIN_END();
}
