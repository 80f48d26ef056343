// The MPI wrapper (see dist.h). Only the main thread calls MPI (MPI_THREAD_FUNNELED);
// OpenMP and OpenBLAS threads run inside a rank and never communicate. Large buffers are
// reduced in chunks because MPI counts are ints.
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/dist.h"

#ifdef ORDO_HAVE_MPI
#include <mpi.h>
#endif

static int g_joined; // MPI_Init was called by ordo_dist_init
static int g_rank, g_size = 1;
static int g_local_size = 1; // ranks on this machine
static int g_report = 1;     // see ordo_dist_should_report

// The launchers of Open MPI, MPICH (hydra) and PMIx-based ones set these in every rank.
static int launched_by_mpi(int *size) {
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v) v = getenv("PMI_SIZE");
    *size = v ? atoi(v) : 0;
    return v || getenv("PMIX_RANK");
}

ordo_status ordo_dist_init(int *argc, char ***argv) {
    int want = 0;
    if (!launched_by_mpi(&want)) return ORDO_OK;
#ifdef ORDO_HAVE_MPI
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    g_joined = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &g_local_size);
    MPI_Comm_free(&local);
    g_report = g_rank == 0;
    return ORDO_OK;
#else
    if (want > 1)
        return ordo_error(ORDO_ERR_STATE,
                          "started as one of %d MPI processes, but this ordo was built without "
                          "MPI (install libopenmpi-dev and rebuild with -DORDO_MPI=ON); run it "
                          "without mpirun",
                          want);
    return ORDO_OK;
#endif
}

void ordo_dist_finalize(void) {
#ifdef ORDO_HAVE_MPI
    if (g_joined) MPI_Finalize();
#endif
    g_joined = 0;
}

int ordo_dist_rank(void) {
    return g_rank;
}
int ordo_dist_size(void) {
    return g_size;
}

int ordo_dist_available(void) {
#ifdef ORDO_HAVE_MPI
    return 1;
#else
    return 0;
#endif
}

int ordo_dist_threads(int requested) {
    if (requested > 0) return requested;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int n = online > 0 ? (int)online : 1;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        int allowed = CPU_COUNT(&set);
        // bound by the launcher to a subset: those cores are this rank's own
        if (allowed < n) return allowed;
    }
    // free to run anywhere: split the machine among the ranks on it
    n /= g_local_size;
    return n > 0 ? n : 1;
}

void ordo_dist_share(int rows, int *lo, int *hi) {
    // rank r takes [r*rows/size, (r+1)*rows/size): contiguous, sizes differ by at most one
    *lo = (int)((long long)rows * g_rank / g_size);
    *hi = (int)((long long)rows * (g_rank + 1) / g_size);
}

void ordo_dist_sum_f32(float *buf, size_t n) {
#ifdef ORDO_HAVE_MPI
    if (g_size <= 1) return;
    const size_t chunk = (size_t)1 << 30;
    for (size_t off = 0; off < n; off += chunk) {
        int c = (int)(n - off < chunk ? n - off : chunk);
        MPI_Allreduce(MPI_IN_PLACE, buf + off, c, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
#else
    (void)buf;
    (void)n;
#endif
}

void ordo_dist_sum_f64(double *buf, int n) {
#ifdef ORDO_HAVE_MPI
    if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)buf;
    (void)n;
#endif
}

ordo_status ordo_dist_agree(ordo_status s) {
#ifdef ORDO_HAVE_MPI
    if (g_size <= 1) return s;
    // max over ranks of: failed?, size - rank of a failed rank (max = the lowest failed rank),
    // rank 0 failed?, the status
    int v[4] = {s != ORDO_OK, s != ORDO_OK ? g_size - g_rank : 0, g_rank == 0 && s != ORDO_OK,
                (int)s};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!v[0]) return ORDO_OK;
    g_report = g_rank == 0 || (s != ORDO_OK && !v[2]);
    if (s != ORDO_OK) return s;
    // keep an interruption an interruption (exit status 130 on every rank)
    return ordo_error(v[3] == ORDO_ERR_INTERRUPTED ? ORDO_ERR_INTERRUPTED : ORDO_ERR_STATE,
                      "rank %d of %d failed (see its message); every rank stopped", g_size - v[1],
                      g_size);
#else
    return s;
#endif
}

int ordo_dist_same_u64(uint64_t v) {
#ifdef ORDO_HAVE_MPI
    if (g_size <= 1) return 1;
    uint64_t m[2] = {v, ~v}; // max(~v) = ~min(v)
    MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return m[0] == ~m[1];
#else
    (void)v;
    return 1;
#endif
}

int ordo_dist_should_report(void) {
    return g_report;
}
