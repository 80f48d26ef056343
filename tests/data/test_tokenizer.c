// Tokenizers: byte round trips; gpt2 against ids taken from tiktoken, the-verdict's
// 5,145 ids and first 8x4 batch (README), decode(encode(x)) == x for valid UTF-8 and for
// arbitrary bytes, and clear errors for missing/corrupt vocab files and unknown ids.
// gpt2 needs the vocab in $ORDO_VOCAB_DIR (data/fetch.sh vocab): missing, those tests are
// skipped with a message, or fail under ORDO_REQUIRE_DOWNLOADS=1 (scripts/test.sh sets it).
// the-verdict is looked for beside the checkout (../shared/data) and in .cache/data; when
// absent that part prints SKIP.
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/tokenizer.h"
#include "framework/rng.h"
#include "tests/test.h"

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static void spit(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    ORDO_ASSERT(f);
    fwrite(data, 1, len, f);
    fclose(f);
}

static int ids_equal(const int32_t *a, size_t na, const int32_t *b, size_t nb) {
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

// encode, then check the ids and that decode gives the text back
static void check_encode(ordo_tokenizer *t, const char *text, int allow, const int32_t *want,
                         size_t nwant) {
    int32_t *ids;
    size_t n;
    CHECK(ordo_tokenizer_encode(t, text, strlen(text), allow, &ids, &n) == ORDO_OK);
    CHECK_MSG(ids_equal(ids, n, want, nwant), "encode(\"%s\") gave %zu ids, want %zu", text, n,
              nwant);
    char *back;
    size_t blen;
    CHECK(ordo_tokenizer_decode(t, ids, n, &back, &blen) == ORDO_OK);
    CHECK(blen == strlen(text) && memcmp(back, text, blen) == 0);
    free(back);
    free(ids);
}

static void roundtrip(ordo_tokenizer *t, const char *text, size_t len, int allow) {
    int32_t *ids;
    size_t n;
    char *back;
    size_t blen;
    CHECK(ordo_tokenizer_encode(t, text, len, allow, &ids, &n) == ORDO_OK);
    CHECK(ordo_tokenizer_decode(t, ids, n, &back, &blen) == ORDO_OK);
    CHECK_MSG(blen == len && memcmp(back, text, len) == 0, "roundtrip of %zu bytes", len);
    for (size_t i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= ordo_tokenizer_vocab_size(t)) {
            CHECK_MSG(0, "id %d out of range", ids[i]);
            break;
        }
    free(back);
    free(ids);
}

static size_t put_utf8(char *out, uint32_t c) {
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 63)), 2;
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12);
        out[1] = (char)(0x80 | ((c >> 6) & 63));
        out[2] = (char)(0x80 | (c & 63));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18);
    out[1] = (char)(0x80 | ((c >> 12) & 63));
    out[2] = (char)(0x80 | ((c >> 6) & 63));
    out[3] = (char)(0x80 | (c & 63));
    return 4;
}

static void test_byte(void) {
    ordo_tokenizer_kind k;
    CHECK(ordo_tokenizer_parse_kind("byte", &k) == ORDO_OK && k == ORDO_TOK_BYTE);
    CHECK(ordo_tokenizer_parse_kind("gpt2", &k) == ORDO_OK && k == ORDO_TOK_GPT2);
    CHECK(ordo_tokenizer_parse_kind("bpe", &k) == ORDO_ERR_ARG);
    CHECK(strstr(ordo_error_message(), "bpe") && strstr(ordo_error_message(), "byte or gpt2"));

    ordo_tokenizer *t;
    CHECK(ordo_tokenizer_load(ORDO_TOK_BYTE, NULL, &t) == ORDO_OK);
    CHECK(ordo_tokenizer_vocab_size(t) == 256);
    char all[256];
    for (int i = 0; i < 256; i++) all[i] = (char)i;
    int32_t *ids;
    size_t n;
    CHECK(ordo_tokenizer_encode(t, all, 256, 1, &ids, &n) == ORDO_OK && n == 256);
    for (int i = 0; i < 256; i++) CHECK(ids[i] == i);
    free(ids);
    roundtrip(t, all, 256, 0);
    roundtrip(t, "<|endoftext|>", 13, 1); // no specials: plain bytes
    CHECK(ordo_tokenizer_encode(t, "", 0, 0, &ids, &n) == ORDO_OK && n == 0 && ids);
    free(ids);
    int32_t bad[] = {65, 256};
    char *text;
    size_t len;
    CHECK(ordo_tokenizer_decode(t, bad, 2, &text, &len) == ORDO_ERR_ARG && !text);
    CHECK(strstr(ordo_error_message(), "256") && strstr(ordo_error_message(), "0..255"));
    ordo_tokenizer_free(t);
}

