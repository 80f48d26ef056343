// Token files and the pieces under them: the writer and the checked reader round-trip ids of
// both widths (16-bit for vocabularies up to 65535, 32-bit past it) and refuse damaged files
// with messages naming what is wrong; a 16-bit dataset gives the windows of the int32 one;
// regular-file checks refuse a FIFO and /dev/zero without blocking; the streaming encoder's
// pieces join to the whole input's ids for the byte tokenizer and for a small gpt2-style
// vocabulary (cut points of the GPT-2 pattern, checked by brute force on tricky text).
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/bpe.h"
#include "data/dataset.h"
#include "data/tokenizer.h"
#include "data/tokfile.h"
#include "sys/fileio.h"
#include "tests/test.h"

static char tmpdir[] = "/tmp/ordo_test_tokfile_XXXXXX";

static const char *tpath(const char *name) {
    static char buf[4][512];
    static int k;
    char *b = buf[k++ & 3];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

static int has(const char *s, const char *sub) {
    return strstr(s, sub) != NULL;
}

// Writes ids[0..n) to path in pieces of 7 (so that appends cross the writer's buffer).
static ordo_status write_tokfile(const char *path, const char *tok, int V, const int32_t *ids,
                                 size_t n) {
    ordo_tokfile_writer w;
    ordo_status s = ordo_tokfile_create(&w, path, tok, V);
    for (size_t i = 0; !s && i < n; i += 7)
        s = ordo_tokfile_append(&w, ids + i, n - i < 7 ? n - i : 7);
    if (!s) return ordo_tokfile_finish(&w);
    ordo_tokfile_abort(&w);
    return s;
}

// Overwrites bytes at off of path.
static void patch(const char *path, long off, const void *p, size_t n) {
    int fd = open(path, O_WRONLY);
    if (fd >= 0) {
        if (pwrite(fd, p, n, off) != (ssize_t)n) CHECK(0);
        close(fd);
    }
}

static void copy_file(const char *from, const char *to) {
    char *buf;
    size_t n;
    CHECK(ordo_read_file(from, 1 << 26, &buf, &n) == ORDO_OK);
    FILE *f = fopen(to, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    free(buf);
}

static void test_roundtrip(void) {
    // 16-bit: 200000 ids (several writer buffers), every value of a 50257 vocabulary
    size_t n = 200000;
    int32_t *ids = malloc(n * sizeof *ids);
    for (size_t i = 0; i < n; i++) ids[i] = (int32_t)((i * 7919) % 50257);
    CHECK(write_tokfile(tpath("a.bin"), "gpt2", 50257, ids, n) == ORDO_OK);
    struct stat st;
    CHECK(stat(tpath("a.bin"), &st) == 0 && st.st_size == 64 + 2 * (off_t)n);
    ordo_tokfile f;
    CHECK(ordo_tokfile_open(tpath("a.bin"), &f) == ORDO_OK);
    CHECK(f.h.width == 2 && f.h.vocab_size == 50257 && f.h.count == n &&
          f.file_bytes == 64 + 2 * n);
    CHECK(!strcmp(f.h.tokenizer, "gpt2") && f.h.hash == ordo_hash64(f.ids, 2 * n));
    int same = 1;
    for (size_t i = 0; i < n; i++) same &= ((const uint16_t *)f.ids)[i] == ids[i];
    CHECK(same);
    // a dataset over the 16-bit stream gives the windows of the int32 one
    ordo_dataset d16, d32;
    CHECK(ordo_dataset_init16(&d16, f.ids, n, 13, 5) == ORDO_OK);
    CHECK(ordo_dataset_init(&d32, ids, n, 13, 5) == ORDO_OK && d16.count == d32.count);
    int32_t a[13], b[13], c[13], e[13];
    same = 1;
    for (size_t i = 0; i < d16.count; i += 997) {
        ordo_dataset_get(&d16, i, a, b);
        ordo_dataset_get(&d32, i, c, e);
        same &= !memcmp(a, c, sizeof a) && !memcmp(b, e, sizeof b);
    }
    CHECK(same);
    ordo_tokfile_header h;
    CHECK(ordo_tokfile_read_header(tpath("a.bin"), &h) == ORDO_OK && h.count == n);
    int is;
    CHECK(ordo_tokfile_probe(tpath("a.bin"), &is) == ORDO_OK && is);
    ordo_tokfile_close(&f);
    // 32-bit: a vocabulary past 65535
    for (size_t i = 0; i < 1000; i++) ids[i] = (int32_t)(i * 131 % 100000);
    CHECK(write_tokfile(tpath("w.tok"), "big", 100000, ids, 1000) == ORDO_OK);
    CHECK(ordo_tokfile_probe(tpath("w.tok"), &is) == ORDO_OK && is); // by its magic
    CHECK(ordo_tokfile_open(tpath("w.tok"), &f) == ORDO_OK);
    CHECK(f.h.width == 4 && f.h.count == 1000 && !memcmp(f.ids, ids, 1000 * sizeof *ids));
    ordo_tokfile_close(&f);
    // the writer refuses an id out of range, and leaves nothing behind
    ordo_tokfile_writer w;
    CHECK(ordo_tokfile_create(&w, tpath("c.bin"), "byte", 256) == ORDO_OK);
    int32_t badid[2] = {5, 256};
    ordo_status s = ordo_tokfile_append(&w, badid, 2);
    CHECK(s == ORDO_ERR_ARG && has(ordo_error_message(), "token id 256 (index 1)"));
    ordo_tokfile_abort(&w);
    CHECK(access(tpath("c.bin"), F_OK) != 0);
    CHECK(ordo_tokfile_create(&w, tpath("c.bin"), "a-name-of-17-byte", 256) == ORDO_ERR_ARG);
    // a text file is not a token file
    FILE *t = fopen(tpath("t.txt"), "w");
    fputs("hello", t);
    fclose(t);
    CHECK(ordo_tokfile_probe(tpath("t.txt"), &is) == ORDO_OK && !is);
    free(ids);
}

// Opens a copy of a.bin patched at off with p[n]; returns the message of the refusal.
static const char *refusal(const char *name, long off, const void *p, size_t n) {
    copy_file(tpath("a.bin"), tpath(name));
    patch(tpath(name), off, p, n);
    ordo_tokfile f;
    ordo_status s = ordo_tokfile_open(tpath(name), &f);
    CHECK_MSG(s == ORDO_ERR_FORMAT, "%s opened", name);
    return s ? ordo_error_message() : "";
}

static void test_damage(void) {
    CHECK(has(refusal("magic.bin", 0, "ORDOTOK2", 8), "bad magic"));
    uint32_t v2 = 2, w4 = 4, v300 = 300;
    CHECK(has(refusal("version.bin", 8, &v2, 4), "token file version 2"));
    CHECK(has(refusal("width.bin", 12, &w4, 4), "ids of 4 bytes in the header, expected 2"));
    CHECK(has(refusal("name.bin", 44, "\x01", 1), "not NUL-padded ASCII"));
    CHECK(has(refusal("reserved.bin", 60, "\x01", 1), "reserved header byte 60"));
    uint16_t big = 60000;
    CHECK(has(refusal("hash.bin", 64 + 2 * 10, &big, 2), "do not match the header's hash"));
    // an id past the vocabulary with a hash that matches: the header's vocab made smaller
    const char *m = refusal("vocab.bin", 16, &v300, 4);
    CHECK(has(m, "token id ") && has(m, "is not below the vocab size 300"));
    // truncated payload, bytes past the ids, a header cut short, nothing at all
    copy_file(tpath("a.bin"), tpath("short.bin"));
    CHECK(truncate(tpath("short.bin"), 64 + 2 * 1000 + 1) == 0);
    ordo_tokfile f;
    CHECK(ordo_tokfile_open(tpath("short.bin"), &f) == ORDO_ERR_FORMAT &&
          has(ordo_error_message(), "truncated payload: the header says 200000 ids"));
    copy_file(tpath("a.bin"), tpath("long.bin"));
    CHECK(truncate(tpath("long.bin"), 64 + 2 * 200000 + 3) == 0);
    CHECK(ordo_tokfile_open(tpath("long.bin"), &f) == ORDO_ERR_FORMAT &&
          has(ordo_error_message(), "3 bytes after the 200000 ids"));
    CHECK(truncate(tpath("long.bin"), 40) == 0);
    CHECK(ordo_tokfile_open(tpath("long.bin"), &f) == ORDO_ERR_FORMAT &&
          has(ordo_error_message(), "truncated header: 40 bytes"));
    CHECK(truncate(tpath("long.bin"), 0) == 0);
    CHECK(ordo_tokfile_open(tpath("long.bin"), &f) == ORDO_ERR_FORMAT &&
          has(ordo_error_message(), "bad magic"));
    uint64_t zero = 0;
    CHECK(has(refusal("empty.bin", 24, &zero, 8), "holds no ids"));
}

static void test_regular_files(void) {
    int fd;
    size_t size;
    CHECK(mkfifo(tpath("fifo"), 0600) == 0);
    // no writer: a blocking open would never return
    ordo_status s = ordo_open_regular(tpath("fifo"), &fd, &size);
    CHECK(s == ORDO_ERR_IO &&
          has(ordo_error_message(), "fifo: is a FIFO, expected a regular file"));
    char *buf;
    size_t n;
    s = ordo_read_regular_file("/dev/zero", 1 << 20, &buf, &n);
    CHECK(s == ORDO_ERR_IO &&
          has(ordo_error_message(), "/dev/zero: is a character device, expected a regular file"));
    s = ordo_read_regular_file(tmpdir, 100, &buf, &n);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "is a directory, expected a regular file"));
    int is;
    CHECK(ordo_tokfile_probe(tpath("fifo"), &is) == ORDO_ERR_IO);
    ordo_tokfile f;
    CHECK(ordo_tokfile_open("/dev/zero", &f) == ORDO_ERR_IO);
    // the size limit is checked before reading: a sparse 3 GiB file is refused at once
    int z = open(tpath("sparse"), O_WRONLY | O_CREAT, 0600);
    CHECK(z >= 0 && ftruncate(z, (off_t)3 << 30) == 0);
    close(z);
    s = ordo_read_regular_file(tpath("sparse"), 1000, &buf, &n);
    CHECK(s == ORDO_ERR_IO && has(ordo_error_message(), "more than the limit of 1000 bytes"));
    ordo_mapped_file m;
    CHECK(ordo_map_file(tpath("sparse"), &m) == ORDO_OK && m.len == (size_t)3 << 30);
    ordo_unmap_file(&m);
    unlink(tpath("sparse"));
}

