// safetensors read/write and atomic file I/O: golden bytes from the reference
// implementation's own tests, bit-exact round trips, the reference's layout (8-aligned,
// space-padded header, `__metadata__` first, tensors sorted by name), a catalogue of bad files
// that must each give a clear error naming the file, truncation and byte-flip fuzzing, and
// crash-safety of ordo_write_atomic (failure mid-write, SIGKILL mid-write).
//
// Helper modes for tests/parity/test_safetensors_python.sh (checks against tests/ref/st_check.py):
//   test_safetensors --write-sample PATH   write the sample file that st_check.py verifies
//   test_safetensors --check-sample PATH   read the file st_check.py wrote as the reference does
//   test_safetensors --write-bad DIR       write the bad-file catalogue for st_check.py reject
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/fileio.h"
#include "framework/rng.h"
#include "framework/safetensors.h"
#include "tests/test.h"

static char tmpdir[64];

static const char *tpath(const char *name) {
    static char buf[8][512];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static int rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    return remove(p);
}
static void rm_rf(const char *dir) {
    nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

static char *slurp(const char *path, size_t *n) {
    char *buf;
    if (ordo_read_file(path, (size_t)1 << 30, &buf, n) != ORDO_OK) return NULL;
    return buf;
}

static int has(const char *s, const char *sub) {
    return strstr(s, sub) != NULL;
}

// Number of entries in dir whose name contains ".tmp.".
static int count_tmp_files(const char *dir) {
    DIR *d = opendir(dir);
    int k = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) k += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return k;
}

// ---- golden bytes: the reference's own serialization tests (tensor.rs, mod tests)

static void check_file_is(const char *path, const char *header, int hlen, const float *data,
                          size_t ndata) {
    size_t n;
    char *buf = slurp(path, &n);
    CHECK(buf != NULL);
    if (!buf) return;
    CHECK_MSG(n == 8 + (size_t)hlen + 4 * ndata, "%s: %zu bytes", path, n);
    uint64_t len = 0;
    for (int i = 7; i >= 0; i--) len = len << 8 | (unsigned char)buf[i];
    CHECK_MSG(len == (uint64_t)hlen, "header length %llu, reference %d", (unsigned long long)len,
              hlen);
    size_t hl = strlen(header);
    CHECK(n >= 8 + (size_t)hlen && memcmp(buf + 8, header, hl) == 0);
    for (size_t i = hl; i < (size_t)hlen && 8 + i < n; i++) CHECK(buf[8 + i] == ' ');
    if (n == 8 + (size_t)hlen + 4 * ndata)
        CHECK(ndata == 0 || memcmp(buf + 8 + hlen, data, 4 * ndata) == 0);
    free(buf);
}

static void test_golden(void) {
    float v[6] = {0, 1, 2, 3, 4, 5};
    ordo_st_write t = {"attn.0", v, 3, {1, 2, 3}};
    CHECK(ordo_safetensors_write(tpath("g1.safetensors"), &t, 1, NULL, NULL, 0) == ORDO_OK);
    check_file_is(tpath("g1.safetensors"),
                  "{\"attn.0\":{\"dtype\":\"F32\",\"shape\":[1,2,3],\"data_offsets\":[0,24]}}", 64,
                  v, 6);
    // Shorter name: the reference pads with 7 spaces to 72 so that the data stays aligned.
    ordo_st_write t2 = {"attn0", v, 4, {1, 1, 2, 3}};
    CHECK(ordo_safetensors_write(tpath("g2.safetensors"), &t2, 1, NULL, NULL, 0) == ORDO_OK);
    check_file_is(tpath("g2.safetensors"),
                  "{\"attn0\":{\"dtype\":\"F32\",\"shape\":[1,1,2,3],\"data_offsets\":[0,24]}}", 72,
                  v, 6);
    CHECK(ordo_safetensors_write(tpath("g3.safetensors"), NULL, 0, NULL, NULL, 0) == ORDO_OK);
    check_file_is(tpath("g3.safetensors"), "{}", 8, NULL, 0);
    const char *k[] = {"framework"}, *val[] = {"pt"};
    CHECK(ordo_safetensors_write(tpath("g4.safetensors"), NULL, 0, k, val, 1) == ORDO_OK);
    check_file_is(tpath("g4.safetensors"), "{\"__metadata__\":{\"framework\":\"pt\"}}", 40, NULL,
                  0);
    ordo_safetensors *f;
    CHECK(ordo_safetensors_open(tpath("g4.safetensors"), &f) == ORDO_OK);
    if (f) {
        CHECK(ordo_safetensors_count(f) == 0);
        CHECK(ordo_safetensors_meta(f, "framework") &&
              !strcmp(ordo_safetensors_meta(f, "framework"), "pt"));
        ordo_safetensors_close(f);
    }
}

// ---- round trip

