// Token files (see tokfile.h): the header, a checked memory-mapped reader, and a streaming
// writer that packs ids little-endian and hashes them as they go.
//
// Deliberately not here: tokenizing (tokenizer.c feeds the writer), converting ids to int32
// (the dataset reads 16-bit ids as they are; run/rundata.c widens only the validation split).
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/tokfile.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 0
#else
#define HOST_LITTLE_ENDIAN 1
#endif

// Ids packed per write: 64 Ki of them, 128 or 256 KiB.
#define WRITE_IDS 65536

int ordo_tokfile_width(int vocab_size) {
    return vocab_size <= 65535 ? 2 : 4;
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> 8 * i);
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

ordo_status ordo_tokfile_probe(const char *path, int *is_tokfile) {
    *is_tokfile = 0;
    unsigned char magic[8];
    size_t got;
    ordo_status s = ordo_read_head(path, magic, sizeof magic, &got);
    if (s) return s;
    *is_tokfile = ends_with(path, ".bin") ||
                  (got == sizeof magic && memcmp(magic, ORDO_TOKFILE_MAGIC, sizeof magic) == 0);
    return ORDO_OK;
}

// Parses and checks a header of `len` bytes (at least ORDO_TOKFILE_HEADER for a good one).
static ordo_status parse_header(const char *path, const unsigned char *p, size_t len,
                                ordo_tokfile_header *h) {
    memset(h, 0, sizeof *h);
    if (len < 8 || memcmp(p, ORDO_TOKFILE_MAGIC, 8) != 0)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: not an ordo token file (bad magic: it does not start with \"%s\"; "
                          "make one with 'ordo tokenize --out FILE.bin TEXT', or name a text "
                          "file without .bin)",
                          path, ORDO_TOKFILE_MAGIC);
    if (len < ORDO_TOKFILE_HEADER)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: truncated header: %zu bytes, a token file's header is %d", path, len,
                          ORDO_TOKFILE_HEADER);
    h->version = get32(p + 8);
    h->width = get32(p + 12);
    h->vocab_size = get32(p + 16);
    uint32_t hsize = get32(p + 20);
    h->count = get64(p + 24);
    h->hash = get64(p + 32);
    if (h->version != ORDO_TOKFILE_VERSION)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: token file version %u, this ordo reads version %d (made by "
                          "another ordo?)",
                          path, h->version, ORDO_TOKFILE_VERSION);
    if (h->vocab_size < 1 || h->vocab_size > INT32_MAX)
        return ordo_error(ORDO_ERR_FORMAT, "%s: vocab size %u in the header, expected 1..%d", path,
                          h->vocab_size, INT32_MAX);
    if (h->width != (uint32_t)ordo_tokfile_width((int)h->vocab_size))
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: ids of %u bytes in the header, expected %d for a vocabulary "
                          "of %u",
                          path, h->width, ordo_tokfile_width((int)h->vocab_size), h->vocab_size);
    if (hsize != ORDO_TOKFILE_HEADER)
        return ordo_error(ORDO_ERR_FORMAT, "%s: header size %u in the header, expected %d", path,
                          hsize, ORDO_TOKFILE_HEADER);
    const unsigned char *name = p + 40;
    size_t k = 0;
    while (k < ORDO_TOKFILE_NAME && name[k] >= 0x21 && name[k] <= 0x7e) k++;
    int padded = k > 0;
    for (size_t i = k; i < ORDO_TOKFILE_NAME; i++) padded &= name[i] == 0;
    if (!padded)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: the tokenizer name in the header (bytes 40..55) is not "
                          "NUL-padded ASCII",
                          path);
    memcpy(h->tokenizer, name, k);
    h->tokenizer[k] = 0;
    for (int i = 56; i < ORDO_TOKFILE_HEADER; i++)
        if (p[i])
            return ordo_error(ORDO_ERR_FORMAT, "%s: reserved header byte %d is %u, expected 0",
                              path, i, p[i]);
    return ORDO_OK;
}

ordo_status ordo_tokfile_read_header(const char *path, ordo_tokfile_header *h) {
    memset(h, 0, sizeof *h);
    unsigned char buf[ORDO_TOKFILE_HEADER];
    size_t got;
    ordo_status s = ordo_read_head(path, buf, sizeof buf, &got);
    return s ? s : parse_header(path, buf, got, h);
}

