// Replays the fuzz corpora through the normal build's readers (tests/fuzz/harness.c): every
// seed in tests/fuzz/<target>/ and every input in tests/fuzz/regressions/<target>/, the
// latter being inputs that once crashed, hung or over-allocated. A regression input must now
// be refused cleanly (an error with a message), unless its name starts with "ok-" (an input
// that must be accepted). Under check_sanitize this runs with ASan + UBSan as well.
#include <dirent.h>
#include <string.h>

#include "sys/fileio.h"
#include "fuzz/fuzz.h"
#include "test.h"

// Runs every file of dir through fn; returns how many ran. want: -1 any, 1 must be refused
// (0 for names starting with "ok-").
static int replay(const char *dir, int (*fn)(const uint8_t *, size_t), int regressions) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int ran = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[ORDO_PATH_MAX];
        char *buf;
        size_t len;
        if (ordo_path(path, sizeof path, "%s/%s", dir, e->d_name) ||
            ordo_read_file(path, (size_t)1 << 24, &buf, &len)) {
            CHECK_MSG(0, "%s: %s", path, ordo_error_message());
            continue;
        }
        int r = fn((const uint8_t *)buf, len);
        if (getenv("ORDO_FUZZ_VERBOSE"))
            printf("  %s: %s %s\n", path, r ? "refused:" : "accepted",
                   r ? ordo_fuzz_last_refusal() : "");
        if (regressions) {
            int want = strncmp(e->d_name, "ok-", 3) == 0 ? 0 : 1;
            CHECK_MSG(r == want, "%s: %s, expected %s", path, r ? "refused" : "accepted",
                      want ? "a clean refusal" : "acceptance");
        }
        free(buf);
        ran++;
    }
    closedir(d);
    return ran;
}

int main(void) {
    const char *src = getenv("ORDO_SOURCE_DIR");
    if (!src || !*src) src = ".";
    if (!ordo_fuzz_have_gpt2())
        printf("note: gpt2 vocab not available; encode/decode replay the byte tokenizer only\n");
    int total_seeds = 0;
    for (const ordo_fuzz_target *t = ordo_fuzz_targets; t->name; t++) {
        char dir[ORDO_PATH_MAX];
        CHECK_MSG(!ordo_path(dir, sizeof dir, "%s/tests/fuzz/%s", src, t->name), "%s",
                  ordo_error_message());
        int seeds = replay(dir, t->fn, 0);
        CHECK_MSG(!ordo_path(dir, sizeof dir, "%s/tests/fuzz/regressions/%s", src, t->name), "%s",
                  ordo_error_message());
        int regs = replay(dir, t->fn, 1);
        printf("%-12s %3d seeds, %3d regressions\n", t->name, seeds, regs);
        CHECK_MSG(seeds > 0, "no seeds in tests/fuzz/%s", t->name);
        total_seeds += seeds;
    }
    CHECK(total_seeds > 0);
    TEST_MAIN_END();
}
