// The oneDNN wrapper (see dnnl.h): one CPU engine for the process, and a cache of matmul
// primitives, each planned for one thread, keyed by everything that shapes one (transposes,
// sizes, leading dimensions, beta, data type). ordo spreads a product over threads itself, as
// blocks of C whose size depends on the shape alone (DNNL_PAR_MIN below), so that no element
// depends on the thread count. A cached entry keeps its primitive and, for each thread slot
// that ran it, its memory objects; a call only points them at the caller's buffers (no
// allocation) and runs the primitive. Each slot has its stream and its scratchpad, ordo's
// (user mode), grown only when a primitive that needs more is created, so that oneDNN
// allocates nothing while a step runs. Deliberately no tuning at run time, no reorders into
// blocked layouts and no bf16 kernels of ordo's own: oneDNN takes the plain row-major
// operands as they are.
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

// How a product is spread over threads. oneDNN's brgemm matmul plans its work by the thread
// count it sees when the primitive is made, and for a small C with a long K (1000x37x3000, or
// a small model's weight gradient X^T dY) it splits the sum over k between threads: on a
// Xeon with AMX (Sapphire Rapids) 1000x37x3000 came out other on 2 threads than on 1 or 3. So,
// as blas.c does for OpenBLAS, ordo never lets oneDNN thread a product and never cuts one by
// the thread count: every primitive is planned for one thread (omp_get_max_threads() is 1
// while it is made and while it runs, so it never splits k), and
// - a product below DNNL_PAR_MIN multiply-adds is one call on one thread (see below: at
//   present every product);
// - a larger one is cut into blocks of C whose size depends on the shape alone (at most
//   DNNL_BLOCKS of them, each a multiple of DNNL_BLOCK_ALIGN and at least DNNL_BLOCK_MIN
//   rows or columns), each block a one-thread call over all of K, the blocks spread over the
//   threads of an OpenMP loop (oneDNN called inside a parallel region runs on the calling
//   thread). At any thread count the same calls run on the same operands.
// Rows are cut where A is not transposed and there are at least two blocks of them, else the
// longer side. Why rows first: oneDNN 2.6's brgemm (its AMX and AVX512-BF16 kernels) takes
// only dense operands, and a block of columns writes a strided C, which sends it to oneDNN's
// slower gemm:jit; measured on the Xeon, one thread, small's logits 2048x50257x256 (B^T): 8
// column blocks 318-410 ms, 8 row blocks 132-169, the whole product 101-148 (noisy: other
// builds ran). A block of A^T is strided too, so the weight gradients (A^T) run on gemm:jit
// either way: 256x768x2048 as 3 blocks of 256 columns 1.26-1.32 ms against 1.04 whole, on
// one thread; blocks of 128 columns were slower still (1.47-1.49), hence DNNL_BLOCK_MIN.
//
// Measured whole, on `small` in bf16 (bench_train, 2 threads, the Xeon with AMX, load 3-4, two
// interleaved rounds): with these blocks (threshold 2^22) 1714 and 1658 ms/step; with the
// weight gradients whole 1473 and 1581; with every product whole on one thread 942 and 999,
// as fast as oneDNN's own threading was (952-1022, bench/long_context.sh part c). Each block
// is a separate oneDNN call with its own packing, and the strided ones fall to gemm:jit, so
// here the blocks cost more than the second thread gives. The threshold is therefore set
// past any product: every product runs whole, on one thread, planned for one thread. The
// blocking stays for a CPU where a measurement shows it pays.
#define DNNL_PAR_MIN     ((size_t)1 << 62)
#define DNNL_BLOCKS      8
#define DNNL_BLOCK_ALIGN 64 // rows or columns
#define DNNL_BLOCK_MIN   256
// Threads that run blocks of one product at once: at most one per block. Each has its own
// slot (stream, scratchpad, memory objects), since a memory object or a scratchpad in use
// by one execution cannot serve another at the same time.
#define SLOTS DNNL_BLOCKS

