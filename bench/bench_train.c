// Training-step throughput of the real model and optimizer (models/gpt.h, framework/optim.h)
// on a token file, for bench/run.sh. One step is what `ordo train` does: reset the arena,
// forward with loss, zero the grads, backward, clip to norm 1, AdamW. Windows are taken in
// order with stride = T (no shuffle), batch k = windows kB..kB+B-1, as the PyTorch peer
// (bench/torch_peer.py) does. Prints one JSON line: per-step times, median ms/step,
// tokens/s, model FLOPs, peak RSS. --peak instead times a 2048^3 cblas_sgemm (the MFU
// denominator) at the same thread count, in its own process so its buffers stay out of
// the training run's RSS; it also times the same product through ordo_gemm, which is what
// training uses (ordo's own AVX-512 kernel where the CPU has AVX-512, framework/gemm.c), and
// through oneDNN's matmul in float32 and, where the CPU runs bf16, in bf16 (bf16 operands,
// float32 sums: the MFU denominator of --precision bf16).
//
// usage: bench_train --ids FILE.bin --V 50257 --T 256 --B 8 --C 256 --L 4 --NH 4
//                    [--pos learned] [--precision fp32] [--attention fused] [--steps 15]
//                    [--warmup 3] [--threads 2]
//        bench_train --peak [--threads 2]
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "data/dataloader.h"
#include "data/dataset.h"
#include "framework/blas.h"
#include "framework/dnnl.h"
#include "sys/fileio.h"
#include "framework/kernels.h"
#include "framework/ops.h"
#include "framework/optim.h"
#include "framework/threads.h"
#include "models/gpt.h"
#include "cli/args.h"
#include "sys/clock.h"
#include "framework/cpu.h"
#include "bench/bench.h"

// CPU time of the whole process (all threads): on a loaded machine a --threads 1 run's
// CPU time per step is a steadier measure than its wall time.
static double peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0; // KiB on Linux
}

// Which GEMM a 2048^3 peak times.
enum { PEAK_CBLAS, PEAK_ORDO, PEAK_DNNL_F32, PEAK_DNNL_BF16 };

// Best of several 2048^3 products, in GFLOP/s: OpenBLAS's cblas_sgemm (PEAK_CBLAS; the
// fp32 targets' MFU denominator), ordo_gemm as training calls it (PEAK_ORDO: ordo's AVX-512 kernel
// where it is used, gemm.c), or oneDNN's matmul in float32 or bf16 (dnnl.h).
static double sgemm_peak(int which) {
    const int n = 2048;
    float *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * n * sizeof *b),
          *c = malloc((size_t)n * n * sizeof *c);
    ordo_bf16 *ah = malloc((size_t)n * n * sizeof *ah), *bh = malloc((size_t)n * n * sizeof *bh);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        a[i] = (float)(i % 7) * 0.1f;
        b[i] = (float)(i % 5) * 0.1f;
    }
    ordo_bf16_convert(ah, a, (size_t)n * n);
    ordo_bf16_convert(bh, b, (size_t)n * n);
    double best = 1e30;
    for (int r = 0; r < 6; r++) {
        double t0 = ordo_now_s();
        if (which == PEAK_ORDO)
            ordo_gemm(0, 0, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        else if (which == PEAK_DNNL_F32)
            ordo_dnnl_sgemm(0, 0, n, n, n, a, n, b, n, 0, c, n);
        else if (which == PEAK_DNNL_BF16)
            ordo_dnnl_gemm_bf16(0, 0, n, n, n, ah, n, bh, n, 0, c, n);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f,
                        c, n);
        double dt = ordo_now_s() - t0;
        if (r > 0 && dt < best) best = dt; // the first one pays for page faults and thread start
    }
    free(a);
    free(b);
    free(c);
    free(ah);
    free(bh);
    return 2.0 * n * n * n / best / 1e9;
}