// Checks every id of f against its vocab size and hashes them: one pass.
static ordo_status check_ids(const char *path, ordo_tokfile *f) {
    const ordo_tokfile_header *h = &f->h;
    const unsigned char *p = f->ids;
    uint64_t n = h->count, bad = UINT64_MAX;
    uint32_t bad_id = 0;
    ordo_hasher hs;
    ordo_hasher_init(&hs);
    // in blocks, so that the hash and the range check read the same bytes while they are hot
    const uint64_t block = 1 << 16;
    for (uint64_t i = 0; i < n; i += block) {
        uint64_t m = n - i < block ? n - i : block;
        if (bad == UINT64_MAX) {
            if (h->width == 2) {
                const uint16_t *v = (const uint16_t *)p + i;
                uint16_t top = 0;
                for (uint64_t j = 0; j < m; j++) top = v[j] > top ? v[j] : top;
                if (top >= h->vocab_size)
                    for (uint64_t j = 0; j < m && bad == UINT64_MAX; j++)
                        if (v[j] >= h->vocab_size) bad = i + j, bad_id = v[j];
            } else {
                const uint32_t *v = (const uint32_t *)p + i;
                uint32_t top = 0;
                for (uint64_t j = 0; j < m; j++) top = v[j] > top ? v[j] : top;
                if (top >= h->vocab_size)
                    for (uint64_t j = 0; j < m && bad == UINT64_MAX; j++)
                        if (v[j] >= h->vocab_size) bad = i + j, bad_id = v[j];
            }
        }
        ordo_hasher_update(&hs, p + i * h->width, (size_t)(m * h->width));
    }
    uint64_t got = ordo_hasher_digest(&hs);
    if (got != h->hash) {
        char want_hex[17], got_hex[17];
        ordo_hash_hex(h->hash, want_hex);
        ordo_hash_hex(got, got_hex);
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: the ids do not match the header's hash (xxh3 %s, header says "
                          "%s): the file is damaged; tokenize the text again",
                          path, got_hex, want_hex);
    }
    if (bad != UINT64_MAX)
        return ordo_error(ORDO_ERR_FORMAT,
                          "%s: token id %u at index %llu is not below the vocab size %u of "
                          "the header",
                          path, bad_id, (unsigned long long)bad, h->vocab_size);
    return ORDO_OK;
}

ordo_status ordo_tokfile_open(const char *path, ordo_tokfile *f) {
    memset(f, 0, sizeof *f);
    if (!HOST_LITTLE_ENDIAN)
        return ordo_error(ORDO_ERR_STATE,
                          "%s: token files are little-endian and read in place; this host is "
                          "big-endian",
                          path);
    ordo_status s = ordo_map_file(path, &f->map);
    if (s) return s;
    const unsigned char *p = f->map.data;
    size_t len = f->map.len;
    if (!s) s = parse_header(path, p, len, &f->h);
    const ordo_tokfile_header *h = &f->h;
    uint64_t payload = len >= ORDO_TOKFILE_HEADER ? len - ORDO_TOKFILE_HEADER : 0;
    if (!s && h->count == 0)
        s = ordo_error(ORDO_ERR_FORMAT, "%s: the token file holds no ids", path);
    if (!s && (h->count > payload / h->width || h->count * h->width != payload)) {
        // the count of a damaged header may overflow count * width: compare by division
        if (h->count > payload / h->width)
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: truncated payload: the header says %llu ids of %u bytes, the "
                           "file holds %llu bytes of ids (%llu ids)",
                           path, (unsigned long long)h->count, h->width,
                           (unsigned long long)payload, (unsigned long long)(payload / h->width));
        else
            s = ordo_error(ORDO_ERR_FORMAT,
                           "%s: %llu bytes after the %llu ids the header announces (not a token "
                           "file as ordo tokenize writes it, or damaged)",
                           path, (unsigned long long)(payload - h->count * h->width),
                           (unsigned long long)h->count);
    }
    if (!s) {
        f->ids = p + ORDO_TOKFILE_HEADER;
        f->file_bytes = len;
        s = check_ids(path, f);
    }
    if (s) ordo_tokfile_close(f);
    return s;
}

void ordo_tokfile_close(ordo_tokfile *f) {
    ordo_unmap_file(&f->map);
    memset(f, 0, sizeof *f);
}

// ---- writing

static ordo_status write_error(ordo_tokfile_writer *w, const char *what) {
    return ordo_error(ORDO_ERR_IO, "%s: %s: %s", w->path, what, strerror(errno));
}

// The header for the ids written so far.
static void pack_header(const ordo_tokfile_writer *w, unsigned char *p) {
    memset(p, 0, ORDO_TOKFILE_HEADER);
    memcpy(p, ORDO_TOKFILE_MAGIC, 8);
    put32(p + 8, ORDO_TOKFILE_VERSION);
    put32(p + 12, (uint32_t)w->width);
    put32(p + 16, (uint32_t)w->vocab_size);
    put32(p + 20, ORDO_TOKFILE_HEADER);
    put64(p + 24, w->count);
    put64(p + 32, ordo_hasher_digest(&w->hash));
    memcpy(p + 40, w->tokenizer, strlen(w->tokenizer));
}

