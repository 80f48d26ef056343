// The instruction sets ordo's own kernels may use: its GEMM micro-kernel (AVX-512) and the
// fused attention's tiles (AVX-512, AVX2+FMA, or portable vector C). OpenBLAS and oneDNN
// choose their own kernels (OPENBLAS_CORETYPE, ONEDNN_MAX_CPU_ISA).
#ifndef ORDO_CPU_H
#define ORDO_CPU_H

typedef enum ordo_isa { ORDO_ISA_PORTABLE, ORDO_ISA_AVX2, ORDO_ISA_AVX512 } ordo_isa;

// The best level the CPU runs (AVX2 counts only with FMA), capped by the environment's
// ORDO_MAX_ISA (avx512, avx2 or portable): a cap lets a test or a benchmark run the kernels of
// a smaller CPU on a larger one; a cap above the CPU changes nothing. Read once per process.
// An ORDO_MAX_ISA that names none of the three is reported on stderr once and ignored.
ordo_isa ordo_cpu_isa(void);
// "avx512", "avx2" or "portable".
const char *ordo_isa_name(ordo_isa isa);
// ORDO_ERR_ARG when OPENBLAS_CORETYPE forces OpenBLAS kernels that this CPU cannot run
// (SkylakeX, Cooperlake or SapphireRapids without AVX-512; Haswell or Zen without AVX2 and FMA):
// OpenBLAS would die with an illegal instruction at the first product, saying nothing. The
// message names the value, what it needs and what the CPU has. The CPU itself is asked, not
// ORDO_MAX_ISA (which caps ordo's kernels only).
#include "sys/error.h"
ordo_status ordo_cpu_check_coretype(void);
// The same rule for a core type `want` (NULL or "" when unset) and a CPU that runs `has`.
ordo_status ordo_cpu_coretype_runs(const char *want, ordo_isa has);
// The CPU's model name (/proc/cpuinfo's "model name", else "unknown CPU") into buf.
char *ordo_cpu_model(char *buf, int n);

// Subnormal floats (below 1.2e-38) flushed to zero on the calling thread: results that round
// to 0 and inputs read as 0 (x86's FTZ and DAZ; AArch64's FZ), or kept (IEEE's default) when
// `flush` is 0. Why: a trained model makes subnormals (which tensors hold them was not traced:
// the time goes to the products), and x86 takes a microcode assist on each one: an
// MQAR run's last 400 steps took 69.7 s against 10.9 s flushed, with the same tensors to the
// bit (docs/performance.md, "Subnormal floats"). Returns 1, or 0 on a CPU whose control
// register ordo does not know (nothing set). On x86 the fused attention's kernels flush while
// they run whatever this says (framework/flash.c).
int ordo_cpu_flush_subnormals(int flush);
// The policy of the process: flush unless the environment's ORDO_SUBNORMALS is "keep" (read
// once), and never on a CPU without the control (there subnormals are kept, as IEEE has them).
// ordo_set_threads applies it to the calling thread and the OpenMP team.
int ordo_cpu_subnormals_flushed(void);

#endif
