// The fused attention's kernels for AVX2 + FMA CPUs: flash_vec.h compiled -mavx2 -mfma
// -mno-avx512f (CMakeLists.txt), so that it runs on any such CPU whatever the build machine
// has. flash.c calls it only where ordo_cpu_isa() reaches avx2.
#include "framework/flash_kernel.h"

#include <stdlib.h>

#if defined(__AVX2__) && defined(__FMA__)
#include "framework/flash_vec.h"

const ordo_flash_kernel ordo_flash_kernel_avx2 = ORDO_FLASH_VEC_KERNEL("avx2");

#else // not x86-64: never chosen (ordo_cpu_isa() is portable there)

const ordo_flash_kernel ordo_flash_kernel_avx2 = {"avx2", NULL, NULL, NULL};

#endif
