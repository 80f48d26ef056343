// The fused attention alone (framework/flash.h), forward and backward, in GFLOP/s against
// the fp32 GEMM peak measured in the same run (ordo_gemm at 2048^3, as bench_train --peak
// times it) and against the materialized attention (framework/attention.c) where its
// [B, NH, T, T] probabilities fit. FLOPs are the causal ones: 4 T^2 C / 2 per
// forward (2 B T^2 C: the score and value products over the lower triangle), 2.5x that
// backward. Each figure is the median of --reps runs after one warm-up. Prints the CPU model,
// the thread count, what runs the products (ordo_blas_describe) and the tiles
// (ordo_flash_describe) with every table.
//
// usage: bench_flash [--T 1024,4096] [--hs 64,32] [--C 256] [--B 1] [--reps 5] [--threads 0]
//                    [--bias] [--tiles auto,avx2,portable,gemm] [--no-materialized]
//
// --tiles times the fused attention on each kernel set named (flash.h: the CPU's choice, an
// instruction set's, or ordo_gemm on each tile); one the CPU does not run is skipped with a
// line. To see an AVX2 CPU's figures on an AVX-512 one: ORDO_MAX_ISA=avx2 OPENBLAS_CORETYPE=Zen
// (or Haswell), so that the peak is OpenBLAS's AVX2 kernel too.
//
// The tile size (flash.c, BLOCK) was chosen with this bench: see the comment there.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/blas.h"
#include "sys/clock.h"
#include "framework/cpu.h"
#include "sys/error.h"
#include "framework/flash.h"
#include "framework/kernels.h"
#include "framework/threads.h"
#include "cli/args.h"
#include "bench/bench.h"

// The peak's operands: ordo_gemm at 2048^3, the product whose rate the targets are
// fractions of. Timed once before every repetition of an attention, so that each attention
// figure is a ratio to a peak measured seconds apart (the machine is shared: its load moves
// within a run).
#define PEAK_N 2048
static float *pa, *pb, *pc;

static void peak_init(void) {
    size_t n2 = (size_t)PEAK_N * PEAK_N;
    pa = malloc(n2 * sizeof *pa), pb = malloc(n2 * sizeof *pb), pc = malloc(n2 * sizeof *pc);
    for (size_t i = 0; i < n2; i++) {
        pa[i] = (float)(i % 7) * 0.1f;
        pb[i] = (float)(i % 5) * 0.1f;
    }
}

// GFLOP/s of one 2048^3 product.
static double peak_once(void) {
    double t0 = ordo_now_s();
    ordo_gemm(0, 0, PEAK_N, PEAK_N, PEAK_N, 1.0f, pa, PEAK_N, pb, PEAK_N, 0.0f, pc, PEAK_N);
    return 2.0 * PEAK_N * PEAK_N * PEAK_N / (ordo_now_s() - t0) / 1e9;
}

// An ALiBi-like bias with no parameters (slope 2^-(h+1) times the distance): what a
// scheme's fill costs on top of the products.
static void slope_fill(const void *self, int b, int h, int i0, int nr, int j0, int nc, float *s,
                       int ld) {
    float m = 1.0f / (float)(2 << h);
    for (int r = 0; r < nr; r++) {
        float *row = s + (size_t)r * ld;
        float d0 = (float)(i0 + r - j0);
        for (int c = 0; c < nc; c++) row[c] -= m * (d0 - (float)c);
    }
}

// Medians over the repetitions: times, the peak, and each repetition's rate over its peak.
typedef struct result {
    double fwd_ms, bwd_ms, peak, fwd_frac, bwd_frac;
} result;

typedef struct problem {
    const float *qkv, *dout;
    float *out, *lse, *dqkv, *scratch;
    const ordo_attn_bias *bias;
    int B, T, C, NH;
    int materialized; // 1: attention.c's kernels (att: the probabilities, [B, NH, T, T])
    float *att;
} problem;