static void test_gpt2_known(ordo_tokenizer *t) {
    // expected ids from tiktoken 1.0.22 (npm), get_encoding("gpt2")
    CHECK(ordo_tokenizer_vocab_size(t) == 50257);
    const int32_t hello[] = {15496, 11, 995, 0};
    check_encode(t, "Hello, world!", 0, hello, 4);
    const int32_t mixed[] = {40, 1101, 994, 26, 345, 1183, 766, 13, 220, 220, 632, 338, 48609, 628};
    check_encode(t, "I'm here; you'll see.   It's 2024\n\n", 0, mixed, 14);
    const int32_t uni[] = {66, 1878, 2634, 10545, 245, 98, 17312, 105, 45739, 252, 30325, 222};
    check_encode(t, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80", 0, uni,
                 12);
    const int32_t plain[] = {15496, 995, 1279, 91, 437, 1659, 5239, 91, 29};
    check_encode(t, "Hello world <|endoftext|>", 0, plain, 9);
    const int32_t special[] = {15496, 995, 220, 50256};
    check_encode(t, "Hello world <|endoftext|>", 1, special, 4);
    const int32_t two[] = {50256, 464, 886, 13, 50256};
    check_encode(t, "<|endoftext|>The end.<|endoftext|>", 1, two, 5);
    const int32_t aaa[] = {24794, 24794, 24794};
    check_encode(t, "aaaaaaaaaaaa", 0, aaa, 3);
    check_encode(t, "", 1, NULL, 0);

    // 100,000 spaces then "x": tiktoken gives 99,999 x 220 then " x" (2124)
    size_t L = 100001;
    char *sp = malloc(L + 1);
    memset(sp, ' ', L - 1);
    sp[L - 1] = 'x';
    sp[L] = 0;
    int32_t *ids;
    size_t n;
    CHECK(ordo_tokenizer_encode(t, sp, L, 0, &ids, &n) == ORDO_OK);
    CHECK(n == 100000 && ids[0] == 220 && ids[n - 2] == 220 && ids[n - 1] == 2124);
    free(ids);
    // 300 'a' (one long piece, the O(n log n) merge): 75 x "aaaa" (24794)
    memset(sp, 'a', 300);
    CHECK(ordo_tokenizer_encode(t, sp, 300, 0, &ids, &n) == ORDO_OK);
    int all = n == 75;
    for (size_t i = 0; i < n; i++) all &= ids[i] == 24794;
    CHECK_MSG(all, "300 x 'a' gave %zu ids", n);
    free(ids);
    free(sp);

    int32_t bad[] = {464, 50257};
    char *text;
    size_t len;
    CHECK(ordo_tokenizer_decode(t, bad, 2, &text, &len) == ORDO_ERR_ARG && !text);
    CHECK(strstr(ordo_error_message(), "50257") && strstr(ordo_error_message(), "0..50256"));
    bad[1] = -3;
    CHECK(ordo_tokenizer_decode(t, bad, 2, &text, &len) == ORDO_ERR_ARG);
    int32_t eot = 50256;
    CHECK(ordo_tokenizer_decode(t, &eot, 1, &text, &len) == ORDO_OK && len == 13 &&
          strcmp(text, "<|endoftext|>") == 0);
    free(text);
}

