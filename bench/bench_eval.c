// Eval throughput: `ordo eval`'s scoring loop (ordo_eval_stream: each
// target's loss in double, for the loss by position) against the trainer's validation pass
// (ordo_eval_loss: the model's fused cross-entropy), on the same model, windows and batch,
// interleaved. Both run in inference mode (eval/evaluate.c). The model is randomly
// initialised: speed does not depend on the weights. Prints one JSON line per side with the
// median tokens/s over --reps repetitions and the CPU time per token, then their ratio.
//
// usage: bench_eval --ids FILE.bin --V 50257 --T 128 --C 128 --L 2 --NH 4 [--B 8]
//                   [--windows 64] [--reps 5] [--pos learned] [--threads 0]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "data/dataset.h"
#include "framework/blas.h"
#include "sys/clock.h"
#include "sys/fileio.h"
#include "framework/ops.h"
#include "framework/threads.h"
#include "models/gpt.h"
#include "eval/evaluate.h"
#include "cli/args.h"
#include "bench/bench.h"

enum { SIDE_EVAL, SIDE_VAL, NSIDE };
static const char *const side_name[NSIDE] = {"ordo eval (ordo_eval_stream)",
                                             "training's validation (ordo_eval_loss)"};

// One pass of a side over the first `windows` windows; *tokens receives the targets scored.
static ordo_status one_pass(int side, ordo_gpt *m, ordo_ctx *ctx, const ordo_dataset *ds,
                            const int32_t *tokens, size_t n, int T, int B, size_t windows,
                            double *loss, size_t *tokens_scored) {
    if (side == SIDE_VAL) return ordo_eval_loss(m, ctx, ds, B, windows, loss, tokens_scored);
    ordo_eval_result r;
    ordo_status s =
        ordo_eval_stream(m, ctx, tokens, NULL, n, T, ORDO_EVAL_NONOVERLAP, 0, B, windows, NULL, &r);
    if (!s) *loss = r.loss, *tokens_scored = r.targets;
    if (!s) ordo_eval_result_free(&r);
    return s;
}

static ordo_status run(int argc, char **argv) {
    const char *ids_path = NULL, *pos_name = "learned";
    long long V = 50257, T = 128, B = 8, C = 128, L = 2, NH = 4, windows = 64, reps = 5,
              threads = 0;
    ordo_opt opts[] = {
        {"ids", ORDO_OPT_STRING, &ids_path, "token ids, int32 little-endian", 0},
        {"V", ORDO_OPT_INT, &V, "vocabulary size", 0},
        {"T", ORDO_OPT_INT, &T, "context", 0},
        {"B", ORDO_OPT_INT, &B, "windows per forward (both sides)", 0},
        {"C", ORDO_OPT_INT, &C, "d_model", 0},
        {"L", ORDO_OPT_INT, &L, "layers", 0},
        {"NH", ORDO_OPT_INT, &NH, "heads", 0},
        {"windows", ORDO_OPT_INT, &windows, "windows per pass", .min = 1, .max = INFINITY},
        {"reps", ORDO_OPT_INT, &reps, "timed passes per side (median)", .min = 1, .max = 1000},
        {"pos", ORDO_OPT_STRING, &pos_name, "position scheme", 0},
        {"threads", ORDO_OPT_INT, &threads, "threads (0 = all cores)", .min = 0, .max = 4096},
        {NULL, 0, NULL, NULL, 0},
    };
    const char **pos;
    int help;
    ordo_status s = ordo_args_program("bench_eval", "[options]", opts, argc, argv, 0, &pos, &help);
    free(pos);
    if (s || help) return s;
    if (!ids_path) return ordo_error(ORDO_ERR_ARG, "--ids is required");
    int nt = ordo_set_threads((int)threads);
    char *buf;
    size_t len;
    if ((s = ordo_read_file(ids_path, (size_t)1 << 31, &buf, &len))) return s;
    size_t n = len / sizeof(int32_t);
    const int32_t *tokens = (const int32_t *)(const void *)buf; // malloc'd: aligned
    if (n < (size_t)windows * T + 1)
        return ordo_error(ORDO_ERR_ARG, "%s: %zu tokens, fewer than %lld windows of %lld need",
                          ids_path, n, windows, T);
    ordo_gpt_config g = {
        .V = (int)V, .C = (int)C, .L = (int)L, .NH = (int)NH, .T_max = (int)T, .ln_eps = 1e-5f};
    if ((s = ordo_pos_parse(pos_name, &g.pos))) return s;
    ordo_dataset ds;
    if ((s = ordo_dataset_init(&ds, tokens, n, (int)T, (int)T))) return s;
    ordo_gpt m;
    if ((s = ordo_gpt_init(&m, &g, 1))) return s;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    double wall[NSIDE][1000], cpu[NSIDE][1000], loss[NSIDE] = {0};
    size_t scored[NSIDE] = {0};
    for (int r = -1; r < reps && !s; r++) { // r = -1: one untimed pass of each, to warm up
        for (int k = 0; k < NSIDE && !s; k++) {
            int side = (k + (r < 0 ? 0 : r)) % NSIDE; // each round starts one side later
            double t0 = ordo_now_s(), c0 = bench_cpu_s();
            s = one_pass(side, &m, &ctx, &ds, tokens, n, (int)T, (int)B, (size_t)windows,
                         &loss[side], &scored[side]);
            if (r >= 0) wall[side][r] = ordo_now_s() - t0, cpu[side][r] = bench_cpu_s() - c0;
        }
    }
    double tps[NSIDE];
    for (int k = 0; k < NSIDE && !s; k++) {
        double w = bench_median(wall[k], (int)reps), c = bench_median(cpu[k], (int)reps);
        tps[k] = (double)scored[k] / w;
        printf("{\"side\":\"%s\",\"threads\":%d,\"gemm\":\"%s\",\"V\":%lld,\"T\":%lld,\"C\":%lld,"
               "\"L\":%lld,\"B\":%lld,\"tokens\":%zu,\"loss\":%.6f,\"median_s\":%.4f,"
               "\"tokens_per_s\":%.1f,\"cpu_us_per_token\":%.2f}\n",
               side_name[k], nt, ordo_gemm_backend(), V, T, C, L, B, scored[k], loss[k], w, tps[k],
               1e6 * c / (double)scored[k]);
    }
    if (!s) printf("eval / validation tokens/s: %.3f\n", tps[SIDE_EVAL] / tps[SIDE_VAL]);
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    free(buf);
    return s;
}

ORDO_BENCH_MAIN("bench_eval")