// Distinct block shapes a process keeps primitives for: a training run of the GPT needs
// about 30 (four linear layers and the LM head, forward and two backward products each, the
// evaluation batch, and a second, shorter last block where a side does not divide evenly);
// past this the least recently used one is destroyed.
#define CACHE_SIZE 96

typedef struct entry {
    long key[10]; // ta, tb, M, N, K, lda, ldb, ldc, beta, data type (of one block)
    dnnl_primitive_t prim;
    dnnl_memory_desc_t md[4]; // A, B, C, scratchpad (zero size when it needs none)
    // per thread slot, made the first time the slot runs this primitive: A, B, C, scratchpad
    // (NULL when it needs none)
    dnnl_memory_t mem[SLOTS][4];
    long last_use;
} entry;

static struct {
    int init;
    dnnl_engine_t engine;
    dnnl_stream_t stream[SLOTS]; // NULL until the slot first runs
    entry cache[CACHE_SIZE];
    int n;
    // the scratchpads, one a slot, each scratch_have[s] long; grown to scratch_bytes (the
    // largest any primitive made so far needs) before a product runs, on the calling thread
    void *scratch[SLOTS];
    size_t scratch_have[SLOTS], scratch_bytes;
    long clock; // lookups so far: the entries' last_use
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
    g.init = 1;
}

const char *ordo_dnnl_isa(void) {
#if !defined(__x86_64__) && !defined(__i386__)
    return "not x86 (no bf16 here)"; // oneDNN's ISA values below are x86's names
#endif
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
    for (int s = 0; s < SLOTS; s++)
        for (int i = 0; i < 4; i++)
            if (e->mem[s][i]) dnnl_memory_destroy(e->mem[s][i]);
    memset(e, 0, sizeof *e);
}

// The primitive for key, planned for one thread: oneDNN reads omp_get_max_threads() when it
// makes the descriptor and the primitive, and keys its own cache by it (an ICV of this task:
// no other thread sees the change).
static void entry_make(entry *e, const long *key, dnnl_data_type_t dt) {
    int nt = omp_get_max_threads();
    omp_set_num_threads(1);
    dnnl_status_t st;
    dnnl_primitive_desc_t pd =
        matmul_pd((int)key[0], (int)key[1], (int)key[2], (int)key[3], (int)key[4], (int)key[5],
                  (int)key[6], (int)key[7], (int)key[8], dt, &st);
    check(st, "matmul primitive descriptor");
    memcpy(e->key, key, sizeof e->key);
    check(dnnl_primitive_create(&e->prim, pd), "matmul primitive");
    omp_set_num_threads(nt);
    const dnnl_query_t q[4] = {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md,
                               dnnl_query_scratchpad_md};
    for (int i = 0; i < 4; i++) {
        const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, q[i], 0);
        if (md)
            e->md[i] = *md;
        else
            memset(&e->md[i], 0, sizeof e->md[i]); // no scratchpad: a zero-size descriptor
    }
    size_t need = dnnl_memory_desc_get_size(&e->md[3]);
    if (need > g.scratch_bytes) g.scratch_bytes = (need + 4095) / 4096 * 4096;
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

// Slots [0, ns) ready to run e: their streams, e's memory objects and scratchpads as large as
// any primitive needs. Made once; a steady training step finds them all and allocates nothing.
static void slots_ready(entry *e, int ns) {
    for (int s = 0; s < ns; s++) {
        if (!g.stream[s]) {
            check(dnnl_stream_create(&g.stream[s], g.engine, dnnl_stream_default_flags), "stream");
            g.stats.objects_created++;
        }
        if (g.scratch_have[s] < g.scratch_bytes) { // grown only when a primitive needs more
            free(g.scratch[s]);
            g.scratch[s] = aligned_alloc(64, g.scratch_bytes);
            if (!g.scratch[s]) ordo_panic(__FILE__, __LINE__, "oneDNN scratchpad: out of memory");
            g.scratch_have[s] = g.scratch_bytes;
            g.stats.objects_created++;
        }
        int n = dnnl_memory_desc_get_size(&e->md[3]) ? 4 : 3;
        for (int i = 0; i < n; i++)
            if (!e->mem[s][i]) {
                check(dnnl_memory_create(&e->mem[s][i], &e->md[i], g.engine, DNNL_MEMORY_NONE),
                      "memory");
                g.stats.objects_created++;
            }
    }
}