static void test_round_trip(void) {
    ordo_rng r;
    ordo_rng_seed(&r, 42);
    enum { NA = 7 * 5, NB = 13, NC = 2 * 3 * 4 * 5 };
    float a[NA], b[NB], c[NC], sc = -2.75f;
    for (int i = 0; i < NA; i++) a[i] = (float)ordo_rng_normal(&r);
    for (int i = 0; i < NB; i++) b[i] = (float)ordo_rng_uniform(&r) * 1e-30f;
    for (int i = 0; i < NC; i++) c[i] = (float)(i - 60) * 0.37f;
    b[0] = -0.0f, b[1] = INFINITY, b[2] = -INFINITY, b[3] = 1e-45f; // denormal
    uint32_t qnan = 0x7fc01234u;                                    // NaN payload must survive
    memcpy(&b[4], &qnan, 4);
    // Given out of order: the file must hold them sorted by name.
    ordo_st_write ts[] = {
        {"wte.weight", a, 2, {7, 5}}, {"h.0.attn.c_attn.bias", b, 1, {NB}},
        {"scalar", &sc, 0, {0}},      {"h.10.mlp.c_fc.weight", c, 4, {2, 3, 4, 5}},
        {"empty", NULL, 2, {0, 3}},   {"h.2.ln_1.bias", b, 1, {NB}},
        {"B.upper", a, 1, {3}},
    };
    int n = (int)(sizeof ts / sizeof ts[0]);
    const char *keys[] = {"format", "step", "config", "odd \"key\"\n", "unicode"};
    const char *vals[] = {"pt", "200", "{\"n_embd\": 48, \"pos\": \"rope\"}",
                          "tab\there back\\slash \x01\x1f\x7f",
                          "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x99\x82"};
    const char *p = tpath("rt.safetensors");
    CHECK(ordo_safetensors_write(p, ts, n, keys, vals, 5) == ORDO_OK);
    CHECK(count_tmp_files(tmpdir) == 0);

    ordo_safetensors *f = NULL;
    ordo_status s = ordo_safetensors_open(p, &f);
    CHECK_MSG(s == ORDO_OK, "%s", ordo_error_message());
    if (!f) return;
    CHECK(!strcmp(ordo_safetensors_path(f), p));
    CHECK(ordo_safetensors_count(f) == n);
    const char *sorted[] = {
        "B.upper", "empty",     "h.0.attn.c_attn.bias", "h.10.mlp.c_fc.weight", "h.2.ln_1.bias",
        "scalar",  "wte.weight"};
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        const ordo_st_tensor *t = ordo_safetensors_at(f, i);
        CHECK_MSG(!strcmp(t->name, sorted[i]), "position %d holds %s, want %s", i, t->name,
                  sorted[i]);
        CHECK(t->dtype == ORDO_DTYPE_F32);
        CHECK(t->offset == off);
        off += t->nbytes;
    }
    CHECK(ordo_safetensors_at(f, n) == NULL && ordo_safetensors_at(f, -1) == NULL);
    for (int i = 0; i < n; i++) {
        const ordo_st_tensor *t = ordo_safetensors_find(f, ts[i].name);
        CHECK(t != NULL);
        if (!t) continue;
        CHECK(t->ndim == ts[i].ndim);
        int want[8];
        size_t ne = 1;
        for (int d = 0; d < t->ndim; d++) {
            CHECK(t->shape[d] == ts[i].shape[d]);
            want[d] = (int)ts[i].shape[d];
            ne *= (size_t)ts[i].shape[d];
        }
        CHECK(t->nbytes == 4 * ne);
        float *dst = calloc(ne + 1, sizeof(float));
        s = ordo_safetensors_read_f32(f, ts[i].name, want, ts[i].ndim, dst);
        CHECK_MSG(s == ORDO_OK, "%s", ordo_error_message());
        CHECK_MSG(ne == 0 || memcmp(dst, ts[i].data, 4 * ne) == 0, "%s not bit-exact", ts[i].name);
        CHECK(ne == 0 || memcmp(ordo_safetensors_data(f, t), ts[i].data, 4 * ne) == 0);
        free(dst);
    }
    CHECK(ordo_safetensors_find(f, "nope") == NULL);
    CHECK(ordo_safetensors_find(f, "") == NULL);
    CHECK(ordo_safetensors_meta_count(f) == 5);
    for (int i = 0; i < 5; i++) {
        CHECK(!strcmp(ordo_safetensors_meta_key(f, i), keys[i])); // written in the given order
        CHECK(!strcmp(ordo_safetensors_meta_value(f, i), vals[i]));
        CHECK(!strcmp(ordo_safetensors_meta(f, keys[i]), vals[i]));
    }
    CHECK(ordo_safetensors_meta(f, "absent") == NULL);
    CHECK(ordo_safetensors_meta_key(f, 5) == NULL);

    // Layout as the reference writes it.
    size_t fl;
    char *raw = slurp(p, &fl);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--) hl = hl << 8 | (unsigned char)raw[i];
    CHECK(hl % 8 == 0);
    CHECK(!strncmp(raw + 8, "{\"__metadata__\":{\"format\":\"pt\",", 31));
    size_t last = 8 + hl - 1;
    while (raw[last] == ' ') last--;
    CHECK(raw[last] == '}');
    CHECK(8 + hl - 1 - last < 8); // at most 7 spaces of padding
    CHECK(fl == 8 + hl + off);
    // serde_json escaping: control characters as \u00xx (lowercase), DEL and UTF-8 verbatim.
    CHECK(has(raw + 8, "\"odd \\\"key\\\"\\n\":\"tab\\there back\\\\slash \\u0001\\u001f\x7f\""));
    CHECK(has(raw + 8, "caf\xc3\xa9"));
    // Header keys appear in offset order.
    const char *prev = raw + 8;
    for (int i = 0; i < n; i++) {
        char key[64];
        snprintf(key, sizeof key, "\"%s\":{\"dtype\"", sorted[i]);
        const char *at = strstr(raw + 8, key);
        CHECK_MSG(at && at > prev, "header key %s out of order", sorted[i]);
        if (at) prev = at;
    }
    free(raw);
    ordo_safetensors_close(f);
}

// ---- read_f32 errors

static void test_read_f32_errors(void) {
    static float w[32 * 96];
    ordo_st_write t = {"h.0.attn.c_attn.weight", w, 2, {32, 96}};
    const char *p = tpath("shape.safetensors");
    CHECK(ordo_safetensors_write(p, &t, 1, NULL, NULL, 0) == ORDO_OK);
    ordo_safetensors *f;
    CHECK(ordo_safetensors_open(p, &f) == ORDO_OK);
    if (!f) return;
    static float dst[48 * 144];
    int want[] = {48, 144};
    CHECK(ordo_safetensors_read_f32(f, "h.0.attn.c_attn.weight", want, 2, dst) == ORDO_ERR_FORMAT);
    char expect[512];
    snprintf(expect, sizeof expect,
             "%s: tensor h.0.attn.c_attn.weight has shape [32,96], config wants [48,144]", p);
    CHECK_MSG(!strcmp(ordo_error_message(), expect), "got: %s", ordo_error_message());
    int want3[] = {32, 96, 1};
    CHECK(ordo_safetensors_read_f32(f, "h.0.attn.c_attn.weight", want3, 3, dst) == ORDO_ERR_FORMAT);
    CHECK(has(ordo_error_message(), "has shape [32,96], config wants [32,96,1]"));
    CHECK(ordo_safetensors_read_f32(f, "wpe.weight", want, 2, dst) == ORDO_ERR_FORMAT);
    CHECK(has(ordo_error_message(), p) && has(ordo_error_message(), "tensor wpe.weight not found"));
    ordo_safetensors_close(f);
}

