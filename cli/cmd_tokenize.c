// `ordo tokenize`: text -> ids (whitespace-separated on one line), ids -> text with
// --decode, the number of ids with --count, a token file with --out FILE.bin (data/tokfile.h),
// and JSON Lines in/out with --jsonl (one JSON string per input line, one line of ids per
// string: how the tiktoken parity test feeds thousands of strings through one process).
// Encoding streams: the input is read and encoded in pieces (ordo_tokenizer_encode_fd), so
// memory does not grow with it; --decode and --jsonl read their input whole.
//
// Deliberately not here: any tokenizer logic (data/tokenizer.c), the token file's format
// (data/tokfile.c).
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/tokenizer.h"
#include "data/tokfile.h"
#include "sys/fileio.h"
#include "run/options.h"
#include "cli/commands.h"

// Inputs read whole this long or longer are refused: ordo_tokenizer_encode takes at most
// INT32_MAX bytes.
#define MAX_INPUT ((size_t)1 << 31)

// Text read and encoded at a time when streaming (--chunk-bytes).
#define DEFAULT_CHUNK (1 << 20)

static const char *input_name(const char *path) {
    return !path || strcmp(path, "-") == 0 ? "<stdin>" : path;
}

// Opens FILE (stdin for NULL or "-"): a regular file or a pipe. A device (/dev/zero, which
// never ends), a directory or a socket is refused; a FIFO is opened blocking, to wait for its
// writer as `cat` does. *st receives its fstat (of stdin too).
static ordo_status open_input(const char *path, int *fd, struct stat *st) {
    *fd = -1;
    if (!path || strcmp(path, "-") == 0) {
        if (fstat(STDIN_FILENO, st) != 0) memset(st, 0, sizeof *st);
        *fd = STDIN_FILENO;
        return ORDO_OK;
    }
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); // (no wait for a FIFO's writer yet)
    if (f < 0) return ordo_error(ORDO_ERR_IO, "%s: %s", path, strerror(errno));
    if (fstat(f, st) != 0) {
        int e = errno;
        close(f);
        return ordo_error(ORDO_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)) {
        close(f);
        return ordo_error(ORDO_ERR_ARG, "%s: is %s, expected a regular file or a pipe", path,
                          S_ISDIR(st->st_mode)   ? "a directory"
                          : S_ISCHR(st->st_mode) ? "a character device"
                          : S_ISBLK(st->st_mode) ? "a block device"
                                                 : "not a regular file");
    }
    if (S_ISFIFO(st->st_mode)) { // reopen blocking: a read must wait for the writer
        close(f);
        if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            return ordo_error(ORDO_ERR_IO, "%s: %s", path, strerror(errno));
    } else {
        int fl = fcntl(f, F_GETFL);
        if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    }
    *fd = f;
    return ORDO_OK;
}

static void close_input(int fd) {
    if (fd > STDIN_FILENO) close(fd);
}

// Reads the open input whole; *data is malloc'd and NUL-terminated.
static ordo_status read_input(int fd, const char *name, char **data, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = ordo_xmalloc(cap + 1);
    for (;;) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return ordo_error(ORDO_ERR_IO, "%s: read error: %s", name, strerror(e));
        }
        if (got == 0) break;
        n += (size_t)got;
        if (n < cap) continue;
        // bounded: an endless pipe must not grow until the machine runs out
        if (cap >= MAX_INPUT) {
            free(buf);
            return ordo_error(ORDO_ERR_ARG,
                              "%s: %zu bytes or more, too long to tokenize at once (split "
                              "the input, or stream it: --chunk-bytes above 0)",
                              name, MAX_INPUT);
        }
        cap *= 2;
        buf = ordo_xrealloc(buf, cap + 1);
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return ORDO_OK;
}

// Writes ids as decimal text separated by spaces, with a space first unless *first (which
// it clears when it writes an id).
static ordo_status write_ids_part(FILE *f, const int32_t *ids, size_t n, int *first) {
    char buf[1 << 14];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > sizeof buf - 16) {
            fwrite(buf, 1, k, f);
            k = 0;
        }
        char tmp[12];
        int m = 0;
        uint32_t v = (uint32_t)ids[i];
        do tmp[m++] = (char)('0' + v % 10);
        while ((v /= 10));
        if (!*first) buf[k++] = ' ';
        *first = 0;
        while (m) buf[k++] = tmp[--m];
    }
    fwrite(buf, 1, k, f);
    return ferror(f) ? ordo_error(ORDO_ERR_IO, "stdout: write error") : ORDO_OK;
}

