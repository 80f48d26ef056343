// Data-parallel support: a thin wrapper over MPI with single-process fallbacks, so that the
// trainer calls the same functions with or without MPI. A process started by mpirun (or
// any MPI launcher) is one rank of MPI_COMM_WORLD; a process started plainly is rank 0 of 1
// and never touches MPI (no MPI_Init, so plain runs, tests and sanitizers are unaffected).
// Built without MPI (ORDO_MPI off), every call is a no-op for rank 0 of 1, and being
// launched by mpirun with more than one process is refused at init.
//
// Deliberately not here: point-to-point messages, communicators other than the world, and
// any recovery from a failed rank (MPI's default error handler ends the whole job).
#ifndef ORDO_DIST_H
#define ORDO_DIST_H
#include <stddef.h>
#include <stdint.h>

#include "sys/error.h"

// Joins the MPI job when the environment says an MPI launcher started this process
// (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK set); otherwise does nothing. Call once,
// first thing in main. ORDO_ERR_STATE when launched as several ranks by a build without MPI.
ordo_status ordo_dist_init(int *argc, char ***argv);
// Leaves the MPI job (MPI_Finalize) if init joined one. Call once, last thing in main.
void ordo_dist_finalize(void);

int ordo_dist_rank(void);      // 0..size-1; 0 without MPI
int ordo_dist_size(void);      // ranks in the job; 1 without MPI
int ordo_dist_available(void); // 1 when this build has MPI compiled in

// Threads each rank should use for `requested` (--threads; <= 0 means "all cores"): the
// request as given, else the cores this process may run on, shared among the ranks on this
// machine when the launcher did not bind each rank to its own cores.
int ordo_dist_threads(int requested);

// Rows [*lo, *hi) of a global batch of `rows` that this rank takes: contiguous, in rank
// order, sizes differing by at most one (a rank may get none when rows < size).
void ordo_dist_share(int rows, int *lo, int *hi);

// Collective (every rank must call, in the same order): element-wise sums over all ranks,
// in place. No-ops with one rank. Results are identical on every rank.
void ordo_dist_sum_f32(float *buf, size_t n);
void ordo_dist_sum_f64(double *buf, int n);

// Collective: turns each rank's own status into one outcome every rank shares, so that no
// rank goes on into a collective call that another rank will never make. Returns s when this
// rank failed; ORDO_ERR_STATE ("rank k failed ...") when only another rank did; ORDO_OK when
// none did. With one rank, returns s.
ordo_status ordo_dist_agree(ordo_status s);

// Collective: 1 when v is the same on every rank (checks that ranks hold the same state).
int ordo_dist_same_u64(uint64_t v);

// Whether main should print this rank's error message: always with one rank or on rank 0;
// on other ranks only for a failure of their own that rank 0 did not share (otherwise every
// rank would print the same message).
int ordo_dist_should_report(void);

#endif