// ---- hand-made files

// [8-byte length][header padded with `pad` spaces][data_len pattern bytes], cut to `cut`
// bytes if cut >= 0; hlen >= 0 overrides the length field.
static void make_file(const char *path, const char *header, int pad, int64_t hlen, size_t data_len,
                      long cut) {
    size_t h = strlen(header), total = 8 + h + (size_t)pad + data_len;
    unsigned char *b = malloc(total);
    uint64_t n = hlen >= 0 ? (uint64_t)hlen : (uint64_t)(h + (size_t)pad);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(n >> (8 * i));
    memcpy(b + 8, header, h);
    memset(b + 8 + h, ' ', (size_t)pad);
    for (size_t i = 0; i < data_len; i++) b[8 + h + pad + i] = (unsigned char)(i * 37 + 11);
    write_bytes(path, b, cut >= 0 && (size_t)cut < total ? (size_t)cut : total);
    free(b);
}

#define T1(name, dt, shape, b, e)                                                                  \
    "\"" name "\":{\"dtype\":\"" dt "\",\"shape\":" shape ",\"data_offsets\":[" #b "," #e "]}"

typedef struct file_case {
    const char *label;
    int ref_rejects; // 1: the reference rejects it too; 0: ordo is stricter than the reference
    const char *header;
    int pad;
    int64_t hlen;
    size_t data_len;
    long cut;
    ordo_status want;
    const char *msg;
} file_case;

static const file_case bad_cases[] = {
    {"empty_file", 1, "{}", 6, -1, 0, 0, ORDO_ERR_FORMAT, "file is 0 bytes, too short"},
    {"five_bytes", 1, "{}", 6, -1, 0, 5, ORDO_ERR_FORMAT, "file is 5 bytes, too short"},
    {"hlen_2p62", 1, "{}", 6, (int64_t)1 << 62, 0, -1, ORDO_ERR_FORMAT,
     "header length 4611686018427387904 is more than the limit of 100000000 bytes"},
    {"hlen_u64max", 1, "{}", 6, -1, 0, -1, ORDO_ERR_FORMAT, "more than the limit"}, // patched below
    {"hlen_over_limit", 1, "{}", 6, 100000001, 0, -1, ORDO_ERR_FORMAT, "more than the limit"},
    {"hlen_past_eof", 1, "{}", 6, 4096, 0, -1, ORDO_ERR_FORMAT,
     "header length 4096 but only 8 bytes follow it (file truncated?)"},
    {"header_truncated", 1, "{" T1("a", "F32", "[4]", 0, 16) "}", 0, -1, 16, 30, ORDO_ERR_FORMAT,
     "file truncated?"},
    {"hlen_zero", 1, "", 0, 0, 0, -1, ORDO_ERR_FORMAT, "header length 0 is too short"},
    {"bad_json", 1, "{\"a\":", 3, -1, 0, -1, ORDO_ERR_FORMAT, "header is not valid JSON"},
    {"trailing_garbage", 1, "{} x", 4, -1, 0, -1, ORDO_ERR_FORMAT, "header is not valid JSON"},
    {"bad_utf8", 1, "{\"a\xff\":{}}", 6, -1, 0, -1, ORDO_ERR_FORMAT, "header is not valid JSON"},
    {"control_char", 1, "{\"a\x01\":{}}", 6, -1, 0, -1, ORDO_ERR_FORMAT,
     "header is not valid JSON"},
    {"not_object", 1, "[1,2]", 3, -1, 0, -1, ORDO_ERR_FORMAT, "header is not a JSON object"},
    {"entry_not_object", 1, "{\"a\":5}", 1, -1, 0, -1, ORDO_ERR_FORMAT,
     "tensor a: header entry is not a JSON object"},
    {"missing_offsets", 1, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 0, -1, 8, -1,
     ORDO_ERR_FORMAT, "tensor a: header entry lacks \"data_offsets\""},
    {"missing_dtype", 1, "{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", 0, -1, 8, -1,
     ORDO_ERR_FORMAT, "lacks \"dtype\""},
    {"dtype_not_string", 1, "{\"a\":{\"dtype\":32,\"shape\":[2],\"data_offsets\":[0,8]}}", 0, -1, 8,
     -1, ORDO_ERR_FORMAT, "tensor a: dtype is not a string"},
    {"unknown_dtype", 1, "{" T1("a", "F33", "[2]", 0, 8) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "tensor a: unknown dtype \"F33\""},
    {"lowercase_dtype", 1, "{" T1("a", "f32", "[2]", 0, 8) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "unknown dtype \"f32\""},
    {"shape_negative", 1, "{" T1("a", "F32", "[-2]", 0, 8) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "tensor a: shape[0] is not a non-negative integer"},
    {"shape_float", 1, "{" T1("a", "F32", "[1,2.0]", 0, 8) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "shape[1] is not a non-negative integer"},
    {"shape_not_array", 1, "{" T1("a", "F32", "2", 0, 8) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "shape is not an array"},
    {"shape_overflow", 1, "{" T1("a", "F32", "[4294967296,4294967296,16]", 0, 8) "}", 0, -1, 8, -1,
     ORDO_ERR_FORMAT, "overflows"},
    {"shape_9_dims", 0, "{" T1("a", "F32", "[1,1,1,1,1,1,1,1,2]", 0, 8) "}", 0, -1, 8, -1,
     ORDO_ERR_FORMAT, "9 dimensions, at most 8"},
    {"f4_odd_count", 1, "{" T1("a", "F4", "[3]", 0, 2) "}", 0, -1, 2, -1, ORDO_ERR_FORMAT,
     "3 elements of F4 do not fill whole bytes"},
    {"offsets_one", 1, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", 0, -1, 8,
     -1, ORDO_ERR_FORMAT, "data_offsets is not [begin, end]"},
    {"offsets_three", 1, "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,8]}}", 0,
     -1, 8, -1, ORDO_ERR_FORMAT, "data_offsets is not [begin, end]"},
    {"offsets_negative", 1, "{" T1("a", "F32", "[2]", -8, 0) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "data_offsets is not [begin, end]"},
    {"offsets_reversed", 1, "{" T1("a", "F32", "[2]", 8, 0) "}", 0, -1, 8, -1, ORDO_ERR_FORMAT,
     "data_offsets [8,0] end before they begin"},
    {"offsets_out_of_range", 1,
     "{" T1("a", "F32", "[2]", 0, 8) "," T1("b", "F32", "[2]", 8, 16) "}", 0, -1, 12, -1,
     ORDO_ERR_FORMAT, "tensor b: data_offsets [8,16] run past the end of the 12-byte"},
    {"offsets_huge", 1, "{" T1("a", "F32", "[144115188075855872]", 0, 576460752303423488) "}", 0,
     -1, 8, -1, ORDO_ERR_FORMAT, "run past the end"},
    {"nbytes_mismatch", 1, "{" T1("a", "F32", "[2,2]", 0, 12) "}", 0, -1, 12, -1, ORDO_ERR_FORMAT,
     "tensor a: data_offsets [0,12] hold 12 bytes, but dtype F32 and shape [2,2] need 16"},
    {"overlap", 1, "{" T1("a", "F32", "[4]", 0, 16) "," T1("b", "F32", "[4]", 8, 24) "}", 0, -1, 24,
     -1, ORDO_ERR_FORMAT, "tensors a and b overlap"},
    {"same_range", 1, "{" T1("a", "F32", "[2]", 0, 8) "," T1("b", "F32", "[2]", 0, 8) "}", 0, -1, 8,
     -1, ORDO_ERR_FORMAT, "overlap"},
    {"gap", 1, "{" T1("a", "F32", "[2]", 0, 8) "," T1("b", "F32", "[2]", 16, 24) "}", 0, -1, 24, -1,
     ORDO_ERR_FORMAT, "gap in the data section: tensor b begins at 16"},
    {"not_from_zero", 1, "{" T1("a", "F32", "[2]", 8, 16) "}", 0, -1, 16, -1, ORDO_ERR_FORMAT,
     "gap in the data section: tensor a begins at 8"},
    {"trailing_data", 1, "{" T1("a", "F32", "[2]", 0, 8) "}", 0, -1, 16, -1, ORDO_ERR_FORMAT,
     "the tensors cover 8 bytes of the 16-byte data section"},
    {"data_truncated", 1, "{" T1("a", "F32", "[4]", 0, 16) "}", 0, -1, 16,
     8 + 55 + 12, // 4 bytes short
     ORDO_ERR_FORMAT, "run past the end of the 12-byte data section (file truncated?)"},
    {"duplicate_name", 0, "{" T1("a", "F32", "[2]", 0, 8) "," T1("a", "F32", "[2]", 0, 8) "}", 0,
     -1, 8, -1, ORDO_ERR_FORMAT, "duplicate"},
    {"meta_not_string", 1, "{\"__metadata__\":{\"step\":200}}", 0, -1, 0, -1, ORDO_ERR_FORMAT,
     "__metadata__ value of \"step\" is not a string"},
    {"meta_not_object", 1, "{\"__metadata__\":[\"a\"]}", 0, -1, 0, -1, ORDO_ERR_FORMAT,
     "__metadata__ is not an object of strings"},
};