// Writes ids as decimal text separated by spaces, then a newline.
static ordo_status write_ids(FILE *f, const int32_t *ids, size_t n) {
    int first = 1;
    ordo_status s = write_ids_part(f, ids, n, &first);
    fputc('\n', f);
    return s ? s : ferror(f) ? ordo_error(ORDO_ERR_IO, "stdout: write error") : ORDO_OK;
}

// Parses whitespace-separated decimal ids; anything else is an error naming the word.
static ordo_status parse_ids(const char *name, char *text, int32_t **ids, size_t *n) {
    size_t cap = 1024, cnt = 0;
    int32_t *out = ordo_xmalloc(cap * sizeof *out);
    const char *ws = " \t\r\n\v\f";
    for (char *w = strtok(text, ws); w; w = strtok(NULL, ws)) {
        char *end;
        errno = 0;
        long long v = strtoll(w, &end, 10);
        if (*end || errno || v < INT32_MIN || v > INT32_MAX) {
            free(out);
            return ordo_error(ORDO_ERR_FORMAT, "%s: id #%zu '%.40s' is not an integer token id",
                              name, cnt + 1, w);
        }
        if (cnt == cap) out = ordo_xrealloc(out, (cap *= 2) * sizeof *out);
        out[cnt++] = (int32_t)v;
    }
    *ids = out;
    *n = cnt;
    return ORDO_OK;
}

// --jsonl: every non-blank line is a JSON string; prints one line of ids for each.
static ordo_status encode_jsonl(ordo_tokenizer *tok, const char *name, char *data, size_t len,
                                int allow_special, int count_only) {
    size_t line = 0, total = 0;
    char *p = data, *end = data + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *e = nl ? nl : end;
        line++;
        size_t n = (size_t)(e - p);
        if (n == 0 || (n == 1 && *p == '\r')) goto next;
        json_error_t jerr;
        json_t *v = json_loadb(p, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (!v || !json_is_string(v)) {
            json_decref(v);
            return ordo_error(ORDO_ERR_FORMAT, "%s: line %zu: expected a JSON string%s%s", name,
                              line, v ? "" : ": ", v ? "" : jerr.text);
        }
        int32_t *ids;
        size_t nids;
        ordo_status s = ordo_tokenizer_encode(tok, json_string_value(v), json_string_length(v),
                                              allow_special, &ids, &nids);
        json_decref(v);
        if (s) return ordo_error_wrap(s, "%s: line %zu", name, line);
        total += nids;
        if (!count_only) s = write_ids(stdout, ids, nids);
        free(ids);
        if (s) return s;
    next:
        p = nl ? nl + 1 : end;
    }
    if (line == 0) return ordo_error(ORDO_ERR_FORMAT, "%s: empty input (no lines)", name);
    if (count_only) printf("%zu\n", total);
    return ORDO_OK;
}

typedef struct tokenize_opts {
    const char *kind_name, *vocab, *out;
    int allow_special, decode, count, jsonl;
    long long chunk;
} tokenize_opts;

static void print_help(const ordo_opt *opts) {
    ordo_options_usage(stdout, "tokenize", "[options] [FILE|-]", opts);
    char dir[ORDO_PATH_MAX];
    const char *now =
        ordo_tokenizer_default_vocab_dir(dir, sizeof dir) ? ordo_error_message() : dir;
    printf("\nReads FILE (or stdin when FILE is '-' or absent) and prints its token ids,\n"
           "whitespace-separated, on one line. --decode reads such ids and writes the\n"
           "bytes they stand for. An empty input is an error. FILE is a regular file or a\n"
           "pipe (a FIFO is waited on, as cat does); a device such as /dev/zero is refused.\n\n"
           "--out FILE.bin writes a token file instead: a 64-byte header (tokenizer, vocab\n"
           "size, count, XXH3 of the ids) and the ids as uint16 (uint32 for vocabularies\n"
           "over 65535), for 'ordo train --data FILE.bin' (docs/data.md has the layout).\n"
           "Encoding streams the input in pieces of --chunk-bytes, cut where the tokenizer\n"
           "splits the same way (ASCII whitespace after a non-space, or a letter next to a\n"
           "digit), so that the ids are those of the whole input and memory stays small.\n\n"
           "gpt2 vocab dir when --vocab is not given: $ORDO_VOCAB_DIR if set, else\n"
           "<dir of the ordo binary>/../.cache/gpt2 if it holds encoder.json, else\n"
           "./.cache/gpt2 (now: %s). data/fetch.sh vocab fills .cache/gpt2.\n",
           now);
}

