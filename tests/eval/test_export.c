// Hugging Face GPT-2 export (eval/export.h) against the fixtures of
// tests/ref/make_export_fixture.sh: for learned and none, ordo's logits of the committed
// checkpoint must equal (rtol 1e-5 of the scale, as test_gpt_parity) the logits that GPT-2,
// loaded from the exported folder as transformers loads it (tests/ref/hf_gpt2.py), computed.
// The export written now is checked name by name: GPT2LMHeadModel's state dict
// (transformer.<name>, Conv1D weights [in, out]), F32, the checkpoint's values bit for bit, a
// wpe of zeros for none, metadata format "pt", and config.json's GPT2Config keys.
// tests/cli/test_export_cli.sh checks that the bytes equal the committed folder's. And the way
// back: `train --init` of the export gives the same weights bit for bit.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "test.h"
#include "run/checkpoint.h"
#include "run/config.h"
#include "eval/export.h"

#define TOL_LOGITS 1e-5

// The model of a checkpoint, as eval rebuilds it.
static int load_ckpt(const char *path, ordo_gpt *m) {
    ordo_safetensors *f;
    json_t *cj;
    ordo_train_state st;
    if (ordo_checkpoint_open(path, &f, &cj, &st)) return 0;
    ordo_train_config cfg;
    ordo_train_config_defaults(&cfg);
    ordo_gpt_config g;
    int V = atoi(ordo_safetensors_meta(f, "V"));
    int ok = !ordo_train_config_from_json(&cfg, cj, path, 0, NULL) &&
             !ordo_train_config_model(&cfg, V, &g) && !ordo_gpt_init(m, &g, 0) &&
             !ordo_checkpoint_load(f, m, NULL);
    json_decref(cj);
    ordo_safetensors_close(f);
    return ok;
}

static void check_logits(const char *pos, const ordo_gpt *m0) {
    char name[64];
    snprintf(name, sizeof name, "export_%s_logits.safetensors", pos);
    ordo_safetensors *f;
    CHECK_MSG(ordo_safetensors_open(fixture_path(name), &f) == ORDO_OK, "%s", ordo_error_message());
    size_t n_idx, n;
    float *idxf = fixture_read(f, "idx", &n_idx), *want = fixture_read(f, "logits", &n);
    const ordo_st_tensor *ti = ordo_safetensors_find(f, "idx");
    int B = (int)ti->shape[0], T = (int)ti->shape[1];
    int32_t *idx = malloc(n_idx * sizeof *idx);
    for (size_t i = 0; i < n_idx; i++) idx[i] = (int32_t)idxf[i];
    ordo_gpt *m = (ordo_gpt *)m0;
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.grad_enabled = 0;
    ordo_tensor *lg;
    CHECK(ordo_gpt_forward(m, &ctx, idx, NULL, B, T, &lg, NULL) == ORDO_OK);
    CHECK(lg->n == n);
    double e = scaled_err(lg->data, want, n);
    CHECK_MSG(e < TOL_LOGITS, "%s: ordo's logits against GPT-2's from the export: error %.3g", pos,
              e);
    ordo_ctx_free(&ctx);
    free(idx);
    free(idxf);
    free(want);
    ordo_safetensors_close(f);
}