// One tensor of every dtype the reference names (FNUZ left out: not in every reference version).
// clang-format off
#define ALL_DTYPES_HEADER                                                                          \
    "{" T1("a", "BOOL", "[1]", 0, 1) "," T1("b", "F4", "[2]", 1, 2) ","                            \
    T1("c", "F6_E2M3", "[4]", 2, 5) "," T1("d", "F6_E3M2", "[4]", 5, 8) ","                       \
    T1("e", "U8", "[1]", 8, 9) "," T1("f", "I8", "[1]", 9, 10) ","                                 \
    T1("g", "F8_E5M2", "[1]", 10, 11) "," T1("h", "F8_E4M3", "[1]", 11, 12) ","                    \
    T1("i", "F8_E8M0", "[1]", 12, 13) "," T1("j", "I16", "[1]", 13, 15) ","                        \
    T1("k", "U16", "[1]", 15, 17) "," T1("l", "F16", "[1]", 17, 19) ","                            \
    T1("m", "BF16", "[1]", 19, 21) "," T1("n", "I32", "[1]", 21, 25) ","                           \
    T1("o", "U32", "[1]", 25, 29) "," T1("p", "F32", "[1]", 29, 33) ","                            \
    T1("q", "C64", "[1]", 33, 41) "," T1("r", "F64", "[1]", 41, 49) ","                            \
    T1("s", "I64", "[1]", 49, 57) "," T1("t", "U64", "[1]", 57, 65) "}"

#define ZERO_SIZED_HEADER                                                                          \
    "{" T1("z", "F32", "[0,5]", 0, 0) "," T1("a", "F32", "[2]", 0, 8) ","                          \
    T1("y", "F16", "[0]", 8, 8) "}"
// clang-format on

