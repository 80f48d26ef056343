// Which instruction sets ordo's kernels run (cpu.h).
#include "framework/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

static ordo_isa cpu_has(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return ORDO_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ORDO_ISA_AVX2;
#endif
    return ORDO_ISA_PORTABLE;
}

static ordo_isa isa_decide(void) {
    ordo_isa has = cpu_has();
    const char *cap = getenv("ORDO_MAX_ISA");
    if (!cap || !*cap) return has;
    for (int i = ORDO_ISA_PORTABLE; i <= ORDO_ISA_AVX512; i++)
        if (strcmp(cap, ordo_isa_name((ordo_isa)i)) == 0) return i < (int)has ? (ordo_isa)i : has;
    fprintf(stderr, "ordo: ORDO_MAX_ISA=%s is not avx512, avx2 or portable; ignored\n", cap);
    return has;
}

ordo_isa ordo_cpu_isa(void) {
    // the fused attention asks from several threads at once
    static _Atomic int v = -1;
    if (v < 0) v = (int)isa_decide();
    return (ordo_isa)v;
}

const char *ordo_isa_name(ordo_isa isa) {
    static const char *const name[] = {"portable", "avx2", "avx512"};
    return isa >= ORDO_ISA_PORTABLE && isa <= ORDO_ISA_AVX512 ? name[isa] : "unknown";
}

char *ordo_cpu_model(char *buf, int n) {
    snprintf(buf, (size_t)n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = 0;
        snprintf(buf, (size_t)n, "%s", colon);
        break;
    }
    fclose(f);
    return buf;
}

ordo_status ordo_cpu_check_coretype(void) {
    return ordo_cpu_coretype_runs(getenv("OPENBLAS_CORETYPE"), cpu_has());
}

ordo_status ordo_cpu_coretype_runs(const char *want, ordo_isa has) {
    if (!want || !*want) return ORDO_OK;
    static const char *const avx512[] = {"skylakex", "cooperlake", "sapphirerapids"};
    static const char *const avx2[] = {"haswell", "zen"};
    ordo_isa need = ORDO_ISA_PORTABLE;
    for (size_t i = 0; i < sizeof avx512 / sizeof *avx512; i++)
        if (!strcasecmp(want, avx512[i])) need = ORDO_ISA_AVX512;
    for (size_t i = 0; i < sizeof avx2 / sizeof *avx2; i++)
        if (!strcasecmp(want, avx2[i])) need = ORDO_ISA_AVX2;
    if (need <= has) return ORDO_OK;
    return ordo_error(ORDO_ERR_ARG,
                      "OPENBLAS_CORETYPE=%s forces OpenBLAS kernels that need %s, which this CPU "
                      "does not have (it has %s): OpenBLAS would stop at its first product with "
                      "an illegal instruction; unset OPENBLAS_CORETYPE%s",
                      want, need == ORDO_ISA_AVX512 ? "AVX-512" : "AVX2 and FMA",
                      has == ORDO_ISA_AVX2 ? "AVX2 and FMA" : "neither AVX2 nor AVX-512",
                      has == ORDO_ISA_AVX2 ? ", or name a core this CPU runs (Haswell or Zen)"
                                           : "");
}

// ---- subnormals

int ordo_cpu_flush_subnormals(int flush) {
#if defined(__SSE2__)
    unsigned csr = _mm_getcsr() & ~(0x8000u | 0x0040u); // FTZ (bit 15), DAZ (bit 6)
    _mm_setcsr(csr | (flush ? 0x8040u : 0u));
    return 1;
#elif defined(__aarch64__)
    unsigned long fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    fpcr = flush ? fpcr | (1ul << 24) : fpcr & ~(1ul << 24); // FZ
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
    return 1;
#else
    (void)flush;
    return 0;
#endif
}

int ordo_cpu_subnormals_flushed(void) {
    static _Atomic int policy = -1;
    if (policy < 0) {
        const char *e = getenv("ORDO_SUBNORMALS");
#if defined(__SSE2__) || defined(__aarch64__)
        policy = !(e && strcmp(e, "keep") == 0);
#else
        policy = 0; // no control register ordo knows
#endif
        if (e && *e && strcmp(e, "keep") != 0 && strcmp(e, "flush") != 0) // "": unset
            fprintf(stderr, "ordo: ORDO_SUBNORMALS=%s: expected keep or flush; flushing\n", e);
    }
    return policy;
}
