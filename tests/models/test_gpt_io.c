// Model weights to and from safetensors: a learned-scheme model loaded from the PyTorch
// fixture, saved by ordo, loaded again, gives bit-identical logits; the file carries the
// Hugging Face GPT-2 names and shapes and the config; a wrong shape is refused by name.
// `test_gpt_io --write-sample DIR` writes ordo_learned.safetensors (weights) and
// ordo_learned_out.safetensors (batch and logits), and the same for ordo_learned_scaled
// (--embed-scale 2.5), for tests/parity/test_ref_checkpoint.sh.
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "framework/autograd.h"
#include "models/gpt.h"
#include "test.h"

static const ordo_gpt_config CFG = {
    .V = 64, .C = 32, .L = 2, .NH = 4, .T_max = 16, .pos = ORDO_POS_LEARNED, .ln_eps = 1e-5f};

static ordo_tensor *logits_of(ordo_gpt *m, ordo_ctx *ctx, const int32_t *idx, int B, int T) {
    ordo_tensor *lg = NULL;
    ordo_ctx_reset(ctx);
    ctx->grad_enabled = 0;
    CHECK(ordo_gpt_forward(m, ctx, idx, NULL, B, T, &lg, NULL) == ORDO_OK);
    return lg;
}

// name "learned": the GPT-2 convention; "learned_scaled": token embeddings x2.5, which the
// file's metadata (embed_scale) must tell the reference.
static int write_sample_one(const char *dir, const char *name, float embed_scale) {
    ordo_gpt m;
    ordo_gpt_config cfg = CFG;
    cfg.embed_scale = embed_scale;
    if (ordo_gpt_init(&m, &cfg, 7)) return 1;
    // trained-looking weights: the fixture's, so that logits have spread
    char path[4096];
    snprintf(path, sizeof path, "gpt_%s.safetensors", name);
    if (ordo_gpt_load(&m, fixture_path(path))) return 1;
    snprintf(path, sizeof path, "%s/ordo_%s.safetensors", dir, name);
    const char *k[1] = {"generator"}, *v[1] = {"ordo test_gpt_io"};
    if (ordo_gpt_save(&m, path, k, v, 1)) {
        fprintf(stderr, "%s\n", ordo_error_message());
        return 1;
    }
    int B = 2, T = 16;
    int32_t idx[32];
    for (int i = 0; i < B * T; i++) idx[i] = (i * 37 + 11) % CFG.V;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *lg = logits_of(&m, &ctx, idx, B, T);
    float idxf[32];
    for (int i = 0; i < B * T; i++) idxf[i] = (float)idx[i];
    ordo_st_write w[2] = {
        {.name = "batch.idx", .data = idxf, .ndim = 2, .shape = {B, T}},
        {.name = "out.logits", .data = lg->data, .ndim = 3, .shape = {B, T, CFG.V}}};
    snprintf(path, sizeof path, "%s/ordo_%s_out.safetensors", dir, name);
    int rc = ordo_safetensors_write(path, w, 2, NULL, NULL, 0) != ORDO_OK;
    ordo_ctx_free(&ctx);
    ordo_gpt_free(&m);
    return rc;
}

static int write_sample(const char *dir) {
    return write_sample_one(dir, "learned", 1.0f) || write_sample_one(dir, "learned_scaled", 2.5f);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write-sample") == 0) return write_sample(argv[2]);
    char dir[] = "/tmp/ordo_gpt_io_XXXXXX";
    ORDO_ASSERT(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/w.safetensors", dir);

    ordo_gpt a, b;
    CHECK(ordo_gpt_init(&a, &CFG, 1) == ORDO_OK);
    CHECK(ordo_gpt_load(&a, fixture_path("gpt_learned.safetensors")) == ORDO_OK);
    CHECK(ordo_gpt_save(&a, path, NULL, NULL, 0) == ORDO_OK);
    CHECK(ordo_gpt_init(&b, &CFG, 2) == ORDO_OK); // other random weights until loaded
    CHECK(ordo_gpt_load(&b, path) == ORDO_OK);
    CHECK(memcmp(a.params.data, b.params.data, a.params.total * sizeof(float)) == 0);

    int32_t idx[3 * 16];
    for (int i = 0; i < 48; i++) idx[i] = (i * 13 + 5) % 64;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ordo_tensor *la = logits_of(&a, &ctx, idx, 3, 16);
    float *copy = malloc(la->n * sizeof(float));
    memcpy(copy, la->data, la->n * sizeof(float));
    ordo_tensor *lb = logits_of(&b, &ctx, idx, 3, 16);
    CHECK(memcmp(copy, lb->data, lb->n * sizeof(float)) == 0);
    free(copy);

    // the file: HF names and shapes, config in the metadata
    ordo_safetensors *f;
    CHECK(ordo_safetensors_open(path, &f) == ORDO_OK);
    const ordo_st_tensor *t = ordo_safetensors_find(f, "h.1.attn.c_attn.weight");
    CHECK(t && t->ndim == 2 && t->shape[0] == 32 && t->shape[1] == 96);
    t = ordo_safetensors_find(f, "h.0.mlp.c_proj.weight");
    CHECK(t && t->shape[0] == 128 && t->shape[1] == 32);
    t = ordo_safetensors_find(f, "wpe.weight");
    CHECK(t && t->shape[0] == 16 && t->shape[1] == 32);
    CHECK(ordo_safetensors_find(f, "lm_head.weight") == NULL); // tied to wte
    CHECK(ordo_safetensors_count(f) == 2 + 2 * 12 + 2);
    CHECK(strcmp(ordo_safetensors_meta(f, "pos"), "learned") == 0);
    CHECK(strcmp(ordo_safetensors_meta(f, "NH"), "4") == 0);
    ordo_safetensors_close(f);

    // a model of another width refuses the file, naming the tensor and both shapes
    ordo_gpt_config wide = CFG;
    wide.C = 48;
    ordo_gpt c;
    CHECK(ordo_gpt_init(&c, &wide, 1) == ORDO_OK);
    CHECK(ordo_gpt_load(&c, path) != ORDO_OK);
    CHECK(strstr(ordo_error_message(), "wte.weight") && strstr(ordo_error_message(), "[64,32]") &&
          strstr(ordo_error_message(), "[64,48]"));
    ordo_gpt_free(&c);
    // a model of another scheme misses tensors by name
    ordo_gpt_config t5 = CFG;
    t5.pos = ORDO_POS_T5;
    CHECK(ordo_gpt_init(&c, &t5, 1) == ORDO_OK);
    CHECK(ordo_gpt_load(&c, path) != ORDO_OK && strstr(ordo_error_message(), "rel_bias.weight"));
    ordo_gpt_free(&c);

    ordo_ctx_free(&ctx);
    ordo_gpt_free(&a);
    ordo_gpt_free(&b);
    unlink(path);
    rmdir(dir);
    TEST_MAIN_END();
}