// Unusual files that the reference accepts, so ordo must too.
static const file_case ok_cases[] = {
    {"leading_space", 1, "  {" T1("a", "F32", "[2]", 0, 8) "}", 0, -1, 8, -1, ORDO_OK, ""},
    {"unpadded_unaligned", 1, "{" T1("a", "F32", "[3]", 0, 12) "}", 0, -1, 12, -1, ORDO_OK, ""},
    {"meta_null", 1, "{\"__metadata__\":null," T1("a", "F32", "[2]", 0, 8) "}", 0, -1, 8, -1,
     ORDO_OK, ""},
    {"meta_empty", 1, "{\"__metadata__\":{}}", 0, -1, 0, -1, ORDO_OK, ""},
    {"reverse_order", 1, "{" T1("b", "F32", "[2]", 8, 16) "," T1("a", "I64", "[1]", 0, 8) "}", 0,
     -1, 16, -1, ORDO_OK, ""},
    {"extra_field", 1,
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"note\":[1,{}]}}", 0, -1, 8,
     -1, ORDO_OK, ""},
    {"zero_sized", 1, ZERO_SIZED_HEADER, 0, -1, 8, -1, ORDO_OK, ""},
    {"all_dtypes", 1, ALL_DTYPES_HEADER, 0, -1, 65, -1, ORDO_OK, ""},
};

#define NBAD ((int)(sizeof bad_cases / sizeof bad_cases[0]))
#define NOK  ((int)(sizeof ok_cases / sizeof ok_cases[0]))

static void make_case(const char *path, const file_case *c) {
    if (!strcmp(c->label, "hlen_u64max")) { // UINT64_MAX does not fit the int64 field
        unsigned char b[16];
        memset(b, 0xff, 8);
        memcpy(b + 8, "{}      ", 8);
        write_bytes(path, b, 16);
        return;
    }
    make_file(path, c->header, c->pad, c->hlen, c->data_len, c->cut);
}

static void test_bad_files(void) {
    for (int i = 0; i < NBAD; i++) {
        const file_case *c = &bad_cases[i];
        char name[128];
        snprintf(name, sizeof name, "bad_%s.safetensors", c->label);
        const char *p = tpath(name);
        make_case(p, c);
        ordo_safetensors *f = (ordo_safetensors *)1;
        ordo_error_clear();
        ordo_status s = ordo_safetensors_open(p, &f);
        const char *m = ordo_error_message();
        CHECK_MSG(s == c->want, "%s: status %s, message: %s", c->label, ordo_status_name(s), m);
        CHECK_MSG(f == NULL, "%s: *out not cleared", c->label);
        CHECK_MSG(!strncmp(m, p, strlen(p)) && has(m, c->msg),
                  "%s: message should start with the path and contain \"%s\"; got: %s", c->label,
                  c->msg, m);
        if (s == ORDO_OK) ordo_safetensors_close(f);
    }
    for (int i = 0; i < NOK; i++) {
        const file_case *c = &ok_cases[i];
        char name[128];
        snprintf(name, sizeof name, "ok_%s.safetensors", c->label);
        const char *p = tpath(name);
        make_case(p, c);
        ordo_safetensors *f = NULL;
        ordo_status s = ordo_safetensors_open(p, &f);
        CHECK_MSG(s == ORDO_OK, "%s: %s", c->label, ordo_error_message());
        ordo_safetensors_close(f);
    }

    // Details of the accepted ones.
    ordo_safetensors *f = NULL;
    CHECK(ordo_safetensors_open(tpath("ok_unpadded_unaligned.safetensors"), &f) == ORDO_OK);
    if (f) {
        float v[3], want[3];
        const unsigned char pat[12] = {11, 48, 85, 122, 159, 196, 233, 14, 51, 88, 125, 162};
        memcpy(want, pat, 12);
        int shp[] = {3};
        CHECK(ordo_safetensors_read_f32(f, "a", shp, 1, v) == ORDO_OK);
        CHECK(memcmp(v, want, 12) == 0);
        ordo_safetensors_close(f);
    }
    CHECK(ordo_safetensors_open(tpath("ok_reverse_order.safetensors"), &f) == ORDO_OK);
    if (f) {
        CHECK(!strcmp(ordo_safetensors_at(f, 0)->name, "a") &&
              !strcmp(ordo_safetensors_at(f, 1)->name, "b"));
        int shp[] = {1};
        float v[2];
        CHECK(ordo_safetensors_read_f32(f, "a", shp, 1, v) == ORDO_ERR_FORMAT);
        CHECK(has(ordo_error_message(), "tensor a has dtype I64, expected F32"));
        ordo_safetensors_close(f);
    }
    CHECK(ordo_safetensors_open(tpath("ok_all_dtypes.safetensors"), &f) == ORDO_OK);
    if (f) {
        CHECK(ordo_safetensors_count(f) == ORDO_DTYPE_COUNT - 2); // all but the two FNUZ
        for (int i = 0; i < ordo_safetensors_count(f); i++) {
            const ordo_st_tensor *t = ordo_safetensors_at(f, i);
            CHECK((int)t->nbytes * 8 ==
                  ordo_dtype_bits(t->dtype) * (int)(t->ndim ? t->shape[0] : 1));
        }
        ordo_safetensors_close(f);
    }

    // Not files at all.
    ordo_status s = ordo_safetensors_open(tpath("does-not-exist.safetensors"), &f);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "does-not-exist.safetensors: cannot open: "
                                                        "No such file or directory"));
    s = ordo_safetensors_open(tmpdir, &f);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "is a directory, expected a regular file"));
}

