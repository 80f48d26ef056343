// Selective copying (data/selcopy.h): the corpus is deterministic from the seed; each example
// is a region of noise and data, the marker, then the data in order, and only the copy is a
// target; the data positions are a uniform subset of the region (each slot is data about
// K/region of the time); an oracle that reads the region scores 1.0 and a constant guess exactly
// the share of answers equal to it; sizes the layout cannot hold are refused.
#include <string.h>

#include "answers_check.h"
#include "data/selcopy.h"

static ordo_corpus_opts opts_of(uint64_t seed, int len, int tokens) {
    ordo_corpus_opts o;
    ordo_corpus_default_opts(ORDO_TASK_SELECTIVE_COPY, &o);
    o.seed = seed, o.example_len = len, o.sc_tokens = tokens, o.n_tokens = 40000;
    return o;
}

static ordo_corpus make_corpus(uint64_t seed, int len, int tokens) {
    ordo_corpus_opts o = opts_of(seed, len, tokens);
    ordo_corpus c;
    CHECK(ordo_corpus_generate(ORDO_TASK_SELECTIVE_COPY, &o, &c) == ORDO_OK);
    CHECK(c.vocab_size == 16);
    return c;
}

// Every example against the layout; the share of examples with data in slot 0 and in the
// region's last slot comes back in *first and *last.
static void layout(int len, int K, double *first, double *last) {
    ordo_corpus c = make_corpus(11, len, K);
    int region = len - 1 - K, bad = 0;
    size_t ne = c.n / (size_t)len;
    long f = 0, l = 0;
    for (size_t e = 0; e < ne; e++) {
        const int32_t *x = c.tokens + e * (size_t)len;
        const uint8_t *m = c.mask + e * (size_t)len;
        int32_t data[4096];
        int k = 0;
        for (int t = 0; t < region; t++) {
            bad += m[t] != 0 || x[t] < 0 || x[t] > 14;
            if (x[t] != 0 && k < 4096) data[k++] = x[t];
        }
        bad += k != K || x[region] != 15 || m[region];
        for (int i = 0; i < K && k == K; i++)
            bad += x[region + 1 + i] != data[i] || !m[region + 1 + i];
        f += x[0] != 0, l += x[region - 1] != 0;
    }
    CHECK_MSG(bad == 0, "len %d, K %d: %d bad tokens", len, K, bad);
    *first = (double)f / (double)ne, *last = (double)l / (double)ne;
    ordo_corpus_free(&c);
}

// The oracle copies the region's data, in order, after the marker.
static ordo_status oracle(void *p, const int32_t *in, int rows, int T, const int *from,
                          int32_t *pred) {
    (void)p, (void)from;
    for (int i = 0; i < rows; i++) {
        const int32_t *x = in + (size_t)i * T;
        int32_t *y = pred + (size_t)i * T;
        int marker = 0, k = 0;
        while (x[marker] != 15) marker++;
        for (int t = 0; t < T; t++) y[t] = -1;
        for (int t = 0; t < marker; t++)
            if (x[t] != 0) y[marker + k++] = x[t]; // position marker + i predicts copy i
    }
    return ORDO_OK;
}

static void scoring(void) {
    ordo_selcopy sc = {16};
    long long right, answers = check_answers_scoring(ordo_selcopy_example, &sc, 64, 16, 200, oracle,
                                                     NULL, 7, &right);
    CHECK(answers == 200 * 16);
    CHECK_MSG(right > 150 && right < 320, "a constant got %lld of 3200 (chance 1/14: 229)", right);
}

static void bad_sizes(void) {
    ordo_selcopy sc = {16}, tiny = {3};
    int32_t out[64];
    uint8_t mask[64];
    ordo_rng r;
    ordo_rng_seed(&r, 1);
    CHECK(ordo_selcopy_example(&sc, 64, 32, &r, out, mask) == ORDO_ERR_ARG); // 2 x 32 + 1 > 64
    CHECK(strstr(ordo_error_message(), "2 x tokens + 1 = 65"));
    CHECK(ordo_selcopy_example(&sc, 64, 0, &r, out, mask) == ORDO_ERR_ARG);
    CHECK(ordo_selcopy_example(&tiny, 64, 4, &r, out, mask) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "--sc-vocab 3"));
    CHECK(ordo_selcopy_example(&sc, 63, 31, &r, out, mask) == ORDO_OK); // region all data
    for (int t = 0; t < 31; t++) CHECK(out[t] != 0);
    ordo_task t;
    CHECK(ordo_task_parse("selective-copy", &t) == ORDO_OK && t == ORDO_TASK_SELECTIVE_COPY);
}

int main(void) {
    check_corpus_determinism(ORDO_TASK_SELECTIVE_COPY, opts_of(7, 64, 16));
    double f, l;
    layout(64, 16, &f, &l); // region 47: each slot data 16/47 = 0.34 of the time
    CHECK_MSG(f > 0.25 && f < 0.43 && l > 0.25 && l < 0.43, "slot 0 %g, last slot %g", f, l);
    layout(200, 4, &f, &l); // sparse: 4 of 195
    CHECK_MSG(f < 0.06 && l < 0.06, "slot 0 %g, last slot %g", f, l);
    layout(9, 4, &f, &l); // dense: the region is the data
    CHECK(f == 1 && l == 1);
    scoring();
    bad_sizes();
    TEST_MAIN_END();
}