// The options that exclude each other, and the tokenizer kind.
static ordo_status check_options(const tokenize_opts *o, int npos, ordo_tokenizer_kind *kind) {
    if (npos > 1)
        return ordo_error(ORDO_ERR_ARG,
                          "expected at most one input FILE, got %d (see 'ordo "
                          "tokenize --help')",
                          npos);
    if (o->count && o->decode)
        return ordo_error(ORDO_ERR_ARG, "--count and --decode exclude each other");
    if (o->jsonl && o->decode) return ordo_error(ORDO_ERR_ARG, "--jsonl works for encoding only");
    if (o->out && (o->decode || o->jsonl))
        return ordo_error(ORDO_ERR_ARG, "--out writes the ids of one text: not with --%s",
                          o->decode ? "decode" : "jsonl");
    if (o->out && !*o->out) return ordo_error(ORDO_ERR_ARG, "--out is empty");
    ordo_status s = ordo_tokenizer_parse_kind(o->kind_name, kind);
    if (s) return ordo_error_wrap(s, "--tokenizer");
    if (o->vocab && *kind != ORDO_TOK_GPT2)
        return ordo_error(ORDO_ERR_ARG, "--vocab is for --tokenizer gpt2 only");
    return ORDO_OK;
}

// --decode: the whitespace-separated ids in data, written out as the bytes they stand for.
static ordo_status decode_ids(ordo_tokenizer *tok, const char *name, char *data) {
    int32_t *ids = NULL;
    size_t n = 0;
    ordo_status s = parse_ids(name, data, &ids, &n);
    if (s) return s;
    char *text = NULL;
    size_t tlen;
    if (n == 0)
        s = ordo_error(ORDO_ERR_ARG, "%s: no token ids to decode (only whitespace)", name);
    else if ((s = ordo_tokenizer_decode(tok, ids, n, &text, &tlen)))
        s = ordo_error_wrap(s, "%s", name);
    else {
        fwrite(text, 1, tlen, stdout);
        if (ferror(stdout)) s = ordo_error(ORDO_ERR_IO, "stdout: write error");
    }
    free(text);
    free(ids);
    return s;
}

// Where the ids of a streamed encoding go: stdout as text, a count, or a token file.
typedef struct id_sink {
    int count_only, first;
    uint64_t total;
    ordo_tokfile_writer *file; // --out, or NULL
} id_sink;

static ordo_status take_ids(void *ctx, const int32_t *ids, size_t n) {
    id_sink *k = ctx;
    k->total += n;
    if (k->file) return ordo_tokfile_append(k->file, ids, n);
    if (k->count_only) return ORDO_OK;
    return write_ids_part(stdout, ids, n, &k->first);
}

// Whether --out names the input itself (it would be replaced by its own ids).
static ordo_status check_out(const char *out, const struct stat *in, const char *name) {
    struct stat st;
    if (in->st_ino && stat(out, &st) == 0 && st.st_dev == in->st_dev && st.st_ino == in->st_ino)
        return ordo_error(ORDO_ERR_ARG, "--out %s is the input %s itself", out, name);
    return ORDO_OK;
}

