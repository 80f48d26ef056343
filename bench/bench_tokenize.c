// Encode throughput of the gpt2 (or byte) tokenizer on one file: each repetition loads a
// fresh tokenizer (so the word cache starts cold, as a one-shot encode would) and times
// only the encode call. Prints every repetition and the median in MB/s (10^6 bytes/s).
// bench/tokenize.sh runs it beside tiktoken; it does not pin threads itself.
//
// usage: bench_tokenize [--tokenizer gpt2] [--vocab DIR] [--reps N] [--ids OUT] FILE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/tokenizer.h"
#include "cli/args.h"
#include "sys/clock.h"
#include "bench/bench.h"

static ordo_status run(int argc, char **argv) {
    const char *kind_name = "gpt2", *vocab = NULL, *ids_out = NULL;
    long long reps = 7;
    ordo_opt opts[] = {
        {"tokenizer", ORDO_OPT_STRING, &kind_name, "byte or gpt2", 0},
        {"vocab", ORDO_OPT_STRING, &vocab, "gpt2 vocab dir (default as ordo tokenize)", 0},
        {"reps", ORDO_OPT_INT, &reps, "timed repetitions", .min = 1, .max = 1000},
        {"ids", ORDO_OPT_STRING, &ids_out, "write the ids (space-separated) to this file", 0},
        {NULL, 0, NULL, NULL, 0},
    };
    const char **pos;
    int help;
    ordo_status s =
        ordo_args_program("bench_tokenize", "[options] FILE", opts, argc, argv, 1, &pos, &help);
    if (s || help) {
        free(pos);
        return s;
    }
    const char *path = pos[0];
    free(pos);
    ordo_tokenizer_kind kind;
    if ((s = ordo_tokenizer_parse_kind(kind_name, &kind))) return s;

    FILE *f = fopen(path, "rb");
    if (!f) return ordo_error(ORDO_ERR_IO, "%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = ordo_xmalloc((size_t)size + 1);
    size_t len = fread(text, 1, (size_t)size, f);
    fclose(f);

    double *mbs = ordo_xmalloc((size_t)reps * sizeof *mbs);
    int32_t *ids = NULL;
    size_t n = 0;
    for (long long r = 0; r < reps && !s; r++) {
        ordo_tokenizer *tok;
        if ((s = ordo_tokenizer_load(kind, vocab, &tok))) break;
        free(ids);
        double t0 = ordo_now_s();
        s = ordo_tokenizer_encode(tok, text, len, 0, &ids, &n);
        double dt = ordo_now_s() - t0;
        ordo_tokenizer_free(tok);
        mbs[r] = (double)len / dt / 1e6;
        if (!s) printf("rep %lld: %.4f s, %.2f MB/s\n", r, dt, mbs[r]);
    }
    if (!s) {
        double first = mbs[0];
        qsort(mbs, (size_t)reps, sizeof *mbs, bench_cmp_double);
        printf("ordo %s encode: %zu bytes -> %zu ids; median %.2f MB/s over %lld reps "
               "(first %.2f)\n",
               kind_name, len, n, mbs[reps / 2], reps, first);
    }
    if (!s && ids_out) {
        FILE *o = fopen(ids_out, "w");
        if (!o) {
            s = ordo_error(ORDO_ERR_IO, "%s: %s", ids_out, strerror(errno));
        } else {
            for (size_t i = 0; i < n; i++) fprintf(o, i ? " %d" : "%d", ids[i]);
            fputc('\n', o);
            if (fclose(o) != 0) s = ordo_error(ORDO_ERR_IO, "%s: write error", ids_out);
        }
    }
    free(ids);
    free(mbs);
    free(text);
    return s;
}

ORDO_BENCH_MAIN("bench_tokenize")
