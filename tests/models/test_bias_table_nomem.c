// The materialized attention's T x T table (t5's bucket map): a refusal of the
// system after eval's estimate had passed must not abort the process (as ordo_xmalloc would);
// the forward returns ORDO_ERR_NOMEM naming the table and its size, and the fused attention (the
// default) needs no such table at all. Reproduced under an address-space limit (setrlimit
// RLIMIT_AS), which a sanitizer build cannot run under: there the test is a SKIP (77).
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "framework/arena.h"
#include "models/gpt.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__)
int main(void) {
    printf("SKIP: an address-space limit does not go with AddressSanitizer\n");
    return 77;
}
#else
static void check(ordo_pos pos, const char *what) {
    ordo_gpt_config c = {.V = 16, .C = 8, .L = 1, .NH = 2, .T_max = 8, .pos = pos, .ln_eps = 1e-5f};
    ordo_gpt m;
    CHECK(ordo_gpt_init(&m, &c, 1) == ORDO_OK);
    int T = 16384; // t5: 16384^2 int32 = 1 GiB
    int32_t *idx = calloc((size_t)T, sizeof *idx);
    ordo_ctx ctx;
    ordo_ctx_init(&ctx);
    ctx.grad_enabled = 0;
    m.attention = ORDO_ATTN_MATERIALIZED;
    ordo_tensor *loss;
    ordo_status s = ordo_gpt_forward(&m, &ctx, idx, idx, 1, T, NULL, &loss);
    CHECK_MSG(s == ORDO_ERR_NOMEM && strstr(ordo_error_message(), what), "%s: status %d, '%s'",
              ordo_pos_name(pos), (int)s, ordo_error_message());
    ordo_ctx_free(&ctx);
    free(idx);
    ordo_gpt_free(&m);
}

int main(void) {
    // what the process maps now (threads' stacks, BLAS buffers: machine-dependent), plus 512
    // MiB: room for the small model and the forward, far below the table
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f || fscanf(f, "%lu", &pages) != 1) pages = 0;
    if (f) fclose(f);
    struct rlimit rl;
    getrlimit(RLIMIT_AS, &rl);
    rl.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + ((rlim_t)512 << 20);
    if (pages == 0 || setrlimit(RLIMIT_AS, &rl) != 0) {
        printf("SKIP: cannot limit the address space here\n");
        return 77;
    }
    check(ORDO_POS_T5, "cannot allocate 1.00 GiB for the t5 table of length 16384");
    TEST_MAIN_END();
}
#endif
