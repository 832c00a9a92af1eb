/* What the two benchmark programs share. */
#ifndef TREG_BENCH_UTIL_H
#define TREG_BENCH_UTIL_H

#include <stddef.h>

/* A whole file, NUL-terminated (not counted in *len); NULL if unreadable. */
char *bench_slurp(const char *path, size_t *len);

#endif