// The ids a sink receives, gathered.
typedef struct gathered {
    int32_t *ids;
    size_t n, cap;
} gathered;

static ordo_status gather(void *ctx, const int32_t *ids, size_t n) {
    gathered *g = ctx;
    if (g->n + n > g->cap) g->ids = realloc(g->ids, (g->cap = 2 * (g->n + n) + 16) * sizeof *ids);
    memcpy(g->ids + g->n, ids, n * sizeof *ids);
    g->n += n;
    return ORDO_OK;
}

// Encodes text through a file in pieces of `chunk` and compares with the whole-text ids.
static int stream_matches(ordo_tokenizer *t, const char *text, size_t len, size_t chunk,
                          int special) {
    FILE *f = fopen(tpath("in.txt"), "wb");
    fwrite(text, 1, len, f);
    fclose(f);
    int32_t *whole;
    size_t n;
    if (ordo_tokenizer_encode(t, text, len, special, &whole, &n)) return 0;
    gathered g = {0};
    int fd = open(tpath("in.txt"), O_RDONLY);
    uint64_t bytes;
    ordo_status s = ordo_tokenizer_encode_fd(t, fd, "in.txt", chunk, special, gather, &g, &bytes);
    close(fd);
    int ok = !s && bytes == len && g.n == n && (n == 0 || !memcmp(g.ids, whole, n * sizeof *whole));
    free(whole);
    free(g.ids);
    return ok;
}

