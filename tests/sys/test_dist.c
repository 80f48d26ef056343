// The data-parallel layer in a single process (as every plain run and the sanitizer suite
// see it): rank 0 of 1, shares that cover a batch, agree and the reductions as no-ops.
// The multi-rank behaviour is tested under mpirun by tests/cli/test_mpi_train.sh, which uses
// `test_dist --close A B TOL` to compare two checkpoints' weights within a tolerance.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/dist.h"
#include "framework/safetensors.h"
#include "test.h"

// Every F32 tensor of a within |x-y| <= tol*(1+|y|) of b's (weights: names without
// "optim."; moments are only reported). Prints the largest differences. 0 when close.
static int close_files(const char *a, const char *b, double tol) {
    ordo_safetensors *fa, *fb;
    if (ordo_safetensors_open(a, &fa) || ordo_safetensors_open(b, &fb)) {
        fprintf(stderr, "%s\n", ordo_error_message());
        return 2;
    }
    double max_w = 0, max_rel_w = 0, max_m = 0;
    int bad = ordo_safetensors_count(fa) != ordo_safetensors_count(fb), tensors = 0;
    for (int i = 0; !bad && i < ordo_safetensors_count(fa); i++) {
        const ordo_st_tensor *ta = ordo_safetensors_at(fa, i);
        const ordo_st_tensor *tb = ordo_safetensors_find(fb, ta->name);
        if (!tb || tb->nbytes != ta->nbytes || ta->dtype != ORDO_DTYPE_F32 ||
            tb->dtype != ORDO_DTYPE_F32) {
            fprintf(stderr, "tensor %s: missing or of another size/dtype in %s\n", ta->name, b);
            bad = 1;
            break;
        }
        int weight = strncmp(ta->name, "optim.", 6) != 0;
        tensors += weight;
        const char *pa = ordo_safetensors_data(fa, ta), *pb = ordo_safetensors_data(fb, tb);
        for (size_t k = 0; k < ta->nbytes / 4; k++) {
            float x, y;
            memcpy(&x, pa + 4 * k, 4);
            memcpy(&y, pb + 4 * k, 4);
            double d = fabs((double)x - y), rel = d / (1.0 + fabs(y));
            if (!weight) {
                max_m = d > max_m ? d : max_m;
                continue;
            }
            if (!(rel <= tol)) { // NaN fails too
                if (!bad) fprintf(stderr, "%s[%zu]: %.9g vs %.9g\n", ta->name, k, x, y);
                bad = 1;
            }
            max_w = d > max_w ? d : max_w;
            max_rel_w = rel > max_rel_w ? rel : max_rel_w;
        }
    }
    printf("%d weight tensors: max |diff| %.3g, max |diff|/(1+|w|) %.3g (tolerance %g); "
           "optimizer moments: max |diff| %.3g\n",
           tensors, max_w, max_rel_w, tol, max_m);
    ordo_safetensors_close(fa);
    ordo_safetensors_close(fb);
    return bad;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--close") == 0)
        return close_files(argv[2], argv[3], atof(argv[4]));

    int nargc = 1;
    char **nargv = argv;
    CHECK(ordo_dist_init(&nargc, &nargv) == ORDO_OK);
    CHECK(ordo_dist_rank() == 0);
    CHECK(ordo_dist_size() == 1);

    // one rank takes the whole batch, whatever its size
    for (int rows = 0; rows < 10; rows++) {
        int lo = -1, hi = -1;
        ordo_dist_share(rows, &lo, &hi);
        CHECK(lo == 0 && hi == rows);
    }
    // reductions over one rank leave the data as it was
    float f[3] = {1.5f, -2.0f, 3.25f};
    double d[2] = {0.1, 7.0};
    ordo_dist_sum_f32(f, 3);
    ordo_dist_sum_f64(d, 2);
    CHECK(f[0] == 1.5f && f[1] == -2.0f && f[2] == 3.25f);
    CHECK(d[0] == 0.1 && d[1] == 7.0);
    // agree passes a status through; one rank always holds the same value as itself
    CHECK(ordo_dist_agree(ORDO_OK) == ORDO_OK);
    CHECK(ordo_dist_agree(ORDO_ERR_IO) == ORDO_ERR_IO);
    CHECK(ordo_dist_same_u64(42));
    CHECK(ordo_dist_should_report());
    // an explicit --threads wins; "all cores" is at least one
    CHECK(ordo_dist_threads(3) == 3);
    CHECK(ordo_dist_threads(0) >= 1);
    ordo_dist_finalize();
    TEST_MAIN_END();
}