static result measure(const problem *p, int reps) {
    double *v = malloc(5 * (size_t)reps * sizeof *v);
    double *tf = v, *tb = v + reps, *pk = v + 2 * reps, *ff = v + 3 * reps, *fb = v + 4 * reps;
    double fl = 2.0 * p->B * (double)p->T * p->T * p->C, flb = 2.5 * fl;
    for (int r = -1; r < reps; r++) { // r = -1: a warm-up
        double peak = peak_once();
        double t0 = ordo_now_s();
        if (p->materialized)
            ordo_attention_forward(p->out, p->att, p->qkv, NULL, 0, NULL, 1.0f, NULL, p->B, p->T,
                                   p->C, p->NH);
        else
            ordo_flash_forward(p->out, p->lse, p->qkv, p->bias, 0.0f, 0, 0, p->scratch, p->B, p->T,
                               p->C, p->NH);
        double t1 = ordo_now_s();
        if (p->materialized)
            ordo_attention_backward(p->dqkv, NULL, 0, p->dout, p->qkv, p->att, NULL, 1.0f,
                                    p->scratch, p->B, p->T, p->C, p->NH);
        else
            ordo_flash_backward(p->dqkv, NULL, p->dout, p->qkv, p->out, p->lse, p->bias, 0.0f, 0, 0,
                                p->scratch, p->B, p->T, p->C, p->NH);
        double t2 = ordo_now_s();
        if (r < 0) continue;
        tf[r] = t1 - t0, tb[r] = t2 - t1, pk[r] = peak;
        ff[r] = fl / tf[r] / 1e9 / peak, fb[r] = flb / tb[r] / 1e9 / peak;
    }
    result x = {1e3 * bench_median(tf, reps), 1e3 * bench_median(tb, reps), bench_median(pk, reps),
                bench_median(ff, reps), bench_median(fb, reps)};
    free(v);
    return x;
}

// "1024,4096" into up to n ints; returns the count.
static int parse_list(const char *s, int *v, int n) {
    int k = 0;
    while (s && *s && k < n) {
        v[k++] = atoi(s);
        s = strchr(s, ',');
        if (s) s++;
    }
    return k;
}

