/* What a Triton cache holds besides its kernels' entries, for the programs
 * that walk one (treg-analyze, tregc upload and watch). */
#ifndef TREG_UTIL_TRITON_CACHE_H
#define TREG_UTIL_TRITON_CACHE_H

/* Hygon's Triton archives a compilation that failed in
 * ~/.triton/cache/failed_kernels/<time>_<kernel>_<stage>/: context.txt and
 * the temporary .ll/.amdgcn/.s of the stage that failed
 * (HYGON-AI/triton-das third_party/hcu/backend/compiler.py@03c05f32:335-361,
 * _archive_failed_compilation).  Skipped, with one line saying why. */
#define TREG_FAILED_KERNELS "failed_kernels"
#define TREG_FAILED_KERNELS_WHY                                                                    \
    "Hygon's Triton keeps failed compilations there (context.txt and the failed stage's "          \
    "temporary files): no finished kernel to analyze"

#endif