// A gpt2-style vocabulary of all 256 bytes and a few merges (as the fuzz harness builds).
static ordo_tokenizer *small_gpt2(void) {
    // bytes_to_unicode: printable bytes stand for themselves, the others map to U+0100..
    char *enc = malloc(1 << 16), *key = malloc(64);
    size_t k = 0;
    int extra = 0;
    k += (size_t)sprintf(enc + k, "{");
    // (whitespace pairs too: a pre-token boundary in the wrong place changes their ids)
    const char *merges[] = {"t h", "th e", "a n", "i n", "Ġ t", "Ġt he",
                            "1 2", "' s",  "Ġ Ġ", "Ċ Ċ", "a a"};
    const char *merged[] = {"th", "the", "an", "in", "Ġt", "Ġthe", "12", "'s", "ĠĠ", "ĊĊ", "aa"};
    int nm = (int)(sizeof merges / sizeof *merges);
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
        unsigned cp = printable ? (unsigned)b : 256u + (unsigned)extra++;
        size_t m = 0;
        if (cp == '"' || cp == '\\') key[m++] = '\\';
        if (cp < 0x80)
            key[m++] = (char)cp;
        else
            key[m++] = (char)(0xC0 | cp >> 6), key[m++] = (char)(0x80 | (cp & 0x3F));
        key[m] = 0;
        k += (size_t)sprintf(enc + k, "\"%s\": %d, ", key, b);
    }
    for (int i = 0; i < nm; i++) k += (size_t)sprintf(enc + k, "\"%s\": %d, ", merged[i], 256 + i);
    k += (size_t)sprintf(enc + k, "\"<|endoftext|>\": %d}", 256 + nm);
    char bpe[512];
    size_t bk = (size_t)sprintf(bpe, "#version: 0.2\n");
    for (int i = 0; i < nm; i++) bk += (size_t)sprintf(bpe + bk, "%s\n", merges[i]);
    ordo_tokenizer *t = NULL;
    ordo_status s = ordo_tokenizer_load_gpt2_mem(enc, k, "enc", bpe, bk, "bpe", 256 + nm + 1, &t);
    CHECK_MSG(s == ORDO_OK, "%s", ordo_error_message());
    free(enc);
    free(key);
    return t;
}