// The exported model.safetensors of dir holds exactly GPT2LMHeadModel's tensors for m.
static void check_weights(const char *dir, const ordo_gpt *m, int n_positions) {
    char path[4096], name[256];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    ordo_safetensors *f;
    CHECK_MSG(ordo_safetensors_open(path, &f) == ORDO_OK, "%s", ordo_error_message());
    if (!f) return;
    const char *fmt = ordo_safetensors_meta(f, "format");
    CHECK_MSG(fmt && strcmp(fmt, "pt") == 0, "metadata format %s", fmt ? fmt : "missing");
    int C = m->cfg.C, L = m->cfg.L, V = m->cfg.V;
    // GPT2LMHeadModel's state dict without lm_head (tied) and the attn.bias mask buffers
    CHECK(ordo_safetensors_count(f) == 4 + 12 * L);
    const ordo_st_tensor *t = ordo_safetensors_find(f, "transformer.wte.weight");
    CHECK(t && t->ndim == 2 && t->shape[0] == V && t->shape[1] == C);
    t = ordo_safetensors_find(f, "transformer.wpe.weight");
    CHECK(t && t->ndim == 2 && t->shape[0] == n_positions && t->shape[1] == C);
    if (t && m->cfg.pos == ORDO_POS_NONE) { // zeros: GPT-2 adds them, and they add nothing
        const unsigned char *b = ordo_safetensors_data(f, t);
        int zero = 1;
        for (size_t i = 0; i < t->nbytes; i++) zero &= b[i] == 0;
        CHECK_MSG(zero, "none: wpe is not all zeros");
    }
    // Conv1D layout [in, out], as GPT-2's checkpoints have it
    t = ordo_safetensors_find(f, "transformer.h.0.attn.c_attn.weight");
    CHECK(t && t->shape[0] == C && t->shape[1] == 3 * C);
    t = ordo_safetensors_find(f, "transformer.h.1.mlp.c_proj.weight");
    CHECK(t && t->shape[0] == 4 * C && t->shape[1] == C);
    // every parameter, under its transformer. name, F32, the same bits
    for (int i = 0; i < m->params.count; i++) {
        const ordo_tensor *p = m->params.t[i];
        snprintf(name, sizeof name, "transformer.%s", p->name);
        t = ordo_safetensors_find(f, name);
        CHECK_MSG(t != NULL, "no %s", name);
        if (!t) continue;
        CHECK_MSG(t->dtype == ORDO_DTYPE_F32, "%s: dtype %s", name, ordo_dtype_name(t->dtype));
        int same = t->ndim == p->ndim && t->nbytes == p->n * sizeof(float);
        for (int d = 0; same && d < p->ndim; d++) same = t->shape[d] == p->shape[d];
        CHECK_MSG(same, "%s: shape differs from the checkpoint's", name);
        if (same)
            CHECK_MSG(memcmp(ordo_safetensors_data(f, t), p->data, t->nbytes) == 0,
                      "%s: values differ from the checkpoint's", name);
    }
    ordo_safetensors_close(f);
}

static void check_config(const char *dir, const ordo_gpt *m, int n_positions) {
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    CHECK_MSG(j != NULL, "%s: %s", path, err.text);
    if (!j) return;
#define INT(k) json_integer_value(json_object_get(j, k))
    CHECK(strcmp(json_string_value(json_object_get(j, "model_type")), "gpt2") == 0);
    CHECK(strcmp(json_string_value(json_array_get(json_object_get(j, "architectures"), 0)),
                 "GPT2LMHeadModel") == 0);
    CHECK(INT("vocab_size") == m->cfg.V && INT("n_embd") == m->cfg.C &&
          INT("n_layer") == m->cfg.L && INT("n_head") == m->cfg.NH &&
          INT("n_inner") == 4 * m->cfg.C && INT("n_positions") == n_positions);
    CHECK(strcmp(json_string_value(json_object_get(j, "activation_function")), "gelu_new") == 0);
    CHECK(json_real_value(json_object_get(j, "layer_norm_epsilon")) == 1e-5);
    CHECK(json_is_true(json_object_get(j, "tie_word_embeddings")));
    CHECK(json_is_true(json_object_get(j, "scale_attn_weights")));
    const char *drop[] = {"resid_pdrop", "embd_pdrop", "attn_pdrop"};
    for (int i = 0; i < 3; i++) CHECK(json_real_value(json_object_get(j, drop[i])) == 0.0);
    // a byte run: GPT-2's <|endoftext|> (50256) is no id of it
    CHECK(json_is_null(json_object_get(j, "eos_token_id")));
#undef INT
    json_decref(j);
}

