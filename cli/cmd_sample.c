// `ordo sample RUN_DIR --prompt TEXT`: generation from the newest checkpoint (or --step N's,
// or a checkpoint file given instead of RUN_DIR), which needs the run's tokenizer and not its
// training text (the data file is never opened), one token at a time over the whole window (no KV
// cache: the models are small), temperature and top-k, seeded. The window slides once it reaches
// the training context. stderr names the checkpoint and says when the model sees less than the
// whole text.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/rng.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "framework/threads.h"
#include "run/run.h"

static int pick(const float *logits, int V, double temperature, int top_k, ordo_rng *r,
                double *scratch) {
    if (temperature <= 0) { // greedy
        int best = 0;
        for (int v = 1; v < V; v++)
            if (logits[v] > logits[best]) best = v;
        return best;
    }
    double mx = -INFINITY;
    for (int v = 0; v < V; v++) mx = fmax(mx, logits[v]);
    double kth = -INFINITY;
    if (top_k > 0 && top_k < V) { // the k-th largest logit, by selection over a copy
        for (int v = 0; v < V; v++) scratch[v] = logits[v];
        for (int k = 0; k < top_k; k++) {
            int arg = k;
            for (int v = k + 1; v < V; v++)
                if (scratch[v] > scratch[arg]) arg = v;
            double t = scratch[k];
            scratch[k] = scratch[arg];
            scratch[arg] = t;
        }
        kth = scratch[top_k - 1];
    }
    double sum = 0;
    for (int v = 0; v < V; v++) {
        scratch[v] = logits[v] >= kth ? exp((logits[v] - mx) / temperature) : 0.0;
        sum += scratch[v];
    }
    double u = ordo_rng_uniform(r) * sum, acc = 0;
    for (int v = 0; v < V; v++) {
        acc += scratch[v];
        if (u < acc) return v;
    }
    return V - 1;
}

// Which checkpoint the text comes from, and when the model sees less than the whole text
// (the prompt cropped to the context, or the window sliding as the text grows), on stderr:
// stdout is the text alone.
static void say_what(const ordo_run_view *view, int Tmax, size_t n, long long tokens) {
    fprintf(stderr, "ordo: checkpoint: %s (step %lld)\n", view->ckpt, (long long)view->step);
    if (n > (size_t)Tmax)
        fprintf(stderr,
                "ordo: note: the prompt is %zu tokens, the model's context %d: it sees the "
                "last %d of them, and the window slides on from there\n",
                n, Tmax, Tmax);
    else if (n + (size_t)tokens > (size_t)Tmax)
        fprintf(stderr,
                "ordo: note: past %d tokens (the model's context) the window slides: each "
                "new token sees only the last %d\n",
                Tmax, Tmax);
}

ordo_status ordo_cmd_sample(int argc, char **argv) {
    const char *prompt = NULL;
    long long tokens = 50, top_k = 0, seed = 1, threads = 0, step = -1;
    double temperature = 1.0;
    ordo_opt opts[] = {
        {"prompt", ORDO_OPT_STRING, &prompt, "text to continue (corpus runs: words of the corpus)",
         0},
        {"tokens", ORDO_OPT_INT, &tokens, "tokens to generate", .min = 0, .max = 100000},
        {"temperature", ORDO_OPT_FLOAT, &temperature, "softmax temperature (0 = greedy)", .min = 0,
         .max = INFINITY},
        {"top-k", ORDO_OPT_INT, &top_k, "sample among the k most likely tokens (0 = all)", .min = 0,
         .max = INFINITY},
        {"seed", ORDO_OPT_INT, &seed, "sampling seed", 0},
        ordo_args_threads_opt(&threads),
        ordo_args_step_opt(&step),
        {0},
    };
    const char **pos;
    int npos, help;
    ordo_status s =
        ordo_args_command("sample", "RUN_DIR|CHECKPOINT.safetensors --prompt TEXT [options]", opts,
                          argc, argv, &pos, &npos, &help);
    if (!s && help) {
        free(pos);
        return ORDO_OK;
    }
    if (!s) s = ordo_args_one_run(npos, &step);
    if (!s && !prompt) s = ordo_error(ORDO_ERR_ARG, "--prompt is required");
    if (s) {
        free(pos);
        return s;
    }
    ordo_args_threads("sample", opts, threads);
    ordo_train_config cfg;
    ordo_rundata data;
    ordo_gpt m;
    ordo_run_view view;
    ordo_run_select sel = {.step = step, .tokenizer_only = 1};
    if ((s = ordo_run_open(pos[0], &sel, &cfg, &data, &m, &view))) {
        free(pos);
        ordo_config_strings_free();
        return s;
    }
    int32_t *ids = NULL;
    size_t n = 0;
    s = ordo_rundata_encode(&data, prompt, &ids, &n);
    if (!s && n == 0) s = ordo_error(ORDO_ERR_ARG, "--prompt gives no tokens");
    if (!s) say_what(&view, m.cfg.T_max, n, tokens);
    if (!s) {
        int V = m.cfg.V, Tmax = m.cfg.T_max;
        ids = ordo_xrealloc(ids, (n + (size_t)tokens) * sizeof *ids);
        double *scratch = ordo_xmalloc((size_t)V * sizeof *scratch);
        ordo_rng r;
        ordo_rng_seed(&r, (uint64_t)seed);
        ordo_ctx ctx;
        ordo_ctx_init(&ctx);
        ctx.grad_enabled = 0;
        for (long long k = 0; k < tokens && !s; k++) {
            size_t start = n > (size_t)Tmax ? n - Tmax : 0;
            int T = (int)(n - start);
            ordo_ctx_reset(&ctx);
            ordo_tensor *lg;
            s = ordo_gpt_forward(&m, &ctx, ids + start, NULL, 1, T, &lg, NULL);
            if (!s)
                ids[n++] =
                    pick(lg->data + (size_t)(T - 1) * V, V, temperature, (int)top_k, &r, scratch);
        }
        char *text = NULL;
        size_t len = 0;
        if (!s) s = ordo_rundata_decode(&data, ids, n, &text, &len);
        if (!s) { // as the bytes are: a byte model may well generate a NUL
            fwrite(text, 1, len, stdout);
            putchar('\n');
        }
        free(text);
        free(scratch);
        ordo_ctx_free(&ctx);
    }
    free(ids);
    ordo_gpt_free(&m);
    ordo_rundata_free(&data);
    ordo_config_strings_free();
    free(pos);
    return s;
}
