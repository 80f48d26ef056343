// The fused attention's kernels on any CPU: flash_vec.h compiled with the build's own flags,
// which the compiler maps to the CPU's vectors (NEON on arm64, SSE2 on a baseline x86-64,
// wider under -march=native). flash.c calls it where ordo_cpu_isa() is portable.
#include "framework/flash_vec.h"

const ordo_flash_kernel ordo_flash_kernel_portable = ORDO_FLASH_VEC_KERNEL("portable");
