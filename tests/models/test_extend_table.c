// Fitting a learned position table to another length (`ordo train --init RUN --context T`,
// models/positional.h ordo_extend_table): interpolate against PyTorch's
// F.interpolate(mode="linear", align_corners=True) (tests/ref/fixtures/extend.safetensors),
// fresh keeping the old rows and leaving the new ones as they were, copy repeating them (row
// t = row t mod T0), a shorter table taking the first rows, and a one-row table.
#include <string.h>

#include "fixture.h"
#include "test.h"
#include "models/positional.h"

static void check_case(ordo_safetensors *f, const char *name) {
    char key[32];
    snprintf(key, sizeof key, "%s.src", name);
    const ordo_st_tensor *ts = ordo_safetensors_find(f, key);
    snprintf(key, sizeof key, "%s.out", name);
    const ordo_st_tensor *to = ordo_safetensors_find(f, key);
    CHECK(ts && to);
    if (!ts || !to) return;
    int T0 = (int)ts->shape[0], C = (int)ts->shape[1], T = (int)to->shape[0];
    snprintf(key, sizeof key, "%s.src", name);
    float *src = fixture_read(f, key, NULL);
    snprintf(key, sizeof key, "%s.out", name);
    float *want = fixture_read(f, key, NULL);
    float *got = malloc((size_t)T * C * sizeof *got);
    ordo_extend_table(got, T, src, T0, C, ORDO_EXTEND_INTERPOLATE);
    double e = scaled_err(got, want, (size_t)T * C);
    CHECK_MSG(e < 1e-6, "interpolate %d -> %d rows: error %.3g against F.interpolate", T0, T, e);
    // the ends are the old ends exactly
    CHECK(memcmp(got, src, C * sizeof *got) == 0);
    CHECK(memcmp(got + (size_t)(T - 1) * C, src + (size_t)(T0 - 1) * C, C * sizeof *got) == 0);
    printf("  %-4s %3d -> %3d rows x %d: error %.2e\n", name, T0, T, C, e);
    // fresh: the old rows, then what was there
    for (size_t i = 0; i < (size_t)T * C; i++) got[i] = -7.0f;
    ordo_extend_table(got, T, src, T0, C, ORDO_EXTEND_FRESH);
    CHECK(memcmp(got, src, (size_t)T0 * C * sizeof *got) == 0);
    int kept = 1;
    for (size_t i = (size_t)T0 * C; i < (size_t)T * C; i++) kept &= got[i] == -7.0f;
    CHECK(kept);
    // copy: row p is old row p mod T0, bit for bit (Longformer's init)
    ordo_extend_table(got, T, src, T0, C, ORDO_EXTEND_COPY);
    int copied = 1;
    for (int p = 0; p < T; p++)
        copied &= memcmp(got + (size_t)p * C, src + (size_t)(p % T0) * C, C * sizeof *got) == 0;
    CHECK_MSG(copied, "copy %d -> %d rows: a row is not its row mod %d", T0, T, T0);
    // shorter: the first rows, any way
    for (int how = 0; how < ORDO_EXTEND_COUNT; how++) {
        ordo_extend_table(got, T0 - 1, src, T0, C, (ordo_extend_pos)how);
        CHECK(memcmp(got, src, (size_t)(T0 - 1) * C * sizeof *got) == 0);
    }
    free(src);
    free(want);
    free(got);
}

int main(void) {
    ordo_safetensors *f;
    if (ordo_safetensors_open(fixture_path("extend.safetensors"), &f)) {
        CHECK_MSG(0, "%s", ordo_error_message());
        TEST_MAIN_END();
    }
    const char *cases[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) check_case(f, cases[i]);
    ordo_safetensors_close(f);
    // one row: every new row is it
    float one[3] = {1, 2, 3}, out[4 * 3];
    for (int how = ORDO_EXTEND_INTERPOLATE; how <= ORDO_EXTEND_COPY; how += 2) {
        ordo_extend_table(out, 4, one, 1, 3, (ordo_extend_pos)how);
        for (int p = 0; p < 4; p++) CHECK(memcmp(out + 3 * p, one, sizeof one) == 0);
    }
    TEST_MAIN_END();
}