// `ordo train --init DIR/model.safetensors` reads an export back: the
// transformer. names are taken, and every weight comes back bit for bit.
static void check_round_trip(const char *dir, const ordo_gpt *m) {
    char path[4200];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    ordo_gpt back;
    CHECK(ordo_gpt_init(&back, &m->cfg, 7) == ORDO_OK); // another seed: other values to replace
    ordo_status s = ordo_checkpoint_load_weights(path, &back);
    CHECK_MSG(s == ORDO_OK, "--init of the export: %s", ordo_error_message());
    CHECK(back.params.count == m->params.count);
    for (int i = 0; !s && i < m->params.count; i++)
        CHECK_MSG(memcmp(back.params.t[i]->data, m->params.t[i]->data,
                         m->params.t[i]->n * sizeof(float)) == 0,
                  "%s: not bit for bit after export -> --init", m->params.t[i]->name);
    ordo_gpt_free(&back);
}

// A file with neither wte.weight nor transformer.wte.weight (a Llama file, say): the message
// says what names it has, not only that one is missing.
static void check_foreign_names(const char *tmp, const ordo_gpt *m) {
    char path[4200];
    snprintf(path, sizeof path, "%s/llama.safetensors", tmp);
    float x[4] = {0};
    ordo_st_write w[2] = {{"model.embed_tokens.weight", x, 2, {2, 2}},
                          {"model.norm.weight", x, 1, {2}}};
    CHECK(ordo_safetensors_write(path, w, 2, NULL, NULL, 0) == ORDO_OK);
    ordo_gpt back;
    CHECK(ordo_gpt_init(&back, &m->cfg, 7) == ORDO_OK);
    CHECK(ordo_checkpoint_load_weights(path, &back) == ORDO_ERR_FORMAT);
    CHECK_MSG(strstr(ordo_error_message(), "no tensor wte.weight or transformer.wte.weight") &&
                  strstr(ordo_error_message(), "model.embed_tokens.weight, model.norm.weight"),
              "%s", ordo_error_message());
    ordo_error_clear();
    ordo_gpt_free(&back);
}

static void test_pos(const char *pos, char *tmp) {
    char ckpt[64], dir[4096];
    snprintf(ckpt, sizeof ckpt, "export_%s.ckpt.safetensors", pos);
    const char *path = fixture_path(ckpt);
    char ckpt_path[4096];
    snprintf(ckpt_path, sizeof ckpt_path, "%s", path);
    ordo_gpt m;
    CHECK_MSG(load_ckpt(ckpt_path, &m), "%s: %s", ckpt_path, ordo_error_message());
    check_logits(pos, &m);
    snprintf(dir, sizeof dir, "%s/%s", tmp, pos);
    ordo_export_info info;
    ordo_status s = ordo_export_hf(ckpt_path, dir, 0, &info);
    CHECK_MSG(s == ORDO_OK, "%s", ordo_error_message());
    CHECK(info.step == 30 && strcmp(info.pos, pos) == 0 && info.n_positions == 8);
    CHECK(!info.tokenizer_files);
    check_weights(dir, &m, 8);
    check_config(dir, &m, 8);
    check_round_trip(dir, &m);
    check_foreign_names(tmp, &m);
    // the position table's length: any for none (zeros), only its own for learned
    s = ordo_export_hf(ckpt_path, dir, 20, &info);
    if (m.cfg.pos == ORDO_POS_NONE) {
        CHECK_MSG(s == ORDO_OK, "%s", ordo_error_message());
        check_weights(dir, &m, 20);
        check_config(dir, &m, 20);
    } else {
        CHECK(s == ORDO_ERR_ARG && strstr(ordo_error_message(), "has 8 rows"));
        ordo_error_clear();
    }
    CHECK(ordo_export_hf(ckpt_path, dir, -1, &info) == ORDO_ERR_ARG);
    ordo_error_clear();
    ordo_gpt_free(&m);
    ordo_config_strings_free();
}

int main(void) {
    char tmp[] = "/tmp/ordo_test_export_XXXXXX";
    if (!mkdtemp(tmp)) return 1;
    test_pos("learned", tmp);
    test_pos("none", tmp);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
    TEST_MAIN_END();
}