// One block on this thread, with slot s's objects (no other thread uses them meanwhile).
static void run_block(const entry *e, int s, const void *A, const void *B, float *C) {
    dnnl_memory_t const *m = e->mem[s];
    // oneDNN reads A and B only; its handles are not const
    check(dnnl_memory_set_data_handle(m[0], (void *)A), "set A");
    check(dnnl_memory_set_data_handle(m[1], (void *)B), "set B");
    check(dnnl_memory_set_data_handle(m[2], C), "set C");
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, m[0]}, {DNNL_ARG_WEIGHTS, m[1]}, {DNNL_ARG_DST, m[2]}};
    int nargs = 3;
    if (m[3]) {
        check(dnnl_memory_set_data_handle(m[3], g.scratch[s]), "set scratchpad");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, m[3]};
    }
    check(dnnl_primitive_execute(e->prim, g.stream[s], nargs, args), "matmul");
    check(dnnl_stream_wait(g.stream[s]), "stream wait");
}

static void matmul(int ta, int tb, int M, int N, int K, const void *A, int lda, const void *B,
                   int ldb, int beta, float *C, int ldc, dnnl_data_type_t dt) {
    ORDO_ASSERT(M > 0 && N > 0 && K > 0 && (beta == 0 || beta == 1));
    // the primitive cache and the slots are the calling thread's: one caller at a time
    ORDO_ASSERT(!omp_in_parallel());
    init();
    g.stats.calls++;
    // the blocks (see DNNL_PAR_MIN): nb of blk rows (split_m) or columns, the last one rem
    int split_m = M >= N || (!ta && M >= 2 * DNNL_BLOCK_MIN), len = split_m ? M : N, blk = len;
    if ((size_t)M * N * K >= DNNL_PAR_MIN) {
        blk = ((len + DNNL_BLOCKS - 1) / DNNL_BLOCKS + DNNL_BLOCK_ALIGN - 1) / DNNL_BLOCK_ALIGN *
              DNNL_BLOCK_ALIGN;
        if (blk < DNNL_BLOCK_MIN) blk = DNNL_BLOCK_MIN;
        if (blk > len) blk = len;
    }
    int nb = (len + blk - 1) / blk, rem = len - (nb - 1) * blk;
    // every primitive the call needs, made or found here, before any thread runs
    long key[10] = {ta != 0, tb != 0, M, N, K, lda, ldb, ldc, beta, (long)dt};
    key[split_m ? 2 : 3] = blk;
    entry *full = lookup(key, dt), *last = full;
    if (rem != blk) {
        key[split_m ? 2 : 3] = rem;
        last = lookup(key, dt); // never evicts `full`, just used
    }
    int nt = omp_get_max_threads(), ns = nt < nb ? nt : nb;
    slots_ready(full, ns);
    if (last != full) slots_ready(last, ns);
    size_t es = dt == dnnl_bf16 ? sizeof(ordo_bf16) : sizeof(float);
    const char *a = A, *b = B;
    // one thread for oneDNN also where it asks when a primitive runs (its gemm-based kernels
    // may): in the loop's threads (they inherit the count) and on the calling thread when one
    // block runs there
    omp_set_num_threads(1);
#pragma omp parallel for num_threads(ns) schedule(dynamic, 1) if (ns > 1)
    for (int p = 0; p < nb; p++) {
        size_t lo = (size_t)p * blk;
        const entry *e = p == nb - 1 ? last : full;
        int s = omp_get_thread_num();
        if (split_m)
            run_block(e, s, a + (ta ? lo : lo * lda) * es, b, C + lo * ldc);
        else
            run_block(e, s, a, b + (tb ? lo * ldb : lo) * es, C + lo);
    }
    omp_set_num_threads(nt);
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