// A huge header length or tensor size must be refused before anything is allocated: under an
// address-space limit a few MiB above current use, an attempt would fail and ordo_xmalloc
// would abort. (Skipped under ASan, whose shadow memory does not fit such a limit.)
static void test_no_huge_allocation(void) {
#if defined(__SANITIZE_ADDRESS__)
    printf("test_no_huge_allocation: skipped under AddressSanitizer\n");
#else
    pid_t pid = fork();
    if (pid == 0) {
        FILE *st = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!st || fscanf(st, "%lu", &pages) != 1) _exit(3);
        fclose(st);
        struct rlimit rl = {(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (64u << 20),
                            RLIM_INFINITY};
        rl.rlim_max = rl.rlim_cur;
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(4);
        const char *labels[] = {"hlen_2p62",     "hlen_u64max",  "hlen_over_limit",
                                "hlen_past_eof", "offsets_huge", "shape_overflow"};
        for (int k = 0; k < 6; k++) {
            char name[128];
            snprintf(name, sizeof name, "bad_%s.safetensors", labels[k]);
            ordo_safetensors *f;
            if (ordo_safetensors_open(tpath(name), &f) != ORDO_ERR_FORMAT) _exit(5);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
#endif
}

// Every truncation of a valid file fails cleanly; random byte flips never crash.
static void test_fuzz(void) {
    float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {7, 8, 9};
    ordo_st_write ts[] = {{"a", a, 2, {2, 3}}, {"b", b, 1, {3}}};
    const char *keys[] = {"k"}, *vals[] = {"v"};
    const char *p = tpath("fuzz-src.safetensors"), *q = tpath("fuzz.safetensors");
    CHECK(ordo_safetensors_write(p, ts, 2, keys, vals, 1) == ORDO_OK);
    size_t n;
    char *good = slurp(p, &n);
    if (!good) return;
    int bad_ok = 0;
    for (size_t cut = 0; cut < n; cut++) {
        write_bytes(q, good, cut);
        ordo_safetensors *f = NULL;
        ordo_status s = ordo_safetensors_open(q, &f);
        bad_ok += s == ORDO_OK;
        CHECK_MSG(s == ORDO_ERR_FORMAT && has(ordo_error_message(), q), "cut %zu: %s", cut,
                  ordo_error_message());
        ordo_safetensors_close(f);
    }
    CHECK(bad_ok == 0);
    ordo_rng r;
    ordo_rng_seed(&r, 7);
    char *mut = malloc(n);
    int opened = 0;
    for (int it = 0; it < 2000; it++) {
        memcpy(mut, good, n);
        int flips = 1 + (int)ordo_rng_below(&r, 3);
        for (int k = 0; k < flips; k++) {
            size_t pos = (size_t)ordo_rng_below(&r, it % 4 ? (uint64_t)n : 8);
            mut[pos] = (char)ordo_rng_below(&r, 256);
        }
        write_bytes(q, mut, n);
        ordo_safetensors *f = NULL;
        ordo_status s = ordo_safetensors_open(q, &f);
        if (s == ORDO_OK) {
            opened++;
            int shp[] = {2, 3};
            float dst[6];
            ordo_safetensors_read_f32(f, "a", shp, 2, dst);
            for (int i = 0; i < ordo_safetensors_count(f); i++) {
                const ordo_st_tensor *t = ordo_safetensors_at(f, i);
                volatile unsigned char sink = 0;
                const unsigned char *d = ordo_safetensors_data(f, t);
                for (size_t j = 0; j < t->nbytes; j++) sink ^= d[j];
                (void)sink;
            }
        } else {
            CHECK(s == ORDO_ERR_FORMAT && has(ordo_error_message(), q));
        }
        ordo_safetensors_close(f);
    }
    CHECK(opened > 0); // flips inside the data keep the file valid
    free(mut);
    free(good);
}

// ---- writer argument checks

static void test_write_rejects(void) {
    float v[4] = {0};
    const char *p = tpath("rej.safetensors");
    ordo_st_write dup[] = {{"x", v, 1, {2}}, {"x", v, 1, {2}}};
    CHECK(ordo_safetensors_write(p, dup, 2, NULL, NULL, 0) == ORDO_ERR_ARG);
    CHECK(has(ordo_error_message(), "tensor name x is used twice"));
    ordo_st_write meta[] = {{"__metadata__", v, 1, {2}}};
    CHECK(ordo_safetensors_write(p, meta, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    ordo_st_write utf[] = {{"bad\xc3", v, 1, {2}}};
    CHECK(ordo_safetensors_write(p, utf, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    ordo_st_write surrogate[] = {{"\xed\xa0\x80", v, 1, {2}}};
    CHECK(ordo_safetensors_write(p, surrogate, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    ordo_st_write neg[] = {{"n", v, 2, {2, -1}}};
    CHECK(ordo_safetensors_write(p, neg, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    ordo_st_write nine[] = {{"n", v, 9, {1}}};
    CHECK(ordo_safetensors_write(p, nine, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    ordo_st_write nodata[] = {{"n", NULL, 1, {2}}};
    CHECK(ordo_safetensors_write(p, nodata, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    ordo_st_write over[] = {{"n", v, 3, {1 << 30, 1 << 30, 1 << 30}}};
    CHECK(ordo_safetensors_write(p, over, 1, NULL, NULL, 0) == ORDO_ERR_ARG);
    const char *k2[] = {"a", "a"}, *v2[] = {"1", "2"};
    CHECK(ordo_safetensors_write(p, NULL, 0, k2, v2, 2) == ORDO_ERR_ARG);
    CHECK(has(ordo_error_message(), "metadata key a is used twice"));
    const char *k1[] = {"a"}, *v1[] = {"\xff"};
    CHECK(ordo_safetensors_write(p, NULL, 0, k1, v1, 1) == ORDO_ERR_ARG);
    CHECK(access(p, F_OK) != 0); // nothing was written
    CHECK(count_tmp_files(tmpdir) == 0);
}

// ---- atomic writes and file helpers

static void test_fileio(void) {
    // Failures name the path and the reason.
    const char *a = "x";
    const void *parts[] = {a};
    size_t lens[] = {1};
    ordo_status s = ordo_write_atomic(tpath("no/such/dir/f.json"), parts, lens, 1);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "no/such/dir/f.json") &&
          has(ordo_error_message(), "No such file or directory"));
    write_bytes(tpath("plainfile"), "abc", 3);
    s = ordo_write_atomic(tpath("plainfile/f.json"), parts, lens, 1);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "plainfile/f.json") &&
          has(ordo_error_message(), "Not a directory"));
    float v[2] = {1, 2};
    ordo_st_write t = {"w", v, 1, {2}};
    s = ordo_safetensors_write(tpath("plainfile/c.safetensors"), &t, 1, NULL, NULL, 0);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "Not a directory"));
    // Writing over a directory fails at the rename and leaves nothing behind.
    mkdir(tpath("adir"), 0755);
    s = ordo_write_atomic(tpath("adir"), parts, lens, 1);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "rename"));
    CHECK(count_tmp_files(tmpdir) == 0);

    // Success: content, no temporary left, NULL parts of length 0 allowed.
    const void *p3[] = {"hello ", NULL, "world"};
    size_t l3[] = {6, 0, 5};
    CHECK(ordo_write_atomic(tpath("hw.txt"), p3, l3, 3) == ORDO_OK);
    CHECK(ordo_write_atomic("hw-relative-ordo-test.txt", p3, l3, 3) == ORDO_OK); // dir "."
    unlink("hw-relative-ordo-test.txt");
    char *buf;
    size_t n;
    CHECK(ordo_read_file(tpath("hw.txt"), 100, &buf, &n) == ORDO_OK);
    CHECK(n == 11 && !strcmp(buf, "hello world"));
    free(buf);
    CHECK(count_tmp_files(tmpdir) == 0);

    // ordo_read_file limits and errors.
    s = ordo_read_file(tpath("hw.txt"), 10, &buf, &n);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "hw.txt") &&
          has(ordo_error_message(), "limit of 10 bytes") && buf == NULL);
    CHECK(ordo_read_file(tpath("hw.txt"), 11, &buf, &n) == ORDO_OK && n == 11);
    free(buf);
    write_bytes(tpath("empty.txt"), "", 0);
    CHECK(ordo_read_file(tpath("empty.txt"), 0, &buf, &n) == ORDO_OK && n == 0 && buf[0] == 0);
    free(buf);
    s = ordo_read_file(tpath("missing.json"), 100, &buf, &n);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "missing.json: cannot open: No such file"));
    s = ordo_read_file(tmpdir, 100, &buf, &n);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "is a directory"));
    // A pipe (no size known in advance) is read in growing chunks, and its limit holds too.
    int fds[2];
    if (pipe(fds) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            char chunk[1000];
            memset(chunk, 'z', sizeof chunk);
            for (int i = 0; i < 100; i++)
                if (write(fds[1], chunk, sizeof chunk) < 0) _exit(1);
            _exit(0);
        }
        close(fds[1]);
        char dev[64];
        snprintf(dev, sizeof dev, "/dev/fd/%d", fds[0]);
        CHECK(ordo_read_file(dev, 1000000, &buf, &n) == ORDO_OK && n == 100000);
        if (n == 100000) CHECK(buf[0] == 'z' && buf[99999] == 'z' && buf[100000] == 0);
        free(buf);
        close(fds[0]);
        waitpid(pid, NULL, 0);
    }

    // mkdir -p.
    CHECK(ordo_mkdir_p(tpath("m/a//b/c/"), 0755) == ORDO_OK);
    CHECK(ordo_mkdir_p(tpath("m/a/b/c"), 0755) == ORDO_OK);
    struct stat st;
    CHECK(stat(tpath("m/a/b/c"), &st) == 0 && S_ISDIR(st.st_mode));
    s = ordo_mkdir_p(tpath("plainfile/sub"), 0755);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "plainfile"));
}

