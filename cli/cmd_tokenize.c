// `ordo tokenize`: text -> ids (whitespace-separated on one line), ids -> text with
// --decode, the number of ids with --count, and JSON Lines in/out with --jsonl (one JSON
// string per input line, one line of ids per string: how the tiktoken parity test feeds
// thousands of strings through one process).
//
// Deliberately not here: streaming (the input is read whole; corpora fit in memory), and
// any tokenizer logic (data/tokenizer.c).
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/tokenizer.h"
#include "framework/fileio.h"
#include "train/options.h"
#include "cli/commands.h"

// Inputs this long or longer are refused: ordo_tokenizer_encode takes at most INT32_MAX bytes.
#define MAX_INPUT ((size_t)1 << 31)

static const char *input_name(const char *path) {
    return !path || strcmp(path, "-") == 0 ? "<stdin>" : path;
}

// Reads FILE (or stdin for NULL or "-") whole; *data is malloc'd and NUL-terminated.
static ordo_status read_input(const char *path, char **data, size_t *len) {
    int use_stdin = !path || strcmp(path, "-") == 0;
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f) return ordo_error(ORDO_ERR_IO, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = ordo_xmalloc(cap + 1);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        // bounded: `ordo tokenize /dev/zero` must not grow until the machine runs out
        if (cap >= MAX_INPUT) {
            free(buf);
            if (!use_stdin) fclose(f);
            return ordo_error(ORDO_ERR_ARG,
                              "%s: %zu bytes or more, too long to tokenize at once (split "
                              "the input)",
                              input_name(path), MAX_INPUT);
        }
        cap *= 2;
        buf = ordo_xrealloc(buf, cap + 1);
    }
    int err = ferror(f);
    if (!use_stdin) fclose(f);
    if (err) {
        free(buf);
        return ordo_error(ORDO_ERR_IO, "%s: read error", input_name(path));
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return ORDO_OK;
}

// Appends ids as decimal text separated by spaces, then a newline.
static ordo_status write_ids(FILE *f, const int32_t *ids, size_t n) {
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
        if (i) buf[k++] = ' ';
        while (m) buf[k++] = tmp[--m];
    }
    buf[k++] = '\n';
    fwrite(buf, 1, k, f);
    return ferror(f) ? ordo_error(ORDO_ERR_IO, "stdout: write error") : ORDO_OK;
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
    const char *kind_name, *vocab;
    int allow_special, decode, count, jsonl;
} tokenize_opts;

static void print_help(const ordo_opt *opts) {
    ordo_options_usage(stdout, "tokenize", "[options] [FILE|-]", opts);
    char dir[ORDO_PATH_MAX];
    const char *now =
        ordo_tokenizer_default_vocab_dir(dir, sizeof dir) ? ordo_error_message() : dir;
    printf("\nReads FILE (or stdin when FILE is '-' or absent) and prints its token ids,\n"
           "whitespace-separated, on one line. --decode reads such ids and writes the\n"
           "bytes they stand for. An empty input is an error.\n\n"
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

// The whole input encoded at once: its ids on one line, or (count_only) how many.
static ordo_status encode_text(ordo_tokenizer *tok, const char *data, size_t len, int allow_special,
                               int count_only) {
    int32_t *ids;
    size_t n;
    ordo_status s = ordo_tokenizer_encode(tok, data, len, allow_special, &ids, &n);
    if (s) return s;
    if (count_only)
        printf("%zu\n", n);
    else
        s = write_ids(stdout, ids, n);
    free(ids);
    return s;
}

// Reads the input, loads the tokenizer and encodes or decodes, as the options say.
static ordo_status run(const tokenize_opts *o, ordo_tokenizer_kind kind, const char *path) {
    char *data = NULL;
    size_t len = 0;
    const char *name = input_name(path);
    ordo_status s = read_input(path, &data, &len);
    if (s) return s;
    ordo_tokenizer *tok = NULL;
    if (len == 0)
        s = ordo_error(ORDO_ERR_ARG, "%s: empty input (nothing to %s)", name,
                       o->decode ? "decode" : "tokenize");
    if (!s) s = ordo_tokenizer_load(kind, o->vocab, &tok);
    if (!s) {
        if (o->jsonl)
            s = encode_jsonl(tok, name, data, len, o->allow_special, o->count);
        else if (o->decode)
            s = decode_ids(tok, name, data);
        else
            s = encode_text(tok, data, len, o->allow_special, o->count);
    }
    if (!s && fflush(stdout) != 0) s = ordo_error(ORDO_ERR_IO, "stdout: %s", strerror(errno));
    free(data);
    ordo_tokenizer_free(tok);
    return s;
}

ordo_status ordo_cmd_tokenize(int argc, char **argv) {
    tokenize_opts o = {.kind_name = "gpt2"};
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
