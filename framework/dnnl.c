// The oneDNN wrapper (see dnnl.h): one CPU engine and stream for the process, and a cache
// of matmul primitives keyed by everything that shapes one (transposes, sizes, leading
// dimensions, beta, data type, thread count). A cached entry keeps its primitive and its
// memory objects; a call only points them at the caller's buffers (no allocation) and runs
// the primitive. The scratchpad is ordo's (user mode): one buffer, grown when a primitive
// that needs more is created, so that oneDNN allocates nothing while a step runs.
// Deliberately no tuning, no reorders into blocked layouts and no bf16 kernels of ordo's
// own: oneDNN's brgemm matmul takes the plain row-major operands as they are.
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framework/dnnl.h"

#if DNNL_VERSION_MAJOR != 2
#error "ordo uses the oneDNN 2.x C API (Debian's libdnnl-dev 2.6): dnnl_matmul_desc_init & co."
#endif

// Distinct product shapes a process keeps primitives for: a training run of the GPT needs
// about 20 (four linear layers and the LM head, forward and two backward products each, and
// the evaluation batch); past this the least recently used one is destroyed.
#define CACHE_SIZE 64

typedef struct entry {
    long key[11]; // ta, tb, M, N, K, lda, ldb, ldc, beta, data type, threads
    dnnl_primitive_t prim;
    dnnl_memory_t a, b, c, scratch; // scratch NULL when the primitive needs none
    long last_use;
} entry;

static struct {
    int init;
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    entry cache[CACHE_SIZE];
    int n;
    void *scratch; // the one scratchpad, `scratch_bytes` long
    size_t scratch_bytes;
    long clock; // calls so far: the entries' last_use
    ordo_dnnl_stats stats;
} g;

static void check(dnnl_status_t st, const char *what) {
    if (st == dnnl_success) return;
    char msg[256];
    snprintf(msg, sizeof msg, "oneDNN %s: %s", what, dnnl_status2str(st));
    ordo_panic(__FILE__, __LINE__, msg);
}

static void init(void) {
    if (g.init) return;
    check(dnnl_engine_create(&g.engine, dnnl_cpu, 0), "engine");
    check(dnnl_stream_create(&g.stream, g.engine, dnnl_stream_default_flags), "stream");
    g.init = 1;
}

const char *ordo_dnnl_isa(void) {
    switch ((int)dnnl_get_effective_cpu_isa()) { // int: 2.6 has values its enum lacks
    case dnnl_cpu_isa_sse41:
        return "sse41";
    case dnnl_cpu_isa_avx:
        return "avx";
    case dnnl_cpu_isa_avx2:
        return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
        return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic:
        return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops:
        return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core:
        return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
        return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
        return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
        return "avx512_core_amx";
    case dnnl_cpu_isa_all:
        return "none"; // no x86 extension oneDNN knows of
    default:
        return "unknown";
    }
}

const char *ordo_dnnl_version(void) {
    static char v[32];
    if (!v[0]) {
        const dnnl_version_t *d = dnnl_version();
        snprintf(v, sizeof v, "%d.%d.%d", d->major, d->minor, d->patch);
    }
    return v;
}

// The matmul primitive descriptor of one product; NULL with *st set when oneDNN has none.
static dnnl_primitive_desc_t matmul_pd(int ta, int tb, int M, int N, int K, int lda, int ldb,
                                       int ldc, int beta, dnnl_data_type_t dt, dnnl_status_t *st) {
    // op(A) is M x K: row-major A [M, lda] or, transposed, A [K, lda] read down its columns;
    // the same for op(B) [K, N]. Strides say both, so no operand is ever copied.
    dnnl_dims_t da = {M, K}, db = {K, N}, dc = {M, N};
    dnnl_dims_t sa = {ta ? 1 : lda, ta ? lda : 1}, sb = {tb ? 1 : ldb, tb ? ldb : 1};
    dnnl_dims_t sc = {ldc, 1};
    dnnl_memory_desc_t ma, mb, mc;
    dnnl_matmul_desc_t md;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    if ((*st = dnnl_memory_desc_init_by_strides(&ma, 2, da, dt, sa)) ||
        (*st = dnnl_memory_desc_init_by_strides(&mb, 2, db, dt, sb)) ||
        (*st = dnnl_memory_desc_init_by_strides(&mc, 2, dc, dnnl_f32, sc)) ||
        (*st = dnnl_matmul_desc_init(&md, &ma, &mb, NULL, &mc)) ||
        (*st = dnnl_primitive_attr_create(&attr)) ||
        (*st = dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user)))
        goto done;
    if (beta) { // C += product: oneDNN's sum post-op, in float32
        dnnl_post_ops_t po;
        if ((*st = dnnl_post_ops_create(&po))) goto done;
        *st = dnnl_post_ops_append_sum(po, 1.0f);
        if (!*st) *st = dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
        if (*st) goto done;
    }
    *st = dnnl_primitive_desc_create(&pd, &md, attr, g.engine, NULL);
