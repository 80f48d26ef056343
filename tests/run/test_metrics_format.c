// metrics.jsonl's line format and reader (run/metrics.h): finite values keep the format
// that tools already parse, byte for byte; a value that is not finite is written as null and
// read back as NaN with its bit in `nulls`, so that every line is valid JSON; the bare inf /
// nan of older logs read back the same way; a last line without its newline is reported.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "run/metrics.h"

static char dir[] = "/tmp/ordo_metrics_XXXXXX";

// Writes text to a file in dir and reads it back with the reader.
static void read_text(const char *text, ordo_metrics *m) {
    char path[256];
    snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
    CHECK(ordo_metrics_read(path, m) == ORDO_OK);
    unlink(path);
}

static void check_format(void) {
    char line[ORDO_METRICS_LINE_MAX];
    size_t n = ordo_metrics_format(line, sizeof line, 10, 2.5, 0, NAN, 0.001, 1234.5, 1.25);
    CHECK(strcmp(line, "{\"step\":10,\"train_loss\":2.5,\"lr\":0.001,\"tokens_per_s\":1234.5,"
                       "\"elapsed_s\":1.250}\n") == 0);
    CHECK(n == strlen(line));
    n = ordo_metrics_format(line, sizeof line, 20, 1.75, 1, 2.0, 3e-4, 99.0, 2.0);
    CHECK(strcmp(line, "{\"step\":20,\"train_loss\":1.75,\"val_loss\":2,\"val_ppl\":7.3890561,"
                       "\"lr\":0.0003,\"tokens_per_s\":99.0,\"elapsed_s\":2.000}\n") == 0);
    // diverged: exp(800) overflows; a NaN val loss; an infinite train loss
    ordo_metrics_format(line, sizeof line, 30, 5.0, 1, 800.0, 1e-3, 10.0, 3.0);
    CHECK(strstr(line, "\"val_loss\":800,\"val_ppl\":null,"));
    ordo_metrics_format(line, sizeof line, 31, INFINITY, 1, NAN, 1e-3, 10.0, 3.0);
    CHECK(strstr(line, "\"train_loss\":null,\"val_loss\":null,\"val_ppl\":null,"));
    // the longest numbers still fit
    n = ordo_metrics_format(line, sizeof line, (int64_t)1 << 40, -1.23456789e-300, 1, -1e300,
                            -1.23456789e-300, 9.9e27, 1e15);
    CHECK(n < ORDO_METRICS_LINE_MAX && line[n - 1] == '\n');
}

static void check_read(void) {
    char text[2048], line[ORDO_METRICS_LINE_MAX];
    text[0] = 0;
    ordo_metrics_format(line, sizeof line, 1, 3.0, 1, 800.0, 1e-3, 10.0, 0.5);
    strcat(text, line);
    ordo_metrics_format(line, sizeof line, 2, 2.0, 1, NAN, 1e-3, 10.0, 1.0);
    strcat(text, line);
    // as ordo wrote a diverged run before null: bare inf and nan
    strcat(text, "{\"step\":3,\"train_loss\":1,\"val_loss\":-nan,\"val_ppl\":inf,\"lr\":0.001}\n");
    strcat(text, "{\"step\":4,\"train_loss\":-inf,\"lr\":nan}\n");
    strcat(text, "not json\n");
    strcat(text, "{\"step\":5,\"train_lo"); // cut short
    ordo_metrics m;
    read_text(text, &m);
    CHECK(m.n == 6);
    const ordo_metrics_line *l = m.line;
    CHECK(l[0].ok && l[0].complete && l[0].val_loss == 800.0 && isnan(l[0].val_ppl));
    CHECK(l[0].nulls == ORDO_METRICS_VAL_PPL);
    CHECK(l[1].ok && isnan(l[1].val_loss) && l[1].train_loss == 2.0);
    CHECK(l[1].nulls == (ORDO_METRICS_VAL_LOSS | ORDO_METRICS_VAL_PPL));
    CHECK(l[2].ok && l[2].step == 3 && l[2].train_loss == 1.0 && l[2].lr == 0.001);
    CHECK(l[2].nulls == (ORDO_METRICS_VAL_LOSS | ORDO_METRICS_VAL_PPL));
    CHECK(l[3].ok && l[3].nulls == (ORDO_METRICS_TRAIN_LOSS | ORDO_METRICS_LR));
    CHECK(isnan(l[3].val_loss)); // absent, not null
    CHECK(!l[4].ok && l[4].complete && !l[4].blank);
    CHECK(!l[5].ok && !l[5].complete && l[5].end == strlen(text));
    ordo_metrics_free(&m);
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    check_format();
    check_read();
    rmdir(dir);
    TEST_MAIN_END();
}