static void test_streaming(void) {
    ordo_tokenizer *byte;
    CHECK(ordo_tokenizer_load(ORDO_TOK_BYTE, NULL, &byte) == ORDO_OK);
    ordo_tokenizer *g = small_gpt2();
    // text that is hard to cut: whitespace runs before words (the (?!\S) lookahead), \r\n,
    // contractions, digits next to letters, Unicode spaces and letters, ill-formed UTF-8,
    // a long stretch with no safe point, special tokens
    static const char *const atoms[] = {"the",
                                        " the",
                                        "  ",
                                        "\n\n",
                                        "\r\n",
                                        "\t",
                                        " ",
                                        "12",
                                        "x9",
                                        "'s",
                                        "'",
                                        "in",
                                        ".",
                                        ",",
                                        "\xc2\xa0",
                                        "\xe3\x80\x80",
                                        "caf\xc3\xa9",
                                        "\xff",
                                        "\xe2\x80",
                                        "<|endoftext|>",
                                        "an",
                                        "0",
                                        "\x0b",
                                        "--",
                                        "\xf0\x9f\x98\x80",
                                        "\n ",
                                        " \n"};
    size_t na = sizeof atoms / sizeof *atoms;
    char *text = malloc(1 << 16);
    uint64_t r = 12345;
    for (int trial = 0; trial < 30; trial++) {
        size_t len = 0;
        for (int i = 0; i < 400; i++) {
            r = r * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *a = atoms[(r >> 33) % na];
            memcpy(text + len, a, strlen(a));
            len += strlen(a);
        }
        if (trial % 5 == 0) { // 3000 bytes with no safe point, in the middle
            memmove(text + len / 2 + 3000, text + len / 2, len - len / 2);
            memset(text + len / 2, 'a', 3000);
            len += 3000;
        }
        for (size_t chunk = 1; chunk <= 4096; chunk *= 4) {
            CHECK_MSG(stream_matches(g, text, len, chunk, trial & 1), "gpt2 trial %d chunk %zu",
                      trial, chunk);
            CHECK_MSG(stream_matches(byte, text, len, chunk, 0), "byte trial %d chunk %zu", trial,
                      chunk);
        }
    }
    int32_t *ids;
    size_t n;
    // the merges work: " the" -> 261, " 12" -> " " + "12", "'s" -> 263
    CHECK(ordo_tokenizer_encode(g, " the 12's", 9, 0, &ids, &n) == ORDO_OK && n == 4 &&
          ids[0] == 261 && ids[1] == ' ' && ids[2] == 262 && ids[3] == 263);
    free(ids);
    // the cut points themselves
    CHECK(ordo_tokenizer_safe_cut(g, "ab cd", 5) == 2);
    CHECK(ordo_tokenizer_safe_cut(g, "abcd12", 6) == 4);
    CHECK(ordo_tokenizer_safe_cut(g, "abcdef", 6) == 0);
    CHECK(ordo_tokenizer_safe_cut(g, "a  b", 4) == 1); // not inside a whitespace run
    CHECK(ordo_tokenizer_safe_cut(byte, "abcdef", 6) == 6);
    // an empty input reads 0 bytes and hands out nothing
    CHECK(stream_matches(g, "", 0, 16, 0));
    free(text);
    ordo_tokenizer_free(g);
    ordo_tokenizer_free(byte);
}

int main(void) {
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_roundtrip();
    test_damage();
    test_regular_files();
    test_streaming();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_MAIN_END();
}