done:
    if (attr) dnnl_primitive_attr_destroy(attr);
    return *st ? NULL : pd;
}

static void entry_free(entry *e) {
    dnnl_primitive_destroy(e->prim);
    dnnl_memory_destroy(e->a);
    dnnl_memory_destroy(e->b);
    dnnl_memory_destroy(e->c);
    if (e->scratch) dnnl_memory_destroy(e->scratch);
    memset(e, 0, sizeof *e);
}

static void entry_make(entry *e, const long *key, dnnl_data_type_t dt) {
    dnnl_status_t st;
    dnnl_primitive_desc_t pd =
        matmul_pd((int)key[0], (int)key[1], (int)key[2], (int)key[3], (int)key[4], (int)key[5],
                  (int)key[6], (int)key[7], (int)key[8], dt, &st);
    check(st, "matmul primitive descriptor");
    memcpy(e->key, key, sizeof e->key);
    check(dnnl_primitive_create(&e->prim, pd), "matmul primitive");
    const dnnl_memory_desc_t *ma = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *mb = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *mc = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    const dnnl_memory_desc_t *ms = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    check(dnnl_memory_create(&e->a, ma, g.engine, DNNL_MEMORY_NONE), "memory");
    check(dnnl_memory_create(&e->b, mb, g.engine, DNNL_MEMORY_NONE), "memory");
    check(dnnl_memory_create(&e->c, mc, g.engine, DNNL_MEMORY_NONE), "memory");
    size_t need = ms ? dnnl_memory_desc_get_size(ms) : 0;
    if (need) {
        check(dnnl_memory_create(&e->scratch, ms, g.engine, DNNL_MEMORY_NONE), "memory");
        if (need > g.scratch_bytes) { // grown only here, when a primitive is made
            free(g.scratch);
            g.scratch_bytes = (need + 4095) / 4096 * 4096;
            g.scratch = aligned_alloc(64, g.scratch_bytes);
            if (!g.scratch) ordo_panic(__FILE__, __LINE__, "oneDNN scratchpad: out of memory");
        }
    }
    dnnl_primitive_desc_destroy(pd);
    g.stats.primitives_created++;
}

// The cached entry for key, made (evicting the least recently used one when full) if new.
static entry *lookup(const long *key, dnnl_data_type_t dt) {
    entry *e = NULL;
    for (int i = 0; i < g.n && !e; i++)
        if (memcmp(g.cache[i].key, key, sizeof g.cache[i].key) == 0) e = &g.cache[i];
    if (e) {
        g.stats.cached++;
    } else {
        if (g.n < CACHE_SIZE) {
            e = &g.cache[g.n++];
        } else {
            e = &g.cache[0];
            for (int i = 1; i < g.n; i++)
                if (g.cache[i].last_use < e->last_use) e = &g.cache[i];
            entry_free(e);
        }
        entry_make(e, key, dt);
    }
    e->last_use = ++g.clock;
    return e;
}