static void test_gpt2_roundtrip(ordo_tokenizer *t) {
    ordo_rng r;
    ordo_rng_seed(&r, 7);
    char *buf = malloc(1 << 16);
    // valid UTF-8 from all planes (no surrogates), with runs of spaces and specials
    for (int it = 0; it < 400; it++) {
        size_t len = 0, m = 1 + ordo_rng_below(&r, 200);
        for (size_t i = 0; i < m; i++) {
            uint64_t k = ordo_rng_below(&r, 10);
            uint32_t c = k < 4   ? 0x20 + (uint32_t)ordo_rng_below(&r, 0x5f)
                         : k < 5 ? (uint32_t)ordo_rng_below(&r, 0x20)
                         : k < 8 ? (uint32_t)ordo_rng_below(&r, 0x10000)
                                 : (uint32_t)ordo_rng_below(&r, 0x110000);
            if (c >= 0xD800 && c <= 0xDFFF) c = ' ';
            if (k == 9 && it % 3 == 0) {
                memcpy(buf + len, "<|endoftext|>", 13);
                len += 13;
                continue;
            }
            len += put_utf8(buf + len, c);
        }
        roundtrip(t, buf, len, it & 1);
    }
    // arbitrary bytes (mostly invalid UTF-8): never an error, and lossless
    for (int it = 0; it < 400; it++) {
        size_t len = 1 + ordo_rng_below(&r, 300);
        for (size_t i = 0; i < len; i++) buf[i] = (char)ordo_rng_below(&r, 256);
        roundtrip(t, buf, len, it & 1);
    }
    const char *invalid[] = {"\xff",
                             "abc\x80"
                             "def",
                             "\xf0\x9f\x98",
                             "\xc0\xaf",
                             "\xed\xa0\x80",
                             " \xfe\xfe  x",
                             "I'\xff"
                             "m",
                             "\xf4\x90\x80\x80"};
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++)
        roundtrip(t, invalid[i], strlen(invalid[i]), 0);
    // documented: an ill-formed run is a piece of its own, between the valid pieces
    int32_t *a, *b, *c, *all;
    size_t na, nb, nc, nall;
    CHECK(ordo_tokenizer_encode(t, "Hello", 5, 0, &a, &na) == ORDO_OK);
    CHECK(ordo_tokenizer_encode(t, "\xff\xfe", 2, 0, &b, &nb) == ORDO_OK);
    CHECK(ordo_tokenizer_encode(t, " world", 6, 0, &c, &nc) == ORDO_OK);
    CHECK(ordo_tokenizer_encode(t, "Hello\xff\xfe world", 13, 0, &all, &nall) == ORDO_OK);
    CHECK(nall == na + nb + nc && ids_equal(all, na, a, na) && ids_equal(all + na, nb, b, nb) &&
          ids_equal(all + na + nb, nc, c, nc));
    free(a);
    free(b);
    free(c);
    free(all);
    // many distinct words (more than the word cache holds): same ids on a second pass
    size_t len = 0;
    char *big = malloc(2 << 20);
    for (int i = 0; len < (2 << 20) - 32; i++) len += (size_t)sprintf(big + len, " w%xq", i * 7919);
    int32_t *x, *y;
    size_t nx, ny;
    CHECK(ordo_tokenizer_encode(t, big, len, 0, &x, &nx) == ORDO_OK);
    CHECK(ordo_tokenizer_encode(t, big, len, 0, &y, &ny) == ORDO_OK);
    CHECK(ids_equal(x, nx, y, ny));
    roundtrip(t, big, len, 0);
    free(x);
    free(y);
    free(big);
    free(buf);
}

static const char *find_verdict(char *buf, size_t cap) {
    const char *src = getenv("ORDO_SOURCE_DIR");
    const char *cands[] = {"%s/../shared/data/the-verdict.txt", "%s/.cache/data/the-verdict.txt"};
    for (int i = 0; i < 2; i++) {
        snprintf(buf, cap, cands[i], src ? src : ".");
        if (access(buf, R_OK) == 0) return buf;
    }
    return NULL;
}

static void test_verdict(ordo_tokenizer *t) {
    char path[4096];
    if (!find_verdict(path, sizeof path)) {
        printf("SKIP: the-verdict.txt not found (../shared/data or .cache/data; "
               "data/fetch.sh verdict)\n");
        return;
    }
    size_t len;
    char *text = slurp(path, &len);
    CHECK(text && len == 20479);
    int32_t *ids;
    size_t n;
    CHECK(ordo_tokenizer_encode(t, text, len, 0, &ids, &n) == ORDO_OK);
    CHECK_MSG(n == 5145, "the-verdict.txt: %zu ids, want 5145", n);
    ordo_dataset ds;
    CHECK(ordo_dataset_init(&ds, ids, n, 4, 4) == ORDO_OK);
    ordo_dataloader dl;
    CHECK(ordo_dataloader_init(&dl, &ds, 8, 0, 123, 1) == ORDO_OK);
    int32_t x[8 * 4], y[8 * 4];
    CHECK(ordo_dataloader_next(&dl, x, y) == 8);
    const int32_t want[8 * 4] = {40,   367,   2885, 1464, 1807, 3619, 402,  271,  10899, 2138, 257,
                                 7026, 15632, 438,  2016, 257,  922,  5891, 1576, 438,   568,  340,
                                 373,  645,   1049, 5975, 284,  502,  284,  3285, 326,   11};
    CHECK(memcmp(x, want, sizeof want) == 0);
    CHECK(memcmp(y, want + 1, sizeof want - sizeof *want) == 0 && y[31] == ids[32]);
    char *back;
    size_t blen;
    CHECK(ordo_tokenizer_decode(t, ids, n, &back, &blen) == ORDO_OK);
    CHECK(blen == len && memcmp(back, text, len) == 0);
    free(back);
    ordo_dataloader_free(&dl);
    free(ids);
    free(text);
}