// A write that fails midway (here: the file size limit, as a full disk would) leaves the old
// file untouched and no temporary behind.
static void test_atomic_failure_keeps_old(void) {
    const char *p = tpath("keep.safetensors");
    float old[4] = {1, 2, 3, 4};
    ordo_st_write t = {"w", old, 1, {4}};
    CHECK(ordo_safetensors_write(p, &t, 1, NULL, NULL, 0) == ORDO_OK);
    size_t n0;
    char *before = slurp(p, &n0);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(3);
        enum { N = 1 << 18 };
        float *big = calloc(N, sizeof(float));
        ordo_st_write tb = {"w", big, 1, {N}};
        ordo_status s = ordo_safetensors_write(p, &tb, 1, NULL, NULL, 0);
        fprintf(stderr, "expected failure: %s\n", ordo_error_message());
        _exit(s == ORDO_ERR_IO && has(ordo_error_message(), p) &&
                      has(ordo_error_message(), "File too large")
                  ? 0
                  : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    size_t n1;
    char *after = slurp(p, &n1);
    CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0);
    CHECK(count_tmp_files(tmpdir) == 0);
    free(before);
    free(after);
}

// SIGKILL at a random moment while a process rewrites a checkpoint in a loop: the final name
// always holds a complete, valid file (old or new), never a torn one.
static void test_kill_mid_write(void) {
    enum { N = 1 << 20 }; // 4 MiB per file
    const char *p = tpath("kill.safetensors");
    float *v = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) v[i] = 1.0f;
    ordo_st_write t = {"w", v, 1, {N}};
    const char *keys[] = {"step"}, *vals[] = {"1"};
    CHECK(ordo_safetensors_write(p, &t, 1, keys, vals, 1) == ORDO_OK);
    ordo_rng r;
    ordo_rng_seed(&r, (uint64_t)time(NULL));
    int torn_tmp = 0;
    for (int round = 0; round < 6; round++) {
        pid_t pid = fork();
        if (pid == 0) {
            for (int k = 2;; k++) {
                for (int i = 0; i < N; i++) v[i] = (float)k;
                char step[16];
                snprintf(step, sizeof step, "%d", k);
                const char *sv[] = {step};
                ordo_safetensors_write(p, &t, 1, keys, sv, 1);
            }
        }
        struct timespec ts = {0, (long)(2 + ordo_rng_below(&r, 60)) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", p, (long)pid);
        torn_tmp += access(tmp, F_OK) == 0; // killed mid-write: its temporary is left over
        unlink(tmp);
        ordo_safetensors *f = NULL;
        ordo_status s = ordo_safetensors_open(p, &f);
        CHECK_MSG(s == ORDO_OK, "round %d: %s", round, ordo_error_message());
        if (!f) continue;
        int shp[] = {N};
        float *got = malloc(N * sizeof(float));
        CHECK(ordo_safetensors_read_f32(f, "w", shp, 1, got) == ORDO_OK);
        const char *step = ordo_safetensors_meta(f, "step");
        int consistent = step != NULL;
        for (int i = 0; i < N && consistent; i++) consistent = got[i] == (float)atoi(step);
        CHECK_MSG(consistent, "round %d: torn checkpoint (step %s)", round, step ? step : "?");
        free(got);
        ordo_safetensors_close(f);
    }
    printf("test_kill_mid_write: %d of 6 kills landed inside a write\n", torn_tmp);
    free(v);
}