// Ctrl-C (or SIGTERM, SIGHUP) while a token file is written: the handler removes the
// temporary file (unlink is async-signal-safe), then the signal takes its default course.
static char g_tmp[ORDO_PATH_MAX];
static struct sigaction g_old[3];
static const int g_sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void remove_tmp_and_die(int sig) {
    if (g_tmp[0]) unlink(g_tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void guard_tmp(const char *tmp) {
    snprintf(g_tmp, sizeof g_tmp, "%s", tmp);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_tmp_and_die;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++) sigaction(g_sigs[i], &sa, &g_old[i]);
}

static void unguard_tmp(void) {
    for (int i = 0; i < 3; i++) sigaction(g_sigs[i], &g_old[i], NULL);
    g_tmp[0] = 0;
}

// Encodes the open input (streamed in pieces of o->chunk bytes, or read whole when it is 0)
// to stdout, a count or a token file.
static ordo_status encode_input(const tokenize_opts *o, ordo_tokenizer_kind kind,
                                ordo_tokenizer *tok, int fd, const char *name) {
    ordo_tokfile_writer w;
    id_sink k = {.count_only = o->count, .first = 1, .file = o->out ? &w : NULL};
    ordo_status s = ORDO_OK;
    if (o->out && (s = ordo_tokfile_create(&w, o->out, ordo_tokenizer_kind_name(kind),
                                           ordo_tokenizer_vocab_size(tok))))
        return s;
    if (o->out) guard_tmp(w.tmp);
    uint64_t bytes = 0;
    if (o->chunk > 0) {
        s = ordo_tokenizer_encode_fd(tok, fd, name, (size_t)o->chunk, o->allow_special, take_ids,
                                     &k, &bytes);
    } else { // the whole input at once (as before streaming; a reference for the pieces)
        char *data = NULL;
        size_t len = 0;
        int32_t *ids = NULL;
        size_t n = 0;
        s = read_input(fd, name, &data, &len);
        if (!s && len > 0) s = ordo_tokenizer_encode(tok, data, len, o->allow_special, &ids, &n);
        if (!s && len > 0) s = take_ids(&k, ids, n);
        bytes = len;
        free(ids);
        free(data);
    }
    if (!s && bytes == 0)
        s = ordo_error(ORDO_ERR_ARG, "%s: empty input (nothing to tokenize)", name);
    if (o->out) {
        if (!s)
            s = ordo_tokfile_finish(&w);
        else
            ordo_tokfile_abort(&w);
        unguard_tmp();
    }
    if (s) return s;
    if (o->count)
        printf("%llu\n", (unsigned long long)k.total);
    else if (o->out)
        printf("wrote %llu tokens (%s, vocab %d, %d bytes each) to %s\n",
               (unsigned long long)k.total, o->kind_name, ordo_tokenizer_vocab_size(tok),
               ordo_tokfile_width(ordo_tokenizer_vocab_size(tok)), o->out);
    else
        putchar('\n');
    return ferror(stdout) ? ordo_error(ORDO_ERR_IO, "stdout: write error") : ORDO_OK;
}

// Opens the input, loads the tokenizer and encodes or decodes, as the options say.
static ordo_status run(const tokenize_opts *o, ordo_tokenizer_kind kind, const char *path) {
    const char *name = input_name(path);
    int fd;
    struct stat st;
    ordo_status s = open_input(path, &fd, &st);
    if (s) return s;
    ordo_tokenizer *tok = NULL;
    char *data = NULL;
    size_t len = 0;
    int whole = o->decode || o->jsonl;
    if (S_ISREG(st.st_mode) && st.st_size == 0) // known before a tokenizer is loaded
        s = ordo_error(ORDO_ERR_ARG, "%s: empty input (nothing to %s)", name,
                       o->decode ? "decode" : "tokenize");
    if (!s && o->out) s = check_out(o->out, &st, name);
    if (!s && whole) {
        s = read_input(fd, name, &data, &len);
        if (!s && len == 0)
            s = ordo_error(ORDO_ERR_ARG, "%s: empty input (nothing to %s)", name,
                           o->decode ? "decode" : "tokenize");
    }
    if (!s) s = ordo_tokenizer_load(kind, o->vocab, &tok);
    if (!s) {
        if (o->jsonl)
            s = encode_jsonl(tok, name, data, len, o->allow_special, o->count);
        else if (o->decode)
            s = decode_ids(tok, name, data);
        else
            s = encode_input(o, kind, tok, fd, name);
    }
    if (!s && fflush(stdout) != 0) s = ordo_error(ORDO_ERR_IO, "stdout: %s", strerror(errno));
    close_input(fd);
    free(data);
    ordo_tokenizer_free(tok);
    return s;
}

ordo_status ordo_cmd_tokenize(int argc, char **argv) {
    tokenize_opts o = {.kind_name = "gpt2", .chunk = DEFAULT_CHUNK};
    ordo_opt opts[] = {
        {"tokenizer", ORDO_OPT_STRING, &o.kind_name, "byte or gpt2", 0},
        {"vocab", ORDO_OPT_STRING, &o.vocab,
         "gpt2 vocab dir holding encoder.json + vocab.bpe; none: see below", 0},
        {"allow-special", ORDO_OPT_FLAG, &o.allow_special,
         "encode <|endoftext|> as id 50256 (else it is plain text)", 0},
        {"decode", ORDO_OPT_FLAG, &o.decode, "read ids, print the text they stand for", 0},
        {"count", ORDO_OPT_FLAG, &o.count, "print only the number of ids", 0},
        {"jsonl", ORDO_OPT_FLAG, &o.jsonl,
         "input is one JSON string per line; print one line of ids per string", 0},
        {"out", ORDO_OPT_STRING, &o.out,
         "write a token file (FILE.bin, for 'ordo train --data') instead of printing", 0},
        {"chunk-bytes", ORDO_OPT_INT, &o.chunk,
         "text encoded at a time when streaming (0 = the whole input at once)", .min = 0,
         .max = INT32_MAX},
        {NULL, 0, NULL, NULL, 0},
    };
    const char **pos = ordo_xmalloc((size_t)(argc + 1) * sizeof *pos);
    int npos, help;
    ordo_status s = ordo_options_parse("tokenize", opts, argc, argv, pos, &npos, &help);
    const char *path = npos ? pos[0] : NULL;
    free(pos);
    if (s) return s;
    if (help) {
        print_help(opts);
        return ORDO_OK;
    }
    ordo_tokenizer_kind kind;
    if ((s = check_options(&o, npos, &kind))) return s;
    return run(&o, kind, path);
}
