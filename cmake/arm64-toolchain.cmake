# Cross-compiles ordo for arm64 (aarch64) Linux on a Debian x86-64 machine, with Debian's
# cross compiler (crossbuild-essential-arm64) and the arm64 -dev packages installed through
# multiarch (dpkg --add-architecture arm64; libopenblas-openmp-dev:arm64 and the rest).
# scripts/arm64.sh installs all of that, configures build-arm64/ with this file and runs the
# tests under qemu-aarch64. By hand:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/arm64-toolchain.cmake \
#         -DORDO_NATIVE=OFF -DORDO_MPI=OFF -DCMAKE_BUILD_TYPE=Release
# (ORDO_NATIVE=OFF: -march=native would describe the x86 build machine, which gcc for
# aarch64 rejects; the result targets generic armv8-a.)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ORDO_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ORDO_CROSS_TRIPLET}-gcc)
# Bookworm's aarch64-linux-gnu-gcc 12.2 dies at -O3 ("internal compiler error: in
# vect_transform_reduction, at tree-vect-loop.cc:7457") vectorising a double fmax()
# reduction over floats, `for (...) m = fmax(m, fabs(x[i]));` with float x, a pattern of
# cli/cmd_sample.c and several tests. The x86-64 compiler is fine. With fmax a plain libm
# call such loops stay scalar (same values: glibc's fmax is the fmaxnm instruction); every
# other loop is vectorised as before. Drop this with a compiler that has the fix.
set(CMAKE_C_FLAGS_INIT "-fno-builtin-fmax")
# Debian's multiarch directory name: CMakeLists.txt builds the path of the OpenMP build of
# OpenBLAS (/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp) from it, and find_library
# searches <prefix>/lib/<arch> first. CMake would detect it from the compiler too; naming it
# here keeps the toolchain's view in one place.
set(CMAKE_LIBRARY_ARCHITECTURE ${ORDO_CROSS_TRIPLET})

# Where find_library/find_path/find_package look: the cross libc of the -cross packages, and
# "/" for the multiarch packages, whose arm64 files live in /usr/lib/aarch64-linux-gnu and
# /usr/include/aarch64-linux-gnu (CMAKE_LIBRARY_ARCHITECTURE picks those subdirectories).
# Programs (cmake, pkg-config, clang, valgrind) are the build machine's.
set(CMAKE_FIND_ROOT_PATH /usr/${ORDO_CROSS_TRIPLET} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (pkg_check_modules for openblas, libpcre2-8, jansson, libxxhash, nettle) must
# read the arm64 .pc files only, never the build machine's x86-64 ones: PKG_CONFIG_LIBDIR
# replaces the default search path. The .pc files of multiarch packages hold absolute host
# paths (/usr/lib/aarch64-linux-gnu), so no sysroot is prepended. CMakeLists.txt still puts
# /usr/lib/aarch64-linux-gnu/openblas-openmp/pkgconfig in front through PKG_CONFIG_PATH.
set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/${ORDO_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# ctest (and add_custom_command with a target as its command) runs arm64 executables through
# qemu-user. -L is qemu's prefix for the ELF interpreter and the libraries it opens (a path
# missing under it falls back to the host's, where the multiarch arm64 libraries are):
# QEMU_LD_PREFIX when set (scripts/arm64.sh sets it); else "/" when the multiarch
# libc6:arm64 is installed (every arm64 -dev package pulls it in), so that ld.so and
# libc.so.6 come from one glibc build; else the cross libc of libc6-arm64-cross.
if(DEFINED ENV{QEMU_LD_PREFIX} AND NOT "$ENV{QEMU_LD_PREFIX}" STREQUAL "")
  set(ORDO_QEMU_LD_PREFIX "$ENV{QEMU_LD_PREFIX}")
elseif(EXISTS /lib/ld-linux-aarch64.so.1)
  set(ORDO_QEMU_LD_PREFIX /)
else()
  set(ORDO_QEMU_LD_PREFIX /usr/${ORDO_CROSS_TRIPLET})
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${ORDO_QEMU_LD_PREFIX})