// The temporary files "<path>.tmp.<pid>" that killed writers of path left (a Ctrl-C before
// the signal cleanup existed, a kill -9): 7-29 MB each for a real corpus.
static void remove_dead_tmp_of(const char *path) {
    char dir[ORDO_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? path + (slash - dir) + 1 : path;
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    ordo_remove_dead_tmp(dir, base);
}

ordo_status ordo_tokfile_create(ordo_tokfile_writer *w, const char *path, const char *tokenizer,
                                int vocab_size) {
    memset(w, 0, sizeof *w);
    size_t k = strlen(tokenizer);
    if (k == 0 || k > ORDO_TOKFILE_NAME)
        return ordo_error(ORDO_ERR_ARG, "%s: tokenizer name '%s', expected 1..%d bytes", path,
                          tokenizer, ORDO_TOKFILE_NAME);
    if (vocab_size < 1)
        return ordo_error(ORDO_ERR_ARG, "%s: vocab size %d, expected 1..%d", path, vocab_size,
                          INT32_MAX);
    ordo_status s = ordo_path(w->path, sizeof w->path, "%s", path);
    if (!s) s = ordo_path(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid());
    if (s) return s;
    remove_dead_tmp_of(path);
    memcpy(w->tokenizer, tokenizer, k + 1);
    w->width = ordo_tokfile_width(vocab_size);
    w->vocab_size = vocab_size;
    ordo_hasher_init(&w->hash);
    // O_NOFOLLOW: not through a symlink planted under the temporary name
    int fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || !(w->f = fdopen(fd, "wb"))) {
        s = ordo_error(ORDO_ERR_IO, "%s: cannot create temporary file %s: %s", path, w->tmp,
                       strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(w->tmp);
        }
        w->tmp[0] = 0;
        return s;
    }
    unsigned char head[ORDO_TOKFILE_HEADER];
    pack_header(w, head); // a placeholder: count 0 until finish
    if (fwrite(head, 1, sizeof head, w->f) != sizeof head) {
        s = write_error(w, "write failed");
        ordo_tokfile_abort(w);
        return s;
    }
    w->buf = ordo_xmalloc((size_t)WRITE_IDS * (size_t)w->width);
    return ORDO_OK;
}

// Writes the packed ids and adds them to the hash.
static ordo_status flush_ids(ordo_tokfile_writer *w) {
    if (!w->used) return ORDO_OK;
    size_t n = w->used * (size_t)w->width;
    ordo_hasher_update(&w->hash, w->buf, n);
    w->used = 0;
    if (fwrite(w->buf, 1, n, w->f) != n) return write_error(w, "write failed");
    return ORDO_OK;
}

ordo_status ordo_tokfile_append(ordo_tokfile_writer *w, const int32_t *ids, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= w->vocab_size)
            return ordo_error(ORDO_ERR_ARG, "%s: token id %d (index %llu) is not in 0..%d", w->path,
                              (int)ids[i], (unsigned long long)(w->count + i), w->vocab_size - 1);
        unsigned char *p = w->buf + w->used * (size_t)w->width;
        uint32_t v = (uint32_t)ids[i];
        p[0] = (unsigned char)v;
        p[1] = (unsigned char)(v >> 8);
        if (w->width == 4) p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
        if (++w->used == WRITE_IDS) {
            ordo_status s = flush_ids(w);
            if (s) return s;
        }
    }
    w->count += n;
    return ORDO_OK;
}

// fsyncs the directory holding path, so that the rename in it is on disk.
static ordo_status sync_dir(const char *path) {
    char dir[ORDO_PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == path)
        strcpy(dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ordo_error(ORDO_ERR_IO, "%s: written, but fsync of directory %s failed: %s", path,
                          dir, strerror(e));
    }
    close(fd);
    return ORDO_OK;
}

ordo_status ordo_tokfile_finish(ordo_tokfile_writer *w) {
    ordo_status s = flush_ids(w);
    unsigned char head[ORDO_TOKFILE_HEADER];
    pack_header(w, head);
    if (!s && (fseek(w->f, 0, SEEK_SET) != 0 || fwrite(head, 1, sizeof head, w->f) != sizeof head))
        s = write_error(w, "write failed");
    if (!s && fflush(w->f) != 0) s = write_error(w, "write failed");
    if (!s && fsync(fileno(w->f)) != 0) s = write_error(w, "fsync failed");
    if (fclose(w->f) != 0 && !s) s = write_error(w, "close failed"); // NFS reports late
    w->f = NULL;
    if (!s && rename(w->tmp, w->path) != 0)
        s = write_error(w, "cannot rename the temporary file over it");
    if (s) {
        ordo_tokfile_abort(w);
        return s;
    }
    w->tmp[0] = 0; // it is the file now
    ordo_tokfile_abort(w);
    return sync_dir(w->path);
}

void ordo_tokfile_abort(ordo_tokfile_writer *w) {
    if (w->f) fclose(w->f);
    w->f = NULL;
    if (w->tmp[0]) unlink(w->tmp);
    w->tmp[0] = 0;
    free(w->buf);
    w->buf = NULL;
}