// A vocab dir built from the real files, one of them damaged, must fail to load with a
// message naming the file and the problem.
static void expect_load_error(const char *dir, const char *what, ordo_status want,
                              const char *needle) {
    ordo_tokenizer *t = (ordo_tokenizer *)1;
    ordo_status s = ordo_tokenizer_load(ORDO_TOK_GPT2, dir, &t);
    CHECK_MSG(s == want && t == NULL, "%s: status %s", what, ordo_status_name(s));
    CHECK_MSG(strstr(ordo_error_message(), needle), "%s: message '%s' lacks '%s'", what,
              ordo_error_message(), needle);
}

static void test_gpt2_errors(const char *vocab) {
    expect_load_error("/nonexistent/vocab", "missing dir", ORDO_ERR_IO,
                      "/nonexistent/vocab/encoder.json");
    char enc_path[4200], bpe_path[4200];
    snprintf(enc_path, sizeof enc_path, "%s/encoder.json", vocab);
    snprintf(bpe_path, sizeof bpe_path, "%s/vocab.bpe", vocab);
    size_t elen, blen;
    char *enc = slurp(enc_path, &elen), *bpe = slurp(bpe_path, &blen);
    char dir[] = "/tmp/ordo_vocab_XXXXXX";
    CHECK(enc && bpe && mkdtemp(dir));
    char e[4200], b[4200];
    snprintf(e, sizeof e, "%s/encoder.json", dir);
    snprintf(b, sizeof b, "%s/vocab.bpe", dir);

    spit(e, enc, elen);
    expect_load_error(dir, "missing vocab.bpe", ORDO_ERR_IO, "vocab.bpe");
    spit(b, bpe, blen / 2); // truncated: fewer merges
    expect_load_error(dir, "truncated vocab.bpe", ORDO_ERR_FORMAT, "expected 50000");
    char *swapped = malloc(blen);
    memcpy(swapped, bpe, blen);
    char *l2 = strchr(swapped, '\n') + 1, *l3 = strchr(l2, '\n') + 1, *l4 = strchr(l3, '\n') + 1;
    // swap merges 1 and 2 ("Ġ t" and "Ġ a" lines) when they have the same length
    if (l3 - l2 == l4 - l3) {
        char tmp[64];
        size_t k = (size_t)(l3 - l2);
        memcpy(tmp, l2, k);
        memcpy(l2, l3, k);
        memcpy(l3, tmp, k);
    }
    spit(b, swapped, blen);
    expect_load_error(dir, "reordered vocab.bpe", ORDO_ERR_FORMAT, "line 2");
    free(swapped);
    spit(b, "#version: 0.2\nnot-a-merge\n", 26);
    expect_load_error(dir, "garbage vocab.bpe", ORDO_ERR_FORMAT, "line 2");

    spit(b, bpe, blen);
    spit(e, enc, elen / 3); // truncated JSON
    expect_load_error(dir, "truncated encoder.json", ORDO_ERR_FORMAT, "not valid JSON");
    spit(e, "{\"a\": 0}", 8);
    expect_load_error(dir, "tiny encoder.json", ORDO_ERR_FORMAT, "1 entries, expected 50257");
    spit(e, "[1, 2]", 6);
    expect_load_error(dir, "array encoder.json", ORDO_ERR_FORMAT, "JSON object");
    spit(e, "", 0);
    expect_load_error(dir, "empty encoder.json", ORDO_ERR_FORMAT, "encoder.json");

    unlink(e);
    unlink(b);
    rmdir(dir);
    free(enc);
    free(bpe);
}

int main(void) {
    test_byte();
    const char *vocab = getenv("ORDO_VOCAB_DIR");
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/encoder.json", vocab ? vocab : ".cache/gpt2");
    if (!vocab || access(probe, R_OK) != 0) {
        const char *req = getenv("ORDO_REQUIRE_DOWNLOADS");
        if (!req || strcmp(req, "1") != 0) {
            printf("SKIP: gpt2 tests, no vocab at %s (data/fetch.sh vocab fetches it)\n", probe);
            TEST_MAIN_END();
        }
        CHECK_MSG(0,
                  "no gpt2 vocab at %s, and ORDO_REQUIRE_DOWNLOADS=1: run data/fetch.sh vocab "
                  "(or set ORDO_VOCAB_DIR)",
                  probe);
        TEST_MAIN_END();
    }
    ordo_tokenizer *t;
    ordo_status s = ordo_tokenizer_load(ORDO_TOK_GPT2, vocab, &t);
    CHECK_MSG(s == ORDO_OK, "load: %s", ordo_error_message());
    if (s == ORDO_OK) {
        test_gpt2_known(t);
        test_gpt2_roundtrip(t);
        test_verdict(t);
        ordo_tokenizer_free(t);
    }
    test_gpt2_errors(vocab);
    TEST_MAIN_END();
}