static ordo_status run(int argc, char **argv) {
    const char *Ts_s = "1024,4096", *hss_s = "64,32";
    long long C = 256, B = 1, reps = 5, threads = 0;
    const char *tiles_s = "auto";
    int with_bias = 0, no_mat = 0;
    ordo_opt opts[] = {
        {"T", ORDO_OPT_STRING, &Ts_s, "contexts, comma-separated", 0},
        {"hs", ORDO_OPT_STRING, &hss_s, "head sizes, comma-separated (NH = C / hs)", 0},
        {"C", ORDO_OPT_INT, &C, "d_model", .min = 1, .max = INFINITY},
        {"B", ORDO_OPT_INT, &B, "batch", .min = 1, .max = INFINITY},
        {"reps", ORDO_OPT_INT, &reps, "timed repetitions (median)", .min = 1, .max = INFINITY},
        {"threads", ORDO_OPT_INT, &threads, "threads (0 = all cores)", .min = 0, .max = 4096},
        {"bias", ORDO_OPT_FLAG, &with_bias, "also time with an ALiBi-like bias tile", 0},
        {"tiles", ORDO_OPT_STRING, &tiles_s,
         "the fused attention's kernels to time, comma-separated: auto, avx512, avx2, portable, "
         "gemm",
         0},
        {"no-materialized", ORDO_OPT_FLAG, &no_mat, "skip the materialized attention", 0},
        {NULL, 0, NULL, NULL, 0},
    };
    const char **pos;
    int help;
    ordo_status s = ordo_args_program("bench_flash", "[options]", opts, argc, argv, 0, &pos, &help);
    free(pos);
    if (s || help) return s;
    int nt = ordo_set_threads((int)threads);
    int Ts[8], hss[8], nT = parse_list(Ts_s, Ts, 8), nhs = parse_list(hss_s, hss, 8);
    ordo_flash_tiles tiles[8];
    int ntiles = 0;
    for (const char *t = tiles_s; t && *t && ntiles < 8;) {
        static const char *const name[] = {"auto", "portable", "gemm", "avx2", "avx512"};
        size_t len = strcspn(t, ",");
        int k = 0;
        while (k < 5 && (strlen(name[k]) != len || strncmp(t, name[k], len) != 0)) k++;
        if (k == 5)
            return ordo_error(ORDO_ERR_ARG,
                              "--tiles %s: expected auto, avx512, avx2, portable or gemm", tiles_s);
        tiles[ntiles++] = (ordo_flash_tiles)k; // flash.h's order
        t += len + (t[len] == ',');
    }
    char cpu[256], blas[512];
    ordo_cpu_model(cpu, sizeof cpu);
    ordo_blas_describe(blas, sizeof blas);
    peak_init();
    printf("CPU: %s, %d threads, kernels up to %s\n%s\ntiles (auto): %s\n", cpu, nt,
           ordo_isa_name(ordo_cpu_isa()), blas, ordo_flash_describe());
    printf("causal FLOPs: forward 2 B T^2 C, backward 2.5x that; B %lld, C %lld; medians of %lld\n"
           "peak: ordo_gemm 2048^3 timed before each repetition; %% = median of each repetition's\n"
           "rate over its peak\n",
           B, C, reps);
    printf("%-6s %-3s %-4s %-28s %7s %8s %9s %5s %8s %9s %5s\n", "T", "hs", "NH", "path", "peak",
           "fwd ms", "fwd GF/s", "%", "bwd ms", "bwd GF/s", "%");
    for (int a = 0; a < nT; a++) {
        for (int c = 0; c < nhs; c++) {
            int T = Ts[a], hs = hss[c], NH = (int)C / hs, Bi = (int)B, Ci = (int)C;
            if (T < 1 || hs < 1 || C % hs)
                return ordo_error(ORDO_ERR_ARG, "bad T %d or hs %d", T, hs);
            size_t nq = (size_t)Bi * T * 3 * Ci, no = (size_t)Bi * T * Ci;
            float *qkv = malloc(nq * sizeof(float)), *dqkv = calloc(nq, sizeof(float));
            float *out = malloc(no * sizeof(float)), *dout = malloc(no * sizeof(float));
            float *lse = malloc((size_t)Bi * NH * T * sizeof(float));
            float *scratch = malloc(ordo_flash_scratch_floats(Bi, T, Ci, NH, 0) * sizeof(float));
            if (!qkv || !dqkv || !out || !dout || !lse || !scratch)
                return ordo_error(ORDO_ERR_ARG, "out of memory at T %d", T);
            for (size_t i = 0; i < nq; i++)
                qkv[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
            for (size_t i = 0; i < no; i++) dout[i] = (float)((i * 40503u) % 1000) * 1e-3f - 0.5f;
            double fl = 2.0 * Bi * (double)T * T * Ci, flb = 2.5 * fl;
            ordo_attn_bias bias = {NULL, slope_fill, NULL, 0, 0, 0, NULL};
            // each kernel set, with and without the bias; then the materialized attention
            for (int k = 0; k <= 2 * ntiles; k++) {
                int materialized = k == 2 * ntiles, with = k % 2;
                if (!materialized && with && !with_bias) continue;
                // the materialized attention keeps B*NH*T^2 floats (+ T^2 per thread): where
                // they pass 2 GiB it is left out (T 16384: 4 GiB at NH 4, on a shared machine)
                if (materialized && (no_mat || (double)Bi * NH * T * T * 4 > 2.0 * (1 << 30)))
                    continue;
                char name[64];
                if (!materialized) {
                    if (ordo_flash_set_tiles(tiles[k / 2]) != ORDO_OK) {
                        printf("%-6d %-3d %-4d skipped: %s\n", T, hs, NH, ordo_error_message());
                        continue;
                    }
                    snprintf(name, sizeof name, "fused %s%s", ordo_flash_describe(),
                             with ? " + alibi-like" : "");
                } else {
                    snprintf(name, sizeof name, "materialized");
                }
                problem pr = {qkv, dout, out, lse, dqkv,         scratch, with ? &bias : NULL,
                              Bi,  T,    Ci,  NH,  materialized, NULL};
                float *mscratch = NULL;
                if (materialized) { // the materialized attention's own buffers
                    pr.att = malloc((size_t)Bi * NH * T * T * sizeof(float));
                    pr.scratch = mscratch =
                        malloc(ordo_attention_scratch_floats(T, 0) * sizeof(float));
                    if (!pr.att || !mscratch) {
                        free(pr.att), free(mscratch);
                        continue;
                    }
                }
                result x = measure(&pr, (int)reps);
                ordo_flash_set_tiles(ORDO_FLASH_TILES_AUTO);
                free(pr.att), free(mscratch);
                printf("%-6d %-3d %-4d %-28s %7.1f %8.1f %9.1f %4.0f%% %8.1f %9.1f %4.0f%%\n", T,
                       hs, NH, name, x.peak, x.fwd_ms, fl / x.fwd_ms / 1e6, 100 * x.fwd_frac,
                       x.bwd_ms, flb / x.bwd_ms / 1e6, 100 * x.bwd_frac);
                fflush(stdout);
            }
            free(qkv), free(dqkv), free(out), free(dout), free(lse), free(scratch);
        }
    }
    free(pa), free(pb), free(pc);
    return ORDO_OK;
}

ORDO_BENCH_MAIN("bench_flash")
