// `ordo eval RUN_DIR`: validation loss and perplexity of the newest checkpoint at each
// requested context length, on the run's own validation split. Non-overlapping windows
// (stride = T), every window of the split unless --max-windows says otherwise. A learned
// position table cannot go past its length; the table says so instead of giving a number.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train/commands.h"
#include "framework/threads.h"
#include "train/trainer.h"

static ordo_status parse_lengths(const char *s, int *out, int *n, int max) {
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > (1 << 20) || (*end && *end != ','))
            return ordo_error(ORDO_ERR_ARG, "--context '%s': expected positive lengths like 64,128",
                              s);
        if (*n == max) return ordo_error(ORDO_ERR_ARG, "--context: at most %d lengths", max);
        out[(*n)++] = (int)v;
        p = *end ? end + 1 : end;
    }
    if (*n == 0) return ordo_error(ORDO_ERR_ARG, "--context is empty");
    return ORDO_OK;
}

ordo_status ordo_cmd_eval(int argc, char **argv) {
    const char *contexts = NULL;
    long long batch = 8, max_windows = 0, threads = 0;
    int json = 0;
    ordo_opt opts[] = {
        {"context", ORDO_OPT_STRING, &contexts,
         "comma-separated lengths (default: the training context)", 0},
        {"batch", ORDO_OPT_INT, &batch, "windows per forward pass", 0},
        {"max-windows", ORDO_OPT_INT, &max_windows, "windows per length (0 = the whole split)", 0},
        {"threads", ORDO_OPT_INT, &threads, "threads (0 = all cores)", 0},
        {"json", ORDO_OPT_FLAG, &json, "print JSON instead of a table", 0},
        {0},
    };
    const char **pos = ordo_xcalloc((size_t)argc + 1, sizeof *pos);
    int npos, help;
    ordo_status s = ordo_args_parse("eval", opts, argc, argv, pos, &npos, &help);
    if (!s && help) {
        ordo_args_usage(stdout, "eval", "RUN_DIR [options]", opts);
        free(pos);
        return ORDO_OK;
    }
    if (!s && npos != 1)
        s = ordo_error(ORDO_ERR_ARG, "expected one RUN_DIR, got %d arguments", npos);
    if (!s && (batch < 1 || batch > 4096))
        s = ordo_error(ORDO_ERR_ARG, "--batch %lld, expected 1..4096", batch);
    if (s) {
        free(pos);
        return s;
    }
    ordo_set_threads((int)threads);
    ordo_train_config cfg;
    ordo_rundata data;
    ordo_gpt m;
    int64_t step;
    if ((s = ordo_run_open(pos[0], &cfg, &data, &m, &step))) {
        free(pos);
        ordo_config_strings_free();
        return s;
    }
    int lens[64], nlen = 1;
    lens[0] = (int)cfg.context;
    if (contexts) s = parse_lengths(contexts, lens, &nlen, 64);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    const int32_t *val = data.tokens + data.n_train;
    size_t nval = data.n - data.n_train;
    if (json)
        printf("{\"run\":\"%s\",\"step\":%lld,\"pos\":\"%s\",\"results\":[", pos[0],
               (long long)step, cfg.pos);
    else
        printf("run %s, step %lld, pos %s, trained at T=%lld\n%8s %10s %12s %9s\n", pos[0],
               (long long)step, cfg.pos, cfg.context, "T", "val_loss", "perplexity", "windows");
    for (int i = 0; i < nlen && !s; i++) {
        int T = lens[i];
        const char *why = NULL;
        ordo_dataset ds;
        if (m.cfg.pos == ORDO_POS_LEARNED && T > m.cfg.T_max)
            why = "past the learned table";
        else if (ordo_dataset_init(&ds, val, nval, T, T) != ORDO_OK)
            why = "val split too short";
        double loss = NAN;
        size_t cnt = 0;
        if (!why) {
            ds.targets = data.targets ? data.targets + data.n_train : NULL;
            s = ordo_eval_loss(&m, &ctx, &ds, (int)batch, (size_t)max_windows, &loss, &cnt);
        }
        if (json) {
            printf("%s{\"context\":%d,", i ? "," : "", T);
            if (why)
                printf("\"val_loss\":null,\"note\":\"%s\"}", why);
            else
                printf("\"val_loss\":%.9g,\"val_ppl\":%.9g,\"targets\":%zu}", loss, exp(loss), cnt);
        } else if (why)
            printf("%8d %10s %12s %9s  (%s)\n", T, "n/a", "n/a", "-", why);
        else
            printf("%8d %10.4f %12.4f %9zu\n", T, loss, exp(loss),
                   ds.count < (size_t)max_windows || !max_windows ? ds.count : (size_t)max_windows);
    }
    if (json) printf("]}\n");
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    ordo_rundata_free(&data);
    ordo_config_strings_free();
    free(pos);
    return s;
}