static ordo_status run(int argc, char **argv) {
    const char *ids_path = NULL, *pos_name = "learned", *prec_name = "fp32", *attn_name = "fused";
    long long V = 50257, T = 256, B = 8, C = 256, L = 4, NH = 4, steps = 15, warmup = 3,
              threads = 0;
    int peak = 0;
    ordo_opt opts[] = {
        {"ids", ORDO_OPT_STRING, &ids_path, "token ids, int32 little-endian", 0},
        {"V", ORDO_OPT_INT, &V, "vocabulary size", 0},
        {"T", ORDO_OPT_INT, &T, "context", 0},
        {"B", ORDO_OPT_INT, &B, "batch", 0},
        {"C", ORDO_OPT_INT, &C, "d_model", 0},
        {"L", ORDO_OPT_INT, &L, "layers", 0},
        {"NH", ORDO_OPT_INT, &NH, "heads", 0},
        {"pos", ORDO_OPT_STRING, &pos_name, "position scheme", 0},
        {"precision", ORDO_OPT_STRING, &prec_name, "matmul precision: fp32 | bf16", 0},
        {"attention", ORDO_OPT_STRING, &attn_name, "fused | materialized", 0},
        {"steps", ORDO_OPT_INT, &steps, "timed steps", .min = 1, .max = 100000},
        {"warmup", ORDO_OPT_INT, &warmup, "untimed steps first", .min = 0, .max = INFINITY},
        {"threads", ORDO_OPT_INT, &threads, "threads (0 = all cores)", .min = 0, .max = 4096},
        {"peak", ORDO_OPT_FLAG, &peak, "only time a 2048^3 sgemm", 0},
        {NULL, 0, NULL, NULL, 0},
    };
    const char **pos;
    int help;
    ordo_status s = ordo_args_program("bench_train", "[options]", opts, argc, argv, 0, &pos, &help);
    free(pos);
    if (s || help) return s;
    int nt = ordo_set_threads((int)threads);
    if (peak) {
        ordo_blas_info b = ordo_blas_info_get(); // as `ordo train` records it in config.json
        char cpu[200];
        double own = sgemm_peak(PEAK_ORDO); // ordo_gemm's first, as the bench always ran
        double blas = sgemm_peak(PEAK_CBLAS);
        double dnnl = sgemm_peak(PEAK_DNNL_F32);
        int bf16 = ordo_dnnl_bf16_available();
        double dnnl_bf16 = bf16 ? sgemm_peak(PEAK_DNNL_BF16) : 0.0;
        printf("{\"impl\":\"sgemm\",\"threads\":%d,\"gflops\":%.2f,\"ordo_gflops\":%.2f,"
               "\"openblas_core\":\"%s\",\"openblas_coretype_env\":\"%s\","
               "\"ordo_gemm\":\"%s\",\"onednn_gflops\":%.2f,\"onednn_bf16_gflops\":%.2f,"
               "\"onednn_isa\":\"%s\",\"onednn_version\":\"%s\",\"bf16\":%s,"
               "\"ordo_kernels\":\"%s\",\"cpu\":\"%s\"}\n",
               nt, blas, own, b.core, b.coretype_env ? b.coretype_env : "", b.gemm, dnnl, dnnl_bf16,
               ordo_dnnl_isa(), ordo_dnnl_version(), bf16 ? "true" : "false", b.kernels,
               ordo_cpu_model(cpu, sizeof cpu));
        return ORDO_OK;
    }
    if (!ids_path) return ordo_error(ORDO_ERR_ARG, "--ids is required");

    char *buf;
    size_t len;
    if ((s = ordo_read_file(ids_path, (size_t)1 << 31, &buf, &len))) return s;
    size_t n = len / sizeof(int32_t);
    int32_t *tokens = (int32_t *)(void *)buf; // malloc'd, so suitably aligned

    ordo_gpt_config g = {
        .V = (int)V, .C = (int)C, .L = (int)L, .NH = (int)NH, .T_max = (int)T, .ln_eps = 1e-5f};
    if ((s = ordo_pos_parse(pos_name, &g.pos))) return s;
    ordo_dataset ds;
    ordo_dataloader dl;
    if ((s = ordo_dataset_init(&ds, tokens, n, (int)T, (int)T))) return s;
    if ((s = ordo_dataloader_init(&dl, &ds, (int)B, 0, 1, 1))) return s;
    ordo_precision prec;
    if ((s = ordo_precision_parse(prec_name, &prec))) return s;
    ordo_attn_impl attn;
    if ((s = ordo_attn_impl_parse(attn_name, &attn))) return s;
    ordo_gpt m;
    if ((s = ordo_gpt_init(&m, &g, 1))) return s;
    if ((s = ordo_gpt_set_precision(&m, prec))) return s; // (leaks m on a refusal: we exit)
    m.attention = attn;
    ordo_optim_config oc;
    ordo_optim_defaults(&oc); // AdamW 0.9/0.95, eps 1e-8, weight decay 0.1
    ordo_optim opt;
    if ((s = ordo_optim_init(&opt, &m.params, &oc))) return s;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.reuse_grads = 1; // as `ordo train`
    int32_t *in = malloc((size_t)B * T * sizeof *in), *tg = malloc((size_t)B * T * sizeof *tg);
    double *ms = malloc((size_t)steps * sizeof *ms), *cpu = malloc((size_t)steps * sizeof *cpu);
    double first_loss = 0, last_loss = 0;

    for (long long i = 0; i < warmup + steps && !s; i++) {
        ordo_dataloader_next(&dl, in, tg);
        double t0 = ordo_now_s(), c0 = bench_cpu_s();
        ordo_ctx_reset(&ctx);
        ordo_tensor *loss;
        if ((s = ordo_gpt_forward(&m, &ctx, in, tg, (int)B, (int)T, NULL, &loss))) break;
        ordo_params_zero_grad(&m.params);
        ordo_backward(&ctx, loss);
        ordo_clip_grad_norm(&m.params, 1.0);
        ordo_optim_step(&opt, 3e-4f);
        ordo_gpt_refresh_bf16(&m); // as `ordo train` (nothing in fp32)
        double dt = ordo_now_s() - t0;
        if (i == 0) first_loss = loss->data[0];
        last_loss = loss->data[0];
        if (i >= warmup) {
            ms[i - warmup] = 1e3 * dt;
            cpu[i - warmup] = 1e3 * (bench_cpu_s() - c0);
        }
    }
    if (!s) {
        double Nw = 12.0 * L * C * C + (double)V * C;
        double flop = 6.0 * Nw * B * T + 12.0 * L * T * C * B * T;
        printf("{\"impl\":\"ordo\",\"pos\":\"%s\",\"precision\":\"%s\",\"attention\":\"%s\","
               "\"threads\":%d,\"steps_ms\":[",
               pos_name, ordo_precision_name(prec), ordo_attn_impl_name(attn), nt);
        for (long long i = 0; i < steps; i++) printf("%s%.3f", i ? "," : "", ms[i]);
        double med = bench_median(ms, (int)steps);
        printf("],\"ms\":%.3f,\"cpu_ms\":%.3f,\"tokens_per_s\":%.1f,\"gflop\":%.3f,"
               "\"rss_mb\":%.1f,\"loss_first\":%.4f,\"loss_last\":%.4f,\"params\":%zu}\n",
               med, bench_median(cpu, (int)steps), B * T / (med / 1e3), flop / 1e9, peak_rss_mb(),
               first_loss, last_loss, ordo_gpt_num_params(&m));
    }
    free(ms);
    free(cpu);
    free(in);
    free(tg);
    ordo_ctx_free(&ctx);
    ordo_optim_free(&opt);
    ordo_gpt_free(&m);
    ordo_dataloader_free(&dl);
    free(buf);
    return s;
}

ORDO_BENCH_MAIN("bench_train")
