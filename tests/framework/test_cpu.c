// framework/cpu.h: the rule that refuses an OPENBLAS_CORETYPE the CPU cannot run (OpenBLAS
// would die at its first product with an illegal instruction and no message), for each CPU
// kind, since the machine running the test is only one of them; and ORDO_MAX_ISA's names.
#include <string.h>

#include "framework/cpu.h"
#include "test.h"

static void refused(const char *want, ordo_isa has, const char *needs) {
    ordo_status s = ordo_cpu_coretype_runs(want, has);
    CHECK_MSG(s == ORDO_ERR_ARG, "OPENBLAS_CORETYPE=%s on a %s CPU was not refused", want,
              ordo_isa_name(has));
    if (s == ORDO_ERR_ARG) {
        const char *m = ordo_error_message();
        CHECK_MSG(strstr(m, want) && strstr(m, needs) && strstr(m, "illegal instruction"),
                  "message: %s", m);
    }
}

int main(void) {
    // an AVX2 CPU (Zen 3, Intel client cores): AVX-512 cores refused, AVX2 ones run
    refused("SkylakeX", ORDO_ISA_AVX2, "need AVX-512");
    refused("cooperlake", ORDO_ISA_AVX2, "need AVX-512");
    refused("SapphireRapids", ORDO_ISA_AVX2, "need AVX-512");
    CHECK(ordo_cpu_coretype_runs("Zen", ORDO_ISA_AVX2) == ORDO_OK);
    CHECK(ordo_cpu_coretype_runs("Haswell", ORDO_ISA_AVX2) == ORDO_OK);
    // a CPU without AVX2: the AVX2 cores too
    refused("Haswell", ORDO_ISA_PORTABLE, "need AVX2 and FMA");
    refused("Zen", ORDO_ISA_PORTABLE, "need AVX2 and FMA");
    // an AVX-512 CPU runs them all; unset, empty and cores ordo does not know pass through
    const char *all[] = {"SkylakeX", "Cooperlake", "Haswell", "Zen", "Sandybridge", "", NULL};
    for (int i = 0; i < 7; i++) CHECK(ordo_cpu_coretype_runs(all[i], ORDO_ISA_AVX512) == ORDO_OK);
    CHECK(ordo_cpu_coretype_runs(NULL, ORDO_ISA_PORTABLE) == ORDO_OK);
    CHECK(!strcmp(ordo_isa_name(ORDO_ISA_AVX2), "avx2") &&
          !strcmp(ordo_isa_name(ORDO_ISA_PORTABLE), "portable") &&
          !strcmp(ordo_isa_name(ORDO_ISA_AVX512), "avx512"));
    // this machine: the check at start passes with the variable unset
    CHECK(ordo_cpu_coretype_runs(NULL, ordo_cpu_isa()) == ORDO_OK);
    TEST_MAIN_END();
}