// ---- helper modes for the Python cross-check (tests/parity/test_safetensors_python.sh)

// The sample st_check.py expects; keep the two in sync.
static int write_sample(const char *path) {
    float wte[20], bias[12], lnf[4] = {1.0f, -0.0f, INFINITY, 1e-45f}, sc = 3.5f;
    for (int i = 0; i < 20; i++) wte[i] = (float)(i - 7) * 0.125f;
    for (int i = 0; i < 12; i++) bias[i] = (float)(1.0 / (i + 1));
    ordo_st_write ts[] = {
        {"wte.weight", wte, 2, {5, 4}}, {"h.0.attn.c_attn.bias", bias, 1, {12}},
        {"ln_f.weight", lnf, 1, {4}},   {"scalar", &sc, 0, {0}},
        {"empty", NULL, 2, {0, 3}},
    };
    const char *keys[] = {"format", "step", "config", "note"};
    const char *vals[] = {"pt", "200", "{\"n_embd\": 4, \"pos\": \"rope\"}",
                          "tab\there \"q\" back\\slash caf\xc3\xa9 \xe2\x9c\x93 \x01"};
    if (ordo_safetensors_write(path, ts, 5, keys, vals, 4) != ORDO_OK) {
        fprintf(stderr, "%s\n", ordo_error_message());
        return 1;
    }
    return 0;
}

// Reads the file st_check.py writes the way the reference does (mixed dtypes).
static int check_sample(const char *path) {
    ordo_safetensors *f;
    if (ordo_safetensors_open(path, &f) != ORDO_OK) {
        fprintf(stderr, "%s\n", ordo_error_message());
        return 1;
    }
    // The reference orders by dtype, descending in its enum order, then by name.
    const char *order[] = {"d.i64", "g.f64",  "a.f32", "h.f32", "z.f32",
                           "i.i32", "c.bf16", "b.f16", "f.u8",  "e.bool"};
    CHECK(ordo_safetensors_count(f) == 10);
    for (int i = 0; i < 10 && i < ordo_safetensors_count(f); i++)
        CHECK_MSG(!strcmp(ordo_safetensors_at(f, i)->name, order[i]), "position %d: %s, want %s", i,
                  ordo_safetensors_at(f, i)->name, order[i]);
    float a[6];
    int sa[] = {2, 3};
    CHECK(ordo_safetensors_read_f32(f, "a.f32", sa, 2, a) == ORDO_OK);
    for (int i = 0; i < 6; i++) CHECK(a[i] == (float)i * 0.5f - 1.0f);
    float z[4];
    int sz[] = {4};
    CHECK(ordo_safetensors_read_f32(f, "z.f32", sz, 1, z) == ORDO_OK);
    CHECK(z[0] == 1e-3f && z[1] == -2.5f && z[2] == 1e30f && z[3] == 0.1f);
    int sh[] = {0};
    CHECK(ordo_safetensors_read_f32(f, "h.f32", sh, 1, z) == ORDO_OK);
    int sb[] = {3};
    CHECK(ordo_safetensors_read_f32(f, "b.f16", sb, 1, z) == ORDO_ERR_FORMAT);
    CHECK(has(ordo_error_message(), "tensor b.f16 has dtype F16, expected F32"));
    const ordo_st_tensor *t = ordo_safetensors_find(f, "d.i64");
    int64_t d[2];
    CHECK(t && t->dtype == ORDO_DTYPE_I64 && t->nbytes == 16);
    if (t) memcpy(d, ordo_safetensors_data(f, t), 16);
    CHECK(t && d[0] == -3 && d[1] == (int64_t)1 << 40);
    t = ordo_safetensors_find(f, "c.bf16");
    CHECK(t && t->dtype == ORDO_DTYPE_BF16 && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 2);
    if (t) {
        uint16_t bf[4];
        memcpy(bf, ordo_safetensors_data(f, t), 8);
        uint32_t u = (uint32_t)bf[3] << 16; // bf16 of 2.0 is exactly 0x4000
        float x;
        memcpy(&x, &u, 4);
        CHECK(x == 2.0f);
    }
    t = ordo_safetensors_find(f, "i.i32");
    CHECK(t && t->ndim == 0 && t->nbytes == 4);
    t = ordo_safetensors_find(f, "e.bool");
    CHECK(t && t->dtype == ORDO_DTYPE_BOOL && t->nbytes == 3);
    CHECK(ordo_safetensors_meta(f, "source") &&
          !strcmp(ordo_safetensors_meta(f, "source"), "python"));
    ordo_safetensors_close(f);
    TEST_MAIN_END();
}

static int write_bad(const char *dir) {
    char p[1024];
    for (int i = 0; i < NBAD; i++) {
        snprintf(p, sizeof p, "%s/%s_%s.safetensors", dir,
                 bad_cases[i].ref_rejects ? "bad" : "strict", bad_cases[i].label);
        make_case(p, &bad_cases[i]);
    }
    for (int i = 0; i < NOK; i++) {
        snprintf(p, sizeof p, "%s/ok_%s.safetensors", dir, ok_cases[i].label);
        make_case(p, &ok_cases[i]);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--write-sample")) return write_sample(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--check-sample")) return check_sample(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--write-bad")) return write_bad(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: %s [--write-sample PATH | --check-sample PATH | --write-bad DIR]\n",
                argv[0]);
        return 2;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ordo_st_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_golden();
    test_round_trip();
    test_read_f32_errors();
    test_bad_files();
    test_no_huge_allocation();
    test_fuzz();
    test_write_rejects();
    test_fileio();
    test_atomic_failure_keeps_old();
    test_kill_mid_write();
    rm_rf(tmpdir);
    TEST_MAIN_END();
}