static void matmul(int ta, int tb, int M, int N, int K, const void *A, int lda, const void *B,
                   int ldb, int beta, float *C, int ldc, dnnl_data_type_t dt) {
    ORDO_ASSERT(M > 0 && N > 0 && K > 0 && (beta == 0 || beta == 1));
    // oneDNN runs its own parallel region over omp_get_max_threads() threads, fixed when the
    // primitive is made: a call from inside a region would run it on one thread, unplanned
    ORDO_ASSERT(!omp_in_parallel());
    init();
    g.stats.calls++;
    long key[11] = {
        ta != 0, tb != 0, M, N, K, lda, ldb, ldc, beta, (long)dt, omp_get_max_threads()};
    entry *e = lookup(key, dt);
    // oneDNN reads A and B only; its handles are not const
    check(dnnl_memory_set_data_handle(e->a, (void *)A), "set A");
    check(dnnl_memory_set_data_handle(e->b, (void *)B), "set B");
    check(dnnl_memory_set_data_handle(e->c, C), "set C");
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, e->a}, {DNNL_ARG_WEIGHTS, e->b}, {DNNL_ARG_DST, e->c}};
    int nargs = 3;
    if (e->scratch) {
        check(dnnl_memory_set_data_handle(e->scratch, g.scratch), "set scratchpad");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, e->scratch};
    }
    check(dnnl_primitive_execute(e->prim, g.stream, nargs, args), "matmul");
    check(dnnl_stream_wait(g.stream), "stream wait");
}

void ordo_dnnl_gemm_bf16(int ta, int tb, int M, int N, int K, const ordo_bf16 *A, int lda,
                         const ordo_bf16 *B, int ldb, int beta, float *C, int ldc) {
    matmul(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc, dnnl_bf16);
}

void ordo_dnnl_sgemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                     int ldb, int beta, float *C, int ldc) {
    matmul(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc, dnnl_f32);
}

ordo_dnnl_stats ordo_dnnl_stats_get(void) {
    return g.stats;
}

// Whether the ISA has bf16 arithmetic. The ISA values are bit sets that include the ones
// below them (avx512_core_amx contains avx512_core_bf16's bits; avx2_vnni does not).
static int isa_has_bf16(void) {
    unsigned isa = (unsigned)dnnl_get_effective_cpu_isa(), bf16 = dnnl_cpu_isa_avx512_core_bf16;
    return (isa & bf16) == bf16;
}

// Decided once: the ISA cannot change within a process. *why: the refusal, when no.
static int bf16_answer(const char **why_out) {
    static int answer = -1; // 1 yes, 0 no
    static char why[512];
    *why_out = why;
    if (answer < 0) {
        init();
        dnnl_status_t st = dnnl_success;
        dnnl_primitive_desc_t pd = NULL;
        // a descriptor only (no primitive, no JIT, no threads): also safe before a fork
        if (isa_has_bf16()) pd = matmul_pd(0, 0, 64, 64, 64, 64, 64, 64, 1, dnnl_bf16, &st);
        answer = pd != NULL;
        if (pd) dnnl_primitive_desc_destroy(pd);
        const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
        char capped[128] = "";
        if (cap) snprintf(capped, sizeof capped, " (capped by ONEDNN_MAX_CPU_ISA=%.64s)", cap);
        if (!answer && isa_has_bf16())
            snprintf(why, sizeof why, "oneDNN %s cannot create a bf16 matmul on %s: %s",
                     ordo_dnnl_version(), ordo_dnnl_isa(), dnnl_status2str(st));
        else if (!answer)
            snprintf(why, sizeof why,
                     "this CPU has no bf16 arithmetic that oneDNN %s can use: it runs %s here%s, "
                     "and bf16 needs avx512_core_bf16 or AMX (Intel Cooper Lake, Sapphire Rapids "
                     "or later; AMD Zen 4 or later). ordo refuses rather than emulate: oneDNN's "
                     "bf16 emulation is slower than float32, and below AVX-512 it has no bf16 "
                     "matmul at all; train in fp32 instead",
                     ordo_dnnl_version(), ordo_dnnl_isa(), capped);
    }
    return answer;
}

int ordo_dnnl_bf16_available(void) {
    const char *why;
    return bf16_answer(&why);
}

ordo_status ordo_dnnl_bf16_check(void) {
    const char *why;
    return bf16_answer(&why) ? ORDO_OK : ordo_error(ORDO_ERR_ARG, "%s", why);
}
